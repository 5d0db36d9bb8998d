"""Write fields of an order (``POST /orders``, ``PUT /orders/<id>``, bulk elements).

Only shapes and types are checked here (decisions.md §2), by the Colander schemas below: a value
of the wrong type is a 400 ``shop_api_invalid_param`` naming the field
(``order.line_items[1].quantity``); when several are wrong, the first in schema order (the order
of the fields below, then array order) is the one reported. The spec's own codes (missing
product, negative totals, unknown status or currency, …) are the writer's, which raises them in
the reference's step order (orders.md §3, §4, §9). Only the fields present (and not JSON null)
appear in the result, except where null has a meaning: the line-item delete keys and
``id: null``.

Booleans (``payment_details.paid``, fee ``taxable``) take the spellings of decisions.md §2
(anything else is ``shop_api_invalid_param``); quantities are integers (JSON numbers without a
fraction or digit strings). Lenient where the spec is lenient (decisions.md §7): ``order_meta``
keys starting with ``_`` and non-scalar values are ignored; a ``customer_id`` of ``""`` means a
guest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import colander

from shopsvc.domain.money import round_money
from shopsvc.domain.tax import clean_text, tax_class_slug
from shopsvc.errors import invalid_param
from shopsvc.sql.tables import BILLING_FIELDS, SHIPPING_FIELDS
from shopsvc.validation.types import (
    MAX_INT,
    Int,
    LooseBool,
    Number,
    Text,
    deserialize,
    is_finite,
    is_number,
    optional,
    parse_int,
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


# --- Colander types


class Amount(Number):
    """A money amount: a JSON number or a numeric string, within what the columns hold; rounded
    to the columns' 6 decimals (half away from zero)."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        value = super().deserialize(node, cstruct)
        if value is colander.null:
            return value
        beyond = f"must be below {MAX_AMOUNT:f} in absolute value"
        # before rounding (a huge exponent cannot be rounded), read off the exponent: abs() of
        # "1e999999999" overflows the decimal context
        if value and value.adjusted() >= MAX_AMOUNT.adjusted():
            raise colander.Invalid(node, beyond)
        value = round_money(value, PLACES)
        if abs(value) >= MAX_AMOUNT:  # 999999999999.9999995 rounds to 10**12
            raise colander.Invalid(node, beyond)
        return value


