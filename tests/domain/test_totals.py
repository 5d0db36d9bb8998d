"""Unit tests of the pure order-totals engine (reference orders.md §10, §1.4, §9.3;
decisions.md §6, §7).

Every expected value below was worked out by hand from those rules (the arithmetic is in the
comments), not by running the code.
"""

from decimal import Decimal as D

import pytest

from shopsvc.domain.tax import Address, TaxRate
from shopsvc.domain.totals import (
    FeeLine,
    LineItem,
    OrderTotals,
    ShippingLine,
    TaxLine,
    TotalsSettings,
    calculate_totals,
    price_excluding_tax,
    rate_code,
    resolve_shipping_tax_class,
    scale_line_amounts,
    tax_address,
)
from tests.helpers.taxes import tax_rate


def _rate(rate_id: int, **overrides: object) -> TaxRate:
    """A rate of the US (unless ``country`` says otherwise)."""
    return tax_rate(rate_id, **{"country": "US", **overrides})


STANDARD = _rate(1)  # US-TAX-1, 10 %
REDUCED = _rate(2, rate=D("5"), name="Reduced", tax_class="reduced-rate")  # US-REDUCED-1
ZERO = _rate(3, rate=D("0"), name="Zero", tax_class="zero-rate")  # US-ZERO-1
COMPOUND = _rate(4, rate=D("5"), name="Compound", priority=2, compound=True)  # US-COMPOUND-2
CITY = _rate(5, rate=D("2"), state="CA", name="City", priority=2)  # US-CA-CITY-2
ANY_COUNTRY = _rate(6, country="", rate=D("99"), name="Fallback")  # loses priority 1 to STANDARD
NOT_FOR_SHIPPING = _rate(7, shipping=False)

RATES = (STANDARD, REDUCED, ZERO)
HOME = Address("US", "CA", "90210", "Beverly Hills")


def _line(total: str, subtotal: str | None = None, **fields: object) -> LineItem:
    return LineItem(
        subtotal=D(subtotal if subtotal is not None else total),
        total=D(total),
        **fields,  # type: ignore[arg-type]
    )


def _ship(total: str) -> ShippingLine:
    return ShippingLine(total=D(total))


def _fee(total: str, tax_class: str = "", taxable: bool = True) -> FeeLine:
    return FeeLine(total=D(total), tax_class=tax_class, taxable=taxable)


def _calculate(
    lines: tuple[LineItem, ...] = (),
    shipping: tuple[ShippingLine, ...] = (),
    fees: tuple[FeeLine, ...] = (),
    rates: tuple[TaxRate, ...] = RATES,
    address: Address = HOME,
    **settings: object,
) -> OrderTotals:
    return calculate_totals(
        lines,
        shipping,
        fees,
        rates=rates,
        address=address,
        settings=TotalsSettings(**settings),  # type: ignore[arg-type]
    )


def _summary(result: OrderTotals) -> dict[str, object]:
    """Every computed value, by name; a test compares the keys it names (values as Decimal, so
    ``D("1.5") == D("1.500000")``)."""
    return {
        "lines": [(line.subtotal_tax, line.total_tax) for line in result.lines],
        "line_taxes": [line.taxes for line in result.lines],
        "line_subtotal_taxes": [line.subtotal_taxes for line in result.lines],
        "shipping": [item.total_tax for item in result.shipping_lines],
        "shipping_taxes": [item.taxes for item in result.shipping_lines],
        "fees": [(fee.total, fee.total_tax) for fee in result.fees],
        "fee_taxes": [fee.taxes for fee in result.fees],
        "tax_lines": [
            (line.rate_id, line.tax_total, line.shipping_tax_total) for line in result.tax_lines
        ],
        "subtotal": result.subtotal,
        "cart_tax": result.cart_tax,
        "shipping_tax": result.shipping_tax,
        "total_shipping": result.total_shipping,
        "total_tax": result.total_tax,
        "total_discount": result.total_discount,
        "total": result.total,
    }


def _decimals(expected: dict[str, object]) -> dict[str, object]:
    """Expected values are written as strings; turn every string leaf into a Decimal."""

    def convert(value: object) -> object:
        if isinstance(value, str):
            return D(value)
        if isinstance(value, list):
            return [convert(item) for item in value]
        if isinstance(value, tuple):
            return tuple(convert(item) for item in value)
        if isinstance(value, dict):
            return {key: convert(item) for key, item in value.items()}
        return value

    return {key: convert(value) for key, value in expected.items()}


