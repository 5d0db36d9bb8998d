"""The order record: the JSON of an order as every order route returns it.

Used by the read routes (``shopsvc.views.orders``, ``/products/<id>/orders``), by the write routes
(which answer with the record of what they wrote) and by whatever renders an order without a
request (CLI, webhook worker): everything comes from a :class:`RecordContext`. The data comes from
``shopsvc.sql.order_data.load_orders`` (a fixed number of statements for any number of orders).

Field order and rules: reference orders.md §1.1-§1.8 (3.x), with decisions.md §6 and §7
"Orders: records" where they differ. Choices:

* Money fields use ``options.dp`` decimals (``filter[dp]``, default 2); the customer block's
  ``total_spent`` always 2 (the customers resource ignores ``dp``).
* ``billing_address.email`` empty on an order with an existing customer reads the customer's
  account email (the 3.x save-time default, applied on read as well).
* ``customer``: an existing user → the customers resource's block (addresses from the profile,
  statistics from ``sql.orders``, ``avatar_url`` the Gravatar URL of the account email as the
  original's ``get_avatar_url`` builds it); a guest, or a user that no longer exists → the guest
  block built from the order, whose ``id`` is 0.
* Line ``meta``: ``label`` is the global attribute's name for ``pa_<slug>`` keys whose attribute
  exists, else the name of the line product's custom attribute whose slug matches the key, else
  the key. Keys starting with ``_`` are hidden unless ``options.all_item_meta``; empty values are
  skipped (values are stored as text, so none is ever non-scalar).
* ``filter[expand]``: ``products`` adds ``product_data`` (the product record) to the lines whose
  product exists; ``taxes`` adds ``rate_data`` (the tax rate record) to tax lines whose rate
  exists; ``coupons`` adds nothing -- the service keeps no coupons, so no coupon ever exists.
* ``order_meta`` (``options.meta``): the unprotected (not ``_``-prefixed) keys of the stored
  order meta, after ``customer``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from shopsvc.domain import orders as rules
from shopsvc.domain.catalog import slugify_name
from shopsvc.domain.money import format_decimal, round_money
from shopsvc.domain.timestamps import format_timestamp
from shopsvc.errors import ApiError, invalid_param
from shopsvc.records.context import RecordContext
from shopsvc.records.customers import customer_block
from shopsvc.records.products import product_records
from shopsvc.records.taxes import tax_record
from shopsvc.sql import order_data as order_data_sql
from shopsvc.sql import taxes as taxes_sql
from shopsvc.sql.order_data import CustomerData, OrderData, OrdersData
from shopsvc.sql.tables import BILLING_FIELDS, SHIPPING_FIELDS

Row = dict[str, Any]
EXPANSIONS = ("products", "taxes", "coupons")


@dataclass(frozen=True)
class OrderOptions:
    """The response-wide options of an order record (reference §1.8)."""

    dp: int = 2
    all_item_meta: bool = False
    meta: bool = False
    expand: frozenset[str] = field(default_factory=frozenset)


#: ``filter[dp]`` above this is read as this (money is stored with 6 decimals).
MAX_DP = 20
_LEADING_DIGITS = re.compile(r"\s*([0-9]+)")


def parse_dp(value: str | None) -> int:
    """``filter[dp]`` as a query integer (decisions §7 "Query parsing"): its leading digits,
    empty or 0 → 2, capped at :data:`MAX_DP`; no leading digit → 400 ``shop_api_invalid_param``."""
    if value is None or value.strip() == "":
        return 2
    match = _LEADING_DIGITS.match(value)
    if match is None:
        raise invalid_param("filter[dp]", f"{value[:40]!r} is not a positive integer")
    digits = match.group(1).lstrip("0")
    if not digits:
        return 2
    return MAX_DP if len(digits) > 2 else min(int(digits), MAX_DP)


def options_from_filters(filters: Mapping[str, str], shaped: bool = True) -> OrderOptions:
    """The record options of a request's ``filter[...]`` keys: ``dp`` (only when ``shaped``,
    i.e. a GET or HEAD; writes answer with 2), ``all_item_meta`` and ``meta`` (exactly
    ``true``), ``expand`` (a comma list)."""
    expand = frozenset(
        part.strip() for part in (filters.get("expand") or "").split(",") if part.strip()
    )
    return OrderOptions(
        dp=parse_dp(filters.get("dp")) if shaped else 2,
        all_item_meta=filters.get("all_item_meta") == "true",
        meta=filters.get("meta") == "true",
        expand=expand,
    )


def not_found(order_id: int) -> ApiError:
    return ApiError(
        "shop_api_no_order_found", f"No order found with the ID equal to {order_id}", 404
    )


@dataclass
class _Batch:
    """One page's data and what the expansions add, shared by its records, with what every
    record of the page reads alike worked out once: the options and shop settings, the base of
    ``view_order_url``, and (filled as the records are built) the labels of the line meta keys
    and the customer blocks -- a page of 1000 orders shows a few hundred customers and a few
    dozen meta keys over and over."""

    context: RecordContext
    options: OrderOptions
    data: OrdersData
    products: dict[int, Row]
    rates: dict[int, Row]
    #: ``options.dp``: the decimals of every money field but the customer's ``total_spent``
    dp: int = field(init=False)
    #: the shop's ``price_decimals`` and ``tax_round_at_subtotal``
    price_decimals: int = field(init=False)
    round_at_subtotal: bool = field(init=False)
    #: ``view_order_url`` without the order id and its closing ``/``
    order_url: str = field(init=False)
    #: the label of a line meta key, by (key, line product id)
    labels: dict[tuple[str, int], str] = field(init=False, default_factory=dict)
    #: the ``customer`` block of a registered customer, by user id (one dict shared by the
    #: customer's orders on the page, as ``product_data`` is shared by a product's lines)
    customers: dict[int, Row] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        settings = self.context.settings
        self.dp = self.options.dp
        self.price_decimals = settings.price_decimals
        self.round_at_subtotal = settings.tax_round_at_subtotal
        self.order_url = f"{self.context.public_url}/my-account/view-order/"

    def store_money(self, value: Decimal | None) -> str:
        """Rounded to the store decimals first, then to ``dp`` (fee lines)."""
        return format_decimal(round_money(value or 0, self.price_decimals), self.dp)


# --- lines

_ZERO = Decimal(0)


def _line_product_id(item: Row) -> int:
    return int(item["variation_id"] or item["product_id"] or 0)


def _sku(item: Row, product_id: int, batch: _Batch) -> str | None:
    """The SKU of the line's product (``product_id``: the variation, else the product); a
    variation without one reads its parent's; None when the product no longer exists."""
    product = batch.data.products.get(product_id)
    if product is None:
        return None
    return product.sku or (product.parent_sku if item["variation_id"] else "")


