"""Colander types shared by every family, and the bridge from ``colander.Invalid`` to ``ApiError``.

Input rules (decisions.md §2, §7): booleans accept ``true/false``, ``1/0``, ``"1"/"0"``,
``"true"/"false"``, ``"yes"/"no"`` in any case; integers accept JSON numbers and digit strings,
and one beyond what its column holds is refused whatever its number of digits; a number that
overflowed to infinity is never accepted; a JSON null in an optional field means absent. A value
of the wrong type or out of range is a 400 ``shop_api_invalid_param`` naming the field, unless a
node says which spec code to use.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

import colander

from shopsvc.errors import ApiError, invalid_param

TRUE_SPELLINGS = frozenset({"true", "1", "yes"})
FALSE_SPELLINGS = frozenset({"false", "0", "no"})
INTEGER = re.compile(r"[+-]?[0-9]+")
# The range of the INTEGER columns that hold client-given numbers.
MAX_INT = 2**31 - 1
MIN_INT = -(2**31)
#: What :func:`parse_int` reads an integer of any larger magnitude as (with its sign): a number
#: beyond every column, that is cheap to compare and to print, however many digits were sent.
BEYOND_ANY_COLUMN = 2**63 - 1
#: Integers of at most this many digits are read exactly (``BEYOND_ANY_COLUMN`` has 19).
_EXACT_DIGITS = 18


class CodedInvalid(colander.Invalid):
    """An ``Invalid`` that carries the spec's error code (and status) for its node."""

    def __init__(self, node: colander.SchemaNode, msg: str, code: str, status: int = 400) -> None:
        super().__init__(node, msg)
        self.code = code
        self.status = status


def _absent(cstruct: Any) -> bool:
    return cstruct is colander.null or cstruct is None


def is_number(value: Any) -> bool:
    """A JSON number as decoded: an int, a float or a ``Decimal`` (never a boolean)."""
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def is_finite(value: int | float | Decimal) -> bool:
    """False for a number that overflowed to infinity (``1e309``) or is not a number."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, Decimal):
        return value.is_finite()
    return True


def as_text(value: Any) -> str | None:
    """A string as it is, a finite number written as text, else None (wrong type)."""
    if isinstance(value, str):
        return value
    if is_number(value) and is_finite(value):
        return str(value)
    return None


class Text(colander.SchemaType):
    """A JSON string; finite numbers are accepted and written as text, anything else (``1e309``,
    which overflows to infinity, too) is refused."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if _absent(cstruct):
            return colander.null
        text = as_text(cstruct)
        if text is None:
            raise colander.Invalid(node, "must be a string")
        if "\x00" in text:
            raise colander.Invalid(node, "must not contain NUL characters")
        return text


def parse_loose_bool(value: Any) -> bool | None:
    """The §2 spellings of a boolean, or None when ``value`` is not one of them."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in TRUE_SPELLINGS:
            return True
        if lowered in FALSE_SPELLINGS:
            return False
    return None


class LooseBool(colander.SchemaType):
    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if _absent(cstruct):
            return colander.null
        value = parse_loose_bool(cstruct)
        if value is None:
            raise colander.Invalid(node, "must be a boolean")
        return value


def truthy(value: Any) -> bool:
    """Lenient truthiness (decisions.md §7): null, "", 0, "0", false, [] and {} are false; the
    boolean spellings of §2 mean what they say; anything else is true."""
    spelled = parse_loose_bool(value)
    if spelled is not None:
        return spelled
    if isinstance(value, (int, float, Decimal)):
        return value != 0
    return bool(value)


class Truthy(colander.SchemaType):
    """Never refuses: coerces any value to a boolean by ``truthy``."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null:
            return colander.null
        return truthy(cstruct)


def _bounded(value: int) -> int:
    """``value``, or ``±BEYOND_ANY_COLUMN`` when its magnitude is even larger."""
    if value > BEYOND_ANY_COLUMN:
        return BEYOND_ANY_COLUMN
    if value < -BEYOND_ANY_COLUMN:
        return -BEYOND_ANY_COLUMN
    return value


