"""``/orders/bulk`` planned as a whole (``writers.order_batch``) against each element as its own
batch of one (what a single create or edit runs), on both databases: the planner's elements
see each other exactly as separate requests would.

Each case runs the same bulk twice from the same fresh database (emptied, ids restarted, the
same catalogue, customers, orders and webhooks seeded, the clock and the order keys fixed):
once as the service runs it, once with the set-based path switched off (``shopsvc.web.bulk``
never tries it: each element runs alone, in its own savepoint), and compares everything a
client or the database shows: the response, every row of the order tables, the products' stock
and sales, the customer profiles, the webhook outbox, and a single create made after the bulk
(it shows the ids the bulk used up). Explicit cases cover each rule; a bounded Hypothesis
strategy mixes valid creates and edits with invalid elements, duplicates, non-objects, wrong
types and huge numbers. Statement counts show that the set-based path ran and that its cost
does not grow with the number of elements.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webtest import TestApp

from shopsvc.sql.tables import (
    customer_profiles,
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    products,
    tax_classes,
    tax_rates,
    users,
    webhook_deliveries,
)
from shopsvc.testing.catalog import CatalogFactory
from shopsvc.testing.databases import user_with_key
from shopsvc.web import bulk
from tests.helpers.api import Credentials, authorised
from tests.helpers.databases import reset
from tests.helpers.order_writes import BULK, URL
from tests.helpers.sql import insert, insert_many, queries, select_all, statements
from tests.helpers.webhooks import subscribe_everywhere

NOW = dt.datetime(2025, 3, 4, 5, 6, 7)
ADDRESS = {
    "first_name": "Ann",
    "last_name": "Martin",
    "address_1": "1 Rue de Rivoli",
    "city": "Paris",
    "postcode": "75001",
    "country": "FR",
}
PAID = {"method_id": "bacs", "method_title": "Bank", "paid": True}
STATUSES = ("pending", "processing", "on-hold", "completed", "cancelled", "failed")
TOPICS = (
    *(f"{r}.{e}" for r in ("order", "product") for e in ("created", "updated", "restored")),
    *(
        f"action.{name}"
        for name in (
            "shop_new_order",
            "shop_update_order",
            "shop_order_status_changed",
            "shop_payment_complete",
            "shop_product_set_stock",
            "shop_variation_set_stock",
            "shop_order_status_completed",
            "shop_order_status_processing",
            "shop_order_status_pending_to_completed",
            "shop_order_status_pending_to_processing",
            "shop_order_status_cancelled",
        )
    ),
)


@dataclass
class World:
    """What the seed made (the same ids on every fresh database)."""

    api: TestApp
    products: dict[str, int] = field(default_factory=dict)
    customers: list[int] = field(default_factory=list)
    orders: dict[str, int] = field(default_factory=dict)


@pytest.fixture
def fixed(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """The clock fixed, order keys from a counter; returns the restart of the counter."""
    counter = itertools.count(1)

    def key() -> str:
        return f"shop_order_{next(counter):013d}"

    def restart() -> None:
        nonlocal counter
        counter = itertools.count(1)

    monkeypatch.setattr("shopsvc.web.contexts.utc_now", lambda: NOW)
    monkeypatch.setattr("shopsvc.domain.orders.new_order_key", key)
    return restart


def _seed(engine: sa.Engine, app: TestApp) -> World:
    user_id, key_id, key, secret = user_with_key(engine, "boss", "administrator", "read_write")
    world = World(authorised(app, Credentials(user_id, key_id, key, secret)))
    factory = CatalogFactory(engine)
    made = world.products
    made["stocked"] = factory.product(
        "Stocked", regular_price="10", manage_stock=True, stock_quantity=3
    )
    made["plain"] = factory.product("Plain", regular_price="5.5", sku="SKU-Plain")
    made["ebook"] = factory.product(
        "Ebook",
        regular_price="3",
        virtual=True,
        downloadable=True,
        manage_stock=True,
        stock_quantity=100,
        backorders="yes",
    )
    made["reduced"] = factory.product("Reduced", regular_price="8", tax_class="reduced-rate")
    made["shirt"] = factory.product(
        "Shirt",
        type="variable",
        manage_stock=True,
        stock_quantity=2,
        attributes=[{"name": "Size", "options": ["S", "M"], "variation": True}],
    )
    made["shirt_s"] = factory.variation(
        made["shirt"], {"size": "S"}, regular_price="20", manage_stock=False
    )
    made["shirt_m"] = factory.variation(
        made["shirt"],
        {"size": "M"},
        regular_price="21",
        manage_stock=True,
        stock_quantity=1,
        sku="SHIRT-M",
    )
    insert(
        engine,
        tax_rates,
        country="",
        state="",
        rate=Decimal("20"),
        name="VAT",
        priority=1,
        compound=False,
        shipping=True,
        rate_order=0,
    )
    insert(
        engine,
        tax_rates,
        country="FR",
        state="",
        rate=Decimal("5.5"),
        name="TVA",
        priority=1,
        compound=False,
        shipping=False,
        rate_order=1,
        tax_class_id=insert(engine, tax_classes, slug="reduced-rate", name="Reduced rate"),
    )
    for n in (1, 2):
        world.customers.append(
            insert(
                engine,
                users,
                login=f"c{n}",
                email=f"c{n}@example.com",
                role="customer",
                created_at=NOW,
                updated_at=NOW,
            )
        )
    insert_many(
        engine,
        customer_profiles,
        [
            {
                "user_id": world.customers[1],
                "billing": '{"city": "Lyon"}',
                "shipping": "{}",
                "updated_at": NOW,
            }
        ],
    )
    api = world.api

    def order(**fields: Any) -> int:
        return int(api.post_json(URL, {"order": fields}, status=201).json["order"]["id"])

    line = [{"product_id": made["stocked"], "quantity": 1}]
    world.orders["pending"] = order(line_items=line, billing_address=ADDRESS)
    world.orders["pending2"] = order(
        line_items=[{"product_id": made["shirt_s"], "quantity": 1}],
        payment_details={"method_id": "cod", "method_title": "Cash"},
    )
    world.orders["processing"] = order(line_items=line, status="processing")
    world.orders["customer"] = order(customer_id=world.customers[0], line_items=line)
    for name in ("customer_paid", "customer_paid2"):
        world.orders[name] = order(
            customer_id=world.customers[0], line_items=line, status="processing"
        )
    world.orders["trashed"] = order(line_items=line, status="on-hold")
    api.delete(f"{URL}/{world.orders['trashed']}", status=202)
    world.orders["with_items"] = order(
        status="processing",
        billing_address=ADDRESS,
        line_items=[
            {"product_id": made["stocked"], "quantity": 2},
            {"product_id": made["plain"], "quantity": 3},
            {"product_id": made["reduced"], "quantity": 1},
        ],
        shipping_lines=[{"method_id": "flat", "method_title": "Flat", "total": "5"}],
        fee_lines=[{"title": "Wrap", "total": "2", "taxable": True, "tax_class": "standard"}],
        coupon_lines=[{"code": "SAVE", "amount": "1"}],
    )
    gone = order()
    api.delete(f"{URL}/{gone}", {"force": "true"}, status=202)
    world.orders["gone"] = gone  # an id below the highest that names no order
    world.orders["empty"] = order()
    subscribe_everywhere(engine, TOPICS, NOW)
    return world


ORDER_TABLES = (orders, order_items, order_item_meta, order_notes, order_refunds)


def _snapshot(engine: sa.Engine) -> dict[str, Any]:
    found: dict[str, Any] = {t.name: select_all(engine, t) for t in ORDER_TABLES}
    found["profiles"] = sorted(
        (row["user_id"], row["billing"], row["shipping"], row["updated_at"])
        for row in select_all(engine, customer_profiles)
    )
    found["stock"] = [
        (
            row["id"],
            row["stock_quantity"],
            row["stock_status"],
            row["total_sales"],
            row["updated_at"],
        )
        for row in select_all(engine, products)
    ]
    found["outbox"] = [
        (
            row["id"],
            row["webhook_id"],
            row["topic"],
            row["resource"],
            row["resource_id"],
            row["state"],
        )
        for row in select_all(engine, webhook_deliveries)
    ]
    return found


Body = Callable[[World], Any]


def _run(
    engine: sa.Engine,
    app: TestApp,
    restart: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
    body: Body,
    set_based: bool,
    params: str = "",
) -> tuple[Any, dict[str, Any], bool]:
    """Seed a fresh database, send the bulk, then one create; the responses, the snapshot and
    whether the set-based path answered."""
    reset(engine)
    restart()
    world = _seed(engine, app)
    answered: list[bool] = []
    original = bulk._set_based

    def spy(*args: Any) -> Any:
        done = original(*args) if set_based else None
        answered.append(done is not None)
        return done

    with monkeypatch.context() as patch:
        patch.setattr(bulk, "_set_based", spy)
        response = world.api.post_json(BULK + params, body(world), status="*")
    after = world.api.post_json(
        URL,
        {
            "order": {
                "line_items": [{"product_id": world.products["stocked"], "quantity": 1}],
                "status": "processing",
            }
        },
        status=201,
    )
    result = (response.status_int, response.json, after.json)
    return result, _snapshot(engine), bool(answered and answered[0])


@pytest.fixture
def compare(
    engine: sa.Engine,
    app: TestApp,
    fixed: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., bool]:
    """``compare(body)``: the bulk set-based and one by one give the same everything; whether
    the set-based path answered."""

    def run(body: Body, params: str = "") -> bool:
        fast, fast_rows, answered = _run(engine, app, fixed, monkeypatch, body, True, params)
        slow, slow_rows, _ = _run(engine, app, fixed, monkeypatch, body, False, params)
        assert fast == slow
        for name in slow_rows:
            assert fast_rows[name] == slow_rows[name], name
        return answered

    return run


@pytest.fixture
def compare_in(
    engine: sa.Engine,
    build_app: Callable[..., TestApp],
    fixed: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., bool]:
    """``compare_in(settings, body)``: :func:`compare` in an app with these store settings."""

    def run(store: dict[str, str], body: Body) -> bool:
        app = build_app(**store)
        fast, fast_rows, answered = _run(engine, app, fixed, monkeypatch, body, True)
        slow, slow_rows, _ = _run(engine, app, fixed, monkeypatch, body, False)
        assert fast == slow
        for name in slow_rows:
            assert fast_rows[name] == slow_rows[name], name
        return answered

    return run


def _line(world: World, name: str, quantity: int = 1, **extra: Any) -> dict[str, Any]:
    return {"product_id": world.products[name], "quantity": quantity, **extra}


def _create(world: World, status: str = "processing", **fields: Any) -> dict[str, Any]:
    return {
        "status": status,
        "billing_address": {**ADDRESS, "email": "ann@example.com"},
        "shipping_address": ADDRESS,
        "payment_details": {"method_id": "bacs", "method_title": "Bank"},
        "line_items": [_line(world, "stocked", 2), _line(world, "plain")],
        "shipping_lines": [{"method_id": "flat_rate", "method_title": "Flat", "total": "4.90"}],
        **fields,
    }


# --- the rules, one by one


def test_common_creates_run_set_based(compare: Callable[..., bool]) -> None:
    def body(w: World) -> Any:
        return {
            "orders": [
                _create(w),
                _create(w, status="pending", payment_details=PAID),
                _create(w, status="completed", order_meta={"ref": "A-1", "_hidden": "x"}),
                _create(w, status="on-hold", note="leave at the door", currency="EUR"),
                {"line_items": [_line(w, "ebook", 3)], "payment_details": PAID},
                {
                    "line_items": [_line(w, "reduced", 2)],
                    "billing_address": ADDRESS,
                    "fee_lines": [
                        {"title": "Wrap", "total": "2", "taxable": True, "tax_class": "standard"}
                    ],
                    "coupon_lines": [{"code": "SAVE", "amount": "1"}],
                },
            ]
        }

    assert compare(body)


def test_common_edits_run_set_based(compare: Callable[..., bool]) -> None:
    def body(w: World) -> Any:
        o = w.orders
        return {
            "orders": [
                {"id": o["pending"], "status": "completed", "order_meta": {"tracking": "T1"}},
                {"id": str(o["processing"]), "status": "cancelled", "status_note": "Gone."},
                {"id": o["pending2"], "payment_details": {**PAID, "transaction_id": "tx-9"}},
                {"id": o["trashed"], "status": "processing"},
                {
                    "id": o["empty"],
                    "note": "n",
                    "billing_address": {"email": "e@x.org"},
                    "shipping_address": ADDRESS,
                    "currency": "USD",
                    "payment_details": {"method_title": "Later"},
                },
                {
                    "id": o["customer"],
                    "billing_address": {"city": "Nice"},
                    "customer_id": w.customers[1],
                },
            ]
        }

    assert compare(body)


def test_shared_stock_moves_in_input_order(compare: Callable[..., bool]) -> None:
    """Stock 3 of one product sold by several orders: below zero, out of stock; a variation
    selling from its parent's stock, one with its own; a cancelled order gives stock back."""

    def body(w: World) -> Any:
        return {
            "orders": [
                {"status": "processing", "line_items": [_line(w, "stocked", 2)]},
                {
                    "status": "completed",
                    "line_items": [_line(w, "stocked", 2), _line(w, "shirt_s", 1)],
                },
                {"id": w.orders["processing"], "status": "pending"},
                {
                    "status": "on-hold",
                    "line_items": [
                        {
                            "product_id": w.products["shirt"],
                            "quantity": 1,
                            "variations": {"attribute_Size": "m"},
                        },
                        {"sku": "shirt-m", "quantity": 1},
                        {"sku": "SKU-PLAIN", "quantity": 2},
                    ],
                },
                {"status": "processing", "line_items": [_line(w, "shirt_s", 3)]},
            ]
        }

    assert compare(body)


