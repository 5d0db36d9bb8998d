"""What the product writers read before they write (``shopsvc.writers``): one product's row and
its stock (the delete, orders' stock moves), a SKU's owner, the global lock of products and their
parents; and what the product planner (``shopsvc.writers.product_batch``) reads before its
first check — the rows it writes (held, in id order), the slugs its new slugs must avoid, the
attributes and variation values an edit builds on — each one statement whatever the number of
products (what a write names is read in ``sql.product_references``).

SKUs are matched with the database's own ``lower()``: a set-based read returns each row with the
key the database computed, and the caller matches it against the lower-cased value it asked for,
as the single-row query's ``=`` would. Nothing here changes a row: the writes are in
``sql.product_writes`` and ``sql.product_batch``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    String,
    Table,
    and_,
    any_,
    bindparam,
    column,
    func,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY

from shopsvc.sql.tables import (
    Id,
    attribute_terms,
    attributes,
    product_attribute_terms,
    product_attributes,
    product_terms,
    products,
    terms,
    variation_attributes,
)

Row = dict[str, Any]


# --- the product row


def get_product(conn: Connection, product_id: int, *, lock: bool = False) -> dict[str, Any] | None:
    """Every column of one product or variation; ``lock`` holds the row for the rest of the
    transaction (an edit that moves stock by a delta must not race an order's stock move)."""
    query = select(products).where(products.c.id == product_id)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


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


def get_variation_stock(conn: Connection, parent_id: int) -> list[dict[str, Any]]:
    """``{manage_stock, stock_quantity, backorders, stock_status}`` of a product's variations
    that are published or private (the ones its stock status derives from)."""
    query = select(
        products.c.manage_stock,
        products.c.stock_quantity,
        products.c.backorders,
        products.c.stock_status,
    ).where(
        products.c.parent_id == parent_id,
        products.c.type == "variation",
        products.c.status.in_(("publish", "private")),
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def lock_with_parents(conn: Connection, product_ids: Iterable[int]) -> None:
    """Lock the products and variations ``product_ids`` and their parents until the transaction
    ends, in id order, in one statement (``FOR UPDATE`` on PostgreSQL; SQLite serialises writers
    already). A writer that goes on to move the stock or the sales of several of them (one per
    line, in the lines' order; a variation, then its parent) takes this first, so that its
    later row locks are ones it already holds: two writers of the same products queue on the
    lowest id instead of deadlocking (the global lock order, ``docs/sql.md``). Nothing on SQLite,
    which has no row locks (its writers run one at a time)."""
    wanted = sorted({int(i) for i in product_ids if i})
    if not wanted or conn.dialect.name == "sqlite":
        return
    parents = select(products.c.parent_id).where(
        products.c.id.in_(wanted), products.c.parent_id.is_not(None)
    )
    query = (
        select(products.c.id)
        .where(or_(products.c.id.in_(wanted), products.c.id.in_(parents)))
        .order_by(products.c.id)
        .with_for_update(of=products)
    )
    conn.execute(query).all()


def get_stock_row(
    conn: Connection, product_id: int, *, lock: bool = False
) -> dict[str, Any] | None:
    """The stock columns (and type) of one product; ``lock`` holds the row until the
    transaction ends (``FOR UPDATE`` on PostgreSQL; SQLite serialises writers already), so a
    quantity read to be moved cannot be moved by another transaction meanwhile."""
    query = select(
        products.c.id,
        products.c.type,
        products.c.parent_id,
        products.c.manage_stock,
        products.c.stock_quantity,
        products.c.backorders,
        products.c.stock_status,
    ).where(products.c.id == product_id)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


# --- attributes


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


# --- the planner's reads, before its first check


def burn_ids(conn: Connection, table: Table, count: int) -> None:
    """Take ``count`` ids of ``table`` and use none (PostgreSQL): what that many inserts rolled
    back leave behind (a sequence never gives a value back). Nothing on SQLite, whose
    AUTOINCREMENT counter rolls back with them. It changes no row."""
    if count and conn.dialect.name == "postgresql":
        sequence = func.pg_get_serial_sequence(table.name, table.c.id.name)
        conn.execute(
            select(func.nextval(sequence)).select_from(func.generate_series(1, count))
        ).all()


#: The largest id a row can have (a larger one binds as -1, which finds nothing).
MAX_ID = Id.MAX


def get_live_skus(conn: Connection, lowered: Iterable[str]) -> list[Row]:
    """``{id, key}`` of the products and variations not in the trash whose ``lower(sku)`` is
    one of ``lowered`` (already lower-cased), by id; ``key`` is the database's ``lower(sku)``."""
    wanted = sorted(set(lowered))
    if not wanted:
        return []
    key = func.lower(products.c.sku)
    query = (
        select(products.c.id, key.label("key"))
        .where(key.in_(wanted), products.c.status != "trash")
        .order_by(products.c.id)
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def get_rows(conn: Connection, ids: Iterable[int], family_of: Iterable[int] = ()) -> dict[int, Row]:
    """Every column of the products and variations ``ids`` that exist, and of the parents of
    ``family_of`` and every variation of those products and of their parents (what the single
    write of a variable product or of a variation derives stock statuses and titles from), by
    id, held for the rest of the transaction (as a single edit holds its row)."""
    wanted = sorted(set(ids))
    family = sorted(set(family_of))
    if not wanted and not family:
        return {}
    found = products.c.id.in_(wanted)
    if family:
        parents = select(products.c.parent_id).where(
            products.c.id.in_(family), products.c.parent_id.is_not(None)
        )
        found = or_(
            found,
            products.c.id.in_(parents),
            and_(
                products.c.type == "variation",
                or_(products.c.parent_id.in_(family), products.c.parent_id.in_(parents)),
            ),
        )
    # in id order, as every bulk locks them: two writes of the same products queue, never
    # deadlock (the global lock order, docs/sql.md)
    query = select(products).where(found).order_by(products.c.id).with_for_update()
    return {row["id"]: dict(row) for row in conn.execute(query).mappings()}


def get_variation_values_of(conn: Connection, ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """The attribute values of each of the variations ``ids`` (those with none are left out)."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    query = select(
        variation_attributes.c.variation_id,
        variation_attributes.c.attribute_key,
        variation_attributes.c.value,
    ).where(variation_attributes.c.variation_id.in_(wanted))
    found: dict[int, dict[str, str]] = {}
    for variation_id, key, value in conn.execute(query):
        found.setdefault(variation_id, {})[key] = value
    return found


def get_last_id(conn: Connection) -> int:
    """The largest product or variation id (0 when there is none): every id a new row gets is
    above it."""
    return int(conn.execute(select(func.coalesce(func.max(products.c.id), 0))).scalar_one())


def get_terms_of(conn: Connection, product_ids: Iterable[int]) -> dict[int, dict[int, str]]:
    """``{term id: taxonomy}`` of the categories and tags of each of ``product_ids`` (those with
    none are left out)."""
    wanted = sorted(set(product_ids))
    if not wanted:
        return {}
    query = (
        select(product_terms.c.product_id, product_terms.c.term_id, terms.c.taxonomy)
        .select_from(product_terms.join(terms, terms.c.id == product_terms.c.term_id))
        .where(product_terms.c.product_id.in_(wanted))
    )
    found: dict[int, dict[int, str]] = {}
    for product_id, term_id, taxonomy in conn.execute(query):
        found.setdefault(product_id, {})[term_id] = taxonomy
    return found


def get_slugs_like_any(conn: Connection, bases: Iterable[str]) -> dict[int, str]:
    """``{id: slug}`` of the products (not variations) whose slug is one of ``bases`` or starts
    with ``base-`` for one of them: every slug a new slug made from one of these bases must
    avoid (``sql.common.slugs_like``, for many bases at once; the bases are bound as one
    parameter, so the statement is the same for any number of them)."""
    wanted = sorted(set(bases))
    if not wanted:
        return {}
    slug = products.c.slug
    if conn.dialect.name == "postgresql":
        patterns = [_like_escape(base) + "-%" for base in wanted]
        matches = or_(
            slug == any_(bindparam("bases", wanted, type_=ARRAY(String))),
            slug.like(any_(bindparam("patterns", patterns, type_=ARRAY(String)))),
        )
        query = select(products.c.id, slug).where(products.c.type != "variation", matches)
    else:
        # one row per base; ``base-…`` as a range the slug index serves (SQLite compares text
        # byte by byte, and "." follows "-"): the rows ``LIKE 'base-%'`` finds, case-sensitively
        base = func.json_each(json.dumps(wanted)).table_valued(column("value", String))
        matches = or_(
            slug == base.c.value,
            and_(slug >= base.c.value.concat("-"), slug < base.c.value.concat(".")),
        )
        query = (
            select(products.c.id, slug)
            .select_from(base)
            .join(products, matches)
            .where(products.c.type != "variation")
        )
    return {product_id: found for product_id, found in conn.execute(query)}


def _like_escape(text: str) -> str:
    """``text`` matched literally by PostgreSQL's ``LIKE`` (its escape character: ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
