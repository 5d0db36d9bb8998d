"""Pure order totals: line, shipping and fee taxes, tax lines and the order-level totals.

Where the rules come from (decisions.md wins over the reference where they differ):

* ``/work/shared/reference/orders.md`` §10 "Totals and taxes" (the 3.x "calculate totals"):
  §10.1 the tax address, §10.2 taxes per item, §10.3 shipping, §10.4 the order level, §10.5 the
  worked example; §1.1 (``subtotal``, ``total_tax``, ``total_discount``), §1.4 (tax line
  ``code`` and ``title``), §9.3 (negative fees), §9.4 (coupon lines feed nothing);
* ``/work/shared/spec/decisions.md`` §6 (the reference's 3.x rules; a fee is taxed only when
  ``taxable`` is true) and §7 "Tax arithmetic" (6-decimal tax amounts, half down when prices
  include tax; output rounding half away from zero) and "Line items" (quantity scaling);
* ``/work/shared/reference/core.md`` §9.7-9.8, implemented by :mod:`shopsvc.domain.tax`, which
  does every rate match and every tax computation here.

Everything here is pure: no I/O, ``Decimal`` for every amount. Stored line, shipping and fee
amounts are always **ex tax** (§10.4); the store's ``prices_include_tax`` only picks the tax
rounding mode (and the helper :func:`price_excluding_tax` for a new line's default price).

Choices where the reference leaves room (its documented intent, recorded here):

* Tax amounts are kept at 6 decimals whatever the store decimals (decisions §7), not at the
  reference's ``max(decimals + 2, 6)``.
* The per-rate rounding of an item's tax to store decimals (§10.2, skipped when
  ``tax_round_at_subtotal``) uses the tax rounding mode (half down when prices include tax, as
  the original's tax-total rounding does); every other rounding to store decimals -- line and
  shipping amounts, ``subtotal``, ``total_discount``, ``total_tax``, ``total`` -- is half away
  from zero.
* Line amounts enter ``subtotal``, ``total_discount``, ``total`` and the negative-fee cap each
  rounded to store decimals unless ``tax_round_at_subtotal`` (the reference's "3.x later" rule,
  used for all four alike). Shipping totals are always rounded one by one (§10.4); fee totals
  enter ``total`` as they are (§10.4 "Σ fee totals"). ``cart_tax`` and ``shipping_tax`` are the
  plain sums of the per-rate amounts (already at store decimals unless round-at-subtotal).
* ``inherit`` shipping class (§10.3): the first of standard, then ``TotalsSettings.tax_classes``
  (the store's class order), that a line with ``taxable`` true uses. A class the store does not
  list (deleted, or the list not given) comes after those, in line order, rather than being
  dropped as the original does: a deleted class has no rates left, so it taxes nothing either
  way, and a caller that forgets the list still gets shipping taxed. No taxable line: shipping
  is not taxed.
* Negative fees (§9.3): a taxable negative fee is capped, then its tax is apportioned over the
  tax classes of the order's non-negative items in proportion to their totals; shipping counts
  under the shipping tax class it is taxed with (as non-taxable when shipping is not taxed). A
  non-taxable negative fee carries no tax (decisions §6).
* Tax lines are the stored tax items, one per rate id used, zero amounts included; merging them
  by ``code`` and hiding zero totals (§1.4) is the representation's job. A tax line's ``title``
  is the rate name (names are never empty once stored; an empty one reads ``"Tax"``).
* Coupon lines are a record only (§9.4): nothing here takes them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal, localcontext

from shopsvc.domain import tax
from shopsvc.domain.money import round_money
from shopsvc.domain.tax import Address, TaxRate

__all__ = [
    "TAX_BASED_ON",
    "FeeLine",
    "FeeTotals",
    "LineItem",
    "LineTotals",
    "OrderTotals",
    "ShippingLine",
    "ShippingTotals",
    "TaxLine",
    "TotalsSettings",
    "calculate_totals",
    "price_excluding_tax",
    "rate_code",
    "resolve_shipping_tax_class",
    "scale_line_amounts",
    "tax_address",
]

#: The values of the store setting ``tax_based_on`` (decisions.md §1).
TAX_BASED_ON = ("shipping", "billing", "base")

_STANDARD = "standard"
_INHERIT = "inherit"
_NEVER_TAXED_CLASS = "0"  # reference §10.2: an item of tax class "0" is never taxed
_ZERO = Decimal(0)
_PRECISION = 60


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TotalsSettings:
    """The store settings the totals depend on (decisions.md §1 and §7).

    ``shipping_tax_class`` is ``standard`` (or ``""``), a class slug, or ``inherit``;
    ``tax_classes`` lists the store's class slugs, standard excluded, in the store's order (it
    only matters for ``inherit``); ``decimals`` is the store's ``price_decimals``.
    """

    calc_taxes: bool = True
    prices_include_tax: bool = False
    tax_round_at_subtotal: bool = False
    shipping_tax_class: str = _STANDARD
    decimals: int = 2
    tax_classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class LineItem:
    """A line item as stored (reference §1.2): ``subtotal`` before and ``total`` after the
    discount, both ex tax; ``tax_class`` ``""`` (or ``"standard"``) is the standard class;
    ``taxable`` is the product's tax status (a deleted product counts as taxable)."""

    subtotal: Decimal
    total: Decimal
    quantity: int = 1
    tax_class: str = ""
    taxable: bool = True
    key: Hashable = None


