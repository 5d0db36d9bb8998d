"""GET /products/<id>/reviews and /products/<id>/orders, and the ``add-review`` command."""

from __future__ import annotations

import datetime as dt

import pytest
from webtest import TestApp

from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import error, errors
from tests.helpers.products import INVALID_ID, URL, not_found


def test_reviews_approved_oldest_first(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Mug")
    other = factory.product("Cup")
    late = factory.review(
        product,
        5,
        "Lovely.",
        "Bo",
        "bo@example.com",
        verified=True,
        created_at=dt.datetime(2024, 2, 1, 9, 0, 0),
    )
    early = factory.review(
        product, 3, "Fine.", "Al", "al@example.com", created_at=dt.datetime(2024, 1, 1, 9, 0, 0)
    )
    unrated = factory.review(
        product, None, "A question.", "Cy", "cy@example.com", created_at=dt.datetime(2024, 3, 1)
    )
    factory.review(product, 1, "Spam", approved=False, created_at=dt.datetime(2024, 1, 15))
    factory.review(other, 4)
    response = api.get(f"{URL}/{product}/reviews")
    assert response.json == {
        "product_reviews": [
            {
                "id": early,
                "created_at": "2024-01-01T09:00:00Z",
                "review": "Fine.",
                "rating": "3",
                "reviewer_name": "Al",
                "reviewer_email": "al@example.com",
                "verified": False,
            },
            {
                "id": late,
                "created_at": "2024-02-01T09:00:00Z",
                "review": "Lovely.",
                "rating": "5",
                "reviewer_name": "Bo",
                "reviewer_email": "bo@example.com",
                "verified": True,
            },
            {
                "id": unrated,
                "created_at": "2024-03-01T00:00:00Z",
                "review": "A question.",
                "rating": "",
                "reviewer_name": "Cy",
                "reviewer_email": "cy@example.com",
                "verified": False,
            },
        ]
    }
    assert response.headers["X-Shop-Total"] == "3"
    assert response.headers["X-Shop-TotalPages"] == "1"
    assert "Link" not in response.headers
    # unpaginated: page and filter[limit] do not apply
    paged = api.get(f"{URL}/{product}/reviews", params={"page": "2", "filter[limit]": "1"})
    assert len(paged.json["product_reviews"]) == 3
    fields = api.get(f"{URL}/{product}/reviews", params={"fields": "id,rating"})
    assert fields.json["product_reviews"][0] == {"id": early, "rating": "3"}
    record = api.get(f"{URL}/{product}").json["product"]
    assert (record["average_rating"], record["rating_count"]) == ("4.00", 2)


def test_no_reviews(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Mug", status="draft")
    response = api.get(f"{URL}/{product}/reviews")
    assert response.json == {"product_reviews": []}
    assert response.headers["X-Shop-Total"] == "0"
    assert response.headers["X-Shop-TotalPages"] == "0"


@pytest.mark.parametrize("route", ["reviews", "orders"])
def test_sub_route_errors(
    api: TestApp, customer_api: TestApp, factory: CatalogFactory, route: str
) -> None:
    product = factory.product("Mug")
    assert error(api.get(f"{URL}/0/{route}", status=404)) == INVALID_ID
    response = customer_api.get(f"{URL}/{product + 1}/{route}", status=404)
    assert error(response) == not_found(product + 1)
    assert errors(customer_api.get(f"{URL}/{product}/{route}", status=401)) == [
        {
            "code": "shop_api_user_cannot_read_product",
            "message": "You do not have permission to read this product.",
        }
    ]
    assert errors(api.post_json(f"{URL}/{product}/{route}", {}, status=404))[0]["code"] == (
        "shop_api_no_route"
    )


def test_product_orders_is_an_empty_list(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Mug")
    variable = factory.product("Tee", type="variable")
    variation = factory.variation(variable, {}, regular_price="1")
    for product_id in (product, variation):
        response = api.get(f"{URL}/{product_id}/orders")
        assert response.json == {"orders": []}
        assert response.headers["X-Shop-Total"] == "0"
        assert response.headers["X-Shop-TotalPages"] == "0"
    response = api.get(f"{URL}/{product}/orders", params={"filter[order]": "up"}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"
