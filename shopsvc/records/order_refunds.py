"""The order refund record (reference orders.md §7; decisions.md §6, §7 "Orders: records").

``{id, created_at, amount, reason, line_items}``: ``amount`` always with 2 decimals (never
``filter[dp]``); ``line_items`` are the refunded product lines only (fee and shipping refund rows
are stored but not listed), their money always 2 decimals and negative as stored, ``price`` =
total ÷ quantity (so positive), ``product_id`` the variation's id for a variation (0 when none),
``sku`` the product's current SKU (a variation without one: its parent's; ``null`` when the
product no longer exists), ``meta`` the refunded order item's visible meta (keys not starting
with ``_``, non-empty values; ``label`` is the key) and ``refunded_item_id`` the order item's
real id (the original 3.x returns 0 — a quirk not followed).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from shopsvc.domain.money import format_decimal
from shopsvc.domain.timestamps import format_timestamp
from shopsvc.records.context import RecordContext
from shopsvc.sql import order_refunds as refunds_sql

Row = dict[str, Any]
PLACES = 2


def _money(value: Decimal | None) -> str:
    return format_decimal(value, PLACES)


def _sku(item: Row) -> str | None:
    if item["found_product_id"] is None:
        return None
    if item["product_sku"]:
        return str(item["product_sku"])
    return str(item["parent_sku"] or "") if item["variation_id"] else ""


def _meta(entries: list[tuple[str, str]]) -> list[Row]:
    return [
        {"key": key, "value": value, "label": key}
        for key, value in entries
        if value != "" and not key.startswith("_")
    ]


def _line(item: Row, meta: dict[int, list[tuple[str, str]]]) -> Row:
    quantity = int(item["quantity"])
    total = Decimal(item["total"])
    return {
        "id": item["id"],
        "subtotal": _money(item["subtotal"]),
        "subtotal_tax": _money(item["subtotal_tax"]),
        "total": _money(total),
        "total_tax": _money(item["total_tax"]),
        "price": _money(total / quantity if quantity else Decimal(0)),
        "quantity": quantity,
        "tax_class": item["tax_class"],
        "name": item["name"],
        "product_id": int(item["variation_id"] or item["product_id"] or 0),
        "sku": _sku(item),
        "meta": _meta(meta.get(item["refunded_item_id"], [])),
        "refunded_item_id": item["refunded_item_id"],
    }


def refund_records(context: RecordContext, rows: list[Row]) -> list[Row]:
    """The records of refund rows, in their order (their items in three statements)."""
    items = refunds_sql.items_of_refunds(context.conn, [row["id"] for row in rows])
    lines = {
        refund_id: [item for item in found if item["item_type"] == "line_item"]
        for refund_id, found in items.items()
    }
    meta = refunds_sql.item_meta(
        context.conn, [item["refunded_item_id"] for found in lines.values() for item in found]
    )
    return [
        {
            "id": row["id"],
            "created_at": format_timestamp(row["created_at"]),
            "amount": _money(row["amount"]),
            "reason": row["reason"],
            "line_items": [_line(item, meta) for item in lines[row["id"]]],
        }
        for row in rows
    ]


def refund_record(context: RecordContext, row: Row) -> Row:
    """The record of one refund row."""
    [record] = refund_records(context, [row])
    return record


def order_refund_records(context: RecordContext, order_id: int) -> list[Row]:
    """The records of every refund of the order, newest first."""
    return refund_records(context, refunds_sql.list_for_order(context.conn, order_id))


def refund_record_by_id(context: RecordContext, refund_id: int) -> Row:
    """The record of the refund ``refund_id`` (it must exist)."""
    row = refunds_sql.get(context.conn, refund_id)
    assert row is not None, refund_id
    return refund_record(context, row)
