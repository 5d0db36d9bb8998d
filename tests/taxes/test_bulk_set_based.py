"""``/taxes/bulk`` set-based (``views.taxes.RateBatch``) against one by one.

Differential: each bulk runs twice from the same fresh state (tables emptied, ids restarted,
the same webhooks, classes and rates created through the API): once as the service runs it,
once without the set-based attempt (the one-by-one path of ``shopsvc.web.bulk.run_bulk``, where
each element is a batch of one in its own savepoint). The HTTP
status, the response JSON (ids included), every row of the tax tables and the webhook outbox
must be the same. Tax writes fire no webhook event (a webhook listens to every resource topic):
the outbox must stay empty both ways. Each explicit case also says which way the service went
(set-based, or given back to one by one by ``Sequential``).

Statements: a bulk of valid creates or edits costs the same statements for 10 elements as for
100 (one insert of rates, one insert of locations, …), so the set-based path is what ran.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from webtest import TestApp

from shopsvc.domain.topics import EVENTS, RESOURCES
from shopsvc.sql import taxes as taxes_sql
from shopsvc.sql.tables import tax_classes, tax_rate_locations, tax_rates, webhook_deliveries
from shopsvc.testing.databases import user_with_key
from shopsvc.web import bulk
from tests.helpers.api import ROOT, Credentials, authorised
from tests.helpers.databases import reset
from tests.helpers.sql import queries, select_all, statements
from tests.helpers.taxes import BULK, CLASSES, URL
from tests.hostile.bodies import Raw, body_bytes
from tests.hostile.harness import hostile_settings

TABLES = (tax_rates, tax_rate_locations, tax_classes, webhook_deliveries)
#: The rates of the world, created in this order: ids 1 to 5 on a fresh database.
WORLD_RATES = (
    {"country": "GB", "rate": "20", "name": "VAT", "postcode": "AB1;AB2", "city": "London"},
    {"country": "FR", "rate": "5.5", "name": "TVA", "class": "reduced-rate", "city": "Paris"},
    {"country": "US", "state": "CA", "rate": "7.25", "name": "CA", "order": 2},
    {"country": "DE", "rate": "0", "name": "Null", "class": "zero-rate", "postcode": "10115"},
    {"name": "Plain"},
)
MISSING = 999
#: Every resource topic: tax writes fire none of them.
TOPICS = [f"{resource}.{event}" for resource in RESOURCES for event in EVENTS]
WEBHOOKS = ROOT + "/webhooks"


@dataclass
class Outcome:
    status: int
    body: Any
    tables: dict[str, list[dict[str, Any]]]
    #: Whether the set-based attempt answered (False: it gave the bulk back to one by one;
    #: None: there was no attempt).
    set_based: bool | None


@pytest.fixture
def differential(
    app: TestApp, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch, no_ping: None
) -> Iterator[Any]:
    """``run(elements, set_based, customer=False, during=None, subscribed=True)``: the
    :class:`Outcome` of a bulk sent from a fresh world (as the administrator, or a customer
    without capabilities; with a webhook on every topic unless not ``subscribed``);
    ``during(monkeypatch, set_based)`` patches what it likes for the bulk request only."""

    def run(
        body: Any,
        set_based: bool,
        customer: bool = False,
        during: Callable[[pytest.MonkeyPatch, bool], None] | None = None,
        subscribed: bool = True,
    ) -> Outcome:
        reset(engine)
        admin = authorised(
            app, Credentials(*user_with_key(engine, "admin", "administrator", "read_write"))
        )
        caller = admin
        if customer:
            caller = authorised(
                app, Credentials(*user_with_key(engine, "cust", "customer", "read_write"))
            )
        for topic in TOPICS if subscribed else ():  # an event fired would show in the outbox
            hook = {"topic": topic, "delivery_url": "http://127.0.0.1:9/hook"}
            admin.post_json(WEBHOOKS, {"webhook": hook}, status=201)
        for name in ("Reduced rate", "Zero rate"):
            admin.post_json(CLASSES, {"tax_class": {"name": name}}, status=201)
        for fields in WORLD_RATES:
            admin.post_json(URL, {"tax": fields}, status=201)
        attempts: list[bool] = []
        real = bulk._set_based

        def spy(*args: Any, **kwargs: Any) -> Any:
            done = real(*args, **kwargs)
            attempts.append(done is not None)
            return done

        with monkeypatch.context() as patch:
            # one by one: no set-based attempt (each element is then a batch of one)
            patch.setattr(bulk, "_set_based", spy if set_based else lambda *args: None)
            if during is not None:
                during(patch, set_based)
            response = caller.post(
                BULK,
                body_bytes({"taxes": body}),
                content_type="application/json",
                expect_errors=True,
            )
        tables = {table.name: select_all(engine, table) for table in TABLES}
        return Outcome(
            response.status_int,
            json.loads(response.body),
            tables,
            attempts[0] if attempts else None,
        )

    yield run


def same_both_ways(
    differential: Any,
    elements: Any,
    customer: bool = False,
    during: Any = None,
    subscribed: bool = True,
) -> Outcome:
    """The outcome of ``elements`` set-based, after checking it equals the one-by-one one."""
    fast = differential(elements, True, customer, during, subscribed)
    slow = differential(elements, False, customer, during, subscribed)
    assert slow.set_based is None
    assert fast.status == slow.status
    assert fast.body == slow.body
    assert fast.tables == slow.tables
    assert fast.tables["webhook_deliveries"] == []
    return fast


# --- explicit cases


def test_creates_of_every_shape(differential: Any) -> None:
    outcome = same_both_ways(
        differential,
        [
            {"country": "fr", "rate": "5.5", "name": "TVA", "city": "paris;lyon"},
            {"country": "US", "state": "ny", "postcode": ["10001", "100*"], "class": "Zero Rate"},
            {"rate": 7, "priority": "-2", "compound": "yes", "shipping": 0, "order": "3"},
            {"class": "standard", "postcode": "", "city": []},
            {"id": 0, "name": "zero id"},
            {"id": "abc", "name": "not an id"},
            {"id": None, "rate": ""},
            {},
        ],
    )
    assert outcome.set_based is True
    assert [item["id"] for item in outcome.body["taxes"]] == list(range(6, 14))
    assert outcome.body["taxes"][1]["class"] == "zero-rate"


def test_edits_of_every_field(differential: Any) -> None:
    outcome = same_both_ways(
        differential,
        [
            {"id": 1, "rate": "17.5", "name": "VAT 2", "postcode": "CB1*", "city": ""},
            {"id": "2", "class": "standard", "city": "Lyon;Nice", "priority": 3},
            {"id": 3, "class": "reduced-rate", "order": -1, "compound": True},
            {"id": 4, "country": "DE", "rate": "0", "name": "Null", "postcode": "10115"},
            {"id": 5.0, "shipping": False, "state": "by", "postcode": ["1", "2"], "city": "X"},
        ],
    )
    assert outcome.set_based is True
    assert [item["id"] for item in outcome.body["taxes"]] == [1, 2, 3, 4, 5]


def test_creates_edits_and_errors_mixed(differential: Any) -> None:
    outcome = same_both_ways(
        differential,
        [
            {"id": MISSING, "name": "missing"},
            {"name": "first", "postcode": "AB1;AB2"},
            {"name": "bad rate", "rate": "lots", "postcode": "ZZ1"},
            {"id": 1, "name": "edited", "city": "Leeds"},
            {"id": 2, "priority": "high"},
            {"name": "bad class", "class": "luxury"},
            {"id": 3, "class": "luxury"},
            "not an object",
            None,
            [1, 2],
            {"id": 2**31, "rate": "5"},
            {"id": -4, "rate": "5"},
            {"id": Raw("1e309"), "rate": "5"},
            {"rate": Raw("1e309")},
            {"order": 2**31},
            {"name": "x" * 201},
            {"country": "FRA"},
            {"postcode": [Raw("1e309")]},
            {"class": 12},
            {"id": 4, "postcode": "99*", "class": "Zero rate"},
            {"name": "last", "city": ["A", "B"]},
        ],
    )
    assert outcome.set_based is True
    results = outcome.body["taxes"]
    assert [item["id"] for item in results if "error" not in item] == [6, 1, 4, 7]
    assert results[0]["error"]["code"] == "shop_api_invalid_tax_id"


def test_an_edit_of_a_missing_rate_before_any_create_stays_set_based(differential: Any) -> None:
    outcome = same_both_ways(differential, [{"id": 6, "name": "no such rate"}, {"name": "new"}])
    assert outcome.set_based is True
    assert outcome.body["taxes"][0]["error"]["code"] == "shop_api_invalid_tax_id"


def test_an_edit_of_the_rate_an_earlier_element_created_runs_one_by_one(
    differential: Any,
) -> None:
    outcome = same_both_ways(differential, [{"name": "new"}, {"id": 6, "rate": "3"}])
    assert outcome.set_based is False
    assert outcome.body["taxes"][1] == {**outcome.body["taxes"][0], "rate": "3.0000"}
    # an id that is not there could be a new rate's: one by one too, and still a 404
    outcome = same_both_ways(differential, [{"name": "new"}, {"id": MISSING, "rate": "3"}])
    assert outcome.set_based is False
    assert outcome.body["taxes"][1]["error"]["code"] == "shop_api_invalid_tax_id"
    # …but never a negative one
    outcome = same_both_ways(differential, [{"name": "new"}, {"id": -6, "rate": "3"}])
    assert outcome.set_based is True


def test_two_edits_of_one_rate_run_one_by_one(differential: Any) -> None:
    outcome = same_both_ways(
        differential,
        [{"id": 1, "rate": "1", "postcode": "A1"}, {"name": "x"}, {"id": "1", "rate": "2"}],
    )
    assert outcome.set_based is False
    first, _, second = outcome.body["taxes"]
    assert (first["rate"], second["rate"], second["postcode"]) == ("1.0000", "2.0000", "A1")


def test_a_failed_edit_does_not_count_as_an_edit_of_its_rate(differential: Any) -> None:
    outcome = same_both_ways(
        differential, [{"id": 1, "rate": "bad"}, {"id": 1, "rate": "2"}, {"id": 1, "class": "no"}]
    )
    assert outcome.set_based is False  # the third element follows the second's edit
    outcome = same_both_ways(differential, [{"id": 1, "rate": "bad"}, {"id": 1, "rate": "2"}])
    assert outcome.set_based is True


def test_edits_that_change_nothing(differential: Any) -> None:
    fields = dict(WORLD_RATES[0])
    outcome = same_both_ways(differential, [{"id": 1, **fields}, {"id": 5, "name": "Plain"}])
    assert outcome.set_based is True


def test_without_capabilities_every_element_fails(differential: Any) -> None:
    outcome = same_both_ways(
        differential,
        [{"name": "new"}, {"id": 1, "name": "changed"}, {"id": MISSING}, {"id": 2**31}, "x"],
        customer=True,
    )
    assert outcome.set_based is True
    assert [item["error"]["code"] for item in outcome.body["taxes"]] == [
        "shop_api_user_cannot_create_tax",
        "shop_api_user_cannot_edit_tax",
        "shop_api_user_cannot_edit_tax",
        "shop_api_user_cannot_edit_tax",
        "shop_api_invalid_param",
    ]


def test_a_rate_deleted_concurrently_after_an_edit_that_changed_nothing(
    differential: Any,
) -> None:
    """The rate is gone when the records are loaded (a concurrent delete committed between):
    the element's 404, both ways."""

    def vanish(patch: pytest.MonkeyPatch, set_based: bool) -> None:
        real = taxes_sql.get_rates
        calls = []

        def fetch(conn: Any, ids: Any) -> Any:
            # the first load plans the edit (of the bulk, or of the element alone), the next
            # load the records
            calls.append(ids)
            found = real(conn, ids)
            if len(calls) < 2:
                return found
            return [row for row in found if row["id"] != 1]

        patch.setattr(taxes_sql, "get_rates", fetch)

    outcome = same_both_ways(
        differential, [{"id": 1, "name": "VAT"}, {"name": "new"}], during=vanish
    )
    assert outcome.set_based is True
    assert outcome.body["taxes"][0] == {
        "id": 1,
        "error": {
            "code": "shop_api_invalid_tax_id",
            "message": "A tax rate with the provided ID could not be found.",
        },
    }


