"""The statements of a set-based ``/products/bulk`` (``shopsvc.writers.product_batch``): what the
planner reads before the first element (each a single statement, whatever the number of
elements) and the writes of all the planned elements together (one statement per table).

Everything runs on the caller's connection and transaction (the bulk's savepoint for the
writes). SKUs and shipping-class slugs are matched with the database's own ``lower()`` (the same
comparison as ``sql.product_writes.get_sku_owner`` and ``get_shipping_class_id``): each row comes
back with the key the database computed, and the caller matches it against the lower-cased
value it asked for, as the single-row query's ``=`` would.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Boolean,
    Connection,
    Integer,
    String,
    and_,
    any_,
    bindparam,
    column,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY

from shopsvc.sql.common import insert_all
from shopsvc.sql.product_writes import SHIPPING_CLASS
from shopsvc.sql.tables import (
    Id,
    media,
    product_gallery,
    product_terms,
    products,
    tax_classes,
    terms,
)

Row = dict[str, Any]
#: The largest id a row can have (a larger one binds as -1, which finds nothing).
MAX_ID = Id.MAX


# --- reads of the planner


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


def get_rows(conn: Connection, ids: Iterable[int]) -> dict[int, Row]:
    """Every column of the products and variations ``ids`` that exist, by id, held for the rest
    of the transaction (as a single edit holds its row)."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    # in id order, as every bulk locks them: two bulks on the same products queue, never deadlock
    query = (
        select(products).where(products.c.id.in_(wanted)).order_by(products.c.id).with_for_update()
    )
    return {row["id"]: dict(row) for row in conn.execute(query).mappings()}


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


def get_term_taxonomies(conn: Connection, ids: Iterable[int]) -> dict[int, str]:
    """The taxonomy of each of the terms ``ids`` that exist."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    query = select(terms.c.id, terms.c.taxonomy).where(terms.c.id.in_(wanted))
    return {term_id: taxonomy for term_id, taxonomy in conn.execute(query)}


def get_shipping_classes(conn: Connection, lowered: Iterable[str]) -> dict[str, int]:
    """The shipping class of each ``lower(slug)`` of ``lowered`` that one has (the smallest id,
    as ``get_shipping_class_id`` picks), by the database's ``lower(slug)``."""
    wanted = sorted(set(lowered))
    if not wanted:
        return {}
    key = func.lower(terms.c.slug)
    query = (
        select(terms.c.id, key.label("key"))
        .where(terms.c.taxonomy == SHIPPING_CLASS, key.in_(wanted))
        .order_by(terms.c.id)
    )
    found: dict[str, int] = {}
    for class_id, found_key in conn.execute(query):
        found.setdefault(found_key, class_id)
    return found


def get_tax_class_slugs(conn: Connection, slugs: Iterable[str]) -> set[str]:
    """Those of ``slugs`` that are the slug of a tax class."""
    wanted = sorted(set(slugs))
    if not wanted:
        return set()
    query = select(tax_classes.c.slug).where(tax_classes.c.slug.in_(wanted))
    return set(conn.execute(query).scalars())


def get_media_ids(conn: Connection, ids: Iterable[int]) -> set[int]:
    """Those of ``ids`` that are media rows."""
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    return set(conn.execute(select(media.c.id).where(media.c.id.in_(wanted))).scalars())


# --- the new rows


def _server_default(column: Any) -> Any:
    """The value the database gives ``column`` when an insert leaves it out."""
    default = column.server_default
    if default is None:
        return None
    text = str(default.arg)
    if isinstance(column.type, Boolean):
        return text not in ("0", "false")
    if isinstance(column.type, Integer):
        return int(text)
    return text


#: Every column of a product row but ``id``, with the value an insert that leaves it out gets.
DEFAULTS: Mapping[str, Any] = {
    column.name: _server_default(column) for column in products.columns if column.name != "id"
}