@pytest.mark.parametrize(
    "store",
    [
        {
            "shopsvc.prices_include_tax": "true",
            "shopsvc.tax_based_on": "billing",
            "shopsvc.out_of_stock_threshold": "2",
        },
        {"shopsvc.manage_stock": "false", "shopsvc.tax_round_at_subtotal": "true"},
        {"shopsvc.calc_taxes": "false", "shopsvc.tax_based_on": "base"},
    ],
)
def test_store_settings(compare_in: Callable[..., bool], store: dict[str, str]) -> None:
    """Prices including tax (default prices ex tax with more decimals than the columns keep:
    the totals are computed on the amounts as stored), the threshold, stock management off,
    rounding at subtotal, taxes off."""

    def body(w: World) -> Any:
        return {
            "orders": [
                _create(w, line_items=[_line(w, "stocked", 3), _line(w, "reduced", 7)]),
                {
                    "status": "completed",
                    "billing_address": ADDRESS,
                    "line_items": [
                        _line(w, "plain", 3),
                        _line(w, "shirt_s", 2),
                        {"sku": "shirt-m", "quantity": 1},
                    ],
                    "fee_lines": [
                        {
                            "title": "Fee",
                            "total": "-3.333",
                            "taxable": True,
                            "tax_class": "reduced-rate",
                        }
                    ],
                },
                {"id": w.orders["processing"], "status": "cancelled"},
                {"id": w.orders["pending"], "status": "on-hold"},
            ]
        }

    assert compare_in(store, body)


