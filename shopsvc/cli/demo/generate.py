"""``shopsvc CONFIG seed``: realistic demo data, from a small demo store to a million orders.

What a run writes (each batch in one transaction, so an interrupted run leaves whole records):

* the shared catalogue, found by name or slug and created when missing: categories (a tree),
  tags, shipping classes, global attributes (Color, Size) and their terms; when the store has no
  tax rate at all, a ``Reduced rate`` class and standard and reduced rates (four US states, GB,
  FR, DE). A store with rates keeps them, and the new orders are taxed with them;
* customers: users of role ``customer`` with a profile (billing and shipping address);
* published products: simple ones and variable ones with 2-3 variations (global or custom
  attributes), prices and sales, stock, weights and sizes, categories, tags, shipping classes,
  a featured image and a gallery (``media`` rows: tiny generated PNGs below ``media_dir`` for a
  demo-sized run, else the packaged placeholder);
* orders of 1-5 line items (products and variations, with their variation meta), a shipping
  line, sometimes a gift-wrapping fee and a coupon, taxes and one tax item per rate, totals as a
  recalculation stores them, status-change notes (and some customer and private notes), refunds
  and their items; every status, ``created_at`` over the last two years (more lately); the
  products' ``total_sales`` follow the orders that record sales.

Everything is pseudo-random from ``seed_value``, the run's tag and the batch number: a run makes
the same records however many processes write it (dates are relative to now; with several
processes, products and order items may get their ids in another order; orders and customers get
theirs in batch order, so order ids grow with ``created_at``). Names that must be unique (SKUs,
slugs, logins, emails) carry the run's tag ``s<N>`` -- the first N that no SKU, slug or login
carries yet -- so seeding an existing database appends without collisions. No webhook event is
queued.

Totals: orders are taxed as ``shopsvc.domain.totals.calculate_totals`` taxes them (the rates
matched by ``shopsvc.domain.tax``). In the common case (2 decimals, prices without tax, no
round-at-subtotal, no compound rate) the same arithmetic runs here on integers, which is what
lets a million orders take minutes; any other order goes through ``calculate_totals`` itself.
``tests/test_seed.py`` checks that the stored totals are what a recalculation
(``writers.order_totals.recalculate``) stores, with both paths.

Speed: ids are reserved before the rows that use them are made (``shopsvc.sql.seed``), so a
batch is a pure function of its number and the batches of a phase are independent. On
PostgreSQL a large phase runs in ``jobs`` processes, each generating batches and loading them
with ``COPY``; otherwise one thread generates the next batch while the current one is written.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import functools
import itertools
import json
import math
import multiprocessing
import os
import queue
import random
import struct
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from multiprocessing.util import Finalize
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import Engine, Table
from tqdm import tqdm

from shopsvc.db.engine import make_engine, write_transaction
from shopsvc.domain import catalog, stock
from shopsvc.domain import orders as order_rules
from shopsvc.domain import tax as tax_rules
from shopsvc.domain.tax import Address, TaxRate
from shopsvc.domain.totals import (
    FeeLine,
    LineItem,
    ShippingLine,
    TotalsSettings,
    calculate_totals,
    rate_code,
    tax_address,
)
from shopsvc.settings import Settings
from shopsvc.sql import demo as sql
from shopsvc.sql.tables import (
    BILLING_FIELDS,
    SHIPPING_FIELDS,
    customer_profiles,
    media,
    metadata,
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    product_attribute_terms,
    product_attributes,
    product_gallery,
    product_terms,
    products,
    refund_items,
    users,
    utc_now,
    variation_attributes,
)

T = TypeVar("T")
Row = tuple[Any, ...]
Taxed = tuple[tuple[int, int], ...]  # (rate id, tax in micro) of one item

#: The demo store ``seed`` makes with no options.
DEMO_PRODUCTS = 20
DEMO_CUSTOMERS = 5
DEMO_ORDERS = 30
#: A run of at most this many products has image files of its own below ``media_dir``; of
#: at most this many orders, its newest orders show every status.
SMALL_RUN = 1000
#: What an appending run without new products (customers) sells from (to), at most.
EXISTING_LIMIT = 20_000
#: Rows of one transaction: customers, products and orders per batch.
CUSTOMER_BATCH = 2000
PRODUCT_BATCH = 500
ORDER_BATCH = 5000
SQLITE_ORDER_BATCH = 2000
MICRO = 1_000_000  # money is handled as integer millionths (the money columns' scale)
CENT = 10_000
SPAN = dt.timedelta(days=730)
CATALOGUE_SPAN = dt.timedelta(days=180)

# The catalogue's own slug rule for the terms a run creates.
_find_or_create_term = functools.partial(sql.find_or_create_term, unique_slug=catalog.unique_slug)
_find_or_create_attribute_terms = functools.partial(
    sql.find_or_create_attribute_terms, unique_slug=catalog.unique_slug
)


# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """A top-level category and what its products look like. ``variations``: ``color-size``,
    ``color``, or a custom attribute ``Name:Option|Option|Option``."""

    name: str
    code: str
    children: tuple[tuple[str, tuple[str, ...]], ...]  # (subcategory, nouns)
    qualities: tuple[str, ...]  # materials, origins, series…
    prices: tuple[int, int]  # whole units, low and high
    weight: tuple[float, float]  # kg
    variations: str
    variable_share: float
    reduced: bool = False
    shipping: tuple[str, ...] = ()


def _words(text: str) -> tuple[str, ...]:
    return tuple(word.strip() for word in text.split(",") if word.strip())


SECTIONS: tuple[Section, ...] = (
    Section(
        "Clothing",
        "CLO",
        (
            ("T-shirts", _words("T-Shirt, Tee, Henley, Polo Shirt, Tank Top")),
            ("Hoodies & Sweatshirts", _words("Hoodie, Sweatshirt, Zip Hoodie, Crewneck")),
            ("Jackets", _words("Jacket, Parka, Windbreaker, Rain Jacket, Bomber Jacket")),
            ("Socks", _words("Socks, Ankle Socks, Hiking Socks")),
        ),
        _words("Cotton, Organic Cotton, Merino, Linen, Fleece, Recycled, Hemp"),
        (9, 180),
        (0.1, 1.4),
        "color-size",
        0.7,
        shipping=("small-parcel",),
    ),
    Section(
        "Accessories",
        "ACC",
        (
            ("Bags", _words("Backpack, Tote Bag, Messenger Bag, Weekender Bag, Belt Bag")),
            ("Hats", _words("Beanie, Baseball Cap, Bucket Hat, Sun Hat")),
            ("Wallets & Belts", _words("Wallet, Card Holder, Leather Belt")),
        ),
        _words("Canvas, Leather, Nylon, Waxed Cotton, Vegan Leather, Wool"),
        (12, 160),
        (0.1, 1.2),
        "color",
        0.5,
        shipping=("small-parcel",),
    ),
    Section(
        "Home & Kitchen",
        "HOM",
        (
            ("Kitchen", _words("Mug, Chef's Knife, Cutting Board, Teapot, Saucepan, Bowl")),
            ("Decor", _words("Vase, Scented Candle, Picture Frame, Cushion Cover, Wall Clock")),
            ("Bedding", _words("Duvet Cover, Pillowcase Set, Throw Blanket, Fitted Sheet")),
        ),
        _words("Ceramic, Oak, Stoneware, Bamboo, Glass, Cast Iron, Linen, Walnut"),
        (6, 220),
        (0.2, 4.0),
        "Finish:Matte|Glossy|Natural",
        0.35,
        shipping=("fragile", "bulky"),
    ),
    Section(
        "Electronics",
        "ELE",
        (
            ("Audio", _words("Headphones, Bluetooth Speaker, Earbuds, Soundbar")),
            ("Chargers & Cables", _words("USB-C Cable, Wall Charger, Power Bank, Charging Pad")),
            ("Smart Home", _words("Smart Plug, LED Bulb, Security Camera, Thermostat")),
        ),
        _words("Pro, Mini, Max, Air, Lite, Plus, Go"),
        (9, 399),
        (0.05, 2.5),
        "color",
        0.3,
        shipping=("small-parcel", "fragile"),
    ),
    Section(
        "Books",
        "BOO",
        (("Fiction", ("Novel",)), ("Cookbooks", ("Cookbook",)), ("Travel Guides", ("Guide",))),
        (),
        (7, 45),
        (0.2, 1.2),
        "Format:Paperback|Hardcover|Large Print",
        0.4,
        reduced=True,
        shipping=("letter",),
    ),
    Section(
        "Sports & Outdoors",
        "SPO",
        (
            ("Yoga", _words("Yoga Mat, Yoga Block, Yoga Strap")),
            ("Cycling", _words("Bike Light Set, Water Bottle, Cycling Gloves, Saddle Bag")),
            ("Camping", _words("Tent, Sleeping Bag, Camping Stove, Headlamp")),
        ),
        _words("Cork, Recycled, Ultralight, Trail, Alpine, Waterproof"),
        (8, 350),
        (0.1, 3.5),
        "color",
        0.35,
        shipping=("bulky",),
    ),
    Section(
        "Food & Drink",
        "FOO",
        (
            ("Coffee", _words("Coffee Beans, Espresso Blend, Ground Coffee")),
            ("Tea", _words("Green Tea, Earl Grey, Chai, Herbal Infusion")),
            ("Snacks", _words("Dark Chocolate, Granola, Trail Mix, Almond Butter")),
        ),
        _words("Colombian, Ethiopian, Organic, Single-Origin, Fairtrade, Sicilian"),
        (4, 35),
        (0.1, 1.0),
        "Weight:250 g|500 g|1 kg",
        0.5,
        reduced=True,
        shipping=("small-parcel",),
    ),
)
ADJECTIVES = _words(
    "Classic, Essential, Everyday, Premium, Vintage, Urban, Heritage, Nordic, Coastal, Alpine, "
    "Studio, Signature, Modern, Rustic, Minimal, Weekend, Travel, Original"
)
BOOK_WORDS = (
    _words("Silent, Hidden, Last, Golden, Northern, Little, Wild, Lost, Quiet"),
    _words("River, Garden, Lighthouse, Winter, Kitchen, Road, Island, Orchard, Sea"),
)
BENEFITS = _words(
    "built to last, made for everyday use, designed in our studio, easy to care for, "
    "a customer favourite, responsibly sourced, perfect as a gift"
)
CARE = (
    "Machine washable at 30 °C.",
    "Wipe clean with a damp cloth.",
    "Ships in recycled packaging.",
    "Backed by our two-year guarantee.",
    "Free returns within 30 days.",
)
TAGS = _words(
    "Bestseller, New arrival, Eco-friendly, Gift idea, Limited edition, Handmade, Vegan, "
    "Made in Europe, Staff pick, Back in stock"
)
SHIPPING_CLASSES = {
    "small-parcel": "Small parcel",
    "bulky": "Bulky",
    "fragile": "Fragile",
    "letter": "Letter",
}
COLORS = _words("Black, White, Navy, Red, Forest Green, Grey, Beige, Sky Blue, Mustard, Pink")
SIZES = _words("XS, S, M, L, XL, XXL")
BACKORDERS = ("no",) * 90 + ("notify",) * 7 + ("yes",) * 3
STOCK_STATUSES = ("instock",) * 95 + ("outofstock",) * 4 + ("onbackorder",)
IMAGE_COLORS = ("2E4A62", "C0392B", "27AE60", "F39C12", "8E44AD", "16A085", "7F8C8D", "D35400")

FIRST_NAMES = _words(
    "Emma, Liam, Olivia, Noah, Ava, Lucas, Mia, Léa, Hugo, Chloé, Jonas, Sofia, Mateo, Amélie, "
    "Ben, Fatima, Yuki, Aisha, Oscar, Ingrid, Marco, Priya, Tom, Zoe"
)
LAST_NAMES = _words(
    "Smith, Martin, Müller, Dubois, Johnson, Garcia, Rossi, Schmidt, Brown, Bernard, Wilson, "
    "Khan, Nguyen, Taylor, Lefèvre, Fischer, Moreau, Walker, Kowalski, Jensen"
)
STREETS = _words(
    "Main Street, Oak Avenue, Rue de la Paix, Hauptstraße, High Street, Market Square, "
    "Station Road, Park Lane, Rue Victor Hugo, Lindenweg"
)
COMPANIES = _words("Acme Ltd, Globex, Initech, Umbrella Studio, Northwind, Blue Harbor")


@dataclass(frozen=True)
class Place:
    country: str
    state: str
    city: str
    postcode: str
    phone: str


PLACES = (
    Place("US", "CA", "San Francisco", "94103", "+1 415 555 "),
    Place("US", "CA", "Los Angeles", "90012", "+1 213 555 "),
    Place("US", "NY", "New York", "10001", "+1 212 555 "),
    Place("US", "TX", "Austin", "78701", "+1 512 555 "),
    Place("US", "WA", "Seattle", "98101", "+1 206 555 "),
    Place("GB", "", "London", "SW1A 1AA", "+44 20 7946 "),
    Place("GB", "", "Manchester", "M1 1AE", "+44 161 496 "),
    Place("FR", "", "Paris", "75001", "+33 1 40 00 "),
    Place("FR", "", "Lyon", "69002", "+33 4 72 00 "),
    Place("DE", "", "Berlin", "10115", "+49 30 1234 "),
    Place("DE", "", "München", "80331", "+49 89 1234 "),
    Place("CA", "ON", "Toronto", "M5H 2N2", "+1 416 555 "),
    Place("AU", "NSW", "Sydney", "2000", "+61 2 5550 "),
)
REDUCED_CLASS = ("Reduced rate", "reduced-rate")
#: (country, state, rate, name, taxes shipping, in the reduced class) of a store without rates.
TAX_RATES = (
    ("US", "CA", "7.25", "CA Tax", False, False),
    ("US", "NY", "8.875", "NY Tax", True, False),
    ("US", "TX", "6.25", "TX Tax", True, False),
    ("US", "WA", "6.5", "WA Tax", True, False),
    ("GB", "", "20", "VAT", True, False),
    ("GB", "", "5", "VAT", True, True),
    ("FR", "", "20", "TVA", True, False),
    ("FR", "", "5.5", "TVA réduite", True, True),
    ("DE", "", "19", "MwSt.", True, False),
    ("DE", "", "7", "MwSt. ermäßigt", True, True),
)

#: How often each order status appears (orders of the last four days are more often open).
STATUS_WEIGHTS = {
    "pending": 3,
    "processing": 5,
    "on-hold": 2,
    "completed": 72,
    "cancelled": 7,
    "refunded": 5,
    "failed": 6,
}
RECENT_STATUS_WEIGHTS = {
    "pending": 20,
    "processing": 40,
    "on-hold": 15,
    "completed": 15,
    "cancelled": 4,
    "refunded": 1,
    "failed": 5,
}
#: The status changes that led to each status (each wrote its note).
STATUS_PATHS = {
    "pending": (),
    "processing": (("pending", "processing"),),
    "on-hold": (("pending", "on-hold"),),
    "completed": (("pending", "processing"), ("processing", "completed")),
    "cancelled": (("pending", "cancelled"),),
    "failed": (("pending", "failed"),),
    "refunded": (("pending", "processing"), ("processing", "refunded")),
}
PAID = frozenset(("processing", "completed", "refunded"))
SALES_RECORDED = frozenset(("processing", "completed", "on-hold", "refunded"))
#: (method id, title, transaction id prefix) and how often each is used.
PAYMENT_WEIGHTS = {
    ("stripe", "Credit card (Stripe)", "ch_"): 50,
    ("paypal", "PayPal", "PAY-"): 25,
    ("bacs", "Direct bank transfer", ""): 12,
    ("cheque", "Check payments", ""): 3,
    ("cod", "Cash on delivery", ""): 10,
}
LINE_COUNT_WEIGHTS = {1: 35, 2: 30, 3: 18, 4: 10, 5: 7}
QUANTITY_WEIGHTS = {1: 70, 2: 20, 3: 7, 4: 3}
FLAT_RATES = (4_900_000, 5_900_000, 9_900_000)  # micro
FREE_SHIPPING_FROM = 75 * MICRO
GIFT_WRAP = 3_500_000
IP_PREFIXES = ("203.0.113", "198.51.100", "192.0.2")
USER_AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Mobile Safari/537.36",
)
CUSTOMER_NOTES = (
    "Please leave the parcel with the neighbour if I am out.",
    "Gift, please do not include the invoice.",
    "Ring twice, the bell is broken.",
    "Deliver after 5 pm if possible.",
)
PRIVATE_NOTES = (
    "Customer called to change the delivery address.",
    "Gift message added: Happy birthday!",
    "Packed by warehouse team B.",
    "Address verified with the customer by email.",
    "Fraud check passed.",
)
REFUND_REASONS = _words(
    "Item arrived damaged, Wrong size, Changed mind, Late delivery, Not as described"
)
FULL_REFUND_REASON = "Order fully refunded"  # what a status edit to "refunded" stores
KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
#: Two characters of an order key per 12 random bits (4096 of the 3844 pairs, a few twice).
KEY_PAIRS = ([a + b for a in KEY_ALPHABET for b in KEY_ALPHABET] * 2)[:4096]


def _table(weights: dict[Any, int]) -> tuple[Any, ...]:
    """Each value repeated by its weight: ``table[int(random() * len(table))]`` picks one."""
    return tuple(value for value, weight in weights.items() for _ in range(weight))


STATUSES = _table(STATUS_WEIGHTS)
RECENT_STATUSES = _table(RECENT_STATUS_WEIGHTS)
PAYMENTS = _table(PAYMENT_WEIGHTS)
LINE_COUNTS = _table(LINE_COUNT_WEIGHTS)
QUANTITIES = _table(QUANTITY_WEIGHTS)


# --------------------------------------------------------------------------------------------
# Options, results, small helpers
# --------------------------------------------------------------------------------------------


class SeedError(Exception):
    """A run that cannot be carried out (a negative count, nothing to sell)."""


@dataclass(frozen=True)
class SeedOptions:
    products: int = DEMO_PRODUCTS
    customers: int = DEMO_CUSTOMERS
    orders: int = DEMO_ORDERS
    seed_value: int = 1
    progress: bool = True
    #: processes generating and writing a large phase on PostgreSQL (None: the CPUs, at most 4)
    jobs: int | None = None


@dataclass
class Counts:
    """The rows a run created."""

    products: int = 0
    variations: int = 0
    media: int = 0
    customers: int = 0
    orders: int = 0
    order_items: int = 0
    order_item_meta: int = 0
    order_notes: int = 0
    refunds: int = 0
    refund_items: int = 0

    def add(self, other: Counts) -> None:
        for name in Counts.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@functools.lru_cache(maxsize=1 << 18)
def money_text(micro: int) -> str:
    """Millionths as the decimal text of a money column (6 decimals)."""
    if micro < 0:
        return "-" + money_text(-micro)
    units, rest = divmod(micro, MICRO)
    return f"{units}.{rest:06d}"


def to_micro(value: Decimal | str | int) -> int:
    return int((Decimal(value) * MICRO).to_integral_value(ROUND_HALF_UP))


def from_micro(micro: int) -> Decimal:
    return Decimal(micro).scaleb(-6)


@functools.lru_cache(maxsize=1 << 16)
def _taxes_json(total: Taxed, subtotal: Taxed) -> str:
    """As ``writers/order_totals.py`` stores it: ``{"total": {rate id: tax}, "subtotal": …}``."""
    first = ", ".join([f'"{rid}": "{money_text(m)}"' for rid, m in total])
    second = ", ".join([f'"{rid}": "{money_text(m)}"' for rid, m in subtotal])
    return f'{{"total": {{{first}}}, "subtotal": {{{second}}}}}'


def _slug(text: str) -> str:
    return catalog.slugify_name(text) or "item"


_ASCII = str.maketrans("éèêëàâäôöüûùîïçßÉ", "eeeeaaaoouuuiicsE")


def _ascii(text: str) -> str:
    """A name as the local part of an email address."""
    return "".join(c for c in text.translate(_ASCII) if c.isalnum()).lower()


def _pick(rnd: Any, values: Sequence[T]) -> T:
    return values[int(rnd() * len(values))]


def _png(color: str, size: int = 32) -> bytes:
    """A tiny PNG of one colour, with a darker band across the middle."""
    light = bytes.fromhex(color)
    dark = bytes(c // 2 for c in light)
    rows = b"".join(
        b"\x00" + (dark if size // 3 <= y < 2 * size // 3 else light) * size for y in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    return png + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def _image_files(settings: Settings, demo: bool) -> list[str]:
    """The files the media rows point at: for a demo-sized run a palette of tiny PNGs below
    ``media_dir/seed`` (written when missing), else the packaged placeholder."""
    if demo:
        try:
            names = []
            for index, color in enumerate(IMAGE_COLORS):
                name = f"seed/product-{index + 1}.png"
                path = Path(settings.media_dir, name)
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(_png(color))
                names.append(name)
            return names
        except OSError:
            pass
    return ["placeholder.png"]


# --------------------------------------------------------------------------------------------
# The shared catalogue
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttributeInfo:
    """A variation attribute: global (``attribute_id``) or custom (None)."""

    attribute_id: int | None
    name: str
    key: str  # the variation_attributes key: the global slug, or the custom name's slug
    meta_key: str  # the order item meta key (pa_<slug> for a global attribute)
    options: tuple[tuple[str, str, int | None], ...]  # (name, stored value, attribute term id)


@dataclass(frozen=True)
class SectionInfo:
    section: Section
    top_id: int
    children: tuple[tuple[int, tuple[str, ...]], ...]  # (category id, nouns)
    attributes: tuple[AttributeInfo, ...]
    shipping_ids: tuple[int, ...]


@dataclass(frozen=True)
class Catalogue:
    sections: tuple[SectionInfo, ...]
    tag_ids: tuple[int, ...]
    reduced_class: str  # "" when the store has no reduced class
    rates: tuple[TaxRate, ...]
    class_slugs: tuple[str, ...]


def _setup_catalogue(engine: Engine) -> Catalogue:
    """Find or create the shared catalogue (and the tax rates of a store without any)."""
    with write_transaction(engine) as conn:
        if sql.tax_rate_count(conn) == 0:
            reduced_id = sql.find_or_create_tax_class(conn, *REDUCED_CLASS)
            for order, (country, state, rate, name, shipping, reduced) in enumerate(TAX_RATES):
                values = {
                    "country": country,
                    "state": state,
                    "rate": Decimal(rate),
                    "name": name,
                    "priority": 1,
                    "compound": False,
                    "shipping": shipping,
                    "rate_order": order,
                    "tax_class_id": reduced_id if reduced else None,
                }
                sql.insert_tax_rate(conn, values)
        class_slugs = sql.tax_class_slugs(conn)
        reduced_class = REDUCED_CLASS[1] if REDUCED_CLASS[1] in class_slugs else ""
        shipping_ids = {
            slug: _find_or_create_term(conn, "product_shipping_class", name, slug)
            for slug, name in SHIPPING_CLASSES.items()
        }
        tag_ids = tuple(_find_or_create_term(conn, "product_tag", n, _slug(n)) for n in TAGS)
        global_attributes = []
        for name, slug, options in (("Color", "color", COLORS), ("Size", "size", SIZES)):
            attribute_id = sql.find_or_create_attribute(conn, name, slug)
            found = _find_or_create_attribute_terms(
                conn, attribute_id, [(option, _slug(option)) for option in options]
            )
            terms = tuple((o, found[o][1], found[o][0]) for o in options)
            global_attributes.append(AttributeInfo(attribute_id, name, slug, f"pa_{slug}", terms))
        color, size = global_attributes
        sections = []
        for section in SECTIONS:
            description = f"Our {section.name.lower()} collection."
            top = _find_or_create_term(
                conn, "product_cat", section.name, _slug(section.name), 0, description
            )
            children = tuple(
                (_find_or_create_term(conn, "product_cat", name, _slug(name), top), nouns)
                for name, nouns in section.children
            )
            if section.variations == "color-size":
                attributes: tuple[AttributeInfo, ...] = (color, size)
            elif section.variations == "color":
                attributes = (color,)
            else:
                name, _, options = section.variations.partition(":")
                key = catalog.clean_attribute_slug(name)
                values = tuple((o, o, None) for o in options.split("|"))
                attributes = (AttributeInfo(None, name, key, key, values),)
            shipping = tuple(shipping_ids[slug] for slug in section.shipping)
            sections.append(SectionInfo(section, top, children, attributes, shipping))
        rates = tuple(
            TaxRate(
                id=row["id"],
                country=row["country"],
                state=row["state"],
                rate=Decimal(row["rate"]),
                name=row["name"],
                priority=row["priority"],
                compound=bool(row["compound"]),
                shipping=bool(row["shipping"]),
                order=row["rate_order"],
                tax_class=row["class_slug"] or "",
                postcodes=row["postcodes"],
                cities=row["cities"],
            )
            for row in sql.all_tax_rates(conn)
        )
    return Catalogue(tuple(sections), tag_ids, reduced_class, rates, class_slugs)


# --------------------------------------------------------------------------------------------
# Phases: customers, products, orders
# --------------------------------------------------------------------------------------------


@dataclass
class Batch:
    """The rows of one transaction, ``(table, columns, rows)`` in insertion order, how many
    records the progress bar counts, and what the phase keeps of it."""

    tables: list[tuple[Table, tuple[str, ...], list[Row]]]
    size: int
    result: Any = None


class Phase(Protocol):
    #: the table whose ids the runner reserves, batch by batch, in batch order
    leading: Table
    total: int
    size: int

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch: ...


def _batch_count(phase: Phase) -> int:
    return -(-phase.total // phase.size)


def _batch_rng(key: str, index: int) -> random.Random:
    return random.Random(f"{key}:{index}")


@dataclass(frozen=True)
class Customer:
    id: int
    created_at: dt.datetime
    billing: dict[str, str]
    shipping: dict[str, str]
    email: str


def _address(rnd: Any, first: str, last: str) -> dict[str, str]:
    place = _pick(rnd, PLACES)
    return {
        "first_name": first,
        "last_name": last,
        "company": _pick(rnd, COMPANIES) if rnd() < 0.1 else "",
        "address_1": f"{1 + int(rnd() * 240)} {_pick(rnd, STREETS)}",
        "address_2": f"Apt {1 + int(rnd() * 40)}" if rnd() < 0.2 else "",
        "city": place.city,
        "state": place.state,
        "postcode": place.postcode,
        "country": place.country,
        "email": "",
        "phone": f"{place.phone}{int(rnd() * 10000):04d}",
    }


USER_COLUMNS = ("id", "login", "email", "first_name", "last_name", "role")
USER_COLUMNS += ("created_at", "updated_at")
PROFILE_COLUMNS = ("user_id", "billing", "shipping", "updated_at")


@dataclass
class CustomerPhase:
    """Customers signed up over the two years; a batch's result is its ``Customer`` list."""

    key: str
    tag: str
    now: dt.datetime
    total: int
    size: int = CUSTOMER_BATCH
    leading: Table = users

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch:
        rnd = _batch_rng(self.key, index).random
        start = self.now - SPAN
        user_rows: list[Row] = []
        profile_rows: list[Row] = []
        made = []
        for offset, user_id in enumerate(ids):
            number = index * self.size + offset
            first, last = _pick(rnd, FIRST_NAMES), _pick(rnd, LAST_NAMES)
            login = f"{_ascii(first)}.{_ascii(last)}{number + 1}-{self.tag}"
            email = f"{login}@example.com"
            created = (start + SPAN * ((number + rnd()) / self.total)).replace(microsecond=0)
            billing = _address(rnd, first, last)
            billing["email"] = email
            shipping = {name: billing[name] for name in SHIPPING_FIELDS}
            user_rows.append((user_id, login, email, first, last, "customer", created, created))
            profile_rows.append((user_id, json.dumps(billing), json.dumps(shipping), created))
            made.append(Customer(user_id, created, billing, shipping, email))
        tables = [
            (users, USER_COLUMNS, user_rows),
            (customer_profiles, PROFILE_COLUMNS, profile_rows),
        ]
        return Batch(tables, len(user_rows), made)


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
#: A variation's title names its values when it has at most this many (writers/variations.py).
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
    cents = _pick(rnd, (99, 99, 99, 95, 50, 0))
    return (units * 100 + cents) * CENT


