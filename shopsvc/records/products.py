"""The product record: the JSON of a product or variation as every product route returns it.

Used by the read routes (``shopsvc.views.products``), by every write route (which answers with
the record of what it wrote) and by whatever renders a product without a request (the CLI, the
webhook delivery worker): everything comes from a :class:`RecordContext`. Field order and rules:
reference products.md §2 (product, "final"), §2.2 (images), §2.3 (attributes) and §3 (variations,
``parent``, ``grouped_products``), with decisions.md §5 and §7 "Products" where they differ.

The pure rules come from ``shopsvc.domain.pricing`` (prices, ``on_sale``, ``price_html``),
``shopsvc.domain.stock`` (stock flags) and ``shopsvc.domain.catalog`` (``visible``,
``purchaseable``, attribute slugs), the attributes' slugs and options and a variation's values
from ``shopsvc.records.product_attributes``; the data from
``shopsvc.sql.product_data.load_products`` (a fixed number of statements for any number of
products).

A variation takes these from its variable parent when its own value is unset (the final core's
rules): SKU, weight, each dimension, tax class (stored ``"parent"``, a new variation's default),
shipping class, image, purchase note, and stock when the parent manages it; always from the
parent: tax status, catalog visibility, sold individually and cross-sells.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple
from urllib.parse import urlencode

from shopsvc.domain import catalog, pricing, stock
from shopsvc.domain.money import format_decimal
from shopsvc.domain.timestamps import format_timestamp
from shopsvc.errors import ApiError
from shopsvc.records.context import RecordContext
from shopsvc.records.product_attributes import (
    attribute_key,
    product_attributes,
    variation_attribute_values,
)
from shopsvc.settings import Settings
from shopsvc.sql.product_data import ProductAttribute, ProductData, load_products, unlink

OWN_PRICE_TYPES = ("simple", "external", "variation")
PLACEHOLDER_TITLE = "Placeholder"


def not_found(product_id: int) -> ApiError:
    return ApiError(
        "shop_api_no_product_found", f"No product found with the ID equal to {product_id}", 404
    )


# --- rendering context


@dataclass
class _Context:
    """The record context plus what one batch of records computes once and shares: the
    settings and URLs every record reads; each price point and price summary once per
    combination of prices (a page repeats a few); each node's summary, stock and variation
    attributes once (a variation's are read by its parent's record and by its own)."""

    base: RecordContext
    settings: Settings
    now: dt.datetime
    money: pricing.MoneyFormat
    can_edit: bool
    placeholder: str
    #: ``{public_url}/product/``, where every permalink starts.
    product_url: str
    decimals: int
    points: dict[tuple[Any, ...], pricing.PricePoint] = field(default_factory=dict)
    summaries: dict[int, _Summary] = field(default_factory=dict)
    priced: dict[tuple[Any, ...], _Summary] = field(default_factory=dict)
    stocks: dict[int, _Stock] = field(default_factory=dict)
    #: a parent's ``dimensions``, shared by its variations that set none of their own
    dimensions: dict[int, dict[str, str]] = field(default_factory=dict)
    variation_values: dict[int, list[tuple[ProductAttribute, str, str]]] = field(
        default_factory=dict
    )

    @classmethod
    def of(cls, base: RecordContext) -> _Context:
        return cls(
            base=base,
            settings=base.settings,
            now=base.now,
            money=base.money,
            can_edit=base.may("edit_products"),
            placeholder=base.placeholder_url,
            product_url=f"{base.public_url}/product/",
            decimals=base.settings.price_decimals,
        )

    def price(self, value: Decimal | None) -> str:
        """``price``, ``regular_price``: as :func:`~shopsvc.domain.pricing.format_price_string`
        at the store's decimals (the rule written out: it runs for every price of a page)."""
        return "" if value is None else format_decimal(value, self.decimals)

    def optional_price(self, value: Decimal | None) -> str | None:
        """``sale_price``: as :func:`~shopsvc.domain.pricing.format_optional` at the store's
        decimals."""
        return None if value is None else format_decimal(value, self.decimals)


