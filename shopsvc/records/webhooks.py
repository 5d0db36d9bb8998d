"""The webhook record (reference core.md §8): as every webhook route returns it, and as the
CLI and the delivery worker would show it."""

from __future__ import annotations

from typing import Any

from shopsvc.domain.timestamps import format_timestamp
from shopsvc.domain.topics import parse_topic
from shopsvc.loaders.webhooks import WEBHOOKS
from shopsvc.records.context import RecordContext


def webhook_record(context: RecordContext, row: dict[str, Any]) -> dict[str, Any]:
    """The record of a webhook row (``sql.webhooks.get`` / ``page``)."""
    topic = parse_topic(row["topic"])
    return {
        "id": row["id"],
        "name": row["name"],
        "status": row["status"],
        "topic": row["topic"],
        "resource": topic.resource if topic else "",
        "event": topic.event if topic else "",
        "hooks": list(topic.hooks) if topic else [],
        "delivery_url": row["delivery_url"],
        "created_at": format_timestamp(row["created_at"]),
        "updated_at": format_timestamp(row["updated_at"]),
    }


def webhook_record_by_id(context: RecordContext, webhook_id: int) -> dict[str, Any]:
    """The record of the webhook ``webhook_id``; 404 ``shop_api_no_webhook_found`` when there is
    none."""
    return webhook_record(context, WEBHOOKS.find(context.conn, webhook_id))
