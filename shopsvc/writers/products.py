"""Create, edit and delete a product (reference products.md §5, §6, §9).

The order of the work follows the original: the row's basic columns, images, the "meta" fields
(virtual, tax, SKU, attributes, prices, parent, stock, linked products, terms, downloads, external
fields, reviews, default attributes), the variations of a variable product, and last the stock
status of a variable product from its variations. Everything runs in the caller's transaction (a
bulk element's savepoint), so a write that fails half-way leaves nothing behind.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Collection
from typing import Any

from shopsvc.domain import catalog
from shopsvc.domain.events import product_hook
from shopsvc.errors import ApiError, invalid_param
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.sql import product_writes as sql
from shopsvc.validation.products import DEFAULT_TITLE, slug_base
from shopsvc.writers import fields, variations
from shopsvc.writers.context import WriteContext
from shopsvc.writers.images import write_images
from shopsvc.writers.product_attributes import write_attributes
from shopsvc.writers.stock import stock_changes, sync_variable_parent

Row = dict[str, Any]
CATEGORY = "product_cat"
TAG = "product_tag"
#: The columns :func:`create_product` and :func:`edit_product` set before the rest of the save.
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


def create_product(ctx: WriteContext, kind: str, clean: dict[str, Any]) -> int:
    """A new product of type ``kind`` from its clean write fields; its id."""
    base = create_slug_base(clean)
    slug = catalog.unique_slug(base, product_lookups_sql.get_slugs_like(ctx.conn, base))
    product_id = sql.insert_product(ctx.conn, create_values(kind, clean, slug, ctx.now))
    row = product_lookups_sql.get_product(ctx.conn, product_id)
    assert row is not None
    _save(ctx, row, clean)
    ctx.events.record("product", product_id, "created", [product_hook("new", False)])
    return product_id


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


def edit_product(
    ctx: WriteContext, product_id: int, kind: str | None, clean: dict[str, Any]
) -> None:
    """Edit the product (not a variation: :func:`variations.edit_variation`) ``product_id``,
    already loaded by the view; ``kind`` is the new type, if one was sent."""
    row = product_lookups_sql.get_product(ctx.conn, product_id, lock=True)
    if row is None:  # pragma: no cover - loaded by the view
        raise ApiError("shop_api_no_product_found", f"No product found with ID {product_id}")
    if kind is not None:
        row["type"] = kind
    changes: dict[str, Any] = {"title": clean["title"]} if "title" in clean else {}
    base = edit_slug_base(row, clean)
    if base is not None:
        taken = product_lookups_sql.get_slugs_like(ctx.conn, base, exclude=product_id)
        changes["slug"] = catalog.unique_slug(base, taken)
    changes.update(edit_texts(clean))
    previous_title = row["title"]
    restoring = "status" in clean and row["status"] == "trash"
    row.update(changes)
    _save(ctx, row, clean)
    event = "restored" if restoring else "updated"
    ctx.events.record("product", product_id, event, [product_hook("update", False)])
    if row["type"] == "variable" and row["title"] != previous_title:
        variations.rename_variations(ctx, product_id, previous_title, row["title"])


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


def _save(ctx: WriteContext, row: Row, clean: dict[str, Any]) -> None:
    """Write the product's fields after its basic columns, in the original's order."""
    product_id = row["id"]
    kind = row["type"]
    changes: dict[str, Any] = {key: row[key] for key in BASIC}
    restoring = "status" in clean and row["status"] == "trash"
    if "status" in clean and not restoring:
        changes["status"] = clean["status"]
    final_status = clean.get("status", row["status"])

    if "images" in clean:
        changes.update(write_images(ctx, product_id, clean["images"]))
    changes.update({name: clean[name] for name in PLAIN_META if name in clean})
    if "tax_class" in clean:
        changes["tax_class"] = fields.tax_class(ctx, clean["tax_class"], "product.tax_class")
    changes.update(fields.shipping(ctx, clean, "product"))
    fields.write_sku(ctx, row, clean, final_status)
    if "attributes" in clean:
        write_attributes(ctx, product_id, clean["attributes"])
    changes.update(fields.prices(ctx, row, clean, kind))
    if "parent_id" in clean:
        changes["parent_id"] = _parent(ctx, product_id, clean["parent_id"])
    for name in ("upsell_ids", "cross_sell_ids"):
        if name in clean:
            changes[name] = json.dumps(clean[name])
    for name, taxonomy in (("categories", CATEGORY), ("tags", TAG)):
        if name in clean:
            _terms(ctx, product_id, taxonomy, clean[name], f"product.{name}")
    changes.update(fields.downloads(ctx, row, clean))
    if kind == "external":
        changes.update(
            {name: clean[name] for name in ("product_url", "button_text") if name in clean}
        )
    if kind == "variable" and "default_attributes" in clean:
        defaults = variations.default_attributes(ctx, product_id, clean["default_attributes"])
        changes["default_attributes"] = json.dumps(defaults, ensure_ascii=False)

    changes["updated_at"] = ctx.now
    row.update(changes)
    sql.update_product(ctx.conn, product_id, changes)
    if restoring:
        _restore(ctx, row, clean["status"])
        row["status"] = clean["status"]

    if kind == "variable" and "variations" in clean:
        variations.upsert_variations(ctx, row, clean["variations"])
    sql.update_product(ctx.conn, product_id, stock_changes(ctx, row, clean, "product"))


def _restore(ctx: WriteContext, row: Row, status: str) -> None:
    """A non-trash status on a trashed product restores it (and its trashed variations), unless
    a SKU of theirs now belongs to another live product (decisions.md §7)."""
    product_id = row["id"]
    variation_skus = product_lookups_sql.get_trashed_variation_skus(ctx.conn, product_id)
    exclude = [product_id, *(i for i, _ in variation_skus)]
    skus = [s for s in [row["sku"], *(s for _, s in variation_skus)] if s]
    if len({s.lower() for s in skus}) < len(skus):
        raise fields.sku_exists()
    for sku in skus:
        if product_lookups_sql.get_sku_owner(ctx.conn, sku, exclude) is not None:
            raise fields.sku_exists()
    if not sql.update_from_trash(ctx.conn, product_id, status, ctx.now):
        raise fields.sku_exists()


def _parent(ctx: WriteContext, product_id: int, parent_id: int) -> int | None:
    if parent_id == 0:
        return None
    if parent_id == product_id or not product_lookups_sql.get_existing_ids(ctx.conn, [parent_id]):
        raise invalid_param("product.parent_id", f"no product with ID {parent_id}")
    return parent_id


def _terms(ctx: WriteContext, product_id: int, taxonomy: str, ids: list[int], field: str) -> None:
    check_terms(
        taxonomy, ids, product_lookups_sql.get_existing_term_ids(ctx.conn, taxonomy, ids), field
    )
    sql.update_terms(ctx.conn, product_id, taxonomy, ids)


def check_terms(taxonomy: str, ids: list[int], found: Collection[int], field: str) -> None:
    """400 naming the first of ``ids`` that is not among the terms ``found`` of ``taxonomy``."""
    for term_id in ids:
        if term_id not in found:
            what = "category" if taxonomy == CATEGORY else "tag"
            raise invalid_param(field, f"no product {what} with ID {term_id}")
