"""Colander schema nodes → JSON Schema (the dialect of OpenAPI 3.1).

Each node type maps to the JSON type a client should send; the looser spellings the type also
accepts (``"yes"`` for a boolean, ``"12"`` for an integer, decisions.md §2) are said in the
description, not widened into unions. Validators become keywords: ``OneOf`` → ``enum``,
``Range`` → ``minimum``/``maximum``, ``Length`` → ``minLength``/``maxLength``, ``Regex`` →
``pattern``. A node type this module does not know is an error, so a new type cannot reach the
document undescribed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import colander

from shopsvc.validation import orders, products, taxes, terms, types

Schema = dict[str, Any]

BOOLEAN_NOTE = 'Also accepted: 1/0, "1"/"0", "true"/"false", "yes"/"no" (any case).'
INTEGER_NOTE = "Also accepted as a digit string."
#: No text column stores a NUL character: every string the server stores refuses one.
NO_NUL = r"^[^\x00]*$"
TEXT: Schema = {
    "type": ["string", "number"],
    "pattern": NO_NUL,
    "description": "A string; a number is written as text.",
}
_SPACE = r"\s*"
BOOLEAN: Schema = {
    "anyOf": [
        {"type": "boolean"},
        {"enum": [0, 1]},
        {
            "type": "string",
            "pattern": r"^\s*(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Yy][Ee][Ss]|[Nn][Oo]|1|0)"
            r"\s*$",
        },
    ],
    "description": BOOLEAN_NOTE,
}
#: A decimal number written as text (``web.validation``'s ``Decimal(text)``), white space around.
DECIMAL_TEXT = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"


def at_most(number: int) -> str:
    """A regular expression of the digit strings of the numbers 0 to ``number`` (without
    leading zeros): ``at_most(25)`` → ``[0-9]|1[0-9]|2[0-5]``."""
    digits = str(number)
    shorter = len(digits) - 1
    found = [f"[0-9]{{1,{shorter}}}" if shorter > 1 else "[0-9]"] if shorter else []
    for place, digit in enumerate(digits):
        rest = len(digits) - place - 1
        low = 1 if place == 0 and len(digits) > 1 else 0
        high = int(digit) - 1
        if high >= low:
            choice = str(low) if high == low else f"[{low}-{high}]"
            tail = "" if not rest else "[0-9]" if rest == 1 else f"[0-9]{{{rest}}}"
            found.append(f"{digits[:place]}{choice}{tail}")
    found.append(digits)
    return "|".join(found)


DECIMAL: Schema = {
    "anyOf": [{"type": "number"}, {"type": "string", "pattern": f"^\\s*{DECIMAL_TEXT}\\s*$"}],
    "description": "A decimal amount.",
}


#: An order amount (``validation.orders.Amount``): below 10^12 in absolute value.
MONEY: Schema = {
    "anyOf": [
        {"type": "number", "exclusiveMinimum": -(10**12), "exclusiveMaximum": 10**12},
        {
            "type": "string",
            "pattern": r"^\s*[+-]?0*(?:[0-9]{1,12}(?:\.[0-9]*)?|\.[0-9]+)\s*$",
        },
    ],
    "description": "A decimal amount below 10^12 in absolute value (a number or a string).",
}


def _digits(low: int | None, high: int | None) -> str:
    """A digit string (after white space, a sign and leading zeros) of a number in
    ``low``..``high`` (``low`` <= 0 <= ``high``; None: unbounded), as ``types.parse_int`` reads."""
    positive = "[0-9]+" if high is None else f"0*(?:{at_most(high)})"
    if low is None:
        negative = "-[0-9]+"
    elif low < 0:
        negative = f"-0*(?:{at_most(-low)})"
    else:
        negative = "-0+"
    return f"^\\s*(?:\\+?{positive}|{negative})\\s*$"


def integer(low: int | None, high: int | None, note: str = INTEGER_NOTE) -> Schema:
    """An integer in ``low``..``high`` as ``types.Int`` reads it: a JSON number without a
    fraction, or a digit string."""
    number: Schema = {"type": "integer"}
    if low is not None:
        number["minimum"] = low
    if high is not None:
        number["maximum"] = high
    text = {"type": "string", "pattern": _digits(low, high)}
    return {"anyOf": [number, text], "description": note}


def _integer(typ: types.Int) -> Schema:
    return integer(typ.low, typ.high)


def nullable(schema: Schema) -> Schema:
    """``schema`` or null (an optional field: null means absent, decisions.md §2)."""
    if "enum" in schema:
        enum = schema["enum"]
        return schema if None in enum else {**schema, "enum": [*enum, None]}
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        return {**schema, "type": [*kinds, "null"]} if "null" not in kinds else schema
    return schema


#: A date (midnight UTC) or an RFC 3339 date-time, as ``domain.pricing`` and ``web.listing``
#: read them (``T`` or a space; seconds, a fraction of up to 6 digits and the offset optional).
_YEAR = (
    r"(?:000[2-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])"
)
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_MONTH_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
DATE = f"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_HOUR, _MINUTE = "(?:[01][0-9]|2[0-3])", "[0-5][0-9]"
TIME = f"{_HOUR}:{_MINUTE}(?::{_MINUTE}(?:\\.[0-9]{{1,6}})?)?(?:[Zz]|[+-]{_HOUR}:{_MINUTE})?"
#: A date alone, a date-time, or nothing (white space around ignored).
MOMENT = f"^\\s*(?:{DATE}(?:[T ]{TIME})?)?\\s*$"
BLANK = {"type": "string", "pattern": r"^\s*$"}


def _non_negative(digits: int) -> str:
    """A non-negative decimal string of at most ``digits`` integer digits (a ``-0`` too), or
    blank: what ``Decimal_`` and ``Rate`` read (``domain.pricing._DECIMAL_TEXT``)."""
    number = rf"\+?0*(?:[0-9]{{1,{digits}}}(?:\.[0-9]*)?|\.[0-9]+)"
    zero = r"-(?:0+(?:\.0*)?|\.0+)"
    return rf"^\s*(?:{number}|{zero})?\s*$"


def _amount() -> Schema:
    return {
        "anyOf": [
            {"type": "number", "minimum": 0, "exclusiveMaximum": 10**12},
            {
                "type": "string",
                "pattern": _non_negative(12),
            },
        ],
        "description": 'A non-negative decimal below 10^12 (a number or a decimal string); "" '
        "clears it.",
    }


NON_NEGATIVE_AMOUNT = _amount()


def _sale_date() -> Schema:
    return {
        "type": "string",
        "pattern": MOMENT,
        "description": 'A date (2015-01-31) or an RFC 3339 date-time; "" clears it.',
    }


def _rate() -> Schema:
    return {
        "anyOf": [
            {"type": "number", "minimum": 0, "maximum": float(taxes.MAX_RATE)},
            {
                "type": "string",
                "pattern": _non_negative(8),
            },
        ],
        "description": f'A non-negative rate up to {taxes.MAX_RATE}; "" is 0.',
    }


#: A location entry: NUL characters only among the characters trimmed off its ends (PHP's
#: ``trim``, ``domain.tax.clean_locations``); in the string form, ``;`` separates entries.
_TRIMMED = r"[\t\n\r\x00\x0b ]*"
_ENTRY = rf"{_TRIMMED}(?:[^\x00]*[^\x00\t\n\r\x0b ])?{_TRIMMED}"
_PART = rf"{_TRIMMED}(?:[^\x00;]*[^\x00;\t\n\r\x0b ])?{_TRIMMED}"


def _locations(typ: taxes.Locations) -> Schema:
    entry = {
        "anyOf": [
            {"type": ["string", "number"], "pattern": f"^{_ENTRY}$", "maxLength": taxes.MAX_TEXT},
            {
                "type": ["boolean", "null", "object", "array"],
                "description": "Read as PHP prints it (true: 1), or skipped.",
            },
        ]
    }
    return {
        "anyOf": [
            {"type": ["string", "number"], "pattern": f"^(?:{_PART};)*{_PART}$"},
            {"type": "array", "items": entry},
        ],
        "description": f"{typ.kind.capitalize()} codes: an array or a ;-separated string.",
    }


def _image() -> Schema:
    return {
        "anyOf": [
            {"type": "number", "minimum": terms.MIN_TERM_INT, "maximum": types.MAX_INT},
            {"type": "string", "pattern": NO_NUL},
        ],
        "description": "An attachment id (a number or a digit string; 0 is none), or the URL "
        "of an image to download.",
    }


def _limit() -> Schema:
    schema = integer(products.UNLIMITED, types.MAX_INT, '-1 (or "") is unlimited.')
    return {**schema, "anyOf": [*schema["anyOf"], {"type": "string", "pattern": r"^\s*$"}]}


def _quantity(typ: products.Quantity) -> Schema:
    schema = integer(typ.low, typ.high, 'A whole number; "" is absent.')
    return {**schema, "anyOf": [*schema["anyOf"], {"type": "string", "pattern": r"^\s*$"}]}


#: What each node type is in JSON Schema (subclasses first: the first match wins).
TYPES: tuple[tuple[type[colander.SchemaType], Callable[[Any], Schema]], ...] = (
    (products.Limit, lambda typ: _limit()),
    (products.Quantity, lambda typ: _quantity(typ)),
    (types.Int, _integer),
    (types.Text, lambda typ: dict(TEXT)),
    (types.LooseBool, lambda typ: dict(BOOLEAN)),
    (types.Truthy, lambda typ: {"description": "Any value, coerced by truthiness."}),
    (orders.Amount, lambda typ: dict(MONEY)),
    (types.Number, lambda typ: dict(DECIMAL)),
    (types.Raw, lambda typ: {}),
    (products.Decimal_, lambda typ: dict(NON_NEGATIVE_AMOUNT)),
    (products.SaleDate, lambda typ: _sale_date()),
    (taxes.Rate, lambda typ: _rate()),
    (taxes.Locations, _locations),
    (terms.Image, lambda typ: _image()),
    (
        orders.LineQuantity,
        lambda typ: integer(-types.MAX_INT, types.MAX_INT, "A whole number."),
    ),
    (
        orders.Variations,
        lambda typ: {
            "type": "object",
            "propertyNames": {"pattern": NO_NUL},
            "additionalProperties": nullable(TEXT),
        },
    ),
    (
        orders.Meta,
        lambda typ: {
            "type": "object",
            "additionalProperties": {
                "anyOf": [{"type": ["object", "array", "null", "boolean"]}, TEXT]
            },
            "description": "Keys starting with _ and non-scalar values are ignored.",
        },
    ),
    (colander.String, lambda typ: {"type": "string"}),
    (colander.Integer, lambda typ: {"type": "integer"}),
    (colander.Boolean, lambda typ: {"type": "boolean"}),
    (colander.Float, lambda typ: {"type": "number"}),
    (colander.Decimal, lambda typ: {"type": ["string", "number"]}),
    (colander.DateTime, lambda typ: {"type": "string", "format": "date-time"}),
    (colander.Date, lambda typ: {"type": "string", "format": "date"}),
)


def _validator_keywords(validator: Any) -> Schema:
    if validator is None:
        return {}
    if isinstance(validator, colander.All):
        merged: Schema = {}
        for inner in validator.validators:
            merged.update(_validator_keywords(inner))
        return merged
    if isinstance(validator, colander.OneOf):
        return {"enum": list(validator.choices)}
    if isinstance(validator, colander.Range):
        found = {"minimum": validator.min, "maximum": validator.max}
        return {key: value for key, value in found.items() if value is not None}
    if isinstance(validator, colander.Length):
        found = {"minLength": validator.min, "maxLength": validator.max}
        return {key: value for key, value in found.items() if value is not None}
    if isinstance(validator, colander.Regex):
        return {"pattern": validator.match_object.pattern}
    return {}


def node_schema(node: colander.SchemaNode) -> Schema:
    """The JSON Schema of one node (a mapping or sequence recursively)."""
    typ = node.typ
    if isinstance(typ, colander.Mapping):
        schema = object_schema(node)
    elif isinstance(typ, (colander.Sequence, colander.List)):
        items = [node_schema(child) for child in node.children]
        schema = {"type": "array", "items": items[0] if items else {}}
    else:
        schema = _scalar(typ)
    schema.update(_validator_keywords(node.validator))
    if node.description:
        schema["description"] = str(node.description)
    return schema


def _scalar(typ: colander.SchemaType) -> Schema:
    for kind, convert in TYPES:
        if isinstance(typ, kind):
            return convert(typ)
    raise TypeError(f"no JSON Schema for the Colander type {type(typ).__name__}")


def object_schema(node: colander.SchemaNode, only: tuple[str, ...] | None = None) -> Schema:
    """A mapping node as a JSON object: each child a property (``only``: just these, in node
    order); children without a default are required."""
    properties: Schema = {}
    required: list[str] = []
    for child in node.children:
        if only is not None and child.name not in only:
            continue
        found = node_schema(child)
        if child.missing is colander.required:
            required.append(child.name)
        else:  # null in an optional field means absent (decisions.md §2)
            found = nullable(found)
        properties[child.name] = found
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def refine(schema: Schema, fields: Mapping[str, Schema]) -> Schema:
    """``schema`` (an object) with keywords added to some of its properties (an ``enum`` that a
    domain rule checks, a ``format``); a field the schema does not have is an error."""
    properties = dict(schema["properties"])
    for name, extra in fields.items():
        if name not in properties:
            raise KeyError(f"no property {name!r} to refine")
        refined = {**properties[name], **extra}
        kinds = properties[name].get("type", ())
        if "enum" in extra and "null" in kinds and None not in extra["enum"]:
            refined["enum"] = [*extra["enum"], None]  # an optional field: null is absent
        properties[name] = refined
    return {**schema, "properties": properties}


def _branches(branch: Any) -> list[Any]:
    """The alternatives ``branch`` stands for inside an ``anyOf``: its own ``anyOf``'s (when it
    says nothing else), or one copy per type of a list of types."""
    if not isinstance(branch, dict):
        return [branch]
    if "anyOf" in branch and set(branch) <= {"anyOf", "description", "examples"}:
        return [item for inner in branch["anyOf"] for item in _branches(inner)]
    kinds = branch.get("type")
    if isinstance(kinds, list) and len(kinds) > 1:
        return [{**branch, "type": kind} for kind in kinds]
    return [branch]


def flat_unions(schema: Any) -> Any:
    """``schema`` with every ``anyOf`` made of single-typed alternatives (no union inside a
    union): the same values, in the form client generators read (openapi-python-client drops
    a model with a union inside a union)."""
    if isinstance(schema, list):
        return [flat_unions(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    found = {key: flat_unions(value) for key, value in schema.items()}
    if isinstance(found.get("anyOf"), list):
        found["anyOf"] = [item for branch in found["anyOf"] for item in _branches(branch)]
        for branch in found["anyOf"]:  # an array of anything says so (items: {})
            if isinstance(branch, dict) and branch.get("type") == "array":
                branch.setdefault("items", {})
    return found
