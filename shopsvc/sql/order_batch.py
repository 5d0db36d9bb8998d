"""The statements of a set-based ``/orders/bulk`` (``shopsvc.writers.order_batch``): what its
plans read, loaded once for every element, and its writes, one statement per table.

Reads (each one statement, whatever the number of elements): the targeted orders (locked, as a
single edit locks its order), their line items, the users and profiles of the customers named,
the products named by id or SKU with their families (parents, sibling variations), locked in
one statement, and the variations' attribute values. Writes: multi-row inserts of orders,
items, item meta, notes and new customer profiles; ``executemany`` updates of the edited
orders, the profiles, the stock and the sales of the products.

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
    or_,
    select,
    text,
    update,
)

from shopsvc.sql.common import check_amounts, insert_all, money_columns
from shopsvc.sql.order_writes import LINE_PRODUCT_COLUMNS
from shopsvc.sql.tables import (
    Money,
    customer_profiles,
    order_item_meta,
    order_items,
    order_notes,
    orders,
    products,
    users,
    variation_attributes,
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

#: What a line, its stock move and its tax source need of a product or variation.
PRODUCT_COLUMNS = (
    *LINE_PRODUCT_COLUMNS,
    products.c.menu_order,
    products.c.manage_stock,
    products.c.stock_quantity,
    products.c.backorders,
    products.c.stock_status,
)


# --- reads


def lock_orders(conn: Connection, order_ids: Sequence[int]) -> list[Row]:
    """The ``orders`` rows of ``order_ids`` that exist, locked until the transaction ends (as
    ``sql.orders.get_for_update`` locks one)."""
    if not order_ids:
        return []
    query = (
        select(orders).where(orders.c.id.in_(sorted(set(order_ids)))).order_by(orders.c.id)
    ).with_for_update()
    return [dict(row) for row in conn.execute(query).mappings()]


def highest_order_id(conn: Connection) -> int:
    """The highest order id there is (0 without orders): an order a bulk creates gets a higher
    one."""
    return int(conn.execute(select(func.coalesce(func.max(orders.c.id), 0))).scalar_one())


def line_items(conn: Connection, order_ids: Sequence[int]) -> list[Row]:
    """The line items of these orders, by order then id."""
    if not order_ids:
        return []
    query = (
        select(order_items)
        .where(order_items.c.order_id.in_(sorted(set(order_ids))))
        .where(order_items.c.item_type == "line_item")
        .order_by(order_items.c.order_id, order_items.c.id)
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def users_with_profiles(conn: Connection, user_ids: Sequence[int]) -> list[Row]:
    """``id``, ``email`` and the profile (``billing``, ``shipping`` JSON; None without one) of
    the users ``user_ids`` that exist."""
    if not user_ids:
        return []
    query = (
        select(
            users.c.id,
            users.c.email,
            customer_profiles.c.billing,
            customer_profiles.c.shipping,
        )
        .select_from(users.outerjoin(customer_profiles, customer_profiles.c.user_id == users.c.id))
        .where(users.c.id.in_(sorted(set(user_ids))))
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def products_with_families(
    conn: Connection, product_ids: Sequence[int], lowered_skus: Sequence[str]
) -> list[Row]:
    """The products and variations of ``product_ids`` and those whose SKU, lowered by the
    database, is one of ``lowered_skus`` (any status: the caller applies each lookup's rule),
    with their families -- their parents, their children and their parents' other children --
    each with ``sku_lower``; locked, since the bulk may move their stock.

    One statement, which locks every row in id order: two bulks over the same products then
    take their locks in one order and one waits for the other. (Locking the named products and
    then their families, in two statements, let two bulks each hold a row the other wanted
    next: a deadlock.)"""
    terms = []
    if product_ids:
        terms.append(products.c.id.in_(sorted(set(product_ids))))
    if lowered_skus:
        terms.append(func.lower(products.c.sku).in_(sorted(set(lowered_skus))))
    if not terms:
        return []
    named = select(products.c.id).where(or_(*terms))
    parents = select(products.c.parent_id).where(products.c.id.in_(named))
    query = (
        select(*PRODUCT_COLUMNS, func.lower(products.c.sku).label("sku_lower"))
        .where(
            or_(
                products.c.id.in_(named),
                products.c.id.in_(parents),
                products.c.parent_id.in_(named),
                products.c.parent_id.in_(parents),
            )
        )
        .order_by(products.c.id)
        .with_for_update()
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def variation_values(conn: Connection, variation_ids: Sequence[int]) -> list[Row]:
    """``variation_id``, ``attribute_key``, ``value`` of these variations."""
    if not variation_ids:
        return []
    query = select(
        variation_attributes.c.variation_id,
        variation_attributes.c.attribute_key,
        variation_attributes.c.value,
    ).where(variation_attributes.c.variation_id.in_(sorted(set(variation_ids))))
    return [dict(row) for row in conn.execute(query).mappings()]


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
