"""What an order's plan reads before it writes (``shopsvc.writers.order_batch``: a single create
or edit is a batch of one), each one statement whatever the number of elements: the targeted
orders (locked), the products named by id or SKU with their families (parents, sibling
variations; locked, with each variation's attribute values, in one statement), and in one bundle the
customers and their profiles, the edited orders' items and refunds, the tax rates, their
locations and the store's tax classes. Also the order row locked by the refund writes
(:func:`get_for_update`).

Nothing here changes a row: the writes are in ``sql.order_batch`` and ``sql.order_writes``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    JSON,
    Connection,
    func,
    or_,
    select,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import GenericFunction

from shopsvc.sql import taxes as taxes_sql
from shopsvc.sql.bundle import Bundle, ids_in
from shopsvc.sql.tables import (
    customer_profiles,
    order_items,
    order_refunds,
    orders,
    products,
    tax_classes,
    tax_rate_locations,
    users,
    variation_attributes,
)

Row = dict[str, Any]


class _JsonObjectAgg(GenericFunction[Any]):
    """``json_group_object(key, value)`` on SQLite, ``json_object_agg(key, value)`` on
    PostgreSQL: the rows' pairs as one JSON object (SQLite gives ``{}`` for no row, PostgreSQL
    NULL)."""

    type = JSON()
    inherit_cache = True
    name = "json_group_object"


@compiles(_JsonObjectAgg, "postgresql")
def _json_object_agg_pg(element: _JsonObjectAgg, compiler: Any, **kw: Any) -> str:
    return f"json_object_agg({compiler.process(element.clauses, **kw)})"


def _variation_values() -> Any:
    """Each row's attribute values (a variation's; ``{}``/NULL for any other product)."""
    return (
        select(_JsonObjectAgg(variation_attributes.c.attribute_key, variation_attributes.c.value))
        .where(variation_attributes.c.variation_id == products.c.id)
        .scalar_subquery()
        .label("variation_values")
    )


# --- the rows a write locks


def get_for_update(conn: Connection, order_id: int) -> dict[str, Any] | None:
    """The ``orders`` row ``order_id``, or None, locked until the transaction ends: a write that
    reads the order's state (status, stock reduced, what is left to refund) and then writes from
    it takes this lock first, so two such writes of one order run one after the other and the
    second reads what the first committed. ``SELECT … FOR UPDATE`` on PostgreSQL (a wait bounded
    by ``lock_timeout``: 503 ``shop_api_busy``); SQLite has no row locks, and needs none — its
    write transactions already run one at a time (``BEGIN IMMEDIATE``)."""
    query = select(orders).where(orders.c.id == order_id).with_for_update()
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


#: What a line, its stock move and its tax source need of a product or variation.
PRODUCT_COLUMNS = (
    products.c.id,
    products.c.parent_id,
    products.c.type,
    products.c.status,
    products.c.title,
    products.c.sku,
    products.c.regular_price,
    products.c.sale_price,
    products.c.sale_from,
    products.c.sale_to,
    products.c.tax_status,
    products.c.tax_class,
    products.c.virtual,
    products.c.downloadable,
    products.c.menu_order,
    products.c.manage_stock,
    products.c.stock_quantity,
    products.c.backorders,
    products.c.stock_status,
)


def lock_orders(conn: Connection, order_ids: Sequence[int]) -> list[Row]:
    """The ``orders`` rows of ``order_ids`` that exist, locked until the transaction ends (as
    ``sql.order_lookups.get_for_update`` locks one)."""
    if not order_ids:
        return []
    query = (
        select(orders).where(orders.c.id.in_(sorted(set(order_ids)))).order_by(orders.c.id)
    ).with_for_update()
    return [dict(row) for row in conn.execute(query).mappings()]


def highest_order_id(conn: Connection) -> int:
    """The highest order id there is (0 without orders): an order a bulk creates gets a higher
    one."""
    return int(conn.execute(select(func.coalesce(func.max(orders.c.id), 0))).scalar_one())


def products_with_families(
    conn: Connection, product_ids: Sequence[int], lowered_skus: Sequence[str]
) -> list[Row]:
    """The products and variations of ``product_ids`` and those whose SKU, lowered by the
    database, is one of ``lowered_skus`` (any status: the caller applies each lookup's rule),
    with their families -- their parents, their children and their parents' other children --
    each with ``sku_lower`` and ``variation_values`` (a variation's attribute values by key, ``{}``
    for other products); locked, since the bulk may move their stock.

    One statement, which locks every row in id order: two bulks over the same products then
    take their locks in one order and one waits for the other. (Locking the named products and
    then their families, in two statements, let two bulks each hold a row the other wanted
    next: a deadlock.)"""
    terms = []
    if product_ids:
        terms.append(products.c.id.in_(sorted(set(product_ids))))
    if lowered_skus:
        terms.append(func.lower(products.c.sku).in_(sorted(set(lowered_skus))))
    if not terms:
        return []
    named = select(products.c.id).where(or_(*terms))
    parents = select(products.c.parent_id).where(products.c.id.in_(named))
    query = (
        select(*PRODUCT_COLUMNS, func.lower(products.c.sku).label("sku_lower"), _variation_values())
        .where(
            or_(
                products.c.id.in_(named),
                products.c.id.in_(parents),
                products.c.parent_id.in_(named),
                products.c.parent_id.in_(parents),
            )
        )
        .order_by(products.c.id)
        .with_for_update()
    )
    found = [dict(row) for row in conn.execute(query).mappings()]
    for row in found:
        row["variation_values"] = row["variation_values"] or {}
    return found


# --- the rest, in one statement


def plan_reads(
    conn: Connection,
    user_ids: Sequence[int],
    order_ids: Sequence[int],
    taxes: bool,
    refunds: bool = False,
) -> dict[str, list[Row]]:
    """What a plan reads besides the locked rows, in one statement (none when nothing is
    asked): ``users`` (``id``, ``email`` and the profile's ``billing`` and ``shipping`` JSON, None
    without a profile, of the users ``user_ids`` that exist), ``items`` (every item of the orders
    ``order_ids``, by order then id), with ``refunds`` their refunds' ``order_id`` and
    ``amount``, and with ``taxes`` every tax rate (``rates``, by order then id), their
    ``locations`` and the store's tax class slugs (``classes``: standard excluded, in the
    store's order: by name, then id)."""
    asked = (bool(user_ids), bool(order_ids), taxes, bool(order_ids) and refunds)
    if not any(asked):
        return {}
    params = {"user_ids": sorted(set(user_ids)), "order_ids": sorted(set(order_ids))}
    return _plan_bundle(*asked).run(conn, params)


@functools.cache
def _plan_bundle(users_part: bool, items_part: bool, taxes: bool, refunds: bool) -> Bundle:
    parts: dict[str, Any] = {}
    if users_part:
        parts["users"] = (
            select(
                users.c.id, users.c.email, customer_profiles.c.billing, customer_profiles.c.shipping
            )
            .select_from(
                users.outerjoin(customer_profiles, customer_profiles.c.user_id == users.c.id)
            )
            .where(ids_in(users.c.id, "user_ids"))
        )
    if items_part:
        parts["items"] = (
            select(order_items)
            .where(ids_in(order_items.c.order_id, "order_ids"))
            .order_by(order_items.c.order_id, order_items.c.id)
        )
    if refunds:
        parts["refunds"] = (
            select(order_refunds.c.order_id, order_refunds.c.amount)
            .where(ids_in(order_refunds.c.order_id, "order_ids"))
            .order_by(order_refunds.c.id)
        )
    if taxes:
        parts["rates"] = taxes_sql.rates_query()
        parts["locations"] = select(
            tax_rate_locations.c.tax_rate_id,
            tax_rate_locations.c.location_type,
            tax_rate_locations.c.code,
        ).order_by(tax_rate_locations.c.tax_rate_id, tax_rate_locations.c.id)
        parts["classes"] = select(tax_classes.c.slug).order_by(tax_classes.c.name, tax_classes.c.id)
    return Bundle(parts)
