"""Write fields of an order (``POST /orders``, ``PUT /orders/<id>``, bulk elements).

Only shapes and types are checked here (decisions.md §2): a value of the wrong type is a 400
``shop_api_invalid_param`` naming the field (``order.line_items[1].quantity``). The spec's own
codes (missing product, negative totals, unknown status or currency, …) are the writer's, which
raises them in the reference's step order (orders.md §3, §4, §9). Only the fields present (and
not JSON null) appear in the result, except where null has a meaning: the line-item delete keys
and ``id: null``.

Booleans (``payment_details.paid``, fee ``taxable``) take the spellings of decisions.md §2
(anything else is ``shop_api_invalid_param``); quantities are integers (JSON numbers without a
fraction or digit strings). Lenient where the spec is lenient (decisions.md §7): ``order_meta``
keys starting with ``_`` and non-scalar values are ignored; a ``customer_id`` of ``""`` means a
guest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from shopsvc.domain.money import round_money
from shopsvc.domain.tax import clean_text, tax_class_slug
from shopsvc.errors import invalid_param
from shopsvc.sql.tables import BILLING_FIELDS, SHIPPING_FIELDS
from shopsvc.validation.types import (
    MAX_INT,
    as_text,
    is_finite,
    is_number,
    parse_int,
    parse_loose_bool,
    range_problem,
    require_array,
    require_object,
)

ENVELOPE = "order"
ADDRESS_KEYS = BILLING_FIELDS
SHIPPING_KEYS = SHIPPING_FIELDS
#: The four item arrays, in the order create and edit handle them, with their item type.
ARRAYS = {
    "line_items": "line_item",
    "shipping_lines": "shipping",
    "fee_lines": "fee",
    "coupon_lines": "coupon",
}
#: An element with an id and one of these keys present as JSON null deletes that item.
DELETE_KEYS = ("product_id", "method_id", "title", "code")
#: Amounts are NUMERIC(18, 6): at most 12 integer digits once rounded to 6 decimals (as the
#: columns round), so ``999999999999.9999995`` is beyond them too.
MAX_AMOUNT = Decimal("1e12")
PLACES = 6


@dataclass
class ItemInput:
    """One element of an item array. ``id`` None: create; ``delete``: remove item ``id``."""

    field: str
    id: int | None
    delete: bool
    values: dict[str, Any] = field(default_factory=dict)


@dataclass
class PaymentInput:
    method_id: str | None
    method_title: str | None
    transaction_id: str
    paid: bool


@dataclass
class OrderInput:
    """The clean write fields of one order."""

    status: str | None = None
    status_note: str = ""
    note: str | None = None
    customer_id: int | None = None
    currency: str | None = None
    billing: dict[str, str] | None = None
    shipping: dict[str, str] | None = None
    items: dict[str, list[ItemInput]] = field(default_factory=dict)
    payment: PaymentInput | None = None
    order_meta: dict[str, str] | None = None


# --- scalars


def text(value: Any, name: str) -> str:
    found = as_text(value)
    if found is None:
        raise invalid_param(name, "must be a string")
    if "\x00" in found:
        raise invalid_param(name, "must not contain NUL characters")
    return found


def integer(value: Any, name: str, low: int = 0, high: int = MAX_INT) -> int:
    parsed = parse_int(value)
    if parsed is None:
        raise invalid_param(name, "must be an integer")
    problem = range_problem(parsed, low, high)
    if problem is not None:
        raise invalid_param(name, problem)
    return parsed


def amount(value: Any, name: str) -> Decimal:
    """A money amount: a JSON number or a numeric string, within what the columns hold; rounded
    to the columns' 6 decimals (half away from zero)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise invalid_param(name, "must be a number")
    try:
        parsed = Decimal(str(value).strip())
    except ArithmeticError:
        raise invalid_param(name, "must be a number") from None
    if not parsed.is_finite():
        raise invalid_param(name, "must be a number")
    beyond = f"must be below {MAX_AMOUNT:f} in absolute value"
    if abs(parsed) >= MAX_AMOUNT:  # before rounding: a huge exponent cannot be rounded
        raise invalid_param(name, beyond)
    parsed = round_money(parsed, PLACES)
    if abs(parsed) >= MAX_AMOUNT:  # 999999999999.9999995 rounds to 10**12
        raise invalid_param(name, beyond)
    return parsed


def quantity(value: Any, name: str) -> Decimal:
    """A quantity: a JSON number without a fraction or a digit string (decisions.md §2:
    integers accept JSON numbers and digit strings); its sign is the writer's check."""
    if isinstance(value, str):
        whole = parse_int(value)
        if whole is None:
            raise invalid_param(name, "must be a whole number")
        value = whole
    if not is_number(value) or not is_finite(value):
        raise invalid_param(name, "must be a whole number")
    parsed = Decimal(str(value))
    if parsed != parsed.to_integral_value():
        raise invalid_param(name, "must be a whole number")
    if abs(parsed) > MAX_INT:
        raise invalid_param(name, f"must be at most {MAX_INT}")
    return parsed


def flag(value: Any, name: str) -> bool:
    parsed = parse_loose_bool(value)
    if parsed is None:
        raise invalid_param(name, "must be a boolean")
    return parsed


# --- objects


def address(value: Any, name: str, keys: tuple[str, ...]) -> dict[str, str]:
    """The given keys of an address, text-cleaned; other keys ignored."""
    data = require_object(value, name)
    return {
        key: clean_text(text(data[key], f"{name}.{key}"))
        for key in keys
        if data.get(key) is not None
    }


