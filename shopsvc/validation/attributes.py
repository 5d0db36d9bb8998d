"""Write fields of a global attribute: ``name``, ``slug``, ``type``, ``order_by``,
``has_archives``.

Field types are checked first (a wrong type is 400 ``shop_api_invalid_param``), then the
reference's checks in its order, each a 400: the name is empty; the first failing slug rule (too
long, reserved, already used — the last on create only); the type; the order_by. On edit the
omitted fields keep their current values and the slug rules apply to the slug kept too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import colander

from shopsvc.domain.catalog import (
    check_attribute_order_by,
    check_attribute_slug,
    check_attribute_type,
    clean_attribute_slug,
    plain_text,
)
from shopsvc.errors import ApiError, invalid_param
from shopsvc.validation.types import LooseBool, Text, deserialize, optional, require_object

ENVELOPE = "product_attribute"
MAX_NAME = 200
DEFAULTS: dict[str, Any] = {"type": "select", "order_by": "menu_order", "has_archives": False}


def invalid_attribute_id() -> ApiError:
    return ApiError("shop_api_invalid_product_attribute_id", "Invalid product attribute ID", 400)


def attribute_not_found() -> ApiError:
    return ApiError(
        "shop_api_invalid_product_attribute_id",
        "A product attribute with the provided ID could not be found",
        404,
    )


class _Attribute(colander.MappingSchema):
    name = optional(Text())
    slug = optional(Text())
    type = optional(Text())
    order_by = optional(Text())
    has_archives = optional(LooseBool())


def _name(value: str) -> str:
    name = plain_text(value)
    if len(name) > MAX_NAME:
        raise invalid_param(f"{ENVELOPE}.name", f"must be at most {MAX_NAME} characters")
    if "\x00" in name:
        raise invalid_param(f"{ENVELOPE}.name", "must not contain NUL characters")
    return name


def clean_attribute(
    data: Any,
    current: dict[str, Any] | None,
    slug_taken: Callable[[str], bool] | None,
) -> dict[str, Any]:
    """The attribute's columns ``name, slug, type, order_by, has_archives`` after the checks.

    ``current`` is the stored attribute on edit (None on create); ``slug_taken`` answers
    whether another attribute has a slug (pass it on create only).
    """
    given = deserialize(_Attribute(), require_object(data, ENVELOPE), ENVELOPE)
    values = dict(current or DEFAULTS)
    values.pop("id", None)
    if "name" in given or current is None:
        values["name"] = _name(given.get("name", ""))
    if not values["name"]:
        raise ApiError("shop_api_missing_product_attribute_name", "Missing parameter name", 400)
    slug = clean_attribute_slug(given.get("slug", ""))
    if slug:
        values["slug"] = slug
    elif current is None:
        values["slug"] = clean_attribute_slug(values["name"])
    slug = values["slug"]
    error = check_attribute_slug(slug)
    if error is None and slug_taken is not None and slug_taken(slug):
        error = check_attribute_slug(slug, {slug})
    if error is not None:
        raise error
    if not slug:
        raise ApiError(
            "shop_api_cannot_create_product_attribute",
            "Could not create the attribute: its name gives an empty slug.",
            400,
        )
    for field, check in (("type", check_attribute_type), ("order_by", check_attribute_order_by)):
        if field in given:
            values[field] = given[field].strip()
        error = check(values[field])
        if error is not None:
            raise error
    if "has_archives" in given:
        values["has_archives"] = given["has_archives"]
    return values
