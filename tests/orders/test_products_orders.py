"""``GET /products/<id>/orders``: the orders with a line of the product or variation, through
the order list (its parameters and headers), ``filter[in]`` forced; the product's validation."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql import orders as orders_sql
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import authorised, error, paging_headers
from tests.helpers.orders import OrderFactory, ids
from tests.helpers.products import INVALID_ID, URL
from tests.helpers.products import not_found as product_not_found


@pytest.fixture
def seeded(engine: sa.Engine, factory: OrderFactory) -> dict[str, int]:
    catalog = CatalogFactory(engine)
    shirt = catalog.product("Shirt", type="variable")
    red = catalog.variation(shirt, {"color": "red"}, regular_price="5")
    mug = catalog.product("Mug", regular_price="3")
    lonely = catalog.product("Lonely", regular_price="1")
    with_mug = factory.order(status="completed")
    factory.line(with_mug, product_id=mug)
    with_red = factory.order()
    factory.line(with_red, product_id=shirt, variation_id=red)
    factory.line(with_red, product_id=mug)
    with_shirt = factory.order(status="trash")
    factory.line(with_shirt, product_id=shirt)
    shipping_only = factory.order()
    factory.shipping(shipping_only)
    return {
        "shirt": shirt,
        "red": red,
        "mug": mug,
        "lonely": lonely,
        "with_mug": with_mug,
        "with_red": with_red,
        "with_shirt": with_shirt,
    }


def test_orders_of_a_product(api: TestApp, seeded: dict[str, int]) -> None:
    mug = api.get(f"{URL}/{seeded['mug']}/orders")
    assert ids(mug) == [seeded["with_red"], seeded["with_mug"]]
    assert paging_headers(mug) == {"X-Shop-Total": "2", "X-Shop-TotalPages": "1"}
    assert (
        mug.json["orders"][0] == api.get(f"/shop-api/v3/orders/{seeded['with_red']}").json["order"]
    )
    # a line stores the parent and the variation: either finds it (decisions §7 "Line items")
    assert ids(api.get(f"{URL}/{seeded['red']}/orders")) == [seeded["with_red"]]
    assert ids(api.get(f"{URL}/{seeded['shirt']}/orders")) == [seeded["with_red"]]
    trashed = api.get(f"{URL}/{seeded['shirt']}/orders", params={"status": "trash"})
    assert ids(trashed) == [seeded["with_shirt"]]


def test_list_parameters_apply_and_filter_in_is_forced(
    api: TestApp, seeded: dict[str, int]
) -> None:
    url = f"{URL}/{seeded['mug']}/orders"
    assert ids(api.get(url, params={"status": "completed"})) == [seeded["with_mug"]]
    forced = api.get(url, params={"filter[in]": str(seeded["with_shirt"])})
    assert ids(forced) == [seeded["with_red"], seeded["with_mug"]]
    page = api.get(url, params={"filter[limit]": "1", "page": "2", "fields": "id"})
    assert page.json == {"orders": [{"id": seeded["with_mug"]}]}
    assert paging_headers(page) == {"X-Shop-Total": "2", "X-Shop-TotalPages": "2"}


def test_no_orders_is_an_empty_list_with_its_headers(api: TestApp, seeded: dict[str, int]) -> None:
    """decisions.md §2: every list carries the paging headers (no results: TotalPages 0)."""
    response = api.get(f"{URL}/{seeded['lonely']}/orders")
    assert response.json == {"orders": []}
    assert paging_headers(response) == {"X-Shop-Total": "0", "X-Shop-TotalPages": "0"}


def test_product_validation(
    app: TestApp, api: TestApp, make_key: Any, seeded: dict[str, int]
) -> None:
    assert error(api.get(f"{URL}/0/orders", status=404)) == INVALID_ID
    missing = seeded["lonely"] + 100
    assert error(api.get(f"{URL}/{missing}/orders", status=404)) == product_not_found(missing)
    customer = authorised(app, make_key("customer", "read"))
    assert error(customer.get(f"{URL}/{seeded['mug']}/orders", status=401))[1] == (
        "shop_api_user_cannot_read_product"
    )


def test_order_ids_with_product(engine: sa.Engine, seeded: dict[str, int]) -> None:
    """The SQL helper (any status, parent or variation id)."""
    with engine.connect() as conn:
        assert orders_sql.order_ids_with_product(conn, seeded["shirt"]) == sorted(
            [seeded["with_red"], seeded["with_shirt"]]
        )
        assert orders_sql.order_ids_with_product(conn, seeded["red"]) == [seeded["with_red"]]
        assert orders_sql.order_ids_with_product(conn, seeded["lonely"]) == []