def test_failing_elements_keep_their_place_and_their_ids(compare: Callable[..., bool]) -> None:
    """Failures before and after rows were inserted (a one-by-one run uses up their ids on
    PostgreSQL), each with its own error item, in input order."""

    def body(w: World) -> Any:
        return {
            "orders": [
                _create(w),
                _create(w, currency="usd"),  # fails after items and taxes
                "not an object",
                _create(w, status="nope"),
                {"line_items": [_line(w, "plain"), {"product_id": 99999, "quantity": 1}]},
                {"line_items": [_line(w, "plain", 0)]},
                {
                    "line_items": [
                        _line(w, "plain"),
                        {"product_id": w.products["plain"], "quantity": 1, "total": "999999999999"},
                    ]
                },
                {"line_items": [_line(w, "plain", 999999999)], "status": "processing"},
                {"payment_details": {"method_id": "x"}, "line_items": [_line(w, "stocked")]},
                {"customer_id": 4242},
                {"customer_id": "x"},
                {"id": w.orders["gone"], "status": "completed"},
                {"id": -3, "status": "completed"},
                {"id": "abc"},
                {
                    "id": w.orders["pending"],
                    "status": "bogus",
                    "payment_details": {**PAID},
                },  # pays (a note, stock) then fails
                {"id": w.orders["customer"], "customer_id": 777},
                {"id": w.orders["pending2"], "currency": "XXXX"},
                {"id": w.orders["processing"], "line_items": [{"id": "x"}]},
                {"id": w.orders["empty"], "status": [1]},
                {"line_items": [{"quantity": 1}]},
                {"shipping_lines": [{"method_title": "No id"}]},
                {"fee_lines": [{"total": "1"}]},
                {"coupon_lines": [{"amount": "-1", "code": "X"}]},
                {"billing_address": "not an object"},
                _create(w, status="completed"),
            ]
        }

    assert compare(body)


