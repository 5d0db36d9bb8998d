"""The records the hostile suite's routes name: one of every family (the targets of the edit
routes), an order with an item of each kind, a note and a refund, made through the API."""

from __future__ import annotations

import json
from typing import Any

from webtest import TestApp

from tests.helpers.api import ROOT


def _create(client: TestApp, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(ROOT + path, json.dumps(body), content_type="application/json")
    assert response.status_int == 201, response.body
    [record] = response.json.values()
    return record


SUBSCRIBED_TOPICS = (
    "order.updated",
    "order.deleted",
    "order.restored",
    "product.created",
    "product.updated",
    "product.deleted",
    "product.restored",
    "action.shop_product_set_stock",
    "action.shop_order_status_changed",
    "action.shop_refund_created",
)


def make_world(client: TestApp) -> dict[str, int]:
    """One record of every family (the targets of the edit routes), an order of the plain
    product with its items, a note and a refund; their ids by name."""
    ids: dict[str, int] = {}
    ids["webhook"] = _create(
        client,
        "/webhooks",
        {"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/hook"}},
    )["id"]
    # Subscribers for every topic a write may fire, so that a failed request that leaked an
    # event into the outbox would show in the tables' snapshot.
    for topic in SUBSCRIBED_TOPICS:
        hook = {"topic": topic, "delivery_url": "http://127.0.0.1:9/hook"}
        _create(client, "/webhooks", {"webhook": hook})
    _create(client, "/taxes/classes", {"tax_class": {"name": "Reduced Rate"}})
    ids["tax"] = _create(
        client, "/taxes", {"tax": {"country": "GB", "rate": "20", "class": "reduced-rate"}}
    )["id"]
    categories = "/products/categories"
    ids["category"] = _create(client, categories, {"product_category": {"name": "C"}})["id"]
    child = {"name": "K", "parent": ids["category"]}
    _create(client, categories, {"product_category": child})
    ids["tag"] = _create(client, "/products/tags", {"product_tag": {"name": "T"}})["id"]
    ids["shipping_class"] = _create(
        client, "/products/shipping_classes", {"product_shipping_class": {"name": "Heavy"}}
    )["id"]
    ids["attribute"] = _create(
        client, "/products/attributes", {"product_attribute": {"name": "Color", "slug": "color"}}
    )["id"]
    terms = f"/products/attributes/{ids['attribute']}/terms"
    ids["term"] = _create(client, terms, {"product_attribute_term": {"name": "Red"}})["id"]
    _create(client, terms, {"product_attribute_term": {"name": "Blue"}})
    ids["product"] = _create(
        client,
        "/products",
        {
            "product": {
                "title": "Plain",
                "sku": "SKU-1",
                "regular_price": "10",
                "categories": [ids["category"]],
                "tags": [ids["tag"]],
            }
        },
    )["id"]
    variable = _create(
        client,
        "/products",
        {
            "product": {
                "title": "Shirt",
                "type": "variable",
                "attributes": [
                    {"name": "Color", "slug": "pa_color", "variation": True, "options": ["Red"]}
                ],
                "variations": [
                    {"regular_price": "5", "attributes": [{"name": "Color", "option": "red"}]}
                ],
            }
        },
    )
    ids["variable"] = variable["id"]
    ids["variation"] = variable["variations"][0]["id"]
    ids.update(make_order(client, ids["product"]))
    return ids


def make_order(client: TestApp, product_id: int) -> dict[str, int]:
    """One order with an item of each kind, a note and a refund (the targets of the order edit,
    note and refund routes); their ids by name."""
    order = _create(
        client,
        "/orders",
        {
            "order": {
                "line_items": [{"product_id": product_id, "quantity": 3}],
                "shipping_lines": [{"method_id": "flat_rate", "method_title": "F", "total": "5"}],
                "fee_lines": [{"title": "Wrap", "total": "2"}],
                "coupon_lines": [{"code": "SAVE1", "amount": "1"}],
                "billing_address": {"first_name": "Jane", "country": "GB"},
                "order_meta": {"gift": "yes"},
            }
        },
    )
    ids = {
        "order": order["id"],
        "line": order["line_items"][0]["id"],
        "shipping_line": order["shipping_lines"][0]["id"],
        "fee_line": order["fee_lines"][0]["id"],
        "coupon_line": order["coupon_lines"][0]["id"],
    }
    path = f"/orders/{ids['order']}"
    ids["note"] = _create(client, f"{path}/notes", {"order_note": {"note": "Hello"}})["id"]
    refund = {"amount": "1", "line_items": {str(ids["line"]): {"qty": 1, "refund_total": "1"}}}
    ids["refund"] = _create(client, f"{path}/refunds", {"order_refund": refund})["id"]
    return ids
