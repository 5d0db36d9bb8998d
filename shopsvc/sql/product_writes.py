"""Writes of products and variations, one product at a time: the product row, its SKU, the
trash, stock and sales, gallery, terms, attributes, variation values and downloads, and deleting
a product.

Everything runs on the caller's connection and transaction (``shopsvc.writers``); what the
writers read first is in ``sql.product_lookups``. Names follow one verb set: ``insert_…``,
``update_…`` (an ``update`` of a child list replaces it whole) and ``delete_…``. The SKU is
written on its own in a SAVEPOINT, so that the unique index ``uq_products_sku`` (lower-cased SKU
of the products and variations that are not in the trash) refusing it is reported as ``False``
rather than aborting the transaction: the caller answers with the spec's 400, even when a
concurrent request won the race between the check and the write. Attribute terms are created the
same way (a concurrent request may create the same term first).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Connection,
    delete,
    func,
    insert,
    select,
    update,
)

from shopsvc.sql.common import in_savepoint, insert_all
from shopsvc.sql.tables import (
    attribute_terms,
    downloads,
    product_attribute_terms,
    product_attributes,
    product_gallery,
    product_terms,
    products,
    terms,
    variation_attributes,
)

# --- the product row


def insert_product(conn: Connection, values: Mapping[str, Any]) -> int:
    """A new product (or variation) row from ``values`` by column name; its id."""
    statement = insert(products).values(**values).returning(products.c.id)
    return int(conn.execute(statement).scalar_one())


def update_product(conn: Connection, product_id: int, values: Mapping[str, Any]) -> None:
    if values:
        conn.execute(update(products).where(products.c.id == product_id).values(**values))


# --- SKU and trash


def update_sku(conn: Connection, product_id: int, sku: str | None) -> bool:
    """Set the SKU (None clears it) in a savepoint; False when the unique index refused it."""
    statement = update(products).where(products.c.id == product_id).values(sku=sku)
    return in_savepoint(conn, lambda: conn.execute(statement)) is not False


def update_product_guarded(conn: Connection, product_id: int, values: Mapping[str, Any]) -> bool:
    """``update_product`` in a savepoint; False when the SKU index refused it (e.g. a trashed
    variation whose SKU is now used elsewhere coming back)."""
    return in_savepoint(conn, lambda: update_product(conn, product_id, values)) is not False


def update_to_trash(conn: Connection, product_id: int, now: dt.datetime) -> bool:
    """Move a product (and, for a variable product, its variations) to the trash, keeping each
    one's status in ``status_before_trash``; True when the product was moved."""
    moved = conn.execute(
        update(products)
        .where(products.c.id == product_id, products.c.status != "trash")
        .values(status_before_trash=products.c.status, status="trash", updated_at=now)
    ).rowcount
    if moved:
        conn.execute(
            update(products)
            .where(
                products.c.parent_id == product_id,
                products.c.type == "variation",
                products.c.status != "trash",
            )
            .values(status_before_trash=products.c.status, status="trash", updated_at=now)
        )
    return moved > 0


def update_from_trash(conn: Connection, product_id: int, status: str, stamp: dt.datetime) -> bool:
    """Take a trashed product out of the trash with ``status``, and its trashed variations with
    the status each had; in a savepoint, False when a SKU of theirs is now used elsewhere."""

    def restore() -> None:
        conn.execute(
            update(products)
            .where(products.c.id == product_id)
            .values(status=status, status_before_trash=None, updated_at=stamp)
        )
        conn.execute(
            update(products)
            .where(
                products.c.parent_id == product_id,
                products.c.type == "variation",
                products.c.status == "trash",
            )
            .values(
                status=func.coalesce(products.c.status_before_trash, "publish"),
                status_before_trash=None,
                updated_at=stamp,
            )
        )

    return in_savepoint(conn, restore) is not False


def delete_product(conn: Connection, product_id: int) -> bool:
    """Delete a product for good: its variations are deleted, other children detached (their
    ``parent_id`` cleared); child rows (gallery, terms, attributes, downloads, reviews) go by
    cascade. True when the product existed."""
    conn.execute(
        delete(products).where(products.c.parent_id == product_id, products.c.type == "variation")
    )
    conn.execute(update(products).where(products.c.parent_id == product_id).values(parent_id=None))
    return conn.execute(delete(products).where(products.c.id == product_id)).rowcount > 0


# --- stock and sales