# --------------------------------------------------------------------------------------------
# The worked example (reference §10.5), to the cent
# --------------------------------------------------------------------------------------------

WORKED_LINES = (
    _line("43.98", quantity=2, key="A"),  # 21.99 x 2
    _line("19.99", quantity=1, key="B"),
)
WORKED_SHIPPING = (ShippingLine(total=D("10.00"), key="flat"),)


@pytest.mark.parametrize("prices_include_tax", [False, True], ids=["ex-tax", "prices-inc-tax"])
def test_worked_example(prices_include_tax: bool) -> None:
    # Stored amounts are ex tax whatever the store setting (§10.4), so the inclusive store
    # computes the same taxes: 4.398 and 1.999 and 1.000 have no tie to break.
    result = _calculate(
        WORKED_LINES, WORKED_SHIPPING, rates=(STANDARD,), prices_include_tax=prices_include_tax
    )

    line_a, line_b = result.lines
    assert (line_a.key, str(line_a.taxes[1]), str(line_a.total_tax)) == ("A", "4.398000", "4.40")
    assert (line_a.subtotal, line_a.total, str(line_a.subtotal_tax)) == (
        D("43.98"),
        D("43.98"),
        "4.40",
    )
    assert (line_b.key, str(line_b.taxes[1]), str(line_b.total_tax)) == ("B", "1.999000", "2.00")
    (shipping,) = result.shipping_lines
    assert (shipping.key, str(shipping.taxes[1]), str(shipping.total_tax)) == (
        "flat",
        "1.000000",
        "1.00",
    )

    assert str(result.subtotal) == "63.97"
    assert str(result.cart_tax) == "6.40"
    assert str(result.shipping_tax) == "1.00"
    assert str(result.total_tax) == "7.40"
    assert str(result.total_shipping) == "10.00"
    assert str(result.total_discount) == "0.00"
    assert str(result.total) == "81.37"
    assert result.total_line_items_quantity == 3
    assert result.fees == ()
    (tax_line,) = result.tax_lines
    assert tax_line == TaxLine(
        rate_id=1,
        code="US-TAX-1",
        title="Tax",
        compound=False,
        tax_total=D("6.40"),
        shipping_tax_total=D("1.00"),
    )
    assert tax_line.tax_total + tax_line.shipping_tax_total == D("7.40")


