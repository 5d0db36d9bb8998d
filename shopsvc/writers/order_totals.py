"""An order's taxes and totals from its items (reference orders.md §10): line, shipping and fee
taxes on the items, one tax line per rate id, and the order-level totals — computed, not
stored (``writers.order_arrays.plan_totals`` plans the writes). The arithmetic is
``shopsvc.domain.totals``; the rates are matched against the address the store's
``tax_based_on`` chooses."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shopsvc.domain.tax import Address, TaxRate
from shopsvc.domain.totals import (
    FeeLine,
    LineItem,
    ShippingLine,
    TaxLine,
    TotalsSettings,
    calculate_totals,
    tax_address,
)
from shopsvc.settings import Settings

Row = dict[str, Any]
_ZERO = Decimal(0)


def _address(order: Row, prefix: str) -> Address:
    return Address(
        country=order[f"{prefix}_country"],
        state=order[f"{prefix}_state"],
        postcode=order[f"{prefix}_postcode"],
        city=order[f"{prefix}_city"],
    )


def order_tax_address(settings: Settings, order: Row) -> Address:
    """The address an order's taxes are matched against (reference §10.1)."""
    base = Address(
        settings.store_country, settings.store_state, settings.store_postcode, settings.store_city
    )
    based_on = settings.tax_based_on if settings.tax_based_on in ("billing", "base") else "shipping"
    return tax_address(based_on, _address(order, "billing"), _address(order, "shipping"), base)


def rate_rules(rows: list[Row]) -> list[TaxRate]:
    """The stored rates ``rows`` (``sql.taxes``'s, with their locations) as the tax rules
    take them."""
    return [
        TaxRate(
            id=row["id"],
            country=row["country"],
            state=row["state"],
            rate=row["rate"],
            name=row["name"],
            priority=row["priority"],
            compound=bool(row["compound"]),
            shipping=bool(row["shipping"]),
            order=row["order"],
            tax_class=row["class"] or "",
            postcodes=tuple(row["postcodes"]),
            cities=tuple(row["cities"]),
        )
        for row in rows
    ]


def _taxes_json(total: dict[int, Decimal], subtotal: dict[int, Decimal] | None = None) -> str:
    data: dict[str, dict[str, str]] = {"total": {str(k): str(v) for k, v in total.items()}}
    data["subtotal"] = {str(k): str(v) for k, v in (subtotal or {}).items()}
    return json.dumps(data)


@dataclass
class Recalculation:
    """What a recalculation stores, in the order it stores it: each line's, shipping line's and
    fee's new columns (by item id, or the caller's key), the tax items (one per rate id used,
    ``TaxLine``s) and the order's totals."""

    lines: list[tuple[Any, Row]]
    shipping: list[tuple[Any, Row]]
    fees: list[tuple[Any, Row]]
    tax_lines: list[TaxLine]
    order: Row


def compute_totals(
    settings: Settings,
    order: Row,
    items: list[Row],
    rates: list[TaxRate],
    tax_classes: tuple[str, ...],
) -> Recalculation:
    """The totals of ``order`` whose items (by id, as stored; an item's ``id`` is its key in
    the result) are ``items``, with these rates and the store's class slugs."""
    by_type: dict[str, list[Row]] = {}
    for item in items:
        by_type.setdefault(item["item_type"], []).append(item)
    lines = [
        LineItem(
            subtotal=item["subtotal"],
            total=item["total"],
            quantity=item["quantity"],
            tax_class=item["tax_class"],
            taxable=bool(item["taxable"]),
            key=item["id"],
        )
        for item in by_type.get("line_item", [])
    ]
    shipping = [ShippingLine(item["total"], key=item["id"]) for item in by_type.get("shipping", [])]
    fees = [
        FeeLine(item["total"], item["tax_class"], bool(item["taxable"]), key=item["id"])
        for item in by_type.get("fee", [])
    ]
    result = calculate_totals(
        lines,
        shipping,
        fees,
        rates=rates,
        address=order_tax_address(settings, order),
        settings=TotalsSettings(
            calc_taxes=settings.calc_taxes,
            prices_include_tax=settings.prices_include_tax,
            tax_round_at_subtotal=settings.tax_round_at_subtotal,
            shipping_tax_class=settings.shipping_tax_class,
            decimals=settings.price_decimals,
            tax_classes=tax_classes,
        ),
    )
    discount_tax = sum((line.subtotal_tax - line.total_tax for line in result.lines), _ZERO)
    return Recalculation(
        lines=[
            (
                line.key,
                {
                    "subtotal_tax": line.subtotal_tax,
                    "total_tax": line.total_tax,
                    "taxes": _taxes_json(line.taxes, line.subtotal_taxes),
                },
            )
            for line in result.lines
        ],
        shipping=[
            (ship.key, {"total_tax": ship.total_tax, "taxes": _taxes_json(ship.taxes)})
            for ship in result.shipping_lines
        ],
        fees=[
            (
                fee.key,
                {"total": fee.total, "total_tax": fee.total_tax, "taxes": _taxes_json(fee.taxes)},
            )
            for fee in result.fees
        ],
        tax_lines=list(result.tax_lines),
        order={
            "discount_total": result.total_discount,
            "discount_tax": discount_tax,
            "shipping_total": result.total_shipping,
            "shipping_tax": result.shipping_tax,
            "cart_tax": result.cart_tax,
            "total_tax": result.total_tax,
            "total": result.total,
        },
    )


def tax_item_values(line: TaxLine) -> Row:
    """The columns of the tax item of ``line`` (but its order, type and rate id)."""
    return {
        "name": line.title,
        "rate_code": line.code,
        "compound": line.compound,
        "tax_total": line.tax_total,
        "shipping_tax_total": line.shipping_tax_total,
    }
