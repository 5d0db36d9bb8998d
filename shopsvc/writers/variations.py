"""Variations (reference §8): the ``variations`` of a variable product (upsert in array order),
``PUT /products/<variation id>``, their attribute values and titles, and a variable product's
``default_attributes`` (matched like a variation's values)."""

from __future__ import annotations

from typing import Any

from shopsvc.domain.events import product_hook
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.sql import product_writes as sql
from shopsvc.validation import products as validation
from shopsvc.validation.products import OptionInput
from shopsvc.writers import attribute_options, fields, images
from shopsvc.writers.context import WriteContext
from shopsvc.writers.stock import stock_changes, sync_variable_parent

Row = dict[str, Any]


def upsert_variations(ctx: WriteContext, parent: Row, items: list[dict[str, Any]]) -> None:
    """Upsert the variations: ``id`` of a variation of this product edits it, anything else
    creates one; the array index is the menu order. Each element is validated as it is
    reached."""
    parent_attributes = product_lookups_sql.get_product_attributes(ctx.conn, parent["id"])
    # the variations named, in id order, before any of them (the array's order is the menu
    # order, not the lock order: sql.product_lookups.lock_with_parents)
    product_lookups_sql.lock_with_parents(
        ctx.conn,
        [raw["id"] for raw in items if isinstance(raw, dict) and type(raw.get("id")) is int],
    )
    for index, raw in enumerate(items):
        field = f"product.variations[{index}]"
        clean = validation.clean_variation(raw, field)
        row = (
            product_lookups_sql.get_product(ctx.conn, clean["id"], lock=True)
            if clean["id"]
            else None
        )
        created = not (
            row is not None and row["type"] == "variation" and row["parent_id"] == parent["id"]
        )
        if row is not None and not created:
            changes: dict[str, Any] = {"menu_order": index}
            if clean["visible"] is not None:
                changes["status"] = "publish" if clean["visible"] else "private"
        else:
            row = _new_variation(ctx, parent, index, clean["visible"])
            changes = {}
        _save_variation(ctx, row, parent, parent_attributes, clean, changes, field, created)


def edit_variation(ctx: WriteContext, variation_id: int, clean: dict[str, Any]) -> None:
    """``PUT /products/<variation id>`` with the variation write fields (``clean``); then the
    parent's stock status follows. The parent is locked before the variation (id order:
    ``sql.product_lookups.lock_with_parents``)."""
    product_lookups_sql.lock_with_parents(ctx.conn, [variation_id])
    row = product_lookups_sql.get_product(ctx.conn, variation_id, lock=True)
    assert row is not None and row["type"] == "variation"  # validated by the view
    parent = (
        product_lookups_sql.get_product(ctx.conn, row["parent_id"]) if row["parent_id"] else None
    )
    changes: dict[str, Any] = {}
    if clean["visible"] is not None:
        changes["status"] = "publish" if clean["visible"] else "private"
    if parent is None:
        parent = {"id": 0, "title": row["title"], "type": "variable"}
        parent_attributes: list[dict[str, Any]] = []
    else:
        parent_attributes = product_lookups_sql.get_product_attributes(ctx.conn, parent["id"])
    _save_variation(ctx, row, parent, parent_attributes, clean, changes, "product")
    sync_variable_parent(ctx, parent["id"])


def rename_variations(ctx: WriteContext, product_id: int, old: str, new: str) -> None:
    """A variable product's new title carries over to its variations' titles."""
    for variation_id, title in product_lookups_sql.get_variation_titles(ctx.conn, product_id):
        if title.startswith(old):
            sql.update_product(ctx.conn, variation_id, {"title": new + title[len(old) :]})


def default_attributes(
    ctx: WriteContext, product_id: int, options: list[OptionInput]
) -> list[dict[str, str]]:
    """A variable product's ``default_attributes`` as stored: ``{slug, option}`` of each element
    naming a variation attribute of the product with a value."""
    return attribute_options.default_attributes(
        product_lookups_sql.get_product_attributes(ctx.conn, product_id), options
    )


def _new_variation(ctx: WriteContext, parent: Row, index: int, visible: bool | None) -> Row:
    values = {
        "type": "variation",
        "parent_id": parent["id"],
        "status": "private" if visible is False else "publish",
        "title": parent["title"],
        "slug": f"{parent['slug']}-variation"[:200],
        "menu_order": index,
        "tax_class": validation.PARENT_TAX_CLASS,
        "created_at": ctx.now,
        "updated_at": ctx.now,
    }
    row = product_lookups_sql.get_product(ctx.conn, sql.insert_product(ctx.conn, values))
    assert row is not None
    return row


def _save_variation(
    ctx: WriteContext,
    row: Row,
    parent: Row,
    parent_attributes: list[dict[str, Any]],
    clean: dict[str, Any],
    changes: dict[str, Any],
    field: str,
    created: bool = False,
) -> None:
    """Apply a variation's write fields (the spec's "Variation write fields"). Its events: the
    product topics with the variation's id, and ``product.updated`` for its parent."""
    variation_id = row["id"]
    status = changes.get("status", row["status"])
    fields.write_sku(ctx, row, clean, status)
    restoring = row["status"] == "trash" and status != "trash"
    if restoring:
        _untrash(ctx, row, status)
        del changes["status"]
    if "image" in clean:
        image = clean["image"]
        changes["image_id"] = (images.image_id(ctx, image) or None) if image is not None else None
    changes.update(fields.shipping(ctx, clean, field))
    changes.update(fields.downloads(ctx, row, clean))
    changes.update(fields.prices(ctx, row, clean, "variation"))
    if "tax_class" in clean:
        changes["tax_class"] = fields.tax_class(
            ctx, clean["tax_class"], f"{field}.tax_class", variation=True
        )
    if "description" in clean:
        changes["description"] = clean["description"]
    if "attributes" in clean:
        values = attribute_options.variation_values(parent_attributes, clean["attributes"])
        sql.update_variation_values(ctx.conn, variation_id, values)
    else:
        values = product_lookups_sql.get_variation_values(ctx.conn, variation_id)
    changes["title"] = attribute_options.variation_title(parent["title"], parent_attributes, values)
    changes.update(stock_changes(ctx, row, clean, field))
    changes["updated_at"] = ctx.now
    sql.update_product(ctx.conn, variation_id, changes)
    event = "created" if created else "restored" if restoring else "updated"
    hook = product_hook("new" if created else "update", True)
    ctx.events.record("product", variation_id, event, [hook])
    if parent["id"]:
        ctx.events.record("product", parent["id"], "updated", [product_hook("update", False)])


def _untrash(ctx: WriteContext, row: Row, status: str) -> None:
    """A trashed variation made visible again: its SKU must still be free."""
    sku = row["sku"]
    if sku and product_lookups_sql.get_sku_owner(ctx.conn, sku, [row["id"]]) is not None:
        raise fields.sku_exists()
    values = {"status": status, "status_before_trash": None}
    if not sql.update_product_guarded(ctx.conn, row["id"], values):
        raise fields.sku_exists()