#: ``slugify_name``, remembered: the same meta keys and attribute names come back on every page
#: (slugifying one takes some 5 µs).
_slug = functools.lru_cache(maxsize=4096)(slugify_name)


def _find_label(key: str, product_id: int, data: OrdersData) -> str:
    label = data.global_labels.get(key)
    if label is not None:
        return label
    slug = _slug(key)
    for name in data.custom_labels.get(product_id, []):
        if _slug(name) == slug:
            return name
    return key


def _meta_label(key: str, item: Row, batch: _Batch) -> str:
    """The label of a line meta key (see the module's note), found once per page for each key
    and line product."""
    product_id = item["product_id"] or 0
    label = batch.labels.get((key, product_id))
    if label is None:
        label = batch.labels[key, product_id] = _find_label(key, product_id, batch.data)
    return label


def _line_meta(entries: list[tuple[str, str]], item: Row, batch: _Batch) -> list[Row]:
    """The shown entries of a line's stored meta ``entries``: not empty, and not protected
    (``_``-prefixed) unless ``options.all_item_meta``."""
    every_key = batch.options.all_item_meta
    return [
        {"key": key, "value": value, "label": _meta_label(key, item, batch)}
        for key, value in entries
        if value != "" and (every_key or not key.startswith("_"))
    ]