# --------------------------------------------------------------------------------------------
# Totals, table-driven
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        # ---- rates: compound, priorities ------------------------------------------------------
        pytest.param(
            {
                "lines": (_line("19.99"),),
                "shipping": (_ship("10.00"),),
                "rates": (STANDARD, COMPOUND),
            },
            {
                # 19.99 x 10% = 1.999; (19.99 + 1.999) x 5% = 1.09945 -> 2.00 + 1.10
                "line_taxes": [{1: "1.999", 4: "1.09945"}],
                "lines": [("3.10", "3.10")],
                # 10 x 10% = 1; (10 + 1) x 5% = 0.55
                "shipping_taxes": [{1: "1.00", 4: "0.55"}],
                "tax_lines": [(1, "2.00", "1.00"), (4, "1.10", "0.55")],
                "cart_tax": "3.10",
                "shipping_tax": "1.55",
                "total_tax": "4.65",
                "total": "34.64",  # 19.99 + 10 + 3.10 + 1.55
            },
            id="compound",
        ),
        pytest.param(
            {"lines": (_line("19.99"),), "rates": (ANY_COUNTRY, STANDARD, CITY)},
            {
                # priority 1: US beats "any country"; priority 2: the CA rate, 19.99 x 2%
                "line_taxes": [{1: "1.999", 5: "0.3998"}],
                "lines": [("2.40", "2.40")],  # 2.00 + 0.40
                "tax_lines": [(1, "2.00", "0"), (5, "0.40", "0")],
                "total_tax": "2.40",
                "total": "22.39",
            },
            id="two-priorities",
        ),
        # ---- shipping tax class -------------------------------------------------------------
        pytest.param(
            {"lines": (_line("20.00", tax_class="reduced-rate"),), "shipping": (_ship("10.00"),)},
            {
                "lines": [("1.00", "1.00")],  # 20 x 5%
                "shipping": ["1.00"],  # standard: 10 x 10%
                "tax_lines": [(2, "1.00", "0"), (1, "0", "1.00")],
                "cart_tax": "1.00",
                "shipping_tax": "1.00",
                "total": "32.00",
            },
            id="shipping-class-standard",
        ),
        pytest.param(
            {
                "lines": (_line("20.00"),),
                "shipping": (_ship("10.00"),),
                "shipping_tax_class": "reduced-rate",
            },
            {
                "lines": [("2.00", "2.00")],
                "shipping": ["0.50"],  # 10 x 5%
                "tax_lines": [(1, "2.00", "0"), (2, "0", "0.50")],
                "total": "32.50",
            },
            id="shipping-class-reduced",
        ),
        pytest.param(
            {
                "lines": (_line("20.00", tax_class="reduced-rate"),),
                "shipping": (_ship("10.00"),),
                "shipping_tax_class": "inherit",
            },
            {
                "shipping": ["0.50"],  # the only class in use (no class list given)
                "tax_lines": [(2, "1.00", "0.50")],
                "total": "31.50",
            },
            id="shipping-inherit-single-class",
        ),
        pytest.param(
            {
                "lines": (_line("20.00", tax_class="reduced-rate"), _line("20.00")),
                "shipping": (_ship("10.00"),),
                "shipping_tax_class": "inherit",
                "tax_classes": ("reduced-rate", "zero-rate"),
            },
            {
                "shipping": ["1.00"],  # standard comes first, whatever the line order
                "tax_lines": [(2, "1.00", "0"), (1, "2.00", "1.00")],
                "total": "54.00",  # 40 + 10 + 1 + 2 + 1
            },
            id="shipping-inherit-standard-first",
        ),
        pytest.param(
            {
                "lines": (
                    _line("20.00", tax_class="reduced-rate"),
                    _line("20", tax_class="zero-rate"),
                ),
                "shipping": (_ship("10.00"),),
                "shipping_tax_class": "inherit",
                "tax_classes": ("zero-rate", "reduced-rate"),
            },
            {
                "shipping_taxes": [{3: "0"}],  # store order puts zero-rate first: 0 %
                "tax_lines": [(2, "1.00", "0"), (3, "0", "0")],
                "total": "51.00",
            },
            id="shipping-inherit-store-class-order",
        ),
        pytest.param(
            {
                "lines": (
                    _line("20.00", tax_class="reduced-rate"),
                    _line("20", tax_class="zero-rate"),
                ),
                "shipping": (_ship("10.00"),),
                "shipping_tax_class": "inherit",
                "tax_classes": ("reduced-rate", "zero-rate"),
            },
            {
                "shipping_taxes": [{2: "0.50"}],
                "tax_lines": [(2, "1.00", "0.50"), (3, "0", "0")],
                "total": "51.50",
            },
            id="shipping-inherit-store-class-order-reversed",
        ),
        pytest.param(
            {
                "lines": (_line("20.00", taxable=False),),
                "shipping": (_ship("10.00"),),
                "shipping_tax_class": "inherit",
            },
            {
                "lines": [("0", "0")],
                "shipping_taxes": [{}],  # no taxable line: shipping not taxed
                "tax_lines": [],
                "total_tax": "0",
                "total": "30.00",
            },
            id="shipping-inherit-no-taxable-line",
        ),
        pytest.param(
            {
                "lines": (_line("20.00"),),
                "shipping": (_ship("10.00"),),
                "rates": (NOT_FOR_SHIPPING,),
            },
            {
                "lines": [("2.00", "2.00")],
                "shipping_taxes": [{}],  # the winning rate does not apply to shipping
                "tax_lines": [(7, "2.00", "0")],
                "total": "32.00",
            },
            id="rate-not-for-shipping",
        ),
        # ---- fees -----------------------------------------------------------------------------
        pytest.param(
            {"lines": (_line("20.00"),), "fees": (_fee("5.00"),)},
            {
                "fees": [("5.00", "0.50")],
                "tax_lines": [(1, "2.50", "0")],  # fee tax counts as cart tax
                "cart_tax": "2.50",
                "total": "27.50",
            },
            id="fee-taxable",
        ),
        pytest.param(
            {"lines": (_line("20.00"),), "fees": (_fee("5.00", taxable=False),)},
            {
                "fees": [("5.00", "0")],
                "fee_taxes": [{}],
                "cart_tax": "2.00",
                "total": "27.00",
            },
            id="fee-not-taxable",
        ),
        pytest.param(
            {"lines": (_line("20.00"),), "fees": (FeeLine(total=D("5.00")),)},
            {"fees": [("5.00", "0")], "total": "27.00"},  # decisions §6: taxable defaults off
            id="fee-taxable-by-default-is-off",
        ),
        pytest.param(
            {"lines": (_line("20.00"),), "fees": (_fee("5.00", "reduced-rate"),)},
            {
                "fees": [("5.00", "0.25")],
                "tax_lines": [(1, "2.00", "0"), (2, "0.25", "0")],
                "total": "27.25",
            },
            id="fee-reduced-class",
        ),
        pytest.param(
            {"lines": (_line("20.00"),), "fees": (_fee("5.00", "0"),)},
            {"fees": [("5.00", "0")], "total": "27.00"},  # class "0": never taxed
            id="fee-class-zero-string",
        ),
        pytest.param(
            {
                "lines": (_line("20.00"), _line("10.00", tax_class="reduced-rate")),
                "shipping": (_ship("10.00"),),
                "fees": (_fee("-8.00"),),
            },
            {
                # costs: standard 20 + shipping 10 = 30, reduced 10; of 40:
                # -8 x 30/40 = -6 -> -0.60; -8 x 10/40 = -2 -> -0.10
                "fee_taxes": [{1: "-0.60", 2: "-0.10"}],
                "fees": [("-8.00", "-0.70")],
                "tax_lines": [(1, "1.40", "1.00"), (2, "0.40", "0")],  # 2.00 - 0.60; 0.50 - 0.10
                "cart_tax": "1.80",
                "total_tax": "2.80",
                "total": "34.80",  # 30 - 8 + 10 + 1.80 + 1.00
            },
            id="negative-fee-apportioned",
        ),
        pytest.param(
            {
                "lines": (_line("20.00"), _line("20.00", taxable=False)),
                "fees": (_fee("-4.00"),),
            },
            {
                "fee_taxes": [{1: "-0.20"}],  # half the costs are not taxable: -2 x 10%
                "cart_tax": "1.80",
                "total": "37.80",  # 40 - 4 + 1.80
            },
            id="negative-fee-non-taxable-share",
        ),
        pytest.param(
            {"lines": (_line("20.00"),), "fees": (_fee("-4.00", taxable=False),)},
            {"fees": [("-4.00", "0")], "cart_tax": "2.00", "total": "18.00"},
            id="negative-fee-not-taxable",
        ),
        pytest.param(
            {"lines": (_line("5.00"),), "fees": (_fee("-10.00"),)},
            {
                "fees": [("-5.00", "-0.50")],  # capped at the 5.00 of items, then taxed
                "tax_lines": [(1, "0", "0")],
                "total_tax": "0",
                "total": "0",
            },
            id="negative-fee-capped",
        ),
        pytest.param(
            {
                "lines": (_line("5.00", taxable=False),),
                "fees": (_fee("-3.00", taxable=False), _fee("-4.00", taxable=False)),
            },
            {
                "fees": [("-3.00", "0"), ("-2.00", "0")],  # second: at most 5 - 3
                "total": "0.00",
            },
            id="negative-fees-capped-in-turn",
        ),
        # ---- classes and matching -------------------------------------------------------------
        pytest.param(
            {"lines": (_line("20.00", tax_class="zero-rate"),)},
            {
                "line_taxes": [{3: "0"}],
                "lines": [("0", "0")],
                "tax_lines": [(3, "0", "0")],  # one tax item per rate used, zero included
                "total": "20.00",
            },
            id="zero-rated-class",
        ),
        pytest.param(
            {"lines": (_line("20.00", tax_class="standard"),)},
            {"line_taxes": [{1: "2.00"}], "total": "22.00"},
            id="standard-spelled-out",
        ),
        pytest.param(
            {"lines": (_line("20.00", tax_class="0"),)},
            {"line_taxes": [{}], "tax_lines": [], "total": "20.00"},
            id="line-class-zero-string",
        ),
        pytest.param(
            {"lines": (_line("20.00"),), "shipping": (_ship("10.00"),), "address": Address("FR")},
            {
                "line_taxes": [{}],
                "shipping_taxes": [{}],
                "tax_lines": [],
                "total_tax": "0",
                "total": "30.00",
            },
            id="no-matching-rate",
        ),
        pytest.param(
            {"lines": WORKED_LINES, "shipping": WORKED_SHIPPING, "calc_taxes": False},
            {
                "line_taxes": [{}, {}],
                "lines": [("0", "0"), ("0", "0")],
                "shipping_taxes": [{}],
                "tax_lines": [],
                "cart_tax": "0",
                "shipping_tax": "0",
                "total_tax": "0",
                "total": "73.97",  # 43.98 + 19.99 + 10
            },
            id="calc-taxes-off",
        ),
        pytest.param(
            {"lines": (_line("20.00", taxable=False),), "fees": (_fee("5.00"),)},
            {"lines": [("0", "0")], "fees": [("5.00", "0.50")], "total": "25.50"},
            id="line-not-taxable",
        ),
        # ---- rounding at subtotal -------------------------------------------------------------
        pytest.param(
            {"lines": (_line("3.33"),) * 3},
            {
                "lines": [("0.33", "0.33")] * 3,  # 0.333 each, rounded per line
                "tax_lines": [(1, "0.99", "0")],
                "cart_tax": "0.99",
                "total_tax": "0.99",
                "subtotal": "9.99",
                "total": "10.98",
            },
            id="round-per-line",
        ),
        pytest.param(
            {"lines": (_line("3.33"),) * 3, "tax_round_at_subtotal": True},
            {
                "lines": [("0.333", "0.333")] * 3,
                "tax_lines": [(1, "0.999", "0")],
                "cart_tax": "0.999",
                "total_tax": "1.00",
                "subtotal": "9.99",
                "total": "10.99",  # 9.99 + 0.999 = 10.989
            },
            id="round-at-subtotal",
        ),
        pytest.param(
            {"lines": (_line("1.005"),) * 2, "calc_taxes": False},
            {"subtotal": "2.02", "total": "2.02"},  # 1.01 + 1.01
            id="line-amounts-rounded-per-line",
        ),
        pytest.param(
            {"lines": (_line("1.005"),) * 2, "calc_taxes": False, "tax_round_at_subtotal": True},
            {"subtotal": "2.01", "total": "2.01"},  # 2.010 rounded once
            id="line-amounts-rounded-once",
        ),
        # ---- half up / half down --------------------------------------------------------------
        pytest.param(
            {"lines": (_line("1.25"),)},
            {"lines": [("0.13", "0.13")], "total_tax": "0.13", "total": "1.38"},  # 0.125 up
            id="cent-tie-half-up",
        ),
        pytest.param(
            {"lines": (_line("1.25"),), "prices_include_tax": True},
            {"lines": [("0.12", "0.12")], "total_tax": "0.12", "total": "1.37"},  # 0.125 down
            id="cent-tie-half-down-prices-inc-tax",
        ),
        pytest.param(
            {"lines": (_line("1.25"),), "prices_include_tax": True, "tax_round_at_subtotal": True},
            {
                "lines": [("0.125", "0.125")],
                "total_tax": "0.13",  # the order-level rounding is half away from zero
                "total": "1.38",  # 1.375
            },
            id="order-level-rounding-half-up",
        ),
        pytest.param(
            {"lines": (_line("1.234565"),), "tax_round_at_subtotal": True},
            {
                "line_taxes": [{1: "0.123457"}],  # 0.1234565, half up at 6 decimals
                "total_tax": "0.12",
                "total": "1.36",  # 1.234565 + 0.123457 = 1.358022
            },
            id="six-decimal-tie-half-up",
        ),
        pytest.param(
            {
                "lines": (_line("1.234565"),),
                "tax_round_at_subtotal": True,
                "prices_include_tax": True,
            },
            {"line_taxes": [{1: "0.123456"}], "total": "1.36"},  # half down
            id="six-decimal-tie-half-down",
        ),
        pytest.param(
            {"lines": (_line("5.00"),), "fees": (_fee("-1.25", taxable=True),)},
            # cost 5 of 5: the whole -1.25 taxed, -0.125 is a tie: away from zero
            {"fees": [("-1.25", "-0.13")], "cart_tax": "0.37", "total": "4.12"},
            id="negative-tie-half-up",
        ),
        pytest.param(
            {
                "lines": (_line("5.00"),),
                "fees": (_fee("-1.25", taxable=True),),
                "prices_include_tax": True,
            },
            # half down is towards zero: -0.12
            {"fees": [("-1.25", "-0.12")], "cart_tax": "0.38", "total": "4.13"},
            id="negative-tie-half-down",
        ),
        pytest.param(
            {"lines": (_line("1235"),), "shipping": (_ship("100"),), "decimals": 0},
            {"lines": [("124", "124")], "shipping": ["10"], "total": "1469"},  # 123.5 up
            id="zero-decimals",
        ),
        # ---- discounts ------------------------------------------------------------------------
        pytest.param(
            {"lines": (_line("40.00", subtotal="50.00"),)},
            {
                "lines": [("5.00", "4.00")],
                "subtotal": "50.00",
                "total_discount": "10.00",
                "cart_tax": "4.00",
                "total": "44.00",
            },
            id="discount",
        ),
        pytest.param(
            {"lines": (_line("12.00", subtotal="10.00"),)},
            {
                # subtotal taxes (1.00) below total taxes (1.20): raised to them
                "line_subtotal_taxes": [{1: "1.20"}],
                "lines": [("1.20", "1.20")],
                "subtotal": "10.00",
                "total_discount": "-2.00",
                "total": "13.20",
            },
            id="subtotal-taxes-never-below-total-taxes",
        ),
        pytest.param(
            {
                "lines": (_line("33.33", subtotal="33.335"), _line("0.005", subtotal="0.005")),
                "calc_taxes": False,
            },
            # per line: 33.34 - 33.33 and 0.01 - 0.01
            {"subtotal": "33.35", "total_discount": "0.01", "total": "33.34"},
            id="discount-lines-rounded",
        ),
    ],
)
def test_totals(inputs: dict[str, object], expected: dict[str, object]) -> None:
    summary = _summary(_calculate(**inputs))  # type: ignore[arg-type]
    assert {key: summary[key] for key in expected} == _decimals(expected)


