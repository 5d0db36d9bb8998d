"""The variations part of the product planner (``shopsvc.writers.product_batch``): a variable
product's ``variations`` (upsert in array order: an ``id`` of one of its variations edits it,
anything else creates one; the array index is the menu order), their titles, its
``default_attributes`` and the titles a new product title carries over (reference §8) — the
checks of ``writers.variations`` in the same order, with nothing written.

A mixin of :class:`~shopsvc.writers.product_batch.ProductBatch`, whose loads and checks it uses
(SKUs, images, shipping and tax classes)."""

from __future__ import annotations

from typing import Any

from shopsvc.domain.events import product_hook, stock_hook
from shopsvc.errors import ApiError, Sequential
from shopsvc.sql import product_batch as sql
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.validation import products as validation
from shopsvc.writers import attribute_options, fields
from shopsvc.writers.product_plan import Plan
from shopsvc.writers.stock import planned_stock

Row = dict[str, Any]


class VariationPlanning:
    """The planner's methods for variations (see the module docstring)."""

    _cleaned_variations: dict[int, dict[str, Any] | ApiError]

    def _variation_fields(self: Any, clean: dict[str, Any]) -> list[dict[str, Any]]:
        """The clean fields of each of a product's ``variations`` that pass (computed once;
        the failures are raised when their element is reached)."""
        found = []
        for index, raw in enumerate(clean.get("variations", ())):
            fields_ = self._clean_variation(raw, index)
            if fields_ is not None:
                found.append(fields_)
        return found

    def _clean_variation(self: Any, raw: dict[str, Any], index: int) -> dict[str, Any] | None:
        cache = self.__dict__.setdefault("_cleaned_variations", {})
        key = id(raw)
        if key not in cache:
            try:
                cache[key] = validation.clean_variation(raw, f"product.variations[{index}]")
            except ApiError as exc:
                cache[key] = exc
        found = cache[key]
        return None if isinstance(found, ApiError) else found

    def _prepare_variable(self: Any, cleaned: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
        """What a single write of a variable product reads besides its rows: the attributes of
        the product edited (when its variations or default attributes are matched against
        them and the request does not replace them) and the values of the variations named."""
        conn = self.ctx.conn
        for element, clean in cleaned:
            product_id, _ = self._target(element)
            row = self._rows.get(product_id)
            if row is None:
                continue
            kind = element.get("type") if isinstance(element.get("type"), str) else None
            if "variable" not in (row["type"], kind):
                continue
            matched = "variations" in clean or "default_attributes" in clean
            if matched and "attributes" not in clean:
                self._product_attributes[product_id] = product_lookups_sql.get_product_attributes(
                    conn, product_id
                )
            named = [v["id"] for v in self._variation_fields(clean) if v["id"]]
            self._values.update(product_lookups_sql.get_variation_values_of(conn, named))

    def _attributes_of(self: Any, plan: Plan) -> list[dict[str, Any]]:
        """The product's attributes as they are once ``plan`` is written."""
        if plan.attributes is not None:
            return list(self._attributes.described(plan.attributes))
        if plan.create:
            return []
        return list(self._product_attributes.get(plan.product_id, []))

    def _variations_of(self: Any, plan: Plan) -> list[Row]:
        """The rows of every variation of the product as ``plan`` leaves them, in id order."""
        new = [child.row for child in plan.children if child.create]
        if plan.create:
            return new
        stored = [
            row
            for row in self._rows.values()
            if row["type"] == "variation" and row["parent_id"] == plan.row["id"]
        ]
        return sorted(stored, key=lambda row: row["id"]) + new

    def _plan_variations(self: Any, parent: Plan, items: list[dict[str, Any]]) -> None:
        """``writers.variations.upsert_variations``: each element validated as it is reached."""
        attributes = self._attributes_of(parent)
        seen: set[int] = set()
        for index, raw in enumerate(items):
            field = f"product.variations[{index}]"
            clean = validation.clean_variation(raw, field)
            row = self._rows.get(clean["id"]) if clean["id"] else None
            created = not (
                row is not None
                and row["type"] == "variation"
                and row["parent_id"] == parent.row["id"]
            )
            changes: Row = {}
            if row is not None and not created:
                if row["id"] in seen:
                    raise Sequential(f"variation {row['id']} is written twice")
                seen.add(row["id"])
                changes["menu_order"] = index
                if clean["visible"] is not None:
                    changes["status"] = "publish" if clean["visible"] else "private"
                plan = Plan(row=row, create=False)
            else:
                plan = self._new_variation(parent, index, clean["visible"])
            self._save_variation(plan, parent, attributes, clean, changes, field)
            parent.children.append(plan)

    def _new_variation(self: Any, parent: Plan, index: int, visible: bool | None) -> Plan:
        """A new variation's row as ``writers.variations._new_variation`` inserts it (its
        parent's id a reference to the parent's plan until both are inserted)."""
        values = {
            "type": "variation",
            "parent_id": parent.row["id"] if not parent.create else parent,
            "status": "private" if visible is False else "publish",
            "title": parent.row["title"],
            "slug": f"{parent.row['slug']}-variation"[:200],
            "menu_order": index,
            "tax_class": validation.PARENT_TAX_CLASS,
            "created_at": self.ctx.now,
            "updated_at": self.ctx.now,
        }
        row = sql.new_row(values)
        row["id"] = self._new_key()
        plan = Plan(row=row, create=True)
        self._slots.append(plan)  # inserted here: a failure of the element burns its id
        return plan

    def _save_variation(
        self: Any,
        plan: Plan,
        parent: Plan,
        attributes: list[dict[str, Any]],
        clean: dict[str, Any],
        changes: Row,
        field: str,
    ) -> None:
        """``writers.variations._save_variation`` on ``plan.row``."""
        row = plan.row
        status = changes.get("status", row["status"])
        sku_changed = self._sku(row, clean, status)
        if sku_changed or "status" in changes:
            if row["sku"]:
                self._touched_skus.add(row["sku"].lower())
            self._sku_over[row["id"]] = (row["sku"], status)
        if row["status"] == "trash" and status != "trash":
            raise Sequential("a trashed variation made visible again")
        if "image" in clean:
            image = clean["image"]
            changes["image_id"] = (self._image_id(plan, image) or None) if image else None
        changes.update(fields.shipping_changes(clean, field, self._shipping_class))
        download_changes, plan.downloads = fields.download_changes(row, clean)
        changes.update(download_changes)
        changes.update(fields.prices(self.ctx, row, clean, "variation"))
        if "tax_class" in clean:
            changes["tax_class"] = self._tax_class(
                clean["tax_class"], f"{field}.tax_class", variation=True
            )
        if "description" in clean:
            changes["description"] = clean["description"]
        if "attributes" in clean:
            values = attribute_options.variation_values(attributes, clean["attributes"])
            plan.values = values
        else:
            values = {} if plan.create else self._values.get(row["id"], {})
        changes["title"] = attribute_options.variation_title(
            parent.row["title"], attributes, values
        )
        stock, moved = planned_stock(self.ctx.settings, row, clean, field)
        changes.update(stock)
        changes["updated_at"] = self.ctx.now
        row.update(changes)
        plan.changed.update(changes, ["sku"] if sku_changed else [])
        if moved:
            parent.events.append((plan, None, [stock_hook(True)]))
        event = "created" if plan.create else "updated"
        hook = product_hook("new" if plan.create else "update", True)
        parent.events.append((plan, event, [hook]))
        parent.events.append((parent, "updated", [product_hook("update", False)]))

    def _rename_variations(self: Any, parent: Plan, old: str) -> None:
        """``writers.variations.rename_variations``: a variable product's new title carries over
        to the titles of its variations (trashed ones too) that start with the old one."""
        new = parent.row["title"]
        planned = {id(child.row) for child in parent.children}
        for row in self._variations_of(parent):
            if not row["title"].startswith(old):
                continue
            row["title"] = new + row["title"][len(old) :]
            if id(row) not in planned:
                parent.children.append(Plan(row=row, create=False, changed={"title"}))
