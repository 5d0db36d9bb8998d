"""Unit tests of the pure price rules (reference products.md §2, §2.1, §6; decisions.md §5, §7).

Every expected value below was worked out by hand from those rules, not by running the code.
"""

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from shopsvc.domain.pricing import (
    MoneyFormat,
    PricePoint,
    active_price,
    amount_html,
    currency_symbol,
    format_money,
    format_optional,
    format_price_string,
    is_on_sale,
    normalise_sale_dates,
    parse_decimal_input,
    parse_sale_date,
    price_html,
    price_point,
)

D = Decimal
USD = MoneyFormat()
NOW = datetime(2015, 6, 15, 12, 0, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def _span(text: str) -> str:
    return f'<span class="amount">{text}</span>'


# --------------------------------------------------------------------------------------------
# Money formatting
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "symbol"),
    [("USD", "$"), ("EUR", "€"), ("GBP", "£"), ("JPY", "¥"), ("CAD", "CA$"), ("XYZ", "XYZ")],
)
def test_currency_symbol(code: str, symbol: str) -> None:
    assert currency_symbol(code) == symbol


def test_money_format_for_currency_looks_the_symbol_up() -> None:
    fmt = MoneyFormat.for_currency("EUR", position="right_space", decimals=3, suffix="x")
    assert fmt == MoneyFormat("EUR", "€", "right_space", ",", ".", 3, "x")


@pytest.mark.parametrize("position", ["middle", "LEFT", ""])
def test_money_format_refuses_unknown_position(position: str) -> None:
    with pytest.raises(ValueError):
        MoneyFormat(position=position)


def test_money_format_refuses_negative_decimals() -> None:
    with pytest.raises(ValueError):
        MoneyFormat(decimals=-1)


@pytest.mark.parametrize(
    ("amount", "fmt", "expected"),
    [
        (D("10"), USD, "$10.00"),
        (D("1234.5"), USD, "$1,234.50"),
        (D("1234567.891"), USD, "$1,234,567.89"),
        (D("999.999"), USD, "$1,000.00"),  # rounding carries into a new group
        (D("123"), USD, "$123.00"),
        (D("0"), USD, "$0.00"),
        (D("-5"), USD, "-$5.00"),
        (D("-1234.5"), USD, "-$1,234.50"),
        (D("-0.004"), USD, "$0.00"),
        (D("10"), MoneyFormat(position="right"), "10.00$"),
        (D("10"), MoneyFormat(position="left_space"), "$ 10.00"),
        (D("10"), MoneyFormat(position="right_space"), "10.00 $"),
        (
            D("1234567.5"),
            MoneyFormat("EUR", "€", "right_space", ".", ",", 2),
            "1.234.567,50 €",
        ),
        (D("1234.5"), MoneyFormat("JPY", "¥", "left", ",", ".", 0), "¥1,235"),
        (D("1234.5"), MoneyFormat(thousand_separator=""), "$1234.50"),
        (D("1.2345"), MoneyFormat(decimals=3), "$1.235"),
        (D("-2"), MoneyFormat(position="right_space"), "-2.00 $"),
    ],
)
def test_format_money(amount: Decimal, fmt: MoneyFormat, expected: str) -> None:
    assert format_money(amount, fmt) == expected


@pytest.mark.parametrize(
    ("amount", "fmt", "expected"),
    [
        (D("10"), USD, '<span class="amount">$10.00</span>'),
        (D("1234.5"), USD, '<span class="amount">$1,234.50</span>'),
        (D("10"), MoneyFormat(position="right"), '<span class="amount">10.00$</span>'),
        (D("10"), MoneyFormat(position="left_space"), '<span class="amount">$&nbsp;10.00</span>'),
        (
            D("1234.5"),
            MoneyFormat("EUR", "€", "right_space", " ", ",", 2),
            '<span class="amount">1 234,50&nbsp;€</span>',
        ),
        (D("-5"), USD, '<span class="amount">-$5.00</span>'),
        (D("1"), MoneyFormat(symbol="<&>"), '<span class="amount">&lt;&amp;&gt;1.00</span>'),
    ],
)
def test_amount_html(amount: Decimal, fmt: MoneyFormat, expected: str) -> None:
    assert amount_html(amount, fmt) == expected


