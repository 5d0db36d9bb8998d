"""Writes of order notes."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, delete, insert, update

from shopsvc.sql.tables import order_notes


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


def update_note(conn: Connection, note_id: int, values: dict[str, Any]) -> None:
    """Store ``values`` (``note``, ``customer_note``) on the note; nothing when empty."""
    if values:
        conn.execute(update(order_notes).where(order_notes.c.id == note_id).values(**values))


def delete_note(conn: Connection, note_id: int) -> None:
    conn.execute(delete(order_notes).where(order_notes.c.id == note_id))
