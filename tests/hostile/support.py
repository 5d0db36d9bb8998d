"""Everything the hostile-input suite (``tests/test_hostile.py``) is built from, in one place.

* :class:`Raw` and :func:`encode` write request bodies that ``json.dumps`` cannot: numbers that
  overflow to infinity (``1e309``) or have more digits than Python prints (5000), nesting deeper
  than Python's recursion limit, lone surrogates as ``\\ud800`` escapes.
* Value pools and strategies: hostile values of every JSON type, plausible values per kind of
  field, and records (envelopes) built from each family's real write fields — mostly plausible,
  with one field (chosen evenly) and up to two more fields or unknown keys made hostile, so
  requests get past the first check and into the deeper ones. Integer and amount fields get
  values at and beyond the edges of their columns.
* :data:`FAMILIES`: every write route of every family, with its envelope and field list (read off
  ``shopsvc/validation/*.py`` and ``shopsvc/views/*.py``).
* Query strings for the list and count routes, odd paths and methods.
* Bodies name the suite's records by placeholders (``"{order}"``, ``"<line>"`` for an object
  key) that :meth:`Harness.fill` replaces with their ids.
* :class:`Harness`: sends one request and checks the properties: no 5xx; a 4xx carries the error
  JSON with a ``shop_(api_)?…`` code; a request that failed (or a bulk request whose every element
  failed) changed no row of any table (:func:`snapshot`: every row of the data tables, the row
  count of the authentication tables).

No URL in the generated data can reach the network: image and delivery URLs are either not
``http(s)`` at all or name a private IP literal, and the suite's app refuses private targets
(``shopsvc.outbound.allow_private_targets = false``), so neither a download nor a webhook ping
ever opens a connection.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote

import sqlalchemy as sa
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from webtest import TestApp
from webtest.response import TestResponse

from shopsvc.sql.tables import metadata
from tests.helpers.api import ROOT

#: A code of the spec (``shop_…``) or of the API (``shop_api_…``), or one of the original's core
#: data-validation codes that the reference gives without a prefix (products.md §5; the spec's
#: "data validation failures … carry their own code"; docs/compat.md "Products").
DATA_LAYER_CODES = frozenset({"product_invalid_catalog_visibility", "product_invalid_tax_status"})
ERROR_CODE = re.compile(r"shop_(api_)?[a-z_]+|" + "|".join(sorted(DATA_LAYER_CODES)))


def hostile_settings(max_examples: int) -> settings:
    """The settings of every property test: deterministic (a fixed seed, no example database)
    and bounded in examples rather than in time. The fixtures are function-scoped on purpose:
    the database is reset per test, and the harness tracks what each example changed."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=False,
        report_multiple_bugs=False,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


# --- bodies


@dataclass(frozen=True)
class Raw:
    """JSON text spliced into a body as it is."""

    text: str


