"""Orders: one row, pages of ids, counts, the data of a page of records, trash and delete.

A page of records (:func:`load_orders`) costs two statements whatever the number of orders: the
orders, then everything else in one (``sql.bundle``): their items, the items' meta, the line
products (SKU, parent), the attribute labels of the line meta, and the customers (user, profile
and order statistics). A single order read by its loader first costs one (the loader's row is
its row).

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

Customer statistics (reference orders.md §1.7, the customers resource of 3.x): ``orders_count``
counts the customer's orders in any status but ``trash``; ``total_spent`` sums the totals of
those ``completed`` or ``processing`` (the original's "paid" statuses); ``last_order_id`` is the
highest such order id (any status but trash) and ``last_order_date`` its ``created_at``. The sum
runs in SQL; SQLite sums the decimal strings as floats, so the sum is rounded back to 6
decimals (exact for any realistic shop total).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    CompoundSelect,
    Connection,
    Executable,
    Select,
    bindparam,
    case,
    delete,
    func,
    literal,
    or_,
    select,
    union,
    union_all,
    update,
)

from shopsvc.sql import json_rows, order_counts, paging
from shopsvc.sql.bundle import Bundle, Ids, ids_in, row_builder
from shopsvc.sql.common import stored_json
from shopsvc.sql.paging import Listable, ListFilters, common_filters
from shopsvc.sql.prepared import Prepared, column_key
from shopsvc.sql.tables import (
    LINE_ITEM,
    TRASHED_ORDER,
    attributes,
    customer_profiles,
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    product_attributes,
    products,
    refund_items,
    users,
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


def get_query(order_id: int | BindParameter[int]) -> Select[Any]:
    """The ``orders`` row ``order_id``."""
    return select(orders).where(orders.c.id == order_id)


_GET = Prepared(get_query(bindparam("order_id")))


def get(conn: Connection, order_id: int) -> dict[str, Any] | None:
    """The ``orders`` row ``order_id``, or None."""
    rows = _GET.mappings(conn, {"order_id": order_id})
    return rows[0] if rows else None


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


# --- the data of a page of records


@dataclass
class CustomerData:
    """A registered customer as the order's ``customer`` block shows it."""

    user: Row
    billing: dict[str, str]
    shipping: dict[str, str]
    last_update: dt.datetime
    orders_count: int = 0
    total_spent: Decimal = Decimal(0)
    last_order_id: int | None = None
    last_order_date: dt.datetime | None = None


@dataclass
class LineProduct:
    """What a line item's record needs of its product (or variation): SKU and parent."""

    id: int
    sku: str
    parent_sku: str


