"""What every order write shares: who created the order (:class:`Client`), the spec's errors of
an order's fields that the planner raises (reference orders.md §3, §4), and deleting an order.

A create or an edit, single or in a bulk, is planned and written by ``writers.order_batch``
(plan → every check → one write per table: ``docs/architecture.md`` "One write path").
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shopsvc.domain import orders as rules
from shopsvc.errors import ApiError
from shopsvc.sql import order_writes as sql
from shopsvc.validation.orders import OrderInput
from shopsvc.writers.context import WriteContext

Row = dict[str, Any]
_ZERO = Decimal(0)


@dataclass(frozen=True)
class Client:
    """Who created the order: the API caller's IP and User-Agent (reference §1.1)."""

    ip: str = ""
    user_agent: str = ""


def invalid_customer() -> ApiError:
    return ApiError("shop_api_invalid_customer_id", "Customer ID is invalid.", 400)


def cannot_create_status() -> ApiError:
    return ApiError(
        "shop_api_cannot_create_order", "Cannot create order: Invalid order status", 400
    )


def payment_details_required() -> ApiError:
    return ApiError("shop_invalid_payment_details", "Payment method ID and title are required", 400)


def invalid_status() -> ApiError:
    return ApiError("shop_api_invalid_order_status", "Invalid order status.", 400)


def check_currency(clean: OrderInput) -> None:
    if clean.currency is not None and not rules.is_known_currency(clean.currency):
        raise ApiError("shop_invalid_order_currency", "Provided order currency is invalid.", 400)


def delete_order(ctx: WriteContext, order: Row, *, force: bool) -> bool:
    """``force``: delete for good with items, notes and refunds (no event: the original fires
    none); else move to the trash (``order.deleted``; an order already there stays as it is).
    False when a forced delete found nothing to delete."""
    if force:
        return sql.delete_order(ctx.conn, order["id"])
    if sql.update_to_trash(ctx.conn, order["id"], ctx.now):
        ctx.events.record("order", order["id"], "deleted", ["shop_trash_order"])
    return True
