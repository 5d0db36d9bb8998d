"""The one money-rounding rule and the pure output formats (design.md "Data", decisions.md §7
"Tax arithmetic": output rounding is half away from zero), and that every caller uses them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from shopsvc.domain import money, pricing, tax, timestamps
from shopsvc.domain.money import format_decimal, round_money
from shopsvc.domain.timestamps import format_timestamp
from shopsvc.web import rendering


@pytest.mark.parametrize(
    ("amount", "places", "expected"),
    [
        ("2.675", 2, "2.68"),  # half up
        ("-2.675", 2, "-2.68"),  # half away from zero
        ("1.005", 2, "1.01"),
        ("-1.005", 2, "-1.01"),
        ("1.004", 2, "1.00"),
        ("1.0049999", 2, "1.00"),
        ("10", 2, "10.00"),
        ("0.5", 0, "1"),
        ("-0.5", 0, "-1"),
        ("2.5", 0, "3"),
        ("1.2345675", 6, "1.234568"),
        ("-0.004", 2, "0.00"),  # never a negative zero
        ("-0", 2, "0.00"),
        ("123456789012345678901234567890.125", 2, "123456789012345678901234567890.13"),
    ],
)
def test_round_money(amount: str, places: int, expected: str) -> None:
    assert str(round_money(Decimal(amount), places)) == expected


@pytest.mark.parametrize(
    ("value", "places", "expected"),
    [
        (Decimal("19.995"), 2, "20.00"),
        (Decimal("-0.001"), 2, "0.00"),
        (Decimal("1E+3"), 2, "1000.00"),  # never exponent notation
        (Decimal("0.0000001"), 8, "0.00000010"),
        (7, 2, "7.00"),
        ("3.14159", 4, "3.1416"),
        (None, 2, "0.00"),
        ("", 2, "0.00"),
    ],
)
def test_format_decimal(value: Decimal | int | str | None, places: int, expected: str) -> None:
    assert format_decimal(value, places) == expected


def test_format_timestamp() -> None:
    assert format_timestamp(None) == "1970-01-01T00:00:00Z"
    assert format_timestamp(dt.datetime(2015, 1, 21, 13, 19, 58)) == "2015-01-21T13:19:58Z"
    berlin = dt.timezone(dt.timedelta(hours=1))
    aware = dt.datetime(2015, 1, 21, 14, 19, 58, tzinfo=berlin)
    assert format_timestamp(aware) == "2015-01-21T13:19:58Z"


@pytest.mark.parametrize(
    "value",
    [
        dt.datetime(2015, 1, 21, 13, 19, 58, 999999),  # fractions are dropped, not rounded
        dt.datetime(1, 1, 1),
        dt.datetime(999, 12, 31, 23, 59, 59),  # strftime writes no leading zeros below 1000
        dt.datetime(1000, 1, 1, 0, 0, 1, 5),
        dt.datetime(9999, 12, 31, 23, 59, 59, 1),
        dt.datetime(2015, 1, 21, 0, 30, 0, 7, tzinfo=dt.timezone(dt.timedelta(hours=1))),
        dt.datetime(2015, 1, 21, 13, 19, 58, fold=1),
    ],
)
def test_format_timestamp_is_the_strftime_format(value: dt.datetime) -> None:
    """The fast path writes exactly what ``strftime`` of the one format writes."""
    utc = value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value
    assert format_timestamp(value) == utc.strftime(timestamps.TIMESTAMP_FORMAT)


def test_one_rule_everywhere() -> None:
    assert tax.round_money is money.round_money
    assert rendering.format_decimal is money.format_decimal
    assert rendering.format_timestamp is timestamps.format_timestamp
    assert pricing.format_price_string(Decimal("-0.001"), 2) == "0.00"
    assert pricing.format_optional(Decimal("2.675"), 2) == "2.68"
