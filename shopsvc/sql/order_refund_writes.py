"""Writes of order refunds: the refund row and its items, and the order's status and modified
date a refund changes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, delete, insert, update

from shopsvc.sql.common import check_amounts
from shopsvc.sql.order_refunds import Row
from shopsvc.sql.tables import (
    order_refunds,
    orders,
    refund_items,
)


def insert_refund(
    conn: Connection,
    order_id: int,
    amount: Decimal,
    reason: str,
    now: dt.datetime,
    user_id: int | None = None,
) -> int:
    check_amounts(order_refunds, [{"amount": amount}], "order_refund")
    statement = (
        insert(order_refunds)
        .values(order_id=order_id, amount=amount, reason=reason, user_id=user_id, created_at=now)
        .returning(order_refunds.c.id)
    )
    return int(conn.execute(statement).scalar_one())


def insert_items(conn: Connection, refund_id: int, items: Sequence[Row]) -> None:
    """Store the refund's items (``refund_items`` columns but ``id`` and ``refund_id``)."""
    if items:
        check_amounts(refund_items, items, "order_refund")
        conn.execute(insert(refund_items), [{**item, "refund_id": refund_id} for item in items])


def update_refund(conn: Connection, refund_id: int, values: dict[str, Any]) -> None:
    """Store ``values`` (``amount``, ``reason``) on the refund; nothing when empty."""
    if values:
        check_amounts(order_refunds, [values], "order_refund")
        conn.execute(update(order_refunds).where(order_refunds.c.id == refund_id).values(**values))


def delete_refund(conn: Connection, refund_id: int) -> None:
    """Delete the refund and its items."""
    conn.execute(delete(refund_items).where(refund_items.c.refund_id == refund_id))
    conn.execute(delete(order_refunds).where(order_refunds.c.id == refund_id))


# --- the order a refund belongs to


def update_order(
    conn: Connection, order_id: int, now: dt.datetime, status: str | None = None
) -> None:
    """Bump the order's modified date (and set its ``status``)."""
    values: dict[str, Any] = {"updated_at": now}
    if status is not None:
        values["status"] = status
    conn.execute(update(orders).where(orders.c.id == order_id).values(**values))