def _line_item(item: Row, order: OrderData, batch: _Batch) -> Row:
    dp = batch.dp
    quantity = int(item["quantity"])
    total = item["total"]
    product_id = _line_product_id(item)
    meta = order.item_meta.get(item["id"])
    line = {
        "id": item["id"],
        "subtotal": format_decimal(item["subtotal"], dp),
        "subtotal_tax": format_decimal(item["subtotal_tax"], dp),
        "total": format_decimal(total, dp),
        "total_tax": format_decimal(item["total_tax"], dp),
        "price": format_decimal(total / quantity if quantity else _ZERO, dp),
        "quantity": quantity,
        "tax_class": item["tax_class"],
        "name": item["name"],
        "product_id": product_id,
        "sku": _sku(item, product_id, batch),
        "meta": _line_meta(meta, item, batch) if meta else [],
    }
    if batch.products:
        product = batch.products.get(product_id)
        if product is not None:
            line["product_data"] = product
    return line


def _shipping_line(item: Row, batch: _Batch) -> Row:
    return {
        "id": item["id"],
        "method_id": item["method_id"],
        "method_title": item["name"],
        "total": format_decimal(item["total"], batch.dp),
    }


def _tax_lines(order: OrderData, batch: _Batch) -> list[Row]:
    stored = order.items_of("tax")
    if not stored:
        return []
    items = (
        rules.TaxItem(
            id=item["id"],
            rate_id=int(item["rate_id"] or 0),
            code=item["rate_code"],
            title=item["name"],
            compound=bool(item["compound"]),
            tax_total=item["tax_total"],
            shipping_tax_total=item["shipping_tax_total"],
        )
        for item in stored
    )
    lines = []
    for merged in rules.merge_tax_lines(items):
        line = {
            "id": merged.id,
            "rate_id": merged.rate_id,
            "code": merged.code,
            "title": merged.title,
            "total": format_decimal(merged.total, batch.dp),
            "compound": merged.compound,
        }
        rate = batch.rates.get(merged.rate_id)
        if rate is not None:
            line["rate_data"] = rate
        lines.append(line)
    return lines


def _fee_line(item: Row, batch: _Batch) -> Row:
    return {
        "id": item["id"],
        "title": item["name"],
        "tax_class": item["tax_class"],
        "total": batch.store_money(item["total"]),
        "total_tax": batch.store_money(item["total_tax"]),
    }


def _coupon_line(item: Row, batch: _Batch) -> Row:
    return {
        "id": item["id"],
        "code": item["name"],
        "amount": format_decimal(item["total"], batch.dp),
    }


# --- addresses and the customer


def _address_reader(prefix: str, fields: Sequence[str]) -> Callable[[Row], dict[str, str]]:
    """``lambda row: {"first_name": row["billing_first_name"] or "", …}``: an address of an
    ``orders`` row (its ``prefix`` columns, ``""`` for NULL), compiled once as one dict display,
    which Python builds at half the cost of a comprehension over the fields (a page of 1000
    orders reads 2000 addresses). The names are the table's column names (``repr`` writes them
    as string literals)."""
    display = ", ".join(f"{name!r}: row[{prefix + name!r}] or ''" for name in fields)
    return eval(f"lambda row: {{{display}}}", {})


_billing_address = _address_reader("billing_", BILLING_FIELDS)
_shipping_address = _address_reader("shipping_", SHIPPING_FIELDS)


def _guest_block(billing: dict[str, str], shipping: dict[str, str]) -> Row:
    return {
        "id": 0,
        "email": billing["email"],
        "first_name": billing["first_name"],
        "last_name": billing["last_name"],
        "billing_address": billing,
        "shipping_address": shipping,
    }


def _customer(
    customer: CustomerData | None,
    billing: dict[str, str],
    shipping: dict[str, str],
    batch: _Batch,
) -> Row:
    """The ``customer`` block: a registered customer's (built once per page), else the guest
    block of the order's addresses."""
    if customer is None:
        return _guest_block(dict(billing), dict(shipping))
    user_id = customer.user["id"]
    block = batch.customers.get(user_id)
    if block is None:
        block = batch.customers[user_id] = customer_block(customer)
    return block


def _order_meta(row: Row) -> dict[str, Any]:
    stored = order_data_sql.parse_meta(row["order_meta"])
    return {key: value for key, value in stored.items() if not key.startswith("_")}


# --- the record