def test_customers_profiles_and_billing_email(compare: Callable[..., bool]) -> None:
    def body(w: World) -> Any:
        return {
            "orders": [
                {
                    "customer_id": w.customers[0],
                    "billing_address": {"first_name": "Zoe"},
                    "shipping_address": {"city": "Metz"},
                    "line_items": [_line(w, "plain")],
                },
                {"customer_id": w.customers[1], "shipping_address": ADDRESS},
                {"customer_id": "", "billing_address": ADDRESS},
            ]
        }

    assert compare(body)


def test_one_customer_s_orders_completed_together(compare: Callable[..., bool]) -> None:
    """Processing orders of one customer completed (a paid status to a paid status) and
    another of its orders given meta: no record shows that customer otherwise than the end."""

    def body(w: World) -> Any:
        o = w.orders
        return {
            "orders": [
                {"id": o["customer_paid"], "status": "completed", "order_meta": {"t": "1"}},
                {"id": o["customer_paid2"], "status": "completed", "order_meta": {"t": "2"}},
                {"id": o["customer"], "order_meta": {"t": "3"}},
            ]
        }

    assert compare(body)


def test_item_edits_and_refunds_run_set_based(compare: Callable[..., bool]) -> None:
    """Item arrays of existing orders (new, changed and deleted items, their taxes and totals
    recalculated) and a status change to refunded (a refund of what is left)."""

    def body(w: World) -> Any:
        o = w.orders
        return {
            "orders": [
                {"id": o["pending"], "line_items": [_line(w, "plain")]},
                {"id": o["processing"], "status": "refunded"},
                {
                    "id": o["customer"],
                    "status": "processing",
                    "line_items": [_line(w, "reduced", 2), _line(w, "shirt_s")],
                    "shipping_lines": [{"method_id": "flat", "total": "3.333"}],
                    "fee_lines": [{"title": "Wrap", "total": "2"}],
                },
                {"id": o["pending2"], "line_items": [], "billing_address": ADDRESS},
                {"id": o["with_items"], "status": "refunded", "line_items": []},
            ]
        }

    assert compare(body)


