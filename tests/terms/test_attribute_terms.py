"""What only the terms of a global attribute do: they live under their attribute (looked up after
the envelope and the capability, before the term), their slugs are unique within it, and they
follow its ``order_by`` and their ``menu_order``. The rest is in ``test_common.py``."""

from __future__ import annotations

from typing import Any

import pytest
from webtest import TestApp

from tests.helpers.api import error
from tests.helpers.terms import ATTRIBUTE_TERMS, ATTRIBUTES

URL = ATTRIBUTE_TERMS.url
OTHER = ATTRIBUTES.url + "/9/terms"  # no attribute 9
term = ATTRIBUTE_TERMS.record

NOT_FOUND = (404, "shop_api_invalid_product_attribute_term_id")
ATTRIBUTE_NOT_FOUND = (
    404,
    "shop_api_invalid_product_attribute_id",
    "A product attribute with the provided ID could not be found",
)


@pytest.fixture
def color(api: TestApp) -> dict[str, Any]:
    return ATTRIBUTES.create(api, name="Color")


def add_attribute(api: TestApp, name: str, order_by: str = "menu_order") -> int:
    return int(ATTRIBUTES.create(api, name=name, order_by=order_by)["id"])


def create(api: TestApp, url: str = URL, **fields: Any) -> dict[str, Any]:
    body = api.post_json(url, {"product_attribute_term": fields}, status=201).json
    return body["product_attribute_term"]


def names(api: TestApp, url: str) -> list[str]:
    return [row["name"] for row in api.get(url).json["product_attribute_terms"]]


# --- create


def test_create_ignores_fields_of_other_families(api: TestApp, color: dict[str, Any]) -> None:
    create(api, name="Dark Red")
    body = create(api, name="Blue", slug="Navy Blue", menu_order="3", description="ignored")
    assert body == term(2, "Blue", "navy-blue")


def test_slugs_are_unique_within_the_attribute(api: TestApp, color: dict[str, Any]) -> None:
    size = add_attribute(api, "Size")
    create(api, name="Red")
    other = create(api, ATTRIBUTES.url + f"/{size}/terms", name="Red")
    assert other["slug"] == "red"  # another attribute
    assert create(api, name="Red!", slug="")["slug"] == "red-2"


def test_create_checks_in_order(api: TestApp, customer_api: TestApp, color: dict[str, Any]) -> None:
    missing = (
        400,
        "shop_api_missing_product_attribute_term_data",
        "No product_attribute_term data specified to create product_attribute_term",
    )
    assert error(customer_api.post_json(OTHER, {}, status=400)) == missing
    response = customer_api.post_json(OTHER, {"product_attribute_term": {}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_create_product_attribute_terms",
        "You do not have permission to create product attribute terms",
    )
    response = api.post_json(OTHER, {"product_attribute_term": {}}, status=404)
    assert error(response) == ATTRIBUTE_NOT_FOUND
    response = api.post_json(
        ATTRIBUTES.url + "/0/terms", {"product_attribute_term": {}}, status=404
    )
    assert error(response) == ATTRIBUTE_NOT_FOUND
    response = api.post_json(
        URL, {"product_attribute_term": {"name": "A", "menu_order": 2**31}}, status=400
    )
    assert error(response)[1] == "shop_api_invalid_param"


# --- read and order


@pytest.mark.parametrize(
    ("order_by", "expected"),
    [
        ("menu_order", ["Size 10", "size 2", "Size 1", "Size 9", "Small"]),
        ("name", ["Size 1", "Size 10", "size 2", "Size 9", "Small"]),
        ("name_num", ["Size 1", "size 2", "Size 9", "Size 10", "Small"]),
        ("id", ["Size 10", "Size 9", "Small", "Size 1", "size 2"]),
    ],
)
def test_terms_follow_the_attribute_order(api: TestApp, order_by: str, expected: list[str]) -> None:
    attribute_id = add_attribute(api, "Size", order_by)
    url = f"{ATTRIBUTES.url}/{attribute_id}/terms"
    for name, menu_order in [
        ("Size 10", 0),
        ("Size 9", 1),
        ("Small", 2),
        ("Size 1", 1),
        ("size 2", 0),
    ]:
        create(api, url, name=name, menu_order=menu_order)
    assert names(api, url) == expected


def test_order_follows_an_edit_of_the_attribute(api: TestApp, color: dict[str, Any]) -> None:
    for name in ("b", "a"):
        create(api, name=name)
    assert names(api, URL) == ["a", "b"]
    api.put_json(ATTRIBUTES.url + "/1", {"product_attribute": {"order_by": "id"}})
    assert names(api, URL) == ["b", "a"]
    api.put_json(URL + "/2", {"product_attribute_term": {"menu_order": -1}})
    api.put_json(ATTRIBUTES.url + "/1", {"product_attribute": {"order_by": "menu_order"}})
    assert names(api, URL) == ["a", "b"]


def test_get_checks_in_order(api: TestApp, customer_api: TestApp, color: dict[str, Any]) -> None:
    invalid = (
        400,
        "shop_api_invalid_product_attribute_term_id",
        "Invalid product attribute term ID",
    )
    assert error(customer_api.get(OTHER + "/0", status=400)) == invalid
    assert error(api.get(OTHER + "/0", status=400)) == invalid
    assert error(customer_api.get(OTHER + "/1", status=401))[0] == 401
    assert error(api.get(OTHER + "/1", status=404)) == ATTRIBUTE_NOT_FOUND
    assert error(api.get(OTHER, status=404)) == ATTRIBUTE_NOT_FOUND


def test_a_term_belongs_to_its_attribute(api: TestApp, color: dict[str, Any]) -> None:
    size = add_attribute(api, "Size")
    create(api, ATTRIBUTES.url + f"/{size}/terms", name="S")
    assert names(api, URL) == []
    assert error(api.get(URL + "/1", status=404))[:2] == NOT_FOUND
    response = api.put_json(URL + "/1", {"product_attribute_term": {"name": "X"}}, status=404)
    assert error(response)[:2] == NOT_FOUND
    assert error(api.delete(URL + "/1", status=404))[:2] == NOT_FOUND


# --- edit and delete


def test_edit_checks_in_order(api: TestApp, customer_api: TestApp, color: dict[str, Any]) -> None:
    create(api, name="Red")
    missing = (
        400,
        "shop_api_missing_product_attribute_term_data",
        "No product_attribute_term data specified to edit product_attribute_term",
    )
    assert error(customer_api.put_json(OTHER + "/0", {}, status=400)) == missing
    response = customer_api.put_json(OTHER + "/0", {"product_attribute_term": {}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_edit_product_attribute_terms",
        "You do not have permission to edit product attribute terms",
    )
    response = api.put_json(OTHER + "/0", {"product_attribute_term": {}}, status=404)
    assert error(response) == ATTRIBUTE_NOT_FOUND


def test_delete_under_an_unknown_attribute(api: TestApp, color: dict[str, Any]) -> None:
    create(api, name="Red")
    assert error(api.delete(OTHER + "/1", status=404)) == ATTRIBUTE_NOT_FOUND
