"""What the order write tests share: routes, requests, seeded rows (products, tax rates) and
reading rows back. (No tests here.)"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import (
    customer_profiles,
    order_items,
    order_notes,
    orders,
    products,
    tax_rates,
)
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import ROOT, error
from tests.helpers.sql import count_rows, insert, one_row

URL = ROOT + "/orders"
BULK = URL + "/bulk"
US = {"country": "US", "state": "CA", "postcode": "90210", "city": "Beverly Hills"}


def create(api: TestApp, **fields: Any) -> dict[str, Any]:
    """POST an order, expect 201, return the record."""
    return api.post_json(URL, {"order": fields}, status=201).json["order"]


def edit(api: TestApp, order_id: int, method: str = "put", **fields: Any) -> dict[str, Any]:
    response = getattr(api, f"{method}_json")(f"{URL}/{order_id}", {"order": fields}, status=200)
    return response.json["order"]


def get(api: TestApp, order_id: int) -> dict[str, Any]:
    return api.get(f"{URL}/{order_id}").json["order"]


def fails(api: TestApp, body: Any, url: str = URL, method: str = "post") -> tuple[int, str, str]:
    response = getattr(api, f"{method}_json")(url, body, status="*")
    assert response.status_int >= 400, response.json
    return error(response)


def rate(engine: sa.Engine, percent: str = "10", **columns: Any) -> int:
    """A tax rate of the standard class (every location unless ``country`` etc. are given)."""
    values = {
        "country": "",
        "state": "",
        "rate": Decimal(percent),
        "name": "Tax",
        "priority": 1,
        "compound": False,
        "shipping": True,
        "rate_order": 0,
        **columns,
    }
    return insert(engine, tax_rates, **values)


def product(
    engine: sa.Engine, title: str = "Thing", price: str | None = "10", **columns: Any
) -> int:
    return CatalogFactory(engine).product(title, regular_price=price, **columns)


def stock_of(engine: sa.Engine, product_id: int) -> int | None:
    return one_row(engine, products, product_id)["stock_quantity"]


def order_row(engine: sa.Engine, order_id: int) -> dict[str, Any]:
    return one_row(engine, orders, order_id)


def notes(engine: sa.Engine, order_id: int) -> list[str]:
    with engine.connect() as conn:
        query = (
            sa.select(order_notes.c.note)
            .where(order_notes.c.order_id == order_id)
            .order_by(order_notes.c.id)
        )
        return list(conn.execute(query).scalars())


def counts(engine: sa.Engine) -> tuple[int, int, int, int]:
    """How many orders, items, notes and customer profiles there are."""
    return (
        count_rows(engine, orders),
        count_rows(engine, order_items),
        count_rows(engine, order_notes),
        count_rows(engine, customer_profiles),
    )
