"""The words, places and weights the demo data is drawn from: the catalogue's sections (each
with its categories, nouns, materials, prices, weights and variations), names, streets and
places, the tax rates of a store without any, the order statuses and how often each appears,
payments, notes and refund reasons; and the small helpers that pick from them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from shopsvc.cli.demo.money import MICRO
from shopsvc.domain import catalog

T = TypeVar("T")

#: The orders and customers of a run spread over the last two years; the catalogue's products
#: were added over the half year before.
SPAN = dt.timedelta(days=730)
CATALOGUE_SPAN = dt.timedelta(days=180)


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
    """A city customers live in, with the start of its phone numbers."""

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


def pick(rnd: Any, values: Sequence[T]) -> T:
    """One of ``values``, by ``rnd()`` (a ``random.Random.random``)."""
    return values[int(rnd() * len(values))]


def make_slug(text: str) -> str:
    """A slug of a name (``domain.catalog``'s rule), ``item`` when nothing is left of it."""
    return catalog.slugify_name(text) or "item"


_ASCII = str.maketrans("éèêëàâäôöüûùîïçßÉ", "eeeeaaaoouuuiicsE")


def ascii_name(text: str) -> str:
    """A name as the local part of an email address."""
    return "".join(c for c in text.translate(_ASCII) if c.isalnum()).lower()
