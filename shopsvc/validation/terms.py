"""Write fields of the term-like families: categories, tags, shipping classes, attribute terms.

Each family accepts ``name`` and ``slug`` plus some of ``description``, ``parent``, ``display``,
``image`` and ``menu_order``. Fields are type-checked by Colander (a wrong type is 400
``shop_api_invalid_param`` naming the field; JSON null means absent), then normalised:

* ``name``: plain text (tags stripped, whitespace collapsed, trimmed); at most 200 characters;
* ``slug``: sanitised like a name's slug (``""`` when nothing is left); at most 200 characters;
* ``description``: kept as given;
* ``parent``, ``menu_order``: integers (``parent`` is checked against the database by the view);
* ``display``: plain text, at most 20 characters (not checked against a list, as the original);
* ``image``: an :class:`ImageRef` — an attachment id when the value is numeric (``0`` or ``""``:
  none), otherwise a URL to download.

Whether a name is empty or taken is the view's question: the families answer it with their own
codes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import colander

from shopsvc.domain.catalog import plain_text, slugify_name
from shopsvc.validation.types import (
    MAX_INT,
    Int,
    Text,
    check_int,
    check_text,
    deserialize,
    optional,
    require_object,
)

MAX_NAME = 200
MAX_SLUG = 200
MAX_DISPLAY = 20
NUMERIC = re.compile(r"\s*[+-]?[0-9]+(?:\.0*)?\s*")
#: What each field of a family is, before normalising.
FIELD_TYPES: dict[str, type[colander.SchemaType]] = {
    "name": Text,
    "slug": Text,
    "description": Text,
    "parent": Int,
    "display": Text,
    "menu_order": Int,
}


@dataclass(frozen=True)
class ImageRef:
    """A category image given on write: an attachment id (0: none) or a URL to download."""

    attachment_id: int = 0
    url: str = ""


class Image(colander.SchemaType):
    """An attachment id (a JSON integer or numeric string) or a URL (any other string)."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if isinstance(cstruct, bool) or not isinstance(cstruct, (str, int, float)):
            raise colander.Invalid(node, "must be an attachment id or a URL")
        if isinstance(cstruct, (int, float)):
            return ImageRef(attachment_id=int(cstruct) if float(cstruct).is_integer() else 0)
        if cstruct.strip() == "":
            return ImageRef()
        if NUMERIC.fullmatch(cstruct):
            return ImageRef(attachment_id=int(float(cstruct)))
        return ImageRef(url=cstruct.strip())


@functools.cache
def _schema(fields: frozenset[str]) -> colander.SchemaNode:
    schema = colander.SchemaNode(colander.Mapping(unknown="ignore"))
    for field, kind in FIELD_TYPES.items():
        if field in fields:
            schema.add(optional(kind(), name=field))
    if "image" in fields:
        schema.add(optional(Image(), name="image"))
    return schema


def clean_term(data: Any, envelope: str, fields: Collection[str]) -> dict[str, Any]:
    """The given write fields of a term (those of ``fields``), normalised; absent ones left
    out."""
    given = deserialize(_schema(frozenset(fields)), require_object(data, envelope), envelope)
    clean: dict[str, Any] = {}
    for field, value in given.items():
        where = f"{envelope}.{field}"
        if field == "name":
            clean[field] = check_text(plain_text(value), where, MAX_NAME)
        elif field == "slug":
            clean[field] = check_text(slugify_name(value), where, MAX_SLUG)
        elif field == "display":
            clean[field] = check_text(plain_text(value), where, MAX_DISPLAY)
        elif field == "description":
            clean[field] = check_text(value, where)
        elif field in ("parent", "menu_order"):
            clean[field] = check_int(value, where, -MAX_INT)
        else:
            clean[field] = value
    return clean
