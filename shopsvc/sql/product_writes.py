"""Writes of products and variations: the product row, its SKU, slug, gallery, terms, attributes,
variation values and downloads.

Everything runs on the caller's connection and transaction (``shopsvc.writers``). Names follow
one verb set: ``get_…`` reads, ``insert_…``, ``update_…`` (an ``update`` of a child list replaces
it whole) and ``delete_…`` write. The SKU is written on its own in a
SAVEPOINT, so that the unique index ``uq_products_sku`` (lower-cased SKU of the products and
variations that are not in the trash) refusing it is reported as ``False`` rather than aborting
the transaction: the caller answers with the spec's 400, even when a concurrent request won the
race between the check and the write. Attribute terms are created the same way (a concurrent
request may create the same term first).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from shopsvc.sql.common import in_savepoint, insert_all, slugs_like
from shopsvc.sql.tables import (
    attribute_terms,
    attributes,
    downloads,
    product_attribute_terms,
    product_attributes,
    product_gallery,
    product_terms,
    products,
    tax_classes,
    terms,
    variation_attributes,
)

SHIPPING_CLASS = "product_shipping_class"


# --- the product row


def get_product(conn: Connection, product_id: int, *, lock: bool = False) -> dict[str, Any] | None:
    """Every column of one product or variation; ``lock`` holds the row for the rest of the
    transaction (an edit that moves stock by a delta must not race an order's stock move)."""
    query = select(products).where(products.c.id == product_id)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


def insert_product(conn: Connection, values: Mapping[str, Any]) -> int:
    """A new product (or variation) row from ``values`` by column name; its id."""
    statement = insert(products).values(**values).returning(products.c.id)
    return int(conn.execute(statement).scalar_one())


def update_product(conn: Connection, product_id: int, values: Mapping[str, Any]) -> None:
    if values:
        conn.execute(update(products).where(products.c.id == product_id).values(**values))


def get_slugs_like(conn: Connection, base: str, exclude: int | None = None) -> set[str]:
    """Slugs of products (not variations) that are ``base`` or ``base-…``."""
    return slugs_like(conn, products.c.slug, base, products.c.type != "variation", exclude=exclude)


# --- SKU


def get_sku_owner(conn: Connection, sku: str, exclude: Sequence[int] = ()) -> int | None:
    """The product or variation outside ``exclude``, not in the trash, whose SKU is ``sku``
    (case-insensitive)."""
    query = select(products.c.id).where(
        func.lower(products.c.sku) == sku.lower(), products.c.status != "trash"
    )
    if exclude:
        query = query.where(products.c.id.not_in(list(exclude)))
    found = conn.execute(query.order_by(products.c.id).limit(1)).scalar()
    return None if found is None else int(found)


def update_sku(conn: Connection, product_id: int, sku: str | None) -> bool:
    """Set the SKU (None clears it) in a savepoint; False when the unique index refused it."""
    statement = update(products).where(products.c.id == product_id).values(sku=sku)
    return in_savepoint(conn, lambda: conn.execute(statement)) is not False


def update_product_guarded(conn: Connection, product_id: int, values: Mapping[str, Any]) -> bool:
    """``update_product`` in a savepoint; False when the SKU index refused it (e.g. a trashed
    variation whose SKU is now used elsewhere coming back)."""
    return in_savepoint(conn, lambda: update_product(conn, product_id, values)) is not False


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


def get_trashed_variation_skus(conn: Connection, product_id: int) -> list[tuple[int, str]]:
    """``(id, sku)`` of the product's trashed variations that have a SKU."""
    query = select(products.c.id, products.c.sku).where(
        products.c.parent_id == product_id,
        products.c.type == "variation",
        products.c.status == "trash",
        products.c.sku.is_not(None),
    )
    return [(int(i), str(s)) for i, s in conn.execute(query)]


# --- lookups


def get_existing_ids(conn: Connection, ids: Iterable[int], *, variations: bool = False) -> set[int]:
    """Those of ``ids`` that are products (or, with ``variations``, products or variations)."""
    wanted = sorted({int(i) for i in ids})
    if not wanted:
        return set()
    query = select(products.c.id).where(products.c.id.in_(wanted))
    if not variations:
        query = query.where(products.c.type != "variation")
    return {int(i) for i in conn.execute(query).scalars()}


def get_existing_term_ids(conn: Connection, taxonomy: str, ids: Iterable[int]) -> set[int]:
    wanted = sorted({int(i) for i in ids})
    if not wanted:
        return set()
    query = select(terms.c.id).where(terms.c.taxonomy == taxonomy, terms.c.id.in_(wanted))
    return {int(i) for i in conn.execute(query).scalars()}


def get_shipping_class_id(conn: Connection, slug: str) -> int | None:
    """The shipping class whose slug is ``slug`` (case-insensitive)."""
    query = select(terms.c.id).where(
        terms.c.taxonomy == SHIPPING_CLASS, func.lower(terms.c.slug) == slug.lower()
    )
    found = conn.execute(query.order_by(terms.c.id).limit(1)).scalar()
    return None if found is None else int(found)


def get_tax_class_id(conn: Connection, slug: str) -> int | None:
    """The tax class whose slug is ``slug``."""
    found = conn.execute(select(tax_classes.c.id).where(tax_classes.c.slug == slug)).scalar()
    return None if found is None else int(found)


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


def get_global_attributes(conn: Connection, slugs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The global attributes of ``slugs`` (stored slugs, without ``pa_``), by slug."""
    wanted = sorted(set(slugs))
    if not wanted:
        return {}
    query = select(attributes.c.id, attributes.c.name, attributes.c.slug).where(
        attributes.c.slug.in_(wanted)
    )
    return {row["slug"]: dict(row) for row in conn.execute(query).mappings()}


def get_attribute_terms(conn: Connection, attribute_ids: Iterable[int]) -> list[dict[str, Any]]:
    """``{id, attribute_id, name, slug}`` of every term of these attributes, by id."""
    wanted = sorted(set(attribute_ids))
    if not wanted:
        return []
    query = (
        select(
            attribute_terms.c.id,
            attribute_terms.c.attribute_id,
            attribute_terms.c.name,
            attribute_terms.c.slug,
        )
        .where(attribute_terms.c.attribute_id.in_(wanted))
        .order_by(attribute_terms.c.id)
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def get_term_slugs_like(conn: Connection, attribute_id: int, base: str) -> set[str]:
    return slugs_like(
        conn, attribute_terms.c.slug, base, attribute_terms.c.attribute_id == attribute_id
    )


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


def get_product_attributes(conn: Connection, product_id: int) -> list[dict[str, Any]]:
    """The product's attributes as ``{attribute_id, name, slug (global), variation, options
    (custom texts), terms (global: {name, slug} of the chosen terms)}``, by position."""
    rows = [
        dict(row)
        for row in conn.execute(
            select(
                product_attributes.c.attribute_id,
                product_attributes.c.name,
                product_attributes.c.is_variation,
                product_attributes.c.options,
                attributes.c.slug,
                attributes.c.name.label("global_name"),
            )
            .select_from(
                product_attributes.outerjoin(
                    attributes, attributes.c.id == product_attributes.c.attribute_id
                )
            )
            .where(product_attributes.c.product_id == product_id)
            .order_by(product_attributes.c.position, product_attributes.c.id)
        ).mappings()
    ]
    chosen: dict[int, list[dict[str, str]]] = {}
    for term in conn.execute(
        select(attribute_terms.c.attribute_id, attribute_terms.c.name, attribute_terms.c.slug)
        .select_from(
            product_attribute_terms.join(
                attribute_terms,
                attribute_terms.c.id == product_attribute_terms.c.attribute_term_id,
            )
        )
        .where(product_attribute_terms.c.product_id == product_id)
        .order_by(attribute_terms.c.id)
    ).mappings():
        chosen.setdefault(term["attribute_id"], []).append(
            {"name": term["name"], "slug": term["slug"]}
        )
    result = []
    for row in rows:
        try:
            options = json.loads(row["options"] or "[]")
        except ValueError:
            options = []
        result.append(
            {
                "attribute_id": row["attribute_id"],
                "name": row["global_name"] or row["name"],
                "slug": row["slug"] or "",
                "variation": bool(row["is_variation"]),
                "options": [str(o) for o in options] if isinstance(options, list) else [],
                "terms": chosen.get(row["attribute_id"], []) if row["attribute_id"] else [],
            }
        )
    return result


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


def get_variation_values(conn: Connection, variation_id: int) -> dict[str, str]:
    query = select(variation_attributes.c.attribute_key, variation_attributes.c.value).where(
        variation_attributes.c.variation_id == variation_id
    )
    return {key: value for key, value in conn.execute(query)}


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


# --- variations


def get_variation_titles(conn: Connection, product_id: int) -> list[tuple[int, str]]:
    """``(id, title)`` of the product's variations (trashed ones too)."""
    query = select(products.c.id, products.c.title).where(
        products.c.parent_id == product_id, products.c.type == "variation"
    )
    return [(int(i), str(t)) for i, t in conn.execute(query.order_by(products.c.id))]
