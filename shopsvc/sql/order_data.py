"""The data of a page of order records (``shopsvc.records.orders`` builds the records from
it).

A page of records (:func:`load_orders`) costs two statements whatever the number of orders: the
orders, then everything else in one (``sql.bundle``): their items, the items' meta, the line
products (SKU, parent), the attribute labels of the line meta, and the customers (user, profile
and order statistics). A single order read by its loader first costs one (the loader's row is
its row).

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
    Connection,
    Executable,
    Select,
    case,
    func,
    literal,
    select,
    union,
)

from shopsvc.sql import json_rows
from shopsvc.sql.bundle import Bundle, Ids, ids_in, row_builder
from shopsvc.sql.common import stored_json
from shopsvc.sql.orders import PAID_STATUSES, TRASH, Row
from shopsvc.sql.prepared import Prepared, column_key
from shopsvc.sql.tables import (
    attributes,
    customer_profiles,
    order_item_meta,
    order_items,
    orders,
    product_attributes,
    products,
    users,
)


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


# --- customers


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
