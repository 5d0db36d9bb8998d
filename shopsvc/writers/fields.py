"""The write fields products and variations share: SKU, shipping, prices, tax class, downloads.

Each takes the row as stored (updated by the planner as it goes, ``writers.product_batch``) and
the clean fields of the request, and returns the columns to write (and the child rows that
replace the product's); what they check against, the planner read first.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from shopsvc.domain import pricing
from shopsvc.errors import ApiError, invalid_param
from shopsvc.validation.products import PARENT_TAX_CLASS, DownloadInput
from shopsvc.writers.context import WriteContext

Row = dict[str, Any]
PRICELESS_TYPES = ("variable", "grouped")


def sku_exists() -> ApiError:
    return ApiError(
        "shop_api_product_sku_already_exists", "The SKU already exists on another product.", 400
    )


def checked_tax_class(
    slug: str, field: str, exists: Callable[[str], bool], variation: bool = False
) -> str:
    """``""`` (standard), ``parent`` (variations only) or an existing class's slug:
    ``exists(slug)`` tells whether a class has that slug (the planner answers from what it
    loaded)."""
    if slug == "" or (variation and slug == PARENT_TAX_CLASS):
        return slug
    if exists(slug):
        return slug
    raise invalid_param(field, f'tax class "{slug}" does not exist')


def shipping_changes(
    clean: dict[str, Any], field: str, class_id: Callable[[str], int | None]
) -> dict[str, Any]:
    """``virtual``, ``weight``, ``dimensions`` and ``shipping_class``: ``class_id(slug)``
    finds a shipping class (the planner answers from what it loaded)."""
    changes: dict[str, Any] = {}
    if "virtual" in clean:
        changes["virtual"] = clean["virtual"]
    if "weight" in clean:
        changes["weight"] = clean["weight"]
    for name, value in clean.get("dimensions", {}).items():
        changes[name] = value
    if clean.get("virtual") is True:
        changes.update(weight=None, length=None, width=None, height=None)
    if "shipping_class" in clean:
        slug = clean["shipping_class"]
        found = None
        if slug:
            found = class_id(slug)
            if found is None:
                raise invalid_param(
                    f"{field}.shipping_class", f'no shipping class with slug "{slug}"'
                )
        changes["shipping_class_id"] = found
    return changes


def prices(ctx: WriteContext, row: Row, clean: dict[str, Any], kind: str) -> dict[str, Any]:
    """Regular and sale prices and the sale window; variable and grouped products have none.
    When only ``to`` is set, ``from`` becomes now."""
    if kind in PRICELESS_TYPES:
        return {"regular_price": None, "sale_price": None, "sale_from": None, "sale_to": None}
    sale_from, sale_to = pricing.normalise_sale_dates(
        clean.get("sale_from", row["sale_from"]), clean.get("sale_to", row["sale_to"]), ctx.now
    )
    return {
        "regular_price": clean.get("regular_price", row["regular_price"]),
        "sale_price": clean.get("sale_price", row["sale_price"]),
        "sale_from": sale_from,
        "sale_to": sale_to,
    }


def download_changes(
    row: Row, clean: dict[str, Any]
) -> tuple[dict[str, Any], list[tuple[str, str, str]] | None]:
    """``downloadable``; then, only when the product is downloadable, ``downloads`` (replaced),
    ``download_limit`` and ``download_expiry``: the columns, and the downloads that replace the
    product's (``(download_key, name, file)``; None: left as they are)."""
    changes: dict[str, Any] = {}
    if "downloadable" in clean:
        changes["downloadable"] = clean["downloadable"]
    if not clean.get("downloadable", row["downloadable"]):
        return changes, None
    rows = _download_rows(clean["downloads"]) if "downloads" in clean else None
    for name in ("download_limit", "download_expiry"):
        if name in clean:
            changes[name] = clean[name]
    return changes, rows


def _download_rows(items: list[DownloadInput]) -> list[tuple[str, str, str]]:
    """Each download keeps its ``key`` when it has one not seen before, else gets a new one."""
    keys: set[str] = set()
    rows = []
    for item in items:
        key = item.key
        if not key or key in keys:
            key = str(uuid.uuid4())
        keys.add(key)
        rows.append((key, item.name, item.file))
    return rows