@pytest.mark.parametrize(
    ("value", "decimals", "expected"),
    [
        (None, 2, ""),
        (D("19.99"), 2, "19.99"),
        (D("10"), 2, "10.00"),
        (D("10.005"), 2, "10.01"),
        (D("0"), 2, "0.00"),
        (D("1234567"), 2, "1234567.00"),  # no thousand separators in decimal strings
        (D("3.14159"), 4, "3.1416"),
        (D("7.5"), 0, "8"),
    ],
)
def test_format_price_string(value: Decimal | None, decimals: int, expected: str) -> None:
    assert format_price_string(value, decimals) == expected


@pytest.mark.parametrize(
    ("value", "decimals", "expected"),
    [
        (None, 2, None),
        (D("0"), 2, "0.00"),  # a sale price of 0 is set, so not null
        (D("1.5"), 2, "1.50"),
        (D("2.345"), 2, "2.35"),
    ],
)
def test_format_optional(value: Decimal | None, decimals: int, expected: str | None) -> None:
    assert format_optional(value, decimals) == expected


# --------------------------------------------------------------------------------------------
# Decimal input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", None),
        ("   ", None),
        ("19.99", D("19.99")),
        (" 10 ", D("10")),
        ("10.", D("10")),
        (".5", D("0.5")),
        ("+3", D("3")),
        ("-1.25", D("-1.25")),
        ("0010.50", D("10.50")),
        ("1.23456789", D("1.23456789")),  # not rounded
        (10, D("10")),
        (0, D("0")),
        (19.99, D("19.99")),
        (D("2.50"), D("2.50")),
    ],
)
def test_parse_decimal_input(value: object, expected: Decimal | None) -> None:
    result = parse_decimal_input(value)
    assert result == expected
    if expected is not None:
        assert str(result) == str(expected)


@pytest.mark.parametrize(
    "value",
    [
        True,
        False,
        None,
        [],
        {},
        [1],
        "abc",
        "10 EUR",
        "$10",
        "1e3",
        "NaN",
        "Infinity",
        "1,234.50",
        "10,50",
        "1.2.3",
        ".",
        "-",
        float("nan"),
        float("inf"),
        D("NaN"),
    ],
)
def test_parse_decimal_input_refuses(value: object) -> None:
    with pytest.raises(ValueError):
        parse_decimal_input(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("10,50", D("10.50")), ("10.50", D("10.50")), ("7", D("7")), ("", None)],
)
def test_parse_decimal_input_store_separator(value: str, expected: Decimal | None) -> None:
    assert parse_decimal_input(value, decimal_separator=",") == expected


def test_parse_decimal_input_store_separator_still_refuses_junk() -> None:
    with pytest.raises(ValueError):
        parse_decimal_input("1.234,50", decimal_separator=",")


# --------------------------------------------------------------------------------------------
# Sale dates
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "end_of_day", "expected"),
    [
        (None, False, None),
        ("", True, None),
        ("  ", False, None),
        ("2015-01-31", False, datetime(2015, 1, 31, 0, 0, 0, tzinfo=UTC)),
        ("2015-01-31", True, datetime(2015, 1, 31, 23, 59, 59, tzinfo=UTC)),
        (" 2016-02-29 ", True, datetime(2016, 2, 29, 23, 59, 59, tzinfo=UTC)),
        ("2015-01-31T10:20:30Z", True, datetime(2015, 1, 31, 10, 20, 30, tzinfo=UTC)),
        ("2015-01-31T10:20:30", False, datetime(2015, 1, 31, 10, 20, 30, tzinfo=UTC)),
        ("2015-01-31 10:20", False, datetime(2015, 1, 31, 10, 20, 0, tzinfo=UTC)),
        ("2015-01-31T10:20:30+02:00", False, datetime(2015, 1, 31, 8, 20, 30, tzinfo=UTC)),
        ("2015-01-31T23:30:00-0130", False, datetime(2015, 2, 1, 1, 0, 0, tzinfo=UTC)),
        (
            "2015-01-31T10:20:30.250Z",
            False,
            datetime(2015, 1, 31, 10, 20, 30, 250000, tzinfo=UTC),
        ),
    ],
)
def test_parse_sale_date(text: str | None, end_of_day: bool, expected: datetime | None) -> None:
    assert parse_sale_date(text, end_of_day) == expected


