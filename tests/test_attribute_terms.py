"""Terms of global attributes through HTTP: every route, order, rule and error code."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql.tables import product_attribute_terms
from tests.conftest import ROOT
from tests.test_categories import (
    add_product,
    check_index,
    check_unpaginated,
    count_rows,
    error,
    link,
    statements,
)

ATTRIBUTES = ROOT + "/products/attributes"
URL = ATTRIBUTES + "/1/terms"


@pytest.fixture
def color(api: Any) -> dict[str, Any]:
    body = api.post_json(ATTRIBUTES, {"product_attribute": {"name": "Color"}}, status=201)
    return body.json["product_attribute"]


def add_attribute(api: Any, name: str, order_by: str = "menu_order") -> int:
    body = {"product_attribute": {"name": name, "order_by": order_by}}
    return int(api.post_json(ATTRIBUTES, body, status=201).json["product_attribute"]["id"])


def create(api: Any, url: str = URL, **fields: Any) -> dict[str, Any]:
    body = api.post_json(url, {"product_attribute_term": fields}, status=201).json
    return body["product_attribute_term"]


def term(id: int, name: str, slug: str, count: int = 0) -> dict[str, Any]:
    return {"id": id, "name": name, "slug": slug, "count": count}


def names(api: Any, url: str) -> list[str]:
    return [row["name"] for row in api.get(url).json["product_attribute_terms"]]


NOT_FOUND = (404, "shop_api_invalid_product_attribute_term_id")
ATTRIBUTE_NOT_FOUND = (
    404,
    "shop_api_invalid_product_attribute_id",
    "A product attribute with the provided ID could not be found",
)


# --- create


def test_create(api: Any, color: dict[str, Any]) -> None:
    response = api.post_json(URL, {"product_attribute_term": {"name": "Dark Red"}}, status=201)
    assert list(response.json["product_attribute_term"]) == ["id", "name", "slug", "count"]
    assert response.json == {"product_attribute_term": term(1, "Dark Red", "dark-red")}
    body = create(api, name="Blue", slug="Navy Blue", menu_order="3", description="ignored")
    assert body == term(2, "Blue", "navy-blue")


def test_slugs_are_unique_within_the_attribute(api: Any, color: dict[str, Any]) -> None:
    size = add_attribute(api, "Size")
    create(api, name="Red")
    other = create(api, ATTRIBUTES + f"/{size}/terms", name="Red")
    assert other["slug"] == "red"  # another attribute
    assert create(api, name="Red!", slug="")["slug"] == "red-2"
    response = api.post_json(
        URL, {"product_attribute_term": {"name": "Crimson", "slug": "red"}}, status=400
    )
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_attribute_term",
        'The slug "red" is already in use by another term.',
    )
    response = api.post_json(URL, {"product_attribute_term": {"name": "red!"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_attribute_term",
        "A term with the name provided already exists in this taxonomy.",
    )


@pytest.mark.parametrize("fields", [{}, {"name": ""}, {"name": " <i></i> "}, {"name": None}])
def test_name_required(api: Any, color: dict[str, Any], fields: dict[str, Any]) -> None:
    response = api.post_json(URL, {"product_attribute_term": fields}, status=400)
    assert error(response) == (
        400,
        "shop_api_missing_product_attribute_term_name",
        "Missing parameter name",
    )


def test_create_checks_in_order(api: Any, customer_api: Any, color: dict[str, Any]) -> None:
    missing = (
        400,
        "shop_api_missing_product_attribute_term_data",
        "No product_attribute_term data specified to create product_attribute_term",
    )
    assert error(customer_api.post_json(ATTRIBUTES + "/9/terms", {}, status=400)) == missing
    response = customer_api.post_json(
        ATTRIBUTES + "/9/terms", {"product_attribute_term": {}}, status=401
    )
    assert error(response) == (
        401,
        "shop_api_user_cannot_create_product_attribute_terms",
        "You do not have permission to create product attribute terms",
    )
    response = api.post_json(ATTRIBUTES + "/9/terms", {"product_attribute_term": {}}, status=404)
    assert error(response) == ATTRIBUTE_NOT_FOUND
    response = api.post_json(ATTRIBUTES + "/0/terms", {"product_attribute_term": {}}, status=404)
    assert error(response) == ATTRIBUTE_NOT_FOUND
    response = api.post_json(
        URL, {"product_attribute_term": {"name": "A", "menu_order": "x"}}, status=400
    )
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter product_attribute_term.menu_order: must be an integer.",
    )
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
def test_terms_follow_the_attribute_order(api: Any, order_by: str, expected: list[str]) -> None:
    attribute_id = add_attribute(api, "Size", order_by)
    url = f"{ATTRIBUTES}/{attribute_id}/terms"
    for name, menu_order in [
        ("Size 10", 0),
        ("Size 9", 1),
        ("Small", 2),
        ("Size 1", 1),
        ("size 2", 0),
    ]:
        create(api, url, name=name, menu_order=menu_order)
    assert names(api, url) == expected


def test_order_follows_an_edit_of_the_attribute(api: Any, color: dict[str, Any]) -> None:
    for name in ("b", "a"):
        create(api, name=name)
    assert names(api, URL) == ["a", "b"]
    api.put_json(ATTRIBUTES + "/1", {"product_attribute": {"order_by": "id"}})
    assert names(api, URL) == ["b", "a"]
    api.put_json(URL + "/2", {"product_attribute_term": {"menu_order": -1}})
    api.put_json(ATTRIBUTES + "/1", {"product_attribute": {"order_by": "menu_order"}})
    assert names(api, URL) == ["a", "b"]


def test_read(api: Any, customer_api: Any, color: dict[str, Any], engine: sa.Engine) -> None:
    response = api.get(URL)
    assert response.json == {"product_attribute_terms": []}
    check_unpaginated(response, 0)
    create(api, name="Red")
    create(api, name="Blue")
    published, draft = add_product(engine), add_product(engine, "draft")
    rows = [{"product_id": p, "attribute_term_id": 1} for p in (published, draft)]
    link(engine, product_attribute_terms, rows)
    with statements(api, "product_attribute_terms") as seen:
        response = api.get(URL)
    assert response.json == {
        "product_attribute_terms": [term(2, "Blue", "blue"), term(1, "Red", "red", 1)]
    }
    assert len(seen) == 1
    check_unpaginated(response, 2)
    assert api.get(URL + "?fields=slug").json == {
        "product_attribute_terms": [{"slug": "blue"}, {"slug": "red"}]
    }
    assert api.get(URL + "/1").json == {"product_attribute_term": term(1, "Red", "red", 1)}
    assert api.head(URL + "/1").body == b""
    denied = (
        401,
        "shop_api_user_cannot_read_product_attribute_terms",
        "You do not have permission to read product attribute terms",
    )
    assert error(customer_api.get(URL, status=401)) == denied
    assert error(customer_api.get(URL + "/1", status=401)) == denied


def test_get_checks_in_order(api: Any, customer_api: Any, color: dict[str, Any]) -> None:
    invalid = (
        400,
        "shop_api_invalid_product_attribute_term_id",
        "Invalid product attribute term ID",
    )
    assert error(customer_api.get(ATTRIBUTES + "/9/terms/0", status=400)) == invalid
    assert error(api.get(ATTRIBUTES + "/9/terms/0", status=400)) == invalid
    assert error(customer_api.get(ATTRIBUTES + "/9/terms/1", status=401))[0] == 401
    assert error(api.get(ATTRIBUTES + "/9/terms/1", status=404)) == ATTRIBUTE_NOT_FOUND
    assert error(api.get(ATTRIBUTES + "/9/terms", status=404)) == ATTRIBUTE_NOT_FOUND
    assert error(api.get(URL + "/1", status=404)) == (
        *NOT_FOUND,
        "A product attribute term with the provided ID could not be found",
    )


def test_a_term_belongs_to_its_attribute(api: Any, color: dict[str, Any]) -> None:
    size = add_attribute(api, "Size")
    create(api, ATTRIBUTES + f"/{size}/terms", name="S")
    assert names(api, URL) == []
    assert error(api.get(URL + "/1", status=404))[:2] == NOT_FOUND
    response = api.put_json(URL + "/1", {"product_attribute_term": {"name": "X"}}, status=404)
    assert error(response)[:2] == NOT_FOUND
    assert error(api.delete(URL + "/1", status=404))[:2] == NOT_FOUND


# --- edit


def test_edit(api: Any, color: dict[str, Any]) -> None:
    create(api, name="Red")
    create(api, name="Blue")
    body = api.put_json(URL + "/1", {"product_attribute_term": {"name": "Crimson"}}).json
    assert body == {"product_attribute_term": term(1, "Crimson", "red")}
    body = api.patch_json(URL + "/1", {"product_attribute_term": {"slug": "Crimson"}}).json
    assert body == {"product_attribute_term": term(1, "Crimson", "crimson")}
    for fields, message in [
        ({"name": ""}, "A name is required for this term."),
        ({"name": "blue"}, "A term with the name provided already exists in this taxonomy."),
        ({"slug": "blue"}, 'The slug "blue" is already in use by another term.'),
    ]:
        response = api.put_json(URL + "/1", {"product_attribute_term": fields}, status=400)
        assert error(response) == (400, "shop_api_cannot_edit_product_attribute_term", message)
    assert api.get(URL + "/1").json["product_attribute_term"] == term(1, "Crimson", "crimson")


def test_edit_checks_in_order(api: Any, customer_api: Any, color: dict[str, Any]) -> None:
    create(api, name="Red")
    missing = (
        400,
        "shop_api_missing_product_attribute_term_data",
        "No product_attribute_term data specified to edit product_attribute_term",
    )
    assert error(customer_api.put_json(ATTRIBUTES + "/9/terms/0", {}, status=400)) == missing
    response = customer_api.put_json(
        ATTRIBUTES + "/9/terms/0", {"product_attribute_term": {}}, status=401
    )
    assert error(response) == (
        401,
        "shop_api_user_cannot_edit_product_attribute_terms",
        "You do not have permission to edit product attribute terms",
    )
    response = api.put_json(ATTRIBUTES + "/9/terms/0", {"product_attribute_term": {}}, status=404)
    assert error(response) == ATTRIBUTE_NOT_FOUND
    response = api.put_json(URL + "/0", {"product_attribute_term": {"name": []}}, status=400)
    assert error(response)[1] == "shop_api_invalid_product_attribute_term_id"
    response = api.put_json(URL + "/5", {"product_attribute_term": {"name": []}}, status=404)
    assert error(response)[:2] == NOT_FOUND
    response = api.put_json(URL + "/1", {"product_attribute_term": {"name": []}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter product_attribute_term.name: must be a string.",
    )


# --- delete


def test_delete(api: Any, customer_api: Any, color: dict[str, Any], engine: sa.Engine) -> None:
    create(api, name="Red")
    create(api, name="Blue")
    product = add_product(engine)
    link(engine, product_attribute_terms, [{"product_id": product, "attribute_term_id": 1}])
    response = customer_api.delete(URL + "/1", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_delete_product_attribute_terms",
        "You do not have permission to delete product attribute terms",
    )
    assert error(api.delete(ATTRIBUTES + "/9/terms/1", status=404)) == ATTRIBUTE_NOT_FOUND
    assert api.delete(URL + "/1").json == {"message": "Deleted product_attribute_term"}
    assert count_rows(engine, product_attribute_terms) == 0
    assert names(api, URL) == ["Blue"]
    assert error(api.delete(URL + "/1", status=404))[:2] == NOT_FOUND
    assert (
        error(api.delete(URL + "/0", status=400))[1] == "shop_api_invalid_product_attribute_term_id"
    )


def test_index_lists_the_routes(api: Any) -> None:
    check_index(
        api,
        "/products/attributes/<attribute_id>/terms",
        "/products/attributes/<attribute_id>/terms/<id>",
    )
