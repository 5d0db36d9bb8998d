"""Product reads for the lists: the list filters, a page of ids and the count, the related
products of some categories and tags (``related_ids``), and one product's kind.

The rest of the products' statements: the data of a page of records is loaded by
``sql.product_data``; what the writers read before they write is in ``sql.product_lookups``; the
writes are in ``sql.product_writes`` (one product at a time) and ``sql.product_batch`` (a
set-based ``/products/bulk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Integer,
    Select,
    and_,
    func,
    select,
    true,
    type_coerce,
)

from shopsvc.sql import paging
from shopsvc.sql.paging import Listable, ListFilters, escape_like
from shopsvc.sql.tables import (
    LISTED_PRODUCT,
    PRODUCT_SEARCH_TEXT,
    attribute_terms,
    attributes,
    product_attribute_terms,
    product_terms,
    products,
    terms,
)

CATEGORY = "product_cat"
TAG = "product_tag"
SHIPPING_CLASS = "product_shipping_class"
#: At most this many ``related_ids`` per product (reference §2).
RELATED_LIMIT = 5
#: Catalog visibilities that make a product show up in the shop (and so in ``related_ids``).
CATALOG_VISIBLE = ("visible", "catalog")

# No ``search``: ``filter[q]`` is matched word by word by ``search_terms``.
LISTABLE = Listable.dated(
    products,
    # case-insensitive, as the original's MySQL collation and our term lists; then id
    {"title": func.lower(products.c.title), "menu_order": products.c.menu_order},
)


# --- listing


@dataclass(frozen=True)
class ProductFilters:
    """The product-specific list filters (the common ones are in ``ListParams``).

    ``statuses`` None means every status but ``trash`` (``filter[post_status]=any``). Slugs
    within one taxonomy are ORed, different taxonomies ANDed. ``sku`` (exact, case-insensitive)
    widens the list to variations.
    """

    statuses: tuple[str, ...] | None = ("publish",)
    types: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    shipping_classes: tuple[str, ...] = ()
    attributes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    sku: str | None = None


def _in_taxonomy(taxonomy: str, slugs: Sequence[str]) -> ColumnElement[bool]:
    lowered = [slug.lower() for slug in slugs]
    linked = (
        select(product_terms.c.product_id)
        .select_from(product_terms.join(terms, terms.c.id == product_terms.c.term_id))
        .where(terms.c.taxonomy == taxonomy, func.lower(terms.c.slug).in_(lowered))
    )
    return products.c.id.in_(linked)


def _with_attribute(slug: str, term_slugs: Sequence[str]) -> ColumnElement[bool]:
    lowered = [term.lower() for term in term_slugs]
    linked = (
        select(product_attribute_terms.c.product_id)
        .select_from(
            product_attribute_terms.join(
                attribute_terms,
                attribute_terms.c.id == product_attribute_terms.c.attribute_term_id,
            ).join(attributes, attributes.c.id == attribute_terms.c.attribute_id)
        )
        .where(
            func.lower(attributes.c.slug) == slug.lower(),
            func.lower(attribute_terms.c.slug).in_(lowered),
        )
    )
    return products.c.id.in_(linked)


def filter_terms(filters: ProductFilters) -> list[ColumnElement[bool]]:
    """The WHERE terms of the product-specific filters."""
    found: list[ColumnElement[bool]] = []
    if filters.statuses is None:
        found.append(products.c.status != "trash")
    else:
        found.append(products.c.status.in_(filters.statuses))
    if filters.sku is not None:
        found.append(func.lower(products.c.sku) == filters.sku.lower())
    else:
        found.append(LISTED_PRODUCT)
    if filters.types:
        found.append(products.c.type.in_(filters.types))
    if filters.categories:
        found.append(_in_taxonomy(CATEGORY, filters.categories))
    if filters.tags:
        found.append(_in_taxonomy(TAG, filters.tags))
    if filters.shipping_classes:
        lowered = [slug.lower() for slug in filters.shipping_classes]
        classes = select(terms.c.id).where(
            terms.c.taxonomy == SHIPPING_CLASS, func.lower(terms.c.slug).in_(lowered)
        )
        found.append(products.c.shipping_class_id.in_(classes))
    for slug, term_slugs in filters.attributes:
        found.append(_with_attribute(slug, term_slugs))
    return found


def search_terms(q: str) -> list[ColumnElement[bool]]:
    """``filter[q]`` as the original's search does it: every space-separated word must occur
    (case-insensitively) in the title, the description or the short description -- in their
    concatenation, which a word (no space) never matches across: one ``LIKE`` per word, which
    ``ix_products_search`` serves on PostgreSQL."""
    return [
        PRODUCT_SEARCH_TEXT.like(f"%{escape_like(word.lower())}%", escape="\\")
        for word in q.split()
    ]


def _all_terms(params: ListFilters, filters: ProductFilters) -> list[ColumnElement[bool]]:
    return [*filter_terms(filters), *search_terms(params.q)]


def page_query(params: ListFilters, filters: ProductFilters) -> Select[Any]:
    """The ids of one page of products matching the filters, in the list order."""
    return paging.page_query(select(products.c.id), LISTABLE, params, _all_terms(params, filters))


def count_query(params: ListFilters, filters: ProductFilters) -> Select[Any]:
    """The number of products matching the filters (the list's total, ``/products/count``)."""
    return paging.total_query(select(products.c.id), LISTABLE, params, _all_terms(params, filters))


def page_product_ids(
    conn: Connection, params: ListFilters, filters: ProductFilters
) -> tuple[list[int], int]:
    """One page of product ids matching the filters, in the list order, and the total."""
    query, total = page_query(params, filters), count_query(params, filters)
    rows, found = paging.run_page(conn, query, total, params)
    return [int(row["id"]) for row in rows], found


def count_products(conn: Connection, params: ListFilters, filters: ProductFilters) -> int:
    """The number of products matching the filters (the list's total)."""
    return int(conn.execute(count_query(params, filters)).scalar_one())


# --- related products


def related_query(
    term_ids: Sequence[int] | Select[Any], hide_out_of_stock: bool, dialect: str = "postgresql"
) -> Select[Any]:
    """``(term_id, product_id)``: the ``RELATED_LIMIT + 1`` smallest ids of the published,
    catalog-visible products of each of these categories and tags (``related_ids``).

    Per term, a sub-query walks the term's members in id order (``ix_product_terms_term``, each
    checked by its primary key) and stops after ``RELATED_LIMIT + 1`` that qualify: a few index
    entries per term, however many products the term has (a window over every member of the
    terms read each of them: hundreds of milliseconds on a large catalogue), and one sub-plan
    to plan (one per rank cost 4 ms of planning on every single-product GET). The check is a
    scalar sub-query, which PostgreSQL's planner cannot turn into a join: as a join it
    merge-joined the members with ``products`` read in id order from the first product
    (0.23 ms against 0.08 ms for a product's three terms on the bench catalogue, and growing
    with the ids before a term's first member).

    PostgreSQL runs the walk as a ``LATERAL`` sub-query. SQLite (``dialect``), which has no
    ``LATERAL`` and correlates a table function's argument but not a ``FROM`` sub-query, hands
    each term's ids over as one JSON array, which ``json_each`` turns back into rows (a
    recursive query taking one next member per step, as it did before, took half as long again:
    29 µs against 20 µs for a product's three terms)."""
    listed = terms.alias("listed")
    member = product_terms.alias("member")
    conditions = _related_conditions(hide_out_of_stock)
    shown = select(and_(*conditions)).where(products.c.id == member.c.product_id).scalar_subquery()
    firsts = (
        select(member.c.product_id)
        .where(member.c.term_id == listed.c.id, shown)
        .order_by(member.c.product_id)
        .limit(RELATED_LIMIT + 1)
    )
    if dialect == "sqlite":
        walk = firsts.correlate(listed).subquery("firsts")
        found = select(func.json_group_array(walk.c.product_id)).scalar_subquery()
        members = func.json_each(found).table_valued("value").alias("walked")
        product_id = type_coerce(members.c.value, Integer)
    else:
        members = firsts.lateral("firsts")
        product_id = members.c.product_id
    return (
        select(listed.c.id.label("term_id"), product_id.label("product_id"))
        .select_from(listed.join(members, true()))
        .where(listed.c.id.in_(term_ids))
    )


def _related_conditions(hide_out_of_stock: bool) -> list[ColumnElement[bool]]:
    """What makes a product one of a term's related ids."""
    conditions = [
        products.c.status == "publish",
        LISTED_PRODUCT,
        products.c.catalog_visibility.in_(CATALOG_VISIBLE),
    ]
    if hide_out_of_stock:
        conditions.append(products.c.stock_status != "outofstock")
    return conditions


# --- one product's kind


def kind_query(product_id: int) -> Select[Any]:
    """``id, type, status, parent_id`` of one product or variation."""
    return select(products.c.id, products.c.type, products.c.status, products.c.parent_id).where(
        products.c.id == product_id
    )


def product_kind(conn: Connection, product_id: int) -> dict[str, Any] | None:
    """``{id, type, status, parent_id}`` of a product or variation, for validation."""
    row = conn.execute(kind_query(product_id)).mappings().first()
    return dict(row) if row else None
