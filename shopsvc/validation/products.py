"""Write fields of a product (``POST /products``, ``PUT /products/<id>``, bulk elements) and of a
variation (elements of ``variations``).

The fields are type-checked (Colander for the flat ones, by hand for the arrays, so that a
failure names its element: ``product.images[2].id``) and normalised by the pure rules of
``shopsvc.domain`` into plain Python values: only the fields present (and not JSON null) appear
in the result. Anything that needs the database (whether a category, an image, a shipping class
or a tax class exists, SKU uniqueness, attribute terms) is the view's job.

Lenient where the spec is lenient (decisions.md §7): a non-array ``images`` clears the images,
attributes without a ``name``, downloads without a file and non-positive upsell/cross-sell ids
are skipped, ``backorders`` never refuses, attribute ``visible``/``variation`` use truthiness.
Every other value of the wrong type or shape is a 400 ``shop_api_invalid_param`` naming the field.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from urllib.parse import unquote, urlsplit

import colander

from shopsvc.domain import catalog, pricing, stock
from shopsvc.domain.tax import tax_class_slug
from shopsvc.errors import ApiError, invalid_param
from shopsvc.validation.types import (
    MAX_INT,
    MIN_INT,
    Int,
    LooseBool,
    Raw,
    Text,
    as_text,
    check_length,
    deserialize,
    int_field,
    optional,
    parse_int,
    parse_loose_bool,
    require_array,
    require_object,
    truthy,
)

#: Limits of the columns (``sql/tables.py``).
MAX_SHORT_TEXT = 200
MAX_DOWNLOAD_KEY = 64
#: Prices, weights and dimensions are NUMERIC(18, 6): at most 12 integer digits.
MAX_AMOUNT = Decimal("1e12")
AMOUNT_STEP = Decimal("0.000001")
#: Room left in a 200-character slug for a ``-N`` suffix.
MAX_SLUG_BASE = 190
DEFAULT_TITLE = "Product"
UNLIMITED = -1
PARENT_TAX_CLASS = "parent"
DIMENSIONS = ("length", "width", "height")

#: Boolean fields of a product (the §2 spellings).
PRODUCT_FLAGS = (
    "virtual",
    "featured",
    "sold_individually",
    "downloadable",
    "reviews_allowed",
    "managing_stock",
    "in_stock",
)
VARIATION_FLAGS = ("virtual", "downloadable", "managing_stock", "in_stock")


# --- parsed shapes


@dataclass(frozen=True)
class ImageInput:
    """One element of ``images`` (or the first of a variation's ``image``)."""

    field: str
    id: int  # 0: none given
    src: str  # "": none given
    featured: bool  # ``position`` present and 0
    alt: str
    title: str


@dataclass(frozen=True)
class ImagesInput:
    """``images``: ``clear`` (a non-array value) or the elements in request order."""

    clear: bool
    items: tuple[ImageInput, ...] = ()


@dataclass(frozen=True)
class AttributeInput:
    """One element of a product's ``attributes`` (entries without a name are already dropped).
    ``options`` is None when the element had none."""

    field: str
    name: str
    slug: str  # the registered-attribute slug asked for ("" when none)
    position: int
    visible: bool
    variation: bool
    options: tuple[str, ...] | None


@dataclass(frozen=True)
class OptionInput:
    """One element of a variation's ``attributes`` or of ``default_attributes``."""

    name: str
    slug: str
    option: str


@dataclass(frozen=True)
class DownloadInput:
    key: str  # "" when none given
    name: str
    file: str


# --- Colander types for the flat fields


class Decimal_(colander.SchemaType):
    """A price, weight or dimension: ``""`` clears (None); otherwise a non-negative number."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        try:
            value = pricing.parse_decimal_input(cstruct)
        except ValueError:
            raise colander.Invalid(node, "must be a number or a numeric string") from None
        if value is None:
            return ""  # cleared; colander would drop a None
        if value < 0:
            raise colander.Invalid(node, "must not be negative")
        if value >= MAX_AMOUNT:
            raise colander.Invalid(node, f"must be less than {MAX_AMOUNT:f}")
        # the columns keep 6 decimals (PostgreSQL would round; SQLite stores text); rounding
        # may carry into a 13th integer digit (999999999999.9999995), which no column holds
        value = value.quantize(AMOUNT_STEP, rounding=ROUND_HALF_UP)
        if value >= MAX_AMOUNT:
            raise colander.Invalid(node, f"must be less than {MAX_AMOUNT:f}")
        return value.normalize() + 0


class SaleDate(colander.SchemaType):
    """``sale_price_dates_from`` / ``_to``: ``""`` clears; a date or date-time, stored as naive
    UTC; a date-only ``to`` is 23:59:59 that day."""

    def __init__(self, end_of_day: bool = False) -> None:
        self.end_of_day = end_of_day

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if isinstance(cstruct, bool) or not isinstance(cstruct, str):
            raise colander.Invalid(node, "must be a date string such as 2015-01-31")
        try:
            moment = pricing.parse_sale_date(cstruct, end_of_day=self.end_of_day)
        except (ValueError, OverflowError):
            raise colander.Invalid(node, "must be a date such as 2015-01-31") from None
        if moment is None:
            return ""
        return moment.astimezone(dt.UTC).replace(tzinfo=None, microsecond=0)


class Limit(colander.SchemaType):
    """``download_limit`` / ``download_expiry``: ``""`` or -1 → unlimited (-1); else >= 0."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if isinstance(cstruct, str) and cstruct.strip() == "":
            return UNLIMITED
        value = parse_int(cstruct)
        if value is None or value < UNLIMITED or value > MAX_INT:
            raise colander.Invalid(node, "must be -1 (unlimited) or a non-negative integer")
        return value


class Quantity(Int):
    """A 32-bit integer (``""`` counts as absent)."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if isinstance(cstruct, str) and cstruct.strip() == "":
            return colander.null
        return super().deserialize(node, cstruct)


def _flat_schema(variation: bool) -> colander.SchemaNode:
    schema = colander.SchemaNode(colander.Mapping(unknown="ignore"))
    flags = VARIATION_FLAGS if variation else PRODUCT_FLAGS
    for name in flags:
        schema.add(optional(LooseBool(), name=name))
    texts = ["sku", "tax_class", "shipping_class", "description"]
    if not variation:
        texts += [
            "title",
            "name",
            "status",
            "short_description",
            "catalog_visibility",
            "tax_status",
            "purchase_note",
            "product_url",
            "button_text",
        ]
    for name in texts:
        schema.add(optional(Text(), name=name))
    if not variation:
        schema.add(optional(LooseBool(), name="enable_html_description"))
        schema.add(optional(LooseBool(), name="enable_html_short_description"))
        schema.add(optional(Quantity(), name="menu_order"))
        schema.add(optional(Quantity(), name="parent_id"))
    schema.add(optional(Raw(), name="backorders"))
    schema.add(optional(Quantity(), name="stock_quantity"))
    schema.add(optional(Quantity(), name="inventory_delta"))
    for name in ("regular_price", "sale_price", "weight"):
        schema.add(optional(Decimal_(), name=name))
    schema.add(optional(SaleDate(), name="sale_price_dates_from"))
    schema.add(optional(SaleDate(end_of_day=True), name="sale_price_dates_to"))
    schema.add(optional(Limit(), name="download_limit"))
    schema.add(optional(Limit(), name="download_expiry"))
    return schema


PRODUCT_SCHEMA = _flat_schema(variation=False)
VARIATION_SCHEMA = _flat_schema(variation=True)


# --- helpers


def _present(data: dict[str, Any], key: str) -> bool:
    return data.get(key) is not None


def _text(value: Any, field: str) -> str:
    """A string field of a nested element (finite numbers are written as text)."""
    text = as_text(value)
    if text is None:
        raise invalid_param(field, "must be a string")
    return text


def _unstorable(text: str) -> bool:
    """A NUL character: no text column stores one. (Text that is not Unicode never gets here:
    the JSON parser refuses it.)"""
    return "\x00" in text


def find_unstorable(value: Any, field: str) -> str | None:
    """The name of the first string (or key) under ``value`` that no text column can store."""
    if isinstance(value, str):
        return field if _unstorable(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{field}.{key}"
            if _unstorable(str(key)):
                return name
            found = find_unstorable(item, name)
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = find_unstorable(item, f"{field}[{index}]")
            if found:
                return found
    return None


def check_storable(data: Any, field: str) -> None:
    found = find_unstorable(data, field)
    if found:
        raise invalid_param(found, "must not contain NUL characters")


def slug_base(text: str) -> str:
    """The slug a name or title asks for, cut to leave room for a ``-N`` suffix."""
    return catalog.slugify_name(text)[:MAX_SLUG_BASE].strip("-")


def _raise(error: ApiError | None) -> None:
    if error is not None:
        raise error


def product_type(value: Any) -> str:
    """The ``type`` write field; 400 ``shop_api_invalid_product_type`` unless one of the four."""
    text = value if isinstance(value, str) else ""
    _raise(catalog.check_product_type(text))
    return text


def missing_title() -> ApiError:
    return ApiError("shop_api_missing_product_title", "Missing parameter title.", 400)


# --- arrays


def clean_images(value: Any, field: str) -> ImagesInput:
    """``images``: a non-array value clears; an array gives its elements."""
    if not isinstance(value, list):
        return ImagesInput(clear=True)
    return ImagesInput(
        clear=False,
        items=tuple(clean_image(item, f"{field}[{i}]") for i, item in enumerate(value)),
    )


def clean_image(value: Any, field: str, force_featured: bool = False) -> ImageInput:
    item = require_object(value, field)
    image_id = 0
    if item.get("id") is not None and item.get("id") != "":
        image_id = max(int_field(item["id"], f"{field}.id"), 0)
    src = _text(item["src"], f"{field}.src").strip() if _present(item, "src") else ""
    featured = force_featured
    if not featured and "position" in item and item["position"] is not None:
        position = item["position"]
        featured = position == "" or parse_int(position) == 0
    alt = catalog.plain_text(_text(item["alt"], f"{field}.alt")) if _present(item, "alt") else ""
    title = (
        catalog.plain_text(_text(item["title"], f"{field}.title"))
        if _present(item, "title")
        else ""
    )
    return ImageInput(field, image_id, src, featured, alt, title)


def _options(value: Any, field: str) -> tuple[str, ...]:
    """Attribute ``options``: an array, or a ``|``-separated string; cleaned, empties dropped."""
    if isinstance(value, list):
        raw = [_text(item, f"{field}[{i}]") for i, item in enumerate(value) if item is not None]
    elif (text := as_text(value)) is not None:
        raw = text.split("|")
    else:
        raise invalid_param(field, "must be an array or a |-separated string")
    cleaned = (catalog.plain_text(option) for option in raw)
    return tuple(dict.fromkeys(option for option in cleaned if option))


def _named_elements(value: Any, field: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``(element field, element, plain-text name)`` of each object of the array ``value``
    that carries a ``name`` (the others are skipped, as the spec says)."""
    for index, raw in enumerate(require_array(value, field)):
        name_field = f"{field}[{index}]"
        item = require_object(raw, name_field)
        if _present(item, "name"):
            yield name_field, item, catalog.plain_text(_text(item["name"], f"{name_field}.name"))


def clean_attributes(value: Any, field: str) -> list[AttributeInput]:
    found = []
    for name_field, item, name in _named_elements(value, field):
        if not name:
            continue
        check_length(name, f"{name_field}.name", MAX_SHORT_TEXT)
        slug = ""
        if _present(item, "slug"):
            slug = catalog.clean_attribute_slug(_text(item["slug"], f"{name_field}.slug"))
        position = 0
        if _present(item, "position") and item["position"] != "":
            # the absolute value (PHP's absint), which the INTEGER column must hold
            position = abs(int_field(item["position"], f"{name_field}.position", -MAX_INT))
        options = None
        if _present(item, "options"):
            options = _options(item["options"], f"{name_field}.options")
            for option in options:
                check_length(option, f"{name_field}.options", MAX_SHORT_TEXT)
        found.append(
            AttributeInput(
                field=name_field,
                name=name,
                slug=slug,
                position=position,
                visible=truthy(item.get("visible")),
                variation=truthy(item.get("variation")),
                options=options,
            )
        )
    return found


def clean_option_list(value: Any, field: str) -> list[OptionInput]:
    """A variation's ``attributes`` or ``default_attributes``: ``{name, slug, option}``
    elements; those without a ``name`` are skipped."""
    found = []
    for name_field, item, name in _named_elements(value, field):
        slug = _text(item["slug"], f"{name_field}.slug") if _present(item, "slug") else ""
        option = ""
        if _present(item, "option"):
            option = catalog.plain_text(_text(item["option"], f"{name_field}.option"))
        found.append(OptionInput(name=name, slug=slug, option=option))
    return found


def _file_name(url: str) -> str:
    return unquote(urlsplit(url).path).rstrip("/").rpartition("/")[2]


def clean_downloads(value: Any, field: str) -> list[DownloadInput]:
    """``downloads``: ``{id, name, file | url}``; elements without a file are skipped; an empty
    name becomes the file name of the URL."""
    found = []
    for index, raw in enumerate(require_array(value, field)):
        name_field = f"{field}[{index}]"
        item = require_object(raw, name_field)
        source = "file" if _present(item, "file") and item["file"] != "" else "url"
        file = (
            _text(item[source], f"{name_field}.{source}").strip() if _present(item, source) else ""
        )
        if not file:
            continue
        key = ""
        if _present(item, "id") and item["id"] != "":
            key = check_length(
                _text(item["id"], f"{name_field}.id").strip(), f"{name_field}.id", 64
            )
        name = ""
        if _present(item, "name"):
            name = catalog.plain_text(_text(item["name"], f"{name_field}.name"))
        found.append(DownloadInput(key=key, name=name or _file_name(file), file=file))
    return found


def clean_id_list(value: Any, field: str, *, drop_non_positive: bool) -> list[int]:
    """An array of ids (numbers or digit strings), de-duplicated in order."""
    ids = []
    for index, item in enumerate(require_array(value, field)):
        parsed = parse_int(item)
        if parsed is None:
            raise invalid_param(f"{field}[{index}]", "must be an integer id")
        if drop_non_positive and parsed <= 0:
            continue
        if not MIN_INT <= parsed <= MAX_INT:
            raise invalid_param(f"{field}[{index}]", "is not a valid id")
        ids.append(parsed)
    return list(dict.fromkeys(ids))


def clean_dimensions(value: Any, field: str) -> dict[str, Decimal | None]:
    item = require_object(value, field)
    found: dict[str, Decimal | None] = {}
    node = colander.SchemaNode(Decimal_())
    for name in DIMENSIONS:
        if _present(item, name):
            try:
                parsed = node.typ.deserialize(node, item[name])
            except colander.Invalid as exc:
                raise invalid_param(f"{field}.{name}", str(exc.msg)) from None
            found[name] = None if parsed == "" else parsed
    return found


# --- shared by products and variations


def _common(given: dict[str, Any], data: dict[str, Any], field: str) -> dict[str, Any]:
    """The fields products and variations share, normalised."""
    clean: dict[str, Any] = {}
    for name in (*VARIATION_FLAGS, "stock_quantity", "inventory_delta"):
        if name in given:
            clean[name] = given[name]
    if "sku" in given:
        sku = catalog.plain_text(given["sku"])
        clean["sku"] = check_length(sku, f"{field}.sku", MAX_SHORT_TEXT) or None
    if "backorders" in given:
        clean["backorders"] = stock.parse_backorders(given["backorders"])
    for name in ("regular_price", "sale_price", "weight"):
        if name in given:
            clean[name] = None if given[name] == "" else given[name]
    if "sale_price_dates_from" in given:
        clean["sale_from"] = given["sale_price_dates_from"] or None
    if "sale_price_dates_to" in given:
        clean["sale_to"] = given["sale_price_dates_to"] or None
    for name in ("download_limit", "download_expiry"):
        if name in given:
            clean[name] = given[name]
    if _present(data, "dimensions"):
        clean["dimensions"] = clean_dimensions(data["dimensions"], f"{field}.dimensions")
    if "shipping_class" in given:
        clean["shipping_class"] = check_length(
            given["shipping_class"].strip(), f"{field}.shipping_class", MAX_SHORT_TEXT
        )
    if _present(data, "downloads"):
        clean["downloads"] = clean_downloads(data["downloads"], f"{field}.downloads")
    return clean


def _tax_class(value: str, field: str, allow_parent: bool) -> str:
    """``""`` for the standard class, ``parent`` (variations) or the slug of a class."""
    if allow_parent and value.strip().lower() == PARENT_TAX_CLASS:
        return PARENT_TAX_CLASS
    slug = tax_class_slug(value)
    return "" if slug == "standard" else check_length(slug, field, MAX_SHORT_TEXT)


# --- the entry points


def clean_product(data: dict[str, Any], field: str = "product") -> dict[str, Any]:
    """The product write fields present in ``data``, normalised (``type`` is checked by the
    caller first). Keys are the write-field names, except: ``title`` (plain text),
    ``name`` (the slug asked for, ``""`` for none), ``description`` and ``short_description``
    (rendered), ``sale_from``/``sale_to``, ``images`` (:class:`ImagesInput`), ``attributes``,
    ``default_attributes`` (also from ``default_attribute``), ``variations`` (the raw elements,
    see :func:`clean_variation`)."""
    check_storable(data, field)
    given = deserialize(PRODUCT_SCHEMA, data, field)
    clean = _common(given, data, field)
    for name in PRODUCT_FLAGS:
        if name in given:
            clean[name] = given[name]
    if "title" in given:
        clean["title"] = catalog.plain_text(given["title"]) or DEFAULT_TITLE
    if "name" in given:
        clean["name"] = slug_base(given["name"])
    if "status" in given:
        status = given["status"].strip().lower()
        _raise(catalog.check_status(status, f"{field}.status"))
        clean["status"] = status
    for name in ("description", "short_description"):
        if name in given:
            html = bool(given.get(f"enable_html_{name}", False))
            text = given[name]
            clean[name] = catalog.render_description(text, html) if text.strip() else ""
    if "purchase_note" in given:
        clean["purchase_note"] = catalog.render_description(given["purchase_note"], False)
    if "menu_order" in given:
        clean["menu_order"] = given["menu_order"]
    if "catalog_visibility" in given:
        visibility = given["catalog_visibility"].strip().lower()
        _raise(catalog.check_catalog_visibility(visibility))
        clean["catalog_visibility"] = visibility
    if "tax_status" in given:
        tax_status = given["tax_status"].strip().lower()
        _raise(catalog.check_tax_status(tax_status))
        clean["tax_status"] = tax_status or "taxable"
    if "tax_class" in given:
        clean["tax_class"] = _tax_class(given["tax_class"], f"{field}.tax_class", False)
    if "parent_id" in given:
        if given["parent_id"] < 0:
            raise invalid_param(f"{field}.parent_id", "must not be negative")
        clean["parent_id"] = given["parent_id"]
    if "product_url" in given:
        clean["product_url"] = given["product_url"].strip()
    if "button_text" in given:
        clean["button_text"] = catalog.plain_text(given["button_text"])
    if "images" in data and data["images"] is not None:
        clean["images"] = clean_images(data["images"], f"{field}.images")
    if _present(data, "attributes"):
        clean["attributes"] = clean_attributes(data["attributes"], f"{field}.attributes")
    for name in ("upsell_ids", "cross_sell_ids"):
        if _present(data, name):
            clean[name] = clean_id_list(data[name], f"{field}.{name}", drop_non_positive=True)
    for name in ("categories", "tags"):
        if _present(data, name):
            clean[name] = clean_id_list(data[name], f"{field}.{name}", drop_non_positive=False)
    for name in ("default_attributes", "default_attribute"):
        if _present(data, name):
            clean["default_attributes"] = clean_option_list(data[name], f"{field}.{name}")
            break
    if _present(data, "variations"):
        items = require_array(data["variations"], f"{field}.variations")
        for index, item in enumerate(items):
            require_object(item, f"{field}.variations[{index}]")
        clean["variations"] = items
    return clean


def clean_variation(data: dict[str, Any], field: str) -> dict[str, Any]:
    """The variation write fields present in ``data``, normalised: ``id`` (0 when none),
    ``visible`` (None when absent), ``image`` (an :class:`ImageInput`, ``None`` to remove the
    image; absent when not sent or empty), ``attributes`` (:class:`OptionInput` list),
    ``description`` (sanitised HTML) and the fields shared with products."""
    check_storable(data, field)
    given = deserialize(VARIATION_SCHEMA, data, field)
    clean = _common(given, data, field)
    variation_id = 0
    if _present(data, "id") and data["id"] != "":
        variation_id = max(int_field(data["id"], f"{field}.id"), 0)
    clean["id"] = variation_id
    clean["visible"] = None
    if _present(data, "visible"):
        flag = parse_loose_bool(data["visible"])
        if flag is None:
            raise invalid_param(f"{field}.visible", "must be a boolean")
        clean["visible"] = flag
    if "tax_class" in given:
        clean["tax_class"] = _tax_class(given["tax_class"], f"{field}.tax_class", True)
    if "description" in given:
        clean["description"] = catalog.render_description(given["description"], True)
    if _present(data, "image"):
        image = data["image"]
        if not isinstance(image, list):
            clean["image"] = None
        elif image:
            first = image[0]
            clean["image"] = (
                clean_image(first, f"{field}.image[0]", force_featured=True)
                if isinstance(first, dict)
                else None
            )
    if _present(data, "attributes"):
        clean["attributes"] = clean_option_list(data["attributes"], f"{field}.attributes")
    return clean


# --- bulk elements


def bulk_target(element: dict[str, Any]) -> tuple[int, str]:
    """What a ``/products/bulk`` element aims at: ``(id, "")`` for a non-zero ``id`` (which may
    be negative: the record validation refuses it), else ``(0, sku)`` with the element's SKU as
    plain text (``""`` when it has none) — a SKU that names a product or variation not in the
    trash makes the element an edit of it. 400 naming ``product.id`` for an ``id`` that is not an
    integer."""
    raw_id = element.get("id")
    if raw_id is not None and raw_id != "":
        parsed = parse_int(raw_id)
        if parsed is None:
            raise invalid_param("product.id", "must be an integer")
        if parsed:
            return parsed, ""
    value = element.get("sku")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return 0, ""
    return 0, catalog.plain_text(str(value))