def test_item_updates_and_deletes_run_set_based(compare: Callable[..., bool]) -> None:
    """Items of an order created in the bulk's seed, changed by id and deleted."""

    def body(w: World) -> Any:
        order_id = w.orders["with_items"]
        record = w.api.get(f"{URL}/{order_id}").json["order"]
        lines = [line["id"] for line in record["line_items"]]
        shipping = record["shipping_lines"][0]["id"]
        fee = record["fee_lines"][0]["id"]
        coupon = record["coupon_lines"][0]["id"]
        return {
            "orders": [
                {
                    "id": order_id,
                    "line_items": [
                        {"id": lines[0], "product_id": w.products["stocked"], "quantity": 5},
                        {"id": lines[1], "product_id": w.products["plain"], "total": "7.777"},
                        {"id": lines[2], "product_id": None},
                        _line(w, "ebook", 2),
                    ],
                    "shipping_lines": [{"id": shipping, "total": "0"}],
                    "fee_lines": [{"id": fee, "title": None}],
                    "coupon_lines": [{"id": coupon, "code": "NEW", "amount": "2"}],
                    "status": "completed",
                },
                {"id": w.orders["pending"], "line_items": [{"id": lines[0], "quantity": 1}]},
                {"id": w.orders["pending2"], "fee_lines": [{"id": 99999, "total": "1"}]},
            ]
        }

    assert compare(body)


