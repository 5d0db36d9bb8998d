"""The one write path of products: plan → every check → write each table once.

A single create or edit (``POST /products``, ``PUT|POST|PATCH /products/<id>``, a variation's id
included) is a batch of one; a ``/products/bulk`` is a batch of its elements when they allow it
(:class:`shopsvc.web.bulk.Batch`), else each element runs as its own batch of one. For a batch:

1. **prepare** reads, before the first check and whatever the number of products, what the
   checks need: what the bodies name in one statement (``sql.product_references``: SKU owners,
   terms, media, global attributes and their terms, shipping and tax classes, parents), the rows
   written — with, for a single edit, the product's variations and a variation's parent — held
   in id order (``sql.product_lookups.get_rows``: the global lock order, ``docs/sql.md``), the
   slugs the new slugs must avoid, and for a variable product the attributes and variation
   values it builds on; images a write downloads are taken from what the view prefetched
   outside the transaction (``media.images.reserve_image``);
2. **plan** makes each product's checks in the spec's order — the original's save: basic
   columns, images, the meta fields (tax, shipping, SKU, attributes and the terms they create,
   prices, parent, linked ids, categories and tags, downloads, external fields, default
   attributes), a restore from the trash, the variations one by one
   (``writers.variation_plan``), the stock — against what prepare read and what the earlier
   products of the batch planned; it reads nothing more and writes nothing, and builds a
   :class:`~shopsvc.writers.product_plan.Plan`: the rows as the write leaves them, their child
   rows and their webhook events, in order;
3. **write** (``writers.product_write``) writes each table once: new attribute terms, new media
   rows, the new products and variations (one multi-row insert, ids in input order), the edited
   rows (one executemany), each child table in one statement; then records the events.

So a request that fails writes nothing, and a create of a variable product with its variations,
images, categories, tags and attributes runs in about a dozen statements. Ids stay those a
product-by-product write gives: a single write that fails takes the ids its inserts would have
taken on PostgreSQL (whose sequences never give one back), and so does a bulk.

What a bulk leaves to its elements one at a time (:class:`~shopsvc.web.bulk.Sequential`), the
cases where a product-by-product run shows the elements' order and the set-based write could
not: anything of a variable product or a variation, an edit of a grouped product or of a
product that has a parent (their records show each other), a non-zero ``parent_id``, an image
to download or with an ``alt`` or ``title``, a restore from the trash, a product written twice,
an id the bulk's own creates may take, a SKU lookup of a SKU an earlier element wrote, a
non-ASCII SKU written (``lower()`` differs between the databases), an edit moving a product in or
out of a category or tag that an earlier element's product has (its ``related_ids`` as the
single write would have shown it), an element that fails after creating attribute terms.

Exactness where a bulk's product-by-product run shows the elements' order:

* SKU uniqueness against the database and the SKUs earlier elements wrote or freed (same error
  as the single write, also where only the unique index would have refused it);
* each record as the single write answered it: the ``related_ids`` of a record never list a
  product created by a later element;
* ids: a create that fails after its row would have been inserted takes no id on SQLite and
  burns one on PostgreSQL (``sql.product_batch.insert_products``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from typing import Any

from shopsvc.domain import catalog
from shopsvc.domain.events import product_hook, stock_hook
from shopsvc.errors import ApiError, Sequential, invalid_param
from shopsvc.loaders.base import Caller
from shopsvc.loaders.products import PRODUCTS
from shopsvc.sql import product_batch as sql
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.sql import tables
from shopsvc.sql.product_references import get_references
from shopsvc.sql.products import CATALOG_VISIBLE
from shopsvc.validation import products as validation
from shopsvc.validation.products import ImageInput, ImagesInput
from shopsvc.writers import attribute_options, fields
from shopsvc.writers.context import WriteContext
from shopsvc.writers.images import IMAGE_ERROR, arrange_images
from shopsvc.writers.product_plan import AttributeTerms, NewMedia, Plan
from shopsvc.writers.product_write import TermTaken, write_plans
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
from shopsvc.writers.variation_plan import VariationPlanning

Row = dict[str, Any]
#: The taxonomies of ``categories`` and ``tags``.
TAXONOMIES = (("categories", CATEGORY), ("tags", TAG))
#: The statuses of the variations a variable product's stock status follows.
LIVE = ("publish", "private")

__all__ = ["Plan", "ProductBatch", "TermTaken"]


class ProductBatch(VariationPlanning):
    """The planner and writer of product writes, single or bulk (see the module docstring).

    ``caller`` answers the capability checks; ``context()`` gives the write context (asked for
    by :meth:`prepare`: a request opens its transaction only then, after the images were
    prefetched); ``load_records(ids)`` is the family's list loader
    (``records.products.product_records``); ``targets`` is the view's record of each element's
    ``(id, sku)`` for its error item; ``target(element)`` what an element writes (a bulk's
    lookup rule by default; a single write's view gives its own: 0 for a create)."""

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
        self._context = context
        self._load_records = load_records
        self.targets = targets
        self._target = target
        #: a single create or edit (the view gave its target) rather than a bulk's elements
        self.single = target is not validation.bulk_target
        # what prepare loaded
        self._cleaned: dict[int, dict[str, Any] | ApiError] = {}
        self._live_skus: dict[str, list[int]] = {}
        self._sku_keys: set[str] = set()
        self._lowered: dict[
            str, str
        ] = {}  # a single write's non-ASCII SKUs: the database's lower()
        self._rows: dict[int, Row] = {}
        self._row_terms: dict[int, dict[int, str]] = {}
        self._slugs: dict[Any, str] = {}
        self._slug_bases: set[str] = set()
        self._term_taxonomies: dict[int, str] = {}
        self._shipping: dict[str, int] = {}
        self._tax_classes: set[str] = set()
        self._media: set[int] = set()
        self._parents: set[int] = set()
        self._last_new: int | None = None  # SQLite: the id the new rows follow
        self._new_media: list[NewMedia] = []  # downloaded images, in the order taken
        self._attributes = AttributeTerms({}, [])
        self._product_attributes: dict[int, list[dict[str, Any]]] = {}
        self._values: dict[int, dict[str, str]] = {}
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
        attribute_slugs: set[str] = set()
        parents: set[int] = set()
        edited: set[int] = set()  # a single edit: its variations are loaded (and held) too
        new_variations = False  # a create with variations: their rows name the new parent
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
            wanted: list[dict[str, Any]] = [] if clean is None else [clean]
            if self.single and product_id:
                edited.add(product_id)
                # the edit of a variation (its type is known once its row is read)
                as_variation = self._clean_variation(element, "product")
                wanted += [] if as_variation is None else [as_variation]
            if self.single and clean is not None:
                edited.add(product_id)
                variations = self._variation_fields(clean)
                wanted += variations
                new_variations = new_variations or (not product_id and bool(variations))
                ids.update(v["id"] for v in variations if v["id"])
                if clean.get("parent_id"):
                    parents.add(clean["parent_id"])
            for fields_ in wanted:
                if fields_.get("sku"):
                    lookups.append(fields_["sku"])
                if fields_.get("shipping_class"):
                    shipping.add(fields_["shipping_class"].lower())
                if fields_.get("tax_class"):
                    tax_classes.add(fields_["tax_class"])
                image = fields_.get("image")
                if isinstance(image, ImageInput) and image.id:
                    media_ids.add(image.id)
            if clean is None:
                continue
            cleaned.append((element, clean))
            if not product_id and not sku:
                bases.add(create_slug_base(clean))
            for name, _ in TAXONOMIES:
                term_ids.update(clean.get(name, ()))
            images = clean.get("images")
            if isinstance(images, ImagesInput):
                media_ids.update(item.id for item in images.items if item.id)
            attribute_slugs.update(item.slug for item in clean.get("attributes", ()) if item.slug)
        self._sku_keys = {sku.lower() for sku in lookups}
        found = get_references(
            conn,
            skus=self._sku_keys,
            unicode_skus=[sku for sku in lookups if not sku.isascii()] if self.single else (),
            term_ids=term_ids,
            media_ids=media_ids,
            attribute_slugs=attribute_slugs,
            shipping=shipping,
            tax_class_slugs=tax_classes,
            parents=parents,
            last_id=new_variations and not sql.burns_failed_ids(conn),
        )
        for row in found.live_skus:
            self._live_skus.setdefault(row["key"], []).append(row["id"])
        self._lowered = found.lowered
        self._term_taxonomies = found.term_taxonomies
        self._shipping = found.shipping
        self._tax_classes = found.tax_classes
        self._media = found.media
        self._parents = found.parents
        self._last_new = found.last_id
        self._attributes = AttributeTerms(found.attributes, found.attribute_terms)
        if not self.single:
            # a SKU's owner is an edit target (its lowest id, as get_sku_owner picks)
            ids.update(owners[0] for owners in self._live_skus.values())
        self._rows = product_lookups_sql.get_rows(conn, ids, family_of=edited - {0})
        if not self.single:  # what an element's related products were (_check_related)
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
        if self.single:
            self._prepare_family(elements)

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
        slots = len(self._slots)
        terms = len(self._attributes.new)
        media = len(self._new_media)
        saved = (dict(self._sku_over), set(self._touched_skus))
        try:
            return self._plan(element)
        except ApiError:
            # nothing of a failing element is seen by the next ones; its inserts took ids
            self._slots[slots:] = [None] * (len(self._slots) - slots)
            self._sku_over, self._touched_skus = saved
            if self.single:
                self._burn(len(self._attributes.new) - terms, len(self._new_media) - media)
            elif len(self._attributes.new) > terms:
                # their ids are taken (PostgreSQL), and the next elements would find them
                raise Sequential("a failed element created attribute terms") from None
            elif self._left == 0 and not self._plans and None in self._slots:
                self._nothing_to_write()
            raise

    def _burn(self, terms: int, media: int) -> None:
        """A single write failed: the ids its one-by-one inserts before the failing check would
        have taken (rolled back, PostgreSQL keeps them taken) are taken, so that the next rows
        get the ids they always got."""
        conn = self.ctx.conn
        product_lookups_sql.burn_ids(conn, tables.products, self._slots.count(None))
        product_lookups_sql.burn_ids(conn, tables.attribute_terms, terms)
        product_lookups_sql.burn_ids(conn, tables.media, media)

    def _nothing_to_write(self) -> None:
        """The last element of a bulk failed and none passed, so ``write`` will not run; but
        creates failed after their insert, whose ids a one-by-one run leaves taken where the
        database does not give them back (PostgreSQL): that run must take them."""
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

    def _new_key(self) -> tuple[str, int]:
        """The placeholder ``id`` of a new row (until it is inserted)."""
        self._creates += 1
        return ("new", self._creates)

    def _plan_create(self, element: dict[str, Any]) -> Plan:
        if element.get("title") is None:
            raise validation.missing_title()
        kind = validation.product_type("simple" if element.get("type") is None else element["type"])
        clean = self._cleaned_or_raise(element)
        if kind == "variable" and not self.single:
            raise Sequential("a variable product")
        self._unsupported(clean)
        base = create_slug_base(clean)
        slug = catalog.unique_slug(base, self._taken(base, None))
        row = sql.new_row(create_values(kind, clean, slug, self.ctx.now))
        key = self._new_key()
        row["id"] = key
        plan = Plan(row=row, create=True)
        slot = len(self._slots)
        self._slots.append(None)  # the row is inserted: a failure from here burns its id
        self._save(plan, clean, previous=None)
        self._slots[slot] = plan
        plan.events.append((plan, "created", [product_hook("new", False)]))
        self._slugs[key] = slug
        return plan

    def _plan_edit(self, product_id: int, element: dict[str, Any]) -> Plan:
        loaded = PRODUCTS.load(self.caller, product_id, "edit", fetch=self._fetch)
        if loaded["type"] == "variation":
            if not self.single:
                raise Sequential("an edit of a variation")
            return self._plan_variation_edit(loaded, element)
        kind = None if element.get("type") is None else validation.product_type(element["type"])
        clean = self._cleaned_or_raise(element)
        if product_id in self._written:
            raise Sequential(f"product {product_id} is written twice")
        restoring = "status" in clean and loaded["status"] == "trash"
        if not self.single and (
            restoring
            or "variable" in (loaded["type"], kind)
            or "grouped" in (loaded["type"], kind)
            or loaded["parent_id"] is not None
        ):
            raise Sequential("a restore, a variable or grouped product, or one with a parent")
        old_sku = loaded["sku"]
        if (
            not self.single
            and ("sku" in clean or "status" in clean)
            and old_sku
            and not old_sku.isascii()
        ):
            raise Sequential("a non-ASCII SKU changes")
        self._unsupported(clean)
        previous = loaded
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
        self._save(plan, clean, previous=previous)
        plan.changed.update(changes)
        event = "restored" if restoring else "updated"
        plan.events.append((plan, event, [product_hook("update", False)]))
        if row["type"] == "variable" and row["title"] != previous["title"]:
            self._rename_variations(plan, previous["title"])
        self._written.add(product_id)
        self._slugs[product_id] = row["slug"]
        return plan

    def _unsupported(self, clean: dict[str, Any]) -> None:
        """Sequential for the fields this planner leaves to the one-by-one writers."""
        if not self.single and clean.get("parent_id", 0) != 0:
            raise Sequential("a parent")
        images = clean.get("images")
        if (
            not self.single
            and images is not None
            and any((item.src and not item.id) or item.alt or item.title for item in images.items)
        ):
            raise Sequential("an image to download, or an image's alt or title, in a bulk")

    def _taken(self, base: str, exclude: int | None) -> set[str]:
        """The slugs of products (not variations) that are ``base`` or ``base-…``, but
        ``exclude``'s, after the earlier elements' writes."""
        if base not in self._slug_bases:
            raise Sequential(f"slug base {base!r} was not loaded")
        return {
            slug
            for owner, slug in self._slugs.items()
            if owner != exclude and (slug == base or slug.startswith(base + "-"))
        }

    def _sku_taken(self, sku: str, exclude: Collection[Any]) -> bool:
        """``get_sku_owner(sku, exclude) is not None`` after the earlier writes — or, for a
        single write's non-ASCII SKU, the unique index refusing it (its key is the database's
        ``lower()``)."""
        key = sku.lower()
        if key not in self._sku_keys:
            raise Sequential(f"SKU {sku!r} was not loaded")
        keys = self._keys(sku)
        for owner in (owner for k in keys for owner in self._live_skus.get(k, ())):
            if owner not in exclude and owner not in self._sku_over:
                return True
        return any(
            owner not in exclude
            and other is not None
            and status != "trash"
            and self._keys(other) & keys
            for owner, (other, status) in self._sku_over.items()
        )

    def _keys(self, sku: str) -> set[str]:
        """The keys ``sku`` is matched by: Python's lower case, and the database's."""
        return {sku.lower(), self._lowered.get(sku, sku.lower())}

    def _save(self, plan: Plan, clean: dict[str, Any], previous: Row | None) -> None:
        """The product's write fields on ``plan.row`` after its basic columns, every check in
        the original's order; the columns and child rows to write, the events."""
        row = plan.row
        kind = row["type"]
        field_name = "product"
        changes: Row = {}
        restoring = "status" in clean and row["status"] == "trash"
        if "status" in clean and not restoring:
            changes["status"] = clean["status"]
        final_status = clean.get("status", row["status"])
        if "images" in clean:
            changes.update(self._images(plan, clean["images"]))
        changes.update({name: clean[name] for name in PLAIN_META if name in clean})
        if "tax_class" in clean:
            changes["tax_class"] = self._tax_class(clean["tax_class"], "product.tax_class")
        changes.update(fields.shipping_changes(clean, field_name, self._shipping_class))
        sku_changed = self._sku(row, clean, final_status)
        # what the element wrote is what its variations (and the next elements) see
        if sku_changed or "status" in clean:
            if previous is not None and previous["sku"]:
                self._touched_skus.add(previous["sku"].lower())
            if row["sku"]:
                self._touched_skus.add(row["sku"].lower())
            self._sku_over[row["id"]] = (row["sku"], final_status)
        if "attributes" in clean:
            plan.attributes = self._attributes.rows(clean["attributes"])
        changes.update(fields.prices(self.ctx, row, clean, kind))
        if "parent_id" in clean:
            changes["parent_id"] = self._parent(row["id"], clean["parent_id"])
        for name in ("upsell_ids", "cross_sell_ids"):
            if name in clean:
                changes[name] = json.dumps(clean[name])
        for name, taxonomy in TAXONOMIES:
            if name in clean:
                ids = clean[name]
                found = {i for i in ids if self._term_taxonomies.get(i) == taxonomy}
                check_terms(taxonomy, ids, found, f"product.{name}")
                plan.terms[taxonomy] = list(dict.fromkeys(ids))
        download_changes, plan.downloads = fields.download_changes(row, clean)
        changes.update(download_changes)
        if kind == "external":
            changes.update(
                {name: clean[name] for name in ("product_url", "button_text") if name in clean}
            )
        if kind == "variable" and "default_attributes" in clean:
            defaults = attribute_options.default_attributes(
                self._attributes_of(plan), clean["default_attributes"]
            )
            changes["default_attributes"] = json.dumps(defaults, ensure_ascii=False)
        changes["updated_at"] = self.ctx.now
        row.update(changes)
        if restoring:
            self._restore(plan, clean["status"])
        variations = None
        if kind == "variable":
            if "variations" in clean:
                self._plan_variations(plan, clean["variations"])
            variations = [v for v in self._variations_of(plan) if v["status"] in LIVE]
        stock, moved = planned_stock(self.ctx.settings, row, clean, field_name, variations)
        row.update(stock)
        if moved:
            plan.events.append((plan, None, [stock_hook(False)]))
        plan.changed.update(BASIC, changes, stock, ["sku"] if sku_changed else [])
        self._check_related(plan, previous)

    def _tax_class(self, slug: str, field: str, variation: bool = False) -> str:
        return fields.checked_tax_class(
            slug, field, lambda name: name in self._tax_classes, variation
        )

    def _shipping_class(self, slug: str) -> int | None:
        return self._shipping.get(slug.lower())

    def _parent(self, product_id: Any, parent_id: int) -> int | None:
        if parent_id == 0:
            return None
        if parent_id == product_id or parent_id not in self._parents:
            raise invalid_param("product.parent_id", f"no product with ID {parent_id}")
        return parent_id

    def _image_id(self, plan: Plan, item: ImageInput) -> Any:
        """``writers.images.image_id``: media named by ``id`` must exist; a ``src`` is a new
        media row (its copy taken now: a failed download is this check's error); 0 for none;
        ``alt``/``title`` written to the media row."""
        if item.id:
            if item.id not in self._media:
                raise invalid_param(f"{item.field}.id", f"no image with ID {item.id}")
            if item.alt or item.title:
                plan.media_texts.append((item.id, item.title or None, item.alt or None))
            return item.id
        if not item.src:
            return 0
        values = self.ctx.reserve(item.src, IMAGE_ERROR)
        if item.title:
            values["title"] = item.title
        values["alt"] = item.alt  # "" as the column's default
        new = NewMedia(values)
        self._new_media.append(new)
        return new

    def _images(self, plan: Plan, images: ImagesInput) -> Row:
        """Position 0 replaces the featured image (the returned ``image_id`` column), the other
        elements the gallery (only when there are any); a non-array ``images`` clears both."""
        if images.clear:
            plan.gallery = []
            return {"image_id": None}
        media_ids = [self._image_id(plan, item) for item in images.items]
        changes, plan.gallery = arrange_images(images.items, media_ids)
        return changes

    def _sku(self, row: Row, clean: dict[str, Any], final_status: str) -> bool:
        """A changed SKU: True when it changes. A live SKU must be unique among the products and
        variations that are not in the trash. The original checks a live SKU
        against the other live ones, and the unique index refuses any SKU written while the row
        is still live (its old status) that another live product has."""
        if "sku" not in clean or clean["sku"] == row["sku"]:
            return False
        sku = clean["sku"]
        if sku is not None:
            if not sku.isascii() and not self.single:
                raise Sequential("a non-ASCII SKU")
            # the row's status is still the stored one (a new row's: the one it is inserted with)
            live = final_status != "trash" or row["status"] != "trash"
            if live and self._sku_taken(sku, [row["id"]]):
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
        write_plans(
            self.ctx, plans, self._slots, self._attributes.new, self._new_media, self._last_new
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
