"""Webhook events: what a change raises, how one request's events merge, and the pure rules of
their delivery — topics, body, signatures (the legacy one and the Standard Webhooks one),
backoff (decisions.md §3 and §7 "Webhook delivery").

A writer records an :class:`Event` for the record it changed: the resource topic's event
(``created``, ``updated``, ``deleted``, ``restored``, or none) and the internal hook names the
change raised (``shop_new_order``, ``shop_order_status_completed``, …). An :class:`EventSet`
keeps at most one event per record for the whole request; it is flushed into the outbox in the
request's own transaction (``sql.deliveries.enqueue``). No HTTP, no SQL here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from shopsvc.domain import json_body

#: Resources whose records are delivered (coupons are not served).
RESOURCES = ("order", "product", "customer")
#: When one request raises two events for one record, the stronger one is kept.
_STRENGTH = {None: 0, "updated": 1, "restored": 2, "deleted": 3, "created": 4}


@dataclass
class Event:
    """The change of one record in one request: ``event`` is the resource topic's event (None
    when the change only raises hooks, e.g. an order moving a product's stock) and ``actions``
    the hook names it raised, in order."""

    resource: str
    resource_id: int
    event: str | None = None
    actions: list[str] = field(default_factory=list)

    @property
    def topics(self) -> list[str]:
        """Every topic a webhook may subscribe to that this event fires."""
        names = [f"{self.resource}.{self.event}"] if self.event else []
        return names + [f"action.{name}" for name in self.actions]


class EventSet:
    """The events of one request (or one CLI command), at most one per record.

    A second change to the same record merges into its event: the stronger event wins
    (created > deleted > restored > updated) and the hook names add up. :meth:`savepoint`
    forgets what was recorded inside a block that fails (a bulk element, say), the way its
    SAVEPOINT forgets its rows."""

    def __init__(self) -> None:
        self._events: dict[tuple[str, int], Event] = {}

    def record(
        self,
        resource: str,
        resource_id: int,
        event: str | None = None,
        actions: Iterable[str] = (),
    ) -> None:
        if resource not in RESOURCES:
            raise ValueError(f"no webhook resource {resource!r}")
        key = (resource, resource_id)
        current = self._events.get(key)
        if current is None:
            current = self._events[key] = Event(resource, resource_id)
        if _STRENGTH[event] > _STRENGTH[current.event]:
            current.event = event
        for name in actions:
            if name not in current.actions:
                current.actions.append(name)

    def fired(self) -> list[tuple[str, str, int]]:
        """``(topic, resource, resource id)`` of every topic the events fire, in order."""
        return [(t, e.resource, e.resource_id) for e in self._events.values() for t in e.topics]

    def __iter__(self) -> Iterator[Event]:
        return iter(list(self._events.values()))

    def __len__(self) -> int:
        return len(self._events)

    def clear(self) -> None:
        self._events.clear()

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        saved = {
            key: Event(e.resource, e.resource_id, e.event, list(e.actions))
            for key, e in self._events.items()
        }
        try:
            yield
        except BaseException:
            self._events = saved
            raise


# --- the hook names the service raises (listed in docs/webhooks.md)


def status_hook(status: str) -> str:
    """``shop_order_status_<status>``; a hyphen becomes ``_`` (``on-hold`` → ``on_hold``) so
    that the name is a valid ``action.`` topic."""
    return "shop_order_status_" + status.replace("-", "_")


def status_change_hooks(old: str, new: str) -> list[str]:
    """What an order moving from ``old`` to ``new`` raises."""
    return [
        status_hook(new),
        f"{status_hook(old)}_to_{new.replace('-', '_')}",
        "shop_order_status_changed",
    ]


def product_hook(what: str, variation: bool) -> str:
    """``shop_new_product`` / ``shop_update_product`` (``…_variation`` for a variation)."""
    return f"shop_{what}_product" + ("_variation" if variation else "")


def stock_hook(variation: bool) -> str:
    return "shop_variation_set_stock" if variation else "shop_product_set_stock"


# --- delivery


def topic_parts(topic: str) -> tuple[str, str]:
    """``(resource, event)`` of a topic as the delivery headers name them: ``order.created`` →
    ``("order", "created")``; ``action.shop_x`` → ``("action", "shop_x")``."""
    resource, _, event = topic.partition(".")
    return resource, event


def body_of(topic: str, resource_id: int, record: dict[str, Any] | None) -> dict[str, Any]:
    """The JSON body of a delivery: ``{"action", "arg"}`` for an action, ``{"id"}`` for a
    deletion, else the record in its envelope (``record`` is its GET representation)."""
    resource, event = topic_parts(topic)
    if resource == "action":
        return {"action": event, "arg": resource_id}
    if event == "deleted":
        return {"id": resource_id}
    assert record is not None
    return {resource: record}


def needs_record(topic: str) -> bool:
    resource, event = topic_parts(topic)
    return resource != "action" and event != "deleted"


def encode_body(body: dict[str, Any]) -> bytes:
    return json_body.encode(body)


def signature(body: bytes, secret: str) -> str:
    """base64 of the HMAC-SHA256 of the exact body bytes, keyed with the webhook's secret."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def standard_signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The Standard Webhooks signature of one attempt: ``v1,`` and the base64 of the
    HMAC-SHA256 of ``{message_id}.{timestamp}.{body}``, keyed with the webhook's secret as
    stored, taken as its UTF-8 bytes (not base64-decoded: the service's secrets carry no
    ``whsec_`` prefix)."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def standard_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt (docs/webhooks.md "Replay-safe headers"):
    ``webhook-id`` (the same on every attempt of a delivery), ``webhook-timestamp`` (this
    attempt's, in seconds since the epoch) and ``webhook-signature``."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard_signature(secret, message_id, timestamp, body),
    }


def retry_delay(attempts: int, base_seconds: float) -> float:
    """Seconds before the next attempt of a delivery that has failed ``attempts`` times this
    round: attempts are made after 0, 1, 2, 4, 8 … units."""
    return base_seconds * (2 ** (attempts - 1)) if attempts > 0 else 0.0


def is_success(status: int | None) -> bool:
    """Any 2xx; a redirect, like every other answer, is a failure."""
    return status is not None and 200 <= status < 300
