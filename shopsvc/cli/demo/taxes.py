"""How the demo orders are taxed: the store's rates and tax settings (``Taxes``), each address
orders are taxed at with the rates of each class matched once (``Where``, by
``shopsvc.domain.tax``), and those rates as integers for the integer totals (``RateSet``)."""

from __future__ import annotations

from collections.abc import Sequence

from shopsvc.cli.demo.money import MICRO, Taxed, round_to_cent
from shopsvc.domain import tax as tax_rules
from shopsvc.domain.tax import Address, TaxRate
from shopsvc.domain.totals import TotalsSettings, rate_code, tax_address
from shopsvc.settings import Settings


class RateSet:
    """The rates matched for one address and class. ``units``: ``(rate id, rate in
    ten-thousandths of a percent)`` for the integer path, which holds when ``fast`` (no compound
    rate, no negative one, none more precise than the column's 4 decimals)."""

    __slots__ = ("fast", "memo", "rates", "units")

    def __init__(self, rates: Sequence[TaxRate]) -> None:
        self.rates = tuple(rates)
        units = []
        fast = True
        for rate in rates:
            scaled = rate.rate * 10_000
            if rate.compound or rate.rate < 0 or scaled != scaled.to_integral_value():
                fast = False
            units.append((rate.id, int(scaled)))
        self.units = tuple(units)
        self.fast = fast
        self.memo: dict[int, tuple[Taxed, int, int, Taxed]] = {}

    def on(self, amount: int) -> tuple[Taxed, int, int, Taxed]:
        """The exclusive taxes on ``amount`` (micro, not negative) at 6 decimals, half up, as
        ``(taxes, their sum, their sum rounded per rate, the rounded taxes)``."""
        found = self.memo.get(amount)
        if found is None:
            taxes = tuple(
                [(rid, (amount * units + MICRO // 2) // MICRO) for rid, units in self.units]
            )
            rounded = tuple([(rid, round_to_cent(m)) for rid, m in taxes])
            found = (taxes, sum(m for _, m in taxes), sum(m for _, m in rounded), rounded)
            if len(self.memo) < 200_000:
                self.memo[amount] = found
        return found


class Where:
    """An address orders are taxed at, with the rates of each class matched once."""

    __slots__ = ("address", "items", "shipping")

    def __init__(self, address: Address) -> None:
        self.address = address
        self.items: dict[str, RateSet] = {}
        self.shipping: dict[str, RateSet] = {}


class Taxes:
    """The store's rates and tax settings."""

    def __init__(self, rates: list[TaxRate], settings: Settings, class_slugs: tuple[str, ...]):
        self.rates = rates
        self.settings = settings
        self.totals_settings = TotalsSettings(
            calc_taxes=settings.calc_taxes,
            prices_include_tax=settings.prices_include_tax,
            tax_round_at_subtotal=settings.tax_round_at_subtotal,
            shipping_tax_class=settings.shipping_tax_class,
            decimals=settings.price_decimals,
            tax_classes=class_slugs,
        )
        #: the integer path holds for these settings (per order it also needs fast rates)
        self.fast = (
            settings.calc_taxes
            and not settings.prices_include_tax
            and not settings.tax_round_at_subtotal
            and settings.price_decimals == 2
        )
        self.base = Address(
            settings.store_country,
            settings.store_state,
            settings.store_postcode,
            settings.store_city,
        )
        based_on = settings.tax_based_on
        self.based_on = based_on if based_on in ("billing", "base") else "shipping"
        self._places: dict[Address, Where] = {}
        self.lines: dict[int, tuple[str, str, bool]] = {
            rate.id: (rate_code(rate), tax_rules.tax_name(rate.name), rate.compound)
            for rate in rates
        }

    def where(self, billing: Address, shipping: Address) -> Where:
        """Where an order with these addresses is taxed (``tax_based_on``)."""
        address = tax_address(self.based_on, billing, shipping, self.base)
        found = self._places.get(address)
        if found is None:
            found = self._places[address] = Where(address)
        return found

    def item_rates(self, where: Where, tax_class: str) -> RateSet:
        """The rates of an item of ``tax_class`` at ``where``."""
        found = where.items.get(tax_class)
        if found is None:
            matched = tax_rules.find_rates(self.rates, where.address, tax_class)
            found = where.items[tax_class] = RateSet(matched)
        return found

    def shipping_rates(self, where: Where, tax_class: str) -> RateSet:
        """The rates of shipping taxed in ``tax_class`` at ``where``."""
        found = where.shipping.get(tax_class)
        if found is None:
            matched = tax_rules.shipping_rates(self.rates, where.address, tax_class)
            found = where.shipping[tax_class] = RateSet(matched)
        return found
