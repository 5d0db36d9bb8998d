"""Writing order notes (reference orders.md §6): create, edit, delete.

The order and note checks (ids, existence, capabilities) are the view's, through
``loaders.orders.ORDERS`` and ``loaders.orders.ORDER_NOTES``; these functions take ids that were
checked. Field rules: ``note`` is required on create (``""`` allowed; absent or null →
``shop_api_invalid_order_note``), any other type than a string (or a finite number, written as text)
is ``shop_api_invalid_param``; ``customer_note`` is a boolean in the spellings of decisions.md §2
("Booleans on input": ``true``/``false``, ``1``/``0``, ``"yes"``/``"no"``, …; anything else is
``shop_api_invalid_param``); absent or null means false on create and "unchanged" on edit."""

from __future__ import annotations

from typing import Any

from shopsvc.errors import ApiError, invalid_param
from shopsvc.sql import order_note_writes as order_note_writes_sql
from shopsvc.validation.types import as_text, check_text, parse_loose_bool
from shopsvc.writers.context import WriteContext

ENVELOPE = "order_note"


def _note_text(value: Any) -> str:
    text = as_text(value)
    if text is None:
        raise invalid_param(f"{ENVELOPE}.note", "must be a string")
    return check_text(text, f"{ENVELOPE}.note")


def _customer_note(value: Any) -> bool:
    flag = parse_loose_bool(value)
    if flag is None:
        raise invalid_param(f"{ENVELOPE}.customer_note", "must be a boolean")
    return flag


def create_note(ctx: WriteContext, order_id: int, data: dict[str, Any]) -> int:
    """Add the note ``data`` (the ``order_note`` object) to the order; its id."""
    if data.get("note") is None:
        raise ApiError("shop_api_invalid_order_note", "Order note is required", 400)
    note = _note_text(data["note"])
    raw = data.get("customer_note")
    customer_note = False if raw is None else _customer_note(raw)
    return order_note_writes_sql.insert_note(
        ctx.conn, order_id, note, ctx.now, customer_note=customer_note
    )


def edit_note(ctx: WriteContext, note_id: int, data: dict[str, Any]) -> None:
    """Apply ``note`` (when present and not null) and ``customer_note`` (when present)."""
    values: dict[str, Any] = {}
    if data.get("note") is not None:
        values["note"] = _note_text(data["note"])
    if data.get("customer_note") is not None:
        values["customer_note"] = _customer_note(data["customer_note"])
    order_note_writes_sql.update_note(ctx.conn, note_id, values)


def delete_note(ctx: WriteContext, note_id: int) -> None:
    order_note_writes_sql.delete_note(ctx.conn, note_id)
