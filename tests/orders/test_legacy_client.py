"""The real ``woocommerce`` 3.0.0 client (OAuth 1.0a over plain HTTP, legacy ``/wc-api/v3`` root)
through an order's life: two products, an order with two lines and a shipping line, a line's
quantity edited, payment, a note, a refund of one line with restock, a paged list, trash and
delete — on both databases."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from shopsvc.sql.tables import orders
from tests.helpers.legacy_client import LegacyClient
from tests.helpers.sql import count_rows

LIST_URL = "http://shop.test/wc-api/v3/orders?filter%5Blimit%5D=1"


def _product(legacy_client: LegacyClient, **fields: Any) -> dict[str, Any]:
    response = legacy_client.post("products", {"product": fields})
    assert response.status_code == 201, response.text
    product: dict[str, Any] = response.json()["product"]
    return product


def _stock(legacy_client: LegacyClient, product_id: int) -> tuple[int | None, int]:
    product = legacy_client.get(f"products/{product_id}").json()["product"]
    return product["stock_quantity"], product["total_sales"]


def _lines(order: dict[str, Any]) -> list[tuple[int, int, str, str, str]]:
    return [
        (line["product_id"], line["quantity"], line["price"], line["subtotal"], line["total"])
        for line in order["line_items"]
    ]


def _totals(order: dict[str, Any]) -> dict[str, Any]:
    keys = ("status", "total", "subtotal", "total_shipping", "total_tax", "total_discount")
    return {key: order[key] for key in keys} | {"quantity": order["total_line_items_quantity"]}


def test_order_lifecycle(legacy_client: LegacyClient, engine: sa.Engine) -> None:
    mug = _product(
        legacy_client,
        title="Mug",
        sku="MUG",
        regular_price="12.50",
        managing_stock=True,
        stock_quantity=10,
    )
    cap = _product(legacy_client, title="Cap", sku="CAP", regular_price="7.25")
    assert (mug["stock_quantity"], mug["total_sales"]) == (10, 0)

    # --- create: two lines and a shipping line
    created = legacy_client.post(
        "orders",
        {
            "order": {
                "billing_address": {"first_name": "Ada", "email": "ada@example.com"},
                "line_items": [
                    {"product_id": mug["id"], "quantity": 2},
                    {"product_id": cap["id"], "quantity": 1},
                ],
                "shipping_lines": [
                    {"method_id": "flat_rate", "method_title": "Flat Rate", "total": "5.00"}
                ],
            }
        },
    )
    assert created.status_code == 201, created.text
    order = created.json()["order"]
    order_id = order["id"]
    assert order["order_number"] == str(order_id)
    assert _totals(order) == {
        "status": "pending",
        "total": "37.25",
        "subtotal": "32.25",
        "total_shipping": "5.00",
        "total_tax": "0.00",
        "total_discount": "0.00",
        "quantity": 3,
    }
    assert _lines(order) == [
        (mug["id"], 2, "12.50", "25.00", "25.00"),
        (cap["id"], 1, "7.25", "7.25", "7.25"),
    ]
    assert [line["sku"] for line in order["line_items"]] == ["MUG", "CAP"]
    [shipping] = order["shipping_lines"]
    assert {k: shipping[k] for k in ("method_id", "method_title", "total")} == {
        "method_id": "flat_rate",
        "method_title": "Flat Rate",
        "total": "5.00",
    }
    assert order["shipping_methods"] == "Flat Rate"
    assert order["payment_details"] == {"method_id": "", "method_title": "", "paid": False}
    assert order["billing_address"]["email"] == "ada@example.com"
    assert order["customer_user_agent"] == "WooCommerce-Python-REST-API/3.0.0"
    assert order["view_order_url"] == f"http://shop.test/my-account/view-order/{order_id}/"
    # the client signed with OAuth in the query string, on the legacy root
    method, url = legacy_client.sent[-1]
    assert method == "POST" and url.startswith("http://shop.test/wc-api/v3/orders?")
    assert "oauth_signature_method=HMAC-SHA256" in url
    assert _stock(legacy_client, mug["id"]) == (10, 0)  # pending: nothing reduced yet

    # --- edit one line's quantity (by id, with its product)
    line_ids = [line["id"] for line in order["line_items"]]
    mug_line = line_ids[0]
    edited = legacy_client.put(
        f"orders/{order_id}",
        {"order": {"line_items": [{"id": mug_line, "product_id": mug["id"], "quantity": 3}]}},
    )
    assert edited.status_code == 200, edited.text
    order = edited.json()["order"]
    assert _totals(order) == {
        "status": "pending",
        "total": "49.75",
        "subtotal": "44.75",
        "total_shipping": "5.00",
        "total_tax": "0.00",
        "total_discount": "0.00",
        "quantity": 4,
    }
    assert [line["id"] for line in order["line_items"]] == line_ids  # edited, not replaced
    assert _lines(order) == [
        (mug["id"], 3, "12.50", "37.50", "37.50"),
        (cap["id"], 1, "7.25", "7.25", "7.25"),
    ]
    assert legacy_client.get(f"orders/{order_id}").json()["order"] == order

    # --- payment: processing, stock reduced once
    paid = legacy_client.put(
        f"orders/{order_id}",
        {
            "order": {
                "payment_details": {
                    "method_id": "bacs",
                    "method_title": "Direct Bank Transfer",
                    "paid": True,
                    "transaction_id": "TX-1",
                }
            }
        },
    )
    assert paid.status_code == 200, paid.text
    order = paid.json()["order"]
    assert order["status"] == "processing" and order["total"] == "49.75"
    assert order["payment_details"] == {
        "method_id": "bacs",
        "method_title": "Direct Bank Transfer",
        "paid": True,
    }
    assert _stock(legacy_client, mug["id"]) == (7, 3)

    # --- a customer note
    noted = legacy_client.post(
        f"orders/{order_id}/notes", {"order_note": {"note": "Gift wrap", "customer_note": True}}
    )
    assert noted.status_code == 201, noted.text
    note = noted.json()["order_note"]
    assert (note["note"], note["customer_note"]) == ("Gift wrap", True)

    # --- a refund of one mug, restocked
    refunded = legacy_client.post(
        f"orders/{order_id}/refunds",
        {
            "order_refund": {
                "amount": "12.50",
                "reason": "Broken",
                "line_items": {str(mug_line): {"qty": 1, "refund_total": "12.50"}},
                "restock_items": True,
            }
        },
    )
    assert refunded.status_code == 201, refunded.text
    refund = refunded.json()["order_refund"]
    assert (refund["amount"], refund["reason"]) == ("12.50", "Broken")
    [refund_line] = refund["line_items"]
    assert {
        key: refund_line[key]
        for key in ("refunded_item_id", "product_id", "quantity", "total", "subtotal", "price")
    } == {
        "refunded_item_id": mug_line,
        "product_id": mug["id"],
        "quantity": -1,
        "total": "-12.50",
        "subtotal": "-12.50",
        "price": "12.50",
    }
    assert _stock(legacy_client, mug["id"]) == (8, 3)
    refunds = legacy_client.get(f"orders/{order_id}/refunds").json()["order_refunds"]
    assert [(r["id"], r["amount"]) for r in refunds] == [(refund["id"], "12.50")]
    # more than what is left (49.75 - 12.50 = 37.25) is refused
    too_much = legacy_client.post(
        f"orders/{order_id}/refunds", {"order_refund": {"amount": "37.26"}}
    )
    assert too_much.status_code == 400
    assert too_much.json() == {
        "errors": [{"code": "shop_api_invalid_order_refund", "message": "Invalid refund amount."}]
    }
    order = legacy_client.get(f"orders/{order_id}").json()["order"]
    assert (order["status"], order["total"]) == ("processing", "49.75")  # partly refunded

    notes = legacy_client.get(f"orders/{order_id}/notes").json()["order_notes"]
    assert [(n["note"], n["customer_note"]) for n in notes] == [
        (f"Item #{mug['id']} stock increased from 7 to 8.", False),
        ("Gift wrap", True),
        ("Order status changed from Pending payment to Processing.", False),
    ]

    # --- a second order, then the list one per page
    second = legacy_client.post(
        "orders", {"order": {"line_items": [{"product_id": cap["id"], "quantity": 2}]}}
    )
    assert second.status_code == 201, second.text
    second_id = second.json()["order"]["id"]
    assert second.json()["order"]["total"] == "14.50"

    first_page = legacy_client.get("orders", params={"filter[limit]": 1})
    assert first_page.status_code == 200, first_page.text
    assert [o["id"] for o in first_page.json()["orders"]] == [second_id]  # newest first
    assert first_page.headers["X-WC-Total"] == "2"
    assert first_page.headers["X-WC-TotalPages"] == "2"
    assert legacy_client.link_headers(first_page) == [
        f'<{LIST_URL}&page=2>; rel="next"',
        f'<{LIST_URL}&page=2>; rel="last"',
    ]
    last_page = legacy_client.get("orders", params={"filter[limit]": 1, "page": 2})
    assert last_page.status_code == 200, last_page.text
    assert [o["id"] for o in last_page.json()["orders"]] == [order_id]
    assert last_page.json()["orders"][0] == order
    assert (last_page.headers["X-WC-Total"], last_page.headers["X-WC-TotalPages"]) == ("2", "2")
    assert legacy_client.link_headers(last_page) == [
        f'<{LIST_URL}&page=1>; rel="first"',
        f'<{LIST_URL}&page=1>; rel="prev"',
    ]
    # the client sent every parameter twice; the last one wins, in the signature as well
    assert legacy_client.sent[-1][1].count("filter%5Blimit%5D=1") == 2

    # --- trash, then delete for good
    trashed = legacy_client.delete(f"orders/{order_id}")
    assert trashed.status_code == 202, trashed.text
    assert trashed.json() == {"message": "Deleted order"}
    in_trash = legacy_client.get("orders", params={"status": "trash"})
    assert [(o["id"], o["status"]) for o in in_trash.json()["orders"]] == [(order_id, "trash")]
    assert legacy_client.get("orders").headers["X-WC-Total"] == "1"

    deleted = legacy_client.delete(f"orders/{order_id}", params={"force": "true"})
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {"message": "Permanently deleted order"}
    gone = legacy_client.get(f"orders/{order_id}")
    assert gone.status_code == 404
    assert gone.json() == {
        "errors": [
            {
                "code": "shop_api_no_order_found",
                "message": f"No order found with the ID equal to {order_id}",
            }
        ]
    }
    assert count_rows(engine, orders) == 1
    assert _stock(legacy_client, mug["id"]) == (8, 3)  # deleting an order moves no stock
