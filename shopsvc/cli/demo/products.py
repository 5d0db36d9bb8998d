"""The products phase: published simple and variable products (2-3 variations of global or
custom attributes) with prices and sales, stock, weights and sizes, categories, tags, shipping
classes, a featured image and a gallery; and ``Sellable``, what an order line sells (of this
run's products, or of the products already there for an orders-only run)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import Engine, Table

from shopsvc.cli.demo.batches import Batch, Row, batch_rng
from shopsvc.cli.demo.catalogue import AttributeInfo, Catalogue, SectionInfo
from shopsvc.cli.demo.money import CENT, money_text, to_micro
from shopsvc.cli.demo.vocabulary import (
    ADJECTIVES,
    BACKORDERS,
    BENEFITS,
    BOOK_WORDS,
    CARE,
    CATALOGUE_SPAN,
    SPAN,
    STOCK_STATUSES,
    make_slug,
    pick,
)
from shopsvc.domain import stock
from shopsvc.sql import demo as sql
from shopsvc.sql.tables import (
    media,
    product_attribute_terms,
    product_attributes,
    product_gallery,
    product_terms,
    products,
    variation_attributes,
)


@dataclass(frozen=True)
class Sellable:
    """What a line item copies of the product or variation it sells."""

    product_id: int
    variation_id: int | None
    name: str
    price: int  # micro: the sale price when on sale, else the regular one
    tax_class: str
    taxable: bool
    meta: tuple[tuple[str, str], ...] = ()


PRODUCT_COLUMNS = (
    *("id", "parent_id", "type", "status", "title", "slug", "description", "short_description"),
    *("menu_order", "catalog_visibility", "sku", "regular_price", "sale_price", "tax_status"),
    *("tax_class", "featured", "manage_stock", "stock_quantity", "stock_status", "backorders"),
    *("weight", "length", "width", "height", "shipping_class_id", "image_id"),
    *("created_at", "updated_at"),
)
MEDIA_COLUMNS = ("id", "file", "mime_type", "title", "alt", "created_at", "updated_at")
GALLERY_COLUMNS = ("product_id", "position", "media_id")
TERM_LINK_COLUMNS = ("product_id", "term_id")
ATTRIBUTE_COLUMNS = ("product_id", "attribute_id", "name", "position", "visible")
ATTRIBUTE_COLUMNS += ("is_variation", "options")
ATTRIBUTE_TERM_COLUMNS = ("product_id", "attribute_term_id")
VARIATION_VALUE_COLUMNS = ("variation_id", "attribute_key", "value")


#: A variation's title names its values when it has at most this many (writers.attribute_options).
TITLE_ATTRIBUTES = 2
Option = tuple[str, str, int | None]


@dataclass
class _Product:
    """One planned product: its section, title, and its variations' attribute options."""

    info: SectionInfo
    category_id: int
    title: str
    quality: str
    variations: list[list[tuple[AttributeInfo, Option]]]
    images: int
    variation_images: list[bool]


def _price(rnd: Any, low: int, high: int) -> int:
    """A shop-like price in micro: log-uniform between ``low`` and ``high`` whole units,
    ending .99, .95, .50 or .00."""
    units = max(1, int(math.exp(math.log(low) + rnd() * (math.log(high) - math.log(low)))))
    cents = pick(rnd, (99, 99, 99, 95, 50, 0))
    return (units * 100 + cents) * CENT


def _sale(rnd: Any, regular: int) -> int | None:
    """A sale price for some products: 10-40 % off, ending .99."""
    if rnd() >= 0.15:
        return None
    sale = regular * (100 - pick(rnd, (10, 15, 20, 25, 30, 40))) // 100
    sale = max(sale - sale % (100 * CENT) - CENT, CENT)
    return sale if sale < regular else None


