"""DELETE /products/<id>: trash (202) and permanent delete (200), of products and variations,
with the order of the shared record validation's errors."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import product_gallery, product_terms, products, reviews
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import authorised, error, errors
from tests.helpers.products import INVALID_ID, URL, not_found

CREATED = dt.datetime(2024, 1, 1, 12, 0, 0)


def row(factory: CatalogFactory, product_id: int) -> dict[str, Any] | None:
    return factory.get(product_id)


def count_rows(engine: sa.Engine, table: sa.Table, product_id: int) -> int:
    with engine.connect() as conn:
        query = sa.select(sa.func.count()).where(table.c.product_id == product_id)
        return int(conn.execute(query).scalar_one())


def test_trash_a_product(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Mug", status="private", created_at=CREATED, updated_at=CREATED)
    response = api.delete(f"{URL}/{product}")
    assert response.status_int == 202
    assert response.json == {"message": "Deleted product"}
    stored = row(factory, product)
    assert stored is not None
    assert (stored["status"], stored["status_before_trash"]) == ("trash", "private")
    assert stored["updated_at"] > CREATED
    # still readable by id, gone from the default list, listed with post_status=trash
    assert api.get(f"{URL}/{product}").json["product"]["status"] == "trash"
    assert api.get(URL).json["products"] == []
    listed = api.get(URL, params={"filter[post_status]": "trash"}).json["products"]
    assert [p["id"] for p in listed] == [product]


def test_trash_a_variable_product_trashes_its_variations(
    api: TestApp, factory: CatalogFactory
) -> None:
    variable = factory.product("Tee", type="variable")
    published = factory.variation(variable, {}, regular_price="1")
    private = factory.variation(variable, {}, regular_price="1", status="private")
    api.delete(f"{URL}/{variable}", status=202)
    for variation, before in ((published, "publish"), (private, "private")):
        stored = row(factory, variation)
        assert stored is not None
        assert (stored["status"], stored["status_before_trash"]) == ("trash", before)
    assert api.get(f"{URL}/{variable}").json["product"]["variations"] == []


def test_trashing_a_trashed_product_changes_nothing(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product(
        "Old",
        status="trash",
        status_before_trash="draft",
        created_at=CREATED,
        updated_at=CREATED,
    )
    response = api.delete(f"{URL}/{product}", status=202)
    assert response.json == {"message": "Deleted product"}
    stored = row(factory, product)
    assert stored is not None
    assert (stored["status"], stored["status_before_trash"], stored["updated_at"]) == (
        "trash",
        "draft",
        CREATED,
    )


@pytest.mark.parametrize("force", ["true", "TRUE", "1", "yes", "Yes"])
def test_force_deletes_permanently(
    api: TestApp, factory: CatalogFactory, engine: sa.Engine, force: str
) -> None:
    tag = factory.tag("Red")
    image = factory.media()
    product = factory.product("Mug", tags=[tag], gallery=[image])
    factory.review(product)
    response = api.delete(f"{URL}/{product}?force={force}")
    assert response.status_int == 200
    assert response.json == {"message": "Permanently deleted product"}
    assert row(factory, product) is None
    for table in (product_terms, product_gallery, reviews):
        assert count_rows(engine, table, product) == 0
    errors_ = errors(api.get(f"{URL}/{product}", status=404))
    assert errors_[0]["code"] == "shop_api_no_product_found"


@pytest.mark.parametrize("force", ["false", "0", "", "no", "please", "2"])
def test_anything_but_a_true_force_trashes(
    api: TestApp, factory: CatalogFactory, force: str
) -> None:
    product = factory.product("Mug")
    response = api.delete(f"{URL}/{product}", params={"force": force})
    assert response.status_int == 202
    stored = row(factory, product)
    assert stored is not None and stored["status"] == "trash"


def test_force_delete_removes_variations_and_detaches_grouped_children(
    api: TestApp, factory: CatalogFactory
) -> None:
    variable = factory.product("Tee", type="variable")
    variations = [factory.variation(variable, {}, regular_price="1") for _ in range(2)]
    group = factory.product("Set", type="grouped")
    child = factory.product("Spoon", parent_id=group)
    api.delete(f"{URL}/{variable}?force=true", status=200)
    assert all(row(factory, v) is None for v in variations)
    api.delete(f"{URL}/{group}?force=true", status=200)
    stored = row(factory, child)
    assert stored is not None
    assert stored["parent_id"] is None
    record = api.get(f"{URL}/{child}").json["product"]
    assert (record["parent_id"], record["parent"]) == (0, {})


def test_force_delete_of_a_trashed_product(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Old", status="trash")
    api.delete(f"{URL}/{product}?force=true", status=200)
    assert row(factory, product) is None


def test_delete_a_variation(api: TestApp, factory: CatalogFactory) -> None:
    variable = factory.product("Tee", type="variable")
    kept = factory.variation(variable, {}, regular_price="1")
    trashed = factory.variation(variable, {}, regular_price="2")
    deleted = factory.variation(variable, {}, regular_price="3")
    api.delete(f"{URL}/{trashed}", status=202)
    api.delete(f"{URL}/{deleted}?force=true", status=200)
    stored = row(factory, trashed)
    assert stored is not None and stored["status"] == "trash"
    assert row(factory, deleted) is None
    parent = row(factory, variable)
    assert parent is not None and parent["status"] == "publish"
    record = api.get(f"{URL}/{variable}").json["product"]
    assert [v["id"] for v in record["variations"]] == [kept]


def test_delete_errors_in_order(
    api: TestApp, customer_api: TestApp, factory: CatalogFactory
) -> None:
    product = factory.product("Mug")
    assert error(api.delete(f"{URL}/0", status=404)) == INVALID_ID
    assert error(api.delete(f"{URL}/{product + 1}", status=404)) == not_found(product + 1)
    assert error(customer_api.delete(f"{URL}/0", status=404)) == INVALID_ID
    response = customer_api.delete(f"{URL}/{product + 1}?force=true", status=404)
    assert error(response) == not_found(product + 1)
    assert errors(customer_api.delete(f"{URL}/{product}?force=true", status=401)) == [
        {
            "code": "shop_api_user_cannot_delete_product",
            "message": "You do not have permission to delete this product.",
        }
    ]
    stored = row(factory, product)
    assert stored is not None and stored["status"] == "publish"


def test_delete_needs_a_write_key(make_key: Any, app: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Mug")
    reader = authorised(app, make_key("administrator", "read"))
    response = reader.delete(f"{URL}/{product}", status=401)
    assert errors(response)[0]["code"] == "shop_api_authentication_error"
    with factory.bind.connect() as conn:  # type: ignore[union-attr]
        status = conn.execute(
            sa.select(products.c.status).where(products.c.id == product)
        ).scalar_one()
    assert status == "publish"


def test_deleting_a_variation_resyncs_the_parent_stock_status(
    api: TestApp, factory: CatalogFactory
) -> None:
    variable = factory.product("Tee", type="variable", stock_status="instock")
    in_stock = factory.variation(variable, {}, regular_price="1", stock_status="instock")
    backorder = factory.variation(variable, {}, regular_price="1", stock_status="onbackorder")
    sold_out = factory.variation(variable, {}, regular_price="1", stock_status="outofstock")
    api.delete(f"{URL}/{in_stock}", status=202)
    assert api.get(f"{URL}/{variable}").json["product"]["in_stock"] is True
    stored = row(factory, variable)
    assert stored is not None and stored["stock_status"] == "onbackorder"
    api.delete(f"{URL}/{backorder}?force=true", status=200)
    stored = row(factory, variable)
    assert stored is not None and stored["stock_status"] == "outofstock"
    assert api.get(f"{URL}/{variable}").json["product"]["in_stock"] is False
    assert row(factory, sold_out) is not None


def test_parent_managed_stock_counts_for_variations_that_do_not_manage(
    api: TestApp, factory: CatalogFactory
) -> None:
    variable = factory.product(
        "Tee", type="variable", manage_stock=True, stock_quantity=4, stock_status="instock"
    )
    own = factory.variation(
        variable,
        {},
        regular_price="1",
        manage_stock=True,
        stock_quantity=0,
        stock_status="outofstock",
    )
    follows_parent = factory.variation(variable, {}, regular_price="1", stock_status="outofstock")
    api.delete(f"{URL}/{own}?force=true", status=200)
    stored = row(factory, variable)
    assert stored is not None and stored["stock_status"] == "instock"
    record = api.get(f"{URL}/{follows_parent}").json["product"]
    assert (record["managing_stock"], record["stock_quantity"]) == (True, 4)
