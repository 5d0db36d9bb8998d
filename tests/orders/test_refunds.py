"""Order refunds through HTTP (reference orders.md §7; decisions.md §6, §7): every route, code,
message, status and order of checks, the effects on the order and on stock, on both databases."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import (
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    products,
    refund_items,
)
from tests.helpers.api import ROOT, assert_error, check_index, check_unpaginated, stamp
from tests.helpers.orders import ALL_BUT, T0
from tests.helpers.orders import add_order as add_pending_order
from tests.helpers.sql import add_product, insert, one_row, select_all


def add_order(engine: sa.Engine, **values: Any) -> int:
    """A minimal order that can be refunded (processing, 50.00); its id."""
    return add_pending_order(engine, **({"status": "processing", "total": "50.00"} | values))


def add_item(engine: sa.Engine, order_id: int, item_type: str = "line_item", **values: Any) -> int:
    row = {"order_id": order_id, "item_type": item_type, "name": "Thing", "quantity": 2}
    return insert(engine, order_items, **(row | values))


def add_refund(engine: sa.Engine, order_id: int, amount: str = "5", **values: Any) -> int:
    row = {"order_id": order_id, "amount": amount, "reason": "", "created_at": T0}
    return insert(engine, order_refunds, **(row | values))


def refunds_url(order_id: int) -> str:
    return f"{ROOT}/orders/{order_id}/refunds"


def refund_url(order_id: int, refund_id: int | str) -> str:
    return f"{ROOT}/orders/{order_id}/refunds/{refund_id}"


def notes_of(engine: sa.Engine, order_id: int) -> list[str]:
    return [r["note"] for r in select_all(engine, order_notes) if r["order_id"] == order_id]


@pytest.fixture
def order(engine: sa.Engine) -> int:
    return add_order(engine)


def create(api: TestApp, order_id: int, status: int = 201, **data: Any) -> Any:
    return api.post_json(refunds_url(order_id), {"order_refund": data}, status=status)


# --- create


def test_create_amount_only(api: TestApp, engine: sa.Engine, order: int) -> None:
    response = create(api, order, amount="10")
    [row] = select_all(engine, order_refunds)
    assert response.json == {
        "order_refund": {
            "id": row["id"],
            "created_at": stamp(row["created_at"]),
            "amount": "10.00",
            "reason": "",
            "line_items": [],
        }
    }
    assert row["order_id"] == order and row["amount"] == Decimal("10")
    assert row["user_id"] is not None
    stored = one_row(engine, orders, order)
    assert stored["status"] == "processing" and stored["updated_at"] > T0
    assert notes_of(engine, order) == []


def test_create_with_line_items(api: TestApp, engine: sa.Engine, order: int) -> None:
    product = add_product(engine, sku="ABC")
    line = add_item(
        engine,
        order,
        product_id=product,
        quantity=3,
        total="30",
        subtotal="30",
        tax_class="reduced-rate",
        name="Widget",
    )
    insert(engine, order_item_meta, item_id=line, meta_key="size", meta_value="L")
    insert(engine, order_item_meta, item_id=line, meta_key="_reduced_stock", meta_value="3")
    insert(engine, order_item_meta, item_id=line, meta_key="empty", meta_value="")
    fee = add_item(engine, order, "fee", name="Fee", quantity=0, total="5")
    body = {
        "amount": 22.5,
        "reason": "Broken",
        "line_items": {
            str(line): {"qty": 2, "refund_total": "20", "refund_tax": {"3": "2.5", "4": 0}},
            str(fee): {"refund_total": 1},
            "9999": {"qty": 1, "refund_total": 1},
        },
    }
    response = api.post_json(refunds_url(order), {"order_refund": body}, status=201)
    record = response.json["order_refund"]
    [stored_line, stored_fee] = select_all(engine, refund_items)
    assert record["amount"] == "22.50" and record["reason"] == "Broken"
    assert record["line_items"] == [
        {
            "id": stored_line["id"],
            "subtotal": "-20.00",
            "subtotal_tax": "-2.50",
            "total": "-20.00",
            "total_tax": "-2.50",
            "price": "10.00",
            "quantity": -2,
            "tax_class": "reduced-rate",
            "name": "Widget",
            "product_id": product,
            "sku": "ABC",
            "meta": [{"key": "size", "value": "L", "label": "size"}],
            "refunded_item_id": line,
        }
    ]
    assert json.loads(stored_line["taxes"]) == {
        "total": {"3": "-2.500000"},
        "subtotal": {"3": "-2.500000"},
    }
    assert stored_fee["item_type"] == "fee" and stored_fee["refunded_item_id"] == fee
    assert stored_fee["total"] == Decimal("-1") and stored_fee["quantity"] == 0
    assert api.get(refund_url(order, record["id"])).json["order_refund"] == record


def test_create_skips_entries_with_nothing_to_refund(
    api: TestApp, engine: sa.Engine, order: int
) -> None:
    line = add_item(engine, order, total="10")
    other_order = add_order(engine)
    foreign = add_item(engine, other_order, total="10")
    items = {str(line): {"qty": 0, "refund_total": 0, "refund_tax": {}}, str(foreign): {"qty": 1}}
    record = create(api, order, amount=1, line_items=items).json["order_refund"]
    assert record["line_items"] == []
    assert select_all(engine, refund_items) == []


def test_create_line_item_of_deleted_product_and_variation(
    api: TestApp, engine: sa.Engine, order: int
) -> None:
    parent = add_product(engine, type="variable", sku="PARENT")
    variation = add_product(engine, type="variation", parent_id=parent, sku=None)
    gone = add_item(engine, order, product_id=9999, total="4", quantity=1)
    varied = add_item(engine, order, product_id=parent, variation_id=variation, total="4")
    none = add_item(engine, order, total="4")
    items = {str(i): {"qty": 1, "refund_total": 1} for i in (gone, varied, none)}
    lines = create(api, order, amount=3, line_items=items).json["order_refund"]["line_items"]
    assert [(x["product_id"], x["sku"]) for x in lines] == [
        (9999, None),
        (variation, "PARENT"),
        (0, None),
    ]


def test_full_refund_sets_refunded(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="50.00", status="processing")
    add_refund(engine, order, "20")
    create(api, order, amount="30.00")
    assert one_row(engine, orders, order)["status"] == "refunded"
    assert notes_of(engine, order) == ["Order status changed from Processing to Refunded."]
    [note] = [r for r in select_all(engine, order_notes)]
    assert note["system"] is True and note["customer_note"] is False


def test_full_refund_of_a_refunded_order_adds_no_note(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="5", status="refunded")
    create(api, order, amount=5)
    assert notes_of(engine, order) == []


def test_full_refund_of_a_trashed_order_keeps_it_trashed(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="5", status="trash", status_before_trash="completed")
    create(api, order, amount=5)
    assert one_row(engine, orders, order)["status"] == "trash"


def test_partial_refund_keeps_status(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="50.00", status="completed")
    create(api, order, amount="49.99")
    assert one_row(engine, orders, order)["status"] == "completed"


def test_free_item_left_keeps_the_refund_partial(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="10", status="completed")
    paid = add_item(engine, order, quantity=1, total="10")
    free = add_item(engine, order, quantity=1, total="0")
    create(api, order, amount=10, line_items={str(paid): {"qty": 1, "refund_total": 10}})
    assert one_row(engine, orders, order)["status"] == "completed"
    # Refunding every unit then makes it full.
    order2 = add_order(engine, total="10", status="completed")
    paid2 = add_item(engine, order2, quantity=1, total="10")
    free2 = add_item(engine, order2, quantity=1, total="0")
    items = {str(paid2): {"qty": 1, "refund_total": 10}, str(free2): {"qty": 1}}
    create(api, order2, amount=10, line_items=items)
    assert one_row(engine, orders, order2)["status"] == "refunded"
    assert free  # the first order's free item stays unrefunded


def test_amount_above_the_remaining(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="50.00")
    add_refund(engine, order, "45")
    response = create(api, order, 400, amount="5.01")
    assert_error(response, 400, "shop_api_invalid_order_refund", "Invalid refund amount.")
    assert len(select_all(engine, order_refunds)) == 1
    assert one_row(engine, orders, order)["updated_at"] == T0


@pytest.mark.parametrize("amount", [0, "0", -1, "-0.01"])
def test_amount_must_be_positive(api: TestApp, order: int, amount: Any) -> None:
    response = create(api, order, 400, amount=amount)
    assert_error(response, 400, "shop_api_invalid_order_refund", "Refund amount must be positive.")


@pytest.mark.parametrize("data", [{}, {"amount": None}, {"reason": "x"}])
def test_amount_is_required(api: TestApp, order: int, data: dict[str, Any]) -> None:
    response = api.post_json(refunds_url(order), {"order_refund": data}, status=400)
    assert_error(response, 400, "shop_api_invalid_order_refund", "Refund amount is required.")


@pytest.mark.parametrize(
    "amount", ["abc", True, [1], {"a": 1}, "1e999999", "1e12", "1e999999999", "-1e999999999"]
)
def test_amount_of_wrong_type(api: TestApp, order: int, amount: Any) -> None:
    response = create(api, order, 400, amount=amount)
    assert_error(response, 400, "shop_api_invalid_param")
    assert "order_refund.amount" in response.json["errors"][0]["message"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"reason": ["x"]}, "order_refund.reason"),
        ({"line_items": "x"}, "order_refund.line_items"),
        ({"line_items": {"ITEM": "x"}}, "order_refund.line_items.ITEM"),
        ({"line_items": {"ITEM": {"qty": -1}}}, "order_refund.line_items.ITEM.qty"),
        ({"line_items": {"ITEM": {"qty": 1.5}}}, "order_refund.line_items.ITEM.qty"),
        (
            {"line_items": {"ITEM": {"refund_total": "x"}}},
            "order_refund.line_items.ITEM.refund_total",
        ),
        (
            {"line_items": {"ITEM": {"refund_total": -1}}},
            "order_refund.line_items.ITEM.refund_total",
        ),
        ({"line_items": {"ITEM": {"refund_tax": 3}}}, "order_refund.line_items.ITEM.refund_tax"),
        (
            {"line_items": {"ITEM": {"refund_tax": {"1": "x"}}}},
            "order_refund.line_items.ITEM.refund_tax.1",
        ),
    ],
)
def test_field_types(
    api: TestApp, engine: sa.Engine, order: int, data: dict[str, Any], field: str
) -> None:
    item = add_item(engine, order)
    body = json.loads(json.dumps({"amount": 1, **data}).replace("ITEM", str(item)))
    response = api.post_json(refunds_url(order), {"order_refund": body}, status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert (
        f"Invalid parameter {field.replace('ITEM', str(item))}:"
        in (response.json["errors"][0]["message"])
    )
    assert select_all(engine, order_refunds) == []


def test_empty_array_line_items_and_null_reason(api: TestApp, order: int) -> None:
    record = create(api, order, amount=1, line_items=[], reason=None).json["order_refund"]
    assert record["line_items"] == [] and record["reason"] == ""


@pytest.mark.parametrize("body", [{}, {"order_refund": None}, {"refund": {"amount": 1}}])
def test_create_without_envelope(api: TestApp, order: int, body: Any) -> None:
    response = api.post_json(refunds_url(order), body, status=400)
    assert_error(
        response,
        400,
        "shop_api_missing_order_refund_data",
        "No order_refund data specified to create order_refund",
    )


def test_create_envelope_not_an_object(api: TestApp, order: int) -> None:
    assert_error(create_raw(api, order, "x"), 400, "shop_api_invalid_param")


def create_raw(api: TestApp, order_id: int, envelope: Any) -> Any:
    return api.post_json(refunds_url(order_id), {"order_refund": envelope}, status=400)


def test_create_order_checks(
    api: TestApp, customer_api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine
) -> None:
    message = "You do not have permission to create order refunds"
    # The envelope first, then the capability (before the order id), then the order id.
    assert_error(
        customer_api.post_json(refunds_url(0), {}, status=400),
        400,
        "shop_api_missing_order_refund_data",
    )
    for order_id in (0, 999):
        response = create(customer_api, order_id, 401)
        assert_error(response, 401, "shop_api_user_cannot_create_order_refund", message)
    response = create(role_api(*ALL_BUT["create"]), add_order(engine), 401, amount=1)
    assert_error(response, 401, "shop_api_user_cannot_create_order_refund", message)
    response = create(api, 0, 400)
    assert_error(response, 400, "shop_api_invalid_order_id", "Order ID is invalid")
    response = create(api, 999, 404, amount=1)
    assert_error(
        response, 404, "shop_api_no_order_found", "No order found with the ID equal to 999"
    )
    # Only the create capability is needed (the original checks nothing else of the order).
    order = add_order(engine)
    create(role_api("publish_shop_orders"), order, amount=1)


# --- restock


def test_restock_items(api: TestApp, engine: sa.Engine, order: int) -> None:
    stocked = add_product(engine, manage_stock=True, stock_quantity=3, stock_status="instock")
    unmanaged = add_product(engine)
    parent = add_product(engine, type="variable", manage_stock=True, stock_quantity=0)
    variation = add_product(engine, type="variation", parent_id=parent)
    a = add_item(engine, order, product_id=stocked, quantity=5, total="10")
    b = add_item(engine, order, product_id=unmanaged, quantity=5, total="10")
    c = add_item(engine, order, product_id=parent, variation_id=variation, quantity=5, total="10")
    d = add_item(engine, order, product_id=stocked, quantity=5, total="10")
    items = {
        str(a): {"qty": 2, "refund_total": 4},
        str(b): {"qty": 1, "refund_total": 2},
        str(c): {"qty": 4},
        str(d): {"refund_total": 1},
    }
    create(api, order, amount=5, line_items=items, restock_items="yes")
    assert one_row(engine, products, stocked)["stock_quantity"] == 5
    assert one_row(engine, products, unmanaged)["stock_quantity"] is None
    assert one_row(engine, products, parent)["stock_quantity"] == 4
    assert notes_of(engine, order) == [
        f"Item #{stocked} stock increased from 3 to 5.",
        f"Item #{parent} stock increased from 0 to 4.",
    ]


@pytest.mark.parametrize("flag", [False, "0", "", None, "no"])
def test_no_restock_unless_truthy(api: TestApp, engine: sa.Engine, order: int, flag: Any) -> None:
    stocked = add_product(engine, manage_stock=True, stock_quantity=3)
    line = add_item(engine, order, product_id=stocked, quantity=5, total="10")
    items = {str(line): {"qty": 2}}
    create(api, order, amount=1, line_items=items, restock_items=flag)
    assert one_row(engine, products, stocked)["stock_quantity"] == 3
    assert notes_of(engine, order) == []


# --- list and get


def test_list_newest_first_unpaginated(api: TestApp, engine: sa.Engine, order: int) -> None:
    other = add_order(engine)
    older = add_refund(engine, order, "1.5", reason="a")
    newer = add_refund(engine, order, "2", created_at=T0 + dt.timedelta(minutes=1))
    same = add_refund(engine, order, "3.456")
    add_refund(engine, other)
    line = add_item(engine, order, total="10")
    insert(
        engine,
        refund_items,
        refund_id=older,
        refunded_item_id=line,
        item_type="line_item",
        quantity=-1,
        total="-1.005",
        subtotal="-1.005",
    )
    insert(
        engine, refund_items, refund_id=older, refunded_item_id=99, item_type="shipping", total="-1"
    )
    response = api.get(refunds_url(order), {"page": 3, "filter[dp]": 4})
    records = response.json["order_refunds"]
    assert [r["id"] for r in records] == [newer, same, older]
    assert [r["amount"] for r in records] == ["2.00", "3.46", "1.50"]
    assert records[2]["reason"] == "a"
    assert records[2]["created_at"] == "2024-03-01T12:00:00Z"
    [item] = records[2]["line_items"]
    assert (item["total"], item["subtotal"], item["price"], item["quantity"]) == (
        "-1.01",
        "-1.01",
        "1.01",
        -1,
    )
    assert item["refunded_item_id"] == line and item["product_id"] == 0
    check_unpaginated(response, 3)
    assert api.get(refunds_url(order), {"fields": "id"}).json == {
        "order_refunds": [{"id": newer}, {"id": same}, {"id": older}]
    }


def test_list_empty(api: TestApp, order: int) -> None:
    response = api.get(refunds_url(order))
    assert response.json == {"order_refunds": []}
    check_unpaginated(response, 0)


def test_list_checks_the_order(
    api: TestApp, customer_api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine
) -> None:
    assert_error(api.get(refunds_url(0), status=404), 404, "shop_api_invalid_order_id")
    assert_error(api.get(refunds_url(5), status=404), 404, "shop_api_no_order_found")
    order = add_order(engine)
    for caller in (customer_api, role_api(*ALL_BUT["read"])):
        assert_error(
            caller.get(refunds_url(order), status=401),
            401,
            "shop_api_user_cannot_read_order",
            "You do not have permission to read this order.",
        )
    role_api("read_private_shop_orders").get(refunds_url(order), status=200)


def test_get_checks(api: TestApp, customer_api: TestApp, engine: sa.Engine, order: int) -> None:
    other = add_order(engine)
    foreign = add_refund(engine, other)
    refund = add_refund(engine, order, "7")
    assert api.get(refund_url(order, refund)).json == {
        "order_refund": {
            "id": refund,
            "created_at": "2024-03-01T12:00:00Z",
            "amount": "7.00",
            "reason": "",
            "line_items": [],
        }
    }
    assert api.get(refund_url(order, refund), {"fields": "amount"}).json == {
        "order_refund": {"amount": "7.00"}
    }
    assert_error(api.get(refund_url(0, refund), status=404), 404, "shop_api_invalid_order_id")
    assert_error(api.get(refund_url(99, refund), status=404), 404, "shop_api_no_order_found")
    assert_error(
        customer_api.get(refund_url(order, 0), status=401), 401, "shop_api_user_cannot_read_order"
    )
    assert_error(
        api.get(refund_url(order, 0), status=400),
        400,
        "shop_api_invalid_order_refund_id",
        "Invalid order refund ID.",
    )
    assert_error(
        api.get(refund_url(order, 999), status=404),
        404,
        "shop_api_invalid_order_refund_id",
        "An order refund with the provided ID could not be found.",
    )
    assert_error(
        api.get(refund_url(order, foreign), status=400),
        400,
        "shop_api_invalid_order_refund_id",
        "The order refund ID provided is not associated with the order.",
    )
    assert_error(api.get(refund_url(order, "x1"), status=404), 404, "shop_api_no_route")


# --- edit


@pytest.mark.parametrize("method", ["put_json", "patch_json", "post_json"])
def test_edit(api: TestApp, engine: sa.Engine, method: str) -> None:
    order = add_order(engine, total="20", status="completed")
    refund = add_refund(engine, order, "5", reason="old")
    add_refund(engine, order, "10")
    body = {"order_refund": {"reason": "new", "amount": "10"}}
    record = getattr(api, method)(refund_url(order, refund), body).json["order_refund"]
    assert record == {
        "id": refund,
        "created_at": "2024-03-01T12:00:00Z",
        "amount": "10.00",
        "reason": "new",
        "line_items": [],
    }
    stored = one_row(engine, orders, order)
    assert stored["status"] == "completed" and stored["updated_at"] > T0


@pytest.mark.parametrize("amount", [0, -3, "0", None])
def test_edit_ignores_amounts_not_above_zero(
    api: TestApp, engine: sa.Engine, order: int, amount: Any
) -> None:
    refund = add_refund(engine, order, "5", reason="r")
    body = {"order_refund": {"amount": amount}}
    record = api.put_json(refund_url(order, refund), body).json["order_refund"]
    assert record["amount"] == "5.00" and record["reason"] == "r"


def test_edit_amount_above_the_remaining(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="20")
    refund = add_refund(engine, order, "5")
    add_refund(engine, order, "10")
    body = {"order_refund": {"amount": "10.01", "reason": "x"}}
    response = api.put_json(refund_url(order, refund), body, status=400)
    assert_error(response, 400, "shop_api_invalid_order_refund", "Invalid refund amount.")
    assert one_row(engine, order_refunds, refund)["reason"] == ""


def test_edit_checks(
    api: TestApp,
    customer_api: TestApp,
    role_api: Callable[..., TestApp],
    engine: sa.Engine,
    order: int,
) -> None:
    other = add_order(engine)
    foreign = add_refund(engine, other)
    refund = add_refund(engine, order)
    body = {"order_refund": {"reason": "x"}}
    message = "No order_refund data specified to edit order_refund"
    for caller, url in ((api, refund_url(order, refund)), (customer_api, refund_url(0, 0))):
        response = caller.put_json(url, {"reason": "x"}, status=400)
        assert_error(response, 400, "shop_api_missing_order_refund_data", message)
    assert_error(
        api.put_json(refund_url(0, refund), body, status=404), 404, "shop_api_invalid_order_id"
    )
    assert_error(
        api.put_json(refund_url(99, refund), body, status=404), 404, "shop_api_no_order_found"
    )
    response = role_api(*ALL_BUT["edit"]).put_json(refund_url(order, 0), body, status=401)
    assert_error(response, 401, "shop_api_user_cannot_edit_order")
    assert_error(
        api.put_json(refund_url(order, 0), body, status=400),
        400,
        "shop_api_invalid_order_refund_id",
        "Invalid order refund ID.",
    )
    assert_error(
        api.put_json(refund_url(order, 999), body, status=404),
        404,
        "shop_api_invalid_order_refund_id",
        "An order refund with the provided ID could not be found.",
    )
    assert_error(
        api.put_json(refund_url(order, foreign), body, status=400),
        400,
        "shop_api_invalid_order_refund_id",
        "The order refund ID provided is not associated with the order.",
    )
    assert one_row(engine, order_refunds, foreign)["reason"] == ""
    for data in ({"amount": "abc"}, {"reason": {}}):
        response = api.put_json(refund_url(order, refund), {"order_refund": data}, status=400)
        assert_error(response, 400, "shop_api_invalid_param")
    response = api.put_json(refund_url(order, refund), {"order_refund": []}, status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    role_api("edit_shop_orders").put_json(refund_url(order, refund), body, status=200)


# --- delete


def test_delete(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, total="10", status="processing")
    line = add_item(engine, order, total="10")
    refund_id = create(
        api, order, amount=10, line_items={str(line): {"qty": 1, "refund_total": 10}}
    ).json["order_refund"]["id"]
    assert one_row(engine, orders, order)["status"] == "refunded"
    response = api.delete(refund_url(order, refund_id))
    assert response.status_int == 200
    assert response.json == {"message": "Permanently deleted refund"}
    assert select_all(engine, order_refunds) == [] and select_all(engine, refund_items) == []
    assert one_row(engine, orders, order)["status"] == "refunded"
    assert_error(
        api.delete(refund_url(order, refund_id), status=404),
        404,
        "shop_api_invalid_order_refund_id",
    )
    # The amount is refundable again.
    create(api, order, amount=10)


def test_delete_checks(
    api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine, order: int
) -> None:
    other = add_order(engine)
    foreign = add_refund(engine, other)
    refund = add_refund(engine, order)
    assert_error(api.delete(refund_url(0, refund), status=404), 404, "shop_api_invalid_order_id")
    assert_error(api.delete(refund_url(99, refund), status=404), 404, "shop_api_no_order_found")
    response = role_api(*ALL_BUT["delete"]).delete(refund_url(order, refund), status=401)
    assert_error(
        response,
        401,
        "shop_api_user_cannot_delete_order",
        "You do not have permission to delete this order.",
    )
    assert_error(
        api.delete(refund_url(order, 0), status=400),
        400,
        "shop_api_invalid_order_refund_id",
        "Invalid order refund ID.",
    )
    assert_error(
        api.delete(refund_url(order, foreign), status=400),
        400,
        "shop_api_invalid_order_refund_id",
        "The order refund ID provided is not associated with the order.",
    )
    role_api("delete_shop_orders").delete(refund_url(order, refund), status=200)
    assert [r["id"] for r in select_all(engine, order_refunds)] == [foreign]


def test_index_lists_the_routes(api: TestApp) -> None:
    check_index(api, "/orders/<order_id>/refunds", "/orders/<order_id>/refunds/<id>")