def update_stock(conn: Connection, product_id: int, quantity: int, status: str) -> None:
    """Store a stock-managed product's new quantity and the status it gives."""
    conn.execute(
        update(products)
        .where(products.c.id == product_id)
        .values(stock_quantity=quantity, stock_status=status)
    )


def update_total_sales(conn: Connection, product_id: int, delta: int) -> None:
    """Add ``delta`` to a product's ``total_sales`` (an order's lines, once)."""
    conn.execute(
        update(products)
        .where(products.c.id == product_id)
        .values(total_sales=products.c.total_sales + delta)
    )


def update_stock_status(conn: Connection, product_id: int, status: str) -> None:
    conn.execute(update(products).where(products.c.id == product_id).values(stock_status=status))


# --- images and terms


def update_gallery(conn: Connection, product_id: int, media_ids: Sequence[int]) -> None:
    conn.execute(delete(product_gallery).where(product_gallery.c.product_id == product_id))
    rows = [
        {"product_id": product_id, "position": position, "media_id": media_id}
        for position, media_id in enumerate(media_ids)
    ]
    if rows:
        insert_all(conn, product_gallery, rows)


def update_terms(conn: Connection, product_id: int, taxonomy: str, ids: Sequence[int]) -> None:
    """Make ``ids`` the product's terms of ``taxonomy`` (its other taxonomies are untouched)."""
    of_taxonomy = select(terms.c.id).where(terms.c.taxonomy == taxonomy)
    conn.execute(
        delete(product_terms).where(
            product_terms.c.product_id == product_id, product_terms.c.term_id.in_(of_taxonomy)
        )
    )
    rows = [{"product_id": product_id, "term_id": term_id} for term_id in dict.fromkeys(ids)]
    if rows:
        insert_all(conn, product_terms, rows)


# --- attributes


def insert_attribute_term(conn: Connection, attribute_id: int, name: str, slug: str) -> int | None:
    """A new term of a global attribute, in a savepoint; None when its slug was taken meanwhile."""
    statement = (
        insert(attribute_terms)
        .values(attribute_id=attribute_id, name=name, slug=slug)
        .returning(attribute_terms.c.id)
    )
    term_id = in_savepoint(conn, lambda: int(conn.execute(statement).scalar_one()))
    return None if term_id is False else term_id


@dataclass
class AttributeRow:
    """One attribute of a product as stored: global (``attribute_id`` and ``term_ids``) or custom
    (``name`` and ``options``)."""

    attribute_id: int | None
    name: str
    position: int
    visible: bool
    variation: bool
    options: list[str] = field(default_factory=list)
    term_ids: list[int] = field(default_factory=list)


def update_attributes(conn: Connection, product_id: int, rows: Sequence[AttributeRow]) -> None:
    """Make ``rows`` the product's whole attribute set (and chosen terms)."""
    conn.execute(
        delete(product_attribute_terms).where(product_attribute_terms.c.product_id == product_id)
    )
    conn.execute(delete(product_attributes).where(product_attributes.c.product_id == product_id))
    for row in rows:
        conn.execute(
            insert(product_attributes).values(
                product_id=product_id,
                attribute_id=row.attribute_id,
                name=row.name,
                position=row.position,
                visible=row.visible,
                is_variation=row.variation,
                options=json.dumps(row.options, ensure_ascii=False),
            )
        )
    chosen = [
        {"product_id": product_id, "attribute_term_id": term_id}
        for term_id in dict.fromkeys(t for row in rows for t in row.term_ids)
    ]
    if chosen:
        insert_all(conn, product_attribute_terms, chosen)


def update_variation_values(conn: Connection, variation_id: int, values: Mapping[str, str]) -> None:
    conn.execute(
        delete(variation_attributes).where(variation_attributes.c.variation_id == variation_id)
    )
    rows = [
        {"variation_id": variation_id, "attribute_key": key, "value": value}
        for key, value in values.items()
    ]
    if rows:
        insert_all(conn, variation_attributes, rows)


# --- downloads


def update_downloads(
    conn: Connection, product_id: int, items: Sequence[tuple[str, str, str]]
) -> None:
    """Make ``items`` (``(download_key, name, file)``) the product's downloads, in order."""
    conn.execute(delete(downloads).where(downloads.c.product_id == product_id))
    rows = [
        {"product_id": product_id, "download_key": key, "name": name, "file": file, "position": i}
        for i, (key, name, file) in enumerate(items)
    ]
    if rows:
        insert_all(conn, downloads, rows)