def _sale(rnd: Any, regular: int) -> int | None:
    """A sale price for some products: 10-40 % off, ending .99."""
    if rnd() >= 0.15:
        return None
    sale = regular * (100 - _pick(rnd, (10, 15, 20, 25, 30, 40))) // 100
    sale = max(sale - sale % (100 * CENT) - CENT, CENT)
    return sale if sale < regular else None


def _size_text(value: float) -> str:
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
    size: int = PRODUCT_BATCH
    leading: Table = media  # every product has a featured image: not a useful order to keep

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch:
        rnd = _batch_rng(self.key, index).random
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
        info = _pick(rnd, self.catalogue.sections)
        section = info.section
        category_id, nouns = _pick(rnd, info.children)
        noun = _pick(rnd, nouns)
        quality = _pick(rnd, section.qualities) if section.qualities else ""
        if section.code == "BOO":
            title = f"The {_pick(rnd, BOOK_WORDS[0])} {_pick(rnd, BOOK_WORDS[1])}"
            title += "" if noun == "Novel" else f": A {noun}"
        elif section.code == "ELE":
            title = f"{_pick(rnd, ADJECTIVES)} {noun} {quality}"
        elif section.code == "FOO":
            title = f"{quality} {noun}"
        elif rnd() < 0.7:
            title = f"{_pick(rnd, ADJECTIVES)} {quality} {noun}"
        else:
            title = f"{_pick(rnd, ADJECTIVES)} {noun}"
        variations: list[list[tuple[AttributeInfo, Option]]] = []
        if rnd() < section.variable_share:
            wanted = _pick(rnd, (2, 2, 3))
            attrs = info.attributes
            picker = random.Random(rnd())
            if len(attrs) == 2:
                colors = picker.sample(attrs[0].options, 2 if wanted == 2 else _pick(rnd, (1, 3)))
                sizes = picker.sample(attrs[1].options[1:5], 2)
                combos = [(color, size) for color in colors for size in sizes]
                for color, size in picker.sample(combos, min(wanted, len(combos))):
                    variations.append([(attrs[0], color), (attrs[1], size)])
            else:
                options = attrs[0].options
                for option in picker.sample(options, min(wanted, len(options))):
                    variations.append([(attrs[0], option)])
        images = _pick(rnd, (1, 1, 2, 2, 3, 4))
        variation_images = [rnd() < 0.4 for _ in variations]
        return _Product(info, category_id, title, quality, variations, images, variation_images)

    def _stock(self, rnd: Any, managed_share: float) -> stock.StockState:
        """The stock columns of a simple product or a variation, as the stock rules store
        them."""
        backorders = _pick(rnd, BACKORDERS)
        if rnd() < managed_share:
            roll = rnd()
            if roll < 0.06:
                quantity = 0
            else:
                quantity = 1 + int(rnd() * 9) if roll < 0.2 else 10 + int(rnd() * 490)
            status = stock.stock_status(True, quantity, backorders, self.threshold, None)
            return stock.StockState(True, quantity, backorders, status)
        return stock.StockState(False, None, backorders, _pick(rnd, STOCK_STATUSES))

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
            (media_id, _pick(rnd, self.files), "image/png", title, title, created, created)
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
        slug = f"{_slug(title)}-{self.tag}-{number}"[:200]
        sku = f"{section.code}-{self.tag.upper()}-{number:06d}"
        noun = title.rsplit(" ", 1)[-1].lower()
        short = f"<p>{_pick(rnd, ADJECTIVES)} {noun}, {_pick(rnd, BENEFITS)}.</p>"
        made_of = (
            f" made from {plan.quality.lower()}" if section.code in ("CLO", "ACC", "HOM") else ""
        )
        description = (
            f"<p>Our {title.lower()}{made_of} is {_pick(rnd, BENEFITS)} and "
            f"{_pick(rnd, BENEFITS)}.</p>\n<p>{_pick(rnd, CARE)} {_pick(rnd, CARE)}</p>"
        )
        tax_class = self.catalogue.reduced_class if section.reduced else ""
        low, high = section.weight
        weight = _size_text(low + rnd() * (high - low))
        length, width, height = (_size_text(2 + rnd() * 58) for _ in range(3))
        shipping_id = None
        if info.shipping_ids and rnd() < 0.6:
            shipping_id = _pick(rnd, info.shipping_ids)
        image_id = self._media(rnd, media_ids, title, created, out)
        for position in range(1, plan.images):
            media_id = self._media(rnd, media_ids, f"{title} ({position + 1})", created, out)
            out.gallery.append((product_id, position - 1, media_id))
        out.links.append((product_id, plan.category_id))
        if rnd() < 0.3:
            out.links.append((product_id, info.top_id))
        tags = random.Random(rnd()).sample(self.catalogue.tag_ids, _pick(rnd, (0, 0, 1, 1, 2, 3)))
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
            if attribute.attribute_id is not None:
                row = (
                    product_id,
                    attribute.attribute_id,
                    attribute.name,
                    position,
                    True,
                    True,
                    "[]",
                )
                out.attributes.append(row)
                out.attribute_terms.extend((product_id, term_id) for _, _, term_id in chosen)
            else:
                options = json.dumps([name for name, _, _ in chosen])
                out.attributes.append(
                    (product_id, None, attribute.name, position, True, True, options)
                )
        base = _price(rnd, low_price, high_price)
        parent_at = len(out.products)
        out.products.append(())
        states = []
        for index, combo in enumerate(plan.variations):
            variation_id = next(product_ids)
            names = ", ".join(option[0] for _, option in combo)
            name = f"{title} - {names}" if len(combo) <= TITLE_ATTRIBUTES else title
            regular = base + _pick(rnd, (0, 0, 1, 2, 5)) * index * 100 * CENT
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
    products: list[Row] = field(default_factory=list)
    media: list[Row] = field(default_factory=list)
    gallery: list[Row] = field(default_factory=list)
    links: list[Row] = field(default_factory=list)
    attributes: list[Row] = field(default_factory=list)
    attribute_terms: list[Row] = field(default_factory=list)
    values: list[Row] = field(default_factory=list)
    sellables: list[Sellable] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Taxes