def encode(value: Any) -> str:
    """``value`` as JSON text; :class:`Raw` parts verbatim; strings ASCII-escaped (so a lone
    surrogate becomes ``\\ud800``)."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        items = (f"{json.dumps(str(key))}:{encode(item)}" for key, item in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(encode(item) for item in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("use Raw('1e309') for a number that overflows")
    return json.dumps(value)


def body_bytes(value: Any) -> bytes:
    """The request body: bytes as they are, anything else encoded as JSON."""
    if isinstance(value, bytes):
        return value
    return encode(value).encode("ascii")


def deep_array(depth: int) -> Raw:
    """``[[[…]]]``, ``depth`` levels."""
    return Raw("[" * depth + "]" * depth)


def deep_object(depth: int) -> Raw:
    """``{"a":{"a":…1}}``, ``depth`` levels."""
    return Raw('{"a":' * depth + "1" + "}" * depth)


#: More digits than Python converts (4300): only :class:`Raw` can send such a JSON number.
HUGE_DIGITS = 5000
#: Depths at and around the JSON nesting limit, and far beyond Python's recursion limit.
DEPTHS = (3, 32, 63, 64, 65, 200, 400, 1200, 5000)

# --- value pools

BIG_INTS = (
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    10**20,
    -(10**20),
    10**400 - 1,
    -(10**400 - 1),
    10**4300 - 1,
)
FLOATS = (1e308, -1e308, 1.7976931348623157e308, 5e-324, -0.0, 0.5, 1e16, 2.5e-7, 123.456)
RAW_NUMBERS = (
    Raw("1e309"),
    Raw("-1e309"),
    Raw("1E+400"),
    Raw("-0"),
    Raw("0.00000000000000000000000001"),
    Raw("1" + "0" * 400 + ".0"),
    Raw("9" * HUGE_DIGITS),
    Raw("-" + "9" * HUGE_DIGITS),
)
NUMERIC_STRINGS = (
    "9" * 19,
    "9" * 20,
    "-" + "9" * 40,
    "9" * 400,
    "-" + "9" * 400,
    "9" * HUGE_DIGITS,
    "0" * HUGE_DIGITS + "1",
    " 12 ",
    "+7",
    "-7",
    "007",
    "1e309",
    "-1e309",
    "1e308",
    "-1e308",
    "1E-400",
    "999999999999.9999995",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "sNaN",
    "0x1F",
    "1_000",
    "12abc",
    "1.5",
    "1,5",
    "１２",
    "٣",
    "²",
)
STRINGS = (
    "",
    " ",
    "\t\n",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "\udbff\udfff",
    "x" * 10_000,
    "é" * 10_000,
    "😀" * 2_000,
    "a" * 201,
    "a" * 28,
    "<script>alert(1)</script>",
    "<p>a</p>" * 500,
    "' OR 1=1 --",
    "Robert'); DROP TABLE products;--",
    "%00",
    "%ff%fe",
    "../../etc/passwd",
    "\u202e\u200b\ufeff",
    "true",
    "yes",
    "null",
    "[]",
    "{}",
    "a;b;;*;…;1...9",
    "-",
    "pa_",
    "standard",
    "default",
)
CONTAINERS: tuple[Any, ...] = (
    [],
    {},
    [1, "x", None],
    {"a": 1},
    {"id": 1},
    [[[]]],
    {"": {"": []}},
    [{"id": 10**400 - 1}],
    {"\ud800": "\x00"},
    *(deep_array(depth) for depth in DEPTHS),
    *(deep_object(depth) for depth in DEPTHS),
)

text_with_surrogates = st.text(st.characters(exclude_categories=()), max_size=12)

hostile_scalars: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(BIG_INTS),
    st.integers(),
    st.sampled_from(FLOATS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(RAW_NUMBERS),
    st.sampled_from(NUMERIC_STRINGS),
    st.sampled_from(STRINGS),
    text_with_surrogates,
)

hostile_values: st.SearchStrategy[Any] = st.one_of(
    hostile_scalars,
    hostile_scalars,
    st.sampled_from(CONTAINERS),
    st.lists(hostile_scalars, max_size=3),
    st.dictionaries(st.text(max_size=6), hostile_scalars, max_size=3),
)

#: Bodies that are not JSON at all, or not an object.
RAW_BODIES = (
    b"",
    b"   \n",
    b"{",
    b"{bad",
    b'{"a":}',
    b"\xff\xfe{}",
    b"\xef\xbb\xbf{}",
    b"\x00",
    b"null",
    b"[]",
    b'"x"',
    b"1e309",
    b'{"a": NaN}',
    b'{"a": Infinity}',
    b'{"a": 1} trailing',
    b'{"a": "\\ud800"}',
    b'{"a": "\\x"}',
)


def unknown_keys() -> st.SearchStrategy[str]:
    """Keys no family reads (and some that look like they might)."""
    return st.one_of(
        st.sampled_from(["", "id", "__proto__", "constructor", "\x00", "\ud800", "x" * 1000]),
        text_with_surrogates,
    )


# --- plausible values by kind


def choice(*values: Any) -> st.SearchStrategy[Any]:
    """One of ``values``."""
    return st.sampled_from(values)


NAME = st.one_of(
    choice("Hostile", "Red", "a b", "Ünïcødé", "Size 10"), st.text(min_size=1, max_size=12)
)
TEXT = st.one_of(NAME, choice("", "<b>bold</b>\n\nnext"))
SLUG = choice("hostile", "red-2", "", "Ünï Slug")
SMALL_INT = st.one_of(st.integers(-3, 40), choice("3", " 4 ", "+5"))
BOOL = choice(True, False, "yes", "no", "1", "0", 1, 0, "TRUE")
AMOUNT = choice("10", "9.99", 5, 0, "", "0.000001", 12.5, " 7 ")
DATE = choice("2030-01-01", "2030-01-01T10:00:00Z", "2020-02-29 10:00:00+02:00", "")
#: Private IP literals (never fetched: the suite's app refuses private targets) and other
#: schemes: no generated URL reaches the network.
URL = choice(
    "http://127.0.0.1:9/hook",
    "https://10.0.0.1/x.png",
    "http://[::1]:9/image.png",
    "ftp://127.0.0.1/x.png",
    "file:///etc/passwd",
    "data:image/png;base64,iVBORw0KGgo=",
    "javascript:alert(1)",
    "http://",
)


@dataclass(frozen=True)
class Shape:
    """The write fields of one kind of object: a plausible value strategy per field."""

    fields: Mapping[str, st.SearchStrategy[Any]]
    required: Mapping[str, st.SearchStrategy[Any]] | None = None


#: Fields stored in INTEGER columns, and amounts stored in NUMERIC ones: their hostile values
#: lean towards the edges of those columns.
INTEGER_FIELDS = frozenset(
    {
        "id",
        "parent",
        "parent_id",
        "menu_order",
        "image",
        "priority",
        "order",
        "position",
        "stock_quantity",
        "inventory_delta",
        "download_limit",
        "download_expiry",
        "customer_id",
        "product_id",
        "quantity",
        "qty",
    }
)
AMOUNT_FIELDS = frozenset(
    {
        "regular_price",
        "sale_price",
        "weight",
        "length",
        "width",
        "height",
        "rate",
        "subtotal",
        "subtotal_tax",
        "total",
        "total_tax",
        "amount",
        "refund_total",
    }
)
AMOUNT_EDGES = (
    "999999999999.999999",
    "999999999999.9999995",
    "999999999999.9999994999",
    "1000000000000",
    "99999999.9999",
    "99999999.99995",
    "100000000",
    "0.0000005",
    "-0.0000001",
    "-0",
    "1e3",
    "1E-7",
    ".5",
    "5.",
    "1,5",
    "0." + "0" * 5000 + "1",
    "9" * 400,
    999999999999.9999,
    1e12,
    1e-7,
)


def hostile_for(name: str) -> st.SearchStrategy[Any]:
    """Hostile values for the field ``name``."""
    if name in INTEGER_FIELDS:
        return st.one_of(
            hostile_values, beyond_column(), beyond_column(), st.sampled_from(BIG_INTS)
        )
    if name in AMOUNT_FIELDS:
        return st.one_of(hostile_values, st.sampled_from(AMOUNT_EDGES))
    return hostile_values


@st.composite
def records(
    draw: st.DrawFn, shape: Shape, hostile: int = 2, nested: bool = False
) -> dict[str, Any]:
    """An object of ``shape``: its required fields and some others plausible, then one field
    chosen evenly among all of them given a hostile value (for a ``nested`` element, only
    sometimes: the array around it may be what is hostile), and up to ``hostile`` more fields
    (or unknown keys) too."""
    record: dict[str, Any] = {}
    for name, strategy in (shape.required or {}).items():
        record[name] = draw(strategy)
    names = sorted(shape.fields)
    if names:
        for name in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
            record[name] = draw(shape.fields[name])
    every = [*names, *(shape.required or {})]
    if not nested or draw(st.booleans()):
        focus = draw(st.sampled_from(every))
        record[focus] = draw(hostile_for(focus))
    targets = st.one_of(st.sampled_from(every), unknown_keys())
    for name in draw(st.lists(targets, max_size=hostile, unique=True)):
        record[name] = draw(hostile_for(name))
    return record


def record_lists(shape: Shape, max_size: int = 2) -> st.SearchStrategy[Any]:
    """An array of nested elements of ``shape`` (``images``, ``attributes``, …), or a hostile
    value instead of the array."""
    elements = records(shape, hostile=1, nested=True)
    return st.one_of(st.lists(elements, max_size=max_size), hostile_values)


# --- the families' write fields

IMAGE = Shape(
    {
        "id": choice(0, "", "0", 1, "1"),
        "src": URL,
        "position": choice(0, 1, "0", ""),
        "alt": TEXT,
        "title": TEXT,
    }
)
PRODUCT_ATTRIBUTE = Shape(
    {
        "slug": choice("pa_color", "color", "", "size"),
        "position": SMALL_INT,
        "visible": BOOL,
        "variation": BOOL,
        "options": st.one_of(
            choice(["Red", "Blue"], "Red | Blue", ["1", 2]), st.lists(NAME, max_size=2)
        ),
    },
    required={"name": choice("Color", "Size", "color", "", "pa_color")},
)
OPTION = Shape(
    {"slug": choice("pa_color", "color", "size"), "option": choice("red", "Red", "blue", "")},
    required={"name": choice("Color", "color", "Size")},
)
DOWNLOAD = Shape(
    {
        "id": choice("", "key-1", 5),
        "name": TEXT,
        "file": choice("https://10.0.0.1/file.zip", "file.zip", ""),
        "url": choice("https://10.0.0.1/other.zip", ""),
    }
)
DIMENSIONS = Shape({"length": AMOUNT, "width": AMOUNT, "height": AMOUNT})
ID_LIST = st.one_of(st.lists(SMALL_INT, max_size=3), choice([1, 2], ["1"], [0, -1]))

STOCK_AND_PRICE_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "sku": st.one_of(choice("", "SKU-1", "sku-1", "SKU-2"), NAME),
    "virtual": BOOL,
    "downloadable": BOOL,
    "managing_stock": BOOL,
    "in_stock": BOOL,
    "backorders": choice("no", "notify", "yes", True, False),
    "stock_quantity": SMALL_INT,
    "inventory_delta": SMALL_INT,
    "regular_price": AMOUNT,
    "sale_price": AMOUNT,
    "weight": AMOUNT,
    "sale_price_dates_from": DATE,
    "sale_price_dates_to": DATE,
    "download_limit": st.one_of(SMALL_INT, choice("", -1)),
    "download_expiry": st.one_of(SMALL_INT, choice("", -1)),
    "tax_class": choice("", "standard", "reduced-rate", "parent", "Reduced Rate"),
    "shipping_class": choice("", "heavy", "none"),
    "description": TEXT,
    "dimensions": records(DIMENSIONS, hostile=1, nested=True),
    "downloads": record_lists(DOWNLOAD),
}
VARIATION = Shape(
    {
        **STOCK_AND_PRICE_FIELDS,
        "visible": BOOL,
        "image": st.one_of(
            st.lists(records(IMAGE, hostile=1, nested=True), max_size=1), choice("", None)
        ),
        "attributes": record_lists(OPTION),
    }
)
PRODUCT = Shape(
    {
        **STOCK_AND_PRICE_FIELDS,
        "name": SLUG,
        "status": choice("publish", "draft", "pending", "private", "trash", "PUBLISH"),
        "short_description": TEXT,
        "enable_html_description": BOOL,
        "enable_html_short_description": BOOL,
        "catalog_visibility": choice("visible", "catalog", "search", "hidden"),
        "tax_status": choice("taxable", "shipping", "none", ""),
        "purchase_note": TEXT,
        "product_url": choice("https://10.0.0.1/p", ""),
        "button_text": TEXT,
        "featured": BOOL,
        "sold_individually": BOOL,
        "reviews_allowed": BOOL,
        "menu_order": SMALL_INT,
        "parent_id": choice(0, 1, 2, "3"),
        "images": record_lists(IMAGE),
        "attributes": record_lists(PRODUCT_ATTRIBUTE),
        "default_attributes": record_lists(OPTION),
        "default_attribute": record_lists(OPTION),
        "upsell_ids": ID_LIST,
        "cross_sell_ids": ID_LIST,
        "categories": ID_LIST,
        "tags": ID_LIST,
        "variations": record_lists(VARIATION),
    },
    required={
        "title": NAME,
        "type": choice("simple", "variable", "external", "grouped"),
    },
)
#: Variations are read only on variable products.
VARIABLE_PRODUCT = Shape(
    PRODUCT.fields,
    required={
        "title": NAME,
        "type": choice("variable"),
        "variations": st.lists(records(VARIATION, hostile=1, nested=True), min_size=1, max_size=2),
    },
)
BULK_PRODUCT = Shape(
    {**PRODUCT.fields, "id": choice(0, "", 1, 2, 3, "4")},
    required=PRODUCT.required,
)
WEBHOOK = Shape(
    {"name": TEXT, "secret": TEXT, "status": choice("active", "paused", "disabled", "ACTIVE")},
    required={
        "topic": choice("order.created", "product.updated", "action.shop_test", "Coupon.Deleted"),
        "delivery_url": URL,
    },
)
TAX = Shape(
    {
        "country": choice("GB", "us", "*", ""),
        "state": choice("CA", "*", ""),
        "rate": choice("20.0000", "5", 0, "", 7.25),
        "name": TEXT,
        "priority": SMALL_INT,
        "compound": BOOL,
        "shipping": BOOL,
        "order": SMALL_INT,
        "class": choice("", "standard", "reduced-rate", "Reduced Rate"),
        "postcode": choice("AB1;CD*;1000...2000", ["SW1A 1AA", "*"], ""),
        "city": choice("London; Paris", ["Berlin"], ""),
    }
)
BULK_TAX = Shape({**TAX.fields, "id": choice(0, "", 1, "1", 2)})
TAX_CLASS = Shape({}, required={"name": st.one_of(NAME, choice("Standard rate", "standard"))})
CATEGORY = Shape(
    {
        "slug": SLUG,
        "description": TEXT,
        "parent": choice(0, 1, "1", 2),
        "display": choice("default", "products", "subcategories", "both", ""),
        "image": st.one_of(choice(0, "", "0", 1, "1.0"), URL),
    },
    required={"name": NAME},
)
TAG = Shape({"slug": SLUG, "description": TEXT}, required={"name": NAME})
SHIPPING_CLASS = Shape(
    {"slug": SLUG, "description": TEXT, "parent": choice(0, 1, "1")}, required={"name": NAME}
)
ATTRIBUTE = Shape(
    {
        "slug": choice("color", "pa_size", "", "a" * 27, "type"),
        "type": choice("select", "text", "SELECT"),
        "order_by": choice("menu_order", "name", "name_num", "id"),
        "has_archives": BOOL,
    },
    required={"name": NAME},
)
TERM = Shape({"slug": SLUG, "menu_order": SMALL_INT}, required={"name": NAME})


# --- orders: records of the suite's world are named by placeholders the harness fills in


def ref(name: str) -> str:
    """The id of the suite's record ``name`` as a JSON number (``"{line}"`` → ``12``)."""
    return "{" + name + "}"


