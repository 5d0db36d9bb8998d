"""The writes of a set-based ``/products/bulk`` (``shopsvc.writers.product_batch``): the
new rows as a one-by-one insert stores them, and all the planned elements written together, one
statement per table. What its planner reads before the first element is in
``sql.product_lookups`` (the set-based ``get_…``).

Everything runs on the caller's connection and transaction (the bulk's savepoint).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Boolean,
    Connection,
    Integer,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from shopsvc.sql.common import bulk_insert, in_savepoint, insert_all
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

Row = dict[str, Any]


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
    """A product row as an insert of ``values`` stores it (``id`` None: not inserted yet)."""
    return {"id": None, **DEFAULTS, **values}


def burns_failed_ids(conn: Connection) -> bool:
    """Whether an insert rolled back keeps its id taken (PostgreSQL's sequences) rather than
    giving it to the next insert (SQLite's AUTOINCREMENT counter rolls back with the row)."""
    return conn.dialect.name == "postgresql"


def insert_products(conn: Connection, slots: Sequence[Row | None]) -> list[int]:
    """Insert the rows of ``slots`` (every column but ``id``; those no row sets to other than
    the column's default are left to the database) in one statement; their ids, in order.

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
    # the columns some row sets to other than the database's default (the rest it fills in)
    names = [n for n in rows[0] if n == "id" or any(row[n] != DEFAULTS[n] for row in rows)]
    rows = [{name: row[name] for name in names} for row in rows]
    if conn.dialect.name == "postgresql":
        # one array per column, unnested in order (sql.common.bulk_insert): psycopg would parse
        # a VALUES list of some 4000 placeholders in Python for a bulk of 100
        statement, params = bulk_insert("postgresql", products, rows, returning=True)
        return sorted(int(i) for i in conn.execute(statement, params).scalars())
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


# --- new variations of new products


def insert_products_with_ids(conn: Connection, rows: Sequence[Row]) -> None:
    """Insert ``rows`` (every column, ``id`` included: SQLite's next ids, which the writer may
    count on as it holds the write lock — so that new variations can name their new parent in
    the same statement) in one statement."""
    if rows:
        conn.execute(insert(products), [dict(row) for row in rows])


# --- attributes, downloads, variation values


def insert_attribute_terms(conn: Connection, rows: Sequence[Row]) -> list[int] | None:
    """New global attribute terms (``attribute_id``, ``name``, ``slug``) in one statement, in a
    savepoint; their ids, in order. None when a concurrent request created one of them first
    (the unique slug refused it): nothing is inserted then."""
    if not rows:
        return []

    def insert_terms() -> list[int]:
        if conn.dialect.name == "postgresql":
            statement = insert(attribute_terms).returning(
                attribute_terms.c.id, sort_by_parameter_order=True
            )
            return [int(i) for i in conn.execute(statement, list(rows)).scalars()]
        returning = insert(attribute_terms).returning(attribute_terms.c.id)
        return sorted(int(i) for i in conn.execute(returning, list(rows)).scalars())

    ids = in_savepoint(conn, insert_terms)
    return None if ids is False else ids


def replace_attributes(
    conn: Connection,
    cleared: Sequence[int],
    rows: Sequence[Row],
    chosen: Sequence[tuple[int, int]],
) -> None:
    """Remove the attributes (and chosen terms) of ``cleared``, then insert ``rows`` (columns of
    ``product_attributes``, in position order) and ``chosen`` (``(product id, term id)``)."""
    if cleared:
        ids = sorted(set(cleared))
        conn.execute(
            delete(product_attribute_terms).where(product_attribute_terms.c.product_id.in_(ids))
        )
        conn.execute(delete(product_attributes).where(product_attributes.c.product_id.in_(ids)))
    if rows:
        conn.execute(insert(product_attributes), list(rows))
    if chosen:
        insert_all(
            conn,
            product_attribute_terms,
            [{"product_id": p, "attribute_term_id": t} for p, t in chosen],
        )


def replace_downloads(
    conn: Connection, cleared: Sequence[int], rows: Sequence[tuple[int, str, str, str]]
) -> None:
    """Remove the downloads of ``cleared``, then insert ``rows`` (``(product id, key, name,
    file)``, each product's in order)."""
    if cleared:
        conn.execute(delete(downloads).where(downloads.c.product_id.in_(sorted(set(cleared)))))
    positions: dict[int, int] = {}
    values = []
    for product_id, key, name, file in rows:
        position = positions[product_id] = positions.get(product_id, -1) + 1
        values.append(
            {
                "product_id": product_id,
                "download_key": key,
                "name": name,
                "file": file,
                "position": position,
            }
        )
    if values:
        insert_all(conn, downloads, values)


def replace_variation_values(
    conn: Connection, cleared: Sequence[int], rows: Sequence[tuple[int, str, str]]
) -> None:
    """Remove the attribute values of the variations ``cleared``, then insert ``rows``
    (``(variation id, attribute key, value)``)."""
    if cleared:
        conn.execute(
            delete(variation_attributes).where(
                variation_attributes.c.variation_id.in_(sorted(set(cleared)))
            )
        )
    if rows:
        insert_all(
            conn,
            variation_attributes,
            [{"variation_id": v, "attribute_key": k, "value": value} for v, k, value in rows],
        )
