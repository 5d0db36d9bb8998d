"""``PUT|PATCH|POST /orders/<id>``: checks in order, items created/updated/deleted, totals,
payment, status notes, stock, trash restore, refund on ``refunded`` (both databases)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.customers import get_profile
from shopsvc.sql.tables import customer_profiles, order_refunds, orders, products, users
from tests.helpers.order_writes import (
    URL,
    create,
    edit,
    fails,
    get,
    notes,
    order_row,
    product,
    rate,
    stock_of,
)
from tests.helpers.sql import one_row, select_all, update

INVALID_ITEM = (
    400,
    "shop_invalid_item_id",
    "Order item ID provided is not associated with order.",
)


@pytest.fixture
def thing(engine: sa.Engine) -> int:
    return product(engine, "Thing", "10", manage_stock=True, stock_quantity=20)


def test_checks_before_fields(api: TestApp, customer_api: TestApp) -> None:
    order = create(api)
    url = f"{URL}/{order['id']}"
    assert fails(api, {}, url, "put") == (
        400,
        "shop_api_missing_order_data",
        "No order data specified to edit order",
    )
    assert fails(api, {"order": {"status": "x"}}, f"{URL}/0", "put")[:2] == (
        404,
        "shop_api_invalid_order_id",
    )
    assert fails(api, {"order": {"status": "x"}}, f"{URL}/9999", "put") == (
        400,
        "shop_api_invalid_order_id",
        "Order ID is invalid",
    )
    status, code, _ = fails(customer_api, {"order": {"status": "x"}}, url, "put")
    assert (status, code) == (401, "shop_api_user_cannot_edit_order")


@pytest.mark.parametrize("method", ["put", "patch", "post"])
def test_methods(api: TestApp, method: str) -> None:
    order = create(api)
    assert edit(api, order["id"], method, note="hi")["note"] == "hi"


def test_customer_checked_only_when_it_differs(api: TestApp, make_key: Callable[..., Any]) -> None:
    customer = make_key("customer")
    order = create(api, customer_id=customer.user_id)
    assert edit(api, order["id"], customer_id=str(customer.user_id))["customer_id"] == (
        customer.user_id
    )
    url = f"{URL}/{order['id']}"
    for value in (0, 999):
        assert fails(api, {"order": {"customer_id": value}}, url, "put") == (
            400,
            "shop_api_invalid_customer_id",
            "Customer ID is invalid.",
        )


def test_address_only_edit_is_saved_and_copied_to_previous_customer(
    api: TestApp, engine: sa.Engine, make_key: Callable[..., Any]
) -> None:
    first, second = make_key("customer"), make_key("customer")
    order = create(api, customer_id=first.user_id)
    edited = edit(api, order["id"], customer_id=second.user_id, shipping_address={"city": "Rome"})
    assert edited["shipping_address"]["city"] == "Rome"
    assert get(api, order["id"])["shipping_address"]["city"] == "Rome"
    with engine.connect() as conn:
        assert get_profile(conn, first.user_id) == {"billing": {}, "shipping": {"city": "Rome"}}
        assert get_profile(conn, second.user_id) is None


def test_address_edit_of_an_order_whose_customer_is_gone(
    api: TestApp, engine: sa.Engine, make_key: Callable[..., Any]
) -> None:
    """The order keeps the id of a customer whose user was deleted: the addresses are saved on
    the order, there is no profile to copy them to (no profile row is made; it was a 500)."""
    customer = make_key("customer")
    order = create(api, customer_id=customer.user_id)
    with engine.begin() as conn:
        conn.execute(sa.delete(users).where(users.c.id == customer.user_id))
    edited = edit(api, order["id"], shipping_address={"city": "Rome"}, note="n")
    assert (edited["customer_id"], edited["note"]) == (customer.user_id, "n")
    assert edited["shipping_address"] == {
        "first_name": "",
        "last_name": "",
        "company": "",
        "address_1": "",
        "address_2": "",
        "city": "Rome",
        "state": "",
        "postcode": "",
        "country": "",
    }
    assert edited["customer"]["id"] == 0
    assert select_all(engine, customer_profiles) == []


def test_items_are_created_updated_and_deleted(api: TestApp, engine: sa.Engine, thing: int) -> None:
    order = create(
        api,
        line_items=[{"product_id": thing, "quantity": 2}],
        shipping_lines=[{"method_id": "flat", "total": 5}],
        fee_lines=[{"title": "Wrap", "total": 1}],
        coupon_lines=[{"code": "C1", "amount": 1}],
    )
    assert order["total"] == "26.00"
    line = order["line_items"][0]["id"]
    ship = order["shipping_lines"][0]["id"]
    fee = order["fee_lines"][0]["id"]
    coupon = order["coupon_lines"][0]["id"]
    edited = edit(
        api,
        order["id"],
        line_items=[
            {"id": line, "product_id": thing, "quantity": 3},
            {"sku": None, "product_id": thing, "quantity": 1, "total": "4"},
        ],
        shipping_lines=[{"id": ship, "method_title": "Flat", "total": 7}],
        fee_lines=[{"id": fee, "title": None}],
        coupon_lines=[{"id": coupon, "code": "C2"}],
    )
    first, second = edited["line_items"]
    assert (first["id"], first["quantity"], first["total"], first["subtotal"]) == (
        line,
        3,
        "30.00",
        "30.00",
    )
    assert second["total"] == "4.00"
    assert edited["shipping_lines"] == [
        {"id": ship, "method_id": "flat", "method_title": "Flat", "total": "7.00"}
    ]
    assert edited["fee_lines"] == []
    assert edited["coupon_lines"][0]["code"] == "C2"
    assert edited["total"] == "41.00"
    assert get(api, order["id"]) == edited | {"updated_at": get(api, order["id"])["updated_at"]}


def test_line_update_checks(api: TestApp, engine: sa.Engine, thing: int) -> None:
    other = product(engine, "Other", "1")
    order = create(
        api,
        line_items=[{"product_id": thing, "quantity": 1}],
        shipping_lines=[{"method_id": "flat"}],
    )
    another = create(api, line_items=[{"product_id": thing, "quantity": 1}])
    url = f"{URL}/{order['id']}"
    line = order["line_items"][0]["id"]
    ship = order["shipping_lines"][0]["id"]

    def fails_with(**arrays: Any) -> tuple[int, str, str]:
        return fails(api, {"order": arrays}, url, "put")

    assert fails_with(line_items=[{"id": line, "sku": "x"}]) == (
        400,
        "shop_api_invalid_product_id",
        "Product ID provided does not match this line item",
    )
    assert fails_with(line_items=[{"id": line, "product_id": other}])[2] == (
        "Product ID provided does not match this line item"
    )
    assert fails_with(line_items=[{"id": line, "product_id": thing, "quantity": 0}])[1] == (
        "shop_api_invalid_product_quantity"
    )
    foreign = another["line_items"][0]["id"]
    assert fails_with(line_items=[{"id": foreign, "product_id": thing}]) == INVALID_ITEM
    assert fails_with(line_items=[{"id": foreign, "product_id": None}]) == INVALID_ITEM
    # an id of another array's type
    assert fails_with(line_items=[{"id": ship, "product_id": None}]) == INVALID_ITEM
    assert fails_with(fee_lines=[{"id": line, "title": "x"}]) == INVALID_ITEM
    assert fails_with(shipping_lines=[{"id": 9999, "total": 1}]) == INVALID_ITEM
    assert fails_with(shipping_lines=[{"id": ship, "total": -1}])[1] == (
        "shop_invalid_shipping_total"
    )
    assert fails_with(coupon_lines=[{"code": "x", "amount": -1}])[1] == "shop_invalid_coupon_total"
    assert get(api, order["id"])["line_items"] == order["line_items"]


def test_quantity_alone_scales_the_line(api: TestApp, engine: sa.Engine, thing: int) -> None:
    order = create(
        api, line_items=[{"product_id": thing, "quantity": 2, "subtotal": "20", "total": "16"}]
    )
    line = order["line_items"][0]["id"]
    edited = edit(api, order["id"], line_items=[{"id": line, "product_id": thing, "quantity": 3}])
    assert (edited["line_items"][0]["subtotal"], edited["line_items"][0]["total"]) == (
        "30.00",
        "24.00",
    )


def test_totals_only_recalculated_when_items_sent(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine, "Thing", "100")
    order = create(api, line_items=[{"product_id": thing, "quantity": 1}])
    assert order["total_tax"] == "0.00"
    rate(engine, "10")
    assert edit(api, order["id"], billing_address={"country": "US"})["total"] == "100.00"
    assert edit(api, order["id"], line_items=[])["total"] == "110.00"


def test_paid_on_edit_is_judged_after_this_requests_totals(
    api: TestApp, engine: sa.Engine, thing: int
) -> None:
    order = create(api)
    payment = {"method_id": "bacs", "method_title": "Bank", "paid": True, "transaction_id": "X9"}
    still = edit(api, order["id"], payment_details=payment)
    assert (still["status"], still["payment_details"]["paid"]) == ("pending", False)
    paid = edit(
        api,
        order["id"],
        line_items=[{"product_id": thing, "quantity": 1}],
        payment_details=payment,
    )
    assert paid["status"] == "processing"
    assert paid["payment_details"] == {"method_id": "bacs", "method_title": "Bank", "paid": True}
    assert order_row(engine, order["id"])["transaction_id"] == "X9"
    assert stock_of(engine, thing) == 19


def test_status_change_notes(api: TestApp, engine: sa.Engine) -> None:
    order = create(api)
    edit(api, order["id"], status="on-hold", status_note="Waiting for stock.")
    edit(api, order["id"], status="on-hold", status_note="dropped")
    edit(api, order["id"], status="completed")
    assert notes(engine, order["id"]) == [
        "Waiting for stock. Order status changed from Pending payment to On hold.",
        "Order status changed from On hold to Completed.",
    ]
    row = order_row(engine, order["id"])
    assert row["date_completed"] is not None
    assert row["date_paid"] is not None


def test_unknown_status_on_edit(api: TestApp, engine: sa.Engine) -> None:
    order = create(api)
    url = f"{URL}/{order['id']}"
    assert fails(api, {"order": {"status": "shipped", "note": "x"}}, url, "put")[:2] == (
        400,
        "shop_api_invalid_order_status",
    )
    assert get(api, order["id"])["note"] == ""


def test_stock_reduced_once_and_restored(api: TestApp, engine: sa.Engine, thing: int) -> None:
    order = create(api, line_items=[{"product_id": thing, "quantity": 3}])
    assert stock_of(engine, thing) == 20
    edit(api, order["id"], status="processing")
    assert stock_of(engine, thing) == 17
    edit(api, order["id"], status="on-hold")
    edit(api, order["id"], status="completed")
    assert stock_of(engine, thing) == 17
    edit(api, order["id"], status="cancelled")
    assert stock_of(engine, thing) == 20
    edit(api, order["id"], status="pending")
    assert stock_of(engine, thing) == 20
    edit(api, order["id"], status="processing")
    assert stock_of(engine, thing) == 17
    assert one_row(engine, products, thing)["total_sales"] == 3


def test_trashed_order_restored_by_a_status(api: TestApp, engine: sa.Engine) -> None:
    order = create(api)
    update(engine, orders, order["id"], status="trash", status_before_trash="on-hold")
    edited = edit(api, order["id"], status="processing")
    assert edited["status"] == "processing"
    assert notes(engine, order["id"]) == ["Order status changed from On hold to Processing."]
    assert order_row(engine, order["id"])["status_before_trash"] is None


def test_refunded_refunds_the_remainder(api: TestApp, engine: sa.Engine, thing: int) -> None:
    order = create(api, status="processing", line_items=[{"product_id": thing, "quantity": 2}])
    edit(api, order["id"], status="refunded")
    [refund] = select_all(engine, order_refunds)
    assert refund["order_id"] == order["id"]
    assert refund["amount"] == 20
    assert refund["reason"] == "Order fully refunded"
    edit(api, order["id"], status="processing")
    edit(api, order["id"], status="refunded")
    assert len(select_all(engine, order_refunds)) == 1


def test_a_failing_edit_changes_nothing(api: TestApp, engine: sa.Engine, thing: int) -> None:
    order = create(api, line_items=[{"product_id": thing, "quantity": 1}])
    url = f"{URL}/{order['id']}"
    body = {
        "order": {
            "note": "changed",
            "billing_address": {"first_name": "Zed"},
            "line_items": [{"product_id": thing, "quantity": 5}],
            "currency": "nope",
        }
    }
    assert fails(api, body, url, "put")[1] == "shop_invalid_order_currency"
    assert get(api, order["id"]) == order
