"""The write side of orders: ``POST /orders``, ``PUT|PATCH|POST /orders/<id>`` and
``POST|PUT|PATCH /orders/bulk``.

Checks run in the spec's order. Create: envelope (``shop_api_missing_order_data``), capability
(``publish_shop_orders``), then the fields and the writer's steps (reference orders.md §3).
Edit: envelope, the shared record validation (id, existence, ``edit_shop_orders``), then the
fields and the writer's steps (§4). Bulk: a non-zero ``id`` edits, anything else creates. The
one writer of all three is the planner, ``writers.order_batch``: a single create or edit is a
batch of one; a bulk is planned as a whole where it can be, else each element in its own
savepoint as a batch of one. Every check runs before the first write, so a failing create or
edit writes nothing. Responses are the GET representation built with the defaults (2
decimals; ``filter[meta]``, ``filter[expand]`` and ``filter[all_item_meta]`` still apply).
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.loaders.orders import ORDERS
from shopsvc.records.orders import options_from_filters, order_record, order_records
from shopsvc.validation.types import int_field
from shopsvc.web import rendering
from shopsvc.web.bulk import run_bulk
from shopsvc.web.resources import Order, Orders, OrdersBulk
from shopsvc.writers import orders as writer
from shopsvc.writers.order_batch import OrderBatch

EDIT = {"request_method": ("POST", "PUT", "PATCH")}
MISSING = "shop_api_missing_order_data"


def client_of(request: Request) -> writer.Client:
    """The caller's IP (``X-Forwarded-For`` only from a trusted proxy) and User-Agent."""
    return writer.Client(ip=request.client_ip[:100], user_agent=request.user_agent or "")


def _record(request: Request, order_id: int) -> dict[str, Any]:
    options = options_from_filters(request.filters, shaped=False)
    return order_record(request.record_context, order_id, options)


def _create(request: Request, data: Any) -> int:
    return _batch(request).write_one(data)


def _edit(request: Request, order_id: int, data: Any) -> None:
    """The shared record validation, except that an order that does not exist is the spec's
    400 ``shop_api_invalid_order_id`` (decisions.md §6), then the fields and the writer (the
    planner makes these checks in this order: ``OrderBatch._plan_edit``)."""
    _batch(request).write_one(data, order_id)


@view_config(context=Orders, request_method="POST")
def create_order(context: Orders, request: Request) -> Response:
    data = request.envelope("order", MISSING, "No order data specified to create order")
    ORDERS.require(request, "create")
    order_id = _create(request, data)
    return rendering.single(request, "order", _record(request, order_id), 201)


@view_config(context=Order, **EDIT)
def edit_order(context: Order, request: Request) -> Response:
    data = request.envelope("order", MISSING, "No order data specified to edit order")
    _edit(request, context.id, data)
    return rendering.single(request, "order", _record(request, context.id))


@view_config(context=OrdersBulk, **EDIT)
def bulk_orders(context: OrdersBulk, request: Request) -> Response:
    """Each element: a non-zero ``id`` edits that order, anything else creates."""

    def handle(element: dict[str, Any]) -> dict[str, Any]:
        raw_id = element.get("id")
        order_id = 0 if raw_id is None or raw_id == "" else int_field(raw_id, "order.id")
        if order_id:
            _edit(request, order_id, element)
        else:
            ORDERS.require(request, "create")
            order_id = _create(request, element)
        return _record(request, order_id)

    return run_bulk(request, "orders", handle, batch=_batch(request))


def _batch(request: Request) -> OrderBatch:
    options = options_from_filters(request.filters, shaped=False)
    return OrderBatch(
        request.write_context,
        request,
        client_of(request),
        lambda ids: order_records(request.record_context, ids, options),
        expand_products="products" in options.expand,
    )