@dataclass(frozen=True)
class ShippingLine:
    """A shipping line: its cost ex tax (reference §1.3)."""

    total: Decimal
    key: Hashable = None


@dataclass(frozen=True)
class FeeLine:
    """A fee line (reference §1.5, §9.3): ``total`` ex tax, negative for a discount fee; taxed
    only when ``taxable`` (decisions.md §6)."""

    total: Decimal
    tax_class: str = ""
    taxable: bool = False
    key: Hashable = None


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineTotals:
    """A line's amounts (as given) and taxes; ``taxes``/``subtotal_taxes`` map rate id to the
    6-decimal tax on ``total``/``subtotal``."""

    key: Hashable
    subtotal: Decimal
    subtotal_tax: Decimal
    total: Decimal
    total_tax: Decimal
    taxes: dict[int, Decimal]
    subtotal_taxes: dict[int, Decimal]


@dataclass(frozen=True)
class ChargeTotals:
    """A shipping line's cost (as given) or a fee's total (after the negative-fee cap), and its
    taxes by rate id."""

    key: Hashable
    total: Decimal
    total_tax: Decimal
    taxes: dict[int, Decimal]


ShippingTotals = ChargeTotals
FeeTotals = ChargeTotals


@dataclass(frozen=True)
class TaxLine:
    """One stored tax item per rate id (reference §10.4, §1.4): ``tax_total`` is the tax on line
    items and fees, ``shipping_tax_total`` the tax on shipping."""

    rate_id: int
    code: str
    title: str
    compound: bool
    tax_total: Decimal
    shipping_tax_total: Decimal


@dataclass(frozen=True)
class OrderTotals:
    """Everything a totals recalculation stores, items in input order (reference §10.4)."""

    lines: tuple[LineTotals, ...]
    shipping_lines: tuple[ShippingTotals, ...]
    fees: tuple[FeeTotals, ...]
    tax_lines: tuple[TaxLine, ...]
    subtotal: Decimal
    cart_tax: Decimal
    shipping_tax: Decimal
    total_shipping: Decimal
    total_tax: Decimal
    total_discount: Decimal
    total: Decimal
    total_line_items_quantity: int


# --------------------------------------------------------------------------------------------
# Small public rules
# --------------------------------------------------------------------------------------------


def tax_address(tax_based_on: str, billing: Address, shipping: Address, base: Address) -> Address:
    """The address taxes are matched against (reference §10.1).

    ``shipping``: the shipping address, or billing when it has no country; ``billing``: the
    billing address; ``base``: the store address. A chosen address without a country falls
    back to the store address.
    """
    if tax_based_on == "shipping":
        chosen = shipping if shipping.country else billing
    elif tax_based_on == "billing":
        chosen = billing
    elif tax_based_on == "base":
        chosen = base
    else:
        raise ValueError(f"tax_based_on must be one of {TAX_BASED_ON}, not {tax_based_on!r}")
    return chosen if chosen.country else base


def rate_code(rate: TaxRate) -> str:
    """A tax line's ``code`` (reference §1.4): ``COUNTRY-STATE-NAME-PRIORITY`` upper-cased.

    Like the original's ``array_filter``, parts that PHP finds false (``""``, ``"0"``, priority
    0) are dropped, and a false name reads ``TAX``: ``US-CA-TAX-1``, ``US-STANDARD-1``.
    """
    name = rate.name if _php_truthy(rate.name) else "TAX"
    parts = (rate.country, rate.state, name, str(rate.priority))
    return "-".join(part for part in parts if _php_truthy(part)).upper()


