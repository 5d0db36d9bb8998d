"""The writes of a set-based ``/orders/bulk`` (``shopsvc.writers.order_batch``): the new
rows as a one-by-one create stores them; multi-row inserts of orders, items, item meta, notes and
new customer profiles; ``executemany`` updates of the edited orders, the profiles, the stock and
the sales of the products. What its plans read before the first element is in
``sql.order_lookups``.

Ids: on PostgreSQL a failed one-by-one element still uses up the sequence values of the rows it
inserted before failing, so the writer reserves the ids (``nextval``, one statement per table)
for its rows *and* for those a one-by-one run would have used up, and inserts with explicit ids;
the ids are then the ones a one-by-one run gives. SQLite's ``AUTOINCREMENT`` hands out nothing
a rolled-back savepoint used, so there the rows take the next ids in input order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Integer,
    Table,
    bindparam,
    func,
    select,
    text,
    update,
)

from shopsvc.sql.common import check_amounts, insert_all, money_columns
from shopsvc.sql.tables import (
    Money,
    customer_profiles,
    order_item_meta,
    order_items,
    order_notes,
    orders,
    products,
)

Row = dict[str, Any]
#: The tables a bulk inserts into, parents first, by name.
ORDERS, ITEMS, ITEM_META, NOTES = "orders", "order_items", "order_item_meta", "order_notes"
TABLES = {ORDERS: orders, ITEMS: order_items, ITEM_META: order_item_meta, NOTES: order_notes}
#: The columns an edit may change (all written back, changed or not: the rows are locked).
EDITABLE = tuple(
    column.name
    for column in orders.c
    if column.name
    not in (
        "id",
        "order_key",
        "created_at",
        "prices_include_tax",
        "customer_ip",
        "customer_user_agent",
        "discount_total",
        "discount_tax",
        "shipping_total",
        "shipping_tax",
        "cart_tax",
        "total_tax",
        "total",
    )
)


# --- the new rows


def _server_default(column: Column[Any]) -> Any:
    """The Python value of a column's server default (None without one)."""
    default = column.server_default
    if default is None:
        return None
    raw = str(getattr(default, "arg", ""))
    if isinstance(column.type, Boolean):
        return raw not in ("0", "false")
    if isinstance(column.type, Integer):
        return int(raw)
    if isinstance(column.type, Money):
        return Decimal(raw)
    return raw


_NEW_ORDER = {c.name: _server_default(c) for c in orders.c if c.name not in ("id", "order_key")}
_NEW_ITEM = {c.name: _server_default(c) for c in order_items.c if c.name not in ("id", "order_id")}


def new_order_row() -> Row:
    """An order row (but its id and key) with every column at its server default, as a
    one-by-one create's insert leaves the columns it does not set."""
    return dict(_NEW_ORDER)


def new_item_row(values: Row) -> Row:
    """An item row (but its id and order) with ``values``, the other columns at their server
    defaults."""
    return {**_NEW_ITEM, **values}


def check_item_amounts(values: Row) -> None:
    """``sql.order_writes.insert_item``'s and ``update_item``'s range check of the amounts."""
    check_amounts(order_items, [values], "order")


def check_order_amounts(values: Row) -> None:
    """``sql.order_writes.update_order``'s range check of the amounts."""
    check_amounts(orders, [values], "order")


def as_stored_item(conn: Connection, row: Row) -> Row:
    """The item ``row`` with its money values as the table gives them back once stored: rounded
    to the column's scale by PostgreSQL's NUMERIC (half away from zero), kept as written by
    SQLite (text); a write that reads its own rows back computes on these."""
    found = dict(row)
    postgres = conn.dialect.name == "postgresql"
    for name, (scale, _) in money_columns(order_items).items():
        value = row.get(name)
        if value is None:
            continue
        if postgres:
            found[name] = Decimal(value).quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP)
        else:
            found[name] = Decimal(str(Decimal(value)))
    return found


# --- writes


