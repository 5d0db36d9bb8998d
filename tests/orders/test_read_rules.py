"""The pure order rules (``shopsvc.domain.orders``) and the record options parser."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from shopsvc.domain import orders as rules
from shopsvc.errors import ApiError
from shopsvc.records.orders import OrderOptions, options_from_filters, parse_dp


def test_statuses_and_labels() -> None:
    assert rules.STATUSES == (
        "pending",
        "processing",
        "on-hold",
        "completed",
        "cancelled",
        "refunded",
        "failed",
    )
    assert rules.LABELS["pending"] == "Pending payment"
    assert rules.LABELS["on-hold"] == "On hold"
    assert rules.is_status("failed") and not rules.is_status("trash")
    assert not rules.is_status("Pending")


@pytest.mark.parametrize("code", ["USD", "EUR", "BTC", "PRB", "IRT", "GGP", "VES", "XAF"])
def test_known_currencies(code: str) -> None:
    assert rules.is_known_currency(code)


@pytest.mark.parametrize("code", ["usd", "Usd", "", "US", "USDD", "XYZ", None, 840])
def test_unknown_currencies(code: object) -> None:
    assert not rules.is_known_currency(code)


def test_order_key() -> None:
    keys = {rules.new_order_key() for _ in range(50)}
    assert len(keys) == 50
    assert all(re.fullmatch(r"shop_order_[A-Za-z0-9]{13}", key) for key in keys)


def item(id: int, code: str, tax: str, shipping: str = "0", **extra: object) -> rules.TaxItem:
    values = {"rate_id": id * 10, "title": f"T{id}", "compound": False, **extra}
    return rules.TaxItem(
        id=id, code=code, tax_total=Decimal(tax), shipping_tax_total=Decimal(shipping), **values
    )


def test_merge_tax_lines() -> None:
    merged = rules.merge_tax_lines(
        [
            item(1, "B", "1", "0.5"),
            item(2, "A", "0.1"),
            item(3, "Z", "0"),
            item(4, "A", "0.2", compound=True, title=""),
            item(5, "C", "1", "-1"),
        ]
    )
    assert merged == [
        rules.MergedTaxLine(1, 10, "B", "T1", Decimal("1.5"), False),
        rules.MergedTaxLine(4, 40, "A", "Tax", Decimal("0.3"), True),
    ]


def test_order_subtotal() -> None:
    lines = [Decimal("1.005"), Decimal("1.005"), Decimal("-0.004")]
    assert rules.order_subtotal(lines, 2, False) == Decimal("2.02")
    assert rules.order_subtotal(lines, 2, True) == Decimal("2.01")
    assert rules.order_subtotal([], 2, False) == Decimal("0.00")


def test_parse_dp() -> None:
    assert parse_dp(None) == parse_dp("") == parse_dp("0") == parse_dp("000") == 2
    assert parse_dp("4") == 4 and parse_dp(" 3abc") == 3 and parse_dp("007") == 7
    assert parse_dp("21") == parse_dp("123456789012345678901") == 20
    with pytest.raises(ApiError) as caught:
        parse_dp("-1")
    assert caught.value.status == 400


def test_options_from_filters() -> None:
    assert options_from_filters({}) == OrderOptions()
    options = options_from_filters(
        {"dp": "3", "all_item_meta": "true", "meta": "true", "expand": "products, taxes,,x"}
    )
    assert options == OrderOptions(3, True, True, frozenset({"products", "taxes", "x"}))
    assert options_from_filters({"dp": "3", "meta": "TRUE"}, shaped=False) == OrderOptions()
