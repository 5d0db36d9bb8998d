"""A demo order's taxes and totals, as ``shopsvc.domain.totals.calculate_totals`` makes them.

``order_totals`` is what the orders phase calls. In the common case -- taxes on, prices without
tax, no round-at-subtotal, 2 decimals, no compound rate nor one of more than 4 decimals, every
amount whole cents and not negative -- ``fast_totals`` runs the same arithmetic on integer
millionths, which is what lets a million orders take minutes; any other order goes through
``exact_totals``, which is ``calculate_totals`` itself. ``tests/cli/test_demo_totals.py`` proves
the two equal over random orders (a property-based test), and ``tests/cli/test_demo.py`` that
the stored totals are what an order edit's recalculation (``writers.order_arrays.plan_totals``)
stores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from shopsvc.cli.demo.money import CENT, Taxed, from_micro, to_micro
from shopsvc.cli.demo.products import Sellable
from shopsvc.cli.demo.taxes import Taxes, Where
from shopsvc.domain.totals import (
    FeeLine,
    LineItem,
    ShippingLine,
    calculate_totals,
    resolve_shipping_tax_class,
)

Line = tuple[Sellable, int, int, int]  # sellable, quantity, subtotal, total (micro)
_ZERO = Decimal(0)


@dataclass
class Totals:
    """An order's taxes and totals in micro: per line ``(subtotal_tax, total_tax, taxes,
    subtotal_taxes)``, the shipping line's ``(total_tax, taxes)``, the fee's ``(total,
    total_tax, taxes)``, the tax items ``(rate id, tax_total, shipping_tax_total)`` and the
    order's columns."""

    lines: list[tuple[int, int, Taxed, Taxed]]
    shipping: tuple[int, Taxed]
    fee: tuple[int, int, Taxed] | None
    tax_items: list[tuple[int, int, int]]
    discount_total: int
    discount_tax: int
    shipping_total: int
    shipping_tax: int
    cart_tax: int
    total_tax: int
    total: int


def fast_totals(
    taxes: Taxes,
    where: Where,
    lines: Sequence[Line],
    shipping_cost: int,
    fee: int | None,
) -> Totals | None:
    """``calculate_totals`` in integers, or None when this order needs the general path: the
    store's settings or the rates are not the common case (``Taxes.fast``, ``RateSet.fast``),
    or an amount is negative or not whole cents (``calculate_totals`` rounds such amounts, and
    rounds a negative half away from zero where the integer arithmetic here rounds it up)."""
    if not taxes.fast or shipping_cost % CENT or shipping_cost < 0:
        return None
    if fee is not None and (fee % CENT or fee < 0):
        return None
    line_results = []
    cart: dict[int, int] = {}
    for sellable, _, subtotal, total in lines:
        if subtotal % CENT or total % CENT or subtotal < 0 or total < 0:
            return None
        if sellable.taxable and sellable.tax_class != "0":
            rates = where.items.get(sellable.tax_class) or taxes.item_rates(
                where, sellable.tax_class
            )
            if not rates.fast:
                return None
            line_taxes, raw, line_tax, rounded = rates.on(total)
            sub_taxes, sub_tax = line_taxes, line_tax
            if subtotal != total:
                sub_taxes, sub_raw, sub_tax, _ = rates.on(subtotal)
                if sub_raw < raw:
                    sub_taxes, sub_tax = line_taxes, line_tax
            for rid, m in rounded:
                cart[rid] = cart.get(rid, 0) + m
            line_results.append((sub_tax, line_tax, line_taxes, sub_taxes))
        else:
            line_results.append((0, 0, (), ()))
    fee_result = None
    if fee is not None:
        rates = taxes.item_rates(where, "")
        if not rates.fast:
            return None
        fee_taxes, _, fee_tax, rounded = rates.on(fee)
        for rid, m in rounded:
            cart[rid] = cart.get(rid, 0) + m
        fee_result = (fee, fee_tax, fee_taxes)
    shipping_result: tuple[int, Taxed] = (0, ())
    ship: dict[int, int] = {}
    # the lines' classes, read only when shipping inherits its class
    classes = (LineItem(_ZERO, _ZERO, 1, s.tax_class, s.taxable) for s, _, _, _ in lines)
    shipping_class = resolve_shipping_tax_class(classes, taxes.totals_settings)
    if shipping_class is not None:
        rates = taxes.shipping_rates(where, shipping_class)
        if not rates.fast:
            return None
        shipping_taxes, _, shipping_line_tax, rounded = rates.on(shipping_cost)
        for rid, m in rounded:
            ship[rid] = ship.get(rid, 0) + m
        shipping_result = (shipping_line_tax, shipping_taxes)
    cart_tax = sum(cart.values())
    shipping_tax = sum(ship.values())
    items_total = 0
    subtotal = 0
    for _, _, sub, total in lines:
        items_total += total
        subtotal += sub
    if ship:
        tax_items = [(rid, cart.get(rid, 0), ship.get(rid, 0)) for rid in {**cart, **ship}]
    else:
        tax_items = [(rid, amount, 0) for rid, amount in cart.items()]
    return Totals(
        lines=line_results,
        shipping=shipping_result,
        fee=fee_result,
        tax_items=tax_items,
        discount_total=subtotal - items_total,
        discount_tax=sum(sub - tot for sub, tot, _, _ in line_results),
        shipping_total=shipping_cost,
        shipping_tax=shipping_tax,
        cart_tax=cart_tax,
        total_tax=cart_tax + shipping_tax,
        total=items_total + (fee or 0) + shipping_cost + cart_tax + shipping_tax,
    )


