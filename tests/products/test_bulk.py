"""``POST|PUT|PATCH /products/bulk``: the lookup rule (id, else SKU, else create), results and
error items in input order, a savepoint per element, the 413 limit."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from tests.helpers.api import error
from tests.helpers.products import URL, create, get, row
from tests.helpers.sql import count_rows

BULK = URL + "/bulk"


def bulk(api: Any, items: Any, method: str = "post", status: int = 200) -> list[dict[str, Any]]:
    response = getattr(api, f"{method}_json")(BULK, {"products": items}, status=status)
    return response.json["products"]


def test_mixed_creates_edits_and_errors_in_input_order(api: Any, engine: sa.Engine) -> None:
    by_id = create(api, title="By id", regular_price="1")
    by_sku = create(api, title="By sku", sku="SKU-A")
    create(api, title="Taken", sku="TAKEN")
    response = api.post_json(
        BULK,
        {
            "products": [
                {"title": "New one", "sku": "NEW-1", "regular_price": "3"},
                {"id": by_id["id"], "regular_price": "2"},
                {"sku": "sku-a", "title": "Found by SKU"},
                {
                    "title": "D",
                    "sku": "FRESH",
                    "type": "variable",
                    "variations": [{"sku": "taken"}],
                },
                {"id": 99999, "title": "Missing"},
                "not an object",
                {"type": "simple"},
                {"id": str(by_id["id"]), "status": "bogus"},
                {"title": "Second new", "type": "variable", "variations": [{"sku": "NEW-V"}]},
                {"sku": "SKU-NEW", "title": "Unknown SKU creates"},
            ]
        },
    )
    assert response.status_int == 200
    results = response.json["products"]
    assert len(results) == 10
    assert results[0]["title"] == "New one" and results[0]["sku"] == "NEW-1"
    assert results[1]["id"] == by_id["id"] and results[1]["price"] == "2.00"
    assert results[2]["id"] == by_sku["id"] and results[2]["title"] == "Found by SKU"
    assert results[3] == {
        "id": 0,
        "sku": "FRESH",
        "error": {
            "code": "shop_api_product_sku_already_exists",
            "message": "The SKU already exists on another product.",
        },
    }
    assert results[4] == {
        "id": 99999,
        "sku": "",
        "error": {
            "code": "shop_api_no_product_found",
            "message": "No product found with the ID equal to 99999",
        },
    }
    assert results[5]["id"] == 0 and results[5]["sku"] == ""
    assert results[5]["error"]["code"] == "shop_api_invalid_param"
    assert results[6] == {
        "id": 0,
        "sku": "",
        "error": {"code": "shop_api_missing_product_title", "message": "Missing parameter title."},
    }
    assert results[7]["id"] == by_id["id"] and results[7]["sku"] == ""
    assert results[7]["error"]["code"] == "shop_api_invalid_param"
    assert results[8]["type"] == "variable" and results[8]["variations"][0]["sku"] == "NEW-V"
    assert results[9]["sku"] == "SKU-NEW"
    # every success is the record GET returns
    for item in (results[0], results[1], results[2], results[8], results[9]):
        assert get(api, item["id"]) == item
    assert count_rows(engine) == 3 + 3 + 1  # 3 seeded, 3 created, 1 variation


def test_failed_element_writes_nothing(api: Any, engine: sa.Engine) -> None:
    create(api, title="Taken", sku="TAKEN")
    product = create(api, title="Before", regular_price="1")
    results = bulk(
        api,
        [
            {"id": product["id"], "title": "After", "regular_price": "9", "sku": "taken"},
            {"title": "Doomed", "type": "variable", "variations": [{"sku": "V"}, {"sku": "taken"}]},
        ],
    )
    assert [r["error"]["code"] for r in results] == ["shop_api_product_sku_already_exists"] * 2
    assert results[0]["id"] == product["id"] and results[0]["sku"] == ""
    assert get(api, product["id"])["title"] == "Before"
    assert count_rows(engine) == 2


@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_bulk_methods(api: Any, method: str) -> None:
    [record] = bulk(api, [{"title": "x"}], method)
    assert record["title"] == "x"


def test_sku_lookup_skips_trashed_and_finds_variations(api: Any, engine: sa.Engine) -> None:
    trashed = create(api, title="Old", sku="REUSED")
    api.delete(f"{URL}/{trashed['id']}", status=202)
    parent = create(api, title="Var", type="variable", variations=[{"sku": "VAR-SKU"}])
    variation_id = parent["variations"][0]["id"]
    created, edited = bulk(
        api,
        [
            {"sku": "REUSED", "title": "New"},
            {"sku": "var-sku", "regular_price": "4"},
        ],
    )
    assert created["id"] != trashed["id"] and created["sku"] == "REUSED"
    assert edited["id"] == variation_id and edited["type"] == "variation"
    assert edited["regular_price"] == "4.00"
    assert row(engine, trashed["id"])["status"] == "trash"


def test_zero_or_null_id_creates(api: Any) -> None:
    first, second = bulk(api, [{"id": 0, "title": "a"}, {"id": None, "title": "b"}])
    assert first["title"] == "a" and second["title"] == "b" and first["id"] != second["id"]


def test_sku_filled_only_without_id(api: Any) -> None:
    found = create(api, title="Found", sku="DUP")
    product = create(api, title="x")
    results = bulk(
        api,
        [
            {"sku": "dup", "status": "bogus"},
            {"id": product["id"], "sku": "dup"},
            {"id": "x"},
            {"sku": "NEW", "type": "bogus"},
        ],
    )
    assert [(r["id"], r["sku"]) for r in results] == [
        (found["id"], "dup"),
        (product["id"], ""),
        (0, ""),
        (0, "NEW"),
    ]
    assert [r["error"]["code"] for r in results] == [
        "shop_api_invalid_param",
        "shop_api_product_sku_already_exists",
        "shop_api_invalid_param",
        "shop_api_missing_product_title",
    ]


def test_capability_per_element(customer_api: Any, api: Any) -> None:
    product = create(api, title="x")
    results = bulk(customer_api, [{"title": "new"}, {"id": product["id"], "title": "edit"}])
    assert results == [
        {
            "id": 0,
            "sku": "",
            "error": {
                "code": "shop_api_user_cannot_create_product",
                "message": "You do not have permission to create products.",
            },
        },
        {
            "id": product["id"],
            "sku": "",
            "error": {
                "code": "shop_api_user_cannot_edit_product",
                "message": "You do not have permission to edit this product.",
            },
        },
    ]


def test_missing_and_invalid_envelope(api: Any) -> None:
    for body in ({}, {"product": []}, {"products": None}):
        response = api.post_json(BULK, body, status=400)
        assert error(response) == (
            400,
            "shop_api_missing_products_data",
            "No products data specified to create/edit products",
        )
    response = api.post_json(BULK, {"products": {"title": "x"}}, status=400)
    assert error(response)[1] == "shop_api_invalid_param"


def test_limit_413_writes_nothing(build_app: Any, admin: Any, engine: sa.Engine) -> None:
    app = build_app(**{"shopsvc.bulk_limit": "3"})
    app.authorization = ("Basic", (admin.consumer_key, admin.consumer_secret))
    response = app.post_json(BULK, {"products": [{"title": str(i)} for i in range(4)]}, status=413)
    assert error(response) == (
        413,
        "shop_api_products_request_entity_too_large",
        "Unable to accept more than 3 items for this request.",
    )
    assert count_rows(engine) == 0
    results = app.post_json(BULK, {"products": [{"title": str(i)} for i in range(3)]}).json
    assert len(results["products"]) == 3


def test_default_limit_is_100(api: Any, engine: sa.Engine) -> None:
    response = api.post_json(BULK, {"products": [{"title": "x"}] * 101}, status=413)
    assert "100" in error(response)[2]
    assert count_rows(engine) == 0


def test_empty_bulk(api: Any) -> None:
    assert bulk(api, []) == []