def resolve_shipping_tax_class(lines: Iterable[LineItem], settings: TotalsSettings) -> str | None:
    """The tax class shipping is taxed in (reference §10.3), ``""`` for standard.

    ``inherit``: the first class used by a taxable line, in the order standard,
    ``settings.tax_classes``, then unlisted classes in line order; ``None`` (shipping not taxed)
    when there is no taxable line.
    """
    setting = settings.shipping_tax_class
    if setting != _INHERIT:
        return _class_slug(setting)
    used = [_class_slug(line.tax_class) for line in lines if line.taxable]
    for candidate in ("", *settings.tax_classes, *used):
        if candidate in used:
            return candidate
    return None


def scale_line_amounts(
    subtotal: Decimal, total: Decimal, old_quantity: int, new_quantity: int
) -> tuple[Decimal, Decimal]:
    """``(subtotal, total)`` after a quantity change that sent neither (decisions.md §7 "Line
    items"): both times ``new_quantity / old_quantity``, at 6 decimals (half up)."""
    if old_quantity <= 0:
        raise ValueError("cannot scale a line whose quantity was not positive")
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        ratio = Decimal(new_quantity) / Decimal(old_quantity)
        return (
            tax.round_tax(Decimal(subtotal) * ratio, prices_include_tax=False),
            tax.round_tax(Decimal(total) * ratio, prices_include_tax=False),
        )


def price_excluding_tax(price: Decimal, base_rates: Sequence[TaxRate]) -> Decimal:
    """A tax-inclusive price with its tax taken out (reference §10.4 (a)): the default amount
    of a new line when store prices include tax. ``base_rates`` are the store base address's
    rates for the product's class; the taxes are 6-decimal (half down), the result unrounded."""
    taxes = tax.calc_tax(price, base_rates, prices_include_tax=True)
    return Decimal(price) - sum(taxes.values(), _ZERO)


# --------------------------------------------------------------------------------------------
# The calculation (reference §10.2-10.4)
# --------------------------------------------------------------------------------------------


def calculate_totals(
    lines: Sequence[LineItem] = (),
    shipping_lines: Sequence[ShippingLine] = (),
    fees: Sequence[FeeLine] = (),
    *,
    rates: Iterable[TaxRate],
    address: Address,
    settings: TotalsSettings,
) -> OrderTotals:
    """Recalculate an order's taxes and totals (reference §10.2-10.4, 3.x).

    ``rates`` is the whole rate table (matched here for ``address`` and each item's class);
    ``address`` comes from :func:`tax_address`. With ``settings.calc_taxes`` off every tax is
    zero and there are no tax lines.
    """
    calc = _Calculation(tuple(rates), address, settings)
    line_results = tuple(calc.line(line) for line in lines)

    total_shipping = sum((calc.money(s.total) for s in shipping_lines), _ZERO)
    items_total = sum((calc.line_amount(line.total) for line in lines), _ZERO)
    fee_amounts = calc.capped_fees(fees, items_total + total_shipping)

    shipping_class = resolve_shipping_tax_class(lines, settings)
    costs = _class_costs(lines, zip(fees, fee_amounts, strict=True), shipping_lines, shipping_class)
    fee_results = tuple(
        calc.fee(fee, amount, costs) for fee, amount in zip(fees, fee_amounts, strict=True)
    )
    shipping_results = tuple(calc.shipping(s, shipping_class) for s in shipping_lines)

    cart_taxes = calc.taxes_by_rate([*line_results, *fee_results])
    shipping_taxes = calc.taxes_by_rate(shipping_results)
    cart_tax = sum(cart_taxes.values(), _ZERO)
    shipping_tax = sum(shipping_taxes.values(), _ZERO)

    line_subtotals = sum((calc.line_amount(line.subtotal) for line in lines), _ZERO)
    return OrderTotals(
        lines=line_results,
        shipping_lines=shipping_results,
        fees=fee_results,
        tax_lines=calc.tax_lines(cart_taxes, shipping_taxes),
        subtotal=calc.money(line_subtotals),
        cart_tax=cart_tax,
        shipping_tax=shipping_tax,
        total_shipping=calc.money(total_shipping),
        total_tax=calc.money(cart_tax + shipping_tax),
        total_discount=calc.money(line_subtotals - items_total),
        total=calc.money(
            items_total + sum(fee_amounts, _ZERO) + total_shipping + cart_tax + shipping_tax
        ),
        total_line_items_quantity=sum(int(line.quantity) for line in lines),
    )


