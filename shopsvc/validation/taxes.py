"""Write fields of a tax rate and of a tax class.

A rate's fields are type-checked by Colander, then normalised by the pure rules of
``shopsvc.domain.tax`` into column values. ``compound`` and ``shipping`` are coerced by
truthiness and never refused; a ``rate`` that is present but not a non-negative number is
``shop_api_invalid_tax_rate``; any other field of the wrong type or beyond what the schema
stores is ``shop_api_invalid_param`` naming the field. Whether a ``class`` exists is the view's
question (it needs the database): here it is only slugified.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

import colander

from shopsvc.domain.tax import (
    clean_locations,
    clean_text,
    format_rate,
    normalise_country,
    normalise_priority,
    normalise_state,
    tax_class_slug,
    tax_name,
)
from shopsvc.errors import ApiError, invalid_param
from shopsvc.validation.types import (
    BEYOND_ANY_COLUMN,
    MIN_INT,
    CodedInvalid,
    Int,
    Number,
    Text,
    Truthy,
    as_text,
    check_int,
    check_text,
    deserialize,
    is_finite,
    is_number,
    optional,
    parse_int,
)

STANDARD = "standard"
#: Limits of the columns (sql/tables.py): text lengths and 32-bit integers.
MAX_TEXT = 200
MAX_COUNTRY = 2
#: ``rate`` is NUMERIC(12, 4).
MAX_RATE = Decimal("99999999.9999")
RATE_MESSAGE = "Tax rate must be a non-negative number."
LOCATION_FIELDS: dict[str, Literal["postcode", "city"]] = {"postcode": "postcode", "city": "city"}


class Rate(colander.SchemaType):
    """A rate: a non-negative JSON number or numeric string; ``""`` is 0."""

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if isinstance(cstruct, str) and cstruct.strip() == "":
            return Decimal(0)
        try:
            value = Number().deserialize(node, cstruct)
        except colander.Invalid:
            raise CodedInvalid(node, RATE_MESSAGE, "shop_api_invalid_tax_rate") from None
        if value < 0:
            raise CodedInvalid(node, RATE_MESSAGE, "shop_api_invalid_tax_rate")
        if value > MAX_RATE:
            raise CodedInvalid(
                node, f"Tax rate must be at most {MAX_RATE}.", "shop_api_invalid_tax_rate"
            )
        return Decimal(format_rate(value))


class Locations(colander.SchemaType):
    """Postcodes or cities: a ``;``-separated string or an array, cleaned into a list."""

    def __init__(self, kind: Literal["postcode", "city"]) -> None:
        self.kind = kind

    def deserialize(self, node: colander.SchemaNode, cstruct: Any) -> Any:
        if cstruct is colander.null or cstruct is None:
            return colander.null
        if is_number(cstruct):
            cstruct = as_text(cstruct)  # None (refused below) when it overflowed to infinity
        if not isinstance(cstruct, (str, list)):
            raise colander.Invalid(node, "must be a ;-separated string or an array")
        if isinstance(cstruct, list) and any(
            is_number(item) and not is_finite(item) for item in cstruct
        ):
            raise colander.Invalid(node, "entries must be finite numbers or strings")
        codes = clean_locations(cstruct, self.kind)
        for code in codes:
            if len(code) > MAX_TEXT:
                raise colander.Invalid(node, f"entries must be at most {MAX_TEXT} characters")
            if "\x00" in code:
                raise colander.Invalid(node, "must not contain NUL characters")
        return codes


def _rate_schema() -> colander.SchemaNode:
    schema = colander.SchemaNode(colander.Mapping(unknown="ignore"))
    schema.add(optional(Text(), name="country"))
    schema.add(optional(Text(), name="state"))
    schema.add(optional(Rate(), name="rate"))
    schema.add(optional(Text(), name="name"))
    # any integer: its absolute value (PHP's absint) is range-checked once normalised
    schema.add(optional(Int(None, None), name="priority"))
    schema.add(optional(Truthy(), name="compound"))
    schema.add(optional(Truthy(), name="shipping"))
    schema.add(optional(Int(), name="order"))
    schema.add(optional(Text(), name="class"))
    schema.add(optional(Locations("postcode"), name="postcode"))
    schema.add(optional(Locations("city"), name="city"))
    return schema


RATE_SCHEMA = _rate_schema()


def clean_rate(data: dict[str, Any]) -> dict[str, Any]:
    """The given fields of a rate, normalised, keyed by column name.

    Keys: ``country``, ``state``, ``rate``, ``name``, ``priority``, ``compound``, ``shipping``,
    ``rate_order``, ``class_slug`` (``""`` is the standard class) and the location lists
    ``postcode`` and ``city``. Absent (or null) fields are left out.
    """
    given = deserialize(RATE_SCHEMA, data, "tax")
    clean: dict[str, Any] = {}
    if "country" in given:
        clean["country"] = check_text(
            normalise_country(given["country"]), "tax.country", MAX_COUNTRY
        )
    if "state" in given:
        clean["state"] = check_text(normalise_state(given["state"]), "tax.state", MAX_TEXT)
    if "rate" in given:
        clean["rate"] = given["rate"]
    if "name" in given:
        clean["name"] = check_text(tax_name(given["name"]), "tax.name", MAX_TEXT)
    if "priority" in given:
        clean["priority"] = check_int(normalise_priority(given["priority"]), "tax.priority", 0)
    for field in ("compound", "shipping"):
        if field in given:
            clean[field] = given[field]
    if "order" in given:
        clean["rate_order"] = check_int(given["order"], "tax.order", MIN_INT)
    if "class" in given:
        clean["class_slug"] = rate_class_slug(given["class"])
    for field in LOCATION_FIELDS:
        if field in given:
            clean[field] = given[field]
    return clean


def rate_class_slug(text: str) -> str:
    """The slug of a rate's ``class`` text: ``""`` for the standard class."""
    slug = tax_class_slug(text)
    return "" if slug == STANDARD else slug


