"""Order status changes and their side effects, and "payment complete", as steps of an order's
plan (reference orders.md §3.2, §4 step 13; decisions.md §7 "Orders: status, stock, payment").

A change to the same status does nothing. Any other change sets the status, adds the private
system note ``"<status_note> Order status changed from <Old> to <New>."``, records the paid date
on entering processing or completed and the completed date on entering completed, reduces the
stock of stock-managed products once per line on first entering processing, completed or
on-hold (raising ``total_sales`` once), restores it on entering cancelled or pending, and on
entering refunded refunds what remains of the total ("Order fully refunded"). "Payment complete"
only acts from pending, on-hold, failed or cancelled: the transaction id, the paid date, then
processing (or completed when no line needs processing).

The stock moves are planned on the planner's copy of the products' stock (``writers.stock``'s
arithmetic: ``stock_source``, ``stock_moved``, a variable parent's status), so a later order of
the same bulk sees them; the planner locked every product they may write before its first plan
(``sql.order_lookups.products_with_families``, in id order: docs/sql.md "The lock order") and
writes the stock, the sales, the notes and the refunds with the rest of the plan.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from shopsvc.domain import orders as rules
from shopsvc.domain import stock
from shopsvc.domain.events import status_change_hooks, stock_hook
from shopsvc.errors import Sequential
from shopsvc.settings import Settings
from shopsvc.sql import order_batch as sql
from shopsvc.writers.order_plan import PlannedOrder, Scratch
from shopsvc.writers.stock import stock_moved, stock_source

Row = dict[str, Any]
REDUCING = ("processing", "completed", "on-hold")
RESTORING = ("cancelled", "pending")
PAYABLE = ("pending", "on-hold", "failed", "cancelled")
REFUND_REASON = "Order fully refunded"
_ZERO = Decimal(0)


class StatusSteps:
    """The status, payment and stock steps of :class:`~shopsvc.writers.order_batch.OrderBatch`
    (which holds the state they read and change)."""

    settings: Settings
    now: Any
    #: the products and variations the plans may read, by id (locked), and their families
    _products: dict[int, Row]
    _covered: set[int]
    _families: set[int]
    _children: dict[int, list[int]]
    #: the stock as the earlier plans left it, by product id
    _stock: dict[int, Row]
    #: what the edited orders' refunds add up to, by order id
    _refunded: dict[int, Decimal]

    def _change_status(self, s: Scratch, order: PlannedOrder, new: str, prefix: str = "") -> None:
        row = order.row
        old = row["status"]
        if old == new:
            return
        row["status"] = new
        row["updated_at"] = self.now
        if new == "completed":
            row["date_completed"] = self.now
        if new in ("processing", "completed") and row["date_paid"] is None:
            row["date_paid"] = self.now
        s.events.append(("order", row, None, status_change_hooks(old, new)))
        note = {
            "note": rules.status_note(old, new, prefix),
            "customer_note": False,
            "system": True,
            "created_at": self.now,
        }
        s.add(sql.NOTES, note, row, "order_id")
        if new in REDUCING:
            if not row["stock_reduced"]:
                self._move(s, order, -1)
                row["stock_reduced"] = True
            if not row["sales_recorded"]:
                for line in order.lines:
                    if line["product_id"] and line["quantity"]:
                        s.sales[line["product_id"]] = (
                            s.sales.get(line["product_id"], 0) + line["quantity"]
                        )
                row["sales_recorded"] = True
        elif new in RESTORING and row["stock_reduced"]:
            self._move(s, order, 1)
            row["stock_reduced"] = False
        elif new == "refunded":
            self._refund_remainder(s, order)

    def _refund_remainder(self, s: Scratch, order: PlannedOrder) -> None:
        """Entering refunded refunds what is left of the total (reference §4 step 13): a refund
        without items, the order's ``updated_at`` bumped (it is, by the plan) and an
        ``order.updated`` with ``shop_refund_created`` and ``shop_order_refunded``, as a refund
        made through ``/orders/<id>/refunds`` records (``writers.order_refunds``)."""
        row = order.row
        remaining = Decimal(row["total"]) - self._refunded.get(row.get("id", 0), _ZERO)
        if remaining <= 0:
            return
        refund = {
            "amount": remaining,
            "reason": REFUND_REASON,
            "user_id": None,
            "created_at": self.now,
        }
        sql.check_refund_amount(refund)
        s.add(sql.REFUNDS, refund, row, "order_id")
        s.events.append(("order", row, "updated", ["shop_refund_created", "shop_order_refunded"]))

    def _payment_complete(self, s: Scratch, order: PlannedOrder, transaction_id: str) -> None:
        row = order.row
        if row["status"] not in PAYABLE:
            return
        if transaction_id:
            row["transaction_id"] = transaction_id
        if row["date_paid"] is None:
            row["date_paid"] = self.now
        s.events.append(("order", row, None, ["shop_payment_complete"]))
        self._change_status(
            s, order, "processing" if self._needs_processing(order) else "completed"
        )

    def _needs_processing(self, order: PlannedOrder) -> bool:
        for line in order.lines:
            product_id = line["variation_id"] or line["product_id"]
            product = self._products.get(product_id) if product_id else None
            if product_id and product_id not in self._covered:
                raise Sequential
            if product is not None and not (product["virtual"] and product["downloadable"]):
                return True
        return False

    def _stock_row(self, s: Scratch, product_id: int) -> Row | None:
        if product_id not in self._covered:
            raise Sequential
        found = s.stock.get(product_id) or self._stock.get(product_id)
        return found if found is not None else self._products.get(product_id)

    def _set_stock(self, s: Scratch, row: Row, **values: Any) -> Row:
        changed = {**row, **values}
        s.stock[row["id"]] = changed
        return changed

    def _move(self, s: Scratch, order: PlannedOrder, sign: int) -> None:
        for line in order.lines:
            product_id = line["variation_id"] or line["product_id"]
            if product_id and line["quantity"]:
                self._move_stock(s, product_id, sign * line["quantity"])

    def _move_stock(self, s: Scratch, product_id: int, delta: int) -> None:
        """``writers.stock.move_stock`` on the batch's stock."""
        settings = self.settings
        if not settings.manage_stock:
            return
        row = stock_source(product_id, lambda i: self._stock_row(s, i))
        if row is None:
            return
        old, new, status = stock_moved(row, delta, settings.out_of_stock_threshold)
        row = self._set_stock(s, row, stock_quantity=new, stock_status=status)
        if new != old:
            s.events.append(("product", row["id"], None, [stock_hook(row["type"] == "variation")]))
        self._sync_variable_parent(s, row["parent_id"] if row["type"] == "variation" else row["id"])

    def _sync_variable_parent(self, s: Scratch, parent_id: int | None) -> None:
        if not parent_id:
            return
        parent = self._stock_row(s, parent_id)
        if parent is None or parent["type"] != "variable":
            return
        if parent_id not in self._families:
            raise Sequential
        variations = [self._stock_row(s, i) for i in self._children.get(parent_id, [])]
        status = stock.variable_parent_status(
            [
                _state(v)
                for v in variations
                if v is not None
                and v["type"] == "variation"
                and v["status"] in ("publish", "private")
            ],
            _state(parent),
            store_manages=self.settings.manage_stock,
            threshold=self.settings.out_of_stock_threshold,
        )
        if status != parent["stock_status"]:
            self._set_stock(s, parent, stock_status=status)


def _state(row: Row) -> stock.StockState:
    return stock.StockState(
        bool(row["manage_stock"]), row["stock_quantity"], row["backorders"], row["stock_status"]
    )