@pytest.mark.parametrize(
    "case",
    [
        "same order twice",
        "same customer twice",
        "customer's new order",
        "customer's profile",
        "guessed new id",
        "unknown id",
        "expand products",
    ],
)
def test_shapes_left_to_one_by_one(compare: Callable[..., bool], case: str) -> None:
    """What the set-based path does not write itself still gives the one-by-one outcome."""

    def body(w: World) -> Any:
        o = w.orders
        elements: dict[str, list[Any]] = {
            "same order twice": [
                {"id": o["pending"], "note": "a"},
                {"id": o["pending"], "status": "completed"},
            ],
            "same customer twice": [
                {"id": o["customer_paid"], "status": "completed"},
                {"id": o["customer"], "status": "completed"},
            ],
            "customer's new order": [
                {"id": o["customer_paid"], "note": "x"},
                {"customer_id": w.customers[0]},
            ],
            "customer's profile": [
                {"id": o["customer_paid"], "note": "x"},
                {"id": o["customer"], "shipping_address": {"city": "Sens"}},
            ],
            "guessed new id": [_create(w), {"id": o["empty"] + 1, "status": "completed"}],
            "unknown id": [_create(w), {"id": 99999, "status": "completed"}],
            "expand products": [_create(w)],
        }
        return {"orders": elements[case]}

    params = "?filter[expand]=products" if case == "expand products" else ""
    assert not compare(body, params)


# --- mixes


def _element(kind: str, n: int, w: World) -> Any:
    o = list(w.orders.values())
    names = list(w.products)
    target = o[n % len(o)]
    product = w.products[names[n % len(names)]]
    huge = 10**13 + n
    return {
        "create": lambda: {
            "status": STATUSES[n % len(STATUSES)],
            "line_items": [{"product_id": product, "quantity": 1 + n % 3}],
        },
        "paid create": lambda: {
            "payment_details": PAID,
            "billing_address": ADDRESS,
            "line_items": [{"product_id": product, "quantity": 2}],
        },
        "edit": lambda: {
            "id": target,
            "status": STATUSES[n % len(STATUSES)],
            "order_meta": {"k": str(n)},
        },
        "pay": lambda: {"id": target, "payment_details": PAID},
        "bad status": lambda: {"id": target, "status": "x"},
        "bad product": lambda: {"line_items": [{"product_id": 10**6 + n, "quantity": 1}]},
        "non-object": lambda: [n],
        "wrong type": lambda: {"line_items": {"a": 1}} if n % 2 else {"status": [1]},
        "huge": lambda: (
            {"line_items": [{"product_id": product, "quantity": huge}]} if n % 2 else {"id": huge}
        ),
        "customer": lambda: {"customer_id": w.customers[n % 2], "shipping_address": ADDRESS},
        "sku and attributes": lambda: {
            "status": "on-hold",
            "line_items": [
                {"sku": "shirt-m", "quantity": 1 + n % 2},
                {
                    "product_id": w.products["shirt"],
                    "quantity": 1,
                    "variations": {"attribute_size": "S" if n % 2 else "XL"},
                },
            ],
            "fee_lines": [{"title": "Wrap", "total": str(n)}],
            "coupon_lines": [{"code": "C", "amount": "1"}],
        },
        "restore": lambda: {"id": w.orders["trashed"], "status": STATUSES[n % len(STATUSES)]},
    }[kind]()


