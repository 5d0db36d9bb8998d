"""Webhook subscriptions made through the API and the outbox rows (``webhook_deliveries``) that
the changes queue for them; :class:`Shop`, the app with its worker and tables, for the delivery
tests; a worker pass's counts. Creating a webhook pings its URL: tests use the ``no_ping``
fixture."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.delivery.worker import Deliverer
from shopsvc.sql.tables import webhook_attempts, webhook_deliveries, webhooks
from tests.helpers.api import BASE, ROOT, Credentials, authorised
from tests.helpers.orders import URL as ORDERS
from tests.helpers.sql import select_all
from tests.helpers.webhooks import create_webhook

#: ``(topic, resource, resource id)`` of one queued delivery.
Queued = tuple[str, str, int]
#: A worker pass's counts, none of each, in the order a pass gives them.
NOTHING = {"delivered": 0, "retrying": 0, "failed": 0, "cancelled": 0, "dropped": 0}


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


def counts(**some: int) -> dict[str, int]:
    """A pass's counts: ``NOTHING`` but for ``some``."""
    return {**NOTHING, **some}


#: Webhook settings for tests: retries due at once, a short send timeout.
FAST = {"shopsvc.webhooks.retry_base_seconds": "0", "shopsvc.webhooks.timeout": "0.5"}


class Shop:
    """The app (through HTTP as an administrator), its engine and settings, and the outbox."""

    def __init__(self, app: TestApp, credentials: Credentials) -> None:
        self.app = app
        self.api = authorised(app, credentials)
        self.engine: sa.Engine = app.app.registry.engine
        self.settings = app.app.registry.shop

    # --- through the API

    def webhook(self, url: str, topic: str = "order.created", **fields: Any) -> int:
        return int(create_webhook(self.api, topic=topic, delivery_url=url, **fields)["id"])

    def set_status(self, webhook_id: int, status: str) -> None:
        body = {"webhook": {"status": status}}
        self.api.put_json(f"{ROOT}/webhooks/{webhook_id}", body, status=200)

    def order(self, **fields: Any) -> int:
        response = self.api.post_json(ORDERS, {"order": fields}, status=201)
        return int(response.json["order"]["id"])

    def edit_order(self, order_id: int, **fields: Any) -> None:
        self.api.put_json(f"{ORDERS}/{order_id}", {"order": fields}, status=200)

    # --- the worker

    def deliverer(self, **options: Any) -> Deliverer:
        return Deliverer(self.engine, self.settings, **options)

    def deliver(self, **options: Any) -> dict[str, int]:
        """One pass (``worker --once``); its counts."""
        return self.deliverer(**options).run_once().as_dict()

    # --- the tables

    def deliveries(self) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            query = sa.select(webhook_deliveries).order_by(webhook_deliveries.c.id)
            return [dict(row) for row in conn.execute(query).mappings()]

    def delivery(self, row_id: int) -> dict[str, Any]:
        [row] = [row for row in self.deliveries() if row["id"] == row_id]
        return row

    def set_delivery(self, row_id: int, **values: Any) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(webhook_deliveries)
                .where(webhook_deliveries.c.id == row_id)
                .values(**values)
            )

    def attempts(self) -> list[dict[str, Any]]:
        """The attempt log, oldest first."""
        with self.engine.connect() as conn:
            query = sa.select(webhook_attempts).order_by(webhook_attempts.c.id)
            return [dict(row) for row in conn.execute(query).mappings()]

    def hook(self, webhook_id: int) -> dict[str, Any]:
        with self.engine.connect() as conn:
            query = sa.select(webhooks).where(webhooks.c.id == webhook_id)
            return dict(conn.execute(query).mappings().one())