def class_slug_hint(data: dict[str, Any]) -> str | None:
    """The class slug :func:`clean_rate` will make of ``data``'s ``class`` (``""``: standard),
    or None when it has none or will refuse it (to look the classes of a bulk up at once)."""
    text = as_text(data.get("class"))
    if text is None or "\x00" in text:
        return None
    return rate_class_slug(text)


def bulk_rate_id(value: Any) -> int:
    """A bulk element's ``id``: non-zero edits that rate, anything else (absent, 0, not an
    integer) creates one (decisions.md §7). The caller range-checks a non-zero id; a number that
    overflowed to infinity (``1e309``) is an id beyond every column, not a create."""
    if is_number(value) and not is_finite(value):
        return BEYOND_ANY_COLUMN
    return parse_int(value) or 0


RATE_DEFAULTS: dict[str, Any] = {
    "country": "",
    "state": "",
    "rate": Decimal("0.0000"),
    "name": tax_name(""),
    "priority": 1,
    "compound": False,
    "shipping": True,
    "rate_order": 0,
    "class_slug": "",
    "postcode": [],
    "city": [],
}


def clean_create(data: dict[str, Any]) -> dict[str, Any]:
    """Every field of a new rate: the given ones normalised, the rest at their defaults."""
    return {**RATE_DEFAULTS, **clean_rate(data)}


def class_filter(value: str | None) -> str | None:
    """The list's ``class``: ``None`` when absent or empty, ``""`` for standard, else a slug."""
    if value is None or value.strip() == "":
        return None
    return rate_class_slug(value)


# --- tax classes


class _TaxClass(colander.MappingSchema):
    name = optional(Text())


def clean_class_name(data: dict[str, Any]) -> str:
    """The text-cleaned ``name`` of a new class; 400 ``shop_api_missing_tax_class_name`` when
    it is absent or empty."""
    name = clean_text(deserialize(_TaxClass(), data, "tax_class").get("name", ""))
    if not name:
        raise ApiError("shop_api_missing_tax_class_name", "Missing parameter name", 400)
    if len(name) > MAX_TEXT:
        raise invalid_param("tax_class.name", f"must be at most {MAX_TEXT} characters")
    if "\x00" in name:
        raise invalid_param("tax_class.name", "must not contain NUL characters")
    return name
