"""Attribute options as stored (reference §2.3, §8), pure: which term of a global attribute an
option names, which parent attribute a variation's ``{name, slug, option}`` element means and the
value it stores, and a variation's title from its values; for the product planner
(``shopsvc.writers.product_batch``)."""

from __future__ import annotations

from typing import Any

from shopsvc.domain import catalog
from shopsvc.validation.products import OptionInput

#: A variation's title names its attribute values only when it has this many or fewer.
TITLE_ATTRIBUTES = 2


def find_term(option: str, known: list[dict[str, Any]]) -> Any:
    """The id of the term in ``known`` whose name is ``option`` (case-insensitive), else whose
    slug is ``option`` or its slug; None when there is none."""
    wanted = option.casefold()
    for term in known:
        if term["name"].casefold() == wanted:
            return term["id"]
    slug = catalog.slugify_name(option)
    for term in known:
        if term["slug"] in (option, slug):
            return term["id"]
    return None


def variation_title(
    parent_title: str, parent_attributes: list[dict[str, Any]], values: dict[str, str]
) -> str:
    """``Parent - Red, Large``: the parent's title, plus the values' names when the variation
    has one or two attributes and each has a value (as the final core)."""
    shown = []
    for attribute in parent_attributes:
        if not attribute["variation"]:
            continue
        value = values.get(attribute_key(attribute), "")
        if not value:
            return parent_title
        name = value
        for term in attribute["terms"]:
            if term["slug"] == value:
                name = term["name"]
        shown.append(name)
    if not shown or len(shown) > TITLE_ATTRIBUTES:
        return parent_title
    return f"{parent_title} - {', '.join(shown)}"


def variation_values(
    parent_attributes: list[dict[str, Any]], options: list[OptionInput]
) -> dict[str, str]:
    """The variation attribute values of ``options``; elements that name no attribute of the
    parent flagged for variations are ignored."""
    values: dict[str, str] = {}
    for option in options:
        attribute = _match_attribute(parent_attributes, option)
        if attribute is None or not attribute["variation"]:
            continue
        values[attribute_key(attribute)] = _option_value(attribute, option.option)
    return values


def default_attributes(
    parent_attributes: list[dict[str, Any]], options: list[OptionInput]
) -> list[dict[str, str]]:
    """A variable product's ``default_attributes`` as stored: ``{slug, option}`` of each element
    naming a variation attribute of the product with a value."""
    values = variation_values(parent_attributes, options)
    return [{"slug": key, "option": value} for key, value in values.items() if value]


def _match_attribute(
    parent_attributes: list[dict[str, Any]], option: OptionInput
) -> dict[str, Any] | None:
    """The parent attribute a ``{name, slug}`` element means: a global attribute by its slug
    (or by name), else a custom attribute by its sanitised name."""
    if option.slug:
        slug = catalog.clean_attribute_slug(option.slug)
        for attribute in parent_attributes:
            if attribute["attribute_id"] and attribute["slug"] == slug:
                return attribute
    key = catalog.clean_attribute_slug(option.name)
    for attribute in parent_attributes:
        if not attribute["attribute_id"] and catalog.clean_attribute_slug(attribute["name"]) == key:
            return attribute
    for attribute in parent_attributes:
        if attribute["attribute_id"] and (
            attribute["slug"] == key or attribute["name"].casefold() == option.name.casefold()
        ):
            return attribute
    return None


def attribute_key(attribute: dict[str, Any]) -> str:
    """The key a variation's value of ``attribute`` is stored under."""
    if attribute["attribute_id"]:
        return str(attribute["slug"])
    return catalog.clean_attribute_slug(attribute["name"])


def _option_value(attribute: dict[str, Any], option: str) -> str:
    """The stored value: a global attribute's term slug, a custom attribute's text."""
    if not option:
        return ""
    if not attribute["attribute_id"]:
        return option
    wanted = option.casefold()
    slug = catalog.slugify_name(option)
    for term in attribute["terms"]:
        if term["name"].casefold() == wanted or term["slug"] in (option, slug):
            return str(term["slug"])
    return slug