# --------------------------------------------------------------------------------------------


class _RateSet:
    """The rates matched for one address and class. ``units``: ``(rate id, rate in
    ten-thousandths of a percent)`` for the integer path, which holds when ``fast`` (no compound
    rate, no rate more precise than the column's 4 decimals)."""

    __slots__ = ("fast", "memo", "rates", "units")

    def __init__(self, rates: Sequence[TaxRate]) -> None:
        self.rates = tuple(rates)
        units = []
        fast = True
        for rate in rates:
            scaled = rate.rate * 10_000
            if rate.compound or scaled != scaled.to_integral_value():
                fast = False
            units.append((rate.id, int(scaled)))
        self.units = tuple(units)
        self.fast = fast
        self.memo: dict[int, tuple[Taxed, int, int, Taxed]] = {}

    def on(self, amount: int) -> tuple[Taxed, int, int, Taxed]:
        """The exclusive taxes on ``amount`` (micro, not negative) at 6 decimals, half up, as
        ``(taxes, their sum, their sum rounded per rate, the rounded taxes)``."""
        found = self.memo.get(amount)
        if found is None:
            taxes = tuple(
                [(rid, (amount * units + MICRO // 2) // MICRO) for rid, units in self.units]
            )
            rounded = tuple([(rid, _rounded(m)) for rid, m in taxes])
            found = (taxes, sum(m for _, m in taxes), sum(m for _, m in rounded), rounded)
            if len(self.memo) < 200_000:
                self.memo[amount] = found
        return found


class Where:
    """An address orders are taxed at, with the rates of each class matched once."""

    __slots__ = ("address", "items", "shipping")

    def __init__(self, address: Address) -> None:
        self.address = address
        self.items: dict[str, _RateSet] = {}
        self.shipping: dict[str, _RateSet] = {}


class Taxes:
    """The store's rates and tax settings."""

    def __init__(self, rates: list[TaxRate], settings: Settings, class_slugs: tuple[str, ...]):
        self.rates = rates
        self.settings = settings
        self.totals_settings = TotalsSettings(
            calc_taxes=settings.calc_taxes,
            prices_include_tax=settings.prices_include_tax,
            tax_round_at_subtotal=settings.tax_round_at_subtotal,
            shipping_tax_class=settings.shipping_tax_class,
            decimals=settings.price_decimals,
            tax_classes=class_slugs,
        )
        #: the integer path holds for these settings (per order it also needs fast rates)
        self.fast = (
            settings.calc_taxes
            and not settings.prices_include_tax
            and not settings.tax_round_at_subtotal
            and settings.price_decimals == 2
        )
        self.base = Address(
            settings.store_country,
            settings.store_state,
            settings.store_postcode,
            settings.store_city,
        )
        based_on = settings.tax_based_on
        self.based_on = based_on if based_on in ("billing", "base") else "shipping"
        self._places: dict[Address, Where] = {}
        self.lines: dict[int, tuple[str, str, bool]] = {
            rate.id: (rate_code(rate), tax_rules.tax_name(rate.name), rate.compound)
            for rate in rates
        }

    def where(self, billing: Address, shipping: Address) -> Where:
        """Where an order with these addresses is taxed (``tax_based_on``)."""
        address = tax_address(self.based_on, billing, shipping, self.base)
        found = self._places.get(address)
        if found is None:
            found = self._places[address] = Where(address)
        return found

    def item_rates(self, where: Where, tax_class: str) -> _RateSet:
        found = where.items.get(tax_class)
        if found is None:
            matched = tax_rules.find_rates(self.rates, where.address, tax_class)
            found = where.items[tax_class] = _RateSet(matched)
        return found

    def shipping_rates(self, where: Where, tax_class: str) -> _RateSet:
        found = where.shipping.get(tax_class)
        if found is None:
            matched = tax_rules.shipping_rates(self.rates, where.address, tax_class)
            found = where.shipping[tax_class] = _RateSet(matched)
        return found

    def shipping_class(self, lines: Sequence[tuple[Sellable, int, int, int]]) -> str | None:
        """``resolve_shipping_tax_class`` of ``shopsvc.domain.totals`` for these lines."""
        setting = self.settings.shipping_tax_class
        if setting != "inherit":
            return "" if setting == "standard" else setting
        used = [
            "" if s.tax_class == "standard" else s.tax_class for s, _, _, _ in lines if s.taxable
        ]
        for candidate in ("", *self.totals_settings.tax_classes, *used):
            if candidate in used:
                return candidate
        return None


@dataclass
class _Totals:
    """An order's taxes and totals in micro: per line ``(subtotal_tax, total_tax, taxes,
    subtotal_taxes)``, the shipping line's ``(total_tax, taxes)``, the fee's ``(total,
    total_tax, taxes)``, the tax items ``(rate id, tax_total, shipping_tax_total)`` and the
    order's columns."""

    lines: list[tuple[int, int, Taxed, Taxed]]
    shipping: tuple[int, Taxed]
    fee: tuple[int, int, Taxed] | None
    tax_items: list[tuple[int, int, int]]
    discount_total: int
    discount_tax: int
    shipping_total: int
    shipping_tax: int
    cart_tax: int
    total_tax: int
    total: int


def _rounded(micro: int) -> int:
    """One rate's tax on one item at 2 decimals, half up (the integer path's ``item_tax``)."""
    return (micro + CENT // 2) // CENT * CENT


def _fast_totals(
    taxes: Taxes,
    where: Where,
    lines: Sequence[tuple[Sellable, int, int, int]],
    shipping_cost: int,
    fee: int | None,
) -> _Totals | None:
    """``calculate_totals`` in integers, or None when this order needs the general path."""
    line_results = []
    cart: dict[int, int] = {}
    for sellable, _, subtotal, total in lines:
        if sellable.taxable and sellable.tax_class != "0":
            rates = where.items.get(sellable.tax_class) or taxes.item_rates(
                where, sellable.tax_class
            )
            if not rates.fast:
                return None
            line_taxes, raw, line_tax, rounded = rates.on(total)
            sub_taxes, sub_tax = line_taxes, line_tax
            if subtotal != total:
                sub_taxes, sub_raw, sub_tax, _ = rates.on(subtotal)
                if sub_raw < raw:
                    sub_taxes, sub_tax = line_taxes, line_tax
            for rid, m in rounded:
                cart[rid] = cart.get(rid, 0) + m
            line_results.append((sub_tax, line_tax, line_taxes, sub_taxes))
        else:
            line_results.append((0, 0, (), ()))
    fee_result = None
    if fee is not None:
        rates = taxes.item_rates(where, "")
        if not rates.fast:
            return None
        fee_taxes, _, fee_tax, rounded = rates.on(fee)
        for rid, m in rounded:
            cart[rid] = cart.get(rid, 0) + m
        fee_result = (fee, fee_tax, fee_taxes)
    shipping_result: tuple[int, Taxed] = (0, ())
    ship: dict[int, int] = {}
    shipping_class = taxes.shipping_class(lines)
    if shipping_class is not None:
        rates = taxes.shipping_rates(where, shipping_class)
        if not rates.fast:
            return None
        shipping_taxes, _, shipping_line_tax, rounded = rates.on(shipping_cost)
        for rid, m in rounded:
            ship[rid] = ship.get(rid, 0) + m
        shipping_result = (shipping_line_tax, shipping_taxes)
    cart_tax = sum(cart.values())
    shipping_tax = sum(ship.values())
    items_total = 0
    subtotal = 0
    for _, _, sub, total in lines:
        items_total += total
        subtotal += sub
    if ship:
        tax_items = [(rid, cart.get(rid, 0), ship.get(rid, 0)) for rid in {**cart, **ship}]
    else:
        tax_items = [(rid, amount, 0) for rid, amount in cart.items()]
    return _Totals(
        lines=line_results,
        shipping=shipping_result,
        fee=fee_result,
        tax_items=tax_items,
        discount_total=subtotal - items_total,
        discount_tax=sum(sub - tot for sub, tot, _, _ in line_results),
        shipping_total=shipping_cost,
        shipping_tax=shipping_tax,
        cart_tax=cart_tax,
        total_tax=cart_tax + shipping_tax,
        total=items_total + (fee or 0) + shipping_cost + cart_tax + shipping_tax,
    )


def _exact_totals(
    taxes: Taxes,
    where: Where,
    lines: Sequence[tuple[Sellable, int, int, int]],
    shipping_cost: int,
    fee: int | None,
) -> _Totals:
    """``calculate_totals`` itself (any settings and rates), in micro."""
    result = calculate_totals(
        [
            LineItem(from_micro(sub), from_micro(tot), qty, s.tax_class, s.taxable, key=i)
            for i, (s, qty, sub, tot) in enumerate(lines)
        ],
        [ShippingLine(from_micro(shipping_cost), key="shipping")],
        [FeeLine(from_micro(fee), "", True, key="fee")] if fee is not None else [],
        rates=taxes.rates,
        address=where.address,
        settings=taxes.totals_settings,
    )

    def pairs(found: dict[int, Decimal]) -> Taxed:
        return tuple((rid, to_micro(value)) for rid, value in found.items())

    line_results = [
        (
            to_micro(line.subtotal_tax),
            to_micro(line.total_tax),
            pairs(line.taxes),
            pairs(line.subtotal_taxes),
        )
        for line in result.lines
    ]
    [shipped] = result.shipping_lines
    fee_result = None
    if result.fees:
        [charged] = result.fees
        fee_result = (to_micro(charged.total), to_micro(charged.total_tax), pairs(charged.taxes))
    discount_tax = sum((line.subtotal_tax - line.total_tax for line in result.lines), Decimal(0))
    return _Totals(
        lines=line_results,
        shipping=(to_micro(shipped.total_tax), pairs(shipped.taxes)),
        fee=fee_result,
        tax_items=[
            (t.rate_id, to_micro(t.tax_total), to_micro(t.shipping_tax_total))
            for t in result.tax_lines
        ],
        discount_total=to_micro(result.total_discount),
        discount_tax=to_micro(discount_tax),
        shipping_total=to_micro(result.total_shipping),
        shipping_tax=to_micro(result.shipping_tax),
        cart_tax=to_micro(result.cart_tax),
        total_tax=to_micro(result.total_tax),
        total=to_micro(result.total),
    )


ORDER_COLUMNS = (
    *("id", "order_key", "status", "currency", "prices_include_tax", "customer_id"),
    *("customer_note", "customer_ip", "customer_user_agent", "payment_method"),
    *("payment_method_title", "transaction_id", "date_paid", "date_completed"),
    *(f"billing_{name}" for name in BILLING_FIELDS),
    *(f"shipping_{name}" for name in SHIPPING_FIELDS),
    *("discount_total", "discount_tax", "shipping_total", "shipping_tax", "cart_tax"),
    *("total_tax", "total", "stock_reduced", "sales_recorded", "order_meta"),
    *("created_at", "updated_at"),
)
ITEM_COLUMNS = (
    *("id", "order_id", "item_type", "name", "product_id", "variation_id", "quantity"),
    *("tax_class", "taxable", "method_id", "subtotal", "subtotal_tax", "total", "total_tax"),
    *("taxes", "rate_id", "rate_code", "compound", "tax_total", "shipping_tax_total"),
)
META_COLUMNS = ("item_id", "meta_key", "meta_value")
NOTE_COLUMNS = ("order_id", "note", "customer_note", "system", "created_at")
REFUND_COLUMNS = ("id", "order_id", "amount", "reason", "created_at")
REFUND_ITEM_COLUMNS = (
    *("refund_id", "refunded_item_id", "item_type", "name", "product_id", "variation_id"),
    *("quantity", "tax_class", "subtotal", "subtotal_tax", "total", "total_tax", "taxes"),
)
ZERO = "0"
#: The tax item columns of an item that is not a tax item.
NO_RATE = (None, "", False, ZERO, ZERO)
Line = tuple[Sellable, int, int, int]  # sellable, quantity, subtotal, total (micro)
Refund = tuple[str, str, dt.datetime, list[tuple[int, Row]]]  # amount, reason, at, items


@dataclass
class _Order:
    """An order before its ids: its row and items without ids, item meta by item index, notes,
    and refunds whose items name the order's items by index."""

    row: Row
    items: list[Row]
    meta: list[tuple[int, str, str]]
    notes: list[tuple[str, bool, bool, dt.datetime]]
    refunds: list[Refund]


def _billing(customer: Customer) -> list[str]:
    """The customer's billing address in ``BILLING_FIELDS`` order (the account email when the
    profile has none)."""
    values = [str(customer.billing.get(name) or "") for name in BILLING_FIELDS]
    email = BILLING_FIELDS.index("email")
    values[email] = values[email] or customer.email
    return values


def _shipping(customer: Customer) -> list[str]:
    """The customer's shipping address (the billing one when the profile has none)."""
    values = [str(customer.shipping.get(name) or "") for name in SHIPPING_FIELDS]
    if not values[SHIPPING_FIELDS.index("country")]:
        values = _billing(customer)[: len(SHIPPING_FIELDS)]
    return values


def _where(address: Sequence[str]) -> Address:
    """The tax ``Address`` of an address in ``BILLING_FIELDS`` (or ``SHIPPING_FIELDS``) order."""
    return Address(address[8], address[6], address[7], address[5])


@dataclass
class _Buyers:
    """What the orders of one process draw from, made once per process."""

    cumulative: list[float]  # popularity of the sellables
    buyers: list[tuple[int, tuple[str, ...], tuple[str, ...], Where]]
    times: list[dt.datetime]
    places: list[Where]


@dataclass
class OrderPhase:
    """Orders over the last two years; a batch's result is ``(units sold per product id,
    Counts)``. ``dated``: a customer only buys after signing up (False for the customers of an
    earlier run, whose sign-up dates are not spread over the orders' two years)."""

    key: str
    now: dt.datetime
    total: int
    sellables: list[Sellable]
    customers: list[Customer]
    taxes: Taxes
    currency: str
    prices_include_tax: bool
    dated: bool = True
    size: int = ORDER_BATCH
    leading: Table = orders
    _state: _Buyers | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_state": None}  # each process makes its own

    def _prepare(self) -> _Buyers:
        # popular products sell more: weights 1/(rank + 10) over a shuffled order
        ranks = list(range(len(self.sellables)))
        random.Random(f"{self.key}:popularity").shuffle(ranks)
        cumulative = list(itertools.accumulate(1 / (rank + 10) for rank in ranks))
        start = self.now - SPAN
        customers = sorted(self.customers, key=lambda customer: customer.created_at)
        buyers = []
        for customer in customers:
            billing, shipping = _billing(customer), _shipping(customer)
            where = self.taxes.where(_where(billing), _where(shipping))
            buyers.append((customer.id, tuple(billing), tuple(shipping), where))
        times = [c.created_at if self.dated else start - SPAN for c in customers]
        places = []
        for place in PLACES:
            address = Address(place.country, place.state, place.postcode, place.city)
            places.append(self.taxes.where(address, address))
        return _Buyers(cumulative, buyers, times, places)

    # --- one order

    def _guest(
        self, rnd: Any, number: int, state: _Buyers
    ) -> tuple[tuple[str, ...], tuple[str, ...], Where]:
        at = int(rnd() * len(PLACES))
        place = PLACES[at]
        first, last = _pick(rnd, FIRST_NAMES), _pick(rnd, LAST_NAMES)
        company = _pick(rnd, COMPANIES) if rnd() < 0.1 else ""
        street = f"{1 + int(rnd() * 240)} {_pick(rnd, STREETS)}"
        flat = f"Apt {1 + int(rnd() * 40)}" if rnd() < 0.2 else ""
        shipping = (first, last, company, street, flat, place.city, place.state, place.postcode)
        shipping += (place.country,)
        email = f"{_ascii(first)}.{_ascii(last)}{number}@example.org"
        billing = (*shipping, email, f"{place.phone}{int(rnd() * 10000):04d}")
        return billing, shipping, state.places[at]

    def _lines(self, rng: random.Random, coupon: bool, state: _Buyers) -> list[Line]:
        rnd = rng.random
        wanted = _pick(rnd, LINE_COUNTS)
        picked = rng.choices(self.sellables, cum_weights=state.cumulative, k=wanted)
        seen: set[int] = set()
        lines = []
        for sellable in picked:
            key = sellable.variation_id or sellable.product_id
            if key in seen:
                continue
            seen.add(key)
            quantity = _pick(rnd, QUANTITIES)
            subtotal = sellable.price * quantity
            total = (subtotal * 9 + 5 * CENT) // (10 * CENT) * CENT if coupon else subtotal
            lines.append((sellable, quantity, subtotal, total))
        return lines

    def plan(self, rng: random.Random, number: int, state: _Buyers) -> _Order:
        """The order ``number`` (0-based) of the phase."""
        rnd = rng.random
        now = self.now
        fraction = (number + rnd()) / self.total
        # more orders lately: a shop that grows
        created = now - SPAN + SPAN * ((fraction + math.sqrt(fraction)) / 2)
        created = min(created, now - dt.timedelta(minutes=1)).replace(microsecond=0)
        recent = now - created < dt.timedelta(days=4)
        status = _pick(rnd, RECENT_STATUSES if recent else STATUSES)
        newest = self.total - 1 - number
        if self.total <= SMALL_RUN and newest < len(STATUS_PATHS):
            status = tuple(STATUS_PATHS)[newest]  # a small store shows every status
        buyer = None
        if state.buyers and rnd() < 0.75:
            known = bisect.bisect_right(state.times, created)
            if known:
                buyer = state.buyers[int(rnd() * known)]
        if buyer is not None:
            customer_id, billing, shipping, where = buyer
        else:
            customer_id = 0
            billing, shipping, where = self._guest(rnd, number, state)
        coupon = rnd() < 0.15
        lines = self._lines(rng, coupon, state)
        if rnd() < 0.05:
            method_id, method_title, cost = "local_pickup", "Local pickup", 0
        elif sum(line[3] for line in lines) >= FREE_SHIPPING_FROM:
            method_id, method_title, cost = "free_shipping", "Free shipping", 0
        else:
            method_id, method_title, cost = "flat_rate", "Flat rate", _pick(rnd, FLAT_RATES)
        fee = GIFT_WRAP if rnd() < 0.08 else None
        totals = _fast_totals(self.taxes, where, lines, cost, fee) if self.taxes.fast else None
        if totals is None:
            totals = _exact_totals(self.taxes, where, lines, cost, fee)
        items, meta = self._items(lines, totals, (method_id, method_title, cost), fee, coupon)

        # what happened to it: status changes and their notes, other notes, a refund
        paid_at = created + dt.timedelta(minutes=1 + int(rnd() * 30))
        completed_at = None
        notes: list[tuple[str, bool, bool, dt.datetime]] = []
        updated = created
        moment = paid_at
        for previous, step in STATUS_PATHS[status]:
            if step == "completed":
                moment = min(moment + dt.timedelta(hours=6 + int(rnd() * 90)), now)
                completed_at = moment
            elif step == "refunded":
                moment = min(moment + dt.timedelta(days=3 + int(rnd() * 22)), now)
            notes.append((order_rules.status_note(previous, step), False, True, moment))
            updated = moment
        if completed_at is not None and rnd() < 0.2:
            tracking = f"Your order is on its way. Tracking number: 1Z{rng.getrandbits(40):010X}"
            notes.append((tracking, True, False, completed_at))
        if rnd() < 0.05:
            noted = min(created + dt.timedelta(hours=2), now)
            notes.append((_pick(rnd, PRIVATE_NOTES), False, False, noted))
            updated = max(updated, noted)
        refunds: list[Refund] = []
        if status == "refunded":
            refunds.append(self._full_refund(rnd, items, lines, totals, updated))
        elif completed_at is not None and rnd() < 0.04:
            refund_at = min(completed_at + dt.timedelta(days=2 + int(rnd() * 18)), now)
            partial = self._partial_refund(rnd, items, lines, totals, refund_at)
            if partial is not None:
                refunds.append(partial)
                updated = max(updated, refund_at)

        method, payment_title, prefix = _pick(rnd, PAYMENTS)
        paid = status in PAID
        transaction = f"{prefix}{rng.getrandbits(48):012x}" if paid and prefix else ""
        recorded = status in SALES_RECORDED
        bits = rng.getrandbits(84)
        pairs = [KEY_PAIRS[(bits >> shift) & 4095] for shift in range(0, 84, 12)]
        order_key = order_rules.ORDER_KEY_PREFIX + "".join(pairs)[:13]
        ip = f"{_pick(rnd, IP_PREFIXES)}.{1 + int(rnd() * 254)}"
        note = _pick(rnd, CUSTOMER_NOTES) if rnd() < 0.06 else ""
        agent = _pick(rnd, USER_AGENTS)
        head = (order_key, status, self.currency, self.prices_include_tax, customer_id, note)
        payment = (method, payment_title, transaction, paid_at if paid else None, completed_at)
        amounts = (
            money_text(totals.discount_total),
            money_text(totals.discount_tax),
            money_text(totals.shipping_total),
            money_text(totals.shipping_tax),
            money_text(totals.cart_tax),
            money_text(totals.total_tax),
            money_text(totals.total),
        )
        tail = (recorded, recorded, "{}", created, updated)
        row = (*head, ip, agent, *payment, *billing, *shipping, *amounts, *tail)
        return _Order(row, items, meta, notes, refunds)

    def _items(
        self,
        lines: Sequence[Line],
        totals: _Totals,
        shipping: tuple[str, str, int],
        fee: int | None,
        coupon: bool,
    ) -> tuple[list[Row], list[tuple[int, str, str]]]:
        """The order's items (``ITEM_COLUMNS`` but the ids) in the writers' order: lines,
        shipping, fee, coupon, taxes; and the lines' meta ``(item index, key, value)``."""
        items: list[Row] = []
        meta: list[tuple[int, str, str]] = []
        for (sellable, quantity, subtotal, total), result in zip(lines, totals.lines, strict=True):
            sub_tax, line_tax, line_taxes, sub_taxes = result
            meta.extend((len(items), key, value) for key, value in sellable.meta)
            product = (sellable.name, sellable.product_id, sellable.variation_id, quantity)
            charge = (sellable.tax_class, sellable.taxable, "", money_text(subtotal))
            amounts = (money_text(sub_tax), money_text(total), money_text(line_tax))
            taxes = _taxes_json(line_taxes, sub_taxes)
            items.append(("line_item", *product, *charge, *amounts, taxes, *NO_RATE))
        method_id, method_title, cost = shipping
        shipping_tax, shipping_taxes = totals.shipping
        cost_text = money_text(cost)
        shipped = (method_title, None, None, 0, "", False, method_id, cost_text, ZERO, cost_text)
        taxes = _taxes_json(shipping_taxes, ())
        items.append(("shipping", *shipped, money_text(shipping_tax), taxes, *NO_RATE))
        if totals.fee is not None:
            fee_total, fee_tax, fee_taxes = totals.fee
            charged = ("Gift wrapping", None, None, 0, "", True, "", money_text(fee or 0), ZERO)
            amounts = (money_text(fee_total), money_text(fee_tax), _taxes_json(fee_taxes, ()))
            items.append(("fee", *charged, *amounts, *NO_RATE))
        if coupon:
            amount = money_text(totals.discount_total)
            code = ("save10", None, None, 0, "", False, "", amount, ZERO, amount, ZERO, "{}")
            items.append(("coupon", *code, *NO_RATE))
        for rate_id, cart_tax, ship_tax in totals.tax_items:
            code_text, title, compound = self.taxes.lines[rate_id]
            blank = (title, None, None, 0, "", False, "", ZERO, ZERO, ZERO, ZERO, "{}")
            rate = (rate_id, code_text, compound, money_text(cart_tax), money_text(ship_tax))
            items.append(("tax", *blank, *rate))
        return items, meta

    # --- refunds

    @staticmethod
    def _refund_item(item: Row, quantity: int, total: int, taxes: Sequence[tuple[int, int]]) -> Row:
        """A negative copy of ``item`` (``REFUND_ITEM_COLUMNS`` from ``item_type``)."""
        negative = tuple((rid, -m) for rid, m in taxes)
        tax = money_text(-sum(m for _, m in taxes))
        amount = money_text(-total)
        taxes_json = _taxes_json(negative, negative)
        # item_type, name, product_id, variation_id; quantity; tax_class; the amounts
        return (*item[:4], -quantity, item[5], amount, tax, amount, tax, taxes_json)

    def _full_refund(
        self, rnd: Any, items: list[Row], lines: Sequence[Line], totals: _Totals, at: dt.datetime
    ) -> Refund:
        """The refund of the whole order: of the amount only (what a status edit to
        ``refunded`` stores), or of each line, the shipping and the fee."""
        amount = money_text(totals.total)
        if rnd() < 0.5:
            return amount, FULL_REFUND_REASON, at, []
        given: list[tuple[int, Row]] = []
        for index, ((_, quantity, _, total), result) in enumerate(
            zip(lines, totals.lines, strict=True)
        ):
            rounded = [(rid, _rounded(m)) for rid, m in result[2]]
            given.append((index, self._refund_item(items[index], quantity, total, rounded)))
        position = len(lines)
        shipping_tax, shipping_taxes = totals.shipping
        if totals.shipping_total or shipping_tax:
            rounded = [(rid, _rounded(m)) for rid, m in shipping_taxes]
            item = self._refund_item(items[position], 0, totals.shipping_total, rounded)
            given.append((position, item))
        if totals.fee is not None:
            fee_total, _, fee_taxes = totals.fee
            rounded = [(rid, _rounded(m)) for rid, m in fee_taxes]
            given.append(
                (position + 1, self._refund_item(items[position + 1], 0, fee_total, rounded))
            )
        return amount, _pick(rnd, REFUND_REASONS), at, given

    def _partial_refund(
        self, rnd: Any, items: list[Row], lines: Sequence[Line], totals: _Totals, at: dt.datetime
    ) -> Refund | None:
        """One unit of one line given back, with its share of the line's taxes."""
        index = int(rnd() * len(lines))
        _, quantity, _, total = lines[index]
        unit = (total // quantity + CENT // 2) // CENT * CENT
        taxes = [(rid, _rounded(m // quantity)) for rid, m in totals.lines[index][2]]
        amount = unit + sum(m for _, m in taxes)
        if amount <= 0 or amount > totals.total:
            return None
        item = self._refund_item(items[index], 1, unit, taxes)
        return money_text(amount), _pick(rnd, REFUND_REASONS), at, [(index, item)]

    # --- a batch

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch:
        if self._state is None:
            self._state = self._prepare()
        rng = _batch_rng(self.key, index)
        first = index * self.size
        plans = [self.plan(rng, first + offset, self._state) for offset in range(len(ids))]
        item_ids = iter(reserver.reserve(order_items, sum(len(p.items) for p in plans)))
        refund_ids = iter(reserver.reserve(order_refunds, sum(len(p.refunds) for p in plans)))
        order_rows: list[Row] = []
        item_rows: list[Row] = []
        meta_rows: list[Row] = []
        note_rows: list[Row] = []
        refund_rows: list[Row] = []
        refund_item_rows: list[Row] = []
        sold: Counter[int] = Counter()
        for order_id, plan in zip(ids, plans, strict=True):
            order_rows.append((order_id, *plan.row))
            made = []
            for item in plan.items:
                item_id = next(item_ids)
                made.append(item_id)
                item_rows.append((item_id, order_id, *item))
            meta_rows.extend((made[at], key, value) for at, key, value in plan.meta)
            note_rows.extend((order_id, *note) for note in plan.notes)
            for amount, reason, moment, given in plan.refunds:
                refund_id = next(refund_ids)
                refund_rows.append((refund_id, order_id, amount, reason, moment))
                refund_item_rows.extend((refund_id, made[at], *item) for at, item in given)
            if plan.row[-4]:  # sales_recorded
                for item in plan.items:
                    if item[0] == "line_item":
                        sold[item[2]] += item[4]
        counts = Counts(
            orders=len(order_rows),
            order_items=len(item_rows),
            order_item_meta=len(meta_rows),
            order_notes=len(note_rows),
            refunds=len(refund_rows),
            refund_items=len(refund_item_rows),
        )
        tables = [
            (orders, ORDER_COLUMNS, order_rows),
            (order_items, ITEM_COLUMNS, item_rows),
            (order_item_meta, META_COLUMNS, meta_rows),
            (order_notes, NOTE_COLUMNS, note_rows),
            (order_refunds, REFUND_COLUMNS, refund_rows),
            (refund_items, REFUND_ITEM_COLUMNS, refund_item_rows),
        ]
        return Batch(tables, len(order_rows), (sold, counts))


# --------------------------------------------------------------------------------------------
# Running the phases
# --------------------------------------------------------------------------------------------


def _insert(engine: Engine, batch: Batch) -> None:
    """One batch in one transaction."""
    with write_transaction(engine) as conn:
        for table, columns, rows in batch.tables:
            sql.insert_rows(conn, table, columns, rows)


def _prefetch(items: Iterator[T], depth: int = 2) -> Iterator[T]:
    """``items``, made by a thread that runs up to ``depth`` ahead (what it raises is raised
    here)."""
    channel: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                while not stop.is_set():
                    try:
                        channel.put((True, item), timeout=0.2)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            channel.put((False, None))
        except BaseException as exc:  # handed to the consumer
            channel.put((False, exc))

    worker = threading.Thread(target=produce, name="seed-generator", daemon=True)
    worker.start()
    try:
        while True:
            more, value = channel.get()
            if not more:
                if value is not None:
                    raise value
                return
            yield value
    finally:
        stop.set()
        while worker.is_alive():
            with contextlib.suppress(queue.Empty):
                channel.get(timeout=0.1)
        worker.join()


#: The worker process's engine, id reserver and phase (set by ``_start_worker``).
_WORKER: tuple[Engine, sql.IdReserver, Phase] | None = None


def _start_worker(url: str, lock_timeout: float, phase: Phase) -> None:
    global _WORKER
    engine = make_engine(url, lock_timeout=lock_timeout)
    Finalize(None, engine.dispose, exitpriority=10)  # close the connections on exit
    _WORKER = (engine, sql.IdReserver(engine), phase)


def _work(task: tuple[int, Sequence[int]]) -> tuple[int, int, Any]:
    """Make and write one batch in a worker process: ``(index, size, result)``."""
    assert _WORKER is not None
    engine, reserver, phase = _WORKER
    index, ids = task
    batch = phase.batch(index, reserver, ids)
    _insert(engine, batch)
    return index, batch.size, batch.result


def _run_phase(
    engine: Engine, settings: Settings, phase: Phase, bar: tqdm[Any], jobs: int
) -> list[Any]:
    """Make and write every batch of ``phase``; the batches' results in batch order.

    The ids of the ``leading`` table are reserved here, batch after batch, so that they follow
    the batches' order (orders' ids grow with their ``created_at``) whoever writes them."""
    reserver = sql.IdReserver(engine)
    count = _batch_count(phase)

    def tasks() -> Iterator[tuple[int, Sequence[int]]]:
        for index in range(count):
            size = min(phase.size, phase.total - index * phase.size)
            yield index, reserver.reserve(phase.leading, size)

    if jobs <= 1 or count < 2 * jobs:
        results = []
        for batch in _prefetch(phase.batch(i, reserver, ids) for i, ids in tasks()):
            _insert(engine, batch)
            bar.update(batch.size)
            results.append(batch.result)
        return results
    found: dict[int, Any] = {}
    context = _process_context()
    initargs = (settings.database_url, settings.db_lock_timeout, phase)
    with context.Pool(jobs, initializer=_start_worker, initargs=initargs) as pool:
        for index, size, result in pool.imap_unordered(_work, tasks()):
            bar.update(size)
            found[index] = result
        pool.close()
        pool.join()
    return [found[index] for index in range(count)]


def _process_context() -> multiprocessing.context.BaseContext:
    """Worker processes forked from a fork server that has imported this module (quick to
    start, and never a copy of a process holding connections or threads); spawned where there
    is no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def _bar(options: SeedOptions, total: int, label: str) -> tqdm[Any]:
    return tqdm(
        total=total,
        desc=f"{label:<9}",
        unit=f" {label}",
        unit_scale=total >= 10_000,
        file=sys.stderr,
        disable=not options.progress or total == 0,
        dynamic_ncols=True,
    )


def _run_tag(engine: Engine) -> str:
    """``s<N>`` for the first N that no SKU, slug or login carries yet."""
    with engine.connect() as conn:
        number = 1
        while sql.tag_in_use(conn, f"s{number}"):
            number += 1
    return f"s{number}"


def run(
    engine: Engine, settings: Settings, options: SeedOptions, now: dt.datetime | None = None
) -> dict[str, Any]:
    """Seed the database; what was created, and the seconds it took."""
    started = time.perf_counter()
    for name in ("products", "customers", "orders"):
        if getattr(options, name) < 0:
            raise SeedError(f"--{name} must not be negative")
    if options.jobs is not None and options.jobs < 1:
        raise SeedError("--jobs must be at least 1")
    now = now or utc_now()
    postgres = engine.dialect.name == "postgresql"
    # SQLite writes one transaction at a time: its batches are made by one thread meanwhile
    jobs = (options.jobs or min(os.cpu_count() or 1, 4)) if postgres else 1
    existing: list[Sellable] = []
    if options.orders and not options.products:  # orders only: they sell what is there
        existing = _existing_sellables(engine)
        if not existing:
            raise SeedError("there is no published product with a price to sell: add --products")
    tag = _run_tag(engine)
    key = f"shopsvc-seed:{options.seed_value}:{tag}"
    catalogue = _setup_catalogue(engine)
    counts = Counts()

    customers: list[Customer] = []
    if options.customers:
        phase = CustomerPhase(f"{key}:customers", tag, now, options.customers, CUSTOMER_BATCH)
        with _bar(options, options.customers, "customers") as bar:
            for made in _run_phase(engine, settings, phase, bar, jobs):
                customers.extend(made)
        counts.customers = len(customers)

    sellables: list[Sellable] = []
    if options.products:
        files = _image_files(settings, options.products <= SMALL_RUN)
        products_phase = ProductPhase(
            f"{key}:products",
            tag,
            now,
            options.products,
            catalogue,
            files,
            settings.out_of_stock_threshold,
            settings.manage_stock,
            PRODUCT_BATCH,
        )
        with _bar(options, options.products, "products") as bar:
            for made, variations, media_rows in _run_phase(
                engine, settings, products_phase, bar, jobs
            ):
                sellables.extend(made)
                counts.variations += variations
                counts.media += media_rows
        counts.products = options.products

    if options.orders:
        dated = bool(customers)
        sellables = sellables or existing
        customers = customers or _existing_customers(engine)
        taxes = Taxes(list(catalogue.rates), settings, catalogue.class_slugs)
        orders_phase = OrderPhase(
            f"{key}:orders",
            now,
            options.orders,
            sellables,
            customers,
            taxes,
            settings.currency,
            settings.prices_include_tax,
            dated=dated,
            size=ORDER_BATCH if postgres else SQLITE_ORDER_BATCH,
        )
        sold: Counter[int] = Counter()
        with _bar(options, options.orders, "orders") as bar:
            for units, made_counts in _run_phase(engine, settings, orders_phase, bar, jobs):
                sold.update(units)
                counts.add(made_counts)
        with write_transaction(engine) as conn:
            sql.add_total_sales(conn, dict(sold))
    if postgres and options.orders + options.products >= 10_000:
        # fresh planner statistics and visibility map for what was added
        with engine.connect() as conn:
            sql.vacuum_analyze(conn.execution_options(isolation_level="AUTOCOMMIT"), ANALYZED)
    return {
        "tag": tag,
        "seed_value": options.seed_value,
        **{name: getattr(counts, name) for name in Counts.__dataclass_fields__},
        "seconds": round(time.perf_counter() - started, 1),
    }


#: Every table: a run writes to most of them (the gallery, the attributes and their terms, the
#: variations' values, the refunds' items, the order counts…), and a table left without
#: statistics gets plans for a table of unknown size -- the gallery once had the product list's
#: media read in full (50 ms a page of ten on the million-order database).
ANALYZED = tuple(metadata.sorted_tables)


def _existing_sellables(engine: Engine) -> list[Sellable]:
    with engine.connect() as conn:
        rows = sql.existing_sellables(conn, EXISTING_LIMIT)
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


def _existing_customers(engine: Engine) -> list[Customer]:
    with engine.connect() as conn:
        rows = sql.existing_customers(conn, EXISTING_LIMIT)
    return [
        Customer(row["id"], row["created_at"], row["billing"], row["shipping"], row["email"])
        for row in rows
    ]