def test_results_follow_input_order_and_keys() -> None:
    result = _calculate(
        (_line("1", key=10), _line("2", key=11)),
        (ShippingLine(total=D("3"), key=20),),
        (FeeLine(total=D("4"), key=30), FeeLine(total=D("5"), key=31)),
    )
    assert [line.key for line in result.lines] == [10, 11]
    assert [item.key for item in result.shipping_lines] == [20]
    assert [fee.key for fee in result.fees] == [30, 31]


def test_tax_line_fields() -> None:
    result = _calculate((_line("100"),), rates=(STANDARD, COMPOUND, CITY))
    # priority 2 has two candidates: the CA rate (specific state) beats the compound one
    assert result.tax_lines == (
        TaxLine(1, "US-TAX-1", "Tax", False, D("10.00"), D("0")),
        TaxLine(5, "US-CA-CITY-2", "City", False, D("2.00"), D("0")),
    )
    result = _calculate((_line("100"),), rates=(STANDARD, COMPOUND))
    assert result.tax_lines[1] == TaxLine(
        4, "US-COMPOUND-2", "Compound", True, D("5.50"), D("0")
    )  # 5 % of 110


def test_no_items() -> None:
    result = _calculate()
    assert (result.lines, result.shipping_lines, result.fees, result.tax_lines) == ((), (), (), ())
    assert [str(result.subtotal), str(result.total), str(result.total_tax)] == [
        "0.00",
        "0.00",
        "0.00",
    ]
    assert result.total_line_items_quantity == 0


