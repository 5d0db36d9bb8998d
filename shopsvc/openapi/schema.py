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


def _integer(typ: types.Int) -> Schema:
    schema: Schema = {"type": "integer", "description": INTEGER_NOTE}
    if typ.low is not None:
        schema["minimum"] = typ.low
    if typ.high is not None:
        schema["maximum"] = typ.high
    return schema


#: What each node type is in JSON Schema (subclasses first: the first match wins).
TYPES: tuple[tuple[type[colander.SchemaType], Callable[[Any], Schema]], ...] = (
    (types.Int, _integer),
    (types.Text, lambda typ: {"type": "string"}),
    (types.LooseBool, lambda typ: {"type": "boolean", "description": BOOLEAN_NOTE}),
    (
        types.Truthy,
        lambda typ: {"type": "boolean", "description": "Any value, coerced by truthiness."},
    ),
    (
        types.Number,
        lambda typ: {"type": ["string", "number"], "description": "A decimal amount."},
    ),
    (types.Raw, lambda typ: {}),
    (
        products.Decimal_,
        lambda typ: {
            "type": ["string", "number"],
            "description": 'A non-negative decimal; "" clears it.',
        },
    ),
    (
        products.SaleDate,
        lambda typ: {
            "type": "string",
            "description": 'A date (2015-01-31) or an RFC 3339 date-time; "" clears it.',
        },
    ),
    (
        products.Limit,
        lambda typ: {
            "type": "integer",
            "minimum": products.UNLIMITED,
            "maximum": types.MAX_INT,
            "description": '-1 (or "") is unlimited.',
        },
    ),
    (
        taxes.Rate,
        lambda typ: {
            "type": ["string", "number"],
            "description": f'A non-negative rate up to {taxes.MAX_RATE}; "" is 0.',
        },
    ),
    (
        taxes.Locations,
        lambda typ: {
            "type": ["string", "array"],
            "items": {"type": "string"},
            "description": f"{typ.kind.capitalize()} codes: an array or a ;-separated string.",
        },
    ),
    (
        terms.Image,
        lambda typ: {
            "type": ["integer", "string"],
            "description": "An attachment id, or the URL of an image to download.",
        },
    ),
    (
        orders.LineQuantity,
        lambda typ: {"type": ["integer", "string"], "description": "A whole number."},
    ),
    (
        orders.Variations,
        lambda typ: {"type": "object", "additionalProperties": {"type": "string"}},
    ),
    (
        orders.Meta,
        lambda typ: {
            "type": "object",
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
        properties[child.name] = node_schema(child)
        if child.missing is colander.required:
            required.append(child.name)
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
        properties[name] = {**properties[name], **extra}
    return {**schema, "properties": properties}