class _Calculation:
    """The rates, address and settings of one recalculation, and the rules that use them."""

    def __init__(self, rates: tuple[TaxRate, ...], address: Address, settings: TotalsSettings):
        self.rates = rates
        self.address = address
        self.settings = settings

    # ---- rounding --------------------------------------------------------------------------

    def money(self, amount: Decimal) -> Decimal:
        """An order-level amount at store decimals, half away from zero, never ``-0``."""
        return round_money(amount, self.settings.decimals)

    def line_amount(self, amount: Decimal) -> Decimal:
        """A line amount as it enters the order sums: rounded unless round-at-subtotal."""
        if self.settings.tax_round_at_subtotal:
            return Decimal(amount)
        return round_money(amount, self.settings.decimals)

    def item_tax(self, amount: Decimal) -> Decimal:
        """One rate's tax on one item as it enters the item and order tax totals (§10.2):
        rounded to store decimals in the tax rounding mode unless round-at-subtotal."""
        if self.settings.tax_round_at_subtotal:
            return amount
        rounding = ROUND_HALF_DOWN if self.settings.prices_include_tax else ROUND_HALF_UP
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            return amount.quantize(Decimal(1).scaleb(-self.settings.decimals), rounding=rounding)

    def tax_total(self, taxes: dict[int, Decimal]) -> Decimal:
        return sum((self.item_tax(amount) for amount in taxes.values()), _ZERO)

    # ---- taxes -----------------------------------------------------------------------------

    def taxes_on(self, amount: Decimal, rates: Sequence[TaxRate]) -> dict[int, Decimal]:
        """Exclusive taxes on a stored (ex-tax) amount (§10.2, core.md §9.8), each rounded to 6
        decimals half up, or half down when store prices include tax (decisions.md §7)."""
        # tax.calc_tax ties the half-down rounding to inclusive arithmetic; orders need
        # exclusive arithmetic with either rounding, so the exclusive step is called directly.
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            raw = tax.exclusive_taxes(Decimal(amount), rates)
        return {
            rate_id: tax.round_tax(value, self.settings.prices_include_tax)
            for rate_id, value in raw.items()
        }

    def is_taxed(self, taxable: bool, tax_class: str) -> bool:
        """§10.2: taxes on, the item taxable, its class not ``"0"``."""
        return self.settings.calc_taxes and taxable and tax_class != _NEVER_TAXED_CLASS

    def item_rates(self, tax_class: str) -> list[TaxRate]:
        return tax.find_rates(self.rates, self.address, tax_class)

    # ---- items -----------------------------------------------------------------------------

    def line(self, line: LineItem) -> LineTotals:
        """§10.2: taxes on the total and on the subtotal; subtotal taxes never below total
        taxes."""
        taxes: dict[int, Decimal] = {}
        subtotal_taxes: dict[int, Decimal] = {}
        if self.is_taxed(line.taxable, line.tax_class):
            rates = self.item_rates(line.tax_class)
            taxes = self.taxes_on(line.total, rates)
            subtotal_taxes = self.taxes_on(line.subtotal, rates)
            if sum(subtotal_taxes.values(), _ZERO) < sum(taxes.values(), _ZERO):
                subtotal_taxes = dict(taxes)
        return LineTotals(
            key=line.key,
            subtotal=line.subtotal,
            subtotal_tax=self.tax_total(subtotal_taxes),
            total=line.total,
            total_tax=self.tax_total(taxes),
            taxes=taxes,
            subtotal_taxes=subtotal_taxes,
        )

    def shipping(self, line: ShippingLine, tax_class: str | None) -> ShippingTotals:
        """§10.3: shipping-flagged rates of the shipping tax class, on the line's cost."""
        taxes: dict[int, Decimal] = {}
        if self.settings.calc_taxes and tax_class is not None:
            rates = tax.shipping_rates(self.rates, self.address, tax_class)
            taxes = self.taxes_on(line.total, rates)
        return ShippingTotals(
            key=line.key, total=line.total, total_tax=self.tax_total(taxes), taxes=taxes
        )

    def capped_fees(self, fees: Sequence[FeeLine], items_and_shipping: Decimal) -> list[Decimal]:
        """§9.3: a negative fee may take off at most what the items, the earlier fees and
        shipping add up to (that sum rounded to store decimals)."""
        amounts: list[Decimal] = []
        running = Decimal(items_and_shipping)
        for fee in fees:
            amount = Decimal(fee.total)
            if amount < 0:
                floor = _ZERO - round_money(running, self.settings.decimals)
                amount = max(amount, floor)
            amounts.append(amount)
            running += amount
        return amounts

    def fee(self, fee: FeeLine, amount: Decimal, costs: dict[str | None, Decimal]) -> FeeTotals:
        """§10.2 for a fee (taxed only when taxable); a negative fee's tax is apportioned over
        the order's tax classes by cost (§9.3)."""
        taxes: dict[int, Decimal] = {}
        if self.is_taxed(fee.taxable, fee.tax_class):
            if amount >= 0:
                taxes = self.taxes_on(amount, self.item_rates(fee.tax_class))
            else:
                taxes = self.apportioned_taxes(amount, costs)
        return FeeTotals(key=fee.key, total=amount, total_tax=self.tax_total(taxes), taxes=taxes)

    def apportioned_taxes(
        self, amount: Decimal, costs: dict[str | None, Decimal]
    ) -> dict[int, Decimal]:
        """Each class's share ``amount × cost / Σ costs`` taxed at that class's rates; the
        non-taxable share (key ``None``) carries no tax; taxes of one rate id are added up."""
        all_costs = sum(costs.values(), _ZERO)
        taxes: dict[int, Decimal] = {}
        if not all_costs:
            return taxes
        for tax_class, cost in costs.items():
            if tax_class is None:
                continue
            with localcontext() as ctx:
                ctx.prec = _PRECISION
                share = amount * cost / all_costs
            for rate_id, value in self.taxes_on(share, self.item_rates(tax_class)).items():
                taxes[rate_id] = taxes.get(rate_id, _ZERO) + value
        return taxes

    # ---- order level -----------------------------------------------------------------------

    def taxes_by_rate(
        self, items: Iterable[LineTotals | FeeTotals | ShippingTotals]
    ) -> dict[int, Decimal]:
        """§10.4: per rate id, the sum over the items of that rate's (rounded) amount."""
        totals: dict[int, Decimal] = {}
        for item in items:
            for rate_id, amount in item.taxes.items():
                totals[rate_id] = totals.get(rate_id, _ZERO) + self.item_tax(amount)
        return totals

    def tax_lines(
        self, cart_taxes: dict[int, Decimal], shipping_taxes: dict[int, Decimal]
    ) -> tuple[TaxLine, ...]:
        """One tax line per rate id used, items' rates first, in order of first use."""
        by_id = {rate.id: rate for rate in self.rates}
        return tuple(
            TaxLine(
                rate_id=rate_id,
                code=rate_code(by_id[rate_id]),
                title=tax.tax_name(by_id[rate_id].name),
                compound=by_id[rate_id].compound,
                tax_total=cart_taxes.get(rate_id, _ZERO),
                shipping_tax_total=shipping_taxes.get(rate_id, _ZERO),
            )
            for rate_id in dict.fromkeys([*cart_taxes, *shipping_taxes])
        )