# --------------------------------------------------------------------------------------------
# The tax address (reference §10.1)
# --------------------------------------------------------------------------------------------

BILLING = Address("GB", postcode="SW1A 1AA")
SHIPPING = Address("US", "CA")
BASE = Address("DE", postcode="10115")
NOWHERE = Address("", "CA", "90210", "Beverly Hills")


@pytest.mark.parametrize(
    ("based_on", "billing", "shipping", "expected"),
    [
        ("shipping", BILLING, SHIPPING, SHIPPING),
        ("shipping", BILLING, NOWHERE, BILLING),  # no shipping country: billing
        ("shipping", NOWHERE, NOWHERE, BASE),  # and no billing country either: the store
        ("billing", BILLING, SHIPPING, BILLING),
        ("billing", NOWHERE, SHIPPING, BASE),
        ("base", BILLING, SHIPPING, BASE),
    ],
)
def test_tax_address(based_on: str, billing: Address, shipping: Address, expected: Address) -> None:
    assert tax_address(based_on, billing, shipping, BASE) == expected


def test_tax_address_unknown_setting() -> None:
    with pytest.raises(ValueError, match="tax_based_on"):
        tax_address("store", BILLING, SHIPPING, BASE)


# --------------------------------------------------------------------------------------------
# Tax line codes (reference §1.4)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"state": "CA", "name": "Tax"}, "US-CA-TAX-1"),
        ({"name": "Standard"}, "US-STANDARD-1"),
        ({"country": "GB", "name": "vat", "priority": 2}, "GB-VAT-2"),
        ({"country": "", "name": ""}, "TAX-1"),
        ({"name": "Sales Tax", "priority": 0}, "US-SALES TAX"),  # priority 0 is dropped
        ({"state": "0", "name": "0", "priority": 3}, "US-TAX-3"),  # PHP: "0" is false
    ],
)
def test_rate_code(fields: dict[str, object], expected: str) -> None:
    assert rate_code(_rate(1, **fields)) == expected