def test_parse_sale_date_is_utc_aware() -> None:
    parsed = parse_sale_date("2015-01-31T10:20:30+05:00")
    assert parsed is not None
    assert parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "text",
    [
        "junk",
        "2015-13-01",
        "2015-02-30",
        "2015-1-31",
        "31/01/2015",
        "20150131",
        "2015-01-31T25:00:00",
        "2015-01-31T10",
        "2015-01-31T10:00:00 UTC",
        "tomorrow",
        "2015-01-31x",
        20150131,
        1.5,
        True,
        [],
    ],
)
def test_parse_sale_date_refuses_junk(text: object) -> None:
    with pytest.raises(ValueError):
        parse_sale_date(text, end_of_day=True)


@pytest.mark.parametrize(
    ("from_", "to", "expected"),
    [
        (None, None, (None, None)),
        (None, NOW + timedelta(days=3), (NOW, NOW + timedelta(days=3))),
        (NOW - SECOND, None, (NOW - SECOND, None)),
        (NOW - SECOND, NOW + SECOND, (NOW - SECOND, NOW + SECOND)),
    ],
)
def test_normalise_sale_dates(
    from_: datetime | None, to: datetime | None, expected: tuple[datetime | None, ...]
) -> None:
    assert normalise_sale_dates(from_, to, NOW) == expected


# --------------------------------------------------------------------------------------------
# on_sale and the active price
# --------------------------------------------------------------------------------------------

SALE_CASES = [
    # regular, sale, from, to, on sale?
    (D("10"), D("8"), None, None, True),
    (D("10"), None, None, None, False),
    (None, D("8"), None, None, False),  # no regular price
    (D("10"), D("10"), None, None, False),  # equal is not a sale
    (D("8"), D("10"), None, None, False),  # sale above regular
    (D("10"), D("0"), None, None, True),  # a sale price of 0 is a sale
    (D("10.00"), D("9.99"), None, None, True),
    # the window, both ends inclusive
    (D("10"), D("8"), NOW, None, True),
    (D("10"), D("8"), NOW + SECOND, None, False),
    (D("10"), D("8"), NOW - SECOND, None, True),
    (D("10"), D("8"), None, NOW, True),
    (D("10"), D("8"), None, NOW - SECOND, False),
    (D("10"), D("8"), None, NOW + SECOND, True),
    (D("10"), D("8"), NOW, NOW, True),
    (D("10"), D("8"), NOW - timedelta(days=2), NOW - timedelta(days=1), False),
    (D("10"), D("8"), NOW + timedelta(days=1), NOW + timedelta(days=2), False),
    (D("10"), D("8"), NOW - timedelta(days=1), NOW + timedelta(days=1), True),
    # the window does not help a bad price pair
    (D("8"), D("10"), NOW - SECOND, NOW + SECOND, False),
]


@pytest.mark.parametrize(("regular", "sale", "from_", "to", "expected"), SALE_CASES)
def test_is_on_sale(
    regular: Decimal | None,
    sale: Decimal | None,
    from_: datetime | None,
    to: datetime | None,
    expected: bool,
) -> None:
    assert is_on_sale(regular, sale, from_, to, NOW) is expected


@pytest.mark.parametrize(("regular", "sale", "from_", "to", "on_sale"), SALE_CASES)
def test_active_price(
    regular: Decimal | None,
    sale: Decimal | None,
    from_: datetime | None,
    to: datetime | None,
    on_sale: bool,
) -> None:
    expected = sale if on_sale else regular
    assert active_price(regular, sale, from_, to, NOW) == expected