def exact_totals(
    taxes: Taxes,
    where: Where,
    lines: Sequence[Line],
    shipping_cost: int,
    fee: int | None,
) -> Totals:
    """``calculate_totals`` itself (any settings and rates), in micro."""
    result = calculate_totals(
        [
            LineItem(from_micro(sub), from_micro(tot), qty, s.tax_class, s.taxable, key=i)
            for i, (s, qty, sub, tot) in enumerate(lines)
        ],
        [ShippingLine(from_micro(shipping_cost), key="shipping")],
        [FeeLine(from_micro(fee), "", True, key="fee")] if fee is not None else [],
        rates=taxes.rates,
        address=where.address,
        settings=taxes.totals_settings,
    )

    def pairs(found: dict[int, Decimal]) -> Taxed:
        return tuple((rid, to_micro(value)) for rid, value in found.items())

    line_results = [
        (
            to_micro(line.subtotal_tax),
            to_micro(line.total_tax),
            pairs(line.taxes),
            pairs(line.subtotal_taxes),
        )
        for line in result.lines
    ]
    [shipped] = result.shipping_lines
    fee_result = None
    if result.fees:
        [charged] = result.fees
        fee_result = (to_micro(charged.total), to_micro(charged.total_tax), pairs(charged.taxes))
    discount_tax = sum((line.subtotal_tax - line.total_tax for line in result.lines), Decimal(0))
    return Totals(
        lines=line_results,
        shipping=(to_micro(shipped.total_tax), pairs(shipped.taxes)),
        fee=fee_result,
        tax_items=[
            (t.rate_id, to_micro(t.tax_total), to_micro(t.shipping_tax_total))
            for t in result.tax_lines
        ],
        discount_total=to_micro(result.total_discount),
        discount_tax=to_micro(discount_tax),
        shipping_total=to_micro(result.total_shipping),
        shipping_tax=to_micro(result.shipping_tax),
        cart_tax=to_micro(result.cart_tax),
        total_tax=to_micro(result.total_tax),
        total=to_micro(result.total),
    )


def order_totals(
    taxes: Taxes, where: Where, lines: Sequence[Line], shipping_cost: int, fee: int | None
) -> Totals:
    """The order's taxes and totals: by ``fast_totals`` when it holds, else ``exact_totals``."""
    found = fast_totals(taxes, where, lines, shipping_cost, fee)
    if found is None:
        found = exact_totals(taxes, where, lines, shipping_cost, fee)
    return found
