"""Colander types shared by every family, and the bridge from ``colander.Invalid`` to ``ApiError``.

Input rules (decisions.md §2, §7): booleans accept ``true/false``, ``1/0``, ``"1"/"0"``,
``"true"/"false"``, ``"yes"/"no"`` in any case; integers accept JSON numbers and digit strings; a
JSON null in an optional field means absent. A value of the wrong type is a 400
``shop_api_invalid_param`` naming the field, unless a node says which spec code to use.
"""

from __future__ import annotations

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


class CodedInvalid(colander.Invalid):
    """An ``Invalid`` that carries the spec's error code (and status) for its node."""

    def __init__(self, node: colander.SchemaNode, msg: str, code: str, status: int = 400) -> None:
        super().__init__(node, msg)
        self.code = code
        self.status = status


def _absent(cstruct: Any) -> bool:
    return cstruct is colander.null or cstruct is None


class Text(colander.SchemaType):
    """A JSON string; numbers are accepted and written as text, anything else is refused."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if _absent(cstruct):
            return colander.null
        if isinstance(cstruct, bool) or not isinstance(cstruct, (str, int, float)):
            raise colander.Invalid(node, "must be a string")
        if isinstance(cstruct, str) and "\x00" in cstruct:
            raise colander.Invalid(node, "must not contain NUL characters")
        return cstruct if isinstance(cstruct, str) else str(cstruct)


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


def parse_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    return None


class Int(colander.SchemaType):
    """A JSON integer or a digit string (``"12"``)."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if _absent(cstruct):
            return colander.null
        value = parse_int(cstruct)
        if value is None:
            raise colander.Invalid(node, "must be an integer")
        return value


class Number(colander.SchemaType):
    """A decimal amount: a JSON number or a numeric string, kept exact as ``Decimal``."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if _absent(cstruct):
            return colander.null
        if isinstance(cstruct, bool) or not isinstance(cstruct, (str, int, float)):
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


def optional(typ: colander.SchemaType, **kwargs: Any) -> colander.SchemaNode:
    """A node that may be absent or null (then it is left out of the result)."""
    return colander.SchemaNode(typ, missing=colander.drop, **kwargs)


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
    if not low <= value <= high:
        raise invalid_param(field, f"must be between {low} and {high}")
    return value


def _first_error(exc: colander.Invalid, path: str) -> tuple[colander.Invalid, str]:
    """The innermost failing node and its dotted field name."""
    name = exc.node.name
    if name:
        path = f"{path}.{name}" if path else name
    if exc.children:
        return _first_error(exc.children[0], path)
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
