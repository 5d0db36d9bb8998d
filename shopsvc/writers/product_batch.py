"""``/products/bulk`` set-based (the :class:`shopsvc.web.bulk.Batch` of products): every element is
planned with the checks of a single create or edit, in the same order and with the same codes
and messages, against what :meth:`ProductBatch.prepare` loaded in a fixed number of statements
(and what the earlier elements of the bulk planned); then all the planned products are written
together — the new rows in one multi-row ``INSERT … RETURNING`` (ids in input order), the edits
in one executemany ``UPDATE``, each child table in one statement — and their records loaded in
one :func:`~shopsvc.records.products.product_records`.

What it writes set-based (the common shapes: a catalogue import, an ERP's price and stock
updates), creates and edits alike:

* products of type simple and external, and new grouped products: ``title``, ``name`` (the
  slug, made unique against the database *and* the slugs earlier elements take), ``status``,
  ``type``, ``description``, ``short_description``, ``menu_order``, ``catalog_visibility``,
  ``featured``, ``sku``, prices and sale dates, ``managing_stock`` / ``stock_quantity`` /
  ``inventory_delta`` / ``in_stock`` / ``backorders``, ``tax_status`` / ``tax_class``,
  ``shipping_class``, ``virtual``, ``weight``, ``dimensions``, ``categories`` and ``tags`` by
  id, ``upsell_ids`` / ``cross_sell_ids``, ``sold_individually``, ``reviews_allowed``,
  ``purchase_note``, ``downloadable`` / ``download_limit`` / ``download_expiry``,
  ``product_url`` / ``button_text``, ``parent_id`` 0, and ``images`` naming existing media by id
  (without ``alt`` or ``title``) or cleared by a non-array value;
* edits by ``id`` and by SKU (the bulk's lookup rule), of products not written by an earlier
  element of the bulk;
* the webhook events of the single writes (``stock_hook``, then ``product.created`` with
  ``shop_new_product`` or ``product.updated`` with ``shop_update_product``), per element, in
  input order.

Anything else raises :class:`~shopsvc.web.bulk.Sequential` (the whole bulk then runs one element
at a time, as before): an edit of a variation, anything of a variable product (its stock status and
variations' titles follow from its variations), an edit of a grouped product or of a product that
has a parent (their records show each other), ``attributes``, ``downloads``, a non-zero
``parent_id``, an image to download or with an ``alt`` or ``title``, a trashed product restored, a
product written twice, an id the bulk's own creates may take, a SKU lookup of a SKU an earlier
element wrote, a non-ASCII SKU written (``lower()`` differs between the databases), an edit moving a
product in or out of a category or tag that an earlier element's product has (its ``related_ids`` as
the single write would have shown it).

Exactness where a one-by-one run shows the elements' order:

* SKU uniqueness against the database and the SKUs earlier elements wrote or freed (same error
  as the single write, also where only the unique index would have refused it);
* each record as the single write answered it: the ``related_ids`` of a record never list a
  product created by a later element;
* ids: a create that fails after its row would have been inserted takes no id on SQLite and
  burns one on PostgreSQL, as the rolled-back insert does (``sql.product_batch.insert_products``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from shopsvc.domain import catalog
from shopsvc.domain.events import product_hook, stock_hook
from shopsvc.errors import ApiError, Sequential, invalid_param
from shopsvc.loaders.base import Caller
from shopsvc.loaders.products import PRODUCTS
from shopsvc.sql import product_batch as sql
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.sql.products import CATALOG_VISIBLE
from shopsvc.validation import products as validation
from shopsvc.validation.products import ImagesInput
from shopsvc.writers import fields
from shopsvc.writers.context import WriteContext
from shopsvc.writers.images import arrange_images
from shopsvc.writers.products import (
    BASIC,
    CATEGORY,
    PLAIN_META,
    TAG,
    check_terms,
    create_slug_base,
    create_values,
    edit_slug_base,
    edit_texts,
)
from shopsvc.writers.stock import planned_stock

Row = dict[str, Any]
#: The taxonomies of ``categories`` and ``tags``.
TAXONOMIES = (("categories", CATEGORY), ("tags", TAG))
#: Fields the batch leaves to the one-by-one path whenever they are sent.
SEQUENTIAL_FIELDS = ("attributes", "downloads")


@dataclass
class Plan:
    """One element's write: the product's row as the single write would leave it, the columns
    an edit changes, its new terms and gallery, and its events."""

    row: Row
    create: bool
    changed: set[str] = field(default_factory=set)
    terms: dict[str, list[int]] = field(default_factory=dict)
    gallery: list[int] | None = None  # the new gallery; None: left as it is
    stock_moved: bool = False

    @property
    def product_id(self) -> int:
        return int(self.row["id"])


class ProductBatch:
    """The set-based writer of one ``/products/bulk`` request (see the module docstring).

    ``caller`` answers the capability checks; ``context()`` gives the write context (asked for
    by :meth:`prepare`: a request opens its transaction only then, after the images were
    prefetched); ``load_records(ids)`` is the family's list loader
    (``records.products.product_records``); ``targets`` is the view's record of each element's
    ``(id, sku)`` for its error item."""

    ctx: WriteContext

    def __init__(
        self,
        caller: Caller,
        context: Callable[[], WriteContext],
        load_records: Callable[[Sequence[int]], list[dict[str, Any]]],
        targets: dict[int, tuple[int, str]],
        target: Callable[[dict[str, Any]], tuple[int, str]] = validation.bulk_target,
    ) -> None:
        self.caller = caller
        self._target = target
        #: a single create or edit (the view gave its target) rather than a bulk's elements
        self.single = target is not validation.bulk_target
        self._context = context
        self._load_records = load_records
        self.targets = targets
        # what prepare loaded
        self._cleaned: dict[int, dict[str, Any] | ApiError] = {}
        self._live_skus: dict[str, list[int]] = {}
        self._sku_keys: set[str] = set()
        self._rows: dict[int, Row] = {}
        self._row_terms: dict[int, dict[int, str]] = {}
        self._slugs: dict[Any, str] = {}
        self._slug_bases: set[str] = set()
        self._term_taxonomies: dict[int, str] = {}
        self._shipping: dict[str, int] = {}
        self._tax_classes: set[str] = set()
        self._media: set[int] = set()
        # what the plans so far did
        self._sku_over: dict[Any, tuple[str | None, str]] = {}
        self._touched_skus: set[str] = set()
        self._written: set[int] = set()
        self._creates = 0
        self._left = 0  # elements still to plan
        self._last: int | None = None
        self._slots: list[Plan | None] = []
        self._related_terms: set[int] = set()
        self._plans: list[Plan] = []

    # --- prepare: everything the plans read, one statement per kind

    def prepare(self, elements: Sequence[Any]) -> None:
        self.ctx = self._context()
        conn = self.ctx.conn
        lookups: list[str] = []
        ids: set[int] = set()
        bases: set[str] = set()
        term_ids: set[int] = set()
        shipping: set[str] = set()
        tax_classes: set[str] = set()
        media_ids: set[int] = set()
        cleaned: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self._left = sum(1 for element in elements if isinstance(element, dict))
        for element in elements:
            if not isinstance(element, dict):
                continue
            try:
                product_id, sku = self._target(element)
            except ApiError:
                continue
            if product_id:
                ids.add(product_id)
            elif sku:
                lookups.append(sku)
            clean = self._clean(element)
            if clean is None:
                continue
            cleaned.append((element, clean))
            if clean.get("sku"):
                lookups.append(clean["sku"])
            if not product_id and not sku:
                bases.add(create_slug_base(clean))
            for name, _ in TAXONOMIES:
                term_ids.update(clean.get(name, ()))
            if clean.get("shipping_class"):
                shipping.add(clean["shipping_class"].lower())
            if clean.get("tax_class"):
                tax_classes.add(clean["tax_class"])
            images = clean.get("images")
            if isinstance(images, ImagesInput):
                media_ids.update(item.id for item in images.items if item.id)
        self._sku_keys = {sku.lower() for sku in lookups}
        for row in product_lookups_sql.get_live_skus(conn, self._sku_keys):
            self._live_skus.setdefault(row["key"], []).append(row["id"])
        # a SKU's owner is an edit target (its lowest id, as get_sku_owner picks)
        ids.update(owners[0] for owners in self._live_skus.values())
        self._rows = product_lookups_sql.get_rows(conn, ids)
        self._row_terms = product_lookups_sql.get_terms_of(conn, self._rows)
        for element, clean in cleaned:
            product_id, sku = self._target(element)
            if sku:
                product_id = self._db_owner(sku) or product_id
            row = self._rows.get(product_id)
            if row is not None:
                base = edit_slug_base(row, clean)
                if base is not None:
                    bases.add(base)
            elif not product_id:
                bases.add(create_slug_base(clean))
        self._slug_bases = bases
        self._slugs = dict(product_lookups_sql.get_slugs_like_any(conn, bases))
        self._term_taxonomies = product_lookups_sql.get_term_taxonomies(conn, term_ids)
        self._shipping = product_lookups_sql.get_shipping_classes(conn, shipping)
        self._tax_classes = product_lookups_sql.get_tax_class_slugs(conn, tax_classes)
        self._media = product_lookups_sql.get_media_ids(conn, media_ids)

    def _clean(self, element: dict[str, Any]) -> dict[str, Any] | None:
        """``clean_product`` of the element, computed once (its error kept for the plan)."""
        key = id(element)
        if key not in self._cleaned:
            try:
                self._cleaned[key] = validation.clean_product(element)
            except ApiError as exc:
                self._cleaned[key] = exc
        found = self._cleaned[key]
        return None if isinstance(found, ApiError) else found

    def _cleaned_or_raise(self, element: dict[str, Any]) -> dict[str, Any]:
        clean = self._clean(element)
        if clean is None:
            error = self._cleaned[id(element)]
            assert isinstance(error, ApiError)
            raise error
        return clean

    def _db_owner(self, sku: str) -> int | None:
        owners = self._live_skus.get(sku.lower())
        return owners[0] if owners else None

    # --- plan: one element's checks, in the single write's order

    def plan(self, element: dict[str, Any]) -> Plan:
        self._left -= 1
        try:
            return self._plan(element)
        except ApiError:
            if self._left == 0 and not self._plans and None in self._slots:
                self._nothing_to_write()
            raise

    def _nothing_to_write(self) -> None:
        """The last element failed and none passed, so ``write`` will not run; but creates
        failed after their insert, whose ids a one-by-one run leaves taken where the database
        does not give them back (PostgreSQL): that run must take them."""
        if sql.burns_failed_ids(self.ctx.conn):
            raise Sequential("failed creates whose ids a one-by-one run takes")

    def _plan(self, element: dict[str, Any]) -> Plan:
        product_id, sku = self._target(element)
        if sku:
            product_id = self._sku_owner(sku) or 0
        self.targets[id(element)] = (max(product_id, 0), sku)
        if product_id:
            plan = self._plan_edit(product_id, element)
        else:
            PRODUCTS.require(self.caller, "create")
            plan = self._plan_create(element)
        self._plans.append(plan)
        return plan

    def _sku_owner(self, sku: str) -> int | None:
        """``get_sku_owner(sku)`` as it would answer after the earlier elements' writes."""
        key = sku.lower()
        if key in self._touched_skus or key not in self._sku_keys:
            raise Sequential(f"the owner of SKU {sku!r} depends on earlier elements")
        return self._db_owner(sku)

    def _fetch(self, conn: Any, product_id: int) -> Row | None:
        """The loaded row of ``product_id`` (the record validation's ``fetch``)."""
        row = self._rows.get(product_id)
        if (
            row is None
            and self._creates
            and self._last_id() < product_id <= product_lookups_sql.MAX_ID
        ):
            raise Sequential(f"product {product_id} may be one this bulk creates")
        return row

    def _last_id(self) -> int:
        """The largest id before this bulk (read once, only when an id is not found after a
        create: a one-by-one run would find a product an earlier element created)."""
        if self._last is None:
            self._last = product_lookups_sql.get_last_id(self.ctx.conn)
        return self._last

    def _plan_create(self, element: dict[str, Any]) -> Plan:
        if element.get("title") is None:
            raise validation.missing_title()
        kind = validation.product_type("simple" if element.get("type") is None else element["type"])
        clean = self._cleaned_or_raise(element)
        if kind == "variable":
            raise Sequential("a variable product")
        self._unsupported(clean)
        base = create_slug_base(clean)
        slug = catalog.unique_slug(base, self._taken(base, None))
        row = sql.new_row(create_values(kind, clean, slug, self.ctx.now))
        key = ("new", self._creates)
        self._creates += 1
        row["id"] = key
        plan = Plan(row=row, create=True)
        self._slots.append(None)  # the row is inserted: a failure from here burns its id
        self._save(plan, clean, previous=None)
        self._slots[-1] = plan
        self._slugs[key] = slug
        return plan

    def _plan_edit(self, product_id: int, element: dict[str, Any]) -> Plan:
        loaded = PRODUCTS.load(self.caller, product_id, "edit", fetch=self._fetch)
        if loaded["type"] == "variation":
            raise Sequential("an edit of a variation")
        kind = None if element.get("type") is None else validation.product_type(element["type"])
        clean = self._cleaned_or_raise(element)
        if product_id in self._written:
            raise Sequential(f"product {product_id} is written twice")
        restoring = "status" in clean and loaded["status"] == "trash"
        if (
            restoring
            or "variable" in (loaded["type"], kind)
            or "grouped" in (loaded["type"], kind)
            or loaded["parent_id"] is not None
        ):
            raise Sequential("a restore, a variable or grouped product, or one with a parent")
        old_sku = loaded["sku"]
        if ("sku" in clean or "status" in clean) and old_sku and not old_sku.isascii():
            raise Sequential("a non-ASCII SKU changes")
        self._unsupported(clean)
        row = dict(loaded)
        if kind is not None:
            row["type"] = kind
        changes: Row = {"title": clean["title"]} if "title" in clean else {}
        base = edit_slug_base(row, clean)
        if base is not None:
            changes["slug"] = catalog.unique_slug(base, self._taken(base, product_id))
        changes.update(edit_texts(clean))
        row.update(changes)
        plan = Plan(row=row, create=False)
        self._save(plan, clean, previous=loaded)
        plan.changed.update(changes)
        self._written.add(product_id)
        self._slugs[product_id] = row["slug"]
        return plan

    def _unsupported(self, clean: dict[str, Any]) -> None:
        """Sequential for the fields this batch leaves to the one-by-one path."""
        if any(name in clean for name in SEQUENTIAL_FIELDS) or clean.get("parent_id", 0) != 0:
            raise Sequential("attributes, downloads or a parent")
        images = clean.get("images")
        if images is not None and any(
            item.alt or item.title or (item.src and not item.id) for item in images.items
        ):
            raise Sequential("an image to download, or an image's alt or title")

    def _taken(self, base: str, exclude: int | None) -> set[str]:
        """``get_slugs_like(base, exclude)`` after the earlier elements' writes."""
        if base not in self._slug_bases:
            raise Sequential(f"slug base {base!r} was not loaded")
        return {
            slug
            for owner, slug in self._slugs.items()
            if owner != exclude and (slug == base or slug.startswith(base + "-"))
        }

    def _sku_taken(self, sku: str, exclude: Any) -> bool:
        """``get_sku_owner(sku, [exclude]) is not None`` after the earlier elements' writes."""
        key = sku.lower()
        if key not in self._sku_keys:
            raise Sequential(f"SKU {sku!r} was not loaded")
        for owner in self._live_skus.get(key, ()):
            if owner != exclude and owner not in self._sku_over:
                return True
        return any(
            owner != exclude and other is not None and status != "trash" and other.lower() == key
            for owner, (other, status) in self._sku_over.items()
        )

    def _save(self, plan: Plan, clean: dict[str, Any], previous: Row | None) -> None:
        """``writers.products._save`` for the supported fields, on ``plan.row``: the same checks
        in the same order, the columns and child rows it would write."""
        row = plan.row
        kind = row["type"]
        field_name = "product"
        changes: Row = {}
        if "status" in clean:
            changes["status"] = clean["status"]
        final_status = clean.get("status", row["status"])
        if "images" in clean:
            changes.update(self._images(plan, clean["images"]))
        changes.update({name: clean[name] for name in PLAIN_META if name in clean})
        if "tax_class" in clean:
            changes["tax_class"] = fields.checked_tax_class(
                clean["tax_class"], "product.tax_class", lambda slug: slug in self._tax_classes
            )
        changes.update(
            fields.shipping_changes(
                clean, field_name, lambda slug: self._shipping.get(slug.lower())
            )
        )
        sku_changed = self._sku(row, clean, final_status)
        changes.update(fields.prices(self.ctx, row, clean, kind))
        if "parent_id" in clean:
            changes["parent_id"] = None
        for name in ("upsell_ids", "cross_sell_ids"):
            if name in clean:
                changes[name] = json.dumps(clean[name])
        for name, taxonomy in TAXONOMIES:
            if name in clean:
                ids = clean[name]
                found = {i for i in ids if self._term_taxonomies.get(i) == taxonomy}
                check_terms(taxonomy, ids, found, f"product.{name}")
                plan.terms[taxonomy] = list(dict.fromkeys(ids))
        changes.update(fields.downloads(self.ctx, row, clean))
        if kind == "external":
            changes.update(
                {name: clean[name] for name in ("product_url", "button_text") if name in clean}
            )
        changes["updated_at"] = self.ctx.now
        row.update(changes)
        stock, plan.stock_moved = planned_stock(self.ctx.settings, row, clean, field_name)
        row.update(stock)
        plan.changed.update(BASIC, changes, stock, ["sku"] if sku_changed else [])
        # the element passed: what it wrote is what the next elements see
        if sku_changed or "status" in clean:
            if previous is not None and previous["sku"]:
                self._touched_skus.add(previous["sku"].lower())
            if row["sku"]:
                self._touched_skus.add(row["sku"].lower())
            self._sku_over[row["id"]] = (row["sku"], row["status"])
        self._check_related(plan, previous)

    def _images(self, plan: Plan, images: ImagesInput) -> Row:
        """``write_images`` for images named by existing media id (or cleared)."""
        if images.clear:
            plan.gallery = []
            return {"image_id": None}
        media_ids = []
        for item in images.items:
            if item.id and item.id not in self._media:
                raise invalid_param(f"{item.field}.id", f"no image with ID {item.id}")
            media_ids.append(item.id)
        changes, plan.gallery = arrange_images(images.items, media_ids)
        return changes

    def _sku(self, row: Row, clean: dict[str, Any], final_status: str) -> bool:
        """``fields.write_sku``: True when the SKU changes. The single write checks a live SKU
        against the other live ones, and the unique index refuses any SKU written while the row
        is still live (its old status) that another live product has."""
        if "sku" not in clean or clean["sku"] == row["sku"]:
            return False
        sku = clean["sku"]
        if sku is not None:
            if not sku.isascii():
                raise Sequential("a non-ASCII SKU")
            # the row's status is still the stored one (a new row's: the one it is inserted with)
            live = final_status != "trash" or row["status"] != "trash"
            if live and self._sku_taken(sku, row["id"]):
                raise fields.sku_exists()
        row["sku"] = sku
        return True

    def _eligible(self, row: Row) -> bool:
        """Whether ``row`` is among the products a category's or tag's ``related_ids`` list."""
        return (
            row["status"] == "publish"
            and row["type"] != "variation"
            and row["catalog_visibility"] in CATALOG_VISIBLE
            and not (self.ctx.settings.hide_out_of_stock and row["stock_status"] == "outofstock")
        )

    def _check_related(self, plan: Plan, previous: Row | None) -> None:
        """Sequential when this edit moves its product in or out of a category or tag of an
        earlier element's product (whose record, written before, would not show it)."""
        row = plan.row
        held = {} if previous is None else self._row_terms.get(previous["id"], {})
        before = set(held)
        after = {t for t, taxonomy in held.items() if taxonomy not in plan.terms}
        for ids in plan.terms.values():
            after.update(ids)
        if previous is not None:
            was, now = self._eligible(previous), self._eligible(row)
            moves = was != now or ((was or now) and before != after)
            if moves and (before | after) & self._related_terms:
                raise Sequential("an edit changes an earlier element's related products")
        self._related_terms |= after

    # --- write: every plan at once

    def write(self, plans: Sequence[Plan]) -> list[int]:
        conn = self.ctx.conn
        slots = [None if slot is None else _insertable(slot.row) for slot in self._slots]
        new_ids = iter(sql.insert_products(conn, slots))
        for slot in self._slots:
            if slot is not None:
                slot.row["id"] = next(new_ids)
        edits = [plan for plan in plans if not plan.create]
        changed = sorted({name for plan in edits for name in plan.changed})
        if changed:
            sql.update_products(
                conn, [{"id": p.product_id} | {n: p.row[n] for n in changed} for p in edits]
            )
        cleared: dict[str, list[int]] = {}
        links: list[tuple[int, int]] = []
        galleries: list[int] = []
        images: list[tuple[int, int, int]] = []
        for plan in plans:
            for taxonomy, ids in plan.terms.items():
                if not plan.create:
                    cleared.setdefault(taxonomy, []).append(plan.product_id)
                links.extend((plan.product_id, term_id) for term_id in ids)
            if plan.gallery is not None:
                if not plan.create:
                    galleries.append(plan.product_id)
                images.extend((plan.product_id, n, m) for n, m in enumerate(plan.gallery))
        sql.replace_terms(conn, cleared, links)
        sql.replace_galleries(conn, galleries, images)
        for plan in plans:
            if plan.stock_moved:
                self.ctx.events.record("product", plan.product_id, None, [stock_hook(False)])
            if plan.create:
                self.ctx.events.record(
                    "product", plan.product_id, "created", [product_hook("new", False)]
                )
            else:
                self.ctx.events.record(
                    "product", plan.product_id, "updated", [product_hook("update", False)]
                )
        return [plan.product_id for plan in plans]

    # --- records: as each single write answered

    def records(self, ids: Sequence[int]) -> list[dict[str, Any]]:
        found = self._load_records(ids)
        created_after: set[int] = set()
        plans = {plan.product_id: plan for plan in self._plans}
        for record in reversed(found):
            if created_after and record["related_ids"]:
                record["related_ids"] = [i for i in record["related_ids"] if i not in created_after]
            if plans[record["id"]].create:
                created_after.add(record["id"])
        return found


def _insertable(row: Row) -> Row:
    return {name: value for name, value in row.items() if name != "id"}
