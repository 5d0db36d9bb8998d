"""Writing order refunds (reference orders.md §7; decisions.md §6 and §7 "Orders: records").

The order and refund checks (ids, existence, capabilities) are the view's, through
``loaders.orders.ORDERS`` and ``loaders.orders.ORDER_REFUNDS``; these functions take rows that were
checked.

Rules, where the reference leaves a choice:

* ``amount`` is required (absent or null → 400 ``shop_api_invalid_order_refund`` "Refund amount
  is required."), must be a number (else ``shop_api_invalid_param``) and above 0 (decisions.md
  §7: "> 0", which wins over the original's "0 is accepted": 0 or less → "Refund amount must be
  positive."); it is kept to 6 decimals (the money columns) and must not exceed the remaining
  refundable amount (order total − the refunds' amounts) → 400 "Invalid refund amount.".
* ``reason``: text, null or absent → ``""``.
* ``line_items``: an object keyed by order item id → ``{qty, refund_total, refund_tax:
  {rate id: amount}}``. Keys naming no line, fee or shipping item of this order are ignored (as
  the original does); an entry with nothing to refund is skipped; ``qty`` is a non-negative
  integer, amounts non-negative numbers (else ``shop_api_invalid_param``); zero and empty tax
  amounts are dropped. Each entry becomes a negative copy of the item linked to it
  (``refunded_item_id``).
* ``restock_items`` (lenient truthiness): each refunded line's ``qty`` goes back to the stock
  it sells from (``writers.stock.move_stock``) with the note "Item #<id> stock increased from
  <old> to <new>.".
* When nothing is left to refund (and no free item remains unrefunded) the order moves to
  ``refunded`` with the status-change note; a trashed order stays trashed. No other note is added
  (the original's "fully refunded" hook finds nothing left). The order's ``updated_at`` is bumped
  by every create, edit and delete (each is an ``order.updated``).
* Edit: ``reason`` replaces; ``amount`` replaces when above 0 (0 or less is ignored, as in the
  original) and within the remaining amount without this refund (else 400 "Invalid refund
  amount."); neither the refund's items nor the order's status change.
* Delete removes the refund and its items; the order's status is not reverted.

Every write locks the order's row first (``sql.order_lookups.get_for_update``) and works from
the row read under the lock: two refunds of one order at once run one after the other, so the
second sees the first one's amount in what is left to refund and they never refund more than the
total.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from shopsvc.domain.events import status_change_hooks
from shopsvc.domain.orders import status_note
from shopsvc.errors import ApiError, invalid_param
from shopsvc.loaders.orders import ORDERS
from shopsvc.sql import order_lookups as order_lookups_sql
from shopsvc.sql import order_note_writes as order_note_writes_sql
from shopsvc.sql import order_refund_writes as order_refund_writes_sql
from shopsvc.sql import order_refunds as refunds_sql
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.validation import orders as order_validation
from shopsvc.validation.types import MAX_INT, as_text, check_text, parse_int, truthy
from shopsvc.writers.context import WriteContext
from shopsvc.writers.stock import move_stock

Row = dict[str, Any]
ENVELOPE = "order_refund"
REFUNDED = "refunded"
TRASH = "trash"


#: Orders read with their row locked (the family's 404 when one was deleted meanwhile).
_LOCKED_ORDERS = replace(ORDERS, fetch=order_lookups_sql.get_for_update)


def invalid_refund(message: str) -> ApiError:
    return ApiError("shop_api_invalid_order_refund", message, 400)


@dataclass(frozen=True)
class RefundLine:
    """What one ``line_items`` entry gives back of one order item (positive amounts)."""

    item: Row
    qty: int
    total: Decimal
    taxes: dict[str, Decimal] = field(default_factory=dict)


# --- reading the request


def _number(value: Any, name: str) -> Decimal | None:
    """A finite number (JSON number or numeric string) at 6 decimals within what the columns
    hold (``validation.orders.amount``); None when null."""
    return None if value is None else order_validation.amount(value, name)


def _amount_or_zero(value: Any, name: str) -> Decimal:
    number = _number(value, name)
    if number is None:
        return Decimal(0)
    if number < 0:
        raise invalid_param(name, "must not be negative")
    return number


def _reason(value: Any) -> str:
    if value is None:
        return ""
    text = as_text(value)
    if text is None:
        raise invalid_param(f"{ENVELOPE}.reason", "must be a string")
    return check_text(text, f"{ENVELOPE}.reason")


def _object(value: Any, name: str) -> Mapping[str, Any]:
    """An object; null and ``[]`` (PHP's empty array) are empty."""
    if value is None or value == []:
        return {}
    if not isinstance(value, dict):
        raise invalid_param(name, "must be a JSON object")
    return value


def _line(item: Row, entry: Any, name: str) -> RefundLine | None:
    data = _object(entry, name)
    qty = 0
    if data.get("qty") is not None:
        parsed = parse_int(data["qty"])
        if parsed is None or not 0 <= parsed <= MAX_INT:
            raise invalid_param(f"{name}.qty", f"must be an integer between 0 and {MAX_INT}")
        qty = parsed
    total = _amount_or_zero(data.get("refund_total"), f"{name}.refund_total")
    taxes: dict[str, Decimal] = {}
    for rate_id, amount in _object(data.get("refund_tax"), f"{name}.refund_tax").items():
        tax = _amount_or_zero(amount, f"{name}.refund_tax.{rate_id}")
        if tax:
            taxes[str(rate_id)] = tax
    if not qty and not total and not taxes:
        return None
    return RefundLine(item, qty, total, taxes)


def _lines(ctx: WriteContext, order_id: int, value: Any) -> list[RefundLine]:
    """The entries of ``line_items`` naming a line, fee or shipping item of the order, in the
    order's item order."""
    entries = _object(value, f"{ENVELOPE}.line_items")
    if not entries:
        return []
    lines = []
    for item in refunds_sql.order_items_of(ctx.conn, order_id):
        key = str(item["id"])
        if key in entries:
            line = _line(item, entries[key], f"{ENVELOPE}.line_items.{key}")
            if line is not None:
                lines.append(line)
    return lines


# --- the order


def _lock(ctx: WriteContext, order: Row) -> Row:
    """``order`` read again with its row locked until the transaction ends."""
    return _LOCKED_ORDERS.find(ctx.conn, order["id"])


def remaining_amount(ctx: WriteContext, order: Row, *, without: int | None = None) -> Decimal:
    """What is left to refund of the order: its total − the amounts of its refunds (leaving out
    the refund ``without``)."""
    refunded = refunds_sql.refunded_total(ctx.conn, order["id"], without=without)
    return Decimal(order["total"]) - refunded


def _set_refunded(ctx: WriteContext, order: Row) -> None:
    """Move the order to ``refunded`` with the status-change note (decisions.md §7); an order
    already refunded, or trashed, stays as it is."""
    if order["status"] in (REFUNDED, TRASH):
        return
    order_refund_writes_sql.update_order(ctx.conn, order["id"], ctx.now, status=REFUNDED)
    ctx.events.record("order", order["id"], None, status_change_hooks(order["status"], REFUNDED))
    text = status_note(order["status"], REFUNDED)
    order_note_writes_sql.insert_note(ctx.conn, order["id"], text, ctx.now, system=True)


def _free_item_left(ctx: WriteContext, order: Row) -> bool:
    """True when the order has a free line item and some units of its lines are not refunded
    yet (the original then calls the refund partial)."""
    items = refunds_sql.order_items_of(ctx.conn, order["id"])
    line_items = [i for i in items if i["item_type"] == "line_item"]
    if not any(Decimal(i["total"]).is_zero() for i in line_items):
        return False
    ordered = sum(int(i["quantity"]) for i in line_items)
    refunded = refunds_sql.refunded_quantity(ctx.conn, order["id"])
    return ordered - refunded > 0


# --- the writes


def _refund_item(line: RefundLine) -> Row:
    item = line.item
    taxes = {rate: str(-amount) for rate, amount in line.taxes.items()}
    tax = -sum(line.taxes.values(), Decimal(0))
    return {
        "refunded_item_id": item["id"],
        "item_type": item["item_type"],
        "name": item["name"],
        "product_id": item["product_id"],
        "variation_id": item["variation_id"],
        "quantity": -line.qty,
        "tax_class": item["tax_class"],
        "subtotal": -line.total,
        "subtotal_tax": tax,
        "total": -line.total,
        "total_tax": tax,
        "taxes": json.dumps({"total": taxes, "subtotal": taxes}),
    }


def _restock(ctx: WriteContext, order_id: int, lines: list[RefundLine]) -> None:
    # the products first, in id order (sql.product_lookups.lock_with_parents); then each line's
    # move, in the lines' order (the notes' order)
    product_lookups_sql.lock_with_parents(
        ctx.conn,
        [
            line.item["variation_id"] or line.item["product_id"]
            for line in lines
            if line.item["item_type"] == "line_item" and line.qty
        ],
    )
    for line in lines:
        item = line.item
        product_id = item["variation_id"] or item["product_id"]
        if item["item_type"] != "line_item" or not line.qty or not product_id:
            continue
        moved = move_stock(ctx, int(product_id), line.qty)
        if moved is not None:
            stocked_id, old, new = moved
            text = f"Item #{stocked_id} stock increased from {old} to {new}."
            order_note_writes_sql.insert_note(ctx.conn, order_id, text, ctx.now, system=True)


def _insert(
    ctx: WriteContext,
    order: Row,
    amount: Decimal,
    reason: str,
    lines: list[RefundLine],
    user_id: int | None,
) -> int:
    refund_id = order_refund_writes_sql.insert_refund(
        ctx.conn, order["id"], amount, reason, ctx.now, user_id
    )
    order_refund_writes_sql.insert_items(
        ctx.conn, refund_id, [_refund_item(line) for line in lines]
    )
    order_refund_writes_sql.update_order(ctx.conn, order["id"], ctx.now)
    ctx.events.record(
        "order", order["id"], "updated", ["shop_refund_created", "shop_order_refunded"]
    )
    return refund_id


def create_refund(
    ctx: WriteContext, order: Row, data: dict[str, Any], user_id: int | None = None
) -> int:
    """Create the refund ``data`` (the ``order_refund`` object) of ``order`` (its row); its id.
    ``user_id``: who refunds (stored, not shown)."""
    if data.get("amount") is None:
        raise invalid_refund("Refund amount is required.")
    amount = _number(data["amount"], f"{ENVELOPE}.amount")
    assert amount is not None
    if amount <= 0:
        raise invalid_refund("Refund amount must be positive.")
    reason = _reason(data.get("reason"))
    order = _lock(ctx, order)
    lines = _lines(ctx, order["id"], data.get("line_items"))
    restock = truthy(data.get("restock_items"))
    remaining = remaining_amount(ctx, order)
    if amount > remaining:
        raise invalid_refund("Invalid refund amount.")
    refund_id = _insert(ctx, order, amount, reason, lines, user_id)
    if restock:
        _restock(ctx, order["id"], lines)
    if remaining - amount <= 0 and not _free_item_left(ctx, order):
        _set_refunded(ctx, order)
    return refund_id


def edit_refund(ctx: WriteContext, order: Row, refund: Row, data: dict[str, Any]) -> None:
    """Apply ``reason`` and ``amount`` (when above 0) to the refund."""
    order = _lock(ctx, order)
    values: dict[str, Any] = {}
    if data.get("reason") is not None:
        values["reason"] = _reason(data["reason"])
    amount = _number(data.get("amount"), f"{ENVELOPE}.amount")
    if amount is not None and amount > 0:
        if amount > remaining_amount(ctx, order, without=refund["id"]):
            raise invalid_refund("Invalid refund amount.")
        values["amount"] = amount
    order_refund_writes_sql.update_refund(ctx.conn, refund["id"], values)
    order_refund_writes_sql.update_order(ctx.conn, order["id"], ctx.now)
    ctx.events.record("order", order["id"], "updated")


def delete_refund(ctx: WriteContext, order: Row, refund: Row) -> None:
    """Delete the refund and its items (the order's status stays)."""
    order = _lock(ctx, order)
    order_refund_writes_sql.delete_refund(ctx.conn, refund["id"])
    order_refund_writes_sql.update_order(ctx.conn, order["id"], ctx.now)
    ctx.events.record("order", order["id"], "updated", ["shop_refund_deleted"])