# --------------------------------------------------------------------------------------------
# Shipping tax class (reference §10.3)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "classes", "lines", "expected"),
    [
        ("standard", (), [], ""),
        ("", (), [], ""),
        ("reduced-rate", (), [], "reduced-rate"),
        ("inherit", ("reduced-rate",), [], None),
        ("inherit", ("reduced-rate",), [_line("1", tax_class="standard")], ""),
        ("inherit", ("reduced-rate",), [_line("1", tax_class="reduced-rate")], "reduced-rate"),
        ("inherit", ("reduced-rate",), [_line("1", tax_class="gone")], "gone"),  # unlisted: last
        (
            "inherit",
            ("zero-rate", "reduced-rate"),
            [_line("1", tax_class="gone"), _line("1", tax_class="reduced-rate")],
            "reduced-rate",
        ),
        ("inherit", (), [_line("1", tax_class="b"), _line("1", tax_class="a")], "b"),
        ("inherit", (), [_line("1", taxable=False)], None),
    ],
)
def test_resolve_shipping_tax_class(
    setting: str, classes: tuple[str, ...], lines: list[LineItem], expected: str | None
) -> None:
    settings = TotalsSettings(shipping_tax_class=setting, tax_classes=classes)
    assert resolve_shipping_tax_class(lines, settings) == expected


