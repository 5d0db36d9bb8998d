"""Check, then write (issue 25): a tax rate or class write that its checks refuse sends no
statement that writes, single or in a bulk — every check (the fields, the class, the rate's
existence, a class name or slug taken) runs before the first write. Single creates and edits and
the bulk's elements are planned and written by the same code (``writers.taxes.plan_create``,
``plan_edit``, ``write_rates``; a bulk run one by one makes each element a batch of one)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import tax_classes, tax_rate_locations, tax_rates
from tests.helpers.api import error
from tests.helpers.sql import count_rows
from tests.helpers.taxes import BULK, CLASSES, URL, create, create_class
from tests.helpers.writes import writes_of

NO_CLASS = (400, "shop_api_invalid_tax_class", 'Tax class "nope" does not exist.')


def refused(api: TestApp, send: Any) -> tuple[tuple[int, str, str], list[str]]:
    """The error of the refused request ``send()`` and the statements it wrote."""
    responses: list[Any] = []
    written = writes_of(api, lambda: responses.append(send()))
    return error(responses[0]), written


def rows(engine: sa.Engine) -> tuple[int, int, int]:
    return tuple(  # type: ignore[return-value]
        count_rows(engine, table) for table in (tax_rates, tax_rate_locations, tax_classes)
    )


def test_refused_rate_writes_write_nothing(api: TestApp, engine: sa.Engine) -> None:
    create_class(api, "Reduced rate")
    rate = create(api, country="FR", rate="20", postcode="75001;75002", city="Paris")
    before = rows(engine)
    fields = {"country": "DE", "postcode": "10115", "city": "Berlin", "class": "nope"}
    answer, written = refused(api, lambda: api.post_json(URL, {"tax": fields}, status=400))
    assert (answer, written) == (NO_CLASS, [])
    answer, written = refused(
        api, lambda: api.put_json(f"{URL}/{rate['id']}", {"tax": fields}, status=400)
    )
    assert (answer, written) == (NO_CLASS, [])
    for body, code in (
        ({"rate": "x", "postcode": "1"}, "shop_api_invalid_tax_rate"),
        ({"priority": "x", "class": "reduced-rate"}, "shop_api_invalid_param"),
    ):
        answer, written = refused(api, lambda b=body: api.post_json(URL, {"tax": b}, status=400))
        assert (answer[:2], written) == ((400, code), []), body
    answer, written = refused(api, lambda: api.put_json(f"{URL}/99", {"tax": {}}, status=404))
    assert (answer[0], written) == (404, [])
    assert rows(engine) == before
    assert api.get(f"{URL}/{rate['id']}").json["tax"]["postcode"] == "75001;75002"


def test_a_bulk_of_refused_elements_writes_nothing(api: TestApp, engine: sa.Engine) -> None:
    rate = create(api, country="FR", rate="20")
    before = rows(engine)
    elements = [
        {"country": "DE", "class": "nope"},
        {"id": rate["id"], "rate": "5", "class": "nope"},
        {"id": 99, "rate": "5"},
        {"rate": "bad"},
    ]
    responses: list[Any] = []
    written = writes_of(
        api, lambda: responses.append(api.post_json(BULK, {"taxes": elements}, status=200))
    )
    assert [item["error"]["code"] for item in responses[0].json["taxes"]] == [
        "shop_api_invalid_tax_class",
        "shop_api_invalid_tax_class",
        "shop_api_invalid_tax_id",
        "shop_api_invalid_tax_rate",
    ]
    assert written == []
    # the same elements after a create, so that the bulk runs one by one (the id 99 could be
    # the new rate's): each refused element a batch of one that writes nothing
    written = writes_of(
        api,
        lambda: responses.append(
            api.post_json(BULK, {"taxes": [{"name": "new"}, *elements]}, status=200)
        ),
    )
    assert [item.get("error", {}).get("code") for item in responses[1].json["taxes"]] == [
        None,
        "shop_api_invalid_tax_class",
        "shop_api_invalid_tax_class",
        "shop_api_invalid_tax_id",
        "shop_api_invalid_tax_rate",
    ]
    assert [sql.split(None, 3)[:3] for sql in written] == [["INSERT", "INTO", "tax_rates"]]
    assert rows(engine) == (before[0] + 1, *before[1:])


def test_refused_class_writes_write_nothing(api: TestApp, engine: sa.Engine) -> None:
    create_class(api, "Reduced rate")
    before = rows(engine)
    for name, code in (
        ("Reduced rate", "shop_api_tax_class_exists"),
        ("Reduced-Rate", "shop_api_tax_class_slug_exists"),
        ("Standard rate", "shop_api_tax_class_exists"),
        ("!!!", "shop_api_tax_class_invalid_name"),
    ):
        answer, written = refused(
            api, lambda n=name: api.post_json(CLASSES, {"tax_class": {"name": n}}, status=401)
        )
        assert (answer[:2], written) == ((401, code), []), name
    for slug in ("standard", "nope"):
        answer, written = refused(api, lambda s=slug: api.delete(f"{CLASSES}/{s}", status=401))
        assert (answer[:2], written) == ((401, "shop_api_cannot_delete_tax_class"), []), slug
    assert rows(engine) == before