def _size_text(value: float) -> str:
    """A weight or size as stored: 2 decimals at most, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass
class ProductPhase:
    """Published products with their variations, images, terms and attributes; a batch's result
    is ``(sellables, variations, media rows)``."""

    key: str
    tag: str
    now: dt.datetime
    total: int
    catalogue: Catalogue
    files: list[str]
    threshold: int  # shopsvc.out_of_stock_threshold
    store_manages_stock: bool
    size: int
    leading: Table = media  # every product has a featured image: not a useful order to keep

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch:
        rnd = batch_rng(self.key, index).random
        first = index * self.size
        count = len(ids)
        plans = [self._plan(rnd) for _ in range(count)]
        product_ids = iter(reserver.reserve(products, sum(1 + len(p.variations) for p in plans)))
        media_extra = sum(p.images - 1 + sum(p.variation_images) for p in plans)
        media_ids = itertools.chain(ids, reserver.reserve(media, media_extra))
        out = _ProductRows()
        start = self.now - SPAN - CATALOGUE_SPAN
        for offset, plan in enumerate(plans):
            number = first + offset
            created = start + CATALOGUE_SPAN * ((number + rnd()) / self.total)
            created = created.replace(microsecond=0)
            age = (self.now - created).total_seconds()
            updated = created + dt.timedelta(seconds=int(age * rnd() ** 3))
            self._product(rnd, plan, number + 1, created, updated, product_ids, media_ids, out)
        tables = [
            (media, MEDIA_COLUMNS, out.media),
            (products, PRODUCT_COLUMNS, out.products),
            (product_gallery, GALLERY_COLUMNS, out.gallery),
            (product_terms, TERM_LINK_COLUMNS, out.links),
            (product_attributes, ATTRIBUTE_COLUMNS, out.attributes),
            (product_attribute_terms, ATTRIBUTE_TERM_COLUMNS, out.attribute_terms),
            (variation_attributes, VARIATION_VALUE_COLUMNS, out.values),
        ]
        variations = len(out.products) - count
        return Batch(tables, count, (out.sellables, variations, len(out.media)))

    def _plan(self, rnd: Any) -> _Product:
        info = pick(rnd, self.catalogue.sections)
        section = info.section
        category_id, nouns = pick(rnd, info.children)
        noun = pick(rnd, nouns)
        quality = pick(rnd, section.qualities) if section.qualities else ""
        if section.code == "BOO":
            title = f"The {pick(rnd, BOOK_WORDS[0])} {pick(rnd, BOOK_WORDS[1])}"
            title += "" if noun == "Novel" else f": A {noun}"
        elif section.code == "ELE":
            title = f"{pick(rnd, ADJECTIVES)} {noun} {quality}"
        elif section.code == "FOO":
            title = f"{quality} {noun}"
        elif rnd() < 0.7:
            title = f"{pick(rnd, ADJECTIVES)} {quality} {noun}"
        else:
            title = f"{pick(rnd, ADJECTIVES)} {noun}"
        variations: list[list[tuple[AttributeInfo, Option]]] = []
        if rnd() < section.variable_share:
            wanted = pick(rnd, (2, 2, 3))
            attrs = info.attributes
            picker = random.Random(rnd())
            if len(attrs) == 2:
                colors = picker.sample(attrs[0].options, 2 if wanted == 2 else pick(rnd, (1, 3)))
                sizes = picker.sample(attrs[1].options[1:5], 2)
                combos = [(color, size) for color in colors for size in sizes]
                for color, size in picker.sample(combos, min(wanted, len(combos))):
                    variations.append([(attrs[0], color), (attrs[1], size)])
            else:
                options = attrs[0].options
                for option in picker.sample(options, min(wanted, len(options))):
                    variations.append([(attrs[0], option)])
        images = pick(rnd, (1, 1, 2, 2, 3, 4))
        variation_images = [rnd() < 0.4 for _ in variations]
        return _Product(info, category_id, title, quality, variations, images, variation_images)

    def _stock(self, rnd: Any, managed_share: float) -> stock.StockState:
        """The stock columns of a simple product or a variation, as the stock rules store
        them."""
        backorders = pick(rnd, BACKORDERS)
        if rnd() < managed_share:
            roll = rnd()
            if roll < 0.06:
                quantity = 0
            else:
                quantity = 1 + int(rnd() * 9) if roll < 0.2 else 10 + int(rnd() * 490)
            status = stock.stock_status(True, quantity, backorders, self.threshold, None)
            return stock.StockState(True, quantity, backorders, status)
        return stock.StockState(False, None, backorders, pick(rnd, STOCK_STATUSES))

    def _media(
        self,
        rnd: Any,
        media_ids: Iterator[int],
        title: str,
        created: dt.datetime,
        out: _ProductRows,
    ) -> int:
        media_id = next(media_ids)
        out.media.append(
            (media_id, pick(rnd, self.files), "image/png", title, title, created, created)
        )
        return media_id

    def _product(
        self,
        rnd: Any,
        plan: _Product,
        number: int,
        created: dt.datetime,
        updated: dt.datetime,
        product_ids: Iterator[int],
        media_ids: Iterator[int],
        out: _ProductRows,
    ) -> None:
        info = plan.info
        section = info.section
        product_id = next(product_ids)
        title = plan.title
        slug = f"{make_slug(title)}-{self.tag}-{number}"[:200]
        sku = f"{section.code}-{self.tag.upper()}-{number:06d}"
        noun = title.rsplit(" ", 1)[-1].lower()
        short = f"<p>{pick(rnd, ADJECTIVES)} {noun}, {pick(rnd, BENEFITS)}.</p>"
        made_of = (
            f" made from {plan.quality.lower()}" if section.code in ("CLO", "ACC", "HOM") else ""
        )
        description = (
            f"<p>Our {title.lower()}{made_of} is {pick(rnd, BENEFITS)} and "
            f"{pick(rnd, BENEFITS)}.</p>\n<p>{pick(rnd, CARE)} {pick(rnd, CARE)}</p>"
        )
        tax_class = self.catalogue.reduced_class if section.reduced else ""
        low, high = section.weight
        weight = _size_text(low + rnd() * (high - low))
        length, width, height = (_size_text(2 + rnd() * 58) for _ in range(3))
        shipping_id = None
        if info.shipping_ids and rnd() < 0.6:
            shipping_id = pick(rnd, info.shipping_ids)
        image_id = self._media(rnd, media_ids, title, created, out)
        for position in range(1, plan.images):
            media_id = self._media(rnd, media_ids, f"{title} ({position + 1})", created, out)
            out.gallery.append((product_id, position - 1, media_id))
        out.links.append((product_id, plan.category_id))
        if rnd() < 0.3:
            out.links.append((product_id, info.top_id))
        tags = random.Random(rnd()).sample(self.catalogue.tag_ids, pick(rnd, (0, 0, 1, 1, 2, 3)))
        out.links.extend((product_id, tag_id) for tag_id in tags)
        featured = rnd() < 0.04
        low_price, high_price = section.prices
        # columns from "tax_status" to "height" but the stock ones, then the timestamps
        taxes = ("taxable", tax_class, featured)
        sizes = (weight, length, width, height, shipping_id, image_id, created, updated)
        head = (product_id, None)
        texts = (title, slug, description, short, 0, "visible", sku)
        if not plan.variations:
            regular = _price(rnd, low_price, high_price)
            sale = _sale(rnd, regular)
            held = self._stock(rnd, 0.7)
            stock_columns = (held.manage_stock, held.quantity, held.status, held.backorders)
            prices = (money_text(regular), money_text(sale) if sale else None)
            out.products.append(
                (*head, "simple", "publish", *texts, *prices, *taxes, *stock_columns, *sizes)
            )
            if plan.quality and section.code in ("CLO", "ACC", "HOM", "SPO"):
                options = json.dumps([plan.quality])
                out.attributes.append((product_id, None, "Material", 0, True, False, options))
            out.sellables.append(
                Sellable(product_id, None, title, sale or regular, tax_class, True)
            )
            return
        # a variable product: its attributes, the parent row (its stock status follows its
        # variations'), then the variations
        used: dict[str, list[Option]] = {}
        attributes: dict[str, AttributeInfo] = {}
        for combo in plan.variations:
            for attribute, option in combo:
                attributes.setdefault(attribute.key, attribute)
                chosen = used.setdefault(attribute.key, [])
                if option not in chosen:
                    chosen.append(option)
        for position, (key, attribute) in enumerate(attributes.items()):
            chosen = used[key]
            # visible, used for variations; a global attribute's options are its terms
            if attribute.attribute_id is not None:
                own = (attribute.attribute_id, attribute.name, position, True, True, "[]")
                out.attribute_terms.extend((product_id, term_id) for _, _, term_id in chosen)
            else:
                options = json.dumps([name for name, _, _ in chosen])
                own = (None, attribute.name, position, True, True, options)
            out.attributes.append((product_id, *own))
        base = _price(rnd, low_price, high_price)
        parent_at = len(out.products)
        out.products.append(())
        states = []
        for index, combo in enumerate(plan.variations):
            variation_id = next(product_ids)
            names = ", ".join(option[0] for _, option in combo)
            name = f"{title} - {names}" if len(combo) <= TITLE_ATTRIBUTES else title
            regular = base + pick(rnd, (0, 0, 1, 2, 5)) * index * 100 * CENT
            sale = _sale(rnd, regular)
            held = self._stock(rnd, 0.6)
            states.append(held)
            stock_columns = (held.manage_stock, held.quantity, held.status, held.backorders)
            own_image = None
            if plan.variation_images[index]:
                own_image = self._media(rnd, media_ids, name, created, out)
            own = (name, f"{slug}-variation"[:200], "", "", index, "visible", f"{sku}-{index + 1}")
            prices = (money_text(regular), money_text(sale) if sale else None)
            # a variation's own tax class is "parent"; sizes and shipping class: its parent's
            inherited = ("taxable", "parent", False, *stock_columns, None, None, None, None, None)
            times = (own_image, created, updated)
            kind = (variation_id, product_id, "variation", "publish")
            out.products.append((*kind, *own, *prices, *inherited, *times))
            meta = []
            for attribute, (_, value, _) in combo:
                out.values.append((variation_id, attribute.key, value))
                meta.append((attribute.meta_key, value))
            sellable = Sellable(
                product_id, variation_id, name, sale or regular, tax_class, True, tuple(meta)
            )
            out.sellables.append(sellable)
        status = stock.variable_parent_status(
            states,
            stock.StockState(False, None, "no", "instock"),
            store_manages=self.store_manages_stock,
            threshold=self.threshold,
        )
        parent_stock = (False, None, status, "no")  # not managed, no quantity
        out.products[parent_at] = (
            *head,
            "variable",
            "publish",
            *texts,
            None,
            None,
            *taxes,
            *parent_stock,
            *sizes,
        )


@dataclass
class _ProductRows:
    """The rows of one batch of products, table by table, and what its orders may sell."""

    products: list[Row] = field(default_factory=list)
    media: list[Row] = field(default_factory=list)
    gallery: list[Row] = field(default_factory=list)
    links: list[Row] = field(default_factory=list)
    attributes: list[Row] = field(default_factory=list)
    attribute_terms: list[Row] = field(default_factory=list)
    values: list[Row] = field(default_factory=list)
    sellables: list[Sellable] = field(default_factory=list)


def existing_sellables(engine: Engine, limit: int) -> list[Sellable]:
    """Up to ``limit`` products and variations already published with a price (for a run that
    adds no product)."""
    with engine.connect() as conn:
        rows = sql.existing_sellables(conn, limit)
    return [
        Sellable(
            row["product_id"],
            row["variation_id"],
            row["title"],
            to_micro(row["price"]),
            row["tax_class"],
            row["taxable"],
            tuple(row["meta"]),
        )
        for row in rows
        if Decimal(row["price"]) > 0
    ]
