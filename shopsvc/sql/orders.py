"""Order reads for the API: one order row, pages of ids and counts.

Lists (decisions.md §6, §7 "Query parsing", "Orders: records"): ``status`` is a comma list
(``any`` or nothing: every status but ``trash``; ``trash`` lists the trashed orders; an unknown
status matches nothing), ``filter[customer_id]`` an exact customer, ``filter[q]`` searches the
customer note, the billing and shipping names and companies and the billing email
(case-insensitive); the common filters and the ordering come from ``sql/paging.py``.

Counts (the list's total, ``/orders/count``): filtered by status and ``created_at`` alone, they
add up ``order_counts`` (``sql/order_counts.py``: the counters of migration 0007, kept by
triggers); a product's orders in every status but trash subtract the trashed ones of
``ix_orders_trashed``; any other filter counts the matching orders. ``FAST_COUNTS`` off makes
every count read the orders (the differential tests).

The rest of the orders' statements: the data of a page of records is loaded by
``sql.order_data``; what the writers read before they write is in ``sql.order_lookups``; the
writes are in ``sql.order_writes`` (one order at a time) and ``sql.order_batch`` (a set-based
``/orders/bulk``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    CompoundSelect,
    Connection,
    Select,
    bindparam,
    func,
    literal,
    or_,
    select,
    union,
    union_all,
)

from shopsvc.sql import order_counts, paging
from shopsvc.sql.paging import Listable, ListFilters, common_filters
from shopsvc.sql.prepared import Prepared
from shopsvc.sql.tables import (
    LINE_ITEM,
    TRASHED_ORDER,
    order_items,
    orders,
)

Row = dict[str, Any]

#: Order statuses every list and count sees by default (all but ``trash``); kept here (sql does
#: not import domain) and equal to ``shopsvc.domain.orders.STATUSES``.
LISTED_STATUSES = (
    "pending",
    "processing",
    "on-hold",
    "completed",
    "cancelled",
    "refunded",
    "failed",
)
TRASH = order_counts.TRASH
#: The statuses whose totals count in a customer's ``total_spent``.
PAID_STATUSES = ("completed", "processing")

#: Counts read ``order_counts`` (and a product's orders ``ix_orders_trashed``) where those
#: answer; False: every count reads the matching orders, as before migration 0007 (what the
#: differential tests compare the counts with).
FAST_COUNTS = True

SEARCHED = (
    orders.c.customer_note,
    orders.c.billing_first_name,
    orders.c.billing_last_name,
    orders.c.shipping_first_name,
    orders.c.shipping_last_name,
    orders.c.billing_company,
    orders.c.shipping_company,
    orders.c.billing_email,
)
LISTABLE = Listable.dated(orders, search=SEARCHED)


def order_row_query(order_id: int | BindParameter[int]) -> Select[Any]:
    """The ``orders`` row ``order_id``."""
    return select(orders).where(orders.c.id == order_id)


_GET = Prepared(order_row_query(bindparam("order_id")))


def get_order_row(conn: Connection, order_id: int) -> dict[str, Any] | None:
    """The ``orders`` row ``order_id``, or None."""
    rows = _GET.mappings(conn, {"order_id": order_id})
    return rows[0] if rows else None


# --- lists and counts


@dataclass(frozen=True)
class OrderFilters:
    """The order-specific list filters: ``statuses`` None means every status but trash;
    ``product_id`` keeps the orders with a line of that product or variation."""

    statuses: tuple[str, ...] | None = None
    customer_id: int | None = None
    product_id: int | None = None


def _filter_terms(filters: OrderFilters, *, counting: bool = False) -> list[ColumnElement[bool]]:
    terms: list[ColumnElement[bool]] = []
    terms.append(order_counts.status_term(orders.c.status, filters.statuses))
    if filters.customer_id:
        terms.append(orders.c.customer_id == filters.customer_id)
    if filters.product_id is not None:
        with_product = _with_product if counting else _with_product_lines
        terms.append(orders.c.id.in_(with_product(filters.product_id)))
    return terms


def _with_product_lines(product_id: int) -> Select[Any]:
    """The ids of the orders with a line item of the product or variation ``product_id``, as
    one ``OR``: for a page, PostgreSQL may then walk the orders newest first and probe each
    one's items (``ix_order_items_order``), stopping at the page's end -- what a product in
    many orders wants; a rare one's orders are found by the product indexes."""
    return select(order_items.c.order_id).where(
        LINE_ITEM,
        or_(order_items.c.product_id == product_id, order_items.c.variation_id == product_id),
    )


def _with_product(product_id: int) -> CompoundSelect:
    """The same ids as :func:`_with_product_lines`, as the union of two index-only scans
    (``ix_order_items_product`` and ``_variation``, over the line items): for a count, which
    reads them all."""
    return union(
        select(order_items.c.order_id).where(LINE_ITEM, order_items.c.product_id == product_id),
        select(order_items.c.order_id).where(LINE_ITEM, order_items.c.variation_id == product_id),
    )


