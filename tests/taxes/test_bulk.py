"""``/taxes/bulk``: creates and edits in input order, per-element errors, the 413 limit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import tax_rate_locations, tax_rates
from tests.helpers.api import Credentials, authorised, errors
from tests.helpers.sql import count_rows
from tests.helpers.taxes import BULK, URL, create


@pytest.mark.parametrize("method", ["post_json", "put_json", "patch_json"])
def test_bulk_creates_and_edits_in_input_order(api: Any, engine: sa.Engine, method: str) -> None:
    existing = create(api, country="GB", rate="20", name="VAT", postcode="AB1")
    response = getattr(api, method)(
        BULK,
        {
            "taxes": [
                {"country": "fr", "rate": "5.5", "name": "TVA", "city": "paris;lyon"},
                {"id": existing["id"], "rate": "17.5", "postcode": "cb1*"},
                {"id": 0, "priority": "-2"},
            ]
        },
    )
    assert response.status_int == 200
    [created, edited, third] = response.json["taxes"]
    assert created == {
        "id": created["id"],
        "country": "FR",
        "state": "",
        "postcode": "",
        "city": "PARIS;LYON",
        "rate": "5.5000",
        "name": "TVA",
        "priority": 1,
        "compound": False,
        "shipping": True,
        "order": 0,
        "class": "standard",
    }
    assert edited == {**existing, "rate": "17.5000", "postcode": "CB1*"}
    assert third["priority"] == 2
    assert third["id"] not in (existing["id"], created["id"])
    assert count_rows(engine, tax_rates) == 3
    assert api.get(f"{URL}/{existing['id']}").json == {"tax": edited}
    assert api.get(f"{URL}/{created['id']}").json == {"tax": created}


def test_bulk_with_bad_elements_keeps_the_good_ones(api: Any, engine: sa.Engine) -> None:
    existing = create(api, rate="20", name="VAT")
    response = api.post_json(
        BULK,
        {
            "taxes": [
                {"name": "first", "postcode": "AB1;AB2"},
                {"name": "bad rate", "rate": "lots", "postcode": "ZZ1"},
                {"id": existing["id"], "name": "edited"},
                {"id": 999, "name": "missing"},
                {"id": existing["id"], "priority": "high"},
                {"name": "bad class", "class": "luxury"},
                "not an object",
                {"name": "last"},
            ]
        },
    )
    assert response.status_int == 200
    results = response.json["taxes"]
    assert [item.get("name") for item in results] == [
        "first",
        None,
        "edited",
        None,
        None,
        None,
        None,
        "last",
    ]
    assert results[1] == {
        "id": 0,
        "error": {
            "code": "shop_api_invalid_tax_rate",
            "message": "Tax rate must be a non-negative number.",
        },
    }
    assert results[3] == {
        "id": 999,
        "error": {
            "code": "shop_api_invalid_tax_id",
            "message": "A tax rate with the provided ID could not be found.",
        },
    }
    assert results[4] == {
        "id": existing["id"],
        "error": {
            "code": "shop_api_invalid_param",
            "message": "Invalid parameter tax.priority: must be an integer.",
        },
    }
    assert results[5]["error"]["code"] == "shop_api_invalid_tax_class"
    assert results[6] == {
        "id": 0,
        "error": {
            "code": "shop_api_invalid_param",
            "message": "Invalid parameter taxes[6]: must be a JSON object.",
        },
    }
    assert count_rows(engine, tax_rates) == 3
    with engine.connect() as conn:
        codes = conn.execute(sa.select(tax_rate_locations.c.code)).scalars().all()
    assert sorted(codes) == ["AB1", "AB2"]
    listed = api.get(URL).json["taxes"]
    assert [item["name"] for item in listed] == ["edited", "first", "last"]


@pytest.mark.parametrize("given", [None, "abc", 0, "0", True, -0.0])
def test_bulk_element_without_a_usable_id_creates(api: Any, given: Any) -> None:
    response = api.post_json(BULK, {"taxes": [{"id": given, "name": "new"}]})
    [item] = response.json["taxes"]
    assert item["name"] == "new"
    assert item["id"] > 0


def test_bulk_element_with_a_digit_string_id_edits(api: Any, engine: sa.Engine) -> None:
    existing = create(api, name="old")
    response = api.put_json(BULK, {"taxes": [{"id": str(existing["id"]), "name": "new"}]})
    assert response.json == {"taxes": [{**existing, "name": "new"}]}
    assert count_rows(engine, tax_rates) == 1


def test_bulk_over_the_limit_writes_nothing(api: Any, engine: sa.Engine) -> None:
    response = api.post_json(BULK, {"taxes": [{"name": f"r{n}"} for n in range(101)]}, status=413)
    assert errors(response) == [
        {
            "code": "shop_api_taxes_request_entity_too_large",
            "message": "Unable to accept more than 100 items for this request.",
        }
    ]
    assert count_rows(engine, tax_rates) == 0


def test_bulk_limit_is_a_setting(
    build_app: Callable[..., TestApp], admin: Credentials, engine: sa.Engine
) -> None:
    client = authorised(build_app(**{"shopsvc.bulk_limit": "2"}), admin)
    try:
        response = client.post_json(BULK, {"taxes": [{}, {}, {}]}, status=413)
        assert errors(response)[0]["message"] == (
            "Unable to accept more than 2 items for this request."
        )
        assert count_rows(engine, tax_rates) == 0
        assert len(client.post_json(BULK, {"taxes": [{}, {}]}).json["taxes"]) == 2
        assert count_rows(engine, tax_rates) == 2
    finally:
        client.app.registry.engine.dispose()


@pytest.mark.parametrize("body", [None, {}, {"taxes": None}, {"tax": [{}]}])
def test_bulk_without_the_envelope(api: Any, body: Any) -> None:
    if body is None:
        response = api.post(BULK, "", status=400)
    else:
        response = api.post_json(BULK, body, status=400)
    assert errors(response) == [
        {
            "code": "shop_api_missing_taxes_data",
            "message": "No taxes data specified to create/edit taxes",
        }
    ]


def test_bulk_with_an_envelope_that_is_not_an_array(api: Any) -> None:
    response = api.post_json(BULK, {"taxes": {"name": "x"}}, status=400)
    assert errors(response) == [
        {
            "code": "shop_api_invalid_param",
            "message": "Invalid parameter taxes: must be a JSON array.",
        }
    ]


def test_bulk_checks_the_capability_of_each_element(
    api: Any, customer_api: Any, engine: sa.Engine
) -> None:
    existing = create(api, name="old")
    response = customer_api.post_json(
        BULK, {"taxes": [{"name": "new"}, {"id": existing["id"], "name": "changed"}]}
    )
    assert response.status_int == 200
    assert response.json == {
        "taxes": [
            {
                "id": 0,
                "error": {
                    "code": "shop_api_user_cannot_create_tax",
                    "message": "You do not have permission to create tax rates.",
                },
            },
            {
                "id": existing["id"],
                "error": {
                    "code": "shop_api_user_cannot_edit_tax",
                    "message": "You do not have permission to edit tax rates.",
                },
            },
        ]
    }
    assert count_rows(engine, tax_rates) == 1
    assert api.get(f"{URL}/{existing['id']}").json["tax"]["name"] == "old"


def test_bulk_without_capability_still_checks_the_envelope_first(customer_api: Any) -> None:
    response = customer_api.post_json(BULK, {}, status=400)
    assert errors(response)[0]["code"] == "shop_api_missing_taxes_data"


def test_bulk_of_nothing(api: Any) -> None:
    response = api.post_json(BULK, {"taxes": []})
    assert response.status_int == 200
    assert response.json == {"taxes": []}