# --- prices


class _Summary(NamedTuple):
    """A product's price as shown: active price, ``on_sale`` and ``price_html``."""

    price: Decimal | None
    on_sale: bool
    html: str
    point: pricing.PricePoint


def _own_point(node: ProductData, ctx: _Context) -> pricing.PricePoint:
    """The :class:`~shopsvc.domain.pricing.PricePoint` of ``node``'s own prices and sale window,
    computed once per combination of them (a page repeats a few; a variation's is read by its
    parent's price and by its record)."""
    row = node.row
    prices = (row["regular_price"], row["sale_price"], row["sale_from"], row["sale_to"])
    found = ctx.points.get(prices)
    if found is None:
        found = ctx.points[prices] = pricing.price_point(*prices, ctx.now)
    return found


def _variation_shown(variation: ProductData, point: pricing.PricePoint, ctx: _Context) -> bool:
    """A variation (its own price ``point``) counted in its parent's price: visible (published
    and priced) and, when the store hides out-of-stock items, in stock."""
    if not catalog.variation_visible(variation.row["status"], point.price):
        return False
    return not (ctx.settings.hide_out_of_stock and not _stock(variation, ctx).in_stock)


def _children_points(node: ProductData, ctx: _Context) -> list[pricing.PricePoint]:
    if node.type == "variable":
        points = []
        for child in node.children:
            if child.type == "variation":
                point = _own_point(child, ctx)
                if _variation_shown(child, point, ctx):
                    points.append(point)
        return points
    return [
        _summary(child, ctx).point
        for child in node.children
        if child.type != "variation" and child.row["status"] == "publish"
    ]


def _summary(node: ProductData, ctx: _Context) -> _Summary:
    found = ctx.summaries.get(node.id)
    if found is None:
        found = ctx.summaries[node.id] = _compute_summary(node, ctx)
    return found


def _compute_summary(node: ProductData, ctx: _Context) -> _Summary:
    """The summary of ``node``'s kind and price points (its own, or its counted children's):
    computed once per combination of them (a page repeats a few)."""
    if node.type in ("variable", "grouped"):
        key: tuple[Any, ...] = (node.type, *_children_points(node, ctx))
    else:
        key = (node.type if node.type in OWN_PRICE_TYPES else "simple", _own_point(node, ctx))
    found = ctx.priced.get(key)
    if found is None:
        found = ctx.priced[key] = _priced(key[0], key[1:], ctx)
    return found


def _priced(kind: str, points: Sequence[pricing.PricePoint], ctx: _Context) -> _Summary:
    if kind in ("variable", "grouped"):
        prices = [p.price for p in points if p.price is not None]
        low = min(prices) if prices else None
        on_sale = any(p.on_sale for p in points if p.price is not None)
        html = pricing.price_html(kind, ctx.money, children=points)
        return _Summary(low, on_sale, html, pricing.PricePoint(low, None, on_sale))
    point = points[0]
    return _Summary(point.price, point.on_sale, pricing.price_html(kind, ctx.money, point), point)


# --- stock


class _Stock(NamedTuple):
    """A product's stock fields as shown."""

    managing: bool
    quantity: int | None
    in_stock: bool
    backorders_allowed: bool
    backordered: bool


def _stock(node: ProductData, ctx: _Context) -> _Stock:
    """The stock fields of ``node``, computed once per node (a variation's may also count in
    its parent's price)."""
    found = ctx.stocks.get(node.id)
    if found is None:
        found = ctx.stocks[node.id] = _compute_stock(node, ctx)
    return found


def _stored_stock(node: ProductData) -> stock.StockState:
    """The stock columns of ``node`` as stored (``manage_stock`` false for a type that never
    manages stock)."""
    row = node.row
    manages = stock.manages_stock(node.type, bool(row["manage_stock"]))
    return _stock_state(manages, row["stock_quantity"], row["backorders"], row["stock_status"])


