"""``POST /orders``: the spec's checks in order, line items, shipping, fees, coupons, totals and
taxes, payment, status, stock, addresses, meta, atomicity (both databases)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import orders, products
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import authorised
from tests.helpers.order_writes import (
    URL,
    US,
    counts,
    create,
    fails,
    notes,
    order_row,
    product,
    rate,
    stock_of,
)
from tests.helpers.sql import count_rows, one_row, update


def bad(field: str, problem: str) -> tuple[int, str, str]:
    return 400, "shop_api_invalid_param", f"Invalid parameter order.{field}: {problem}."


# --- envelope, capability, customer, status


def test_missing_envelope(api: TestApp) -> None:
    message = "No order data specified to create order"
    assert fails(api, {}) == (400, "shop_api_missing_order_data", message)
    assert fails(api, {"order": None}) == (400, "shop_api_missing_order_data", message)


def test_capability_before_fields(customer_api: TestApp) -> None:
    status, code, _ = fails(customer_api, {"order": {"status": "nope", "customer_id": 99}})
    assert (status, code) == (401, "shop_api_user_cannot_create_order")


def test_invalid_customer_before_status(api: TestApp) -> None:
    body = {"order": {"customer_id": 999, "status": "nope"}}
    assert fails(api, body) == (400, "shop_api_invalid_customer_id", "Customer ID is invalid.")


def test_unknown_status(api: TestApp, engine: sa.Engine) -> None:
    assert fails(api, {"order": {"status": "shipped"}}) == (
        400,
        "shop_api_cannot_create_order",
        "Cannot create order: Invalid order status",
    )
    assert counts(engine)[0] == 0


def test_guest_spellings_of_customer_id(api: TestApp) -> None:
    assert create(api, customer_id="")["customer_id"] == 0
    assert create(api, customer_id=0)["customer_id"] == 0


def test_defaults(api: TestApp) -> None:
    environ = {"REMOTE_ADDR": "203.0.113.7", "HTTP_USER_AGENT": "tests/1.0"}
    body = {"order": {"note": "Leave at the door"}}
    order = api.post_json(URL, body, extra_environ=environ, status=201).json["order"]
    assert order["status"] == "pending"
    assert order["currency"] == "USD"
    assert order["note"] == "Leave at the door"
    assert order["customer_ip"] == "203.0.113.7"
    assert order["customer_user_agent"] == "tests/1.0"
    assert order["total"] == "0.00"
    assert order["order_key"].startswith("shop_order_")


# --- the worked example (reference §10.5)


def test_worked_example(api: TestApp, engine: sa.Engine) -> None:
    rate_id = rate(engine, "10")
    a = product(engine, "A", "21.99")
    b = product(engine, "B", "19.99")
    order = create(
        api,
        billing_address={**US, "email": "a@example.com"},
        line_items=[{"product_id": a, "quantity": 2}, {"product_id": b, "quantity": 1}],
        shipping_lines=[{"method_id": "flat_rate", "method_title": "Flat Rate", "total": "10.00"}],
    )
    read = api.get(f"{URL}/{order['id']}").json["order"]
    for record in (order, read):
        assert record["subtotal"] == "63.97"
        assert record["cart_tax"] == "6.40"
        assert record["shipping_tax"] == "1.00"
        assert record["total_tax"] == "7.40"
        assert record["total_shipping"] == "10.00"
        assert record["total_discount"] == "0.00"
        assert record["total"] == "81.37"
        assert record["total_line_items_quantity"] == 3
        assert record["shipping_methods"] == "Flat Rate"
        [line_a, line_b] = record["line_items"]
        assert (line_a["subtotal"], line_a["total"], line_a["total_tax"]) == ("43.98",) * 2 + (
            "4.40",
        )
        assert (line_a["price"], line_a["quantity"], line_a["name"]) == ("21.99", 2, "A")
        assert (line_b["total"], line_b["total_tax"]) == ("19.99", "2.00")
        [tax_line] = record["tax_lines"]
        assert tax_line["rate_id"] == rate_id
        assert tax_line["total"] == "7.40"
        assert tax_line["code"] == "TAX-1"
        assert record["shipping_lines"][0]["total"] == "10.00"


@pytest.mark.parametrize(
    ("based_on", "taxed"),
    [("shipping", False), ("billing", True), ("base", True)],
)
def test_taxes_follow_tax_based_on(
    build_app: Callable[..., TestApp],
    admin: Any,
    engine: sa.Engine,
    based_on: str,
    taxed: bool,
) -> None:
    app = build_app(**{"shopsvc.tax_based_on": based_on, "shopsvc.store_country": "DE"})
    client = authorised(app, admin)
    rate(engine, "19", country="DE", name="MwSt")
    thing = product(engine, "Thing", "100")
    order = create(
        client,
        billing_address={"country": "DE"},
        shipping_address={"country": "FR"},
        line_items=[{"product_id": thing, "quantity": 1}],
    )
    assert order["total_tax"] == ("19.00" if taxed else "0.00")
    assert order["total"] == ("119.00" if taxed else "100.00")


def test_shipping_falls_back_to_billing(api: TestApp, engine: sa.Engine) -> None:
    rate(engine, "20", country="GB")
    thing = product(engine, "Thing", "50")
    order = create(
        api, billing_address={"country": "GB"}, line_items=[{"product_id": thing, "quantity": 1}]
    )
    assert order["total"] == "60.00"


# --- line items


def test_line_item_checks_in_order(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine)

    def line(**values: Any) -> tuple[int, str, str]:
        return fails(api, {"order": {"line_items": [values]}})

    assert line(quantity=1) == (400, "shop_api_invalid_product_id", "Product ID or SKU is required")
    assert line(product_id=thing, variations={"color": ""}, quantity=1) == (
        400,
        "shop_api_invalid_product_variation",
        "The product variation is invalid",
    )
    assert line(product_id=9999, quantity=1) == (
        400,
        "shop_api_invalid_product",
        "Product is invalid.",
    )
    assert line(sku="missing", quantity=1)[1] == "shop_api_invalid_product"
    assert line(product_id=thing, quantity=0) == (
        400,
        "shop_api_invalid_product_quantity",
        "Product quantity must be a positive float.",
    )
    assert line(product_id=thing, quantity=-2)[1] == "shop_api_invalid_product_quantity"
    assert line(product_id=thing) == (
        400,
        "shop_api_invalid_product_quantity",
        "Product quantity is required.",
    )
    assert line(product_id=thing, quantity=1.5) == bad(
        "line_items[0].quantity", "must be a whole number"
    )
    assert line(product_id=thing, quantity="2.5") == bad(
        "line_items[0].quantity", "must be a whole number"
    )
    assert line(product_id=thing, quantity="0")[1] == "shop_api_invalid_product_quantity"
    assert line(product_id="x", quantity=1) == bad("line_items[0].product_id", "must be an integer")


def test_line_by_sku_skips_trashed(api: TestApp, engine: sa.Engine) -> None:
    trashed = product(engine, "Old", "5", sku="ABC", status="trash")
    live = product(engine, "New", "7", sku="abc-2")
    order = create(api, line_items=[{"sku": "ABC-2", "quantity": 3}])
    assert order["line_items"][0]["product_id"] == live
    assert order["line_items"][0]["total"] == "21.00"
    assert fails(api, {"order": {"line_items": [{"sku": "abc", "quantity": 1}]}})[1] == (
        "shop_api_invalid_product"
    )
    assert trashed


def test_given_total_and_subtotal(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine, "Thing", "10")
    order = create(
        api,
        line_items=[
            {"product_id": thing, "quantity": 2, "total": "15"},
            {"product_id": thing, "quantity": 2, "total": "15", "subtotal": "20"},
        ],
    )
    first, second = order["line_items"]
    assert (first["subtotal"], first["total"]) == ("15.00", "15.00")
    assert (second["subtotal"], second["total"]) == ("20.00", "15.00")
    assert order["total_discount"] == "5.00"
    assert order["total"] == "30.00"


def test_sale_price_is_the_default(api: TestApp, engine: sa.Engine) -> None:
    thing = CatalogFactory(engine).product("Sale", regular_price="10", sale_price="8")
    assert create(api, line_items=[{"product_id": thing, "quantity": 1}])["total"] == "8.00"


def test_variations_pick_the_variation(api: TestApp, engine: sa.Engine) -> None:
    factory = CatalogFactory(engine)
    parent = factory.product("Shirt", type="variable")
    factory.variation(parent, {"color": "black"}, title="Shirt - Black", regular_price="12")
    blue = factory.variation(parent, {"color": "blue"}, title="Shirt - Blue", regular_price="11")
    order = create(
        api,
        line_items=[
            {"product_id": parent, "variations": {"attribute_pa_color": "Blue"}, "quantity": 1}
        ],
    )
    [line] = order["line_items"]
    assert line["product_id"] == blue
    assert line["name"] == "Shirt - Blue"
    assert line["total"] == "11.00"
    assert [(m["key"], m["value"]) for m in line["meta"]] == [("pa_color", "Blue")]
    no_match = {"product_id": parent, "variations": {"color": "green"}, "quantity": 1}
    assert fails(api, {"order": {"line_items": [no_match]}}) == (
        400,
        "shop_api_invalid_product",
        "Product is invalid.",
    )


# --- shipping, fees, coupons


def test_shipping_checks(api: TestApp) -> None:
    negative = {"method_id": "x", "total": -1}
    assert fails(api, {"order": {"shipping_lines": [negative]}}) == (
        400,
        "shop_invalid_shipping_total",
        "Shipping total must be a positive amount.",
    )
    assert fails(api, {"order": {"shipping_lines": [{"total": 5}]}}) == (
        400,
        "shop_invalid_shipping_item",
        "Shipping method ID is required.",
    )
    order = create(api, shipping_lines=[{"method_id": "free", "total": 0}])
    assert order["shipping_lines"][0]["method_title"] == ""


@pytest.mark.parametrize(
    ("array", "line"),
    [
        ("shipping_lines", {"method_id": "x"}),
        ("fee_lines", {"title": "x"}),
        ("line_items", {"product_id": 1, "quantity": 1}),
    ],
)
@pytest.mark.parametrize("total", ["1e999999999", "-1e999999999"])
def test_an_exponent_past_the_decimal_context_is_a_400(
    api: TestApp, engine: sa.Engine, array: str, line: dict[str, Any], total: str
) -> None:
    """An amount whose exponent no decimal context holds is refused by its size (``abs()`` of
    it overflowed into a 500), and nothing is written."""
    assert fails(api, {"order": {array: [{**line, "total": total}]}}) == (
        400,
        "shop_api_invalid_param",
        f"Invalid parameter order.{array}[0].total: must be below 1000000000000 in absolute value.",
    )
    assert count_rows(engine, orders) == 0


def test_fee_checks_and_taxes(api: TestApp, engine: sa.Engine) -> None:
    assert fails(api, {"order": {"fee_lines": [{"total": 5}]}}) == (
        400,
        "shop_invalid_fee_item",
        "Fee title is required",
    )
    assert fails(api, {"order": {"fee_lines": [{"title": "Wrap", "taxable": "yes"}]}}) == (
        400,
        "shop_invalid_fee_item",
        "Fee tax class is required when fee is taxable.",
    )
    assert fails(api, {"order": {"fee_lines": [{"title": "Wrap", "taxable": "maybe"}]}}) == bad(
        "fee_lines[0].taxable", "must be a boolean"
    )
    rate(engine, "10")
    order = create(
        api,
        billing_address={"country": "US"},
        fee_lines=[
            {"title": "Wrap", "total": "5", "taxable": True, "tax_class": ""},
            {"title": "Card", "total": "2"},
        ],
    )
    wrap, card = order["fee_lines"]
    assert (wrap["total"], wrap["total_tax"]) == ("5.00", "0.50")
    assert (card["total"], card["total_tax"]) == ("2.00", "0.00")
    assert order["total"] == "7.50"


def test_coupon_checks(api: TestApp) -> None:
    assert fails(api, {"order": {"coupon_lines": [{"code": "x", "amount": -1}]}}) == (
        400,
        "shop_invalid_coupon_total",
        "Coupon discount total must be a positive amount.",
    )
    assert fails(api, {"order": {"coupon_lines": [{"amount": 1}]}}) == (
        400,
        "shop_invalid_coupon_coupon",
        "Coupon code is required.",
    )
    order = create(api, coupon_lines=[{"code": "SAVE5", "amount": "5"}])
    assert order["coupon_lines"][0]["code"] == "SAVE5"
    assert order["coupon_lines"][0]["amount"] == "5.00"
    assert order["total"] == "0.00"


# --- payment, currency, status


def test_payment_details_required(api: TestApp) -> None:
    body = {"order": {"payment_details": {"method_id": "bacs"}}}
    assert fails(api, body) == (
        400,
        "shop_invalid_payment_details",
        "Payment method ID and title are required",
    )


def test_paid_moves_to_processing(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine)
    order = create(
        api,
        line_items=[{"product_id": thing, "quantity": 1}],
        payment_details={
            "method_id": "bacs",
            "method_title": "Bank",
            "paid": True,
            "transaction_id": "T-1",
        },
    )
    assert order["status"] == "processing"
    assert order["payment_details"] == {"method_id": "bacs", "method_title": "Bank", "paid": True}
    row = order_row(engine, order["id"])
    assert row["transaction_id"] == "T-1"
    assert row["date_paid"] is not None
    assert notes(engine, order["id"]) == [
        "Order status changed from Pending payment to Processing."
    ]


def test_paid_completes_virtual_downloadable_and_empty_orders(
    api: TestApp, engine: sa.Engine
) -> None:
    ebook = product(engine, "Ebook", "3", virtual=True, downloadable=True)
    payment = {"method_id": "bacs", "method_title": "Bank", "paid": True}
    lines = [{"product_id": ebook, "quantity": 1}]
    assert create(api, line_items=lines, payment_details=payment)["status"] == "completed"
    assert create(api, payment_details=payment)["status"] == "completed"


def test_paid_takes_the_boolean_spellings(api: TestApp) -> None:
    """decisions.md §2 "Booleans on input" (the original's JSON-true-only is not followed)."""
    for value in ("true", 1, "yes", "1"):
        payment = {"method_id": "bacs", "method_title": "Bank", "paid": value}
        order = create(api, payment_details=payment)
        assert order["status"] == "completed"
        assert order["payment_details"]["paid"] is True
    for value in ("false", 0, "no", None):
        payment = {"method_id": "bacs", "method_title": "Bank", "paid": value}
        order = create(api, payment_details=payment)
        assert order["status"] == "pending"
        assert order["payment_details"]["paid"] is False
    payment = {"method_id": "bacs", "method_title": "Bank", "paid": "maybe"}
    assert fails(api, {"order": {"payment_details": payment}})[1] == "shop_api_invalid_param"


def test_currency(api: TestApp, engine: sa.Engine) -> None:
    assert create(api, currency="EUR")["currency"] == "EUR"
    for code in ("usd", "XXQ"):
        assert fails(api, {"order": {"currency": code}}) == (
            400,
            "shop_invalid_order_currency",
            "Provided order currency is invalid.",
        )


def test_payment_checked_before_currency(api: TestApp) -> None:
    body = {"order": {"currency": "nope", "payment_details": {"method_id": "x"}}}
    assert fails(api, body)[1] == "shop_invalid_payment_details"


def test_non_pending_status_adds_note_and_reduces_stock(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine, "Stocked", "4", manage_stock=True, stock_quantity=10)
    order = create(api, status="processing", line_items=[{"product_id": thing, "quantity": 3}])
    assert order["status"] == "processing"
    assert notes(engine, order["id"]) == [
        "Order status changed from Pending payment to Processing."
    ]
    assert stock_of(engine, thing) == 7
    assert one_row(engine, products, thing)["total_sales"] == 3
    assert order_row(engine, order["id"])["stock_reduced"]


def test_pending_create_moves_no_stock(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine, "Stocked", "4", manage_stock=True, stock_quantity=10)
    order = create(api, line_items=[{"product_id": thing, "quantity": 3}])
    assert stock_of(engine, thing) == 10
    assert notes(engine, order["id"]) == []


# --- addresses, customer profile, meta


def test_addresses_are_cleaned_and_copied_to_the_profile(
    api: TestApp, engine: sa.Engine, make_key: Callable[..., Any]
) -> None:
    customer = make_key("customer")
    order = create(
        api,
        customer_id=customer.user_id,
        billing_address={"first_name": " <b>Ann</b>  Lee ", "country": "US", "other": "x"},
        shipping_address={"city": "Paris"},
    )
    assert order["billing_address"]["first_name"] == "Ann Lee"
    assert order["shipping_address"]["city"] == "Paris"
    assert order["customer_id"] == customer.user_id
    assert order["billing_address"]["email"] != ""  # filled from the customer's account
    with engine.connect() as conn:
        from shopsvc.sql.customers import get_profile

        profile = get_profile(conn, customer.user_id)
    assert profile == {
        "billing": {"first_name": "Ann Lee", "country": "US"},
        "shipping": {"city": "Paris"},
    }


def test_order_meta_keeps_scalars(api: TestApp) -> None:
    meta = {"gift": "yes", "count": 3, "_hidden": "x", "nested": {"a": 1}, "list": [1]}
    response = api.post_json(f"{URL}?filter[meta]=true", {"order": {"order_meta": meta}})
    assert response.json["order"]["order_meta"] == {"gift": "yes", "count": "3"}


@pytest.mark.parametrize(
    ("fields", "field", "problem"),
    [
        ({"billing_address": "x"}, "billing_address", "must be a JSON object"),
        ({"line_items": {}}, "line_items", "must be a JSON array"),
        ({"line_items": [3]}, "line_items[0]", "must be a JSON object"),
        ({"customer_id": "abc"}, "customer_id", "must be an integer"),
        ({"note": {"a": 1}}, "note", "must be a string"),
        (
            {"shipping_lines": [{"method_id": "x", "total": "abc"}]},
            "shipping_lines[0].total",
            "must be a number",
        ),
        ({"order_meta": []}, "order_meta", "must be a JSON object"),
    ],
)
def test_wrong_types(api: TestApp, fields: dict[str, Any], field: str, problem: str) -> None:
    assert fails(api, {"order": fields}) == bad(field, problem)


# --- atomicity


def test_a_create_failing_on_its_last_line_writes_nothing(
    api: TestApp, engine: sa.Engine, make_key: Callable[..., Any]
) -> None:
    customer = make_key("customer")
    thing = product(engine, "Stocked", "4", manage_stock=True, stock_quantity=10)
    before = counts(engine)
    body = {
        "order": {
            "status": "processing",
            "customer_id": customer.user_id,
            "billing_address": {"first_name": "Ann"},
            "line_items": [
                {"product_id": thing, "quantity": 2},
                {"product_id": 9999, "quantity": 1},
            ],
        }
    }
    assert fails(api, body)[1] == "shop_api_invalid_product"
    assert counts(engine) == before
    assert stock_of(engine, thing) == 10
    update(engine, products, thing, title="Stocked")  # the row is still writable


def test_rates_match_the_state(api: TestApp, engine: sa.Engine) -> None:
    rate(engine, "5", country="US", state="CA", name="CA")
    rate(engine, "1", country="US", state="NY", name="NY")
    thing = product(engine, "Thing", "100")
    order = create(api, billing_address=US, line_items=[{"product_id": thing, "quantity": 1}])
    assert order["total_tax"] == "5.00"
    assert [line["code"] for line in order["tax_lines"]] == ["US-CA-CA-1"]


def test_prices_including_tax_take_the_base_tax_out(
    build_app: Callable[..., TestApp], admin: Any, engine: sa.Engine
) -> None:
    settings = {"shopsvc.prices_include_tax": "true", "shopsvc.store_country": "GB"}
    client = authorised(build_app(**settings), admin)
    rate(engine, "20", country="GB")
    thing = product(engine, "Thing", "12")
    order = create(
        client, billing_address={"country": "GB"}, line_items=[{"product_id": thing, "quantity": 1}]
    )
    assert order["line_items"][0]["total"] == "10.00"
    assert order["total"] == "12.00"
