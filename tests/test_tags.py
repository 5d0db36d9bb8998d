"""Product tags through HTTP: every route, default, rule and error code."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql.tables import product_terms, products
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

URL = ROOT + "/products/tags"


def create(api: Any, **fields: Any) -> dict[str, Any]:
    return api.post_json(URL, {"product_tag": fields}, status=201).json["product_tag"]


def tag(id: int, name: str, slug: str, description: str = "", count: int = 0) -> dict[str, Any]:
    return {"id": id, "name": name, "slug": slug, "description": description, "count": count}


def test_create(api: Any) -> None:
    response = api.post_json(URL, {"product_tag": {"name": "Summer Sale"}}, status=201)
    assert list(response.json["product_tag"]) == ["id", "name", "slug", "description", "count"]
    assert response.json == {"product_tag": tag(1, "Summer Sale", "summer-sale")}
    body = create(api, name="Red", slug="Rouge!", description="<i>red</i>", parent=1, image="x")
    assert body == tag(2, "Red", "rouge", "<i>red</i>")


def test_generated_slug_and_duplicates(api: Any) -> None:
    create(api, name="Red", slug="red-colour")
    create(api, name="Blue", slug="red")
    assert create(api, name="Red!")["slug"] == "red-2"
    response = api.post_json(URL, {"product_tag": {"name": "RED"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_tag",
        "A term with the name provided already exists in this taxonomy.",
    )
    response = api.post_json(URL, {"product_tag": {"name": "Green", "slug": "red"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_tag",
        'The slug "red" is already in use by another term.',
    )
    response = api.post_json(URL, {"product_tag": {"name": " "}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_tag",
        "A name is required for this term.",
    )


def test_create_checks_in_order(api: Any, customer_api: Any) -> None:
    missing = (
        400,
        "shop_api_missing_product_tag_data",
        "No product_tag data specified to create product_tag",
    )
    assert error(customer_api.post_json(URL, {"tag": {}}, status=400)) == missing
    assert error(api.post_json(URL, {"product_tag": None}, status=400)) == missing
    response = customer_api.post_json(URL, {"product_tag": {"name": []}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_create_product_tag",
        "You do not have permission to create product tags",
    )
    response = api.post_json(URL, {"product_tag": {"name": "A", "description": 3}}, status=201)
    assert response.json["product_tag"]["description"] == "3"
    response = api.post_json(URL, {"product_tag": {"name": "B", "description": {}}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter product_tag.description: must be a string.",
    )


def test_read(api: Any, customer_api: Any) -> None:
    create(api, name="b")
    create(api, name="A")
    create(api, name="c")
    response = api.get(URL)
    assert response.json == {"product_tags": [tag(2, "A", "a"), tag(1, "b", "b"), tag(3, "c", "c")]}
    check_unpaginated(response, 3)
    assert api.get(URL + "?fields=name").json == {
        "product_tags": [{"name": "A"}, {"name": "b"}, {"name": "c"}]
    }
    assert api.get(f"{URL}/2").json == {"product_tag": tag(2, "A", "a")}
    assert error(api.get(f"{URL}/0", status=400)) == (
        400,
        "shop_api_invalid_product_tag_id",
        "Invalid product tag ID",
    )
    assert error(customer_api.get(f"{URL}/0", status=400))[0] == 400
    assert error(api.get(f"{URL}/9", status=404)) == (
        404,
        "shop_api_invalid_product_tag_id",
        "A product tag with the provided ID could not be found",
    )
    read_denied = (
        401,
        "shop_api_user_cannot_read_product_tags",
        "You do not have permission to read product tags",
    )
    assert error(customer_api.get(URL, status=401)) == read_denied
    assert error(customer_api.get(f"{URL}/9", status=401)) == read_denied


def test_empty_list(api: Any) -> None:
    response = api.get(URL)
    assert response.json == {"product_tags": []}
    check_unpaginated(response, 0)


def test_count(api: Any, engine: sa.Engine) -> None:
    red = create(api, name="Red")
    create(api, name="Blue")
    rows = [
        {"product_id": add_product(engine, status), "term_id": red["id"]}
        for status in ("publish", "draft", "pending", "private", "publish")
    ]
    link(engine, product_terms, rows)
    with statements(api, "product_terms") as seen:
        listed = api.get(URL).json["product_tags"]
    assert listed == [tag(2, "Blue", "blue"), tag(1, "Red", "red", count=2)]
    assert len(seen) == 1
    assert api.get(f"{URL}/1").json["product_tag"]["count"] == 2


def test_edit(api: Any) -> None:
    create(api, name="Red")
    create(api, name="Blue")
    body = api.put_json(f"{URL}/1", {"product_tag": {"name": "Crimson", "description": "d"}})
    assert body.json == {"product_tag": tag(1, "Crimson", "red", "d")}
    body = api.put_json(f"{URL}/1", {"product_tag": {"slug": "crimson"}}).json
    assert body["product_tag"]["slug"] == "crimson"
    failed = (400, "shop_api_cannot_edit_product_tag", "Could not edit the tag")
    for fields in ({"name": "blue"}, {"name": ""}, {"slug": "blue"}):
        assert error(api.put_json(f"{URL}/1", {"product_tag": fields}, status=400)) == failed
    assert api.get(f"{URL}/1").json["product_tag"] == tag(1, "Crimson", "crimson", "d")


def test_edit_checks_in_order(api: Any, customer_api: Any) -> None:
    create(api, name="Red")
    missing = (
        400,
        "shop_api_missing_product_tag",
        "No product_tag data specified to edit product_tag",
    )
    assert error(customer_api.put_json(f"{URL}/9", {}, status=400)) == missing
    response = customer_api.put_json(f"{URL}/9", {"product_tag": {}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_edit_product_tag",
        "You do not have permission to edit product tags",
    )
    assert error(api.put_json(f"{URL}/0", {"product_tag": {}}, status=400))[0] == 400
    assert error(api.put_json(f"{URL}/9", {"product_tag": {}}, status=404))[0] == 404
    response = api.put_json(f"{URL}/1", {"product_tag": {"slug": 5}})
    assert response.json["product_tag"]["slug"] == "5"


def test_delete(api: Any, customer_api: Any, engine: sa.Engine) -> None:
    create(api, name="Red")
    product = add_product(engine)
    link(engine, product_terms, [{"product_id": product, "term_id": 1}])
    response = customer_api.delete(f"{URL}/1", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_delete_product_tag",
        "You do not have permission to delete product tag",
    )
    assert api.delete(f"{URL}/1").json == {"message": "Deleted product_tag"}
    assert count_rows(engine, product_terms) == 0
    assert count_rows(engine, products) == 1
    assert error(api.delete(f"{URL}/1", status=404)) == (
        404,
        "shop_api_invalid_product_tag_id",
        "A product tag with the provided ID could not be found",
    )
    assert error(api.delete(f"{URL}/0", status=400))[1] == "shop_api_invalid_product_tag_id"


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_category_is_not_a_tag(api: Any, method: str) -> None:
    api.post_json(ROOT + "/products/categories", {"product_category": {"name": "C"}})
    if method == "put":
        response = api.put_json(f"{URL}/1", {"product_tag": {"name": "X"}}, status=404)
    else:
        response = getattr(api, method)(f"{URL}/1", status=404)
    assert error(response)[1] == "shop_api_invalid_product_tag_id"


def test_index_lists_the_routes(api: Any) -> None:
    check_index(api, "/products/tags", "/products/tags/<id>")
