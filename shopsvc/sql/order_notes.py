"""Order notes: the notes clients add and the ones the service writes (status changes, stock,
refunds): one note and an order's notes. The writes are in ``sql.order_note_writes``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Select, select

from shopsvc.sql.tables import order_notes

Row = dict[str, Any]


def get(conn: Connection, note_id: int) -> Row | None:
    """The note ``note_id`` (of whichever order), or None."""
    row = conn.execute(select(order_notes).where(order_notes.c.id == note_id)).mappings().first()
    return dict(row) if row else None


def list_query(order_id: int) -> Select[Any]:
    """Every note of the order, newest first (ties: the later id first)."""
    return (
        select(order_notes)
        .where(order_notes.c.order_id == order_id)
        .order_by(order_notes.c.created_at.desc(), order_notes.c.id.desc())
    )


def list_for_order(conn: Connection, order_id: int) -> list[Row]:
    """Every note of the order, newest first (ties: the later id first)."""
    return [dict(row) for row in conn.execute(list_query(order_id)).mappings()]
