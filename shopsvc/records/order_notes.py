"""The order note record (reference orders.md §6; decisions.md §6: ``id`` is an integer)."""

from __future__ import annotations

from typing import Any

from shopsvc.domain.timestamps import format_timestamp
from shopsvc.records.context import RecordContext
from shopsvc.sql import order_notes as notes_sql


def note_record(context: RecordContext, row: dict[str, Any]) -> dict[str, Any]:
    """``{id, created_at, note, customer_note}`` of an ``order_notes`` row."""
    return {
        "id": row["id"],
        "created_at": format_timestamp(row["created_at"]),
        "note": row["note"],
        "customer_note": bool(row["customer_note"]),
    }


def note_records(context: RecordContext, order_id: int) -> list[dict[str, Any]]:
    """The records of every note of the order, newest first."""
    return [note_record(context, row) for row in notes_sql.list_for_order(context.conn, order_id)]


def note_record_by_id(context: RecordContext, note_id: int) -> dict[str, Any]:
    """The record of the note ``note_id`` (it must exist)."""
    row = notes_sql.get(context.conn, note_id)
    assert row is not None, note_id
    return note_record(context, row)