def page_query(params: ListFilters, filters: OrderFilters) -> Select[Any]:
    """The ids of one page of orders matching the filters, in the list order."""
    return paging.page_query(select(orders.c.id), LISTABLE, params, _filter_terms(filters))


def counters_answer(params: ListFilters, filters: OrderFilters) -> bool:
    """True when ``order_counts`` answers the count: its only filters are the status set
    (``filters.statuses``) and a ``created_at`` range -- no customer, product, ``q``, ``in``,
    ``not_in``, ``updated_at_*``."""
    return (
        FAST_COUNTS
        and filters.product_id is None
        and not filters.customer_id
        and order_counts.only_created_range(params)
    )


def count_query(params: ListFilters, filters: OrderFilters, *, scan: bool = False) -> Select[Any]:
    """The number of orders matching the filters (the list's total, ``/orders/count``): from
    ``order_counts`` when it answers (:func:`counters_answer`); the orders of a product with no
    other filter by :func:`product_count_query`; else (or ``scan``) by reading the matching
    orders."""
    if not scan and counters_answer(params, filters):
        return order_counts.total_query(params, filters.statuses)
    product = None if scan or not FAST_COUNTS else _every_order_of(params, filters)
    if product is not None:
        return product_count_query(product)
    terms = _filter_terms(filters, counting=True)
    return paging.total_query(select(orders.c.id), LISTABLE, params, terms)


def _every_order_of(params: ListFilters, filters: OrderFilters) -> int | None:
    """The product whose orders (every status but trash, no other filter) are counted, if
    that is the count asked for."""
    if filters.product_id is None or filters.statuses is not None or filters.customer_id:
        return None
    dated = params.created_min is not None or params.created_max is not None
    if dated or not order_counts.only_created_range(params):
        return None
    return filters.product_id


def product_count_query(product_id: int) -> Select[Any]:
    """The number of orders but the trashed ones with a line of the product or variation
    ``product_id`` (``/products/<id>/orders``' total): the distinct order ids of its line items
    (:func:`_with_product`, two index-only scans) less those in ``ix_orders_trashed`` -- an
    anti-join with the small index of the trashed orders instead of a look at each order's
    row (every line's order exists: ``order_items.order_id`` is a foreign key)."""
    lines = _with_product(product_id).subquery("lines")
    trashed = select(orders.c.id).where(orders.c.id == lines.c.order_id, TRASHED_ORDER)
    return select(func.count()).select_from(lines).where(~trashed.exists())


def page_order_ids(
    conn: Connection, params: ListFilters, filters: OrderFilters
) -> tuple[list[int], int]:
    """One page of order ids matching the filters, in the list order, and the total."""
    query, total = page_query(params, filters), count_query(params, filters)
    rows, found = paging.run_page(conn, query, total, params)
    return [int(row["id"]) for row in rows], found


def count_orders(conn: Connection, params: ListFilters, filters: OrderFilters) -> int:
    """The number of orders matching the filters (the list's total)."""
    return int(conn.execute(count_query(params, filters)).scalar_one())


def count_by_status_query(
    params: ListFilters, filters: OrderFilters, *, scan: bool = False
) -> Select[Any] | CompoundSelect:
    """``(status, n)`` of the orders matching the filters but ``filters.statuses``, per listed
    status (``/orders/count?status=any``): from ``order_counts`` when it answers
    (:func:`counters_answer`), else (or ``scan``) one ``count(*)`` per status, joined by
    ``UNION ALL`` -- each a range of ``ix_orders_status`` (index-only), which PostgreSQL counts
    faster than it groups the whole index by status (and may count in parallel)."""
    if not scan and counters_answer(params, filters):
        return order_counts.by_status_query(params, LISTED_STATUSES)
    common = common_filters(LISTABLE, params)
    return union_all(
        *(
            select(literal(status).label("status"), func.count().label("n")).where(
                *_filter_terms(OrderFilters(statuses=(status,), customer_id=filters.customer_id)),
                *common,
            )
            for status in LISTED_STATUSES
        )
    )


def count_by_status(conn: Connection, params: ListFilters, filters: OrderFilters) -> dict[str, int]:
    """``{status: n}`` for every listed status (in order, zeros included), the other filters
    applied; ``filters.statuses`` is not read."""
    found = {status: int(n) for status, n in conn.execute(count_by_status_query(params, filters))}
    return {status: found.get(status, 0) for status in LISTED_STATUSES}


def with_product_query(product_id: int) -> CompoundSelect:
    """The ids of the orders (any status) with a line item of the product or variation."""
    return _with_product(product_id)


def order_ids_with_product(conn: Connection, product_id: int) -> list[int]:
    """The orders (any status) with a line item whose product or variation is
    ``product_id``, by id."""
    query = with_product_query(product_id)
    return sorted(int(order_id) for order_id in conn.execute(query).scalars())