def new_row(values: Mapping[str, Any]) -> Row:
    """A product row as ``insert_product(values)`` stores it (``id`` None: not inserted yet)."""
    return {"id": None, **DEFAULTS, **values}


def burns_failed_ids(conn: Connection) -> bool:
    """Whether an insert rolled back keeps its id taken (PostgreSQL's sequences) rather than
    giving it to the next insert (SQLite's AUTOINCREMENT counter rolls back with the row)."""
    return conn.dialect.name == "postgresql"


def insert_products(conn: Connection, slots: Sequence[Row | None]) -> list[int]:
    """Insert the rows of ``slots`` (every column but ``id``) in one statement; their ids, in
    order.

    ``slots`` are the inserts of one-by-one creates, in order; None marks a create whose insert
    the one-by-one path would have rolled back (its element failed after its row existed). Its
    id is not taken on SQLite (AUTOINCREMENT's counter rolls back with the savepoint), but it is
    on PostgreSQL (a sequence never gives a value back): there the ids are drawn first, one per
    slot, and the rows inserted with theirs, so that every id is the one a one-by-one run gives.
    """
    rows = [dict(slot) for slot in slots if slot is not None]
    if burns_failed_ids(conn) and len(rows) < len(slots):
        sequence = func.pg_get_serial_sequence(products.name, products.c.id.name)
        drawn = sorted(
            conn.execute(
                select(func.nextval(sequence)).select_from(func.generate_series(1, len(slots)))
            ).scalars()
        )
        ids = [drawn[i] for i, slot in enumerate(slots) if slot is not None]
        for row, product_id in zip(rows, ids, strict=True):
            row["id"] = product_id
    if not rows:
        return []
    if conn.dialect.name == "postgresql":
        statement = insert(products).returning(products.c.id, sort_by_parameter_order=True)
        return [int(i) for i in conn.execute(statement, rows).scalars()]
    # SQLite gives the rows of a multi-row VALUES increasing ids in order, but returns them in no
    # promised order (so SQLAlchemy would insert one row per statement to keep the order):
    # insert them together and put the ids in order.
    return sorted(
        int(i) for i in conn.execute(insert(products).returning(products.c.id), rows).scalars()
    )


def update_products(conn: Connection, rows: Sequence[Row]) -> None:
    """Set the columns of each row (every row carries the same keys, ``id`` among them) on the
    product ``id``: one executemany."""
    if not rows:
        return
    names = [name for name in rows[0] if name != "id"]
    statement = (
        update(products)
        .where(products.c.id == bindparam("b_id"))
        .values({name: bindparam(f"b_{name}") for name in names})
    )
    conn.execute(statement, [{f"b_{name}": value for name, value in row.items()} for row in rows])


# --- child rows


def replace_terms(
    conn: Connection,
    cleared: Mapping[str, Sequence[int]],
    rows: Sequence[tuple[int, int]],
) -> None:
    """Remove the terms of each taxonomy of ``cleared`` from its products, then link ``rows``
    (``(product id, term id)``): one statement each."""
    conditions = [
        and_(
            product_terms.c.product_id.in_(sorted(set(ids))),
            product_terms.c.term_id.in_(select(terms.c.id).where(terms.c.taxonomy == taxonomy)),
        )
        for taxonomy, ids in cleared.items()
        if ids
    ]
    if conditions:
        conn.execute(delete(product_terms).where(or_(*conditions)))
    if rows:
        insert_all(conn, product_terms, [{"product_id": p, "term_id": t} for p, t in rows])


def replace_galleries(
    conn: Connection, cleared: Sequence[int], rows: Sequence[tuple[int, int, int]]
) -> None:
    """Empty the galleries of ``cleared``, then insert ``rows`` (``(product id, position, media
    id)``): one statement each."""
    if cleared:
        conn.execute(
            delete(product_gallery).where(product_gallery.c.product_id.in_(sorted(set(cleared))))
        )
    if rows:
        insert_all(
            conn,
            product_gallery,
            [{"product_id": p, "position": n, "media_id": m} for p, n, m in rows],
        )