@pytest.mark.parametrize("elements", [[], [{"name": f"r{n}"} for n in range(101)], {"a": 1}])
def test_nothing_to_run(differential: Any, elements: Any) -> None:
    same_both_ways(differential, elements)


# --- generated bulks

NAMES = st.sampled_from(["VAT", "", "  Tax  ", "<b>x</b>", "x" * 201, "é\u00e9", 5, None, [1]])
RATES = st.sampled_from(["20", "5.5", 0, 7.25, "", "-1", "lots", 1e20, "99999999.9999", None])
CLASSES_GIVEN = st.sampled_from(
    ["", "standard", "reduced-rate", "Reduced Rate", "zero-rate", "luxury", 3, None, {}]
)
LOCATIONS = st.sampled_from(
    ["", "AB1;CD*", "1000...2000", ["SW1A 1AA", "*"], [], ["x" * 201], 75001, {"a": 1}, None]
)
INTEGERS = st.sampled_from([0, 1, -3, "2", 2**31, -(2**31) - 1, "x", 1.5, None, 10**30])
IDS = st.sampled_from([1, 2, 3, 4, 5, "3", 5.0, 6, 7, MISSING, 0, "", "abc", -1, 2**31, None])
FIELDS = {
    "country": st.sampled_from(["GB", "us", "*", "", "FRA", 1]),
    "state": st.sampled_from(["CA", "*", "", "ny"]),
    "rate": RATES,
    "name": NAMES,
    "priority": INTEGERS,
    "compound": st.sampled_from([True, False, "yes", 0, None, "x"]),
    "shipping": st.sampled_from([True, False, "no", 1]),
    "order": INTEGERS,
    "class": CLASSES_GIVEN,
    "postcode": LOCATIONS,
    "city": LOCATIONS,
}


