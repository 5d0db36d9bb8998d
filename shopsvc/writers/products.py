"""A product's row as a create or edit sets its basic columns (reference products.md §5, §6),
the checks of its categories and tags, and deleting a product (§9).

Creates and edits are planned and written by ``shopsvc.writers.product_batch`` (its order of
checks follows the original's save: the row's basic columns, images, the "meta" fields —
virtual, tax, SKU, attributes, prices, parent, stock, linked products, terms, downloads, external
fields, default attributes —, the variations of a variable product, and last the stock status of
a variable product from its variations); the pure parts it shares are here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

from shopsvc.errors import ApiError, invalid_param
from shopsvc.sql import product_writes as sql
from shopsvc.validation.products import DEFAULT_TITLE, slug_base
from shopsvc.writers.context import WriteContext
from shopsvc.writers.stock import sync_variable_parent

Row = dict[str, Any]
CATEGORY = "product_cat"
TAG = "product_tag"
#: The columns a create or edit sets before the rest of the save.
BASIC = (
    "type",
    "title",
    "slug",
    "description",
    "short_description",
    "menu_order",
    "catalog_visibility",
)
#: Meta fields written as given.
PLAIN_META = ("featured", "sold_individually", "reviews_allowed", "purchase_note", "tax_status")


def create_slug_base(clean: dict[str, Any]) -> str:
    """What a new product's slug is made from (made unique by ``catalog.unique_slug``)."""
    return clean.get("name") or slug_base(clean.get("title", DEFAULT_TITLE)) or "product"


def create_values(kind: str, clean: dict[str, Any], slug: str, now: dt.datetime) -> dict[str, Any]:
    """The columns a new product's row is inserted with (the rest of the save follows)."""
    return {
        "type": kind,
        "status": clean.get("status", "publish"),
        "title": clean.get("title", DEFAULT_TITLE),
        "slug": slug,
        "description": clean.get("description", ""),
        "short_description": clean.get("short_description", ""),
        "menu_order": clean.get("menu_order", 0),
        "catalog_visibility": clean.get("catalog_visibility", "visible"),
        "created_at": now,
        "updated_at": now,
    }


def edit_slug_base(row: Row, clean: dict[str, Any]) -> str | None:
    """What an edit's new slug is made from, or None when the slug stays as it is."""
    if "name" not in clean:
        return None
    base = clean["name"] or slug_base(clean.get("title", row["title"])) or "product"
    return None if base == row["slug"] else base


def edit_texts(clean: dict[str, Any]) -> dict[str, Any]:
    """The basic columns an edit sets as sent."""
    names = ("description", "short_description", "menu_order", "catalog_visibility")
    return {name: clean[name] for name in names if name in clean}


def delete_product(ctx: WriteContext, row: Row, *, force: bool) -> None:
    """``force``: delete for good (500 when it cannot); else move to the trash (a product
    already there stays as it is). A variation's variable parent's stock status follows."""
    product_id = row["id"]
    if force:
        if not sql.delete_product(ctx.conn, product_id):
            raise ApiError("shop_api_cannot_delete_product", "This product cannot be deleted.", 500)
    elif row["status"] == "trash":
        return
    else:
        sql.update_to_trash(ctx.conn, product_id, ctx.now)
        ctx.events.record("product", product_id, "deleted")
    if row["type"] == "variation":
        sync_variable_parent(ctx, row["parent_id"])


def check_terms(taxonomy: str, ids: list[int], found: Collection[int], field: str) -> None:
    """400 naming the first of ``ids`` that is not among the terms ``found`` of ``taxonomy``."""
    for term_id in ids:
        if term_id not in found:
            what = "category" if taxonomy == CATEGORY else "tag"
            raise invalid_param(field, f"no product {what} with ID {term_id}")
