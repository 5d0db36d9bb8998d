"""The write side of products: ``POST /products``, ``PUT|POST|PATCH /products/<id>`` and
``POST|PUT|PATCH /products/bulk``.

Checks run in the spec's order. Create: envelope, capability (``publish_products``), ``title``
present, ``type``, then the fields; edit: envelope, then the shared record validation (id,
existence, capability), ``type``, then the fields. Everything a request writes is one transaction
(a bulk element one savepoint), so a create that fails after its row exists leaves nothing behind:
no product, no variation, no attribute term, and (``shopsvc.media``) no stored image file.

Every write answers with exactly what ``GET /products/<id>`` returns
(``shopsvc.product_records.product_record``).

The order of the work follows the original (reference products.md §5, §6, §8, §9): the row's
basic columns, images, the "meta" fields (virtual, tax, SKU, attributes, prices, parent, stock,
linked products, terms, downloads, external fields, reviews, default attributes), the variations
of a variable product, and last the stock status of a variable product from its variations.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc import rendering
from shopsvc.bulk import run_bulk
from shopsvc.domain import catalog, pricing, stock
from shopsvc.errors import ApiError, invalid_param
from shopsvc.media import download_image
from shopsvc.product_records import load_for, product_record
from shopsvc.resources import Product, Products, ProductsBulk
from shopsvc.sql import media as media_sql
from shopsvc.sql import product_writes as sql
from shopsvc.sql.tables import utc_now
from shopsvc.validation import products as validation
from shopsvc.validation.products import (
    AttributeInput,
    DownloadInput,
    ImageInput,
    ImagesInput,
    OptionInput,
)
from shopsvc.validation.types import parse_int, require_object

EDIT = {"request_method": ("POST", "PUT", "PATCH")}
IMAGE_ERROR = "shop_api_product_image_upload_error"
CATEGORY = "product_cat"
TAG = "product_tag"
PRICELESS_TYPES = ("variable", "grouped")
#: A variation's title names its attribute values only when it has this many or fewer.
TITLE_ATTRIBUTES = 2


def sku_exists() -> ApiError:
    return ApiError(
        "shop_api_product_sku_already_exists", "The SKU already exists on another product.", 400
    )


def _require_create(request: Request) -> None:
    request.require(
        "publish_products",
        "shop_api_user_cannot_create_product",
        "You do not have permission to create products.",
    )


def _stock_columns(state: stock.StockState) -> dict[str, Any]:
    """The product columns that hold a resolved stock state."""
    return {
        "manage_stock": state.manage_stock,
        "stock_quantity": state.quantity,
        "backorders": state.backorders,
        "stock_status": state.status,
    }


class ProductWriter:
    """Applies the write fields of one request element to the request's connection."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.conn = request.db
        self.shop = request.shop
        self.stamp = utc_now()

    # --- entry points

    def create(self, data: Any) -> int:
        """Create a product from the ``product`` envelope's value (capability already checked);
        its id."""
        data = require_object(data, "product")
        if data.get("title") is None:
            raise validation.missing_title()
        kind = validation.product_type("simple" if data.get("type") is None else data["type"])
        clean = validation.clean_product(data)
        title = clean.get("title", validation.DEFAULT_TITLE)
        base = clean.get("name") or validation.slug_base(title) or "product"
        values = {
            "type": kind,
            "status": clean.get("status", "publish"),
            "title": title,
            "slug": catalog.unique_slug(base, sql.slugs_like(self.conn, base)),
            "description": clean.get("description", ""),
            "short_description": clean.get("short_description", ""),
            "menu_order": clean.get("menu_order", 0),
            "catalog_visibility": clean.get("catalog_visibility", "visible"),
            "created_at": self.stamp,
            "updated_at": self.stamp,
        }
        product_id = sql.insert_product(self.conn, values)
        row = sql.product_row(self.conn, product_id)
        assert row is not None
        self._save(row, clean)
        return product_id

    def edit(self, product_id: int, data: Any) -> None:
        """Edit the product or variation ``product_id`` (already validated) from ``data``."""
        row = sql.product_row(self.conn, product_id)
        if row is None:  # pragma: no cover - validated by load_for
            raise ApiError("shop_api_no_product_found", f"No product found with ID {product_id}")
        data = require_object(data, "product")
        if row["type"] == "variation":
            self._edit_variation(row, data)
            return
        if data.get("type") is not None:
            row["type"] = validation.product_type(data["type"])
        clean = validation.clean_product(data)
        changes: dict[str, Any] = {"type": row["type"]}
        if "title" in clean:
            changes["title"] = clean["title"]
        if "name" in clean:
            base = clean["name"] or validation.slug_base(clean.get("title", row["title"]))
            base = base or "product"
            if base != row["slug"]:
                taken = sql.slugs_like(self.conn, base, exclude=product_id)
                changes["slug"] = catalog.unique_slug(base, taken)
        for name in ("description", "short_description", "menu_order", "catalog_visibility"):
            if name in clean:
                changes[name] = clean[name]
        previous_title = row["title"]
        row.update(changes)
        self._save(row, clean)
        if row["type"] == "variable" and row["title"] != previous_title:
            self._rename_variations(product_id, previous_title, row["title"])

    # --- the product

    def _save(self, row: dict[str, Any], clean: dict[str, Any]) -> None:
        product_id = row["id"]
        kind = row["type"]
        changes: dict[str, Any] = {
            key: row[key]
            for key in (
                "type",
                "title",
                "slug",
                "description",
                "short_description",
                "menu_order",
                "catalog_visibility",
            )
        }
        restoring = False
        if "status" in clean:
            if row["status"] == "trash":
                restoring = True
            else:
                changes["status"] = clean["status"]
        final_status = clean.get("status", row["status"])

        if "images" in clean:
            changes.update(self._images(product_id, clean["images"]))

        # meta
        for name in ("featured", "sold_individually", "reviews_allowed", "purchase_note"):
            if name in clean:
                changes[name] = clean[name]
        if "tax_status" in clean:
            changes["tax_status"] = clean["tax_status"]
        if "tax_class" in clean:
            changes["tax_class"] = self._tax_class(clean["tax_class"], "product.tax_class")
        changes.update(self._shipping(row, clean, "product"))
        self._sku(row, clean, final_status)
        if "attributes" in clean:
            self._attributes(product_id, clean["attributes"])
        changes.update(self._prices(row, clean, kind))
        if "parent_id" in clean:
            changes["parent_id"] = self._parent(product_id, clean["parent_id"])
        for name in ("upsell_ids", "cross_sell_ids"):
            if name in clean:
                changes[name] = json.dumps(clean[name])
        for name, taxonomy in (("categories", CATEGORY), ("tags", TAG)):
            if name in clean:
                self._terms(product_id, taxonomy, clean[name], f"product.{name}")
        changes.update(self._downloads(row, clean))
        if kind == "external":
            for name in ("product_url", "button_text"):
                if name in clean:
                    changes[name] = clean[name]
        if kind == "variable" and "default_attributes" in clean:
            defaults = self._default_attributes(product_id, clean["default_attributes"])
            changes["default_attributes"] = json.dumps(defaults, ensure_ascii=False)

        changes["updated_at"] = self.stamp
        row.update(changes)
        sql.update_product(self.conn, product_id, changes)
        if restoring:
            self._restore(row, clean["status"])
            row["status"] = clean["status"]

        if kind == "variable" and "variations" in clean:
            self._variations(row, clean["variations"])
        row.update(self._stock(row, clean))
        sql.update_product(
            self.conn,
            product_id,
            {k: row[k] for k in ("manage_stock", "stock_quantity", "backorders", "stock_status")},
        )

    def _restore(self, row: dict[str, Any], status: str) -> None:
        """A non-trash status on a trashed product restores it (and its trashed variations),
        unless a SKU of theirs now belongs to another live product (decisions.md §7)."""
        product_id = row["id"]
        variation_skus = sql.trashed_variation_skus(self.conn, product_id)
        exclude = [product_id, *(i for i, _ in variation_skus)]
        skus = [s for s in [row["sku"], *(s for _, s in variation_skus)] if s]
        if len({s.lower() for s in skus}) < len(skus):
            raise sku_exists()
        for sku in skus:
            if sql.sku_owner(self.conn, sku, exclude) is not None:
                raise sku_exists()
        if not sql.restore(self.conn, product_id, status, self.stamp):
            raise sku_exists()

    def _parent(self, product_id: int, parent_id: int) -> int | None:
        if parent_id == 0:
            return None
        if parent_id == product_id or not sql.existing_ids(self.conn, [parent_id]):
            raise invalid_param("product.parent_id", f"no product with ID {parent_id}")
        return parent_id

    def _terms(self, product_id: int, taxonomy: str, ids: list[int], field: str) -> None:
        found = sql.existing_terms(self.conn, taxonomy, ids)
        for term_id in ids:
            if term_id not in found:
                what = "category" if taxonomy == CATEGORY else "tag"
                raise invalid_param(field, f"no product {what} with ID {term_id}")
        sql.replace_terms(self.conn, product_id, taxonomy, ids)

    def _tax_class(self, slug: str, field: str, variation: bool = False) -> str:
        """``""`` (standard), ``parent`` (variations only) or an existing class's slug."""
        if slug == "" or (variation and slug == validation.PARENT_TAX_CLASS):
            return slug
        if sql.tax_class_exists(self.conn, slug):
            return slug
        raise invalid_param(field, f'tax class "{slug}" does not exist')

    # --- fields shared by products and variations

    def _sku(self, row: dict[str, Any], clean: dict[str, Any], status: str) -> None:
        """Write a changed SKU: unique among the products and variations that are not in the
        trash (checked first; the unique index decides a race)."""
        if "sku" not in clean:
            return
        sku = clean["sku"]
        if sku == row["sku"]:
            return
        live = sku is not None and status != "trash"
        if live and sql.sku_owner(self.conn, sku, [row["id"]]) is not None:
            raise sku_exists()
        if not sql.write_sku(self.conn, row["id"], sku):
            raise sku_exists()
        row["sku"] = sku

    def _shipping(self, row: dict[str, Any], clean: dict[str, Any], field: str) -> dict[str, Any]:
        """``virtual``, ``weight``, ``dimensions`` and ``shipping_class``."""
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
            class_id = None
            if slug:
                class_id = sql.shipping_class_id(self.conn, slug)
                if class_id is None:
                    raise invalid_param(
                        f"{field}.shipping_class", f'no shipping class with slug "{slug}"'
                    )
            changes["shipping_class_id"] = class_id
        return changes

    def _prices(self, row: dict[str, Any], clean: dict[str, Any], kind: str) -> dict[str, Any]:
        """Regular and sale prices and the sale window; variable and grouped products have
        none. When only ``to`` is set, ``from`` becomes now."""
        if kind in PRICELESS_TYPES:
            return {"regular_price": None, "sale_price": None, "sale_from": None, "sale_to": None}
        regular = clean.get("regular_price", row["regular_price"])
        sale = clean.get("sale_price", row["sale_price"])
        sale_from = clean.get("sale_from", row["sale_from"])
        sale_to = clean.get("sale_to", row["sale_to"])
        sale_from, sale_to = pricing.normalise_sale_dates(sale_from, sale_to, self.stamp)
        return {
            "regular_price": regular,
            "sale_price": sale,
            "sale_from": sale_from,
            "sale_to": sale_to,
        }

    def _downloads(self, row: dict[str, Any], clean: dict[str, Any]) -> dict[str, Any]:
        """``downloadable``; then, only when the product is downloadable, ``downloads``
        (replaced), ``download_limit`` and ``download_expiry``."""
        changes: dict[str, Any] = {}
        if "downloadable" in clean:
            changes["downloadable"] = clean["downloadable"]
        if not clean.get("downloadable", row["downloadable"]):
            return changes
        if "downloads" in clean:
            self._replace_downloads(row["id"], clean["downloads"])
        for name in ("download_limit", "download_expiry"):
            if name in clean:
                changes[name] = clean[name]
        return changes

    def _replace_downloads(self, product_id: int, items: list[DownloadInput]) -> None:
        keys: set[str] = set()
        rows = []
        for item in items:
            key = item.key
            if not key or key in keys:
                key = str(uuid.uuid4())
            keys.add(key)
            rows.append((key, item.name, item.file))
        sql.replace_downloads(self.conn, product_id, rows)

    def _stock_inputs(
        self, row: dict[str, Any], clean: dict[str, Any], field: str
    ) -> tuple[bool, int | None, str, str]:
        """(manage, quantity, backorders, requested status) after this request's fields."""
        manage = bool(clean.get("managing_stock", row["manage_stock"]))
        backorders = clean.get("backorders", row["backorders"]) or "no"
        quantity = row["stock_quantity"]
        if manage:
            if "stock_quantity" in clean:
                quantity = clean["stock_quantity"]
            elif "inventory_delta" in clean:
                quantity = (quantity or 0) + clean["inventory_delta"]
                if not validation.MIN_INT <= quantity <= validation.MAX_INT:
                    raise invalid_param(f"{field}.inventory_delta", "the quantity is out of range")
        requested = row["stock_status"]
        if "in_stock" in clean:
            requested = stock.status_from_in_stock(clean["in_stock"])
        return manage, quantity, backorders, requested

    def _stock(self, row: dict[str, Any], clean: dict[str, Any]) -> dict[str, Any]:
        """The stock columns of a product (reference §6 "Stock", the spec's stock rules): with
        store-wide management off only the status is stored; a variable product's status
        comes from its variations."""
        kind = row["type"]
        manage, quantity, backorders, requested = self._stock_inputs(row, clean, "product")
        children = None
        if kind == "variable":
            children = self._child_statuses(row["id"], manage, quantity, backorders)
        if not self.shop.manage_stock:
            if kind == "variable":
                status = stock.variable_stock_status(children or [])
            elif kind == "external":
                status = "instock"
            else:
                status = requested
            return {
                "manage_stock": row["manage_stock"],
                "stock_quantity": row["stock_quantity"],
                "backorders": row["backorders"],
                "stock_status": status,
            }
        state = stock.resolve_stock(
            kind,
            manage_stock=manage,
            quantity=quantity,
            backorders=backorders,
            threshold=self.shop.out_of_stock_threshold,
            requested_status=requested,
            child_statuses=children,
        )
        return _stock_columns(state)

    def _child_statuses(
        self, product_id: int, manage: bool, quantity: int | None, backorders: str
    ) -> list[str]:
        """The stock status of each live variation; one that does not manage its stock while
        the parent does has the parent's (quantity-derived) status."""
        parent_manages = self.shop.manage_stock and manage
        threshold = self.shop.out_of_stock_threshold
        parent_status = stock.stock_status(True, quantity, backorders, threshold, None)
        statuses = []
        for child in sql.variations_of(self.conn, product_id):
            if child["status"] not in ("publish", "private"):
                continue
            own = self.shop.manage_stock and bool(child["manage_stock"])
            statuses.append(parent_status if parent_manages and not own else child["stock_status"])
        return statuses

    # --- images

    def _image_id(self, item: ImageInput) -> int:
        """The media id an image element names: ``id`` (must exist), else a download of
        ``src``, else 0 (none); ``alt``/``title`` written to the media row when given."""
        if item.id:
            if not media_sql.exists(self.conn, item.id):
                raise invalid_param(f"{item.field}.id", f"no image with ID {item.id}")
            media_id = item.id
        elif item.src:
            media_id = download_image(self.request, item.src, IMAGE_ERROR)
        else:
            return 0
        if item.alt or item.title:
            media_sql.update_text(
                self.conn, media_id, title=item.title or None, alt=item.alt or None
            )
        return media_id

    def _images(self, product_id: int, images: ImagesInput) -> dict[str, Any]:
        """Position 0 replaces the featured image, the other elements the gallery (only when
        there are any); a non-array ``images`` clears both."""
        if images.clear:
            sql.replace_gallery(self.conn, product_id, [])
            return {"image_id": None}
        changes: dict[str, Any] = {}
        gallery: list[int] = []
        gallery_given = False
        for item in images.items:
            media_id = self._image_id(item)
            if item.featured:
                changes["image_id"] = media_id or None
            else:
                gallery_given = True
                if media_id and media_id not in gallery:
                    gallery.append(media_id)
        if gallery_given:
            sql.replace_gallery(self.conn, product_id, gallery)
        return changes

    # --- attributes

    def _attributes(self, product_id: int, items: list[AttributeInput]) -> None:
        """Replace the product's attributes: a ``slug`` naming a registered attribute makes a
        global attribute (options are term names; missing terms are created; dropped when no
        option remains), otherwise a custom one (needs ``options``). Sorted by position."""
        registered = sql.global_attributes(self.conn, [i.slug for i in items if i.slug])
        terms_by_attribute: dict[int, list[dict[str, Any]]] = {}
        for term in sql.attribute_terms_of(self.conn, [a["id"] for a in registered.values()]):
            terms_by_attribute.setdefault(term["attribute_id"], []).append(term)
        chosen: dict[str, sql.AttributeRow] = {}
        for item in items:
            attribute = registered.get(item.slug) if item.slug else None
            if attribute is not None:
                known = terms_by_attribute.setdefault(attribute["id"], [])
                term_ids = [
                    self._term_id(attribute["id"], option, known) for option in item.options or ()
                ]
                if not term_ids:
                    continue
                chosen[f"pa:{attribute['slug']}"] = sql.AttributeRow(
                    attribute_id=attribute["id"],
                    name=attribute["name"],
                    position=item.position,
                    visible=item.visible,
                    variation=item.variation,
                    term_ids=list(dict.fromkeys(term_ids)),
                )
            elif item.options is not None:
                chosen[catalog.clean_attribute_slug(item.name) or item.name] = sql.AttributeRow(
                    attribute_id=None,
                    name=item.name,
                    position=item.position,
                    visible=item.visible,
                    variation=item.variation,
                    options=list(item.options),
                )
        rows = sorted(chosen.values(), key=lambda row: row.position)
        sql.replace_attributes(self.conn, product_id, rows)

    def _term_id(self, attribute_id: int, option: str, known: list[dict[str, Any]]) -> int:
        """The term of the attribute named ``option`` (by name, then slug), created if missing.
        A concurrent request may create the same term first: then it is looked up again."""
        for _ in range(3):
            found = _find_term(option, known)
            if found is not None:
                return found
            base = (catalog.slugify_name(option) or "term")[: validation.MAX_SLUG_BASE]
            unique = catalog.unique_slug(base, sql.term_slugs_like(self.conn, attribute_id, base))
            term_id = sql.insert_attribute_term(self.conn, attribute_id, option, unique)
            if term_id is not None:
                known.append({"id": term_id, "name": option, "slug": unique})
                return term_id
            known[:] = sql.attribute_terms_of(self.conn, [attribute_id])
        raise ApiError(  # pragma: no cover - three lost races in a row
            "shop_api_cannot_create_product", f'Could not create the term "{option}".', 400
        )

    def _match_attribute(
        self, parent_attributes: list[dict[str, Any]], option: OptionInput
    ) -> dict[str, Any] | None:
        """The parent attribute a ``{name, slug}`` element means: a global attribute by its slug
        (or by name), else a custom attribute by its sanitised name."""
        if option.slug:
            slug = catalog.clean_attribute_slug(option.slug)
            for attribute in parent_attributes:
                if attribute["attribute_id"] and attribute["slug"] == slug:
                    return attribute
        key = catalog.clean_attribute_slug(option.name)
        for attribute in parent_attributes:
            if (
                not attribute["attribute_id"]
                and catalog.clean_attribute_slug(attribute["name"]) == key
            ):
                return attribute
        for attribute in parent_attributes:
            if attribute["attribute_id"] and (
                attribute["slug"] == key or attribute["name"].casefold() == option.name.casefold()
            ):
                return attribute
        return None

    @staticmethod
    def _attribute_key(attribute: dict[str, Any]) -> str:
        if attribute["attribute_id"]:
            return str(attribute["slug"])
        return catalog.clean_attribute_slug(attribute["name"])

    @staticmethod
    def _option_value(attribute: dict[str, Any], option: str) -> str:
        """The stored value: a global attribute's term slug, a custom attribute's text."""
        if not option:
            return ""
        if not attribute["attribute_id"]:
            return option
        wanted = option.casefold()
        slug = catalog.slugify_name(option)
        for term in attribute["terms"]:
            if term["name"].casefold() == wanted or term["slug"] in (option, slug):
                return str(term["slug"])
        return slug

    def _variation_values(
        self, parent_attributes: list[dict[str, Any]], options: list[OptionInput]
    ) -> dict[str, str]:
        """The variation attribute values of ``options``; elements that name no attribute of
        the parent flagged for variations are ignored."""
        values: dict[str, str] = {}
        for option in options:
            attribute = self._match_attribute(parent_attributes, option)
            if attribute is None or not attribute["variation"]:
                continue
            values[self._attribute_key(attribute)] = self._option_value(attribute, option.option)
        return values

    def _default_attributes(
        self, product_id: int, options: list[OptionInput]
    ) -> list[dict[str, str]]:
        parent_attributes = sql.product_attributes_of(self.conn, product_id)
        values = self._variation_values(parent_attributes, options)
        return [{"slug": key, "option": value} for key, value in values.items() if value]

    # --- variations

    def _variations(self, parent: dict[str, Any], items: list[dict[str, Any]]) -> None:
        """Upsert the variations: ``id`` of a variation of this product edits it, anything else
        creates one; the array index is the menu order."""
        parent_attributes = sql.product_attributes_of(self.conn, parent["id"])
        for index, raw in enumerate(items):
            field = f"product.variations[{index}]"
            clean = validation.clean_variation(raw, field)
            variation_id = clean["id"]
            if variation_id and sql.is_variation_of(self.conn, variation_id, parent["id"]):
                row = sql.product_row(self.conn, variation_id)
                assert row is not None
                changes: dict[str, Any] = {"menu_order": index}
                if clean["visible"] is not None:
                    changes["status"] = "publish" if clean["visible"] else "private"
            else:
                row = self._new_variation(parent, index, clean["visible"])
                changes = {}
            self._save_variation(row, parent, parent_attributes, clean, changes, field)

    def _new_variation(
        self, parent: dict[str, Any], index: int, visible: bool | None
    ) -> dict[str, Any]:
        values = {
            "type": "variation",
            "parent_id": parent["id"],
            "status": "private" if visible is False else "publish",
            "title": parent["title"],
            "slug": f"{parent['slug']}-variation"[:200],
            "menu_order": index,
            "tax_class": validation.PARENT_TAX_CLASS,
            "created_at": self.stamp,
            "updated_at": self.stamp,
        }
        variation_id = sql.insert_product(self.conn, values)
        row = sql.product_row(self.conn, variation_id)
        assert row is not None
        return row

    def _save_variation(
        self,
        row: dict[str, Any],
        parent: dict[str, Any],
        parent_attributes: list[dict[str, Any]],
        clean: dict[str, Any],
        changes: dict[str, Any],
        field: str,
    ) -> None:
        """Apply a variation's write fields (the spec's "Variation write fields")."""
        variation_id = row["id"]
        status = changes.get("status", row["status"])
        self._sku(row, clean, status)
        if row["status"] == "trash" and status != "trash":
            self._untrash_variation(row, status)
            del changes["status"]
        if "image" in clean:
            image = clean["image"]
            changes["image_id"] = (self._image_id(image) or None) if image is not None else None
        changes.update(self._shipping(row, clean, field))
        changes.update(self._downloads(row, clean))
        changes.update(self._prices(row, clean, "variation"))
        if "tax_class" in clean:
            changes["tax_class"] = self._tax_class(
                clean["tax_class"], f"{field}.tax_class", variation=True
            )
        if "description" in clean:
            changes["description"] = clean["description"]
        if "attributes" in clean:
            values = self._variation_values(parent_attributes, clean["attributes"])
            sql.replace_variation_values(self.conn, variation_id, values)
        else:
            values = sql.variation_values(self.conn, variation_id)
        changes["title"] = self._variation_title(parent["title"], parent_attributes, values)
        changes.update(self._variation_stock(row, clean, field))
        changes["updated_at"] = self.stamp
        sql.update_product(self.conn, variation_id, changes)

    def _untrash_variation(self, row: dict[str, Any], status: str) -> None:
        """A trashed variation made visible again: its SKU must still be free."""
        sku = row["sku"]
        if sku and sql.sku_owner(self.conn, sku, [row["id"]]) is not None:
            raise sku_exists()
        values = {"status": status, "status_before_trash": None}
        if not sql.update_guarded(self.conn, row["id"], values):
            raise sku_exists()

    def _variation_stock(
        self, row: dict[str, Any], clean: dict[str, Any], field: str
    ) -> dict[str, Any]:
        """A variation's stock (reference §8): not managing clears backorders and quantity."""
        manage, quantity, backorders, requested = self._stock_inputs(row, clean, field)
        if not self.shop.manage_stock:
            return {"stock_status": requested}
        state = stock.resolve_stock(
            "variation",
            manage_stock=manage,
            quantity=quantity,
            backorders=backorders if manage else "no",
            threshold=self.shop.out_of_stock_threshold,
            requested_status=requested,
        )
        return _stock_columns(state)

    @staticmethod
    def _variation_title(
        parent_title: str, parent_attributes: list[dict[str, Any]], values: dict[str, str]
    ) -> str:
        """``Parent - Red, Large``: the parent's title, plus the values' names when the
        variation has one or two attributes and each has a value (as the final core)."""
        shown = []
        for attribute in parent_attributes:
            if not attribute["variation"]:
                continue
            key = ProductWriter._attribute_key(attribute)
            value = values.get(key, "")
            if not value:
                return parent_title
            name = value
            for term in attribute["terms"]:
                if term["slug"] == value:
                    name = term["name"]
            shown.append(name)
        if not shown or len(shown) > TITLE_ATTRIBUTES:
            return parent_title
        return f"{parent_title} - {', '.join(shown)}"

    def _rename_variations(self, product_id: int, old: str, new: str) -> None:
        """A variable product's new title carries over to its variations' titles."""
        for child in sql.variations_of(self.conn, product_id):
            current = sql.product_row(self.conn, child["id"])
            if current is not None and current["title"].startswith(old):
                title = new + current["title"][len(old) :]
                sql.update_product(self.conn, child["id"], {"title": title})

    def _edit_variation(self, row: dict[str, Any], data: dict[str, Any]) -> None:
        """``PUT /products/<variation id>``: the variation write fields; then the parent's stock
        status follows."""
        clean = validation.clean_variation(data, "product")
        parent = sql.product_row(self.conn, row["parent_id"]) if row["parent_id"] else None
        changes: dict[str, Any] = {}
        if clean["visible"] is not None:
            changes["status"] = "publish" if clean["visible"] else "private"
        if parent is None:
            parent = {"id": 0, "title": row["title"], "type": "variable"}
            parent_attributes: list[dict[str, Any]] = []
        else:
            parent_attributes = sql.product_attributes_of(self.conn, parent["id"])
        self._save_variation(row, parent, parent_attributes, clean, changes, "product")
        if parent.get("id") and parent["type"] == "variable":
            parent_row = sql.product_row(self.conn, parent["id"])
            assert parent_row is not None
            sql.update_product(self.conn, parent["id"], self._stock(parent_row, {}))