@st.composite
def elements(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["create", "edit", "edit", "junk"]))
    if kind == "junk":
        return draw(st.sampled_from(["text", 3, None, [], [{"name": "nested"}], True]))
    keys = draw(st.lists(st.sampled_from(sorted(FIELDS)), max_size=5, unique=True))
    element = {key: draw(FIELDS[key]) for key in keys}
    if kind == "edit":
        element["id"] = draw(IDS)
    return element


@hostile_settings(30)
@given(bulk=st.lists(elements(), max_size=8))
def test_generated_bulks_answer_the_same_both_ways(differential: Any, bulk: list[Any]) -> None:
    # without webhooks (the explicit cases check the outbox), to keep the examples quick
    same_both_ways(differential, bulk, subscribed=False)


# --- statements


def _bulk_statements(api: TestApp, elements: list[Any], method: str = "post_json") -> list[str]:
    with statements(api) as seen:
        response = getattr(api, method)(BULK, {"taxes": elements})
    assert all("error" not in item for item in response.json["taxes"])
    assert len(response.json["taxes"]) == len(elements)
    return queries(seen)


def _new(n: int) -> dict[str, Any]:
    return {
        "country": "FR",
        "postcode": [f"{75000 + n}", "13*"],
        "city": f"City {n}",
        "rate": f"{n % 20}.5",
        "name": f"Rate {n}",
        "class": ("standard", "reduced-rate")[n % 2],
    }


