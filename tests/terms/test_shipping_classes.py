"""What only product shipping classes do: their fields, the products that use a class through
``shipping_class_id`` (variations count, a deleted class is cleared from its products) and an
unknown parent on edit. The rest is in ``test_common.py``."""

from __future__ import annotations

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import products
from tests.helpers.api import error
from tests.helpers.sql import add_product, statements
from tests.helpers.terms import SHIPPING_CLASSES

URL = SHIPPING_CLASSES.url
create = SHIPPING_CLASSES.create
shipping_class = SHIPPING_CLASSES.record


def shipping_class_ids(engine: sa.Engine) -> list[int | None]:
    with engine.connect() as conn:
        query = sa.select(products.c.shipping_class_id).order_by(products.c.id)
        return [row[0] for row in conn.execute(query)]


def test_create_with_every_field(api: TestApp) -> None:
    create(api, name="Bulky")
    body = create(api, name="Very bulky", slug="XL", description="d", parent=1, display="x")
    assert body == shipping_class(2, "Very bulky", "xl", parent=1, description="d")


def test_count_of_products_and_variations(api: TestApp, engine: sa.Engine) -> None:
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
    assert api.get(URL + "?fields=slug,count").json["product_shipping_classes"][0] == {
        "slug": "bulky",
        "count": 2,
    }
    assert api.get(f"{URL}/1").json == {
        "product_shipping_class": shipping_class(1, "Bulky", "bulky", count=2)
    }


def test_edit_with_an_unknown_parent(api: TestApp) -> None:
    # categories answer shop_api_invalid_product_category_parent here (see test_categories.py)
    create(api, name="Bulky")
    create(api, name="Light")
    response = api.put_json(f"{URL}/2", {"product_shipping_class": {"parent": 5}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_edit_product_shipping_class",
        "Could not edit the shipping class",
    )


def test_delete_clears_the_class_of_its_products(api: TestApp, engine: sa.Engine) -> None:
    create(api, name="Bulky")
    create(api, name="Huge", parent=1)
    add_product(engine, shipping_class_id=1)
    add_product(engine, shipping_class_id=2)
    assert api.delete(f"{URL}/1").json == {"message": "Deleted product_shipping_class"}
    assert shipping_class_ids(engine) == [None, 2]
    assert api.get(f"{URL}/2").json["product_shipping_class"]["parent"] == 0
