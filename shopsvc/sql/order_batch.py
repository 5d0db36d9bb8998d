"""The writes of an order plan (``shopsvc.writers.order_batch``: a single create or edit, or a
bulk): the new rows as a create stores them, checked against the columns' ranges before anything
is written; multi-row inserts of orders, items, item meta, notes and refunds; ``executemany``
updates of the edited orders and items, the stock and sales of the products; the removed items
deleted in one statement. What the plans read first is in ``sql.order_lookups``.

Ids: the order writes that came before this planner inserted each row as they went, so on
PostgreSQL a create that failed had used up the sequence values of the rows it inserted before
its failing check; the planner uses them up still (a failed plan's rows are ``None`` slots), so
the ids stay the ones they always were. The ids of the tables whose rows other rows link to
(and of those with used-up ids) are drawn first, all tables in one statement (``nextval``, or on
SQLite the next ``AUTOINCREMENT`` values), and inserted explicitly; the other rows take theirs as
they are inserted, in the same order. SQLite's ``AUTOINCREMENT`` hands out nothing a
rolled-back savepoint used, so there the rows take the next ids in input order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Integer,
    bindparam,
    case,
    delete,
    func,
    literal,
    select,
    text,
    union_all,
    update,
)

from shopsvc.sql.common import check_amounts, insert_all, money_columns
from shopsvc.sql.tables import (
    Money,
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    products,
)

Row = dict[str, Any]
#: The tables a bulk inserts into, parents first, by name.
ORDERS, ITEMS, ITEM_META, NOTES = "orders", "order_items", "order_item_meta", "order_notes"
REFUNDS = "order_refunds"
TABLES = {
    ORDERS: orders,
    ITEMS: order_items,
    ITEM_META: order_item_meta,
    NOTES: order_notes,
    REFUNDS: order_refunds,
}
#: The columns of a stored item a plan may change (all written back: the order is locked).
ITEM_EDITABLE = tuple(
    column.name for column in order_items.c if column.name not in ("id", "order_id", "item_type")
)
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
    """An order row (but its id and key) with every column at its server default."""
    return dict(_NEW_ORDER)


def new_item_row(values: Row) -> Row:
    """An item row (but its id and order) with ``values``, the other columns at their server
    defaults."""
    return {**_NEW_ITEM, **values}


def check_item_amounts(values: Row) -> None:
    """The range check of an item's amounts (400 before any write, as the database would refuse
    them)."""
    check_amounts(order_items, [values], "order")


def check_refund_amount(values: Row) -> None:
    """The range check of a refund's amount (``sql.order_refund_writes.insert_refund``'s)."""
    check_amounts(order_refunds, [values], "order_refund")


def check_order_amounts(values: Row) -> None:
    """The range check of an order's amounts."""
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


def _reserve(conn: Connection, counts: Mapping[str, int]) -> dict[str, list[int]]:
    """The next ``count`` ids of each table (by name), ascending, in one statement:
    PostgreSQL's ``nextval`` of each sequence; on SQLite the ids ``AUTOINCREMENT`` hands out
    next (the request's write transaction holds the database, so nobody else takes them before
    the inserts)."""
    asked = {name: count for name, count in counts.items() if count}
    if not asked:
        return {}
    if conn.dialect.name == "postgresql":
        parts = [
            select(
                literal(name).label("t"),
                func.nextval(func.pg_get_serial_sequence(name, "id")).label("id"),
            ).select_from(func.generate_series(1, count).alias())
            for name, count in asked.items()
        ]
        found: dict[str, list[int]] = {name: [] for name in asked}
        for name, new_id in conn.execute(union_all(*parts)):
            found[name].append(int(new_id))
        return {name: sorted(ids) for name, ids in found.items()}
    columns = []
    for name in asked:
        table = TABLES[name]
        stored = (
            select(text("seq"))
            .select_from(text("sqlite_sequence"))
            .where(text(f"name = '{table.name}'"))
            .scalar_subquery()
        )
        highest = select(func.max(table.c.id)).scalar_subquery()
        columns.append(func.max(func.coalesce(stored, 0), func.coalesce(highest, 0)).label(name))
    row = conn.execute(select(*columns)).one()
    return {
        name: list(range(int(first) + 1, int(first) + 1 + asked[name]))
        for name, first in zip(asked, row, strict=True)
    }


def insert_tables(
    conn: Connection,
    slots: Mapping[str, Sequence[Row | None]],
    parents: Iterable[str],
    link: Callable[[], None],
) -> None:
    """Insert each table's rows of ``slots`` (parents first) in their order, one statement per
    table; a None slot is an id a failed plan uses up on PostgreSQL (see the module's note;
    SQLite's rolled-back savepoints use none). The ids are drawn first, all tables in one
    statement, for the tables of ``parents`` (whose ids their children's links need; set as
    each row's ``id``) and for those with used-up ids; the other tables' rows take theirs as
    they are inserted, in the same order. ``link()`` runs before each table's insert (it sets
    the children's links)."""
    postgres = conn.dialect.name == "postgresql"
    needed = set(parents)
    counts = {}
    for name, rows in slots.items():
        burnt = postgres and any(row is None for row in rows)
        if rows and (name in needed or burnt):
            counts[name] = len(rows) if postgres else sum(1 for row in rows if row is not None)
    reserved = _reserve(conn, counts)
    for name, rows in slots.items():
        taking = rows if postgres else [row for row in rows if row is not None]
        for row, new_id in zip(taking, reserved.get(name, ()), strict=False):
            if row is not None:
                row["id"] = new_id
    for name, rows in slots.items():
        link()
        insert_all(conn, TABLES[name], [row for row in rows if row is not None])


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


def update_items(conn: Connection, rows: Sequence[Row]) -> None:
    """Store the :data:`ITEM_EDITABLE` columns of each stored item row (by its ``id``)."""
    if not rows:
        return
    statement = (
        update(order_items)
        .where(order_items.c.id == bindparam("_id"))
        .values({name: bindparam(f"_{name}") for name in ITEM_EDITABLE})
    )
    params = [{f"_{name}": row[name] for name in (*ITEM_EDITABLE, "id")} for row in rows]
    conn.execute(statement, params)


def delete_items(conn: Connection, item_ids: Sequence[int]) -> None:
    """Delete these items (their meta goes with them: ``ON DELETE CASCADE``)."""
    if item_ids:
        conn.execute(delete(order_items).where(order_items.c.id.in_(sorted(item_ids))))


def update_products(
    conn: Connection, rows: Iterable[tuple[int, int | None, str | None, int]]
) -> None:
    """``(product id, quantity, status, sales delta)``: the stock a bulk's moves leave (a None
    status: the stock is not changed) and the sales to add to ``total_sales``, one statement."""
    params = [
        {"_id": i, "_moved": s is not None, "_quantity": q, "_status": s, "_delta": d}
        for i, q, s, d in rows
    ]
    if not params:
        return
    moved = bindparam("_moved", type_=Boolean())
    quantity = bindparam("_quantity", type_=Integer())
    status = bindparam("_status", type_=products.c.stock_status.type)
    statement = (
        update(products)
        .where(products.c.id == bindparam("_id"))
        .values(
            stock_quantity=case((moved, quantity), else_=products.c.stock_quantity),
            stock_status=case((moved, status), else_=products.c.stock_status),
            total_sales=products.c.total_sales + bindparam("_delta"),
        )
    )
    conn.execute(statement, params)
