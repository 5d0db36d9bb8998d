"""Order refunds: the refund rows, the items they give back (negative copies of order items)
and the few reads of the order a refund needs (its refundable items, its refunded total and
quantity). The writes are in ``sql.order_refund_writes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Select, func, select

from shopsvc.sql.tables import (
    order_item_meta,
    order_items,
    order_refunds,
    products,
    refund_items,
)

Row = dict[str, Any]
#: The order items a refund may give back (reference orders.md §7: line, fee and shipping items).
REFUNDABLE_TYPES = ("line_item", "fee", "shipping")


def get(conn: Connection, refund_id: int) -> Row | None:
    """The refund ``refund_id`` (of whichever order), or None."""
    query = select(order_refunds).where(order_refunds.c.id == refund_id)
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


def list_query(order_id: int) -> Select[Any]:
    """Every refund of the order, newest first (ties: the later id first)."""
    return (
        select(order_refunds)
        .where(order_refunds.c.order_id == order_id)
        .order_by(order_refunds.c.created_at.desc(), order_refunds.c.id.desc())
    )


def list_for_order(conn: Connection, order_id: int) -> list[Row]:
    """Every refund of the order, newest first (ties: the later id first)."""
    return [dict(row) for row in conn.execute(list_query(order_id)).mappings()]


def refunded_total(conn: Connection, order_id: int, *, without: int | None = None) -> Decimal:
    """The sum of the amounts of the order's refunds (leaving out the refund ``without``)."""
    query = select(order_refunds.c.amount).where(order_refunds.c.order_id == order_id)
    if without is not None:
        query = query.where(order_refunds.c.id != without)
    # Summed here: SQLite stores money as text, so SUM() would add floats.
    return sum((Decimal(amount) for amount in conn.execute(query).scalars()), Decimal(0))


def items_of_refunds(conn: Connection, refund_ids: Iterable[int]) -> dict[int, list[Row]]:
    """The items of each refund (in id order), with ``found_product_id`` (None when the product
    no longer exists), its ``product_sku`` and its parent's ``parent_sku``; one statement for any
    number of refunds."""
    ids = list(refund_ids)
    found: dict[int, list[Row]] = {refund_id: [] for refund_id in ids}
    if not ids:
        return found
    for row in conn.execute(refund_items_query(ids)).mappings():
        found[row["refund_id"]].append(dict(row))
    return found


def refund_items_query(refund_ids: Sequence[int]) -> Select[Any]:
    """The items of these refunds, with their products' SKU and parent SKU."""
    product = products.alias("product")
    parent = products.alias("parent")
    product_id = func.coalesce(refund_items.c.variation_id, refund_items.c.product_id)
    return (
        select(
            refund_items,
            product.c.id.label("found_product_id"),
            product.c.sku.label("product_sku"),
            parent.c.sku.label("parent_sku"),
        )
        .outerjoin(product, product.c.id == product_id)
        .outerjoin(parent, parent.c.id == product.c.parent_id)
        .where(refund_items.c.refund_id.in_(refund_ids))
        .order_by(refund_items.c.refund_id, refund_items.c.id)
    )


def item_meta(conn: Connection, item_ids: Iterable[int]) -> dict[int, list[tuple[str, str]]]:
    """``(key, value)`` of each order item's meta rows, in insertion order."""
    ids = list(set(item_ids))
    found: dict[int, list[tuple[str, str]]] = {item_id: [] for item_id in ids}
    if not ids:
        return found
    query = (
        select(order_item_meta.c.item_id, order_item_meta.c.meta_key, order_item_meta.c.meta_value)
        .where(order_item_meta.c.item_id.in_(ids))
        .order_by(order_item_meta.c.item_id, order_item_meta.c.id)
    )
    for item_id, key, value in conn.execute(query):
        found[item_id].append((key, value))
    return found


# --- the order a refund belongs to


def order_items_of(conn: Connection, order_id: int) -> list[Row]:
    """The order's line, fee and shipping items, by id."""
    query = (
        select(order_items)
        .where(order_items.c.order_id == order_id)
        .where(order_items.c.item_type.in_(REFUNDABLE_TYPES))
        .order_by(order_items.c.id)
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def refunded_quantity(conn: Connection, order_id: int) -> int:
    """How many units of the order's line items its refunds give back (a positive number)."""
    query = (
        select(func.coalesce(func.sum(refund_items.c.quantity), 0))
        .select_from(refund_items.join(order_refunds))
        .where(order_refunds.c.order_id == order_id)
        .where(refund_items.c.item_type == "line_item")
    )
    return -int(conn.execute(query).scalar_one())