def key_ref(name: str) -> str:
    """The id of the suite's record ``name`` as a JSON string, for object keys (``"<line>"`` →
    ``"12"``)."""
    return "<" + name + ">"


#: Amounts of order items: plausible ones, and ones near the top of the columns (several of
#: them add up to more than an order total holds).
ORDER_AMOUNT = st.one_of(AMOUNT, choice("999999999999", "600000000000.5", 999999999999.99))
QUANTITY = choice(1, 2, 1, 3.0, 0, -1, 1.5, "2", 100000, 2147483647)
#: An item id of the order: each of its four kinds (an edit of one array naming an item of
#: another is refused), none, or one that does not exist.
ITEM_ID = choice(
    ref("line"), ref("shipping_line"), ref("fee_line"), ref("coupon_line"), 0, "", 999999, "1"
)
PRODUCT_ID = choice(ref("product"), ref("variable"), ref("variation"), 0, 999999, "1", -1)
ORDER_STATUS = choice(
    "pending",
    "processing",
    "on-hold",
    "completed",
    "cancelled",
    "refunded",
    "failed",
    "trash",
    "wc-pending",
    "Processing",
    "shipped",
    "",
)
VARIATIONS = st.one_of(
    choice(
        {"color": "red"},
        {"pa_color": "Red"},
        {"attribute_pa_color": "red"},
        {"": "x"},
        {"color": ""},
        {},
    ),
    st.dictionaries(choice("color", "pa_color", "size", ""), st.one_of(TEXT, hostile_scalars)),
)
LINE_ITEM = Shape(
    {
        "id": ITEM_ID,
        "sku": choice("SKU-1", "sku-1", "", "nope"),
        "variations": VARIATIONS,
        "subtotal": ORDER_AMOUNT,
        "subtotal_tax": ORDER_AMOUNT,
        "total": ORDER_AMOUNT,
        "total_tax": ORDER_AMOUNT,
    },
    required={"product_id": PRODUCT_ID, "quantity": QUANTITY},
)
SHIPPING_LINE = Shape(
    {"id": ITEM_ID, "method_title": TEXT, "total": ORDER_AMOUNT},
    required={"method_id": choice("flat_rate", "free_shipping", "")},
)
FEE_LINE = Shape(
    {
        "id": ITEM_ID,
        "taxable": BOOL,
        "tax_class": choice("", "standard", "reduced-rate", "Reduced Rate", "nope"),
        "total": ORDER_AMOUNT,
        "total_tax": ORDER_AMOUNT,
    },
    required={"title": choice("Gift wrap", "", "Fee")},
)
COUPON_LINE = Shape({"id": ITEM_ID}, required={"code": choice("SAVE5", ""), "amount": ORDER_AMOUNT})
ORDER_ADDRESS = Shape(
    {
        "first_name": NAME,
        "last_name": NAME,
        "company": TEXT,
        "address_1": TEXT,
        "address_2": TEXT,
        "city": choice("London", "", "Köln"),
        "state": choice("CA", "", "LND"),
        "postcode": choice("SW1A 1AA", "90210", ""),
        "country": choice("GB", "US", "", "XX", "gb"),
        "email": choice("jane@example.com", "", "not-an-email"),
        "phone": choice("+44 20 7946 0000", ""),
    }
)
PAYMENT = Shape(
    {
        "method_id": choice("bacs", "cod", ""),
        "method_title": choice("Direct Bank Transfer", ""),
        "paid": st.one_of(BOOL, st.just(True)),
        "transaction_id": choice("tx-1", "", "x" * 300),
    }
)
ORDER_META = st.one_of(
    choice({"gift": "yes"}, {"_hidden": "x"}, {"n": 5, "b": True, "o": {"x": 1}}),
    st.dictionaries(choice("gift", "_hidden", "a b", "", "ref"), st.one_of(TEXT, hostile_scalars)),
)
ORDER_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "status": ORDER_STATUS,
    "status_note": TEXT,
    "customer_id": choice(0, "", ref("user"), "1", 999999),
    "note": TEXT,
    "currency": choice("USD", "GBP", "gbp", "XXX", "", "EUR"),
    "billing_address": records(ORDER_ADDRESS, hostile=1, nested=True),
    "shipping_address": records(ORDER_ADDRESS, hostile=1, nested=True),
    "payment_details": records(PAYMENT, hostile=1, nested=True),
    "order_meta": ORDER_META,
    "line_items": record_lists(LINE_ITEM),
    "shipping_lines": record_lists(SHIPPING_LINE),
    "fee_lines": record_lists(FEE_LINE),
    "coupon_lines": record_lists(COUPON_LINE),
}
#: Creates always carry line items (the deepest path: products, variations, totals, taxes).
ORDER = Shape(
    ORDER_FIELDS,
    required={"line_items": st.lists(records(LINE_ITEM, hostile=1, nested=True), max_size=2)},
)
ORDER_EDIT = Shape(ORDER_FIELDS)
#: A bulk element: a non-zero ``id`` edits that order, anything else creates.
BULK_ORDER = Shape({**ORDER_FIELDS, "id": choice(0, "", ref("order"), "1", 999999, -1)})