# A page repeats a few combinations of stock columns: their (immutable) values are shared.


@functools.lru_cache(maxsize=1024)
def _stock_state(
    manage_stock: bool, quantity: int | None, backorders: str, status: str
) -> stock.StockState:
    return stock.StockState(manage_stock, quantity, backorders, status)


@functools.lru_cache(maxsize=1024)
def _stock_fields(managing: bool, quantity: int | None, status: str, backorders: str) -> _Stock:
    return _Stock(
        managing=managing,
        quantity=quantity,
        in_stock=stock.in_stock(status),
        backorders_allowed=stock.backorders_allowed(backorders),
        backordered=stock.backordered(status, managing, backorders, quantity),
    )


def _compute_stock(node: ProductData, ctx: _Context) -> _Stock:
    """The stock fields. Store-wide management off: nothing is managed. A variation follows
    :func:`shopsvc.domain.stock.variation_stock` (its own stock, else its managing parent's);
    its quantity is always an integer (0 when nobody manages it)."""
    row = node.row
    store = ctx.settings.manage_stock
    if node.type == "variation":
        parent = node.parent
        held = stock.variation_stock(
            _stored_stock(node),
            _stored_stock(parent) if parent is not None else None,
            store_manages=store,
            threshold=ctx.settings.out_of_stock_threshold,
        )
        managing = held.manage_stock
        quantity = int(held.quantity or 0) if managing else 0
        backorders = held.backorders
        status = held.status
    else:
        managing = store and stock.manages_stock(node.type, bool(row["manage_stock"]))
        quantity = int(row["stock_quantity"] or 0) if managing else None
        status = row["stock_status"]
        backorders = row["backorders"]
    return _stock_fields(managing, quantity, status, backorders)


# --- the fields a variation inherits


#: The columns whose unset value (``None`` or ``""``) a variation takes from its parent.
INHERITED = ("sku", "weight", "length", "width", "height", "purchase_note")


def _inherited(node: ProductData) -> Mapping[str, Any]:
    """The :data:`INHERITED` values ``node`` shows (read by column): its own, except that a
    variation shows its parent's value of a column it leaves unset."""
    parent = node.parent
    if node.type != "variation" or parent is None:
        return node.row
    found = {}
    for column in INHERITED:
        value = node.row[column]
        # ``not value`` first: comparing a Decimal with "" is slow
        found[column] = parent.row[column] if not value and value in (None, "") else value
    return found


def _from_parent(node: ProductData, column: str) -> Any:
    """A value a variation always takes from its parent."""
    if node.type == "variation" and node.parent is not None:
        return node.parent.row[column]
    return node.row[column]


def _tax_class(node: ProductData) -> str:
    value = node.row["tax_class"] or ""
    if node.type == "variation" and value == "parent" and node.parent is not None:
        return node.parent.row["tax_class"] or ""
    return "" if value == "parent" else value


def _shipping_class(node: ProductData) -> tuple[str, int | None]:
    source = node
    if node.type == "variation" and not node.row["shipping_class_id"] and node.parent:
        source = node.parent
    shipping = source.shipping_class
    if not source.row["shipping_class_id"] or shipping is None:
        return "", None
    return shipping["slug"], int(shipping["id"])


def _dimensions(node: ProductData, values: Mapping[str, Any], ctx: _Context) -> dict[str, str]:
    """``dimensions`` of ``node`` (its :func:`_inherited` ``values``): 2 decimals, ``""`` when
    unset. A product's are built once per batch; a variation that shows its parent's three
    values (it sets none of its own) shows its parent's dict (records never change once
    built)."""
    parent = node.parent
    if node.type == "variation" and parent is not None:
        shown = parent.row
        if (
            values["length"] is shown["length"]
            and values["width"] is shown["width"]
            and values["height"] is shown["height"]
        ):
            return _dimensions(parent, shown, ctx)
    else:
        found = ctx.dimensions.get(node.id)
        if found is not None:
            return found
    length, width, height = values["length"], values["width"], values["height"]
    found = {
        "length": "" if length is None else format_decimal(length, 2),
        "width": "" if width is None else format_decimal(width, 2),
        "height": "" if height is None else format_decimal(height, 2),
        "unit": ctx.settings.dimension_unit,
    }
    if node.type != "variation":
        ctx.dimensions[node.id] = found
    return found


