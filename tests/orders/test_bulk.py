"""``POST|PUT|PATCH /orders/bulk``: creates and edits in one request, a failing element in its
own savepoint, the envelope and size checks (both databases)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import orders
from tests.helpers.api import authorised
from tests.helpers.order_writes import BULK, create, fails, get, product, stock_of
from tests.helpers.sql import count_rows


@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_creates_and_edits(api: TestApp, engine: sa.Engine, method: str) -> None:
    thing = product(engine, "Thing", "5", manage_stock=True, stock_quantity=10)
    existing = create(api)
    body = {
        "orders": [
            {"line_items": [{"product_id": thing, "quantity": 2}], "status": "processing"},
            {"id": existing["id"], "note": "edited"},
            {"id": str(existing["id"]), "status": "completed"},
        ]
    }
    response = getattr(api, f"{method}_json")(BULK, body, status=200)
    first, second, third = response.json["orders"]
    assert first["status"] == "processing"
    assert first["total"] == "10.00"
    assert second["id"] == existing["id"]
    assert second["note"] == "edited"
    assert third["status"] == "completed"
    assert stock_of(engine, thing) == 8


def test_a_failing_element_leaves_the_others(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine, "Thing", "5", manage_stock=True, stock_quantity=10)
    existing = create(api)
    body = {
        "orders": [
            {"line_items": [{"product_id": thing, "quantity": 1}]},
            {
                "status": "processing",
                "line_items": [
                    {"product_id": thing, "quantity": 4},
                    {"product_id": 9999, "quantity": 1},
                ],
            },
            {"id": existing["id"], "status": "nope"},
            {"id": 9999, "note": "x"},
            "not an object",
            {"coupon_lines": [{"code": "OK"}]},
        ]
    }
    results = api.post_json(BULK, body, status=200).json["orders"]
    assert results[0]["line_items"][0]["quantity"] == 1
    assert results[1] == {
        "id": 0,
        "error": {"code": "shop_api_invalid_product", "message": "Product is invalid."},
    }
    assert results[2]["id"] == existing["id"]
    assert results[2]["error"]["code"] == "shop_api_invalid_order_status"
    assert results[3]["id"] == 9999
    assert results[3]["error"] == {
        "code": "shop_api_invalid_order_id",
        "message": "Order ID is invalid",
    }
    assert results[4]["error"]["code"] == "shop_api_invalid_param"
    assert results[5]["coupon_lines"][0]["code"] == "OK"
    assert count_rows(engine, orders) == 3
    assert stock_of(engine, thing) == 10
    assert get(api, existing["id"])["status"] == "pending"


def test_envelope_and_limit(build_app: Callable[..., TestApp], admin: object) -> None:
    client = authorised(build_app(**{"shopsvc.bulk_limit": "2"}), admin)  # type: ignore[arg-type]
    assert fails(client, {}, BULK) == (
        400,
        "shop_api_missing_orders_data",
        "No orders data specified to create/edit orders",
    )
    assert fails(client, {"orders": [{}, {}, {}]}, BULK) == (
        413,
        "shop_api_orders_request_entity_too_large",
        "Unable to accept more than 2 items for this request.",
    )


def test_capabilities_per_element(api: TestApp, customer_api: TestApp) -> None:
    existing = create(api)
    results = customer_api.post_json(
        BULK, {"orders": [{}, {"id": existing["id"], "note": "x"}]}, status=200
    ).json["orders"]
    assert [r["error"]["code"] for r in results] == [
        "shop_api_user_cannot_create_order",
        "shop_api_user_cannot_edit_order",
    ]
