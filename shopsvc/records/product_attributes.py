"""A product's attributes as its record shows them (reference products.md §2.3): each
attribute's slug (global: the stored slug, without ``pa_``; custom: its name sanitised like a
taxonomy name) and options (global: the chosen terms in the attribute's order; custom: the stored
texts), and the value a variation holds for each of its parent's variation attributes (a custom
attribute's key matched however its name was sanitised). Pure rules over the loaded
``ProductData``; ``shopsvc.records.products`` builds the records with them.
"""

from __future__ import annotations

import functools
from typing import Any

from shopsvc.domain import catalog
from shopsvc.sql.product_data import ProductAttribute, ProductData

_clean_slug = functools.lru_cache(maxsize=4096)(catalog.clean_attribute_slug)
_slugify = functools.lru_cache(maxsize=4096)(catalog.slugify_name)


def attribute_key(attribute: ProductAttribute) -> str:
    """The slug of a product attribute as shown (global: without ``pa_``; custom: its name
    sanitised like a taxonomy name)."""
    if attribute.is_global:
        return attribute.slug
    return _clean_slug(attribute.name)


def option_names(attribute: ProductAttribute) -> list[str]:
    """Global: the chosen term names in the attribute's order; custom: the stored texts."""
    if attribute.is_global:
        return [term["name"] for term in catalog.sort_terms(attribute.options, attribute.order_by)]
    return [str(option) for option in attribute.options]


def product_attributes(node: ProductData) -> list[dict[str, Any]]:
    """The ``attributes`` of a product's record, by position."""
    return [
        {
            "name": attribute.name,
            "slug": attribute_key(attribute),
            "position": attribute.position,
            "visible": attribute.visible,
            "variation": attribute.variation,
            "options": option_names(attribute),
        }
        for attribute in node.attributes
    ]


def variation_value(node: ProductData, attribute: ProductAttribute) -> tuple[str, str]:
    """(the stored key, the value) of one of the parent's variation attributes on ``node``;
    a custom attribute's key is matched however its name was sanitised."""
    values = node.variation_values
    if attribute.is_global:
        return attribute.slug, values.get(attribute.slug, "")
    candidates = key_candidates(attribute.name)
    for key in candidates:
        if key in values:
            return key, values[key]
    lowered = {key.lower(): key for key in values}
    for key in candidates:
        if key.lower() in lowered:
            found = lowered[key.lower()]
            return found, values[found]
    return candidates[0], ""


@functools.lru_cache(maxsize=4096)
def key_candidates(name: str) -> tuple[str, ...]:
    """The keys a variation may store a custom attribute's value under, the likeliest first."""
    return (_clean_slug(name), _slugify(name), name.lower(), name)


def variation_attribute_values(node: ProductData) -> list[tuple[ProductAttribute, str, str]]:
    """(attribute, stored key, value) of each of the parent's variation attributes on the
    variation ``node`` (none without a parent)."""
    parent = node.parent
    if parent is None:
        return []
    found = []
    for attribute in parent.attributes:
        if attribute.variation:
            key, value = variation_value(node, attribute)
            found.append((attribute, key, value))
    return found