def parse_int(value: Any) -> int | None:
    """An integer from a JSON number with no fraction (also a ``Decimal``) or a digit string
    (``" -12 "``); None for anything else.

    The magnitude is capped at ``BEYOND_ANY_COLUMN`` (beyond every column, so a range check
    refuses it): a digit string of thousands of digits is never converted (Python refuses
    more than 4300), ``1e308`` and ``Decimal("1E+999999999")`` never become huge ints.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _bounded(value)
    if isinstance(value, float):
        return _bounded(int(value)) if value.is_integer() else None  # inf and nan: None
    if isinstance(value, Decimal):
        if not value.is_finite() or value != value.to_integral_value():
            return None
        if value.adjusted() >= _EXACT_DIGITS:
            return BEYOND_ANY_COLUMN if value > 0 else -BEYOND_ANY_COLUMN
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if not INTEGER.fullmatch(text):
            return None
        negative = text.startswith("-")
        digits = text.lstrip("+-").lstrip("0")
        if len(digits) > _EXACT_DIGITS:
            return -BEYOND_ANY_COLUMN if negative else BEYOND_ANY_COLUMN
        return -int(digits or "0") if negative else int(digits or "0")
    return None


def range_problem(value: int, low: int | None, high: int | None) -> str | None:
    """What is wrong with ``value`` for the range ``low``..``high`` (None: unbounded), or
    None when it is in range."""
    if (low is None or value >= low) and (high is None or value <= high):
        return None
    if low is None:
        return f"must be at most {high}"
    if high is None:
        return f"must be at least {low}"
    return f"must be between {low} and {high}"


class Int(colander.SchemaType):
    """A JSON integer or a digit string (``"12"``) within ``low``..``high``: by default what
    an INTEGER column holds, whatever the number of digits sent (``None``: unbounded, for a
    value that a rule normalises before its own range check)."""

    def __init__(self, low: int | None = MIN_INT, high: int | None = MAX_INT) -> None:
        self.low = low
        self.high = high

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if _absent(cstruct):
            return colander.null
        value = parse_int(cstruct)
        if value is None:
            raise colander.Invalid(node, "must be an integer")
        problem = range_problem(value, self.low, self.high)
        if problem is not None:
            raise colander.Invalid(node, problem)
        return value


class Number(colander.SchemaType):
    """A decimal amount: a JSON number or a numeric string, kept exact as ``Decimal``."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if _absent(cstruct):
            return colander.null
        if isinstance(cstruct, bool) or not isinstance(cstruct, (str, int, float, Decimal)):
            raise colander.Invalid(node, "must be a number")
        try:
            value = Decimal(str(cstruct).strip())
        except InvalidOperation:
            raise colander.Invalid(node, "must be a number") from None
        if not value.is_finite():
            raise colander.Invalid(node, "must be a number")
        return value


class Raw(colander.SchemaType):
    """Any JSON value, passed through for a domain rule to interpret."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        return cstruct


def optional(
    typ: colander.SchemaType, *children: colander.SchemaNode, **kwargs: Any
) -> colander.SchemaNode:
    """A node (with ``children``, for a mapping or a sequence) that may be absent or null (then
    it is left out of the result)."""
    return colander.SchemaNode(typ, *children, missing=colander.drop, **kwargs)


def require_object(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid_param(field, "must be a JSON object")
    return value


def require_array(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise invalid_param(field, "must be a JSON array")
    return value


def check_length(value: str, field: str, limit: int) -> str:
    """``value`` unless it is longer than its column allows (a 400 naming the field)."""
    if len(value) > limit:
        raise invalid_param(field, f"must be at most {limit} characters")
    return value


def check_text(value: str, field: str, limit: int | None = None) -> str:
    """``value`` unless it is too long or holds a NUL character (no text column stores one)."""
    if limit is not None:
        check_length(value, field, limit)
    if "\x00" in value:
        raise invalid_param(field, "must not contain NUL characters")
    return value


def check_int(value: int, field: str, low: int = MIN_INT, high: int = MAX_INT) -> int:
    """``value`` unless it falls outside ``low``..``high`` (by default the INTEGER columns)."""
    problem = range_problem(value, low, high)
    if problem is not None:
        raise invalid_param(field, problem)
    return value


def int_field(value: Any, field: str, low: int = MIN_INT, high: int = MAX_INT) -> int:
    """An integer of a nested element (``images[0].id``) read like :class:`Int`: 400
    ``shop_api_invalid_param`` naming ``field`` when it is not an integer or out of range."""
    parsed = parse_int(value)
    if parsed is None:
        raise invalid_param(field, "must be an integer")
    return check_int(parsed, field, low, high)


def _first_error(exc: colander.Invalid, path: str) -> tuple[colander.Invalid, str]:
    """The innermost failing node (the first failing child, in schema order, at each level)
    and its field name: ``.name`` for a mapping's child (even an empty one: an entry keyed
    ``""``), ``[index]`` for a sequence's element (``order.line_items[1].quantity``)."""
    name = exc.node.name
    if name:  # the schema's root is normally unnamed
        path = f"{path}.{name}" if path else name
    while exc.children:
        child = exc.children[0]
        if isinstance(exc.node.typ, colander.Sequence):
            path = f"{path}[{child.pos}]"
        else:
            path = f"{path}.{child.node.name}" if path else child.node.name
        exc = child
    return exc, path


def deserialize(schema: colander.SchemaNode, data: Mapping[str, Any], envelope: str) -> Any:
    """``schema.deserialize(data)`` with failures turned into the matching ``ApiError``."""
    try:
        return schema.deserialize(dict(data))
    except colander.Invalid as exc:
        failed, field = _first_error(exc, envelope)
        if isinstance(failed, CodedInvalid):
            raise ApiError(failed.code, str(failed.msg), failed.status) from None
        raise invalid_param(field, str(failed.msg)) from None
