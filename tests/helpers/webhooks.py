"""Webhooks made through the API, for the webhook tests and for the protocol tests, which use the
webhook routes as their vehicle for lists."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import webhooks
from tests.helpers.api import ROOT, create
from tests.helpers.sql import insert, update

URL = ROOT + "/webhooks"
#: A delivery URL nothing listens on (the discard port of this machine).
NOWHERE = "http://127.0.0.1:9/hook"
#: The legacy webhook headers of a delivery, in the order the sender sets them.
WEBHOOK_HEADERS = [
    "X-Shop-Webhook-Source",
    "X-Shop-Webhook-Topic",
    "X-Shop-Webhook-Resource",
    "X-Shop-Webhook-Event",
    "X-Shop-Webhook-Signature",
    "X-Shop-Webhook-ID",
    "X-Shop-Webhook-Delivery-ID",
]


def create_webhook(api: TestApp, root: str = ROOT, **fields: Any) -> dict[str, Any]:
    """A webhook on ``order.created`` delivering to :data:`NOWHERE` unless ``fields`` say
    otherwise (under the API root ``root``); its record."""
    body = {"topic": "order.created", "delivery_url": NOWHERE, **fields}
    return create(api, f"{root}/webhooks", "webhook", **body)


def webhook_ids(api: TestApp, *names: str, root: str = ROOT, status: str = "") -> list[int]:
    """A webhook named each of ``names`` (then set to ``status`` if given); their ids."""
    made = [create_webhook(api, root, name=name)["id"] for name in names]
    if status:
        for webhook_id in made:
            api.put_json(f"{root}/webhooks/{webhook_id}", {"webhook": {"status": status}})
    return made


def numbered_webhooks(api: TestApp, count: int) -> list[int]:
    """``hook 1`` … ``hook <count>``, oldest first; their ids."""
    return webhook_ids(api, *(f"hook {n}" for n in range(1, count + 1)))


def ids(response: Any) -> list[int]:
    """The ids of a webhook list response, in order."""
    return [hook["id"] for hook in response.json["webhooks"]]


def set_times(
    engine: sa.Engine, webhook_id: int, created: dt.datetime, updated: dt.datetime | None = None
) -> None:
    update(engine, webhooks, webhook_id, created_at=created, updated_at=updated or created)


def subscribe_everywhere(engine: sa.Engine, topics: Any, when: dt.datetime) -> None:
    """An active webhook (to :data:`NOWHERE`) on each of ``topics``, written straight to the
    table: every event a write fires lands in the outbox (the differential bulk tests compare
    outboxes)."""
    for topic in topics:
        insert(
            engine,
            webhooks,
            name=topic,
            status="active",
            topic=topic,
            delivery_url=NOWHERE,
            secret="s",
            api_version="v3",
            created_at=when,
            updated_at=when,
        )