def gentle(shape: Shape) -> st.SearchStrategy[dict[str, Any]]:
    """A nested element of ``shape`` with at most one hostile field (half the time)."""
    return records(shape, hostile=0, nested=True)


#: The deep variants (see :attr:`Route.deep`): arrays are arrays, objects are objects.
DEEP_ORDER_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    **ORDER_FIELDS,
    "billing_address": gentle(ORDER_ADDRESS),
    "shipping_address": gentle(ORDER_ADDRESS),
    "payment_details": gentle(PAYMENT),
    "line_items": st.lists(gentle(LINE_ITEM), max_size=2),
    "shipping_lines": st.lists(gentle(SHIPPING_LINE), max_size=2),
    "fee_lines": st.lists(gentle(FEE_LINE), max_size=2),
    "coupon_lines": st.lists(gentle(COUPON_LINE), max_size=2),
}
DEEP_ORDER = Shape(DEEP_ORDER_FIELDS, required={"line_items": DEEP_ORDER_FIELDS["line_items"]})
DEEP_ORDER_EDIT = Shape(DEEP_ORDER_FIELDS)
DEEP_BULK_ORDER = Shape({**DEEP_ORDER_FIELDS, "id": BULK_ORDER.fields["id"]})
ORDER_NOTE = Shape({"customer_note": BOOL}, required={"note": TEXT})
REFUND_LINE = Shape(
    {
        "qty": choice(1, 0, "1", 2, -1),
        "refund_total": ORDER_AMOUNT,
        "refund_tax": st.one_of(
            st.dictionaries(choice("1", ref("tax"), "x"), ORDER_AMOUNT, max_size=2),
            choice([], None),
        ),
    }
)
REFUND_LINE_ITEMS = st.one_of(
    st.dictionaries(
        choice(key_ref("line"), key_ref("shipping_line"), key_ref("fee_line"), "999", "abc"),
        records(REFUND_LINE, hostile=1, nested=True),
        max_size=2,
    ),
    choice([], None),
    hostile_values,
)
ORDER_REFUND = Shape(
    {"reason": TEXT, "line_items": REFUND_LINE_ITEMS, "restock_items": BOOL},
    required={"amount": choice("1", "0.5", 1, "0.01", "0", -1, "", 0.25)},
)
DEEP_REFUND = Shape(
    {
        **ORDER_REFUND.fields,
        "line_items": st.dictionaries(
            choice(key_ref("line"), key_ref("shipping_line"), key_ref("fee_line"), "999"),
            gentle(REFUND_LINE),
            max_size=2,
        ),
    },
    required=ORDER_REFUND.required,
)


@dataclass(frozen=True)
class Route:
    """A write route: methods, a path template (``{category}`` … are ids of the suite's
    records, see ``tests/test_hostile.py``) and its envelope; ``bulk`` routes take an array."""

    methods: tuple[str, ...]
    path: str
    envelope: str
    shape: Shape
    bulk: bool = False
    #: When given, half the records are drawn from this shape instead, with no hostile field
    #: but the one chosen only sometimes (as for a nested element), so that more requests pass
    #: the shape checks and reach the writer's rules.
    deep: Shape | None = None


CREATE = ("POST",)
EDIT = ("PUT", "PATCH", "POST")
BULK = ("POST", "PUT", "PATCH")

FAMILIES: dict[str, tuple[Route, ...]] = {
    "webhooks": (
        Route(CREATE, "/webhooks", "webhook", WEBHOOK),
        Route(EDIT, "/webhooks/{webhook}", "webhook", WEBHOOK),
    ),
    "taxes": (
        Route(CREATE, "/taxes", "tax", TAX),
        Route(EDIT, "/taxes/{tax}", "tax", TAX),
        Route(BULK, "/taxes/bulk", "taxes", BULK_TAX, bulk=True),
    ),
    "tax_classes": (Route(CREATE, "/taxes/classes", "tax_class", TAX_CLASS),),
    "categories": (
        Route(CREATE, "/products/categories", "product_category", CATEGORY),
        Route(EDIT, "/products/categories/{category}", "product_category", CATEGORY),
    ),
    "tags": (
        Route(CREATE, "/products/tags", "product_tag", TAG),
        Route(EDIT, "/products/tags/{tag}", "product_tag", TAG),
    ),
    "shipping_classes": (
        Route(CREATE, "/products/shipping_classes", "product_shipping_class", SHIPPING_CLASS),
        Route(
            EDIT,
            "/products/shipping_classes/{shipping_class}",
            "product_shipping_class",
            SHIPPING_CLASS,
        ),
    ),
    "attributes": (
        Route(CREATE, "/products/attributes", "product_attribute", ATTRIBUTE),
        Route(EDIT, "/products/attributes/{attribute}", "product_attribute", ATTRIBUTE),
    ),
    "attribute_terms": (
        Route(CREATE, "/products/attributes/{attribute}/terms", "product_attribute_term", TERM),
        Route(
            EDIT,
            "/products/attributes/{attribute}/terms/{term}",
            "product_attribute_term",
            TERM,
        ),
    ),
    "products": (
        Route(CREATE, "/products", "product", PRODUCT),
        Route(EDIT, "/products/{product}", "product", PRODUCT),
        Route(EDIT, "/products/{variable}", "product", PRODUCT),
    ),
    "variations": (
        Route(CREATE, "/products", "product", VARIABLE_PRODUCT),
        Route(EDIT, "/products/{variable}", "product", VARIABLE_PRODUCT),
        Route(EDIT, "/products/{variation}", "product", VARIATION),
    ),
    "products_bulk": (Route(BULK, "/products/bulk", "products", BULK_PRODUCT, bulk=True),),
    "orders": (
        Route(CREATE, "/orders", "order", ORDER, deep=DEEP_ORDER),
        Route(EDIT, "/orders/{order}", "order", ORDER_EDIT, deep=DEEP_ORDER_EDIT),
    ),
    "orders_bulk": (
        Route(BULK, "/orders/bulk", "orders", BULK_ORDER, bulk=True, deep=DEEP_BULK_ORDER),
    ),
    "order_notes": (
        Route(CREATE, "/orders/{order}/notes", "order_note", ORDER_NOTE),
        Route(EDIT, "/orders/{order}/notes/{note}", "order_note", ORDER_NOTE),
    ),
    "order_refunds": (
        Route(CREATE, "/orders/{order}/refunds", "order_refund", ORDER_REFUND, deep=DEEP_REFUND),
        Route(
            EDIT, "/orders/{order}/refunds/{refund}", "order_refund", ORDER_REFUND, deep=DEEP_REFUND
        ),
    ),
}