def test_sale_end_of_day_covers_the_whole_last_day() -> None:
    to = parse_sale_date("2015-06-15", end_of_day=True)
    assert is_on_sale(D("10"), D("8"), None, to, datetime(2015, 6, 15, 23, 59, 59, tzinfo=UTC))
    assert not is_on_sale(D("10"), D("8"), None, to, datetime(2015, 6, 16, 0, 0, 0, tzinfo=UTC))


def test_sale_window_mixes_naive_and_aware_datetimes() -> None:
    naive_from = datetime(2015, 6, 15, 12, 0, 0)  # naive means UTC
    assert is_on_sale(D("10"), D("8"), naive_from, None, NOW)
    plus_two = timezone(timedelta(hours=2))
    # 13:00+02:00 is 11:00 UTC, an hour before NOW: already ended
    assert not is_on_sale(D("10"), D("8"), None, datetime(2015, 6, 15, 13, 0, tzinfo=plus_two), NOW)


def test_price_point() -> None:
    assert price_point(D("10"), D("8"), None, None, NOW) == PricePoint(D("8"), D("10"), True)
    assert price_point(D("10"), D("8"), NOW + SECOND, None, NOW) == PricePoint(
        D("10"), D("10"), False
    )
    assert price_point(None, None, None, None, NOW) == PricePoint(None, None, False)


# --------------------------------------------------------------------------------------------
# price_html
# --------------------------------------------------------------------------------------------

SUFFIX = MoneyFormat(suffix="incl. VAT")
SUFFIX_HTML = ' <small class="shop-price-suffix">incl. VAT</small>'
EUR_RIGHT = MoneyFormat("EUR", "€", "right", ".", ",", 2)


@pytest.mark.parametrize("kind", ["simple", "external", "variation"])
@pytest.mark.parametrize(
    ("point", "fmt", "expected"),
    [
        (None, USD, ""),
        (PricePoint(None), USD, ""),
        (PricePoint(None), SUFFIX, ""),  # no suffix without a price
        (PricePoint(D("10"), D("10")), USD, _span("$10.00")),
        (PricePoint(D("0"), D("0")), USD, _span("$0.00")),  # no "Free!" in final
        (PricePoint(D("10"), D("10")), SUFFIX, _span("$10.00") + SUFFIX_HTML),
        (
            PricePoint(D("8"), D("10"), True),
            USD,
            f"<del>{_span('$10.00')}</del> <ins>{_span('$8.00')}</ins>",
        ),
        (
            PricePoint(D("8"), D("10"), True),
            SUFFIX,
            f"<del>{_span('$10.00')}</del> <ins>{_span('$8.00')}</ins>" + SUFFIX_HTML,
        ),
        (
            PricePoint(D("999.5"), D("1234.5"), True),
            EUR_RIGHT,
            f"<del>{_span('1.234,50€')}</del> <ins>{_span('999,50€')}</ins>",
        ),
        (
            PricePoint(D("1234.5"), D("1234.5")),
            MoneyFormat(position="left_space"),
            _span("$&nbsp;1,234.50"),
        ),
    ],
)
def test_price_html_own_price(
    kind: str, point: PricePoint | None, fmt: MoneyFormat, expected: str
) -> None:
    assert price_html(kind, fmt, point) == expected


def test_price_html_suffix_is_sanitised() -> None:
    fmt = MoneyFormat(suffix='<b>net</b><script>alert(1)</script> <img src=x onerror="y">')
    assert price_html("simple", fmt, PricePoint(D("1"))) == (
        _span("$1.00") + ' <small class="shop-price-suffix"><b>net</b> <img src="x"></small>'
    )


