"""Create and edit an order (reference orders.md §3, §4; decisions.md §6, §7).

Create: customer, status, the base order, addresses (and the customer profile), the four item
arrays, totals, payment details, currency, ``order_meta``, then the status change from pending
(note, stock) and payment completion. Edit: note, customer, addresses, items, currency, totals
(only when an item array was sent), payment (judged after this request's totals), meta, status.
Errors are raised in the reference's step order; the caller's transaction (a bulk element's
savepoint) makes every write all or nothing. An edit locks the order's row before it reads it
(``sql.order_lookups.get_for_update``), so concurrent edits of one order are serialised.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shopsvc.domain import orders as rules
from shopsvc.errors import ApiError
from shopsvc.loaders.orders import order_id_is_invalid
from shopsvc.sql import customer_writes as customer_writes_sql
from shopsvc.sql import customers as customers_sql
from shopsvc.sql import order_lookups as order_lookups_sql
from shopsvc.sql import order_writes as sql
from shopsvc.validation.orders import ARRAYS, OrderInput
from shopsvc.writers import order_status
from shopsvc.writers.context import WriteContext
from shopsvc.writers.order_items import write_items
from shopsvc.writers.order_totals import recalculate

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


def _write_addresses(ctx: WriteContext, order: Row, clean: OrderInput) -> None:
    """Only the given keys (reference §3.1); copied to the customer's profile when the order
    has one (on edit: the customer before this request); an empty billing email is filled from
    the customer's account."""
    values: Row = {}
    for prefix, given in (("billing", clean.billing), ("shipping", clean.shipping)):
        for key, value in (given or {}).items():
            values[f"{prefix}_{key}"] = value
    customer_id = order["customer_id"]
    if customer_id and (clean.billing or clean.shipping):
        customer_writes_sql.upsert_profile(
            ctx.conn, customer_id, clean.billing or {}, clean.shipping or {}, ctx.now
        )
    sql.update_order(ctx.conn, order["id"], values)
    order.update(values)


def _fill_billing_email(ctx: WriteContext, order: Row) -> None:
    if order["billing_email"] or not order["customer_id"]:
        return
    user = customers_sql.get_user(ctx.conn, order["customer_id"])
    if user is not None and user["email"]:
        sql.update_order(ctx.conn, order["id"], {"billing_email": user["email"]})
        order["billing_email"] = user["email"]


def _write_items(ctx: WriteContext, order_id: int, clean: OrderInput) -> bool:
    """The four arrays in the fixed order; True when any array was sent."""
    for array in ARRAYS:
        if array in clean.items:
            write_items(ctx, order_id, array, clean.items[array])
    return bool(clean.items)


def _write_meta(ctx: WriteContext, order: Row, clean: OrderInput) -> None:
    if not clean.order_meta:
        return
    meta = {**json.loads(order["order_meta"] or "{}"), **clean.order_meta}
    sql.update_order(ctx.conn, order["id"], {"order_meta": json.dumps(meta)})
    order["order_meta"] = json.dumps(meta)


def _lock_line_products(ctx: WriteContext, clean: OrderInput) -> None:
    """Lock the products the new order's lines name (by id or SKU) with their families, in id
    order, before the order's row is inserted (the insert locks the ``order_counts`` row of
    pending orders of the day): the global lock order, ``docs/sql.md`` "Lock order". Nothing on
    SQLite, which has no row locks (its writers run one at a time)."""
    if ctx.conn.dialect.name == "sqlite":
        return
    lines = [item for item in clean.items.get("line_items", []) if not item.delete]
    ids = [item.values["product_id"] for item in lines if item.values.get("product_id")]
    skus = [item.values["sku"].lower() for item in lines if item.values.get("sku")]
    order_lookups_sql.products_with_families(ctx.conn, ids, skus)


