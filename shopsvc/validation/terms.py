"""Write fields of the term-like families: categories, tags, shipping classes, attribute terms.

Each family accepts ``name`` and ``slug`` plus some of ``description``, ``parent``, ``display``,
``image`` and ``menu_order``. Fields are type-checked by Colander (a wrong type is 400
``shop_api_invalid_param`` naming the field; JSON null means absent), then normalised:

* ``name``: plain text (tags stripped, whitespace collapsed, trimmed); at most 200 characters;
* ``slug``: sanitised like a name's slug (``""`` when nothing is left); at most 200 characters;
* ``description``: kept as given;
* ``parent``, ``menu_order``: integers that their columns hold (``parent`` is checked against the
  database by the view);
* ``display``: plain text, at most 20 characters (not checked against a list, as the original);
* ``image``: an :class:`ImageRef` — an attachment id when the value is numeric (``0``, ``""``, a
  negative or fractional number: none; beyond what an id column holds: 400), otherwise a URL to
  download.

Whether a name is empty or taken is the view's question: the families answer it with their own
codes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import colander

from shopsvc.domain.catalog import plain_text, slugify_name
from shopsvc.validation.types import (
    MAX_INT,
    Int,
    Text,
    check_text,
    deserialize,
    is_finite,
    is_number,
    optional,
    parse_int,
    range_problem,
    require_object,
)

MAX_NAME = 200
MAX_SLUG = 200
MAX_DISPLAY = 20
NUMERIC = re.compile(r"\s*[+-]?[0-9]+(?:\.0*)?\s*")
#: The ids and orders a term stores (``parent_id``, ``image_id``, ``menu_order``).
MIN_TERM_INT = -MAX_INT
#: What each field of a family is, before normalising.
FIELD_TYPES: dict[str, Callable[[], colander.SchemaType]] = {
    "name": Text,
    "slug": Text,
    "description": Text,
    "parent": lambda: Int(MIN_TERM_INT, MAX_INT),
    "display": Text,
    "menu_order": lambda: Int(MIN_TERM_INT, MAX_INT),
}


@dataclass(frozen=True)
class ImageRef:
    """A category image given on write: an attachment id (0: none) or a URL to download."""

    attachment_id: int = 0
    url: str = ""


class Image(colander.SchemaType):
    """An attachment id (a JSON number or numeric string) or a URL (any other string).

    A whole number is the id (read without ever going through a float, so no number of digits
    overflows); one beyond what the id column holds is refused; a fractional number is no image.
    """

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if is_number(cstruct) and not is_finite(cstruct):
            raise colander.Invalid(node, "must be a finite number")
        if not isinstance(cstruct, str) and not is_number(cstruct):
            raise colander.Invalid(node, "must be an attachment id or a URL")
        if isinstance(cstruct, str):
            if cstruct.strip() == "":
                return ImageRef()
            if not NUMERIC.fullmatch(cstruct):
                return ImageRef(url=cstruct.strip())
            cstruct = cstruct.strip().partition(".")[0]  # NUMERIC: only zeros follow a "."
        attachment_id = parse_int(cstruct)
        if attachment_id is None:  # a fraction
            return ImageRef()
        problem = range_problem(attachment_id, MIN_TERM_INT, MAX_INT)
        if problem is not None:
            raise colander.Invalid(node, problem)
        return ImageRef(attachment_id=attachment_id)


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
        else:
            clean[field] = value
    return clean