def _weight(values: Mapping[str, Any]) -> str | None:
    """``weight`` of the :func:`_inherited` ``values``: 2 decimals, ``None`` when unset."""
    weight = values["weight"]
    return None if weight is None else format_decimal(weight, 2)


# --- images


def _image(media: dict[str, Any], position: int, ctx: _Context) -> dict[str, Any]:
    return {
        "id": media["id"],
        "created_at": format_timestamp(media["created_at"]),
        "updated_at": format_timestamp(media["updated_at"]),
        "src": ctx.base.media_url(media["file"]),
        "title": media["title"],
        "alt": media["alt"],
        "position": position,
    }


def _placeholder(node: ProductData, ctx: _Context) -> dict[str, Any]:
    return {
        "id": 0,
        "created_at": format_timestamp(node.row["created_at"]),
        "updated_at": format_timestamp(node.row["updated_at"]),
        "src": ctx.placeholder,
        "title": PLACEHOLDER_TITLE,
        "alt": PLACEHOLDER_TITLE,
        "position": 0,
    }


def _images(node: ProductData, ctx: _Context) -> list[dict[str, Any]]:
    """Featured image (position 0) then the gallery; a variation: its image, else its parent's
    featured image; never empty (the placeholder)."""
    if node.type == "variation":
        media = node.featured_image
        if media is None and node.parent is not None:
            media = node.parent.featured_image
        found = [_image(media, 0, ctx)] if media is not None else []
    else:
        found = [_image(image.media, image.position, ctx) for image in node.images]
    return found or [_placeholder(node, ctx)]


# --- attributes

#: Categories and tags sort by name, the same few names on every record of a page.
_name_key = functools.lru_cache(maxsize=4096)(catalog.name_key)


def _variation_attribute_list(
    node: ProductData, ctx: _Context
) -> list[tuple[ProductAttribute, str, str]]:
    """(attribute, stored key, value) of each of the parent's variation attributes."""
    found = ctx.variation_values.get(node.id)
    if found is None:
        found = ctx.variation_values[node.id] = variation_attribute_values(node)
    return found


def _variation_attributes(node: ProductData, ctx: _Context) -> list[dict[str, Any]]:
    return [
        {"name": attribute.name, "slug": attribute_key(attribute), "option": value}
        for attribute, _, value in _variation_attribute_list(node, ctx)
    ]


# --- links


def _permalink(node: ProductData, ctx: _Context) -> str:
    """``{public_url}/product/<slug>/``; a variation: its parent's permalink plus
    ``attribute_pa_<slug>=<term slug>`` (global) or ``attribute_<key>=<value>`` (custom) for each
    attribute with a value."""
    if node.type == "variation" and node.parent is not None:
        link = f"{ctx.product_url}{node.parent.row['slug']}/"
        query = "&".join(
            _query_pair(f"attribute_pa_{key}" if attribute.is_global else f"attribute_{key}", value)
            for attribute, key, value in _variation_attribute_list(node, ctx)
            if value != ""
        )
        return f"{link}?{query}" if query else link
    return f"{ctx.product_url}{node.row['slug']}/"


@functools.lru_cache(maxsize=4096)
def _query_pair(key: str, value: str) -> str:
    """``key=value`` as ``urlencode`` writes it (joined by ``&``: ``urlencode`` of the pairs);
    the same few attribute values recur on every page."""
    return urlencode([(key, value)])


# --- the records


def _downloads(node: ProductData) -> list[dict[str, Any]]:
    if not node.row["downloadable"]:
        return []
    return [dict(item) for item in node.downloads]


