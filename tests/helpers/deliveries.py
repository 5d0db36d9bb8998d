"""Webhook subscriptions made through the API and the outbox rows (``webhook_deliveries``) that
the changes queue for them. Creating a webhook pings its URL: tests use the ``no_ping`` fixture."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import webhook_deliveries
from tests.helpers.api import BASE, ROOT
from tests.helpers.sql import select_all
from tests.helpers.webhooks import create_webhook

#: ``(topic, resource, resource id)`` of one queued delivery.
Queued = tuple[str, str, int]


def subscribe(api: TestApp, *topics: str) -> dict[str, int]:
    """An active webhook on each of ``topics`` (named after it); their ids by topic."""
    return {topic: create_webhook(api, topic=topic, name=topic)["id"] for topic in topics}


def set_status(api: TestApp, webhook_id: int, status: str) -> None:
    body = {"webhook": {"status": status}}
    response = api.put_json(f"{ROOT}/webhooks/{webhook_id}", body, status=200)
    assert response.json["webhook"]["status"] == status


def rows(engine: sa.Engine) -> list[dict[str, Any]]:
    """Every row of the outbox, by id."""
    return select_all(engine, webhook_deliveries)


def check_fresh(row: dict[str, Any], source_url: str = BASE) -> None:
    """``row`` is a delivery as queued: pending, due, never attempted nor claimed, its
    ``delivery_id`` a UUID4 in canonical form."""
    assert uuid.UUID(row["delivery_id"]).version == 4
    assert str(uuid.UUID(row["delivery_id"])) == row["delivery_id"]
    assert row["state"] == "pending"
    assert (row["attempts"], row["round_start"]) == (0, 0)
    assert row["claim_token"] is None and row["claimed_until"] is None
    assert row["last_attempt_at"] is None
    assert row["source_url"] == source_url
    assert isinstance(row["due_at"], dt.datetime)
    assert row["due_at"] == row["created_at"] == row["updated_at"]


def queued(engine: sa.Engine, hooks: dict[str, int], source_url: str = BASE) -> list[Queued]:
    """``(topic, resource, resource id)`` of every row of the outbox, sorted, after checking that
    each row is fresh (:func:`check_fresh`), belongs to the webhook ``hooks`` subscribed to its
    topic, and that no two rows share a delivery id."""
    found = rows(engine)
    assert len({row["delivery_id"] for row in found}) == len(found)
    for row in found:
        check_fresh(row, source_url)
        assert row["webhook_id"] == hooks[row["topic"]], row
    return sorted((row["topic"], row["resource"], row["resource_id"]) for row in found)


def clear(engine: sa.Engine) -> None:
    """Empty the outbox (what the arrangement of a test queued)."""
    with engine.begin() as conn:
        conn.execute(sa.delete(webhook_deliveries))


def actions(resource: str, resource_id: int, *names: str) -> list[Queued]:
    """The ``action.<name>`` deliveries of one record."""
    return [(f"action.{name}", resource, resource_id) for name in names]
