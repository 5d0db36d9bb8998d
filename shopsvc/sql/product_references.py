"""What a product write names, read in one statement before its first check
(``shopsvc.writers.product_batch``): the live owners of its SKUs, the terms, media, global
attributes (with their terms), shipping and tax classes and parents it names, and on SQLite the
last id its new rows follow. Each kind is one part of a ``UNION ALL`` (only the parts asked
for), so a create that names all of them still reads them in one round trip.

SKUs and shipping-class slugs are matched with the database's own ``lower()`` and returned with
the key it computed (as ``sql.product_lookups`` does)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Integer, Text, cast, func, literal, null, select, union_all
from sqlalchemy.sql import column, table

from shopsvc.sql.products import SHIPPING_CLASS
from shopsvc.sql.tables import attribute_terms, attributes, media, products, tax_classes, terms

Row = dict[str, Any]
#: SQLite's AUTOINCREMENT counters (one row per table that has taken an id).
SQLITE_SEQUENCE = table("sqlite_sequence", column("name"), column("seq"))


@dataclass
class References:
    """What :func:`get_references` found."""

    live_skus: list[Row] = field(default_factory=list)  # {id, key}, by id
    term_taxonomies: dict[int, str] = field(default_factory=dict)
    media: set[int] = field(default_factory=set)
    attributes: dict[str, Row] = field(default_factory=dict)  # {id, name, slug} by slug
    attribute_terms: list[Row] = field(default_factory=list)  # {id, attribute_id, name, slug}
    shipping: dict[str, int] = field(default_factory=dict)  # lower(slug): smallest id
    tax_classes: set[str] = field(default_factory=set)
    parents: set[int] = field(default_factory=set)  # products (not variations) that exist
    last_id: int | None = None
    lowered: dict[str, str] = field(default_factory=dict)  # a non-ASCII SKU: the database's lower()


def _part(number: int, *columns: Any) -> list[Any]:
    """The columns of one part: ``part, n1, n2, s1, s2`` (missing ones NULL)."""
    given = list(columns) + [None] * (4 - len(columns))
    kinds = (Integer, Integer, Text, Text)
    return [literal(number).label("part")] + [
        cast(null() if value is None else value, kind).label(name)
        for value, kind, name in zip(given, kinds, ("n1", "n2", "s1", "s2"), strict=True)
    ]


def get_references(
    conn: Connection,
    *,
    skus: Iterable[str] = (),
    unicode_skus: Iterable[str] = (),
    term_ids: Iterable[int] = (),
    media_ids: Iterable[int] = (),
    attribute_slugs: Iterable[str] = (),
    shipping: Iterable[str] = (),
    tax_class_slugs: Iterable[str] = (),
    parents: Iterable[int] = (),
    last_id: bool = False,
) -> References:
    """Everything of the above the write names (``skus`` and ``shipping`` lower-cased); the
    last product id only with ``last_id`` (SQLite: its AUTOINCREMENT counter, or the largest
    id). ``unicode_skus`` (as given) are also lowered by the database, whose ``lower()`` (which
    the unique SKU index uses) may differ from Python's, and their owners by that key found."""
    parts = []
    wanted_skus = sorted(set(skus))
    unicode = sorted(set(unicode_skus))
    if wanted_skus or unicode:
        key = func.lower(products.c.sku)
        keys = key.in_(wanted_skus)
        if unicode:
            keys = keys | key.in_([func.lower(literal(sku)) for sku in unicode])
        parts.append(
            select(*_part(0, products.c.id, None, key)).where(keys, products.c.status != "trash")
        )
        parts.extend(
            select(*_part(9, None, None, literal(s), func.lower(literal(s)))) for s in unicode
        )
    wanted_terms = sorted(set(term_ids))
    if wanted_terms:
        parts.append(
            select(*_part(1, terms.c.id, None, terms.c.taxonomy)).where(
                terms.c.id.in_(wanted_terms)
            )
        )
    wanted_media = sorted(set(media_ids))
    if wanted_media:
        parts.append(select(*_part(2, media.c.id)).where(media.c.id.in_(wanted_media)))
    slugs = sorted(set(attribute_slugs))
    if slugs:
        parts.append(
            select(*_part(3, attributes.c.id, None, attributes.c.name, attributes.c.slug)).where(
                attributes.c.slug.in_(slugs)
            )
        )
        named = select(attributes.c.id).where(attributes.c.slug.in_(slugs))
        parts.append(
            select(
                *_part(
                    4,
                    attribute_terms.c.id,
                    attribute_terms.c.attribute_id,
                    attribute_terms.c.name,
                    attribute_terms.c.slug,
                )
            ).where(attribute_terms.c.attribute_id.in_(named))
        )
    wanted_shipping = sorted(set(shipping))
    if wanted_shipping:
        key = func.lower(terms.c.slug)
        parts.append(
            select(*_part(5, terms.c.id, None, key)).where(
                terms.c.taxonomy == SHIPPING_CLASS, key.in_(wanted_shipping)
            )
        )
    wanted_classes = sorted(set(tax_class_slugs))
    if wanted_classes:
        parts.append(
            select(*_part(6, None, None, tax_classes.c.slug)).where(
                tax_classes.c.slug.in_(wanted_classes)
            )
        )
    wanted_parents = sorted({int(i) for i in parents})
    if wanted_parents:
        parts.append(
            select(*_part(7, products.c.id)).where(
                products.c.id.in_(wanted_parents), products.c.type != "variation"
            )
        )
    if last_id:
        counter = select(SQLITE_SEQUENCE.c.seq).where(SQLITE_SEQUENCE.c.name == products.name)
        largest = select(func.max(products.c.id)).scalar_subquery()
        parts.append(
            select(
                *_part(
                    8,
                    func.max(
                        func.coalesce(counter.scalar_subquery(), 0), func.coalesce(largest, 0)
                    ),
                )
            )
        )
    found = References()
    if not parts:
        return found
    rows = conn.execute(parts[0] if len(parts) == 1 else union_all(*parts)).all()
    for part, n1, n2, s1, s2 in sorted(rows, key=lambda r: (r[0], r[1] or 0)):
        if part == 0:
            found.live_skus.append({"id": n1, "key": s1})
        elif part == 1:
            found.term_taxonomies[n1] = s1
        elif part == 2:
            found.media.add(n1)
        elif part == 3:
            found.attributes[s2] = {"id": n1, "name": s1, "slug": s2}
        elif part == 4:
            found.attribute_terms.append({"id": n1, "attribute_id": n2, "name": s1, "slug": s2})
        elif part == 5:
            found.shipping.setdefault(s1, n1)
        elif part == 6:
            found.tax_classes.add(s1)
        elif part == 7:
            found.parents.add(n1)
        elif part == 8:
            found.last_id = int(n1)
        else:
            found.lowered[s1] = s2
    return found
