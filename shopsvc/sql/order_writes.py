"""Writes of one order outside its plan: the trash, and deleting an order with everything it
owns. A create's or an edit's writes (single or bulk) are ``sql.order_batch``'s; what the
writers read first is in ``sql.order_lookups``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    Connection,
    delete,
    select,
    update,
)

from shopsvc.sql.orders import TRASH
from shopsvc.sql.tables import (
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    refund_items,
)

Row = dict[str, Any]


# --- trash and delete


def update_to_trash(conn: Connection, order_id: int, now: dt.datetime) -> bool:
    """Move an order to the trash, keeping its status in ``status_before_trash``; False when it
    was already there."""
    moved = conn.execute(
        update(orders)
        .where(orders.c.id == order_id, orders.c.status != TRASH)
        .values(status_before_trash=orders.c.status, status=TRASH, updated_at=now)
    ).rowcount
    return moved > 0


def delete_order(conn: Connection, order_id: int) -> bool:
    """Delete an order for good with its items, item meta, notes and refunds; False when there
    was no such order."""
    item_ids = select(order_items.c.id).where(order_items.c.order_id == order_id)
    refund_ids = select(order_refunds.c.id).where(order_refunds.c.order_id == order_id)
    conn.execute(delete(order_item_meta).where(order_item_meta.c.item_id.in_(item_ids)))
    conn.execute(delete(refund_items).where(refund_items.c.refund_id.in_(refund_ids)))
    conn.execute(delete(order_refunds).where(order_refunds.c.order_id == order_id))
    conn.execute(delete(order_notes).where(order_notes.c.order_id == order_id))
    conn.execute(delete(order_items).where(order_items.c.order_id == order_id))
    return conn.execute(delete(orders).where(orders.c.id == order_id)).rowcount > 0