def _find_term(option: str, known: list[dict[str, Any]]) -> int | None:
    """The id of the term in ``known`` whose name is ``option`` (case-insensitive), else whose
    slug is ``option`` or its slug."""
    wanted = option.casefold()
    for term in known:
        if term["name"].casefold() == wanted:
            return int(term["id"])
    slug = catalog.slugify_name(option)
    for term in known:
        if term["slug"] in (option, slug):
            return int(term["id"])
    return None


# --- the routes


def _respond(request: Request, product_id: int, status: int = 200) -> Response:
    return rendering.single(request, "product", product_record(request, product_id), status)


@view_config(context=Products, request_method="POST")
def create_product(context: Products, request: Request) -> Response:
    data = request.envelope(
        "product", "shop_api_missing_product_data", "No product data specified to create product."
    )
    _require_create(request)
    product_id = ProductWriter(request).create(data)
    return _respond(request, product_id, 201)


@view_config(context=Product, **EDIT)
def edit_product(context: Product, request: Request) -> Response:
    data = request.envelope(
        "product", "shop_api_missing_product_data", "No product data specified to edit product."
    )
    load_for(request, context.id, "edit")
    ProductWriter(request).edit(context.id, data)
    return _respond(request, context.id)


def _element_sku(element: dict[str, Any]) -> str:
    value = element.get("sku")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return catalog.plain_text(str(value))


