"""Order status changes and their side effects, and "payment complete" (reference orders.md
§3.2, §4 step 13; decisions.md §7 "Orders: status, stock, payment").

A change to the same status does nothing. Any other change stores the status, adds the private
system note ``"<status_note> Order status changed from <Old> to <New>."``, records the paid date
on entering processing or completed and the completed date on entering completed, reduces the
stock of stock-managed products once per line on first entering processing, completed or
on-hold (raising ``total_sales`` once), restores it on entering cancelled or pending, and on
entering refunded refunds what remains of the total ("Order fully refunded").

Lock order (docs/sql.md "The lock order"): the order's row (locked by the caller), then every
product the stock and sales moves may write, in id order, in one statement
(``sql.product_lookups.lock_with_parents``) before the status is stored (the status update
locks the ``order_counts`` rows); the moves then run in the lines' order on rows already held,
so two orders listing the same products in opposite orders never deadlock.
"""

from __future__ import annotations

from typing import Any

from shopsvc.domain import orders as rules
from shopsvc.domain.events import status_change_hooks
from shopsvc.sql import order_lookups as order_lookups_sql
from shopsvc.sql import order_note_writes as order_note_writes_sql
from shopsvc.sql import order_writes as sql
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.sql import product_writes as product_writes_sql
from shopsvc.writers.context import WriteContext
from shopsvc.writers.order_refunds import refund_remainder
from shopsvc.writers.stock import move_stock

Row = dict[str, Any]
REDUCING = ("processing", "completed", "on-hold")
RESTORING = ("cancelled", "pending")
PAYABLE = ("pending", "on-hold", "failed", "cancelled")
REFUND_REASON = "Order fully refunded"


def restore(ctx: WriteContext, order: Row) -> None:
    """Take a trashed order out of the trash with the status it had before."""
    values = {"status": order["status_before_trash"] or "pending", "status_before_trash": None}
    sql.update_order(ctx.conn, order["id"], values)
    order.update(values)


def change_status(ctx: WriteContext, order: Row, new: str, prefix: str = "") -> None:
    """Move ``order`` (its row, updated in place) to ``new`` with the side effects."""
    old = order["status"]
    if old == new:
        return
    if (new in REDUCING and not (order["stock_reduced"] and order["sales_recorded"])) or (
        new in RESTORING and order["stock_reduced"]
    ):
        # the products before the status (whose update locks the order_counts rows)
        _lock_products(ctx, order)
    values: Row = {"status": new, "updated_at": ctx.now}
    if new == "completed":
        values["date_completed"] = ctx.now
    if new in ("processing", "completed") and order["date_paid"] is None:
        values["date_paid"] = ctx.now
    sql.update_order(ctx.conn, order["id"], values)
    order.update(values)
    ctx.events.record("order", order["id"], None, status_change_hooks(old, new))
    order_note_writes_sql.insert_note(
        ctx.conn, order["id"], rules.status_note(old, new, prefix), ctx.now, system=True
    )
    if new in REDUCING:
        _reduce_stock(ctx, order)
        _record_sales(ctx, order)
    elif new in RESTORING:
        _restore_stock(ctx, order)
    elif new == "refunded":
        _refund_remainder(ctx, order)


def payment_complete(ctx: WriteContext, order: Row, transaction_id: str) -> None:
    """Reference §3.2: only from pending, on-hold, failed or cancelled; records the transaction
    id and the paid date, then processing (or completed when no line needs processing)."""
    if order["status"] not in PAYABLE:
        return
    values: Row = {}
    if transaction_id:
        values["transaction_id"] = transaction_id
    if order["date_paid"] is None:
        values["date_paid"] = ctx.now
    sql.update_order(ctx.conn, order["id"], values)
    order.update(values)
    ctx.events.record("order", order["id"], None, ["shop_payment_complete"])
    change_status(ctx, order, "processing" if _needs_processing(ctx, order) else "completed")


def _lines(ctx: WriteContext, order: Row) -> list[Row]:
    return [
        i
        for i in order_lookups_sql.get_items(ctx.conn, order["id"])
        if i["item_type"] == "line_item"
    ]


def _needs_processing(ctx: WriteContext, order: Row) -> bool:
    """A line whose product (still there) is not both virtual and downloadable."""
    lines = _lines(ctx, order)
    found = order_lookups_sql.get_products(
        ctx.conn, [i["variation_id"] or i["product_id"] for i in lines]
    )
    for line in lines:
        product = found.get(line["variation_id"] or line["product_id"])
        if product is not None and not (product["virtual"] and product["downloadable"]):
            return True
    return False


def _lock_products(ctx: WriteContext, order: Row) -> None:
    """Lock every product the lines' stock and sales moves may write (their products,
    variations and parents) in id order before the first of them (the lines' own order may
    differ from another order's: locking one by one would deadlock)."""
    lines = _lines(ctx, order)
    ids = [line["variation_id"] for line in lines] + [line["product_id"] for line in lines]
    product_lookups_sql.lock_with_parents(ctx.conn, ids)


def _move(ctx: WriteContext, order: Row, sign: int) -> None:
    for line in _lines(ctx, order):
        product_id = line["variation_id"] or line["product_id"]
        if product_id and line["quantity"]:
            move_stock(ctx, product_id, sign * line["quantity"])


def _reduce_stock(ctx: WriteContext, order: Row) -> None:
    if order["stock_reduced"]:
        return
    _move(ctx, order, -1)
    sql.update_order(ctx.conn, order["id"], {"stock_reduced": True})
    order["stock_reduced"] = True


def _restore_stock(ctx: WriteContext, order: Row) -> None:
    if not order["stock_reduced"]:
        return
    _move(ctx, order, 1)
    sql.update_order(ctx.conn, order["id"], {"stock_reduced": False})
    order["stock_reduced"] = False


def _record_sales(ctx: WriteContext, order: Row) -> None:
    if order["sales_recorded"]:
        return
    for line in _lines(ctx, order):
        if line["product_id"] and line["quantity"]:
            product_writes_sql.update_total_sales(ctx.conn, line["product_id"], line["quantity"])
    sql.update_order(ctx.conn, order["id"], {"sales_recorded": True})
    order["sales_recorded"] = True


def _refund_remainder(ctx: WriteContext, order: Row) -> None:
    """Entering refunded refunds the unrefunded remainder (reference §4 step 13)."""
    refund_remainder(ctx, order["id"], REFUND_REASON)