@dataclass(frozen=True)
class Case:
    method: str
    path: str  # a template: ``str.format`` it with the suite's record ids
    body: bytes
    bulk: bool = False


@st.composite
def write_cases(draw: st.DrawFn, family: str) -> Case:
    """One request to one of ``family``'s write routes: usually a record of plausible and
    hostile fields under the envelope; sometimes a hostile envelope or a body that is not
    JSON."""
    route = draw(st.sampled_from(FAMILIES[family]))
    method = draw(st.sampled_from(route.methods))
    element = records(route.shape)
    if route.deep is not None:
        element = st.one_of(element, records(route.deep, hostile=0, nested=True))
    payload = (
        st.lists(st.one_of(element, element, hostile_values), max_size=3) if route.bulk else element
    )
    body = draw(
        st.one_of(
            payload.map(lambda value: {route.envelope: value}),
            payload.map(lambda value: {route.envelope: value}),
            payload.map(lambda value: {route.envelope: value}),
            payload.map(lambda value: {route.envelope: value}),
            hostile_values.map(lambda value: {route.envelope: value}),
            st.dictionaries(unknown_keys(), hostile_values, max_size=2),
            st.sampled_from(RAW_BODIES),
        )
    )
    return Case(method, route.path, body_bytes(body), route.bulk)


# --- query strings


@dataclass(frozen=True)
class ListRoute:
    path: str
    params: Mapping[str, st.SearchStrategy[Any]]


DATE_TEXT = choice(
    "2024-01-01",
    "2024-01-01T10:00:00Z",
    "2024-01-01T10:00:00+02:00",
    "2024-01-01T10:00:00 02:00",
    "2024-01-01t10:00:00z",
)
COMMON_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    "page": choice("1", "2", "100?"),
    "filter[limit]": choice("5", "-1", "1", "0"),
    "filter[offset]": choice("0", "1", "3"),
    "filter[in]": choice("1,2", "1", ""),
    "filter[not_in]": choice("2", "1,3"),
    "filter[created_at_min]": DATE_TEXT,
    "filter[created_at_max]": DATE_TEXT,
    "filter[updated_at_min]": DATE_TEXT,
    "filter[updated_at_max]": DATE_TEXT,
    "filter[orderby]": choice("id", "ID", "date", "name", "title", "menu_order", "modified"),
    "filter[order]": choice("ASC", "desc", "Desc"),
    "filter[q]": choice("red", "a", ""),
    "filter[dp]": choice("2", "0", "4"),
    "fields": choice("id,name", "id", "images.src,attributes.name", "x.y.z", ""),
}
PRODUCT_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    **COMMON_PARAMS,
    "type": choice("simple", "variable", "simple,variable"),
    "filter[type]": choice("simple", "external"),
    "filter[post_status]": choice("any", "publish", "draft,private", "trash"),
    "filter[category]": choice("hostile", "red-2", "shirts?"),
    "filter[tag]": choice(
        "hostile",
    ),
    "filter[shipping_class]": choice(
        "heavy",
    ),
    "filter[pa_color]": choice("red", "red,blue"),
    "filter[pa_]": choice(
        "x",
    ),
    "filter[sku]": choice("SKU-1", "sku-1"),
    "filter[meta]": choice("true", "false"),
}
ORDER_RECORD_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    "filter[dp]": choice("2", "0", "4", "6", "20", "99", "3x"),
    "filter[expand]": choice("products", "taxes", "coupons", "products,taxes,coupons", "x,,"),
    "filter[all_item_meta]": choice("true", "false", "1"),
    "filter[meta]": choice("true", "false"),
    "fields": choice(
        "id,line_items.product_id",
        "line_items",
        "customer.billing_address.email",
        "id,order_meta,total",
        "line_items.product_data.id",
        "",
    ),
}
ORDER_STATUSES = choice(
    "any", "pending", "processing,completed", "trash", " pending, on-hold ,", "wc-pending", ","
)
ORDER_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    **COMMON_PARAMS,
    **ORDER_RECORD_PARAMS,
    "filter[orderby]": choice("id", "date", "modified", "title", "total"),
    "status": ORDER_STATUSES,
    "filter[status]": ORDER_STATUSES,
    "filter[customer_id]": choice("0", "1", "2", "999999"),
}
LIST_ROUTES: tuple[ListRoute, ...] = (
    ListRoute("/webhooks", {**COMMON_PARAMS, "status": choice("all", "active", "paused")}),
    ListRoute("/webhooks/count", {**COMMON_PARAMS, "status": choice("all", "disabled")}),
    ListRoute("/webhooks/{webhook}", {"fields": COMMON_PARAMS["fields"]}),
    ListRoute("/webhooks/{webhook}/deliveries", COMMON_PARAMS),
    ListRoute(
        "/taxes",
        {
            **COMMON_PARAMS,
            "class": choice("standard", "reduced-rate", ""),
            "filter[tax_rate_class]": choice(
                "reduced-rate",
            ),
        },
    ),
    ListRoute("/taxes/count", {**COMMON_PARAMS, "class": choice("standard", "reduced-rate")}),
    ListRoute("/taxes/{tax}", {"fields": COMMON_PARAMS["fields"]}),
    ListRoute("/taxes/classes", COMMON_PARAMS),
    ListRoute("/taxes/classes/count", COMMON_PARAMS),
    ListRoute("/products", PRODUCT_PARAMS),
    ListRoute("/products/count", PRODUCT_PARAMS),
    ListRoute(
        "/products/{product}",
        {
            "fields": COMMON_PARAMS["fields"],
            "filter[meta]": choice(
                "true",
            ),
        },
    ),
    ListRoute(
        "/products/{variable}", {"fields": choice("variations.id,variations.attributes", "id")}
    ),
    ListRoute("/products/{product}/reviews", COMMON_PARAMS),
    ListRoute("/products/{product}/orders", ORDER_PARAMS),
    ListRoute("/orders", ORDER_PARAMS),
    ListRoute("/orders/count", ORDER_PARAMS),
    ListRoute("/orders/statuses", {"fields": choice("pending", "x", "")}),
    ListRoute("/orders/{order}", ORDER_RECORD_PARAMS),
    ListRoute("/orders/{order}/notes", {**COMMON_PARAMS, "fields": choice("id,note", "")}),
    ListRoute("/orders/{order}/notes/{note}", {"fields": choice("id,customer_note", "x")}),
    ListRoute("/orders/{order}/refunds", {**COMMON_PARAMS, **ORDER_RECORD_PARAMS}),
    ListRoute("/orders/{order}/refunds/{refund}", ORDER_RECORD_PARAMS),
    ListRoute("/products/categories", COMMON_PARAMS),
    ListRoute("/products/categories/{category}", {"fields": COMMON_PARAMS["fields"]}),
    ListRoute("/products/tags", COMMON_PARAMS),
    ListRoute("/products/shipping_classes", COMMON_PARAMS),
    ListRoute("/products/attributes", COMMON_PARAMS),
    ListRoute("/products/attributes/{attribute}/terms", COMMON_PARAMS),
)
#: Query values: numbers of every length (5000 digits is more than Python converts), signs,
#: other scripts' digits, impossible dates and offsets, lists with holes, long text, NUL,
#: surrogates (sent as their UTF-8-like bytes) and bytes that are not UTF-8.
HOSTILE_QUERY_VALUES: tuple[str | bytes, ...] = (
    "",
    " ",
    "0",
    "00000",
    "-1",
    "-0",
    "+1",
    "-99999999999999999999",
    "2147483647",
    "2147483648",
    "9223372036854775808",
    "9" * 19,
    "9" * 20,
    "9" * 400,
    "9" * 4300,
    "9" * 4301,
    "9" * HUGE_DIGITS,
    "0" * HUGE_DIGITS + "7",
    "1e309",
    "NaN",
    "Infinity",
    "１２",
    "٣",
    "²",
    "1,,2,",
    ",",
    "1,a",
    "-1,2",
    "9" * 400 + ",1",
    ",".join(["1"] * 2000),
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00+23:59",
    "0000-00-00",
    "2024-02-30",
    "2024-13-01",
    "99999-01-01",
    "2024-01-01T25:00",
    "2024-01-01T10:00:00+99:99",
    "2024-01-01T10:00:00.1234567890123Z",
    "x" * 10_000,
    "\x00",
    "a\x00",
    "\ud800",
    "' OR 1=1 --",
    "id,id,id",
    "a." * 500,
    ".",
    "..",
    "ASC;DROP TABLE products",
    b"\xff",
    b"\xc0\xae",
    b"%",
)
EXTRA_QUERY_KEYS = (
    "filter[",
    "filter[]",
    "filter[[limit]]",
    "filter[limit",
    "FILTER[limit]",
    "_method",
    "_jsonp",
    "consumer_key",
    "consumer_secret",
    "oauth_signature",
    "force",
    "\x00",
    "\ud800",
)