def create_order(ctx: WriteContext, clean: OrderInput, client: Client) -> int:
    """A new order from its clean write fields (reference §3 steps 3-11); its id."""
    customer_id = clean.customer_id or 0
    if customer_id and not customers_sql.user_exists(ctx.conn, customer_id):
        raise invalid_customer()
    status = clean.status or "pending"
    if not rules.is_status(status):
        raise cannot_create_status()
    _lock_line_products(ctx, clean)
    order_id = sql.insert_order(
        ctx.conn,
        {
            "order_key": rules.new_order_key(),
            "status": "pending",
            "currency": ctx.settings.currency,
            "prices_include_tax": ctx.settings.prices_include_tax,
            "customer_id": customer_id,
            "customer_note": clean.note or "",
            "customer_ip": client.ip,
            "customer_user_agent": client.user_agent,
            "created_at": ctx.now,
            "updated_at": ctx.now,
        },
    )
    order = _load(ctx, order_id)
    _write_addresses(ctx, order, clean)
    _fill_billing_email(ctx, order)
    _write_items(ctx, order_id, clean)
    recalculate(ctx, order)
    payment = clean.payment
    if payment is not None:
        if not payment.method_id or not payment.method_title:
            raise payment_details_required()
        values = {"payment_method": payment.method_id, "payment_method_title": payment.method_title}
        sql.update_order(ctx.conn, order_id, values)
        order.update(values)
    check_currency(clean)
    if clean.currency is not None:
        sql.update_order(ctx.conn, order_id, {"currency": clean.currency})
    _write_meta(ctx, order, clean)
    ctx.events.record("order", order_id, "created", ["shop_new_order"])
    order_status.change_status(ctx, order, status)
    if payment is not None and payment.paid:
        order_status.payment_complete(ctx, order, payment.transaction_id)
    return order_id


def edit_order(ctx: WriteContext, order_id: int, clean: OrderInput) -> None:
    """Edit the order ``order_id`` (already loaded and allowed; reference §4 steps 4-13).

    The order's row is locked first and every decision is taken on the row read under the lock:
    two edits of one order at once (two payments of a pending order) run one after the other,
    and the second sees the first one's status, so the stock moves once."""
    order = _load(ctx, order_id, lock=True)
    values: Row = {"updated_at": ctx.now}
    if clean.note is not None:
        values["customer_note"] = clean.note
    if clean.customer_id is not None and clean.customer_id != order["customer_id"]:
        if not customers_sql.user_exists(ctx.conn, clean.customer_id):
            raise invalid_customer()
        values["customer_id"] = clean.customer_id
    _write_addresses(ctx, order, clean)
    if _write_items(ctx, order_id, clean):
        check_currency(clean)
        recalculate(ctx, order)
    else:
        check_currency(clean)
    if clean.currency is not None:
        values["currency"] = clean.currency
    sql.update_order(ctx.conn, order_id, values)
    order.update(values)
    _fill_billing_email(ctx, order)
    payment = clean.payment
    if payment is not None:
        details: Row = {}
        if payment.method_id is not None:
            details["payment_method"] = payment.method_id
        if payment.method_title is not None:
            details["payment_method_title"] = payment.method_title
        sql.update_order(ctx.conn, order_id, details)
        order.update(details)
        needs_payment = order["status"] in ("pending", "failed") and order["total"] > 0
        if payment.paid and needs_payment:
            order_status.payment_complete(ctx, order, payment.transaction_id)
    _write_meta(ctx, order, clean)
    restoring = False
    if clean.status:
        if not rules.is_status(clean.status):
            raise invalid_status()
        if order["status"] == rules.TRASH:
            order_status.restore(ctx, order)
            restoring = True
        order_status.change_status(ctx, order, clean.status, clean.status_note)
    event = "restored" if restoring else "updated"
    ctx.events.record("order", order_id, event, ["shop_update_order"])


def delete_order(ctx: WriteContext, order: Row, *, force: bool) -> bool:
    """``force``: delete for good with items, notes and refunds (no event: the original fires
    none); else move to the trash (``order.deleted``; an order already there stays as it is).
    False when a forced delete found nothing to delete."""
    if force:
        return sql.delete_order(ctx.conn, order["id"])
    if sql.update_to_trash(ctx.conn, order["id"], ctx.now):
        ctx.events.record("order", order["id"], "deleted", ["shop_trash_order"])
    return True


def _load(ctx: WriteContext, order_id: int, *, lock: bool = False) -> Row:
    """The order's row (``lock``: locked until the transaction ends)."""
    order = (
        order_lookups_sql.get_for_update(ctx.conn, order_id)
        if lock
        else order_lookups_sql.get_order(ctx.conn, order_id)
    )
    if order is None:
        raise order_id_is_invalid()
    return order