def _reserve(conn: Connection, table: Table, count: int) -> list[int]:
    """The next ``count`` ids of ``table``, ascending: PostgreSQL's ``nextval`` of its sequence;
    on SQLite the ids ``AUTOINCREMENT`` hands out next (the request's write transaction holds
    the database, so nobody else takes them before the insert)."""
    if conn.dialect.name == "postgresql":
        statement = text(
            "SELECT nextval(pg_get_serial_sequence(:table, 'id')) FROM generate_series(1, :n)"
        )
        found = conn.execute(statement, {"table": table.name, "n": count}).scalars()
        return sorted(int(i) for i in found)
    stored = select(text("seq")).select_from(text("sqlite_sequence")).where(text("name = :table"))
    highest = select(
        func.max(
            func.coalesce(stored.scalar_subquery(), 0),
            func.coalesce(select(func.max(table.c.id)).scalar_subquery(), 0),
        )
    )
    first = int(conn.execute(highest, {"table": table.name}).scalar_one()) + 1
    return list(range(first, first + count))


def insert_rows(conn: Connection, name: str, slots: Sequence[Row | None]) -> None:
    """Insert the rows of ``slots`` in their order with the ids a one-by-one run gives them
    (set as each row's ``id``), in one statement; a None slot is an id such a run would have
    used up on PostgreSQL, and is used up here too (SQLite's rolled-back savepoints use none)."""
    table = TABLES[name]
    rows = [row for row in slots if row is not None]
    postgres = conn.dialect.name == "postgresql"
    taking = slots if postgres else rows
    if not rows and not (postgres and slots):
        return
    for row, new_id in zip(taking, _reserve(conn, table, len(taking)), strict=True):
        if row is not None:
            row["id"] = new_id
    insert_all(conn, table, rows)


def insert_many(conn: Connection, table: Table, rows: Sequence[Row]) -> None:
    """Rows of a table whose ids nothing reads back (item meta, notes when no id is used up)."""
    insert_all(conn, table, rows)


def update_orders(conn: Connection, rows: Sequence[Row]) -> None:
    """Store the :data:`EDITABLE` columns of each order row (by its ``id``)."""
    if not rows:
        return
    statement = (
        update(orders)
        .where(orders.c.id == bindparam("_id"))
        .values({name: bindparam(f"_{name}") for name in EDITABLE})
    )
    params = [{f"_{name}": row[name] for name in (*EDITABLE, "id")} for row in rows]
    conn.execute(statement, params)


def insert_profiles(conn: Connection, rows: Sequence[Row]) -> None:
    insert_many(conn, customer_profiles, rows)


def update_profiles(conn: Connection, rows: Sequence[Row]) -> None:
    """``user_id``, ``billing``, ``shipping``, ``updated_at`` of existing profiles."""
    if not rows:
        return
    statement = (
        update(customer_profiles)
        .where(customer_profiles.c.user_id == bindparam("_user_id"))
        .values(
            billing=bindparam("_billing"),
            shipping=bindparam("_shipping"),
            updated_at=bindparam("_updated_at"),
        )
    )
    conn.execute(statement, [{f"_{k}": v for k, v in row.items()} for row in rows])


def update_stock(conn: Connection, rows: Iterable[tuple[int, int | None, str]]) -> None:
    """``(product id, quantity, status)``: the stock a bulk's moves leave."""
    params = [{"_id": i, "_quantity": q, "_status": s} for i, q, s in rows]
    if params:
        statement = (
            update(products)
            .where(products.c.id == bindparam("_id"))
            .values(stock_quantity=bindparam("_quantity"), stock_status=bindparam("_status"))
        )
        conn.execute(statement, params)


def add_total_sales(conn: Connection, deltas: Iterable[tuple[int, int]]) -> None:
    """``(product id, delta)``: add each delta to the product's ``total_sales``."""
    params = [{"_id": i, "_delta": d} for i, d in deltas]
    if params:
        statement = (
            update(products)
            .where(products.c.id == bindparam("_id"))
            .values(total_sales=products.c.total_sales + bindparam("_delta"))
        )
        conn.execute(statement, params)
