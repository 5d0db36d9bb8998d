"""Product shipping classes through HTTP: every route, default, rule and error code."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from shopsvc.sql.tables import products
from tests.conftest import ROOT
from tests.test_categories import (
    add_product,
    check_index,
    check_unpaginated,
    error,
    statements,
)

URL = ROOT + "/products/shipping_classes"
KEYS = ["id", "name", "slug", "parent", "description", "count"]


def create(api: Any, **fields: Any) -> dict[str, Any]:
    body = api.post_json(URL, {"product_shipping_class": fields}, status=201).json
    return body["product_shipping_class"]


def shipping_class(id: int, name: str, slug: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": id,
        "name": name,
        "slug": slug,
        "parent": 0,
        "description": "",
        "count": 0,
    } | fields


def shipping_class_ids(engine: sa.Engine) -> list[int | None]:
    with engine.connect() as conn:
        query = sa.select(products.c.shipping_class_id).order_by(products.c.id)
        return [row[0] for row in conn.execute(query)]


def test_create(api: Any) -> None:
    response = api.post_json(URL, {"product_shipping_class": {"name": "Bulky"}}, status=201)
    assert list(response.json["product_shipping_class"]) == KEYS
    assert response.json == {"product_shipping_class": shipping_class(1, "Bulky", "bulky")}
    body = create(api, name="Very bulky", slug="XL", description="d", parent=1, display="x")
    assert body == shipping_class(2, "Very bulky", "xl", parent=1, description="d")


def test_create_rules(api: Any) -> None:
    create(api, name="Bulky")
    response = api.post_json(
        URL, {"product_shipping_class": {"name": "A", "parent": 3}}, status=400
    )
    assert error(response) == (
        400,
        "shop_api_invalid_product_shipping_class_parent",
        "Product shipping class parent is invalid",
    )
    response = api.post_json(URL, {"product_shipping_class": {"name": "bulky"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_shipping_class",
        "A term with the name provided already exists with this parent.",
    )
    response = api.post_json(URL, {"product_shipping_class": {"name": ""}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_shipping_class",
        "A name is required for this term.",
    )
    response = api.post_json(
        URL, {"product_shipping_class": {"name": "Big", "slug": "bulky"}}, status=400
    )
    assert error(response)[1:] == (
        "shop_api_cannot_create_product_shipping_class",
        'The slug "bulky" is already in use by another term.',
    )
    assert create(api, name="Bulky", parent=1)["slug"] == "bulky-2"


def test_create_checks_in_order(api: Any, customer_api: Any) -> None:
    missing = (
        400,
        "shop_api_missing_product_shipping_class_data",
        "No product_shipping_class data specified to create product_shipping_class",
    )
    assert error(customer_api.post_json(URL, {}, status=400)) == missing
    response = customer_api.post_json(URL, {"product_shipping_class": {"parent": 9}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_create_product_shipping_class",
        "You do not have permission to create product shipping classes",
    )
    response = api.post_json(URL, {"product_shipping_class": {"parent": []}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter product_shipping_class.parent: must be an integer.",
    )


def test_read(api: Any, customer_api: Any, engine: sa.Engine) -> None:
    response = api.get(URL)
    assert response.json == {"product_shipping_classes": []}
    check_unpaginated(response, 0)
    bulky = create(api, name="Bulky")
    light = create(api, name="Light")
    create(api, name="Fragile")
    for status, class_id in [
        ("publish", bulky["id"]),
        ("publish", bulky["id"]),
        ("draft", bulky["id"]),
        ("private", light["id"]),
        ("publish", None),
    ]:
        add_product(engine, status, shipping_class_id=class_id)
    parent = add_product(engine)
    add_product(
        engine, "publish", type="variation", parent_id=parent, shipping_class_id=light["id"]
    )
    with statements(api, "shipping_class_id") as seen:
        response = api.get(URL)
    assert response.json == {
        "product_shipping_classes": [
            shipping_class(1, "Bulky", "bulky", count=2),
            shipping_class(3, "Fragile", "fragile"),
            shipping_class(2, "Light", "light", count=1),
        ]
    }
    assert len(seen) == 1
    check_unpaginated(response, 3)
    assert api.get(URL + "?fields=slug,count").json["product_shipping_classes"][0] == {
        "slug": "bulky",
        "count": 2,
    }
    assert api.get(f"{URL}/1").json == {
        "product_shipping_class": shipping_class(1, "Bulky", "bulky", count=2)
    }
    assert error(customer_api.get(f"{URL}/0", status=400)) == (
        400,
        "shop_api_invalid_product_shipping_class_id",
        "Invalid product shipping class ID",
    )
    assert error(api.get(f"{URL}/8", status=404)) == (
        404,
        "shop_api_invalid_product_shipping_class_id",
        "A product shipping class with the provided ID could not be found",
    )
    denied = (
        401,
        "shop_api_user_cannot_read_product_shipping_classes",
        "You do not have permission to read product shipping classes",
    )
    assert error(customer_api.get(URL, status=401)) == denied
    assert error(customer_api.get(f"{URL}/1", status=401)) == denied


def test_edit(api: Any, customer_api: Any) -> None:
    create(api, name="Bulky")
    create(api, name="Light")
    body = api.put_json(f"{URL}/2", {"product_shipping_class": {"parent": 1, "name": "Lite"}})
    assert body.json == {"product_shipping_class": shipping_class(2, "Lite", "light", parent=1)}
    failed = (
        400,
        "shop_api_cannot_edit_product_shipping_class",
        "Could not edit the shipping class",
    )
    for fields in ({"parent": 5}, {"parent": 2}, {"name": ""}, {"slug": "bulky"}):
        response = api.put_json(f"{URL}/2", {"product_shipping_class": fields}, status=400)
        assert error(response) == failed
    response = api.put_json(f"{URL}/1", {"product_shipping_class": {"parent": 2}}, status=400)
    assert error(response) == failed  # a loop
    missing = (
        400,
        "shop_api_missing_product_shipping_class",
        "No product_shipping_class data specified to edit product_shipping_class",
    )
    assert error(customer_api.put_json(f"{URL}/2", {}, status=400)) == missing
    response = customer_api.put_json(f"{URL}/2", {"product_shipping_class": {}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_edit_product_shipping_class",
        "You do not have permission to edit product shipping classes",
    )
    response = api.put_json(f"{URL}/0", {"product_shipping_class": {}}, status=400)
    assert error(response)[1] == "shop_api_invalid_product_shipping_class_id"
    response = api.put_json(f"{URL}/3", {"product_shipping_class": {}}, status=404)
    assert error(response)[1] == "shop_api_invalid_product_shipping_class_id"


def test_delete(api: Any, customer_api: Any, engine: sa.Engine) -> None:
    create(api, name="Bulky")
    create(api, name="Huge", parent=1)
    add_product(engine, shipping_class_id=1)
    add_product(engine, shipping_class_id=2)
    response = customer_api.delete(f"{URL}/1", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_delete_product_shipping_class",
        "You do not have permission to delete product shipping classes",
    )
    assert api.delete(f"{URL}/1").json == {"message": "Deleted product_shipping_class"}
    assert shipping_class_ids(engine) == [None, 2]
    assert api.get(f"{URL}/2").json["product_shipping_class"]["parent"] == 0
    assert error(api.delete(f"{URL}/1", status=404)) == (
        404,
        "shop_api_invalid_product_shipping_class_id",
        "A product shipping class with the provided ID could not be found",
    )
    assert error(api.delete(f"{URL}/0", status=400))[0] == 400


def test_index_lists_the_routes(api: Any) -> None:
    check_index(api, "/products/shipping_classes", "/products/shipping_classes/<id>")
