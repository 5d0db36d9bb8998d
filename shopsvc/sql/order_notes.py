"""Order notes: the notes clients add and the ones the service writes (status changes, stock,
refunds)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, Select, delete, insert, select, update

from shopsvc.sql.tables import order_notes

Row = dict[str, Any]


def insert_note(
    conn: Connection,
    order_id: int,
    note: str,
    now: dt.datetime,
    *,
    customer_note: bool = False,
    system: bool = False,
) -> int:
    """Add a note to the order; its id."""
    statement = (
        insert(order_notes)
        .values(
            order_id=order_id,
            note=note,
            customer_note=customer_note,
            system=system,
            created_at=now,
        )
        .returning(order_notes.c.id)
    )
    return int(conn.execute(statement).scalar_one())


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


def update_note(conn: Connection, note_id: int, values: dict[str, Any]) -> None:
    """Store ``values`` (``note``, ``customer_note``) on the note; nothing when empty."""
    if values:
        conn.execute(update(order_notes).where(order_notes.c.id == note_id).values(**values))


def delete_note(conn: Connection, note_id: int) -> None:
    conn.execute(delete(order_notes).where(order_notes.c.id == note_id))