def _record(order: OrderData, batch: _Batch) -> Row:
    row = order.row
    order_id = order.id
    dp = batch.dp
    lines = order.items_of("line_item")
    shipping = order.items_of("shipping")
    customer = order.customer
    billing = _billing_address(row)
    if not billing["email"] and customer is not None:
        billing["email"] = customer.user["email"]
    shipping_address = _shipping_address(row)
    subtotal = rules.order_subtotal(
        [item["subtotal"] for item in lines], batch.price_decimals, batch.round_at_subtotal
    )
    line_items = [_line_item(item, order, batch) for item in lines]
    record: Row = {
        "id": order_id,
        "order_number": str(order_id),
        "order_key": row["order_key"],
        "created_at": format_timestamp(row["created_at"]),
        "updated_at": format_timestamp(row["updated_at"]),
        "completed_at": format_timestamp(row["date_completed"]),
        "status": row["status"],
        "currency": row["currency"],
        "total": format_decimal(row["total"], dp),
        "subtotal": format_decimal(subtotal, dp),
        "total_line_items_quantity": sum(line["quantity"] for line in line_items),
        "total_tax": format_decimal(row["total_tax"], dp),
        "total_shipping": format_decimal(row["shipping_total"], dp),
        "cart_tax": format_decimal(row["cart_tax"], dp),
        "shipping_tax": format_decimal(row["shipping_tax"], dp),
        "total_discount": format_decimal(row["discount_total"], dp),
        "shipping_methods": ", ".join(item["name"] for item in shipping),
        "payment_details": {
            "method_id": row["payment_method"],
            "method_title": row["payment_method_title"],
            "paid": row["date_paid"] is not None,
        },
        "billing_address": billing,
        "shipping_address": shipping_address,
        "note": row["customer_note"],
        "customer_ip": row["customer_ip"],
        "customer_user_agent": row["customer_user_agent"],
        "customer_id": int(row["customer_id"]),
        "view_order_url": f"{batch.order_url}{order_id}/",
        "line_items": line_items,
        "shipping_lines": [_shipping_line(item, batch) for item in shipping],
        "tax_lines": _tax_lines(order, batch),
        "fee_lines": [_fee_line(item, batch) for item in order.items_of("fee")],
        "coupon_lines": [_coupon_line(item, batch) for item in order.items_of("coupon")],
        "customer": _customer(customer, billing, shipping_address, batch),
    }
    if batch.options.meta:
        record["order_meta"] = _order_meta(row)
    return record


def _expanded_products(
    context: RecordContext, data: OrdersData, expand: Iterable[str]
) -> dict[int, Row]:
    if "products" not in expand:
        return {}
    ids = sorted(
        {
            _line_product_id(item)
            for order in data.orders.values()
            for item in order.items_of("line_item")
        }
        & set(data.products)
    )
    return {record["id"]: record for record in product_records(context, ids)} if ids else {}


def _expanded_rates(
    context: RecordContext, data: OrdersData, expand: Iterable[str]
) -> dict[int, Row]:
    if "taxes" not in expand:
        return {}
    ids = sorted(
        {
            int(item["rate_id"])
            for order in data.orders.values()
            for item in order.items_of("tax")
            if item["rate_id"]
        }
    )
    rows = taxes_sql.get_rates(context.conn, ids) if ids else []
    return {row["id"]: tax_record(context, row) for row in rows}


def order_records(
    context: RecordContext,
    ids: Sequence[int],
    options: OrderOptions | None = None,
    rows: Sequence[Row] | None = None,
) -> list[Row]:
    """The full records of the orders ``ids``, in that order (ids that do not exist are left
    out). A fixed number of statements, whatever the number of ids; one fewer when ``rows``
    (the ``orders`` rows of ``ids``, as the loader read them) are given."""
    options = options or OrderOptions()
    data = order_data_sql.load_orders(context.conn, ids, rows)
    batch = _Batch(
        context=context,
        options=options,
        data=data,
        products=_expanded_products(context, data, options.expand),
        rates=_expanded_rates(context, data, options.expand),
    )
    return [_record(data.orders[i], batch) for i in ids if i in data.orders]


def order_record(
    context: RecordContext,
    order_id: int,
    options: OrderOptions | None = None,
    row: Row | None = None,
) -> Row:
    """The full record of one order; 404 ``shop_api_no_order_found`` when it does not exist.
    ``row``: its ``orders`` row, when the caller read it already (the loader)."""
    records = order_records(context, [order_id], options, None if row is None else [row])
    if not records:
        raise not_found(order_id)
    return records[0]