def _visible(node: ProductData, ctx: _Context, in_stock: bool) -> bool:
    parent = node.parent
    return catalog.visible(
        _from_parent(node, "catalog_visibility"),
        node.row["status"],
        parent.row["status"] if parent is not None else None,
        ctx.settings.hide_out_of_stock,
        in_stock,
        can_edit=ctx.can_edit,
    )


def _purchaseable(node: ProductData, ctx: _Context, price: Decimal | None) -> bool:
    shown = None
    if node.type == "variation":
        shown = catalog.variation_visible(node.row["status"], price)
    return catalog.purchaseable(node.type, node.row["status"], price, shown, can_edit=ctx.can_edit)


def _tax_and_stock(
    node: ProductData, ctx: _Context, tax_status: str, held: _Stock
) -> dict[str, Any]:
    """The tax and stock fields, which products and variations show alike (in this order)."""
    return {
        "taxable": tax_status == "taxable" and ctx.settings.calc_taxes,
        "tax_status": tax_status,
        "tax_class": _tax_class(node),
        "managing_stock": held.managing,
        "stock_quantity": held.quantity,
        "in_stock": held.in_stock,
        "backorders_allowed": held.backorders_allowed,
        "backordered": held.backordered,
    }


def _variation_record(node: ProductData, ctx: _Context) -> dict[str, Any]:
    """One element of ``variations`` (reference §3, in its order)."""
    row = node.row
    values = _inherited(node)
    point = _own_point(node, ctx)  # a variation's price is its own (see _compute_summary)
    held = _stock(node, ctx)
    shown = catalog.variation_visible(row["status"], point.price)
    tax_status = _from_parent(node, "tax_status")
    shipping_class, shipping_class_id = _shipping_class(node)
    return {
        "id": row["id"],
        "created_at": format_timestamp(row["created_at"]),
        "updated_at": format_timestamp(row["updated_at"]),
        "downloadable": bool(row["downloadable"]),
        "virtual": bool(row["virtual"]),
        "permalink": _permalink(node, ctx),
        "sku": values["sku"] or "",
        "price": ctx.price(point.price),
        "regular_price": ctx.price(row["regular_price"]),
        "sale_price": ctx.optional_price(row["sale_price"]),
        **_tax_and_stock(node, ctx, tax_status, held),
        "purchaseable": catalog.purchaseable(
            "variation", row["status"], point.price, shown, can_edit=ctx.can_edit
        ),
        "visible": shown,
        "on_sale": point.on_sale,
        "weight": _weight(values),
        "dimensions": _dimensions(node, values, ctx),
        "shipping_class": shipping_class,
        "shipping_class_id": shipping_class_id,
        "image": _images(node, ctx),
        "attributes": _variation_attributes(node, ctx),
        "downloads": _downloads(node),
        "download_limit": int(row["download_limit"]),
        "download_expiry": int(row["download_expiry"]),
    }