def _class_costs(
    lines: Iterable[LineItem],
    fees: Iterable[tuple[FeeLine, Decimal]],
    shipping_lines: Iterable[ShippingLine],
    shipping_class: str | None,
) -> dict[str | None, Decimal]:
    """The order's non-negative item totals by tax class (``None``: not taxable), zero classes
    left out -- what a negative fee's tax is apportioned by (reference §9.3)."""
    costs: dict[str | None, Decimal] = {}

    def add(tax_class: str | None, amount: Decimal) -> None:
        if amount >= 0:
            costs[tax_class] = costs.get(tax_class, _ZERO) + amount

    for line in lines:
        add(_class_slug(line.tax_class) if line.taxable else None, line.total)
    for fee, amount in fees:
        add(_class_slug(fee.tax_class) if fee.taxable else None, amount)
    for shipping in shipping_lines:
        add(shipping_class, shipping.total)
    return {tax_class: cost for tax_class, cost in costs.items() if cost}


def _class_slug(tax_class: str) -> str:
    """``""`` for the standard class however it is written, else the slug as given."""
    return "" if tax_class == _STANDARD else tax_class


def _php_truthy(text: str) -> bool:
    """PHP's truthiness of a string: ``""`` and ``"0"`` are false."""
    return text not in ("", "0")