class LineQuantity(colander.SchemaType):
    """A line's quantity, as a ``Decimal``: a JSON number without a fraction or a digit string
    (decisions.md §2: integers accept JSON numbers and digit strings); its sign is the writer's
    check. Not :class:`Int`: a JSON ``2.0`` is kept as ``Decimal("2.0")``, and the range and
    messages are its own."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        value = cstruct
        if isinstance(value, str):
            whole = parse_int(value)
            if whole is None:
                raise colander.Invalid(node, "must be a whole number")
            value = whole
        if not is_number(value) or not is_finite(value):
            raise colander.Invalid(node, "must be a whole number")
        parsed = Decimal(str(value))
        if parsed != parsed.to_integral_value():
            raise colander.Invalid(node, "must be a whole number")
        if abs(parsed) > MAX_INT:
            raise colander.Invalid(node, f"must be at most {MAX_INT}")
        return parsed


class CustomerId(Int):
    """Any integer an INTEGER column holds (one that names no user, negative ones too, is the
    spec's 400 ``shop_api_invalid_customer_id``, raised by the writer); ``""`` is a guest (0)."""

    def __init__(self) -> None:
        super().__init__(low=-MAX_INT, high=MAX_INT)

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if isinstance(cstruct, str) and cstruct == "":
            return 0
        return super().deserialize(node, cstruct)


_TEXT = Text()


def _under(node: colander.SchemaNode, exc: colander.Invalid, pos: int) -> colander.Invalid:
    """The failure ``exc`` of the child at ``pos`` raised as ``node``'s, so that it names the
    field (``types.deserialize``)."""
    error = colander.Invalid(node)
    error.add(exc, pos)
    return error


def _read(node: colander.SchemaNode, child: colander.SchemaNode, raw: Any, pos: int) -> Any:
    """``child`` (of ``node``, at ``pos``) deserialized from ``raw``."""
    try:
        return child.deserialize(raw)
    except colander.Invalid as exc:
        raise _under(node, exc, pos) from None


def _entry_text(node: colander.SchemaNode, key: str, value: Any) -> str:
    """The entry ``key`` of the free-keyed object ``node`` read as text; a failure names the
    field ``<node>.<key>`` (through a node made for the entry, as a ``Mapping``'s child)."""
    try:
        text: str = _TEXT.deserialize(node, value)
    except colander.Invalid as exc:
        entry = colander.SchemaNode(Text(), name=key)
        raise _under(node, colander.Invalid(entry, exc.msg), 0) from None
    return text


class Variations(colander.SchemaType):
    """A line's ``variations``: a JSON object of attribute → option, any keys (so not a
    ``Mapping`` of known children); a null option is ``""``."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if not isinstance(cstruct, dict):
            raise colander.Invalid(node, "must be a JSON object")
        return {
            str(key): "" if raw is None else _entry_text(node, key, raw)
            for key, raw in cstruct.items()
        }


class Meta(colander.SchemaType):
    """``order_meta``: string keys not starting with ``_`` whose value is a scalar, as stored
    text (``true``: ``"1"``, ``false``: ``""``); the other entries are ignored, not refused."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if not isinstance(cstruct, dict):
            raise colander.Invalid(node, "must be a JSON object")
        meta: dict[str, str] = {}
        for key, item in cstruct.items():
            if key.startswith("_") or item is None or isinstance(item, (dict, list)):
                continue
            if isinstance(item, bool):
                meta[key] = "1" if item else ""
            else:
                meta[key] = _entry_text(node, key, item)
        return meta


class Object(colander.Mapping):
    """A JSON object of known fields (others ignored); null is absent.

    Its fields are read in schema order and the first that fails is the answer: the later ones
    are not read. ``colander.Mapping`` reads them all and collects every failure; here the
    order of checks is the spec's and a later field must not fail first in another way (an
    amount of ``1e999999999`` raises ``decimal.Overflow``, which a 400 for an earlier field
    has always pre-empted).
    """

    def __init__(self) -> None:
        super().__init__(unknown="ignore")

    def _validate(self, node: colander.SchemaNode, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise colander.Invalid(node, "must be a JSON object")
        return value

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        return self._fields(node, self._validate(node, cstruct))

    def _fields(self, node: colander.SchemaNode, data: dict[str, Any]) -> dict[str, Any]:
        found = {}
        for pos, child in enumerate(node.children):
            name = child.name
            if name in data:
                raw = data[name]
            elif child.missing is colander.drop:
                continue
            else:
                raw = colander.null
            try:
                value = child.deserialize(raw)
            except colander.Invalid as exc:
                raise _under(node, exc, pos) from None
            if value is not colander.drop:
                found[name] = value
        return found


class Element(Object):
    """One element of an item array: ``{id, delete, values}``; null is refused, not absent.

    On edit (the node has an ``id`` child), an element with an ``id`` and one of
    ``DELETE_KEYS`` present as null deletes item ``id``: only its ``id`` is checked and its
    other fields are ignored, whatever they hold. That choice depends on the element's raw
    keys before any field is read, which no Colander node or validator can make (a validator
    runs once every field has been read, and they would have failed first).
    """

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        data = self._validate(node, cstruct)
        if "id" in node and _deletes(data):
            item_id = _read(node, node["id"], data["id"], 0)
            return {"id": item_id, "delete": True, "values": {}}
        values = self._fields(node, data)
        return {"id": values.pop("id", None), "delete": False, "values": values}


def _deletes(data: dict[str, Any]) -> bool:
    return data.get("id") is not None and any(
        key in data and data[key] is None for key in DELETE_KEYS
    )


class Items(colander.Sequence):
    """A JSON array of item elements (null is absent), read in order up to the first that
    fails (as :class:`Object`), each an :class:`ItemInput` named by its place
    (``order.fee_lines[2]``)."""

    def deserialize(
        self, node: colander.SchemaNode, cstruct: Any, accept_scalar: bool | None = None
    ) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if not isinstance(cstruct, list):
            raise colander.Invalid(node, "must be a JSON array")
        element = node.children[0]
        return [
            ItemInput(f"{ENVELOPE}.{node.name}[{pos}]", **_read(node, element, raw, pos))
            for pos, raw in enumerate(cstruct)
        ]


# --- the schemas


def _given(clean: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A preparer applying ``clean`` to a given value (absent stays absent)."""

    def prepare(value: Any) -> Any:
        return value if value is colander.null else clean(value)

    return prepare


def _texts(names: tuple[str, ...], clean: Callable[[str], str]) -> list[colander.SchemaNode]:
    return [optional(Text(), name=name, preparer=_given(clean)) for name in names]


def _amounts(*names: str) -> list[colander.SchemaNode]:
    return [optional(Amount(), name=name) for name in names]


def _object(name: str, *children: colander.SchemaNode, **kwargs: Any) -> colander.SchemaNode:
    return optional(Object(), *children, name=name, **kwargs)


def _item_fields(array: str) -> list[colander.SchemaNode]:
    """The value fields of one element of ``array``, in the order they are checked."""
    if array == "line_items":
        return [
            # any integer: one that names no product is the writer's 400
            optional(Int(-MAX_INT, MAX_INT), name="product_id"),
            *_texts(("sku",), str.strip),
            optional(Variations(), name="variations"),
            optional(LineQuantity(), name="quantity"),
            *_amounts("subtotal", "subtotal_tax", "total", "total_tax"),
        ]
    if array == "shipping_lines":
        return [*_texts(("method_id", "method_title"), clean_text), *_amounts("total")]
    if array == "fee_lines":
        return [
            *_texts(("title",), clean_text),
            optional(LooseBool(), name="taxable"),
            *_texts(("tax_class",), tax_class_slug),
            *_amounts("total", "total_tax"),
        ]
    return [*_texts(("code",), clean_text), *_amounts("amount")]


def _items(array: str, create: bool) -> colander.SchemaNode:
    """``array``'s node; on create an element's ``id`` is ignored (every element is new)."""
    element = colander.SchemaNode(Element(), name="element")
    if not create:
        element.add(optional(Int(0, MAX_INT), name="id"))
    for child in _item_fields(array):
        element.add(child)
    return optional(Items(), element, name=array)


def _payment(given: dict[str, Any]) -> PaymentInput:
    return PaymentInput(**given)


def _order_schema(create: bool) -> colander.SchemaNode:
    """The order's fields, in the order they are checked (create: item ids are ignored)."""
    return colander.SchemaNode(
        Object(),
        *_texts(("status",), str.strip),
        optional(Text(), name="status_note"),
        optional(Text(), name="note"),
        optional(CustomerId(), name="customer_id"),
        optional(Text(), name="currency"),
        _object("billing_address", *_texts(ADDRESS_KEYS, clean_text)),
        _object("shipping_address", *_texts(SHIPPING_KEYS, clean_text)),
        *(_items(array, create) for array in ARRAYS),
        _object(
            "payment_details",
            colander.SchemaNode(Text(), name="method_id", missing=None),
            colander.SchemaNode(Text(), name="method_title", missing=None),
            colander.SchemaNode(Text(), name="transaction_id", missing=""),
            # decisions.md §2 "Booleans on input"; null is false
            colander.SchemaNode(LooseBool(), name="paid", missing=False),
            preparer=_given(_payment),
        ),
        optional(Meta(), name="order_meta"),
    )


CREATE_SCHEMA = _order_schema(create=True)
EDIT_SCHEMA = _order_schema(create=False)


# --- entry points


def clean_order(data: Any, create: bool) -> OrderInput:
    """The typed write fields of an order envelope (create: item ids are ignored)."""
    schema = CREATE_SCHEMA if create else EDIT_SCHEMA
    given = deserialize(schema, require_object(data, ENVELOPE), ENVELOPE)
    return OrderInput(
        status=given.get("status"),
        status_note=given.get("status_note", ""),
        note=given.get("note"),
        customer_id=given.get("customer_id"),
        currency=given.get("currency"),
        billing=given.get("billing_address"),
        shipping=given.get("shipping_address"),
        items={array: given[array] for array in ARRAYS if array in given},
        payment=given.get("payment_details"),
        order_meta=given.get("order_meta"),
    )


_AMOUNT = colander.SchemaNode(Amount())


def amount(value: Any, name: str) -> Decimal:
    """``value`` read as an order amount (:class:`Amount`; refunds use it too); a 400
    ``shop_api_invalid_param`` naming ``name`` when it is not one."""
    try:
        parsed: Decimal = _AMOUNT.typ.deserialize(_AMOUNT, value)
    except colander.Invalid as exc:
        raise invalid_param(name, str(exc.msg)) from None
    return parsed
