"""The variations part of the product planner (``shopsvc.writers.product_batch``), reference §8:
a variable product's ``variations`` (upsert in array order: an ``id`` of one of its variations
edits it, anything else creates one; the array index is the menu order; each element validated
as it is reached, so its error comes after the product's own), the variation write fields, their
titles (``Parent - Red, Large``), the titles a new product title carries over, ``PUT
/products/<variation id>`` (the parent's stock status follows) and restores from the trash —
every check before anything is written.

A mixin of :class:`~shopsvc.writers.product_batch.ProductBatch`, whose loads and checks it uses
(SKUs, images, shipping and tax classes)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from shopsvc.domain.events import product_hook, stock_hook
from shopsvc.errors import ApiError
from shopsvc.sql import product_batch as sql
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.validation import products as validation
from shopsvc.writers import attribute_options, fields
from shopsvc.writers.product_plan import Plan
from shopsvc.writers.stock import planned_stock, synced_status

Row = dict[str, Any]
#: The statuses of the variations a variable product's stock status follows.
LIVE = ("publish", "private")


class VariationPlanning:
    """The planner's methods for variations (see the module docstring)."""

    _cleaned_variations: dict[int, dict[str, Any] | ApiError]

    def _variation_fields(self: Any, clean: dict[str, Any]) -> list[dict[str, Any]]:
        """The clean fields of each of a product's ``variations`` that pass (computed once;
        the failures are raised when their element is reached)."""
        found = []
        for index, raw in enumerate(clean.get("variations", ())):
            fields_ = self._clean_variation(raw, f"product.variations[{index}]")
            if fields_ is not None:
                found.append(fields_)
        return found

    def _clean_variation(self: Any, raw: dict[str, Any], field: str) -> dict[str, Any] | None:
        cache = self.__dict__.setdefault("_cleaned_variations", {})
        key = id(raw)
        if key not in cache:
            try:
                cache[key] = validation.clean_variation(raw, field)
            except ApiError as exc:
                cache[key] = exc
        found = cache[key]
        return None if isinstance(found, ApiError) else found

    def _prepare_family(self: Any, elements: Sequence[Any]) -> None:
        """What a single edit reads besides its rows: the attributes its variations (or default
        attributes) are matched against when the request does not replace them, the stored
        values of the variations it names, and the live owners of the SKUs of the trashed rows
        it may bring back."""
        conn = self.ctx.conn
        for element in elements:
            if not isinstance(element, dict):
                continue
            product_id, _ = self._target(element)
            row = self._rows.get(product_id)
            if row is None:
                continue
            self._load_skus(
                r["sku"]
                for r in self._rows.values()
                if r["status"] == "trash"
                and r["sku"]
                and r["id"] in (product_id, *self._family(row))
            )
            if row["type"] == "variation":
                fields_ = self._clean_variation(element, "product")
                if row["parent_id"] and fields_ is not None:
                    self._product_attributes[row["parent_id"]] = (
                        product_lookups_sql.get_product_attributes(conn, row["parent_id"])
                    )
                if fields_ is not None and "attributes" not in fields_:
                    self._values.update(
                        product_lookups_sql.get_variation_values_of(conn, [product_id])
                    )
                continue
            clean = self._clean(element)
            kind = element.get("type") if isinstance(element.get("type"), str) else None
            if clean is None or "variable" not in (row["type"], kind):
                continue
            matched = "variations" in clean or "default_attributes" in clean
            if matched and "attributes" not in clean:
                self._product_attributes[product_id] = product_lookups_sql.get_product_attributes(
                    conn, product_id
                )
            named = [v["id"] for v in self._variation_fields(clean) if v["id"]]
            self._values.update(product_lookups_sql.get_variation_values_of(conn, named))

    def _family(self: Any, row: Row) -> list[int]:
        """The ids of the loaded variations of ``row`` (a product) or of its parent."""
        parent = row["parent_id"] if row["type"] == "variation" else row["id"]
        return [
            r["id"]
            for r in self._rows.values()
            if r["type"] == "variation" and r["parent_id"] == parent
        ]

    def _load_skus(self: Any, skus: Iterable[str]) -> None:
        """The live owners of ``skus`` not loaded yet (one statement, when there are any)."""
        keys = {sku.lower() for sku in skus} - self._sku_keys
        if not keys:
            return
        for row in product_lookups_sql.get_live_skus(self.ctx.conn, keys):
            self._live_skus.setdefault(row["key"], []).append(row["id"])
        self._sku_keys |= keys

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
        """The ``variations`` of ``parent``: each element validated as it is reached; a new
        variation's row counts as inserted when it is reached (a failure after burns its id)."""
        attributes = self._attributes_of(parent)
        seen: dict[int, Plan] = {}
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
                changes["menu_order"] = index
                if clean["visible"] is not None:
                    changes["status"] = "publish" if clean["visible"] else "private"
                # named again: this element edits what the earlier one left
                plan = seen.get(row["id"]) or Plan(row=row, create=False)
            else:
                plan = self._new_variation(parent, index, clean["visible"])
            self._save_variation(plan, parent, attributes, clean, changes, field)
            if not plan.create:
                if row["id"] in seen:
                    continue
                seen[row["id"]] = plan
            parent.children.append(plan)

    def _new_variation(self: Any, parent: Plan, index: int, visible: bool | None) -> Plan:
        """A new variation's row (its parent's id a reference to the parent's plan until both
        are inserted): the parent's title and slug, the array index as menu order, the parent's
        tax class."""
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
        top: Plan | None = None,
    ) -> None:
        """The variation write fields (the spec's "Variation write fields") on ``plan.row``, in
        the original's order: SKU, a trashed variation made visible again (its SKU must still
        be free), image, shipping, downloads, prices, tax class, description, attribute values,
        title, stock. Its events — the product topics with the variation's id, and
        ``product.updated`` for its parent — go to ``top`` (the plan the write returns: the
        parent's, by default)."""
        events = (top or parent).events
        row = plan.row
        status = changes.get("status", row["status"])
        sku_changed = self._sku(row, clean, status)
        if sku_changed or "status" in changes:
            if row["sku"]:
                self._touched_skus.add(row["sku"].lower())
            self._sku_over[row["id"]] = (row["sku"], status)
        restoring = row["status"] == "trash" and status != "trash"
        if restoring:
            # ``_untrash``: its SKU must still be free
            if row["sku"] and self._sku_taken(row["sku"], [row["id"]]):
                raise fields.sku_exists()
            changes["status_before_trash"] = None
        if "image" in clean:
            image = clean["image"]
            changes["image_id"] = (self._image_id(plan, image) or None) if image else None
        changes.update(fields.shipping_changes(clean, field, self._shipping_class))
        download_changes, downloads = fields.download_changes(row, clean)
        changes.update(download_changes)
        if downloads is not None:
            plan.downloads = downloads
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
        elif plan.values is not None:  # written by an earlier element of the same array
            values = plan.values
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
            events.append((plan, None, [stock_hook(True)]))
        event = "created" if plan.create else "restored" if restoring else "updated"
        hook = product_hook("new" if plan.create else "update", True)
        events.append((plan, event, [hook]))
        if parent.row["id"]:
            events.append((parent, "updated", [product_hook("update", False)]))

    def _plan_variation_edit(self: Any, row: Row, element: dict[str, Any]) -> Plan:
        """``PUT /products/<variation id>``: the variation's write fields, then its variable
        parent's stock status follows (the parent was read and held with it, in id order)."""
        clean = validation.clean_variation(element, "product")
        changes: Row = {}
        if clean["visible"] is not None:
            changes["status"] = "publish" if clean["visible"] else "private"
        plan = Plan(row=row, create=False)
        stored = self._rows.get(row["parent_id"]) if row["parent_id"] else None
        if stored is None:
            parent = Plan(row={"id": 0, "title": row["title"], "type": "variable"}, create=False)
            attributes: list[dict[str, Any]] = []
        else:
            parent = Plan(row=stored, create=False)
            attributes = self._product_attributes.get(stored["id"], [])
        self._save_variation(plan, parent, attributes, clean, changes, "product", top=plan)
        if stored is not None and stored["type"] == "variable":
            live = [v for v in self._variations_of(parent) if v["status"] in LIVE]
            status = synced_status(self.ctx.settings, stored, live)
            if status != stored["stock_status"]:
                stored["stock_status"] = status
                plan.children.append(Plan(row=stored, create=False, changed={"stock_status"}))
        return plan

    def _restore(self: Any, plan: Plan, status: str) -> None:
        """A non-trash status on a trashed product restores it and its trashed variations (each
        to the status it had), unless a SKU of theirs now belongs to another live product
        (decisions.md §7)."""
        row = plan.row
        trashed = [v for v in self._variations_of(plan) if v["status"] == "trash"]
        exclude = [row["id"], *(v["id"] for v in trashed if v["sku"])]
        skus = [s for s in [row["sku"], *(v["sku"] for v in trashed)] if s]
        if len({s.lower() for s in skus}) < len(skus):
            raise fields.sku_exists()
        for sku in skus:
            if self._sku_taken(sku, exclude):
                raise fields.sku_exists()
        row.update(status=status, status_before_trash=None, updated_at=self.ctx.now)
        plan.changed.update(["status", "status_before_trash", "updated_at"])
        for variation in trashed:
            variation.update(
                status=variation["status_before_trash"] or "publish",
                status_before_trash=None,
                updated_at=self.ctx.now,
            )
            changed = {"status", "status_before_trash", "updated_at"}
            plan.children.append(Plan(row=variation, create=False, changed=changed))
        for member in [row, *trashed]:
            if member["sku"]:
                self._touched_skus.add(member["sku"].lower())
                self._sku_over[member["id"]] = (member["sku"], member["status"])

    def _rename_variations(self: Any, parent: Plan, old: str) -> None:
        """A variable product's new title carries over to the titles of its variations (trashed
        ones too) that start with the old one — after its ``variations`` were planned, as the
        original renames them."""
        new = parent.row["title"]
        planned = {id(child.row) for child in parent.children}
        for row in self._variations_of(parent):
            if not row["title"].startswith(old):
                continue
            row["title"] = new + row["title"][len(old) :]
            if id(row) not in planned:
                parent.children.append(Plan(row=row, create=False, changed={"title"}))
