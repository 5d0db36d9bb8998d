"""``seed``'s integer totals are ``calculate_totals``' totals, proven over random orders.

``shopsvc.cli.demo.totals.fast_totals`` runs the arithmetic of
``shopsvc.domain.totals.calculate_totals`` on integer millionths, for speed; the demo orders go
through ``order_totals``, which falls back to ``calculate_totals`` itself whenever the integer
path does not hold. Here random orders -- lines of any tax class (taxable or not, standard,
reduced, zero, ``"0"``, a deleted class), coupons (and lines costing more than their
subtotal), shipping, the gift-wrapping fee and other fees, rates of several priorities (shops'
usual rates, whose taxes often end in exactly half a cent, and any others), compound and not,
on shipping or not, matching the address or not -- are taxed both ways and compared field by
field with what ``calculate_totals`` returns: every line's, the shipping line's and the fee's
taxes (rate by rate, in order), the tax items, and the order's columns. The first test keeps
to the common case and checks that the integer path takes it; the second draws any settings
(prices including tax, round at subtotal, other decimals, taxes off), amounts not in whole
cents, negative fees and rates the integer path refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from shopsvc.cli.demo.products import Sellable
from shopsvc.cli.demo.taxes import Taxes, Where
from shopsvc.cli.demo.totals import Line, Totals, fast_totals, order_totals
from shopsvc.cli.demo.vocabulary import FLAT_RATES, GIFT_WRAP
from shopsvc.domain.tax import Address, TaxRate
from shopsvc.domain.totals import (
    FeeLine,
    LineItem,
    OrderTotals,
    ShippingLine,
    TotalsSettings,
    calculate_totals,
)
from shopsvc.settings import load_settings
from tests.helpers.taxes import tax_rate

MICRO = 1_000_000
CENT = 10_000
HOME = Address("GB", "", "SW1A 1AA", "London")
#: Rates as shops have them (with the integers, they make taxes of exactly half a cent).
SHOP_RATES = tuple(Decimal(rate) for rate in ("0", "0.5", "2.5", "5", "5.5", "7.25", "8.875", "20"))
CLASSES = ("reduced-rate", "zero-rate")  # the store's classes, standard excluded
LINE_CLASSES = ("", "standard", "reduced-rate", "zero-rate", "0", "deleted-class")
SHIPPING_CLASSES = ("standard", "", "inherit", "reduced-rate", "zero-rate")


# --- random stores and orders


@st.composite
def _rates(draw: st.DrawFn, common: bool) -> list[TaxRate]:
    """Up to five rates; ``common``: none compound, none of more than 4 decimals."""
    count = draw(st.integers(0, 5))
    rates = []
    for index in range(count):
        places = 4 if common else draw(st.sampled_from((0, 2, 4, 4, 6)))
        any_rate = st.integers(0, 30 * 10**places).map(lambda n, p=places: Decimal(n).scaleb(-p))
        rate = draw(st.one_of(st.sampled_from(SHOP_RATES), any_rate))
        rates.append(
            tax_rate(
                index + 1,
                country=draw(st.sampled_from(("GB", "GB", "", "FR"))),
                rate=rate,
                name=draw(st.sampled_from(("VAT", "Tax", ""))),
                priority=draw(st.integers(1, 3)),
                compound=False if common else draw(st.booleans()),
                shipping=draw(st.sampled_from((True, True, False))),
                order=index,
                tax_class=draw(st.sampled_from(("", "", *CLASSES))),
            )
        )
    return rates


def _amount(common: bool, high: int) -> st.SearchStrategy[int]:
    """An amount in micro-units up to ``high`` whole units: whole cents when ``common``."""
    return _up_to(common, high * MICRO)


def _up_to(common: bool, top: int) -> st.SearchStrategy[int]:
    """An amount in micro-units from 0 to ``top``: whole cents when ``common``, else whole
    cents or not."""
    cents = st.integers(0, top // CENT).map(lambda count: count * CENT)
    # round amounts, whose taxes often end in exactly half a cent
    round_amounts = st.integers(0, top // (10 * CENT)).map(lambda count: count * 10 * CENT)
    amounts = st.one_of(round_amounts, cents)
    return amounts if common else st.one_of(amounts, st.integers(0, top))


@st.composite
def _lines(draw: st.DrawFn, common: bool) -> list[Line]:
    """1-5 lines; a coupon takes 10 % off each (as ``seed``'s do) or any part of it; or a line
    costs more than its subtotal."""
    coupon = draw(st.sampled_from((None, "seed", "any", "more")))
    lines: list[Line] = []
    for index in range(draw(st.integers(1, 5))):
        price = draw(_amount(common, 400))
        quantity = draw(st.integers(1, 4))
        sellable = Sellable(
            index + 1,
            None,
            f"Item {index + 1}",
            price,
            draw(st.sampled_from(LINE_CLASSES)),
            draw(st.booleans()),
        )
        subtotal = price * quantity
        if coupon == "seed":
            total = (subtotal * 9 + 5 * CENT) // (10 * CENT) * CENT
        elif coupon == "any":
            total = draw(_up_to(common, subtotal))
        elif coupon == "more":
            total = subtotal + draw(_up_to(common, subtotal))
        else:
            total = subtotal
        lines.append((sellable, quantity, subtotal, total))
    return lines


def _shipping(common: bool) -> st.SearchStrategy[int]:
    return st.one_of(st.just(0), st.sampled_from(FLAT_RATES), _amount(common, 60))


def _fee(common: bool) -> st.SearchStrategy[int | None]:
    fees = st.one_of(st.none(), st.just(GIFT_WRAP), _amount(common, 30))
    if common:
        return fees
    negative = _amount(False, 2000).map(lambda amount: -amount)
    return st.one_of(fees, negative)


@st.composite
def _store(draw: st.DrawFn, common: bool) -> dict[str, Any]:
    """The totals settings; ``common``: those the integer path holds for."""
    values: dict[str, Any] = {
        "shipping_tax_class": draw(st.sampled_from(SHIPPING_CLASSES)),
        "calc_taxes": True,
        "prices_include_tax": False,
        "tax_round_at_subtotal": False,
        "decimals": 2,
    }
    if not common:
        values["calc_taxes"] = draw(st.sampled_from((True, True, True, False)))
        values["prices_include_tax"] = draw(st.booleans())
        values["tax_round_at_subtotal"] = draw(st.booleans())
        values["decimals"] = draw(st.sampled_from((2, 2, 0, 3)))
    return values


@dataclass(frozen=True)
class _Order:
    """A store (its totals settings and rates) and one of its orders (micro-units)."""

    store: dict[str, Any]
    rates: list[TaxRate]
    lines: list[Line]
    shipping: int
    fee: int | None


def _orders(common: bool) -> st.SearchStrategy[_Order]:
    """Random orders; ``common``: of the common case only."""
    return st.builds(
        _Order, _store(common), _rates(common), _lines(common), _shipping(common), _fee(common)
    )


# --- both ways


def _taxes(order: _Order) -> tuple[Taxes, Where]:
    """The generator's ``Taxes`` for the order's store, and where the order is taxed."""
    store = order.store
    ini = {
        "sqlalchemy.url": "sqlite://",
        "shopsvc.calc_taxes": str(store["calc_taxes"]).lower(),
        "shopsvc.prices_include_tax": str(store["prices_include_tax"]).lower(),
        "shopsvc.tax_round_at_subtotal": str(store["tax_round_at_subtotal"]).lower(),
        "shopsvc.shipping_tax_class": store["shipping_tax_class"],
        "shopsvc.price_decimals": str(store["decimals"]),
    }
    taxes = Taxes(order.rates, load_settings(ini, environ={}), CLASSES)
    return taxes, taxes.where(HOME, HOME)


def _decimal(micro: int) -> Decimal:
    return Decimal(micro) / MICRO


def _pairs(taxes: dict[int, Decimal]) -> tuple[tuple[int, Decimal], ...]:
    return tuple(taxes.items())


def _expected(order: _Order) -> dict[str, Any]:
    """What ``calculate_totals`` makes of the order (the fee: gift wrapping, a taxable fee of
    the standard class), in the shape of ``_seen``."""
    store, lines, fee = order.store, order.lines, order.fee
    result: OrderTotals = calculate_totals(
        [
            LineItem(_decimal(sub), _decimal(total), quantity, item.tax_class, item.taxable)
            for item, quantity, sub, total in lines
        ],
        [ShippingLine(_decimal(order.shipping))],
        [FeeLine(_decimal(fee), "", True)] if fee is not None else [],
        rates=order.rates,
        address=HOME,
        settings=TotalsSettings(
            calc_taxes=store["calc_taxes"],
            prices_include_tax=store["prices_include_tax"],
            tax_round_at_subtotal=store["tax_round_at_subtotal"],
            shipping_tax_class=store["shipping_tax_class"],
            decimals=store["decimals"],
            tax_classes=CLASSES,
        ),
    )
    [shipped] = result.shipping_lines
    return {
        "lines": [
            (line.subtotal_tax, line.total_tax, _pairs(line.taxes), _pairs(line.subtotal_taxes))
            for line in result.lines
        ],
        "shipping": (shipped.total_tax, _pairs(shipped.taxes)),
        "fee": [(f.total, f.total_tax, _pairs(f.taxes)) for f in result.fees] or None,
        "tax_items": [(t.rate_id, t.tax_total, t.shipping_tax_total) for t in result.tax_lines],
        "discount_total": result.total_discount,
        "discount_tax": sum(
            (line.subtotal_tax - line.total_tax for line in result.lines), Decimal(0)
        ),
        "shipping_total": result.total_shipping,
        "shipping_tax": result.shipping_tax,
        "cart_tax": result.cart_tax,
        "total_tax": result.total_tax,
        "total": result.total,
    }


def _seen(totals: Totals) -> dict[str, Any]:
    """The generator's totals (micro-units) as decimals."""

    def pairs(taxed: tuple[tuple[int, int], ...]) -> tuple[tuple[int, Decimal], ...]:
        return tuple((rate_id, _decimal(amount)) for rate_id, amount in taxed)

    shipping_tax, shipping_taxes = totals.shipping
    fee = None
    if totals.fee is not None:
        fee_total, fee_tax, fee_taxes = totals.fee
        fee = [(_decimal(fee_total), _decimal(fee_tax), pairs(fee_taxes))]
    return {
        "lines": [
            (_decimal(sub_tax), _decimal(total_tax), pairs(taxes), pairs(sub_taxes))
            for sub_tax, total_tax, taxes, sub_taxes in totals.lines
        ],
        "shipping": (_decimal(shipping_tax), pairs(shipping_taxes)),
        "fee": fee,
        "tax_items": [
            (rate_id, _decimal(tax), _decimal(shipping))
            for rate_id, tax, shipping in totals.tax_items
        ],
        **{
            name: _decimal(getattr(totals, name))
            for name in ("discount_total", "discount_tax", "shipping_total", "shipping_tax")
        },
        **{name: _decimal(getattr(totals, name)) for name in ("cart_tax", "total_tax", "total")},
    }


# --- the properties


@settings(max_examples=250, deadline=None)
@given(order=_orders(common=True))
def test_the_integer_totals_are_calculate_totals(order: _Order) -> None:
    """The common case -- taxes on, prices without tax, no round-at-subtotal, 2 decimals, no
    compound rate, whole cents -- takes the integer path, and it finds what
    ``calculate_totals`` finds."""
    taxes, where = _taxes(order)
    found = fast_totals(taxes, where, order.lines, order.shipping, order.fee)
    assert found is not None, "the integer path holds in the common case"
    assert _seen(found) == _expected(order)
    assert order_totals(taxes, where, order.lines, order.shipping, order.fee) == found


@settings(max_examples=250, deadline=None)
@given(order=_orders(common=False))
def test_any_order_gets_calculate_totals(order: _Order) -> None:
    """Any settings, rates and amounts: ``order_totals`` finds what ``calculate_totals``
    finds, and the integer path either agrees or declines."""
    taxes, where = _taxes(order)
    expected = _expected(order)
    assert _seen(order_totals(taxes, where, order.lines, order.shipping, order.fee)) == expected
    found = fast_totals(taxes, where, order.lines, order.shipping, order.fee)
    assert found is None or _seen(found) == expected