@view_config(context=ProductsBulk, **EDIT)
def bulk_products(context: ProductsBulk, request: Request) -> Response:
    """Each element: a non-zero ``id`` edits that product or variation; else a non-empty
    ``sku`` of a product or variation not in the trash edits it; else the element creates."""
    targets: dict[int, tuple[int, str]] = {}

    def handle(element: dict[str, Any]) -> dict[str, Any]:
        return _bulk_element(request, element, targets)

    def on_error(element: Any, error: ApiError) -> dict[str, Any]:
        product_id, sku = targets.get(id(element), (0, ""))
        return {"id": product_id, "sku": sku, "error": error.as_item()}

    return run_bulk(request, "products", handle, on_error=on_error)


def _bulk_element(
    request: Request, element: dict[str, Any], targets: dict[int, tuple[int, str]]
) -> dict[str, Any]:
    raw_id = element.get("id")
    product_id = 0
    if raw_id is not None and raw_id != "":
        parsed = parse_int(raw_id)
        if parsed is None:
            raise invalid_param("product.id", "must be an integer")
        product_id = parsed
    sku = ""
    if not product_id:
        sku = _element_sku(element)
        if sku:
            product_id = sql.product_id_by_sku(request.db, sku) or 0
    targets[id(element)] = (max(product_id, 0), sku)
    writer = ProductWriter(request)
    if product_id:
        load_for(request, product_id, "edit")
        writer.edit(product_id, element)
    else:
        _require_create(request)
        product_id = writer.create(element)
    return product_record(request, product_id)
