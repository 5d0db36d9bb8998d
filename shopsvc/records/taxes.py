"""The tax rate and tax class records (reference core.md §9.2, §9.6)."""

from __future__ import annotations

from typing import Any

from shopsvc.domain.tax import format_rate
from shopsvc.loaders.taxes import TAX_RATES
from shopsvc.records.context import RecordContext


def tax_record(context: RecordContext, row: dict[str, Any]) -> dict[str, Any]:
    """The record of a rate row (``sql.taxes.get_rate`` / ``page_rates``, with its locations)."""
    return {
        "id": row["id"],
        "country": row["country"],
        "state": row["state"],
        "postcode": ";".join(row["postcodes"]),
        "city": ";".join(row["cities"]),
        "rate": format_rate(row["rate"]),
        "name": row["name"],
        "priority": row["priority"],
        "compound": bool(row["compound"]),
        "shipping": bool(row["shipping"]),
        "order": row["order"],
        "class": row["class"] or "standard",
    }


def tax_record_by_id(context: RecordContext, rate_id: int) -> dict[str, Any]:
    """The record of the rate ``rate_id``; 404 ``shop_api_invalid_tax_id`` when there is none."""
    return tax_record(context, TAX_RATES.find(context.conn, rate_id))


def tax_class_record(context: RecordContext, row: dict[str, Any]) -> dict[str, Any]:
    """The record of a class (``sql.taxes.list_classes`` or
    ``loaders.taxes.STANDARD_TAX_CLASS``)."""
    return {"slug": row["slug"], "name": row["name"]}
