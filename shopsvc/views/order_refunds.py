"""Order refunds: ``/orders/<order_id>/refunds`` and ``/orders/<order_id>/refunds/<id>``.

Checks run in the reference's order (orders.md §7, decisions.md §6 and §7 "Capabilities"):

* list, get — the order (``read``: id 0 / existence → 404, then 401), the refund id (0 → 400),
  the refund (missing → 404, of another order → 400);
* create — envelope, ``publish_shop_orders``, the order id (0 → 400 ``shop_api_invalid_order_id``
  "Order ID is invalid"; the original validates nothing else of the order, so no edit capability
  is asked), the order's existence (404 ``shop_api_no_order_found``, where the original crashes),
  then the writer's rules (``writers.order_refunds``);
* edit — envelope, the order (``edit``), the refund, then the writer's rules;
* delete — the order (``delete``), the refund.

The list is unpaginated (every refund, newest first; decisions.md §7 "Unpaginated lists").
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.loaders.orders import ORDER_REFUNDS, ORDERS, order_id_is_invalid
from shopsvc.records.order_refunds import (
    order_refund_records,
    refund_record,
    refund_record_by_id,
)
from shopsvc.validation.types import require_object
from shopsvc.views import READ
from shopsvc.web import rendering
from shopsvc.web.resources import OrderRefund, OrderRefunds
from shopsvc.writers import order_refunds as writes

SINGULAR = "order_refund"
PLURAL = "order_refunds"
MISSING = "shop_api_missing_order_refund_data"
EDIT = {"request_method": ("POST", "PUT", "PATCH")}


def _envelope(request: Request, action: str) -> Any:
    message = f"No {SINGULAR} data specified to {action} {SINGULAR}"
    return request.envelope(SINGULAR, MISSING, message)


@view_config(context=OrderRefunds, **READ)
def list_refunds(context: OrderRefunds, request: Request) -> Response:
    order = ORDERS.load(request, context.order_id, "read")
    records = order_refund_records(request.record_context, order["id"])
    return rendering.listing(request, PLURAL, records, len(records))


@view_config(context=OrderRefunds, request_method="POST")
def create_refund(context: OrderRefunds, request: Request) -> Response:
    data = _envelope(request, "create")
    ORDER_REFUNDS.require(request, "create")
    order_id = context.order_id
    if order_id <= 0:
        raise order_id_is_invalid()
    order = ORDERS.find(request.db, order_id)
    clean = require_object(data, SINGULAR)
    refund_id = writes.create_refund(
        request.write_context, order, clean, user_id=request.identity.user_id
    )
    record = refund_record_by_id(request.record_context, refund_id)
    return rendering.single(request, SINGULAR, record, status=201)


@view_config(context=OrderRefund, **READ)
def get_refund(context: OrderRefund, request: Request) -> Response:
    order = ORDERS.load(request, context.order_id, "read")
    row = ORDER_REFUNDS.load(request, context.id, "read", order["id"])
    return rendering.single(request, SINGULAR, refund_record(request.record_context, row))


@view_config(context=OrderRefund, **EDIT)
def edit_refund(context: OrderRefund, request: Request) -> Response:
    data = _envelope(request, "edit")
    order = ORDERS.load(request, context.order_id, "edit")
    row = ORDER_REFUNDS.load(request, context.id, "edit", order["id"])
    writes.edit_refund(request.write_context, order, row, require_object(data, SINGULAR))
    record = refund_record_by_id(request.record_context, row["id"])
    return rendering.single(request, SINGULAR, record)


@view_config(context=OrderRefund, request_method="DELETE")
def delete_refund(context: OrderRefund, request: Request) -> Response:
    order = ORDERS.load(request, context.order_id, "delete")
    row = ORDER_REFUNDS.load(request, context.id, "delete", order["id"])
    writes.delete_refund(request.write_context, order, row)
    return rendering.message(request, "Permanently deleted refund")
