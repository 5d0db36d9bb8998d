"""The read side of orders: ``GET /orders``, ``GET /orders/count``, ``GET /orders/statuses``,
``GET`` and ``DELETE /orders/<id>`` (the writes are in ``views/order_writes.py``).

Single-record routes run the shared record validation first (``shopsvc.loaders.orders.ORDERS``: id 0
→ 404 ``shop_api_invalid_order_id``, missing → 404 ``shop_api_no_order_found``, then 401).
Lists (reference orders.md §2.1, decisions.md §6, §7): ``status`` (top level, else
``filter[status]``) is a comma list -- ``any`` or nothing means every status but trash, ``trash``
lists the trashed orders; ``filter[customer_id]`` (a query integer, 0 = no filter),
``filter[q]`` and the common filters. A caller without ``read_private_shop_orders`` gets an
empty body (the headers still count the matches). Records come from ``shopsvc.records.orders``
with ``filter[dp]``, ``filter[all_item_meta]``, ``filter[meta]`` and ``filter[expand]``.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.domain import orders as rules
from shopsvc.errors import ApiError
from shopsvc.loaders.orders import ORDERS
from shopsvc.records.orders import options_from_filters, order_record, order_records
from shopsvc.sql import orders as orders_sql
from shopsvc.sql.orders import OrderFilters
from shopsvc.validation.types import parse_loose_bool
from shopsvc.views import READ
from shopsvc.web import rendering
from shopsvc.web.listing import ListParams, parse_list_params, query_int
from shopsvc.web.resources import Order, Orders, OrdersCount, OrderStatuses
from shopsvc.writers import orders as writers

READ_CAPABILITY = "read_private_shop_orders"


def order_filters(query: Mapping[str, str], filters: Mapping[str, str]) -> OrderFilters:
    """``status`` (top level, else ``filter[status]``) and ``filter[customer_id]``."""
    raw = query.get("status")
    if raw is None or not raw.strip():
        raw = filters.get("status") or ""
    statuses = tuple(part.strip() for part in raw.split(",") if part.strip())
    customer_id = query_int(filters.get("customer_id"), "filter[customer_id]", 0)
    return OrderFilters(
        statuses=None if not statuses or "any" in statuses else statuses,
        customer_id=customer_id or None,
    )


def list_params(request: Request) -> ListParams:
    return parse_list_params(request.query, request.filters, request.shop)


def render_list(
    request: Request, params: ListParams, filters: OrderFilters, *, envelope: str = "orders"
) -> Response:
    """A page of order records (what ``GET /orders`` and ``/products/<id>/orders`` answer)."""
    options = options_from_filters(request.filters)
    ids, total = orders_sql.page_order_ids(request.db, params, filters)
    readable = request.has_permission(READ_CAPABILITY)
    records = order_records(request.record_context, ids, options) if readable and ids else []
    return rendering.listing(request, envelope, records, total, params.page, params.limit)


@view_config(context=Orders, **READ)
def list_orders(context: Orders, request: Request) -> Response:
    params = list_params(request)
    return render_list(request, params, order_filters(request.query, request.filters))


@view_config(context=OrdersCount, **READ)
def count_orders(context: OrdersCount, request: Request) -> Response:
    """``{"count": n}``; with ``status=any`` (top level) one count per status, in order."""
    ORDERS.require(request, "count")
    params = list_params(request)
    filters = order_filters(request.query, request.filters)
    if (request.query.get("status") or "").strip() == "any":
        return rendering.count(request, orders_sql.count_by_status(request.db, params, filters))
    return rendering.count(request, orders_sql.count_orders(request.db, params, filters))


@view_config(context=OrderStatuses, **READ)
def list_statuses(context: OrderStatuses, request: Request) -> Response:
    """Every status and its label: any authenticated caller."""
    return rendering.render_json(request, {"order_statuses": dict(rules.LABELS)})


@view_config(context=Order, **READ)
def get_order(context: Order, request: Request) -> Response:
    row = ORDERS.load(request, context.id, "read")
    options = options_from_filters(request.filters)
    record = order_record(request.record_context, context.id, options, row)
    return rendering.single(request, "order", record)


@view_config(context=Order, request_method="DELETE")
def delete_order(context: Order, request: Request) -> Response:
    """``force`` with a §2 true spelling deletes for good (200, with items, notes and refunds);
    anything else trashes (202), keeping the status for a restore; an order already in the
    trash stays as it is (202)."""
    row = ORDERS.load(request, context.id, "delete")
    force = parse_loose_bool(request.query.get("force", "")) is True
    if not writers.delete_order(request.write_context, row, force=force):
        raise ApiError("shop_api_cannot_delete_order", "This order cannot be deleted.", 500)
    if force:
        return rendering.message(request, "Permanently deleted order")
    return rendering.message(request, "Deleted order", status=202)
