"""The write fields of the orders (and their items, addresses and payment), the order notes and
the refunds; records of the suite's world are named by placeholders the harness fills in."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.hostile.records import AMOUNT, BOOL, NAME, TEXT, Shape, gentle, record_lists, records
from tests.hostile.values import choice, hostile_scalars, hostile_values


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
