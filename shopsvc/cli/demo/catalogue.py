"""The shared catalogue a run sells from, found by name or slug and created when missing:
categories (a tree, one top category per section), tags, shipping classes, the global
attributes Color and Size with their terms, and -- for a store without any tax rate -- a
``Reduced rate`` class with standard and reduced rates; and the store's rates as read back."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import Engine

from shopsvc.cli.demo.vocabulary import (
    COLORS,
    REDUCED_CLASS,
    SECTIONS,
    SHIPPING_CLASSES,
    SIZES,
    TAGS,
    TAX_RATES,
    Section,
    make_slug,
)
from shopsvc.db.engine import write_transaction
from shopsvc.domain import catalog
from shopsvc.domain.tax import TaxRate
from shopsvc.sql import demo as sql

# The catalogue's own slug rule for the terms a run creates.
_find_or_create_term = functools.partial(sql.find_or_create_term, unique_slug=catalog.unique_slug)
_find_or_create_attribute_terms = functools.partial(
    sql.find_or_create_attribute_terms, unique_slug=catalog.unique_slug
)


@dataclass(frozen=True)
class AttributeInfo:
    """A variation attribute: global (``attribute_id``) or custom (None)."""

    attribute_id: int | None
    name: str
    key: str  # the variation_attributes key: the global slug, or the custom name's slug
    meta_key: str  # the order item meta key (pa_<slug> for a global attribute)
    options: tuple[tuple[str, str, int | None], ...]  # (name, stored value, attribute term id)


@dataclass(frozen=True)
class SectionInfo:
    """A section as stored: its top category, subcategories (with their nouns), variation
    attributes and shipping classes."""

    section: Section
    top_id: int
    children: tuple[tuple[int, tuple[str, ...]], ...]  # (category id, nouns)
    attributes: tuple[AttributeInfo, ...]
    shipping_ids: tuple[int, ...]


@dataclass(frozen=True)
class Catalogue:
    """What the phases use of the shared catalogue, and the store's tax rates and classes."""

    sections: tuple[SectionInfo, ...]
    tag_ids: tuple[int, ...]
    reduced_class: str  # "" when the store has no reduced class
    rates: tuple[TaxRate, ...]
    class_slugs: tuple[str, ...]


def setup_catalogue(engine: Engine) -> Catalogue:
    """Find or create the shared catalogue (and the tax rates of a store without any)."""
    with write_transaction(engine) as conn:
        if sql.tax_rate_count(conn) == 0:
            reduced_id = sql.find_or_create_tax_class(conn, *REDUCED_CLASS)
            for order, (country, state, rate, name, shipping, reduced) in enumerate(TAX_RATES):
                values = {
                    "country": country,
                    "state": state,
                    "rate": Decimal(rate),
                    "name": name,
                    "priority": 1,
                    "compound": False,
                    "shipping": shipping,
                    "rate_order": order,
                    "tax_class_id": reduced_id if reduced else None,
                }
                sql.insert_tax_rate(conn, values)
        class_slugs = sql.tax_class_slugs(conn)
        reduced_class = REDUCED_CLASS[1] if REDUCED_CLASS[1] in class_slugs else ""
        shipping_ids = {
            slug: _find_or_create_term(conn, "product_shipping_class", name, slug)
            for slug, name in SHIPPING_CLASSES.items()
        }
        tag_ids = tuple(_find_or_create_term(conn, "product_tag", n, make_slug(n)) for n in TAGS)
        global_attributes = []
        for name, slug, options in (("Color", "color", COLORS), ("Size", "size", SIZES)):
            attribute_id = sql.find_or_create_attribute(conn, name, slug)
            found = _find_or_create_attribute_terms(
                conn, attribute_id, [(option, make_slug(option)) for option in options]
            )
            terms = tuple((o, found[o][1], found[o][0]) for o in options)
            global_attributes.append(AttributeInfo(attribute_id, name, slug, f"pa_{slug}", terms))
        color, size = global_attributes
        sections = []
        for section in SECTIONS:
            description = f"Our {section.name.lower()} collection."
            top = _find_or_create_term(
                conn, "product_cat", section.name, make_slug(section.name), 0, description
            )
            children = tuple(
                (_find_or_create_term(conn, "product_cat", name, make_slug(name), top), nouns)
                for name, nouns in section.children
            )
            if section.variations == "color-size":
                attributes: tuple[AttributeInfo, ...] = (color, size)
            elif section.variations == "color":
                attributes = (color,)
            else:
                name, _, options = section.variations.partition(":")
                key = catalog.clean_attribute_slug(name)
                values = tuple((o, o, None) for o in options.split("|"))
                attributes = (AttributeInfo(None, name, key, key, values),)
            shipping = tuple(shipping_ids[slug] for slug in section.shipping)
            sections.append(SectionInfo(section, top, children, attributes, shipping))
        rates = tuple(
            TaxRate(
                id=row["id"],
                country=row["country"],
                state=row["state"],
                rate=Decimal(row["rate"]),
                name=row["name"],
                priority=row["priority"],
                compound=bool(row["compound"]),
                shipping=bool(row["shipping"]),
                order=row["rate_order"],
                tax_class=row["class_slug"] or "",
                postcodes=row["postcodes"],
                cities=row["cities"],
            )
            for row in sql.all_tax_rates(conn)
        )
    return Catalogue(tuple(sections), tag_ids, reduced_class, rates, class_slugs)
