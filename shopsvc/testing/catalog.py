"""Inserting catalogue rows directly with SQLAlchemy Core: products, variations, terms,
attributes, images, downloads and reviews — for the product read tests and the benchmark.

Every row gets deterministic defaults: timestamps start at ``BASE_TIME`` and each new product (or
media row) is one minute later than the previous one, so the default list order (newest first)
is the reverse of the creation order.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

from shopsvc.sql.tables import (
    attribute_terms,
    attributes,
    downloads,
    media,
    product_attribute_terms,
    product_attributes,
    product_gallery,
    product_terms,
    products,
    reviews,
    terms,
    variation_attributes,
)
from shopsvc.testing.rows import RowFactory, reading

BASE_TIME = dt.datetime(2024, 1, 2, 3, 4, 5)
Money = Decimal | str | int | None


def _money(value: Money) -> Decimal | None:
    return None if value is None else Decimal(str(value))


class CatalogFactory(RowFactory):
    """Build catalogue rows. Each method runs in its own transaction (or in the connection the
    factory was made from) and returns the new id."""

    def __init__(self, bind: sa.Engine | sa.Connection) -> None:
        super().__init__(bind)
        self.clock = BASE_TIME
        self.counter = 0

    def tick(self) -> dt.datetime:
        self.clock += dt.timedelta(minutes=1)
        return self.clock

    # --- media and terms

    def media(
        self,
        file: str | None = None,
        title: str = "",
        alt: str = "",
        created_at: dt.datetime | None = None,
    ) -> int:
        stamp = created_at or self.tick()
        self.counter += 1
        return self._insert(
            media,
            {
                "file": file or f"2024/01/image-{self.counter}.png",
                "source_url": "",
                "mime_type": "image/png",
                "title": title,
                "alt": alt,
                "created_at": stamp,
                "updated_at": stamp,
            },
        )

    def term(self, taxonomy: str, name: str, slug: str | None = None, **extra: Any) -> int:
        values = {"taxonomy": taxonomy, "name": name, "slug": slug or _slug(name), **extra}
        return self._insert(terms, values)

    def category(self, name: str, slug: str | None = None, **extra: Any) -> int:
        return self.term("product_cat", name, slug, **extra)

    def tag(self, name: str, slug: str | None = None, **extra: Any) -> int:
        return self.term("product_tag", name, slug, **extra)

    def shipping_class(self, name: str, slug: str | None = None) -> int:
        return self.term("product_shipping_class", name, slug)

    def attribute(
        self,
        name: str,
        slug: str | None = None,
        order_by: str = "menu_order",
        type: str = "select",
        has_archives: bool = False,
    ) -> int:
        return self._insert(
            attributes,
            {
                "name": name,
                "slug": slug or _slug(name),
                "type": type,
                "order_by": order_by,
                "has_archives": has_archives,
            },
        )

    def attribute_term(
        self, attribute_id: int, name: str, slug: str | None = None, menu_order: int = 0
    ) -> int:
        return self._insert(
            attribute_terms,
            {
                "attribute_id": attribute_id,
                "name": name,
                "slug": slug or _slug(name),
                "menu_order": menu_order,
            },
        )

    # --- products

    def product(
        self,
        title: str = "Product",
        *,
        type: str = "simple",
        status: str = "publish",
        slug: str | None = None,
        regular_price: Money = None,
        sale_price: Money = None,
        weight: Money = None,
        length: Money = None,
        width: Money = None,
        height: Money = None,
        upsell_ids: Sequence[int] = (),
        cross_sell_ids: Sequence[int] = (),
        default_attributes: Sequence[Mapping[str, Any]] = (),
        created_at: dt.datetime | None = None,
        updated_at: dt.datetime | None = None,
        image_id: int | None = None,
        gallery: Sequence[int] = (),
        categories: Iterable[int] = (),
        tags: Iterable[int] = (),
        attributes: Sequence[Mapping[str, Any]] = (),
        downloads: Sequence[Mapping[str, Any]] = (),
        **columns: Any,
    ) -> int:
        """A product row (any column of ``products`` as a keyword) with its children.

        ``attributes``: dicts ``{"attribute_id": id, "terms": [term ids]}`` (global) or
        ``{"name": "Size", "options": ["S", "M"]}`` (custom), plus optional ``position``,
        ``visible``, ``variation``. ``downloads``: dicts ``{"name", "file"}`` and optional
        ``"id"`` (the download key).
        """
        created = created_at or self.tick()
        values = {
            "type": type,
            "status": status,
            "title": title,
            "slug": slug or _slug(title),
            "regular_price": _money(regular_price),
            "sale_price": _money(sale_price),
            "weight": _money(weight),
            "length": _money(length),
            "width": _money(width),
            "height": _money(height),
            "upsell_ids": json.dumps(list(upsell_ids)),
            "cross_sell_ids": json.dumps(list(cross_sell_ids)),
            "default_attributes": json.dumps(list(default_attributes)),
            "image_id": image_id,
            "created_at": created,
            "updated_at": updated_at or created,
            **columns,
        }
        product_id = self._insert(products, values)
        self.add_gallery(product_id, gallery)
        self.add_terms(product_id, [*categories, *tags])
        for position, attribute in enumerate(attributes):
            self.add_attribute(product_id, attribute, position)
        self.add_downloads(product_id, downloads)
        return product_id

    def variation(
        self,
        parent_id: int,
        values: Mapping[str, str] | None = None,
        title: str | None = None,
        **columns: Any,
    ) -> int:
        """A variation of ``parent_id`` with attribute ``values`` (key → term slug or text)."""
        columns.setdefault("slug", f"product-{parent_id}-variation-{self.counter + 1}")
        columns.setdefault("tax_class", "parent")
        self.counter += 1
        variation_id = self.product(
            title or "Variation", type="variation", parent_id=parent_id, **columns
        )
        self._insert_many(
            variation_attributes,
            [
                {"variation_id": variation_id, "attribute_key": key, "value": value}
                for key, value in (values or {}).items()
            ],
        )
        return variation_id

    def add_gallery(self, product_id: int, media_ids: Sequence[int]) -> None:
        self._insert_many(
            product_gallery,
            [
                {"product_id": product_id, "position": position, "media_id": media_id}
                for position, media_id in enumerate(media_ids)
            ],
        )

    def add_terms(self, product_id: int, term_ids: Iterable[int]) -> None:
        self._insert_many(
            product_terms, [{"product_id": product_id, "term_id": t} for t in term_ids]
        )

    def add_attribute(self, product_id: int, attribute: Mapping[str, Any], position: int) -> int:
        global_id = attribute.get("attribute_id")
        row_id = self._insert(
            product_attributes,
            {
                "product_id": product_id,
                "attribute_id": global_id,
                "name": attribute.get("name", ""),
                "position": attribute.get("position", position),
                "visible": attribute.get("visible", True),
                "is_variation": attribute.get("variation", False),
                "options": json.dumps(list(attribute.get("options", []))),
            },
        )
        if global_id is not None:
            self._insert_many(
                product_attribute_terms,
                [
                    {"product_id": product_id, "attribute_term_id": term_id}
                    for term_id in attribute.get("terms", [])
                ],
            )
        return row_id

    def add_downloads(self, product_id: int, items: Sequence[Mapping[str, Any]]) -> None:
        self._insert_many(
            downloads,
            [
                {
                    "product_id": product_id,
                    "download_key": item.get("id", f"key-{product_id}-{position}"),
                    "name": item.get("name", ""),
                    "file": item["file"],
                    "position": position,
                }
                for position, item in enumerate(items)
            ],
        )

    def review(
        self,
        product_id: int,
        rating: int | None = 5,
        review: str = "Great.",
        reviewer_name: str = "Ann",
        reviewer_email: str = "ann@example.com",
        verified: bool = False,
        approved: bool = True,
        created_at: dt.datetime | None = None,
    ) -> int:
        return self._insert(
            reviews,
            {
                "product_id": product_id,
                "rating": rating,
                "review": review,
                "reviewer_name": reviewer_name,
                "reviewer_email": reviewer_email,
                "verified": verified,
                "approved": approved,
                "created_at": created_at or self.tick(),
            },
        )

    def get(self, product_id: int) -> dict[str, Any] | None:
        """The stored ``products`` row."""
        query = sa.select(products).where(products.c.id == product_id)
        with reading(self.bind) as conn:
            found = conn.execute(query).mappings().first()
        return dict(found) if found else None


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())