def _paid(value: Any, name: str) -> bool:
    """``paid``: a §2 boolean spelling (decisions.md §2 "Booleans on input"); null is false."""
    return False if value is None else flag(value, name)


def payment(value: Any, name: str) -> PaymentInput:
    data = require_object(value, name)

    def optional_text(key: str) -> str | None:
        found = data.get(key)
        return None if found is None else text(found, f"{name}.{key}")

    return PaymentInput(
        method_id=optional_text("method_id"),
        method_title=optional_text("method_title"),
        transaction_id=optional_text("transaction_id") or "",
        paid=_paid(data.get("paid"), f"{name}.paid"),
    )


def order_meta(value: Any, name: str) -> dict[str, str]:
    """String keys not starting with ``_`` whose value is a scalar, as stored text."""
    data = require_object(value, name)
    meta: dict[str, str] = {}
    for key, item in data.items():
        if key.startswith("_") or item is None or isinstance(item, (dict, list)):
            continue
        if isinstance(item, bool):
            meta[key] = "1" if item else ""
        else:
            meta[key] = text(item, f"{name}.{key}")
    return meta


# --- item arrays


def _line_values(data: dict[str, Any], name: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if data.get("product_id") is not None:
        values["product_id"] = integer(data["product_id"], f"{name}.product_id", low=-MAX_INT)
    if data.get("sku") is not None:
        values["sku"] = text(data["sku"], f"{name}.sku").strip()
    if data.get("variations") is not None:
        variations = require_object(data["variations"], f"{name}.variations")
        values["variations"] = {
            str(key): "" if raw is None else text(raw, f"{name}.variations.{key}")
            for key, raw in variations.items()
        }
    if data.get("quantity") is not None:
        values["quantity"] = quantity(data["quantity"], f"{name}.quantity")
    for key in ("subtotal", "subtotal_tax", "total", "total_tax"):
        if data.get(key) is not None:
            values[key] = amount(data[key], f"{name}.{key}")
    return values


def _shipping_values(data: dict[str, Any], name: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key in ("method_id", "method_title"):
        if data.get(key) is not None:
            values[key] = clean_text(text(data[key], f"{name}.{key}"))
    if data.get("total") is not None:
        values["total"] = amount(data["total"], f"{name}.total")
    return values


def _fee_values(data: dict[str, Any], name: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if data.get("title") is not None:
        values["title"] = clean_text(text(data["title"], f"{name}.title"))
    if data.get("taxable") is not None:
        values["taxable"] = flag(data["taxable"], f"{name}.taxable")
    if data.get("tax_class") is not None:
        values["tax_class"] = tax_class_slug(text(data["tax_class"], f"{name}.tax_class"))
    for key in ("total", "total_tax"):
        if data.get(key) is not None:
            values[key] = amount(data[key], f"{name}.{key}")
    return values


def _coupon_values(data: dict[str, Any], name: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if data.get("code") is not None:
        values["code"] = clean_text(text(data["code"], f"{name}.code"))
    if data.get("amount") is not None:
        values["amount"] = amount(data["amount"], f"{name}.amount")
    return values


_VALUES = {
    "line_items": _line_values,
    "shipping_lines": _shipping_values,
    "fee_lines": _fee_values,
    "coupon_lines": _coupon_values,
}


def _items(array: str, value: Any, create: bool) -> list[ItemInput]:
    elements = require_array(value, f"{ENVELOPE}.{array}")
    found: list[ItemInput] = []
    for index, element in enumerate(elements):
        name = f"{ENVELOPE}.{array}[{index}]"
        data = require_object(element, name)
        item_id = None
        if not create and data.get("id") is not None:
            item_id = integer(data["id"], f"{name}.id")
        delete = item_id is not None and any(
            key in data and data[key] is None for key in DELETE_KEYS
        )
        values = {} if delete else _VALUES[array](data, name)
        found.append(ItemInput(name, item_id, delete, values))
    return found


# --- the order


def clean_order(data: Any, create: bool) -> OrderInput:
    """The typed write fields of an order envelope (create: item ids are ignored)."""
    data = require_object(data, ENVELOPE)
    clean = OrderInput()

    def name(key: str) -> str:
        return f"{ENVELOPE}.{key}"

    if data.get("status") is not None:
        clean.status = text(data["status"], name("status")).strip()
    if data.get("status_note") is not None:
        clean.status_note = text(data["status_note"], name("status_note"))
    if data.get("note") is not None:
        clean.note = text(data["note"], name("note"))
    if data.get("customer_id") is not None:
        raw = data["customer_id"]
        # any integer: one that names no user (negative ones too) is the spec's 400
        # ``shop_api_invalid_customer_id``, raised by the writer
        clean.customer_id = 0 if raw == "" else integer(raw, name("customer_id"), low=-MAX_INT)
    if data.get("currency") is not None:
        clean.currency = text(data["currency"], name("currency"))
    if data.get("billing_address") is not None:
        clean.billing = address(data["billing_address"], name("billing_address"), ADDRESS_KEYS)
    if data.get("shipping_address") is not None:
        clean.shipping = address(data["shipping_address"], name("shipping_address"), SHIPPING_KEYS)
    for array in ARRAYS:
        if data.get(array) is not None:
            clean.items[array] = _items(array, data[array], create)
    if data.get("payment_details") is not None:
        clean.payment = payment(data["payment_details"], name("payment_details"))
    if data.get("order_meta") is not None:
        clean.order_meta = order_meta(data["order_meta"], name("order_meta"))
    return clean
