"""The refunds of the demo orders: of a whole order (its amount only, as a status edit to
``refunded`` stores, or item by item) and of one unit of one line, each refund item a negative
copy of the order item it gives back."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from shopsvc.cli.demo.batches import Row
from shopsvc.cli.demo.money import CENT, money_text, round_to_cent, taxes_json
from shopsvc.cli.demo.totals import Line, Totals
from shopsvc.cli.demo.vocabulary import FULL_REFUND_REASON, REFUND_REASONS, pick

REFUND_COLUMNS = ("id", "order_id", "amount", "reason", "created_at")
REFUND_ITEM_COLUMNS = (
    *("refund_id", "refunded_item_id", "item_type", "name", "product_id", "variation_id"),
    *("quantity", "tax_class", "subtotal", "subtotal_tax", "total", "total_tax", "taxes"),
)
#: A refund before its ids: amount, reason, when, and its items ``(index of the order item
#: given back, REFUND_ITEM_COLUMNS from item_type)``.
Refund = tuple[str, str, dt.datetime, list[tuple[int, Row]]]


def refund_item(item: Row, quantity: int, total: int, taxes: Sequence[tuple[int, int]]) -> Row:
    """A negative copy of ``item`` (``REFUND_ITEM_COLUMNS`` from ``item_type``)."""
    negative = tuple((rid, -m) for rid, m in taxes)
    tax = money_text(-sum(m for _, m in taxes))
    amount = money_text(-total)
    stored_taxes = taxes_json(negative, negative)
    # item_type, name, product_id, variation_id; quantity; tax_class; the amounts
    return (*item[:4], -quantity, item[5], amount, tax, amount, tax, stored_taxes)


def full_refund(
    rnd: Any, items: list[Row], lines: Sequence[Line], totals: Totals, at: dt.datetime
) -> Refund:
    """The refund of the whole order: of the amount only (what a status edit to ``refunded``
    stores), or of each line, the shipping and the fee."""
    amount = money_text(totals.total)
    if rnd() < 0.5:
        return amount, FULL_REFUND_REASON, at, []
    given: list[tuple[int, Row]] = []
    for index, ((_, quantity, _, total), result) in enumerate(
        zip(lines, totals.lines, strict=True)
    ):
        rounded = [(rid, round_to_cent(m)) for rid, m in result[2]]
        given.append((index, refund_item(items[index], quantity, total, rounded)))
    position = len(lines)
    shipping_tax, shipping_taxes = totals.shipping
    if totals.shipping_total or shipping_tax:
        rounded = [(rid, round_to_cent(m)) for rid, m in shipping_taxes]
        item = refund_item(items[position], 0, totals.shipping_total, rounded)
        given.append((position, item))
    if totals.fee is not None:
        fee_total, _, fee_taxes = totals.fee
        rounded = [(rid, round_to_cent(m)) for rid, m in fee_taxes]
        given.append((position + 1, refund_item(items[position + 1], 0, fee_total, rounded)))
    return amount, pick(rnd, REFUND_REASONS), at, given


def partial_refund(
    rnd: Any, items: list[Row], lines: Sequence[Line], totals: Totals, at: dt.datetime
) -> Refund | None:
    """One unit of one line given back, with its share of the line's taxes (None when that
    comes to nothing or to more than the order's total)."""
    index = int(rnd() * len(lines))
    _, quantity, _, total = lines[index]
    unit = (total // quantity + CENT // 2) // CENT * CENT
    taxes = [(rid, round_to_cent(m // quantity)) for rid, m in totals.lines[index][2]]
    amount = unit + sum(m for _, m in taxes)
    if amount <= 0 or amount > totals.total:
        return None
    item = refund_item(items[index], 1, unit, taxes)
    return money_text(amount), pick(rnd, REFUND_REASONS), at, [(index, item)]
