"""Hostile values: pools and strategies of every JSON type, and the integers and amounts at and
beyond the edges of their columns (:func:`hostile_for` leans a field's values towards them)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.hostile.bodies import DEPTHS, HUGE_DIGITS, Raw, deep_array, deep_object

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


def unknown_keys() -> st.SearchStrategy[str]:
    """Keys no family reads (and some that look like they might)."""
    return st.one_of(
        st.sampled_from(["", "id", "__proto__", "constructor", "\x00", "\ud800", "x" * 1000]),
        text_with_surrogates,
    )


def choice(*values: Any) -> st.SearchStrategy[Any]:
    """One of ``values``."""
    return st.sampled_from(values)


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
    "1e999999999",  # an exponent past the decimal context's (abs() overflows)
    "-1e999999999",
    "1e-999999999",
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