ELEMENTS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "sku and attributes",
                "restore",
                "create",
                "paid create",
                "edit",
                "pay",
                "bad status",
                "bad product",
                "non-object",
                "wrong type",
                "huge",
                "customer",
            ]
        ),
        st.integers(0, 11),
    ),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mix=ELEMENTS)
def test_mixes(compare: Callable[..., bool], mix: list[tuple[str, int]]) -> None:
    compare(lambda w: {"orders": [_element(kind, n, w) for kind, n in mix]})


# --- the cost


def _bulk_statements(
    engine: sa.Engine, app: TestApp, fixed: Callable[[], None], elements: Callable[[World], list]
) -> int:
    reset(engine)
    fixed()
    world = _seed(engine, app)
    body = {"orders": elements(world)}
    with statements(app) as seen:
        response = world.api.post_json(BULK, body, status=200)
    assert all("error" not in found for found in response.json["orders"])
    return len(queries(seen))


@pytest.fixture
def counted(
    engine: sa.Engine, app: TestApp, fixed: Callable[[], None]
) -> Iterator[Callable[[Callable[[World], list]], int]]:
    yield lambda elements: _bulk_statements(engine, app, fixed, elements)


def test_creates_cost_a_constant_number_of_statements(counted: Callable[..., int]) -> None:
    def creates(count: int) -> Callable[[World], list]:
        return lambda w: [_create(w, payment_details=PAID, status="pending")] * count

    ten, hundred = counted(creates(10)), counted(creates(100))
    assert ten == hundred
    assert hundred <= 25


def test_edits_cost_a_constant_number_of_statements(counted: Callable[..., int]) -> None:
    def edits(count: int) -> Callable[[World], list]:
        def build(w: World) -> list:
            made = w.api.post_json(BULK, {"orders": [_create(w, "pending")] * count}).json
            return [
                {"id": order["id"], "status": "completed", "order_meta": {"tracking": "T"}}
                for order in made["orders"]
            ]

        return build

    ten, hundred = counted(edits(10)), counted(edits(100))
    assert ten == hundred
    assert hundred <= 20


def test_a_bulk_locks_its_products_and_their_families_in_one_statement(
    engine: sa.Engine, app: TestApp, fixed: Callable[[], None]
) -> None:
    """The products the lines name and their families are locked by one statement, in id order
    (PostgreSQL: ``FOR UPDATE``): two bulks over the same products take their locks in one
    order, where locking the named products and then their families let each hold a row the
    other wanted next."""
    reset(engine)
    fixed()
    world = _seed(engine, app)
    with statements(app, "AS sku_lower") as seen:
        response = world.api.post_json(
            BULK, {"orders": [_create(world, "pending")] * 3}, status=200
        )
    assert all("error" not in found for found in response.json["orders"])
    product_reads = [sql for sql in seen if sql.startswith("SELECT")]
    assert len(product_reads) == 1, product_reads
    (read,) = product_reads
    assert read.endswith(
        "ORDER BY products.id" + (" FOR UPDATE" if engine.dialect.name == "postgresql" else "")
    ), read