def _quote(value: str | bytes, safe: str = "") -> str:
    raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return quote(raw, safe=safe)


def query_string(pairs: Sequence[tuple[str, str | bytes]]) -> str:
    return "&".join(f"{_quote(key, '[]')}={_quote(value)}" for key, value in pairs)


@st.composite
def list_cases(draw: st.DrawFn) -> tuple[str, str, str]:
    """``(method, path template, query string)`` for a list, count or single GET."""
    route = draw(st.sampled_from(LIST_ROUTES))
    keys = sorted(route.params)
    pairs: list[tuple[str, str | bytes]] = []
    for key in draw(st.lists(st.sampled_from(keys), max_size=3)):
        pairs.append((key, draw(route.params[key])))
    hostile_key = st.one_of(st.sampled_from(keys), st.sampled_from(EXTRA_QUERY_KEYS))
    for key in draw(st.lists(hostile_key, min_size=1, max_size=3)):
        value = draw(st.one_of(st.sampled_from(HOSTILE_QUERY_VALUES), text_with_surrogates))
        pairs.append((key, value))
    method = draw(choice("GET", "GET", "HEAD"))
    return method, route.path, query_string(draw(st.permutations(pairs)))


# --- paths and methods

ROUTE_PATTERNS = (
    "",
    "/",
    "/webhooks",
    "/webhooks/count",
    "/webhooks/{webhook}",
    "/webhooks/{webhook}/deliveries",
    "/webhooks/{webhook}/deliveries/1",
    "/taxes",
    "/taxes/count",
    "/taxes/bulk",
    "/taxes/{tax}",
    "/taxes/classes",
    "/taxes/classes/count",
    "/taxes/classes/reduced-rate",
    "/products",
    "/products/count",
    "/products/bulk",
    "/products/{product}",
    "/products/{variation}",
    "/products/{product}/reviews",
    "/products/{product}/orders",
    "/products/categories",
    "/products/categories/{category}",
    "/products/tags/{tag}",
    "/products/shipping_classes/{shipping_class}",
    "/products/attributes",
    "/products/attributes/{attribute}",
    "/products/attributes/{attribute}/terms",
    "/products/attributes/{attribute}/terms/{term}",
    "/orders",
    "/orders/count",
    "/orders/statuses",
    "/orders/bulk",
    "/orders/{order}",
    "/orders/{order}/notes",
    "/orders/{order}/notes/{note}",
    "/orders/{order}/refunds",
    "/orders/{order}/refunds/{refund}",
)
ODD_SEGMENTS = (
    "0",
    "00",
    "-1",
    "+1",
    "1.0",
    "1e3",
    "12abc",
    "abc",
    "2147483648",
    "99999999999999999999999",
    "9" * 400,
    "9" * HUGE_DIGITS,
    "０",
    "١",
    "%31",
    "%00",
    "%ff",
    "%C0%AE",
    "%2e%2e",
    "%2F",
    "%20",
    "..",
    ".",
    "",
    "a%2Fb",
    "%E2%80%AE",
    "COUNT",
    "Bulk",
    "x" * 3000,
)
METHODS = (
    "GET",
    "HEAD",
    "POST",
    "PUT",
    "PATCH",
    "DELETE",
    "OPTIONS",
    "TRACE",
    "PROPFIND",
    "get",
    "Delete",
    "FOO",
)


@dataclass(frozen=True)
class PathCase:
    method: str
    path: str  # a template, like Case.path; may hold ``//``, ``..`` and %-escapes
    query: str
    headers: tuple[tuple[str, str], ...]
    body: bytes


def _splice(path: str, segment: str, where: int) -> str:
    parts = path.split("/")
    if len(parts) <= 1:
        return path + "/" + segment
    index = 1 + where % (len(parts) - 1)
    return "/".join([*parts[:index], segment, *parts[index + 1 :]])


@st.composite
def path_cases(draw: st.DrawFn) -> PathCase:
    """A route with one segment replaced or inserted, an odd spelling of the path (``//``,
    ``/./``, ``/../``, a trailing slash, upper case) and any method, maybe overridden."""
    path = draw(st.sampled_from(ROUTE_PATTERNS))
    mutation = draw(choice("replace", "insert", "append", "double-slash", "dots", "upper", "none"))
    segment = draw(st.sampled_from(ODD_SEGMENTS))
    where = draw(st.integers(0, 6))
    if mutation == "replace":
        path = _splice(path, segment, where)
    elif mutation == "insert":
        parts = path.split("/")
        index = 1 + where % len(parts)
        path = "/".join([*parts[:index], segment, *parts[index:]])
    elif mutation == "append":
        path = f"{path}/{segment}"
    elif mutation == "double-slash":
        path = path.replace("/", "//", 1 + where % 2) if path else "//"
    elif mutation == "dots":
        path = draw(
            choice(f"/..{path}", f"/.{path}", f"{path}/..", f"/products/..{path}", f"{path}/./")
        )
    elif mutation == "upper":  # the {placeholders} stay as they are
        path = re.sub(r"[^{}]+(?=\{|$)", lambda match: match.group(0).upper(), path)
    method = draw(st.sampled_from(METHODS))
    query = ""
    headers: tuple[tuple[str, str], ...] = ()
    override = draw(st.sampled_from([None, None, *METHODS]))
    if override is not None:
        if draw(st.booleans()):
            query = f"_method={_quote(override)}"
        else:
            headers = (("X-HTTP-Method-Override", override),)
    body = draw(
        st.one_of(
            st.just(b""),
            st.sampled_from(RAW_BODIES),
            hostile_values.map(lambda value: body_bytes({"product": value})),
        )
    )
    return PathCase(method, path, query, headers, body)