def test_a_bulk_of_creates_costs_the_same_statements_for_10_as_for_100(api: TestApp) -> None:
    api.post_json(CLASSES, {"tax_class": {"name": "Reduced rate"}}, status=201)
    ten = _bulk_statements(api, [_new(n) for n in range(10)])
    hundred = _bulk_statements(api, [_new(n) for n in range(100)])
    assert len(hundred) == len(ten)
    assert sum(sql.startswith("INSERT INTO tax_rates ") for sql in hundred) == 1
    assert sum(sql.startswith("INSERT INTO tax_rate_locations ") for sql in hundred) == 1
    assert not any(sql.startswith(("DELETE", "UPDATE tax_rates")) for sql in hundred)


def test_a_bulk_of_edits_costs_the_same_statements_for_10_as_for_100(api: TestApp) -> None:
    api.post_json(CLASSES, {"tax_class": {"name": "Reduced rate"}}, status=201)
    created = api.post_json(BULK, {"taxes": [_new(n) for n in range(100)]}).json["taxes"]
    ids = [item["id"] for item in created]

    def edits(count: int, run: int) -> list[dict[str, Any]]:
        return [
            {"id": rate_id, "rate": f"{run}.25", "name": f"Edited {run}", "city": f"C{run}"}
            for rate_id in ids[:count]
        ]

    ten = _bulk_statements(api, edits(10, 1), "put_json")
    hundred = _bulk_statements(api, edits(100, 2), "put_json")
    assert len(hundred) == len(ten)
    assert sum(sql.startswith("UPDATE tax_rates ") for sql in hundred) == 1
    assert sum(sql.startswith("DELETE FROM tax_rate_locations ") for sql in hundred) == 1
    assert sum(sql.startswith("INSERT INTO tax_rate_locations ") for sql in hundred) == 1
    listed = api.get(URL, {"filter[limit]": "100"}).json["taxes"]
    assert {(item["rate"], item["name"], item["city"]) for item in listed} == {
        ("2.2500", "Edited 2", "C2")
    }
