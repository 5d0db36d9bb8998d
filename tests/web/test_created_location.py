"""Every 201 Created carries ``Location``: the new record's absolute URL under the API root
(nested records under their parent's), built once (``web.rendering.created_url``); the URL
answers the same record. Both databases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from tests.helpers.api import BASE, ROOT, Credentials, authorised
from tests.helpers.orders import add_order


def created(api: TestApp, path: str, envelope: str, body: dict[str, Any], **kw: Any) -> Any:
    return api.post_json(ROOT + path, {envelope: body}, status=201, **kw)


def check(api: TestApp, response: Any, envelope: str, path: str) -> None:
    """``Location`` is ``BASE + ROOT + path``, and a GET of it answers the created record."""
    assert response.headers["Location"] == f"{BASE}{ROOT}{path}"
    assert response.headers.getall("Location") == [response.headers["Location"]]
    assert api.get(response.headers["Location"]).json == {envelope: response.json[envelope]}


def test_webhooks_and_taxes(api: TestApp, no_ping: None) -> None:
    response = created(
        api, "/webhooks", "webhook", {"topic": "order.created", "delivery_url": "http://x.test/"}
    )
    check(api, response, "webhook", f"/webhooks/{response.json['webhook']['id']}")

    response = created(api, "/taxes", "tax", {"country": "GB", "rate": "20"})
    check(api, response, "tax", f"/taxes/{response.json['tax']['id']}")

    # a tax class is named by its slug: its URL is the one DELETE takes (there is no GET)
    response = created(api, "/taxes/classes", "tax_class", {"name": "Zero Rate"})
    assert response.json["tax_class"]["slug"] == "zero-rate"
    assert response.headers["Location"] == f"{BASE}{ROOT}/taxes/classes/zero-rate"


def test_the_product_catalogue(api: TestApp) -> None:
    response = created(api, "/products", "product", {"title": "Widget"})
    check(api, response, "product", f"/products/{response.json['product']['id']}")

    for path, envelope in (
        ("/products/categories", "product_category"),
        ("/products/tags", "product_tag"),
        ("/products/shipping_classes", "product_shipping_class"),
        ("/products/attributes", "product_attribute"),
    ):
        response = created(api, path, envelope, {"name": f"New {envelope}"})
        check(api, response, envelope, f"{path}/{response.json[envelope]['id']}")
    attribute = response.json["product_attribute"]["id"]

    terms = f"/products/attributes/{attribute}/terms"
    response = created(api, terms, "product_attribute_term", {"name": "Red"})
    term = response.json["product_attribute_term"]["id"]
    check(api, response, "product_attribute_term", f"{terms}/{term}")


def test_orders_and_their_notes_and_refunds(api: TestApp, engine: sa.Engine) -> None:
    response = created(api, "/orders", "order", {"status": "pending"})
    order = response.json["order"]["id"]
    check(api, response, "order", f"/orders/{order}")

    response = created(api, f"/orders/{order}/notes", "order_note", {"note": "Hello"})
    check(api, response, "order_note", f"/orders/{order}/notes/{response.json['order_note']['id']}")

    paid = add_order(engine)
    response = created(api, f"/orders/{paid}/refunds", "order_refund", {"amount": "1"})
    refund = response.json["order_refund"]["id"]
    check(api, response, "order_refund", f"/orders/{paid}/refunds/{refund}")


def test_the_url_is_canonical_whatever_the_request_spelled(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine)
    odd = f"/Shop-API/V3/ORDERS/000{order}/Notes"
    response = api.post_json(odd, {"order_note": {"note": "x"}}, status=201)
    note = response.json["order_note"]["id"]
    assert response.headers["Location"] == f"{BASE}{ROOT}/orders/{order}/notes/{note}"


def test_the_public_url_and_the_api_root(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    app = build_app(
        **{"shopsvc.public_url": "https://shop.example.com/", "shopsvc.api_root": "/api/"}
    )
    client = authorised(app, admin)
    response = client.post_json("/api/products/tags", {"product_tag": {"name": "T"}}, status=201)
    tag = response.json["product_tag"]["id"]
    assert response.headers["Location"] == f"https://shop.example.com/api/products/tags/{tag}"


def test_an_idempotent_replay_carries_the_same_location(api: TestApp) -> None:
    headers = {"Idempotency-Key": "location-1"}
    first = created(api, "/products/tags", "product_tag", {"name": "Once"}, headers=headers)
    again = created(api, "/products/tags", "product_tag", {"name": "Once"}, headers=headers)
    assert again.headers["Location"] == first.headers["Location"]
    assert again.json == first.json


@pytest.mark.parametrize("path", ["/products/bulk", "/orders/bulk", "/taxes/bulk"])
def test_bulk_answers_carry_none(api: TestApp, path: str) -> None:
    envelope = path.split("/")[1]
    body = {"country": "GB"} if envelope == "taxes" else {}
    response = api.post_json(ROOT + path, {envelope: [body]}, status=200)
    assert "Location" not in response.headers


def test_other_answers_carry_none(api: TestApp) -> None:
    response = created(api, "/products/tags", "product_tag", {"name": "T"})
    tag = response.json["product_tag"]["id"]
    for answer in (
        api.get(f"{ROOT}/products/tags/{tag}"),
        api.put_json(f"{ROOT}/products/tags/{tag}", {"product_tag": {"name": "U"}}),
        api.get(f"{ROOT}/products/tags"),
        api.post_json(f"{ROOT}/products/tags", {"product_tag": {}}, status=400),
    ):
        assert "Location" not in answer.headers