# --------------------------------------------------------------------------------------------
# Quantity changes (decisions.md §7 "Line items") and tax-inclusive prices (§10.4 (a))
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subtotal", "total", "old", "new", "expected"),
    [
        ("10.00", "8.00", 2, 3, ("15", "12")),
        ("43.98", "43.98", 2, 1, ("21.99", "21.99")),
        ("10.00", "10.00", 3, 1, ("3.333333", "3.333333")),
        ("1.00", "1.00", 3, 2, ("0.666667", "0.666667")),  # 0.6666666... half up
        ("20.00", "15.00", 4, 4, ("20", "15")),
    ],
)
def test_scale_line_amounts(
    subtotal: str, total: str, old: int, new: int, expected: tuple[str, str]
) -> None:
    assert scale_line_amounts(D(subtotal), D(total), old, new) == (
        D(expected[0]),
        D(expected[1]),
    )


def test_scale_line_amounts_needs_an_old_quantity() -> None:
    with pytest.raises(ValueError, match="quantity"):
        scale_line_amounts(D("1"), D("1"), 0, 2)


@pytest.mark.parametrize(
    ("price", "rates", "expected"),
    [
        ("11.00", (STANDARD,), "10.00"),  # 11 x 10/110 = 1
        ("12.34", (_rate(1, rate=D("20")),), "10.283333"),  # tax 2.0566666... -> 2.056667
        ("10.00", (), "10.00"),
    ],
)
def test_price_excluding_tax(price: str, rates: tuple[TaxRate, ...], expected: str) -> None:
    assert price_excluding_tax(D(price), rates) == D(expected)