# --- numbers beyond their column


@dataclass(frozen=True)
class IntField:
    """An integer write field: where it goes in a body, and the name the 400 must give it.
    ``positive``: only values above the column are refused (the spec skips non-positive ones)."""

    method: str
    path: str
    field: str  # as the error message names it (``{line}``: an id of the suite's world)
    build: Callable[[Any], dict[str, Any]]
    positive: bool = False
    bulk: bool = False


def _term(envelope: str, name: str) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {envelope: {"name": "Numbers", name: value}}


def _product(**extra: Any) -> Callable[[Any], dict[str, Any]]:
    def build(value: Any) -> dict[str, Any]:
        fields = {key: (value if item is VALUE else item) for key, item in extra.items()}
        return {"product": {"title": "Numbers", **_fill(fields, value)}}

    return build


class _Value:
    """Where the generated number goes in a template (see :func:`_fill`)."""


VALUE = _Value()


def _fill(template: Any, value: Any) -> Any:
    if template is VALUE:
        return value
    if isinstance(template, dict):
        return {key: _fill(item, value) for key, item in template.items()}
    if isinstance(template, list):
        return [_fill(item, value) for item in template]
    return template


def _template(envelope: str, template: dict[str, Any]) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {envelope: _fill(template, value)}


VARIABLE = {"title": "Numbers", "type": "variable"}
INT_FIELDS: tuple[IntField, ...] = (
    IntField(
        "POST",
        "/products/categories",
        "product_category.parent",
        _term("product_category", "parent"),
    ),
    IntField(
        "PUT",
        "/products/categories/{category}",
        "product_category.parent",
        _term("product_category", "parent"),
    ),
    IntField(
        "POST", "/products/categories", "product_category.image", _term("product_category", "image")
    ),
    IntField(
        "PUT",
        "/products/categories/{category}",
        "product_category.image",
        _term("product_category", "image"),
    ),
    IntField(
        "POST",
        "/products/shipping_classes",
        "product_shipping_class.parent",
        _term("product_shipping_class", "parent"),
    ),
    IntField(
        "PUT",
        "/products/shipping_classes/{shipping_class}",
        "product_shipping_class.parent",
        _term("product_shipping_class", "parent"),
    ),
    IntField(
        "POST",
        "/products/attributes/{attribute}/terms",
        "product_attribute_term.menu_order",
        _term("product_attribute_term", "menu_order"),
    ),
    IntField(
        "PUT",
        "/products/attributes/{attribute}/terms/{term}",
        "product_attribute_term.menu_order",
        _term("product_attribute_term", "menu_order"),
    ),
    IntField("POST", "/taxes", "tax.priority", _template("tax", {"priority": VALUE})),
    IntField("POST", "/taxes", "tax.order", _template("tax", {"order": VALUE})),
    IntField("PUT", "/taxes/{tax}", "tax.priority", _template("tax", {"priority": VALUE})),
    IntField("PUT", "/taxes/{tax}", "tax.order", _template("tax", {"order": VALUE})),
    IntField(
        "POST", "/taxes/bulk", "tax.order", lambda value: {"taxes": [{"order": value}]}, bulk=True
    ),
    IntField(
        "POST",
        "/taxes/bulk",
        "tax.priority",
        lambda value: {"taxes": [{"id": "{tax}", "priority": value}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/taxes/bulk",
        "tax.id",
        lambda value: {"taxes": [{"id": value}]},
        positive=True,
        bulk=True,
    ),
    *(
        IntField(method, path, f"product.{name}", _product(**{name: VALUE}))
        for method, path in (("POST", "/products"), ("PUT", "/products/{product}"))
        for name in (
            "menu_order",
            "parent_id",
            "stock_quantity",
            "inventory_delta",
            "download_limit",
            "download_expiry",
        )
    ),
    IntField("POST", "/products", "product.images[0].id", _product(images=[{"id": VALUE}])),
    IntField(
        "POST",
        "/products",
        "product.attributes[0].position",
        _product(attributes=[{"name": "Size", "options": ["S"], "position": VALUE}]),
    ),
    IntField("POST", "/products", "product.categories[0]", _product(categories=[VALUE])),
    IntField("PUT", "/products/{product}", "product.tags[0]", _product(tags=[VALUE])),
    IntField(
        "POST", "/products", "product.upsell_ids[0]", _product(upsell_ids=[VALUE]), positive=True
    ),
    IntField(
        "PUT",
        "/products/{product}",
        "product.cross_sell_ids[0]",
        _product(cross_sell_ids=[VALUE]),
        positive=True,
    ),
    IntField(
        "POST",
        "/products",
        "product.variations[0].id",
        _template("product", {**VARIABLE, "variations": [{"id": VALUE}]}),
    ),
    IntField(
        "PUT",
        "/products/{variable}",
        "product.variations[0].stock_quantity",
        _template("product", {"variations": [{"stock_quantity": VALUE}]}),
    ),
    IntField(
        "PUT",
        "/products/{variable}",
        "product.variations[0].download_expiry",
        _template("product", {"variations": [{"download_expiry": VALUE}]}),
    ),
    IntField(
        "POST",
        "/products",
        "product.variations[0].image[0].id",
        _template("product", {**VARIABLE, "variations": [{"image": [{"id": VALUE}]}]}),
    ),
    IntField(
        "PUT",
        "/products/{variation}",
        "product.stock_quantity",
        _template("product", {"stock_quantity": VALUE}),
    ),
    IntField(
        "PUT",
        "/products/{variation}",
        "product.image[0].id",
        _template("product", {"image": [{"id": VALUE}]}),
    ),
    IntField(
        "POST",
        "/products/bulk",
        "product.menu_order",
        lambda value: {"products": [{"title": "Numbers", "menu_order": value}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/products/bulk",
        "product.stock_quantity",
        lambda value: {"products": [{"id": "{product}", "stock_quantity": value}]},
        bulk=True,
    ),
    *(
        IntField(method, path, "order.customer_id", _template("order", {"customer_id": VALUE}))
        for method, path in (("POST", "/orders"), ("PUT", "/orders/{order}"))
    ),
    IntField(
        "POST",
        "/orders",
        "order.line_items[0].product_id",
        _template("order", {"line_items": [{"product_id": VALUE, "quantity": 1}]}),
    ),
    IntField(
        "POST",
        "/orders",
        "order.line_items[1].quantity",
        _template(
            "order",
            {
                "line_items": [
                    {"product_id": "{product}", "quantity": 1},
                    {"product_id": "{product}", "quantity": VALUE},
                ]
            },
        ),
    ),
    IntField(
        "PATCH",
        "/orders/{order}",
        "order.line_items[0].quantity",
        _template("order", {"line_items": [{"id": "{line}", "quantity": VALUE}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.line_items[0].id",
        _template("order", {"line_items": [{"id": VALUE, "product_id": "{product}"}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.shipping_lines[0].id",
        _template("order", {"shipping_lines": [{"id": VALUE, "total": "1"}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.fee_lines[0].id",
        _template("order", {"fee_lines": [{"id": VALUE, "title": "Fee"}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.coupon_lines[0].id",
        _template("order", {"coupon_lines": [{"id": VALUE, "code": "C"}]}),
    ),
    IntField(
        "POST",
        "/orders/bulk",
        "order.customer_id",
        lambda value: {"orders": [{"customer_id": value}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/orders/bulk",
        "order.line_items[0].id",
        lambda value: {"orders": [{"id": "{order}", "line_items": [{"id": value}]}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/orders/{order}/refunds",
        "order_refund.line_items.{line}.qty",
        _template("order_refund", {"amount": "0.01", "line_items": {"<line>": {"qty": VALUE}}}),
    ),
)

#: Magnitudes beyond every INTEGER column (``2**31`` and up), of every size Python can print.
BEYOND_MAGNITUDES = st.one_of(
    st.integers(min_value=2**31 + 1, max_value=2**64),
    st.integers(min_value=2**31 + 1, max_value=10**60),
    st.sampled_from([19, 20, 39, 308, 309, 400, 1000, 4300]).map(lambda digits: 10**digits - 1),
    st.sampled_from(
        [2**31 + 1, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 10**20, 10**400 - 1, 10**4300 - 1]
    ),
)


@st.composite
def beyond_column(draw: st.DrawFn, positive: bool = False) -> Any:
    """An integer no INTEGER column holds, written as a JSON number, a digit string (with a
    sign, spaces, leading zeros; up to 6000 digits), or a float (``1e308``, or ``1e309`` which
    overflows to infinity)."""
    negative = not positive and draw(st.booleans())
    form = draw(choice("int", "int", "string", "string", "float", "long-string", "raw"))
    if form == "long-string":
        digits = "9" * draw(st.integers(4301, 6000))
        return ("-" if negative else draw(choice("", "+", " "))) + digits
    if form == "raw":
        return Raw(draw(choice("1e309", "1E+400", "1e308")) if not negative else "-1e309")
    magnitude = draw(BEYOND_MAGNITUDES)
    value = -magnitude if negative else magnitude
    if form == "int":
        return value
    if form == "float":
        if magnitude < 10**308:
            return float(value)
        return -1e308 if negative else 1.7976931348623157e308
    space = draw(choice("", " "))
    zeros = draw(choice("", "0", "000"))
    sign = "-" if negative else draw(choice("", "+"))
    return f"{space}{sign}{zeros}{magnitude}{space}"


# --- the harness


#: Tables whose rows change as a side effect of authenticating (a key's ``last_access``, OAuth
#: nonces): only their row counts are compared.
COUNTED_ONLY = ("users", "api_keys", "oauth_nonces")


def _row_text(table: sa.Table) -> str:
    """SQL for one row of ``table`` as text (portable: SQLite and PostgreSQL)."""
    cells = (f"COALESCE(CAST({column.name} AS TEXT), '<null>')" for column in table.columns)
    return " || '|' || ".join(cells)


def _snapshot_sql() -> str:
    """One statement (one round trip) listing every row of every data table as text, and the
    row count of the others."""
    parts = []
    for table in metadata.sorted_tables:
        if table.name in COUNTED_ONLY:
            parts.append(f"SELECT '{table.name}', CAST(count(*) AS TEXT) FROM {table.name}")
        else:
            parts.append(f"SELECT '{table.name}', {_row_text(table)} FROM {table.name}")
    return " UNION ALL ".join(parts)


SNAPSHOT_SQL = _snapshot_sql()


def snapshot(engine: sa.Engine) -> list[tuple[str, str]]:
    """Every row of the data tables (as text, sorted), and the row count of the others."""
    with engine.connect() as conn:
        return sorted(tuple(row) for row in conn.exec_driver_sql(SNAPSHOT_SQL))


def _short(value: str | bytes, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(value)} long)"


def check_error_body(response: TestResponse, context: str) -> None:
    """``{"errors": [{"code": "shop_…", "message": "…"}, …]}``."""
    assert response.content_type == "application/json", context
    payload = json.loads(response.body)
    assert isinstance(payload, dict) and list(payload) == ["errors"], context
    items = payload["errors"]
    assert isinstance(items, list) and items, context
    for item in items:
        assert isinstance(item, dict) and set(item) == {"code", "message"}, context
        assert isinstance(item["code"], str) and ERROR_CODE.fullmatch(item["code"]), context
        assert isinstance(item["message"], str) and item["message"], context


def check_error_item(item: Any, context: str) -> None:
    """A failed bulk element: ``{"id", "error": {"code", "message"}}`` (products add ``sku``)."""
    assert isinstance(item, dict), context
    error = item["error"]
    assert set(error) == {"code", "message"}, context
    assert ERROR_CODE.fullmatch(error["code"]), context


def effective_method(method: str, query: str, headers: Sequence[tuple[str, str]]) -> str:
    """The method the app acts on: ``?_method=`` (upper-cased), else the override header (as
    sent), else the request's."""
    overrides = parse_qs(query).get("_method")
    if overrides and overrides[-1]:
        return overrides[-1].upper()
    return dict(headers).get("X-HTTP-Method-Override", method)


class Harness:
    """Sends requests through a ``TestApp`` and checks the suite's properties on each."""

    def __init__(self, client: TestApp, engine: sa.Engine, ids: Mapping[str, int]) -> None:
        self.client = client
        self.engine = engine
        self.ids = ids
        # The state after the last failed request: the state before the next one, as nothing
        # but this harness writes while a property runs (saves a round trip per request).
        self._known: list[tuple[str, str]] | None = None

    def url(self, template: str, query: str = "") -> str:
        # characters outside ASCII are sent %-encoded (as UTF-8), %-escapes as they are
        path = quote(ROOT + template.format(**self.ids), safe="/%:@!$&'()*+,;=-._~")
        return f"{path}?{query}" if query else path

    def fill(self, body: bytes) -> bytes:
        """``"{name}"`` in ``body`` → the id of the record ``name`` (a JSON number),
        ``"<name>"`` → the same id as a JSON string (an object key)."""
        if b'"{' not in body and b'"<' not in body:
            return body
        for name, record_id in self.ids.items():
            body = body.replace(f'"{{{name}}}"'.encode(), str(record_id).encode())
            body = body.replace(f'"<{name}>"'.encode(), f'"{record_id}"'.encode())
        return body

    def send(
        self,
        method: str,
        template: str,
        body: bytes = b"",
        query: str = "",
        headers: Sequence[tuple[str, str]] = (),
        bulk: bool = False,
    ) -> TestResponse:
        """One request; fails the test unless it is < 500, its error is well formed and a
        failure left every table as it was."""
        url = self.url(template, query)
        body = self.fill(body)
        before = self._known if self._known is not None else snapshot(self.engine)
        self._known = None
        response = self.client.request(
            url,
            method=method,
            body=body,
            headers=[("Content-Type", "application/json"), *headers],
            expect_errors=True,
        )
        context = (
            f"{method} {_short(url)} {dict(headers)} body={_short(body)} → "
            f"{response.status} {_short(response.body, 600)}"
        )
        status = response.status_int
        assert status < 500, context
        if status >= 400:
            # a HEAD answer has no body (an override is applied after the path checks)
            head = "HEAD" in (method.upper(), effective_method(method, query, headers))
            if response.body or not head:
                check_error_body(response, context)
            after = snapshot(self.engine)
            assert after == before, f"a failed request wrote: {context}"
            self._known = after
        elif bulk and response.body:
            payload = json.loads(response.body)
            results = next(iter(payload.values())) if isinstance(payload, dict) else None
            if isinstance(results, list) and results and all("error" in r for r in results):
                for item in results:
                    check_error_item(item, context)
                assert snapshot(self.engine) == before, f"a bulk of failures wrote: {context}"
        return response