VARIABLE_CASES = [
    # no children, or none priced
    ([], USD, ""),
    ([PricePoint(None), PricePoint(None, D("5"))], USD, ""),
    # a range, min first, unpriced children ignored
    (
        [PricePoint(D("12"), D("12")), PricePoint(None), PricePoint(D("8"), D("8"))],
        USD,
        f"{_span('$8.00')}–{_span('$12.00')}",
    ),
    # a range even when a child is on sale: the active prices count
    (
        [PricePoint(D("8"), D("10"), True), PricePoint(D("10"), D("10"))],
        USD,
        f"{_span('$8.00')}–{_span('$10.00')}",
    ),
    # all on sale at the same price with the same regular price: del/ins
    (
        [PricePoint(D("8"), D("10"), True), PricePoint(D("8"), D("10.00"), True)],
        USD,
        f"<del>{_span('$10.00')}</del> <ins>{_span('$8.00')}</ins>",
    ),
    # same active price but different regular prices: the single price
    (
        [PricePoint(D("8"), D("10"), True), PricePoint(D("8"), D("12"), True)],
        USD,
        _span("$8.00"),
    ),
    # same price, nobody on sale
    ([PricePoint(D("5"), D("5")), PricePoint(D("5"), D("5"))], USD, _span("$5.00")),
    # one child
    ([PricePoint(D("5"), D("5"))], USD, _span("$5.00")),
    # 0 is a price (no "Free!" for variable products)
    (
        [PricePoint(D("0"), D("0")), PricePoint(D("0"), D("0"))],
        USD,
        _span("$0.00"),
    ),
    # thousand separators, position right, suffix after the range
    (
        [PricePoint(D("1500"), D("1500")), PricePoint(D("25.5"), D("25.5"))],
        MoneyFormat("EUR", "€", "right", ".", ",", 2, "TTC"),
        f"{_span('25,50€')}–{_span('1.500,00€')}" + ' <small class="shop-price-suffix">TTC</small>',
    ),
    # suffix after del/ins
    (
        [PricePoint(D("8"), D("10"), True)],
        SUFFIX,
        f"<del>{_span('$10.00')}</del> <ins>{_span('$8.00')}</ins>" + SUFFIX_HTML,
    ),
]


@pytest.mark.parametrize(("children", "fmt", "expected"), VARIABLE_CASES)
def test_price_html_variable(children: list[PricePoint], fmt: MoneyFormat, expected: str) -> None:
    assert price_html("variable", fmt, children=children) == expected


GROUPED_CASES = [
    ([], USD, ""),
    ([PricePoint(None)], USD, ""),
    (
        [PricePoint(D("20")), PricePoint(D("5")), PricePoint(None)],
        USD,
        f"{_span('$5.00')}–{_span('$20.00')}",
    ),
    ([PricePoint(D("7")), PricePoint(D("7.00"))], USD, _span("$7.00")),
    # on sale children: grouped products never show del/ins
    ([PricePoint(D("8"), D("10"), True)], USD, _span("$8.00")),
    # all free: "Free!", without a suffix
    ([PricePoint(D("0")), PricePoint(D("0.00"))], SUFFIX, "Free!"),
    ([PricePoint(D("0")), PricePoint(D("3"))], USD, f"{_span('$0.00')}–{_span('$3.00')}"),
    ([PricePoint(D("3"))], SUFFIX, _span("$3.00") + SUFFIX_HTML),
    (
        [PricePoint(D("1000")), PricePoint(D("2000"))],
        MoneyFormat(position="right_space"),
        f"{_span('1,000.00&nbsp;$')}–{_span('2,000.00&nbsp;$')}",
    ),
]


@pytest.mark.parametrize(("children", "fmt", "expected"), GROUPED_CASES)
def test_price_html_grouped(children: list[PricePoint], fmt: MoneyFormat, expected: str) -> None:
    assert price_html("grouped", fmt, children=children) == expected


def test_price_html_range_uses_an_en_dash_without_spaces() -> None:
    result = price_html("grouped", USD, children=[PricePoint(D("1")), PricePoint(D("2"))])
    assert "</span>\u2013<span" in result


@pytest.mark.parametrize("kind", ["", "SIMPLE", "bundle"])
def test_price_html_refuses_unknown_kind(kind: str) -> None:
    with pytest.raises(ValueError):
        price_html(kind, USD, PricePoint(D("1")))