@dataclass
class OrderData:
    """An order row with its items (by id, every type; and by type, in the same order), the
    items' meta and its customer."""

    row: Row
    id: int = field(init=False)
    items: list[Row] = field(default_factory=list)
    item_meta: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    customer: CustomerData | None = None
    #: ``items`` by ``item_type`` (kept by :meth:`add_item`)
    typed: dict[str, list[Row]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.id = int(self.row["id"])
        given, self.items = self.items, []
        for item in given:
            self.add_item(item)

    def add_item(self, item: Row) -> None:
        """Append ``item`` (the next by id) to the order's items."""
        self.items.append(item)
        typed = self.typed.get(item["item_type"])
        if typed is None:
            self.typed[item["item_type"]] = [item]
        else:
            typed.append(item)

    def items_of(self, item_type: str) -> list[Row]:
        """The items of one type, by id (the order's own list: not to be changed)."""
        return self.typed.get(item_type, [])


@dataclass
class OrdersData:
    """Everything a page of order records needs, loaded in a fixed number of statements."""

    orders: dict[int, OrderData]
    #: line products (by product or variation id) that still exist
    products: dict[int, LineProduct]
    #: attribute labels: ``pa_<slug>`` → global attribute name
    global_labels: dict[str, str]
    #: the custom (non-global) attribute names of the line products, by product id
    custom_labels: dict[int, list[str]]


def _unique(values: Iterable[int | None]) -> list[int]:
    return sorted({int(v) for v in values if v})


def parse_meta(text: str | None) -> dict[str, Any]:
    """A stored JSON object (``order_meta``, a profile address); ``{}`` when it is not one."""
    try:
        value = stored_json(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def load_orders(
    conn: Connection, ids: Sequence[int], rows: Sequence[Row] | None = None
) -> OrdersData:
    """The orders ``ids`` that exist, with their items, item meta, line products, attribute
    labels and customers -- two statements whatever the number of ids: the order rows (none
    when the caller passes ``rows``, the rows it read already) and :func:`children_bundle`."""
    wanted = _unique(ids)
    data = OrdersData(orders={}, products={}, global_labels={}, custom_labels={})
    if not wanted:
        return data
    if rows is None:
        # fresh dicts, the loader's own
        found_rows: Iterable[Row] = map(_ROW, _ROWS.rows(conn, {"ids": wanted}))
    else:
        found_rows = (dict(row) for row in rows)
    wanted_ids = set(wanted)
    for row in found_rows:
        if row["id"] in wanted_ids:
            data.orders[row["id"]] = OrderData(row=row)
    if not data.orders:
        return data
    order_ids = sorted(data.orders)
    customer_ids = _unique(order.row["customer_id"] for order in data.orders.values())
    bundle = _children(bool(customer_ids))
    params = {"order_ids": order_ids, "customer_ids": customer_ids}
    found = bundle.run(conn, params, one_row=json_rows.for_records(len(order_ids)))
    for item in found["items"]:
        data.orders[item["order_id"]].add_item(item)
    for meta in found["item_meta"]:
        metas = data.orders[meta["order_id"]].item_meta.setdefault(meta["item_id"], [])
        metas.append((meta["meta_key"], meta["meta_value"]))
    _line_products(data, found["line_products"])
    data.global_labels = {f"pa_{row['slug']}": row["name"] for row in found["global_labels"]}
    for row in found["custom_labels"]:
        data.custom_labels.setdefault(row["product_id"], []).append(row["name"])
    customers = _customers(found.get("customers", []), found.get("customer_stats", []))
    for order in data.orders.values():
        order.customer = customers.get(order.row["customer_id"])
    return data


def rows_query(ids: Ids) -> Select[Any]:
    """The ``orders`` rows of a page of records."""
    return select(orders).where(ids_in(orders.c.id, ids))


_ROWS = Prepared(rows_query("ids"))
#: A row of :data:`_ROWS` as a dict keyed by column.
_ROW = row_builder(
    [(column_key(column.key), i) for i, column in enumerate(_ROWS.statement.selected_columns)]
)


@functools.cache
def _children(with_customers: bool) -> Bundle:
    """Everything the records of some orders need beyond their rows, in one statement: items,
    item meta, line products, the labels of the line meta keys and (``with_customers``) the
    customers (users, profiles, statistics); built once, executed with ``order_ids`` and
    ``customer_ids``."""
    parts: dict[str, Select[Any]] = {
        "items": items_query("order_ids"),
        "item_meta": item_meta_query("order_ids"),
        "line_products": line_products_query("order_ids"),
        "global_labels": global_labels_query("order_ids"),
        "custom_labels": custom_labels_query("order_ids"),
    }
    if with_customers:
        parts["customers"] = customers_query("customer_ids")
        parts["customer_stats"] = customer_stats_query("customer_ids")
    return Bundle(parts)


def children_query(order_ids: Sequence[int], customer_ids: Sequence[int]) -> Executable:
    """The statement :func:`load_orders` runs for the children of these orders and customers."""
    statement = _children(bool(customer_ids)).statement
    return statement.params(order_ids=list(order_ids), customer_ids=list(customer_ids))


#: The columns of ``order_items`` no record reads: a line's tax breakdown (JSON, the widest
#: column; the records show the tax items) and its ``taxable`` flag.
_UNREAD_ITEM_COLUMNS = ("taxes", "taxable")


def items_query(order_ids: Ids) -> Select[Any]:
    """Every item (lines, shipping, fees, coupons, taxes) of these orders, with the columns the
    records read."""
    return (
        select(*(c for c in order_items.columns if c.name not in _UNREAD_ITEM_COLUMNS))
        .where(ids_in(order_items.c.order_id, order_ids))
        .order_by(order_items.c.order_id, order_items.c.id)
    )


def item_meta_query(order_ids: Ids) -> Select[Any]:
    """The item meta of these orders' items."""
    return (
        select(order_items.c.order_id, order_item_meta)
        .select_from(
            order_item_meta.join(order_items, order_items.c.id == order_item_meta.c.item_id)
        )
        .where(ids_in(order_items.c.order_id, order_ids))
        .order_by(order_item_meta.c.item_id, order_item_meta.c.id)
    )


def _line_items(order_ids: Ids, column: Any) -> Select[Any]:
    """``column`` of the line items of these orders."""
    return select(column).where(
        ids_in(order_items.c.order_id, order_ids), order_items.c.item_type == "line_item"
    )


def _line_products(data: OrdersData, rows: list[Row]) -> None:
    own = {row["id"]: row["sku"] or "" for row in rows}
    for row in rows:
        parent_sku = own.get(row["parent_id"], "") if row["parent_id"] else ""
        data.products[row["id"]] = LineProduct(row["id"], own[row["id"]], parent_sku)


def line_products_query(order_ids: Ids) -> Select[Any]:
    """SKU and parent of the products and variations of these orders' line items (one ``IN``
    of a union: two ``IN``s joined by ``OR`` made PostgreSQL read every product)."""
    line_ids = union(
        _line_items(order_ids, order_items.c.product_id),
        _line_items(order_ids, order_items.c.variation_id),
    )
    return select(products.c.id, products.c.sku, products.c.parent_id).where(
        products.c.id.in_(line_ids)
    )


def global_labels_query(order_ids: Ids) -> Select[Any]:
    """The names of the global attributes the line meta keys of these orders name
    (``pa_<slug>``)."""
    keys = (
        select(order_item_meta.c.meta_key)
        .select_from(
            order_item_meta.join(order_items, order_items.c.id == order_item_meta.c.item_id)
        )
        .where(ids_in(order_items.c.order_id, order_ids), order_items.c.item_type == "line_item")
    )
    return select(attributes.c.slug, attributes.c.name).where(
        attributes.c.slug != "", (literal("pa_") + attributes.c.slug).in_(keys)
    )


def custom_labels_query(order_ids: Ids) -> Select[Any]:
    """The custom attribute names of the products of these orders' line items."""
    return (
        select(product_attributes.c.product_id, product_attributes.c.name)
        .where(
            product_attributes.c.product_id.in_(_line_items(order_ids, order_items.c.product_id)),
            product_attributes.c.attribute_id.is_(None),
        )
        .order_by(
            product_attributes.c.product_id, product_attributes.c.position, product_attributes.c.id
        )
    )


def load_customers(conn: Connection, customer_ids: list[int]) -> dict[int, CustomerData]:
    """The users ``customer_ids`` as customers (profile addresses, order statistics), by id;
    one statement (none without ids)."""
    if not customer_ids:
        return {}
    bundle = _customers_bundle()
    found = bundle.run(conn, {"customer_ids": customer_ids})
    return _customers(found["customers"], found["customer_stats"])


@functools.cache
def _customers_bundle() -> Bundle:
    return Bundle(
        {
            "customers": customers_query("customer_ids"),
            "customer_stats": customer_stats_query("customer_ids"),
        }
    )


def _customers(rows: list[Row], stats: list[Row]) -> dict[int, CustomerData]:
    customers: dict[int, CustomerData] = {}
    for row in rows:
        updated = max(d for d in (row["updated_at"], row["profile_updated_at"]) if d is not None)
        customers[row["id"]] = CustomerData(
            user=dict(row),
            billing=parse_meta(row["billing"]),
            shipping=parse_meta(row["shipping"]),
            last_update=updated,
        )
    for row in stats:
        customer = customers.get(row["customer_id"])
        if customer is None:
            continue
        customer.orders_count = int(row["orders_count"])
        spent = row["total_spent"]
        customer.total_spent = Decimal(0) if spent is None else round(Decimal(spent), 6)
        customer.last_order_id = row["last_order_id"]
        customer.last_order_date = row["last_order_date"]
    return customers


def customers_query(customer_ids: Ids) -> Select[Any]:
    """The users (with their customer profiles) of these customer ids."""
    return (
        select(
            users,
            customer_profiles.c.billing,
            customer_profiles.c.shipping,
            customer_profiles.c.updated_at.label("profile_updated_at"),
        )
        .select_from(users.outerjoin(customer_profiles, customer_profiles.c.user_id == users.c.id))
        .where(ids_in(users.c.id, customer_ids))
    )


def customer_stats_query(customer_ids: Ids) -> Select[Any]:
    """Orders count, total spent and last order (id, date) of these customers."""
    paid = case((orders.c.status.in_(PAID_STATUSES), orders.c.total), else_=None)
    stats = (
        select(
            orders.c.customer_id,
            func.count().label("orders_count"),
            func.sum(paid).label("total_spent"),
            func.max(orders.c.id).label("last_order_id"),
        )
        .where(ids_in(orders.c.customer_id, customer_ids), orders.c.status != TRASH)
        .group_by(orders.c.customer_id)
        .subquery()
    )
    last = orders.alias("last_order")
    return select(stats, last.c.created_at.label("last_order_date")).select_from(
        stats.outerjoin(last, last.c.id == stats.c.last_order_id)
    )


# --- trash and delete


def update_to_trash(conn: Connection, order_id: int, now: dt.datetime) -> bool:
    """Move an order to the trash, keeping its status in ``status_before_trash``; False when it
    was already there."""
    moved = conn.execute(
        update(orders)
        .where(orders.c.id == order_id, orders.c.status != TRASH)
        .values(status_before_trash=orders.c.status, status=TRASH, updated_at=now)
    ).rowcount
    return moved > 0


def restore_from_trash(conn: Connection, order_id: int, now: dt.datetime) -> str | None:
    """Bring a trashed order back to the status it had (``pending`` when unknown); that status,
    or None when the order was not in the trash."""
    row = get(conn, order_id)
    if row is None or row["status"] != TRASH:
        return None
    status = row["status_before_trash"] or "pending"
    conn.execute(
        update(orders)
        .where(orders.c.id == order_id)
        .values(status=status, status_before_trash=None, updated_at=now)
    )
    return str(status)


def delete_order(conn: Connection, order_id: int) -> bool:
    """Delete an order for good with its items, item meta, notes and refunds; False when there
    was no such order."""
    item_ids = select(order_items.c.id).where(order_items.c.order_id == order_id)
    refund_ids = select(order_refunds.c.id).where(order_refunds.c.order_id == order_id)
    conn.execute(delete(order_item_meta).where(order_item_meta.c.item_id.in_(item_ids)))
    conn.execute(delete(refund_items).where(refund_items.c.refund_id.in_(refund_ids)))
    conn.execute(delete(order_refunds).where(order_refunds.c.order_id == order_id))
    conn.execute(delete(order_notes).where(order_notes.c.order_id == order_id))
    conn.execute(delete(order_items).where(order_items.c.order_id == order_id))
    return conn.execute(delete(orders).where(orders.c.id == order_id)).rowcount > 0
