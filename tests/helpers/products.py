"""The product tests' requests (create, read, edit, a refused write) and the rows they seed
straight into the database (terms, attributes, tax classes, media)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import attribute_terms, attributes, media, products, tax_classes, terms
from tests.helpers.api import ROOT, error
from tests.helpers.api import create as create_record
from tests.helpers.sql import insert, one_row

URL = ROOT + "/products"
#: ``error()`` of a product route for an id of 0.
INVALID_ID = (404, "shop_api_invalid_product_id", "Invalid product ID.")


def not_found(product_id: int) -> tuple[int, str, str]:
    """``error()`` of a product route for an id no product has."""
    return 404, "shop_api_no_product_found", f"No product found with the ID equal to {product_id}"


def create(api: TestApp, **fields: Any) -> dict[str, Any]:
    return create_record(api, URL, "product", **fields)


def get(api: TestApp, product_id: int) -> dict[str, Any]:
    return api.get(f"{URL}/{product_id}").json["product"]


def edit(api: TestApp, product_id: int, method: str = "put", **fields: Any) -> dict[str, Any]:
    """Edit with ``method`` (put, patch or post), expect 200, return the record."""
    response = getattr(api, f"{method}_json")(
        f"{URL}/{product_id}", {"product": fields}, status=200
    )
    return response.json["product"]


def fails(api: TestApp, body: Any, url: str = URL, method: str = "post") -> tuple[int, str, str]:
    """``error()`` of a write that must fail."""
    response = getattr(api, f"{method}_json")(url, body, status="*")
    assert response.status_int >= 400, response.json
    return error(response)


def row(engine: sa.Engine, product_id: int) -> dict[str, Any]:
    return one_row(engine, products, product_id)


def seed_term(engine: sa.Engine, taxonomy: str, name: str, slug: str | None = None) -> int:
    return insert(engine, terms, taxonomy=taxonomy, name=name, slug=slug or name.lower())


def seed_attribute(engine: sa.Engine, name: str, slug: str) -> int:
    return insert(
        engine,
        attributes,
        name=name,
        slug=slug,
        type="select",
        order_by="menu_order",
        has_archives=False,
    )


def seed_attribute_term(engine: sa.Engine, attribute_id: int, name: str, slug: str) -> int:
    return insert(engine, attribute_terms, attribute_id=attribute_id, name=name, slug=slug)


def seed_tax_class(engine: sa.Engine, slug: str, name: str) -> int:
    return insert(engine, tax_classes, slug=slug, name=name)


def seed_media(engine: sa.Engine, file: str = "2015/01/x.png") -> int:
    now = dt.datetime(2015, 1, 22, 20, 37, 14)
    values = {"file": file, "mime_type": "image/png", "title": "x", "alt": ""}
    return insert(engine, media, **values, created_at=now, updated_at=now)


def listed(api: TestApp, query: str = "", **kwargs: Any) -> list[int]:
    """The ids of ``GET /products?query``, in order."""
    response = api.get(URL + ("?" + query if query else ""), **kwargs)
    return [record["id"] for record in response.json["products"]]
