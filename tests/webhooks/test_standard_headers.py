"""Replay-safe deliveries (issue 24, item 5; docs/webhooks.md "Replay-safe headers"): beside the
legacy ``X-Shop-Webhook-*`` headers, every delivery and every ping carries the Standard Webhooks
headers ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature``. They are checked here
with a receiver's own implementation of the check (``hmac`` and ``base64``, as docs/webhooks.md
shows it), not with the service's signing code. Both databases.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import uuid
from collections.abc import Callable, Iterator, Mapping

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import webhooks
from tests.helpers.api import Credentials
from tests.helpers.deliveries import Shop, counts
from tests.helpers.receivers import Answer, Receiver
from tests.helpers.webhooks import WEBHOOK_HEADERS, create_webhook

SECRET = "the webhook's own secret ☺"
FAST = {"shopsvc.webhooks.retry_base_seconds": "0", "shopsvc.webhooks.timeout": "2"}
#: The receiver's tolerance for the timestamp (seconds).
TOLERANCE = 5 * 60
LEGACY = set(WEBHOOK_HEADERS)
STANDARD = {"webhook-id", "webhook-timestamp", "webhook-signature"}


def is_genuine(
    secret: str, headers: Mapping[str, str], body: bytes, now: float | None = None
) -> bool:
    """A receiver's check: the signature over ``id.timestamp.body`` with the secret's UTF-8
    bytes, and a timestamp within five minutes of ``now``."""
    lowered = {name.lower(): value for name, value in headers.items()}
    message_id = lowered.get("webhook-id")
    timestamp = lowered.get("webhook-timestamp")
    signatures = lowered.get("webhook-signature")
    if not (message_id and timestamp and signatures and timestamp.isdigit()):
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE:
        return False
    signed = message_id.encode() + b"." + timestamp.encode() + b"." + body
    mac = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).digest()
    expected = base64.b64encode(mac).decode()
    return any(
        version == "v1" and hmac.compare_digest(expected, value)
        for version, _, value in (s.partition(",") for s in signatures.split(" "))
    )


def _is_uuid4(value: str) -> bool:
    return str(uuid.UUID(value)) == value and uuid.UUID(value).version == 4


@pytest.fixture
def shop(
    build_app: Callable[..., TestApp], make_key: Callable[..., Credentials], no_ping: None
) -> Shop:
    return Shop(build_app(**FAST), make_key())


def test_every_attempt_of_a_delivery_carries_the_standard_webhooks_headers(shop: Shop) -> None:
    with Receiver(Answer(500), default=200) as receiver:
        shop.webhook(receiver.url, secret=SECRET)
        before = int(time.time())
        shop.order(note="Zoë")
        assert shop.deliver() == counts(retrying=1)
        assert shop.deliver() == counts(delivered=1)
        after = int(time.time())
        [row] = shop.deliveries()
        first, second = receiver.requests

    for request in (first, second):
        names = {name for name in request.headers if name.lower().startswith(("x-shop", "web"))}
        assert {name.lower() for name in names} == {n.lower() for n in LEGACY | STANDARD}
        assert request.header("webhook-id") == row["delivery_id"]  # the same on every attempt
        assert request.header("X-Shop-Webhook-Delivery-ID") == row["delivery_id"]
        stamp = request.header("webhook-timestamp")
        assert stamp is not None and before <= int(stamp) <= after
        assert is_genuine(SECRET, request.headers, request.body)
        # a replay later than the tolerance, a changed body, another secret: all rejected
        assert not is_genuine(SECRET, request.headers, request.body, now=int(stamp) + 301)
        assert is_genuine(SECRET, request.headers, request.body, now=int(stamp) + 299)
        assert not is_genuine(SECRET, request.headers, request.body + b" ")
        assert not is_genuine("another secret", request.headers, request.body)
        forged = {**request.headers, "webhook-timestamp": str(int(stamp) + 1)}
        assert not is_genuine(SECRET, forged, request.body)
        assert (request.header("webhook-signature") or "").startswith("v1,")
    assert _is_uuid4(first.header("webhook-id") or "")


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as server:
        yield server


def test_a_ping_carries_the_standard_webhooks_headers_with_an_id_of_its_own(
    api: TestApp, engine: sa.Engine, receiver: Receiver
) -> None:
    one = create_webhook(api, delivery_url=receiver.url, secret=SECRET)
    other = create_webhook(api, delivery_url=receiver.url)  # a generated secret
    first, second = receiver.requests
    assert first.body == f"webhook_id={one['id']}".encode()
    assert first.header("Content-Type") == "application/x-www-form-urlencoded"
    assert is_genuine(SECRET, first.headers, first.body)
    assert not is_genuine(SECRET, first.headers, first.body + b"&x=1")
    with engine.connect() as conn:
        query = sa.select(webhooks.c.secret).where(webhooks.c.id == other["id"])
        generated = conn.execute(query).scalar_one()
    assert is_genuine(generated, second.headers, second.body)
    ids = [request.header("webhook-id") or "" for request in (first, second)]
    assert all(_is_uuid4(i) for i in ids) and ids[0] != ids[1]
    assert not any(name.lower().startswith("x-shop") for name in first.headers)
