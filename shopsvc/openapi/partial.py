"""The records an answer to ``fields=…`` may hold (``web.rendering.filter_fields``).

``fields`` keeps the named top-level fields of a record and, for ``parent.child``, only the
named children of an object or of each object of a list: any field a record declares required
may be missing at those two levels, none below. So each record a ``fields`` request may return
has a variant, ``<Record>Partial``, that requires nothing at its top level nor at the top of
the objects its fields hold (a ``$ref`` there is taken in, with its own top loosened); the
operations that read ``fields`` answer ``anyOf`` the record and that variant, so a client keeps
the full record's types for a plain request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shopsvc.openapi.schema import Schema

SUFFIX = "Partial"
_BRANCHES = ("anyOf", "oneOf", "allOf")


def partial_name(record: str) -> str:
    return record + SUFFIX


def _resolved(schema: Schema, components: Mapping[str, Schema]) -> Schema:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _top_loosened(schema: Schema, components: Mapping[str, Schema]) -> Schema:
    """``schema`` requiring nothing at its top (an array: at the top of its items)."""
    schema = _resolved(schema, components)
    found: dict[str, Any] = {key: value for key, value in schema.items() if key != "required"}
    for key in _BRANCHES:
        if key in found:
            found[key] = [_top_loosened(branch, components) for branch in found[key]]
    if isinstance(found.get("items"), dict):
        found["items"] = _top_loosened(found["items"], components)
    return found


def partial(schema: Schema, components: Mapping[str, Schema]) -> Schema:
    """The variant of the record ``schema`` that a ``fields`` request may answer."""
    found: dict[str, Any] = {key: value for key, value in schema.items() if key != "required"}
    found["properties"] = {
        name: _top_loosened(field, components) for name, field in schema["properties"].items()
    }
    return found


def partial_records(names: set[str], components: Mapping[str, Schema]) -> dict[str, Schema]:
    """The ``<Record>Partial`` components of the records ``names``."""
    return {
        partial_name(name): partial(components[name], components)
        for name in sorted(names)
        if "properties" in components[name]
    }


def answer_item(record: str, components: Mapping[str, Schema]) -> Schema:
    """A record of an operation that reads ``fields``: whole, or cut by ``fields``."""
    ref = {"$ref": f"#/components/schemas/{record}"}
    if "properties" not in components[record]:
        return ref
    return {"anyOf": [ref, {"$ref": f"#/components/schemas/{partial_name(record)}"}]}
