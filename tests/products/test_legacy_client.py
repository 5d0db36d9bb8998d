"""The real ``woocommerce`` 3.0.0 client (OAuth 1.0a over plain HTTP, legacy ``/wc-api/v3`` root)
creating a variable product with two variations and an image, listing it, editing it and
deleting it."""

from __future__ import annotations

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import media
from tests.helpers.legacy_client import LegacyClient
from tests.helpers.sql import count_rows


def test_variable_product_lifecycle(
    legacy_client: LegacyClient,
    image_host: str,
    engine: sa.Engine,
) -> None:
    created = legacy_client.post(
        "products",
        {
            "product": {
                "title": "Legacy Tee",
                "type": "variable",
                "sku": "LEGACY-TEE",
                "description": "Made by the legacy client.",
                "images": [{"src": f"{image_host}/img/tee.png", "position": 0}],
                "attributes": [
                    {
                        "name": "Size",
                        "position": 0,
                        "visible": True,
                        "variation": True,
                        "options": ["Small", "Large"],
                    }
                ],
                "variations": [
                    {
                        "sku": "LEGACY-TEE-S",
                        "regular_price": "10.00",
                        "managing_stock": True,
                        "stock_quantity": 5,
                        "attributes": [{"name": "Size", "option": "Small"}],
                    },
                    {
                        "sku": "LEGACY-TEE-L",
                        "regular_price": "12.50",
                        "attributes": [{"name": "Size", "option": "Large"}],
                    },
                ],
            }
        },
    )
    assert created.status_code == 201, created.text
    product = created.json()["product"]
    product_id = product["id"]
    assert product["type"] == "variable"
    assert product["price"] == "10.00"
    assert product["price_html"] == (
        '<span class="amount">$10.00</span>\u2013<span class="amount">$12.50</span>'
    )
    assert product["images"][0]["src"].startswith("http://shop.test/media/")
    assert product["featured_src"] == product["images"][0]["src"]
    small, large = product["variations"]
    assert (small["sku"], small["stock_quantity"]) == ("LEGACY-TEE-S", 5)
    assert small["attributes"] == [{"name": "Size", "slug": "size", "option": "Small"}]
    assert large["price"] == "12.50"
    assert small["permalink"] == "http://shop.test/product/legacy-tee/?attribute_size=Small"
    # the client really signed with OAuth in the query string, on the legacy root
    method, url = legacy_client.sent[-1]
    assert method == "POST" and url.startswith("http://shop.test/wc-api/v3/products?")
    assert "oauth_signature_method=HMAC-SHA256" in url
    assert count_rows(engine, media) == 1

    listed = legacy_client.get("products", params={"filter[limit]": 5, "page": 1})
    assert listed.status_code == 200, listed.text
    assert [p["id"] for p in listed.json()["products"]] == [product_id]
    assert listed.headers["X-WC-Total"] == "1" and listed.headers["X-WC-TotalPages"] == "1"
    # the client sent every parameter twice; the last one wins, in the signature as well
    assert legacy_client.sent[-1][1].count("filter%5Blimit%5D=5") == 2

    by_sku = legacy_client.get("products", params={"filter[sku]": "LEGACY-TEE-L"})
    assert [p["id"] for p in by_sku.json()["products"]] == [large["id"]]

    edited = legacy_client.put(
        f"products/{product_id}",
        {
            "product": {
                "title": "Legacy Tee v2",
                "variations": [
                    {"id": small["id"], "regular_price": "9.00", "sale_price": "8.00"},
                    {"id": large["id"], "visible": False},
                ],
            }
        },
    )
    assert edited.status_code == 200, edited.text
    again = edited.json()["product"]
    assert again["title"] == "Legacy Tee v2"
    assert again["price"] == "8.00" and again["on_sale"] is True
    by_id = {v["id"]: v for v in again["variations"]}
    assert by_id[small["id"]]["sale_price"] == "8.00"
    assert by_id[large["id"]]["visible"] is False
    assert legacy_client.get(f"products/{product_id}").json()["product"] == again

    trashed = legacy_client.delete(f"products/{product_id}")
    assert trashed.status_code == 202, trashed.text
    assert trashed.json() == {"message": "Deleted product"}
    deleted = legacy_client.delete(f"products/{product_id}", params={"force": "true"})
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {"message": "Permanently deleted product"}
    gone = legacy_client.get(f"products/{product_id}")
    assert gone.status_code == 404
    assert gone.json()["errors"][0]["code"] == "shop_api_no_product_found"
    assert count_rows(engine) == 0


def test_client_errors_and_auth(legacy_client: LegacyClient, legacy_app: TestApp) -> None:
    missing = legacy_client.post("products", {"product": {"type": "simple"}})
    assert missing.status_code == 400
    assert missing.json() == {
        "errors": [
            {"code": "shop_api_missing_product_title", "message": "Missing parameter title."}
        ]
    }
    bulk = legacy_client.post(
        "products/bulk",
        {"products": [{"title": "One", "sku": "B-1"}, {"title": "Two", "sku": "b-1"}]},
    )
    assert bulk.status_code == 200, bulk.text
    first, second = bulk.json()["products"]
    assert first["sku"] == "B-1" and second["id"] == first["id"]  # found by SKU: edited
    assert second["title"] == "Two"
    # without a signature there is no way in: Basic is off over plain HTTP
    legacy_app.post_json("/wc-api/v3/products", {"product": {"title": "x"}}, status=401)
    wrong = LegacyClient(legacy_app, legacy_client.api.consumer_key, "cs_" + "0" * 40)
    refused = wrong.post("products", {"product": {"title": "x"}})
    assert refused.status_code == 401
    assert refused.json()["errors"][0]["code"] == "shop_api_authentication_error"
