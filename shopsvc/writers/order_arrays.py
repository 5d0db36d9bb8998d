"""An order plan's item arrays and totals (reference orders.md §9, §10, §4 step 7): the
elements of ``line_items``, ``shipping_lines``, ``fee_lines`` and ``coupon_lines`` (in that
order, each in array order) checked and applied to the order's items as they will be stored,
then the taxes and totals recalculated on them — with reads only: the new rows, the changed
rows and the deleted ids go into the plan's :class:`~shopsvc.writers.order_plan.Scratch`, and
the planner (``writers.order_batch``) writes them with the rest.

An update or delete must name an item of this order and of that array's type (an item deleted
earlier in the request no longer is one), else 400 ``shop_invalid_item_id``. The amounts are
range-checked where the database would refuse them (``sql.order_batch.check_item_amounts``), in
the order a write of each row would check them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shopsvc.domain.tax import TaxRate
from shopsvc.settings import Settings
from shopsvc.sql import order_batch as sql
from shopsvc.validation.orders import ARRAYS, OrderInput
from shopsvc.writers.context import WriteContext
from shopsvc.writers.order_items import (
    Catalog,
    coupon_changes,
    fee_changes,
    invalid_item_id,
    line_changes,
    new_coupon,
    new_fee,
    new_line,
    new_shipping,
    shipping_changes,
)
from shopsvc.writers.order_plan import PlannedOrder, Scratch
from shopsvc.writers.order_totals import compute_totals, tax_item_values

Row = dict[str, Any]

_NEW: dict[str, Callable[[Row], Row]] = {
    "shipping": new_shipping,
    "fee": new_fee,
    "coupon": new_coupon,
}


def _changes(catalog: Catalog, kind: str, item: Row, values: Row) -> Row:
    if kind == "line_item":
        return line_changes(catalog, item, values)
    if kind == "shipping":
        return shipping_changes(values)
    if kind == "fee":
        return fee_changes(values)
    return coupon_changes(values)


def plan_arrays(
    ctx: WriteContext, catalog: Catalog, s: Scratch, order: PlannedOrder, clean: OrderInput
) -> None:
    """The elements of the four arrays, applied to ``order.items`` (copies of the stored items,
    by id): new items appended (their ids are taken in this order), updates applied as the
    database would store them, deleted items removed."""
    by_id = {item["id"]: item for item in order.items if "id" in item}
    for array, kind in ARRAYS.items():
        for element in clean.items.get(array, []):
            if element.id is None:
                _add(ctx, catalog, s, order, kind, element.values)
                continue
            item = by_id.get(element.id)
            if item is None or item["item_type"] != kind:
                raise invalid_item_id()
            if element.delete:
                del by_id[element.id]
                order.items.remove(item)
                s.updated_items.pop(item["id"], None)
                s.deleted_items.append(item["id"])
                continue
            changes = _changes(catalog, kind, item, element.values)
            sql.check_item_amounts(changes)
            item.update(sql.as_stored_item(ctx.conn, changes))
            s.updated_items[item["id"]] = item


def _add(
    ctx: WriteContext, catalog: Catalog, s: Scratch, order: PlannedOrder, kind: str, values: Row
) -> None:
    meta: list[tuple[str, str]] = []
    if kind == "line_item":
        columns, meta = new_line(ctx, catalog, values)
    else:
        columns = _NEW[kind](values)
    sql.check_item_amounts(columns)
    item = s.add(sql.ITEMS, sql.new_item_row(columns), order.row, "order_id")
    order.items.append(item)
    for key, value in meta:
        s.add(sql.ITEM_META, {"meta_key": key, "meta_value": value}, item, "item_id")


def plan_totals(
    ctx: WriteContext,
    s: Scratch,
    order: PlannedOrder,
    rates: list[TaxRate],
    tax_classes: tuple[str, ...],
) -> None:
    """Recalculate the order's taxes and totals on its items as the database gives them back
    (``domain.totals`` through ``order_totals.compute_totals``): each line's, shipping line's
    and fee's new columns, one tax item per rate id (kept and refreshed when the rate is still
    used, added when new, deleted when no longer used: reference §10.4) and the order's
    totals; the range checks in the order the writes of each would make them."""
    items = order.items
    stored = [{**sql.as_stored_item(ctx.conn, item), "id": key} for key, item in enumerate(items)]
    settings: Settings = ctx.settings
    found = compute_totals(settings, order.row, stored, rates, tax_classes)
    for key, values in (*found.lines, *found.shipping, *found.fees):
        if values:
            sql.check_item_amounts(values)
            _change(s, items[key], values)
    taxes = {item["rate_id"]: item for item in items if item["item_type"] == "tax"}
    for line in found.tax_lines:
        values = tax_item_values(line)
        item = taxes.pop(line.rate_id, None)
        if item is None:
            values = {"item_type": "tax", "rate_id": line.rate_id, **values}
            sql.check_item_amounts(values)
            items.append(s.add(sql.ITEMS, sql.new_item_row(values), order.row, "order_id"))
        else:
            sql.check_item_amounts(values)
            _change(s, item, values)
    for item in taxes.values():
        items.remove(item)
        s.updated_items.pop(item["id"], None)
        s.deleted_items.append(item["id"])
    sql.check_order_amounts(found.order)
    order.row.update(found.order)


def _change(s: Scratch, item: Row, values: Row) -> None:
    """``values`` on ``item``: a new row not yet written, or a stored one (then updated)."""
    item.update(values)
    if "id" in item:
        s.updated_items[item["id"]] = item