def _record(node: ProductData, ctx: _Context, nested: bool = False) -> dict[str, Any]:
    """The product record (reference §2, in its order). ``nested`` (the ``parent`` and
    ``grouped_products`` entries): ``variations`` and ``grouped_products`` are ``[]`` and
    ``parent`` is ``{}``."""
    row = node.row
    kind = node.type
    is_variation = kind == "variation"
    values = _inherited(node)
    # the values a variation always takes from its parent (see _from_parent)
    source = node.parent if is_variation and node.parent is not None else node
    summary = _summary(node, ctx)
    held = _stock(node, ctx)
    tax_status = source.row["tax_status"]
    virtual = bool(row["virtual"]) and kind != "variable"
    shipping_required = not virtual
    shipping_class, shipping_class_id = _shipping_class(node)
    images = _images(node, ctx)
    external = kind == "external"
    variations: list[dict[str, Any]] = []
    grouped: list[dict[str, Any]] = []
    parent: dict[str, Any] = {}
    if not nested:
        if kind == "variable":
            variations = [
                _variation_record(child, ctx)
                for child in node.children
                if child.type == "variation" and child.row["status"] in ("publish", "private")
            ]
        if kind == "grouped":
            grouped = [
                _record(child, ctx, nested=True)
                for child in node.children
                if child.type != "variation" and child.row["status"] == "publish"
            ]
        if node.parent is not None and kind in ("variation", "simple"):
            parent = _record(node.parent, ctx, nested=True)
    return {
        "title": row["title"],
        "id": row["id"],
        "created_at": format_timestamp(row["created_at"]),
        "updated_at": format_timestamp(row["updated_at"]),
        "type": kind,
        "status": row["status"],
        "downloadable": bool(row["downloadable"]) and kind != "variable",
        "virtual": virtual,
        "permalink": _permalink(node, ctx),
        "sku": values["sku"] or "",
        "price": ctx.price(summary.price),
        "regular_price": "" if kind in ("variable", "grouped") else ctx.price(row["regular_price"]),
        "sale_price": ctx.optional_price(row["sale_price"]),
        "price_html": summary.html,
        **_tax_and_stock(node, ctx, tax_status, held),
        "sold_individually": bool(source.row["sold_individually"]),
        "purchaseable": _purchaseable(node, ctx, summary.price),
        "featured": bool(row["featured"]),
        "visible": _visible(node, ctx, held.in_stock),
        "catalog_visibility": source.row["catalog_visibility"],
        "on_sale": summary.on_sale,
        "product_url": row["product_url"] if external else "",
        "button_text": row["button_text"] if external else "",
        "weight": _weight(values),
        "dimensions": _dimensions(node, values, ctx),
        "shipping_required": shipping_required,
        "shipping_taxable": shipping_required and tax_status in ("taxable", "shipping"),
        "shipping_class": shipping_class,
        "shipping_class_id": shipping_class_id,
        "description": row["description"],
        "short_description": row["short_description"],
        "reviews_allowed": bool(row["reviews_allowed"]),
        "average_rating": format_decimal(node.average_rating, 2),
        "rating_count": node.rating_count,
        "related_ids": list(node.related_ids),
        "upsell_ids": node.upsell_ids,
        "cross_sell_ids": source.cross_sell_ids,
        "parent_id": row["parent_id"] or 0,
        "categories": sorted(node.categories, key=_name_key),
        "tags": sorted(node.tags, key=_name_key),
        "images": images,
        # the featured image, when there is one, is the first of the images
        "featured_src": images[0]["src"] if node.featured_image is not None else "",
        "attributes": _variation_attributes(node, ctx)
        if is_variation
        else product_attributes(node),
        "downloads": _downloads(node),
        "download_limit": int(row["download_limit"]),
        "download_expiry": int(row["download_expiry"]),
        "download_type": "standard",
        "purchase_note": values["purchase_note"] or "",
        "total_sales": int(row["total_sales"] or 0),
        "variations": variations,
        "parent": parent,
        "grouped_products": grouped,
        "menu_order": int(row["menu_order"]),
    }


# --- the interface


def product_records(
    context: RecordContext,
    ids: Sequence[int],
    rows: Sequence[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The full records of the products and variations ``ids``, in that order (ids that do not
    exist are left out). A fixed number of statements, whatever the number of ids; one fewer
    when ``rows`` (``sql.product_data.load_product_rows`` of ``ids``) are given."""
    shop = context.settings
    nodes = load_products(
        context.conn, list(ids), hide_out_of_stock=shop.hide_out_of_stock, rows=rows
    )
    ctx = _Context.of(context)
    try:
        return [_record(nodes[i], ctx) for i in ids if i in nodes]
    finally:
        unlink(nodes)


def product_record(
    context: RecordContext, product_id: int, rows: Sequence[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The full record of one product or variation; 404 ``shop_api_no_product_found`` when it
    does not exist. ``rows``: its family's rows, when the caller read them already."""
    records = product_records(context, [product_id], rows)
    if not records:
        raise not_found(product_id)
    return records[0]
