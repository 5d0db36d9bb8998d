"""Webhooks: ``/webhooks``, ``/webhooks/count``, ``/webhooks/<id>`` and the deprecated deliveries.

Checks run in the spec's order: create — envelope, capability, topic, delivery URL; edit —
envelope, then id, existence and capability; read and delete — id, existence, capability.

With ``shopsvc.webhooks.refuse_private_delivery_urls = true`` (off by default: decisions.md
accepts a private delivery URL) and private targets off, a delivery URL the private-target policy
refuses is refused. Knowing that takes a name lookup: it is made before the request's
transaction begins (on SQLite a write's ``BEGIN IMMEDIATE`` holds the write lock
from its first statement), only for a caller who may manage webhooks, and reported at the
delivery URL's place in the order of checks.
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.delivery.ping import ping
from shopsvc.delivery.targets import refused_delivery_url, refuses_private_urls
from shopsvc.domain.webhooks import LIST_STATUSES, default_name, new_secret
from shopsvc.errors import ApiError, invalid_param
from shopsvc.loaders.webhooks import WEBHOOKS
from shopsvc.records.webhooks import webhook_record, webhook_record_by_id
from shopsvc.sql import deliveries as deliveries_sql
from shopsvc.sql import webhook_writes as webhook_writes_sql
from shopsvc.sql import webhooks as webhooks_sql
from shopsvc.sql.tables import utc_now
from shopsvc.validation import webhooks as validation
from shopsvc.validation.types import require_object
from shopsvc.views import READ
from shopsvc.web import rendering
from shopsvc.web.listing import WEBHOOK_ORDERBY, parse_list_params
from shopsvc.web.resources import (
    Webhook,
    WebhookDeliveries,
    WebhookDelivery,
    Webhooks,
    WebhooksCount,
)

API_VERSION = "legacy_v3"
EDIT = {"request_method": ("POST", "PUT", "PATCH")}


def _list_status(request: Request) -> str | None:
    status = (request.query.get("status") or "all").strip().lower()
    if status not in LIST_STATUSES:
        raise invalid_param("status", f"must be one of {', '.join(LIST_STATUSES)}")
    return None if status == "all" else status


def _refused(request: Request, data: Any, action: str) -> frozenset[str]:
    """The delivery URL of ``data`` (a webhook object) if the shop refuses private delivery URLs
    and the policy refuses it, looked up now, before the transaction (only for a caller who may
    manage webhooks: nobody else gets the service to resolve a name)."""
    if not refuses_private_urls(request.shop) or not request.has_permission(
        WEBHOOKS.capabilities[action]
    ):
        return frozenset()
    url = validation.delivery_url_candidate(data)
    if url is None or not refused_delivery_url(url, allow_private=False):
        return frozenset()
    return frozenset({url})


@view_config(context=Webhooks, **READ)
def list_webhooks(context: Webhooks, request: Request) -> Response:
    WEBHOOKS.require(request, "list")
    params = parse_list_params(request.query, request.filters, request.shop, WEBHOOK_ORDERBY)
    status = _list_status(request)
    rows, total = webhooks_sql.page(request.db, params, status)
    ctx = request.record_context
    records = [webhook_record(ctx, row) for row in rows]
    return rendering.listing(request, "webhooks", records, total, params.page, params.limit)


@view_config(context=WebhooksCount, **READ)
def count_webhooks(context: WebhooksCount, request: Request) -> Response:
    WEBHOOKS.require(request, "count")
    params = parse_list_params(request.query, request.filters, request.shop, WEBHOOK_ORDERBY)
    return rendering.count(request, webhooks_sql.count(request.db, params, _list_status(request)))


@view_config(context=Webhooks, request_method="POST")
def create_webhook(context: Webhooks, request: Request) -> Response:
    data = request.envelope(
        "webhook", "shop_api_missing_webhook_data", "No webhook data specified to create webhook."
    )
    WEBHOOKS.require(request, "create")
    refused = _refused(request, data, "create")
    clean = validation.clean_create(require_object(data, "webhook"), refused)
    now = utc_now()
    secret = clean.get("secret") or new_secret()
    webhook_id = webhook_writes_sql.insert(
        request.db,
        {
            "name": clean.get("name") or default_name(now),
            "status": "active",
            "topic": clean["topic"].name,
            "delivery_url": clean["delivery_url"],
            "secret": secret,
            "api_version": API_VERSION,
            "user_id": request.identity.user_id,
        },
        now,
    )
    record = webhook_record_by_id(request.record_context, webhook_id)
    shop = request.shop
    request.after_commit(
        lambda: ping(clean["delivery_url"], webhook_id, shop.allow_private_targets, secret=secret)
    )
    return rendering.single(request, "webhook", record, status=201)


@view_config(context=Webhook, **READ)
def get_webhook(context: Webhook, request: Request) -> Response:
    row = WEBHOOKS.load(request, context.id, "read")
    return rendering.single(request, "webhook", webhook_record(request.record_context, row))


@view_config(context=Webhook, **EDIT)
def edit_webhook(context: Webhook, request: Request) -> Response:
    data = request.envelope(
        "webhook", "shop_api_missing_webhook_data", "No webhook data specified to edit webhook."
    )
    refused = _refused(request, data, "edit")  # before load: its read begins the transaction
    WEBHOOKS.load(request, context.id, "edit")
    clean = validation.clean_edit(require_object(data, "webhook"), refused)
    values: dict[str, Any] = {k: v for k, v in clean.items() if k != "topic"}
    if "topic" in clean:
        values["topic"] = clean["topic"].name
    now = utc_now()
    if values.get("status") == "active":
        values["failure_count"] = 0
    elif values.get("status") in ("paused", "disabled"):  # nothing queued for it goes out
        reason = f"cancelled: the webhook was {values['status']}"
        deliveries_sql.cancel_pending(request.db, context.id, now, reason)
    webhook_writes_sql.update(request.db, context.id, values, now)
    record = webhook_record_by_id(request.record_context, context.id)
    return rendering.single(request, "webhook", record)


@view_config(context=Webhook, request_method="DELETE")
def delete_webhook(context: Webhook, request: Request) -> Response:
    WEBHOOKS.load(request, context.id, "delete")
    webhook_writes_sql.delete(request.db, context.id)
    return rendering.message(request, "Permanently deleted webhook")


@view_config(context=WebhookDeliveries, **READ)
def list_deliveries(context: WebhookDeliveries, request: Request) -> Response:
    webhook = context.find(Webhook)
    assert isinstance(webhook, Webhook)
    WEBHOOKS.load(request, webhook.id, "read")
    return rendering.listing(request, "webhook_deliveries", [], 0)


@view_config(context=WebhookDelivery, **READ)
def get_delivery(context: WebhookDelivery, request: Request) -> Response:
    webhook = context.find(Webhook)
    assert isinstance(webhook, Webhook)
    WEBHOOKS.load(request, webhook.id, "read")
    if context.id <= 0:
        raise ApiError("shop_api_invalid_webhook_delivery_id", "Invalid webhook delivery ID.", 404)
    raise ApiError("shop_api_invalid_webhook_delivery_id", "Invalid webhook delivery.", 400)
