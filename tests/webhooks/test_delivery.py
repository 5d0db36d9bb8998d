"""Webhook delivery (decisions.md §3 and §7 "Webhook delivery"): the worker sends what the API
queued in the outbox to local receivers — signed bodies rendered at send time, every header,
retries on schedule, auto-disable, leases, concurrent workers, drops and cancellations, stopping.

Events are raised through the API (its transaction queues them); a worker is run explicitly with
``Deliverer(...).run_once()`` (one pass) or ``run()`` in a thread, with ``retry_base_seconds = 0``
or a fake clock. Both databases unless a test says otherwise.
"""

from __future__ import annotations

import base64
import collections
import datetime as dt
import hashlib
import hmac
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.db.engine import make_engine
from shopsvc.delivery.worker import Deliverer, PassResult
from shopsvc.outbound.client import USER_AGENT
from shopsvc.sql import deliveries as deliveries_sql
from shopsvc.sql.tables import webhooks
from tests.helpers.api import ROOT
from tests.helpers.deliveries import NOTHING, Shop, counts
from tests.helpers.order_writes import product
from tests.helpers.orders import URL as ORDERS
from tests.helpers.receivers import Answer, Receiver, closed, free_port, held, redirect, slow
from tests.helpers.webhooks import WEBHOOK_HEADERS

#: Retries due at once and short sends: a test makes each attempt with one more pass.
#: For the tests whose receiver holds a request until told: no send times out meanwhile, even
#: on a loaded machine (each test releases its receiver; 5 s was seen to run out under load,
#: turning the held send into a failed attempt and its delivery into a retry not yet due).
HELD = {"shopsvc.webhooks.timeout": "30"}
SIGNATURE = "X-Shop-Webhook-Signature"


class FakeClock:
    """The worker's clock, moved by hand (naive UTC, like the outbox). It starts a second after
    the real time, so that what the API queued just now is due."""

    def __init__(self) -> None:
        self.now = deliveries_sql.now_precise() + dt.timedelta(seconds=1)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


def verify(body: bytes, secret: str, signature: str | None) -> bool:
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).digest()
    return signature is not None and hmac.compare_digest(
        base64.b64encode(digest).decode("ascii"), signature
    )


def is_uuid4(value: str | None) -> bool:
    try:
        parsed = uuid.UUID(value or "")
    except ValueError:
        return False
    return parsed.version == 4 and str(parsed) == value


def log_entry(row: dict[str, Any]) -> tuple[Any, ...]:
    """What an attempt log row says, but its id, duration and time."""
    return (
        row["delivery_id"],
        row["webhook_id"],
        row["topic"],
        row["resource_id"],
        row["attempt"],
        row["status"],
        row["error"],
    )


# --- what is sent


def test_order_created_is_signed_and_carries_the_get_record(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop()
    webhook_id = shop.webhook(receiver.url, secret="the webhook's own secret")
    order_id = shop.order(
        billing_address={"first_name": "Zoë", "last_name": "Lee", "email": "zoe@example.com"},
        note="Leave it at the door ☺",
        line_items=[{"product_id": product(shop.engine, "Thing", "6.25"), "quantity": 2}],
    )
    [queued] = shop.deliveries()
    assert queued["state"] == "pending"
    assert receiver.requests == []  # nothing is sent before a worker runs

    assert shop.deliver() == counts(delivered=1)

    [request] = receiver.requests
    assert (request.method, request.path) == ("POST", "/hook")
    expected = shop.api.get(f"{ORDERS}/{order_id}").json
    assert request.json == expected
    assert request.body == json.dumps(expected, ensure_ascii=False, separators=(",", ":")).encode()
    assert expected["order"]["note"] == "Leave it at the door ☺"
    assert "Zoë".encode() in request.body  # UTF-8, not \u escapes
    secret = shop.hook(webhook_id)["secret"]
    assert secret == "the webhook's own secret"
    assert verify(request.body, secret, request.header("X-Shop-Webhook-Signature"))
    assert not verify(request.body + b" ", secret, request.header("X-Shop-Webhook-Signature"))

    sent = {name: request.header(name) for name in WEBHOOK_HEADERS}
    assert sent == {
        "X-Shop-Webhook-Source": "http://localhost/",
        "X-Shop-Webhook-Topic": "order.created",
        "X-Shop-Webhook-Resource": "order",
        "X-Shop-Webhook-Event": "created",
        "X-Shop-Webhook-Signature": sent["X-Shop-Webhook-Signature"],
        "X-Shop-Webhook-ID": str(webhook_id),
        "X-Shop-Webhook-Delivery-ID": queued["delivery_id"],
    }
    assert is_uuid4(queued["delivery_id"])
    assert request.header("Content-Type") == "application/json"
    assert request.header("User-Agent") == USER_AGENT == "Shop/0.1.0 Hookshot (shopsvc)"
    assert request.header("Content-Length") == str(len(request.body))
    # no other webhook header than those
    assert sorted(n for n in request.headers if n.lower().startswith("x-shop")) == sorted(
        WEBHOOK_HEADERS
    )

    [row] = shop.deliveries()
    assert (row["state"], row["attempts"], row["claim_token"], row["claimed_until"]) == (
        "delivered",
        1,
        None,
        None,
    )
    [logged] = shop.attempts()
    assert log_entry(logged) == (
        queued["delivery_id"],
        webhook_id,
        "order.created",
        order_id,
        1,
        200,
        None,
    )
    assert logged["duration_ms"] >= 0
    assert shop.hook(webhook_id)["failure_count"] == 0
    # delivered once: the next pass has nothing to do
    assert shop.deliver() == NOTHING
    assert len(receiver.requests) == 1


def test_the_body_is_rendered_when_it_is_sent(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop()
    shop.webhook(receiver.url)
    order_id = shop.order(note="before")
    shop.edit_order(order_id, note="after")  # before the worker runs
    shop.deliver()
    [body] = receiver.bodies()
    assert body["order"]["note"] == "after"
    assert body == shop.api.get(f"{ORDERS}/{order_id}").json


def test_product_created_carries_the_get_record(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop()
    webhook_id = shop.webhook(receiver.url, topic="product.created")
    body = {"product": {"title": "Thing", "type": "simple", "regular_price": "9.99"}}
    product_id = shop.api.post_json(f"{ROOT}/products", body, status=201).json["product"]["id"]
    assert shop.deliver() == counts(delivered=1)
    [request] = receiver.posts
    assert request.json == shop.api.get(f"{ROOT}/products/{product_id}").json
    assert request.header("X-Shop-Webhook-Topic") == "product.created"
    assert request.header("X-Shop-Webhook-Resource") == "product"
    assert verify(request.body, shop.hook(webhook_id)["secret"], request.header(SIGNATURE))


def test_public_url_and_header_prefix(make_shop: Callable[..., Shop], receiver: Receiver) -> None:
    shop = make_shop(
        **{"shopsvc.public_url": "https://shop.example.com", "shopsvc.header_prefix": "X-WC"}
    )
    webhook_id = shop.webhook(receiver.url)
    order_id = shop.order()
    shop.deliver()
    [request] = receiver.requests
    names = [n for n in request.headers if n.lower().startswith(("x-wc", "x-shop"))]
    assert sorted(names) == sorted(n.replace("X-Shop", "X-WC") for n in WEBHOOK_HEADERS)
    assert request.header("X-WC-Webhook-Source") == "https://shop.example.com/"
    assert request.header("X-WC-Webhook-ID") == str(webhook_id)
    assert request.json["order"]["view_order_url"] == (
        f"https://shop.example.com/my-account/view-order/{order_id}/"
    )


def test_deleted_and_action_bodies(make_shop: Callable[..., Shop], receiver: Receiver) -> None:
    shop = make_shop()
    deleted = shop.webhook(receiver.url, topic="order.deleted")
    action = shop.webhook(receiver.url, topic="action.shop_new_order")
    order_id = shop.order()
    shop.api.delete(f"{ORDERS}/{order_id}", status=202)  # to the trash: order.deleted
    assert shop.deliver() == counts(delivered=2)
    by_hook = {int(r.header("X-Shop-Webhook-ID") or 0): r for r in receiver.posts}
    assert by_hook[deleted].json == {"id": order_id}
    assert by_hook[action].json == {"action": "shop_new_order", "arg": order_id}
    for request, topic, resource, event in [
        (by_hook[deleted], "order.deleted", "order", "deleted"),
        (by_hook[action], "action.shop_new_order", "action", "shop_new_order"),
    ]:
        assert request.header("X-Shop-Webhook-Topic") == topic
        assert request.header("X-Shop-Webhook-Resource") == resource
        assert request.header("X-Shop-Webhook-Event") == event
        secret = shop.hook(int(request.header("X-Shop-Webhook-ID") or 0))["secret"]
        assert verify(request.body, secret, request.header("X-Shop-Webhook-Signature"))


# --- failures, retries, disabling

FAILURES = {
    "500": (Answer(500), 500, "the receiver answered 500"),
    "timeout": (slow(3.0), None, "the request timed out"),
    "closed": (closed(), None, "the connection failed"),
    "302": (redirect(302), 302, "the receiver answered 302"),
}
ERROR_500 = "the receiver answered 500"
#: Seconds between attempts with the default unit (60 s): after 0, 1, 2, 4, 8 units.
GAPS = [60, 120, 240, 480]


@pytest.mark.parametrize("failure", list(FAILURES))
def test_failures_retry_on_schedule_then_disable_the_webhook(
    make_shop: Callable[..., Shop], failure: str
) -> None:
    answer, status, error = FAILURES[failure]
    shop = make_shop(
        **{"shopsvc.webhooks.retry_base_seconds": "60", "shopsvc.webhooks.timeout": "0.3"}
    )
    clock = FakeClock()
    with Receiver(default=answer) as receiver:
        webhook_id = shop.webhook(receiver.url)
        first = shop.order()
        shop.order()
        one, other = shop.deliveries()
        assert one["due_at"] == one["created_at"]  # the first attempt: after 0 units
        # the other one is a retry due tomorrow when the webhook is disabled
        shop.set_delivery(other["id"], due_at=clock.now + dt.timedelta(days=1))

        times = []
        for attempt in range(1, 6):
            result = shop.deliver(clock=clock)
            times.append(clock.now)
            row = shop.delivery(one["id"])
            assert row["attempts"] == attempt
            assert row["last_attempt_at"] == clock.now
            assert shop.hook(webhook_id)["failure_count"] == attempt
            if attempt == 5:
                assert result == counts(failed=1)
                break
            assert result == counts(retrying=1)
            assert row["state"] == "pending"
            gap = GAPS[attempt - 1]
            assert row["due_at"] == clock.now + dt.timedelta(seconds=gap)
            clock.advance(gap - 1)
            assert shop.deliver(clock=clock) == NOTHING  # a second early
            clock.advance(1)

        row = shop.delivery(one["id"])
        assert (row["state"], row["attempts"], row["claim_token"]) == ("failed", 5, None)
        cancelled = shop.delivery(other["id"])
        assert (cancelled["state"], cancelled["attempts"]) == ("cancelled", 0)
        assert shop.hook(webhook_id)["status"] == "disabled"
        assert shop.api.get(f"{ROOT}/webhooks/{webhook_id}").json["webhook"]["status"] == (
            "disabled"
        )

        *logged, cancel = shop.attempts()
        assert [log_entry(r) for r in logged] == [
            (one["delivery_id"], webhook_id, "order.created", first, n, status, error)
            for n in range(1, 6)
        ]
        assert [r["at"] for r in logged] == times
        # the other delivery, cancelled with the webhook, is logged after the 5th attempt
        assert log_entry(cancel) == (
            other["delivery_id"],
            webhook_id,
            "order.created",
            other["resource_id"],
            0,
            None,
            "cancelled: the webhook was disabled",
        )
        assert cancel["at"] == times[-1]
        if failure == "timeout":
            assert all(250 <= r["duration_ms"] < 2000 for r in logged)

        # the same Delivery-ID on every attempt; the redirect was never followed
        assert receiver.delivery_ids() == [one["delivery_id"]] * 5
        assert [(r.method, r.path) for r in receiver.requests] == [("POST", "/hook")] * 5

        clock.advance(86400 * 2)
        assert shop.deliver(clock=clock) == NOTHING
        assert len(receiver.requests) == 5


def test_each_delivery_gets_max_attempts(make_shop: Callable[..., Shop]) -> None:
    shop = make_shop(**{"shopsvc.webhooks.disable_after": "10"})
    with Receiver(default=500) as receiver:
        webhook_id = shop.webhook(receiver.url)
        shop.order()
        for _ in range(4):
            assert shop.deliver() == counts(retrying=1)  # one attempt per pass
        assert len(receiver.requests) == 4
        assert shop.deliver() == counts(failed=1)
        assert shop.deliver() == NOTHING
        [row] = shop.deliveries()
        assert (row["state"], row["attempts"]) == ("failed", 5)
        hook = shop.hook(webhook_id)
        assert (hook["status"], hook["failure_count"]) == ("active", 5)
        assert len(receiver.requests) == 5


def test_failed_attempts_of_different_deliveries_add_up(make_shop: Callable[..., Shop]) -> None:
    shop = make_shop()
    with Receiver(default=500) as receiver:
        webhook_id = shop.webhook(receiver.url)
        orders = [shop.order() for _ in range(3)]
        assert shop.deliver(concurrency=1) == counts(retrying=3)
        assert shop.hook(webhook_id)["failure_count"] == 3
        # the 5th consecutive failed attempt of the webhook disables it (the 2nd of its delivery)
        assert shop.deliver(concurrency=1) == counts(retrying=1, failed=1)
        # ... and cancels every retry still pending (the first delivery's, the third's)
        rows = shop.deliveries()
        assert [(r["resource_id"], r["state"], r["attempts"]) for r in rows] == [
            (orders[0], "cancelled", 2),
            (orders[1], "failed", 2),
            (orders[2], "cancelled", 1),
        ]
        hook = shop.hook(webhook_id)
        assert (hook["status"], hook["failure_count"]) == ("disabled", 5)
        assert len(receiver.requests) == 5
        assert shop.deliver() == NOTHING


def test_a_2xx_resets_the_failure_count(make_shop: Callable[..., Shop]) -> None:
    shop = make_shop()
    with Receiver(500, 500, default=204) as receiver:
        webhook_id = shop.webhook(receiver.url)
        order_id = shop.order()
        assert shop.deliver() == counts(retrying=1)
        assert shop.deliver() == counts(retrying=1)
        assert shop.hook(webhook_id)["failure_count"] == 2
        assert shop.deliver() == counts(delivered=1)  # any 2xx is a success
        assert shop.hook(webhook_id)["failure_count"] == 0
        [row] = shop.deliveries()
        assert (row["state"], row["attempts"]) == ("delivered", 3)
        assert receiver.delivery_ids() == [row["delivery_id"]] * 3
        assert [log_entry(r) for r in shop.attempts()] == [
            (row["delivery_id"], webhook_id, "order.created", order_id, 1, 500, ERROR_500),
            (row["delivery_id"], webhook_id, "order.created", order_id, 2, 500, ERROR_500),
            (row["delivery_id"], webhook_id, "order.created", order_id, 3, 204, None),
        ]


@pytest.mark.parametrize("status", [200, 202])
def test_a_2xx_with_a_long_answer_is_a_success(make_shop: Callable[..., Shop], status: int) -> None:
    """Success is any 2xx (decisions.md §3), whatever the receiver writes after it: an answer
    longer than the sender reads (a 100 kB "thank you" page) does not make it a failure."""
    shop = make_shop()
    with Receiver(default=Answer(status, body=b"<p>thanks</p>" * 8000)) as receiver:
        webhook_id = shop.webhook(receiver.url)
        shop.order()
        assert shop.deliver() == counts(delivered=1)
        assert len(receiver.posts) == 1
        [row] = shop.deliveries()
        assert (row["state"], row["attempts"]) == ("delivered", 1)
        assert [(r["status"], r["error"]) for r in shop.attempts()] == [(status, None)]
        assert shop.hook(webhook_id)["failure_count"] == 0


def test_an_edit_setting_status_active_resets_the_failure_count(
    make_shop: Callable[..., Shop],
) -> None:
    shop = make_shop(**{"shopsvc.webhooks.disable_after": "3"})
    with Receiver(default=500) as receiver:
        webhook_id = shop.webhook(receiver.url)
        shop.order()
        assert shop.deliver() == counts(retrying=1)
        assert shop.deliver() == counts(retrying=1)
        assert shop.hook(webhook_id)["failure_count"] == 2
        shop.set_status(webhook_id, "active")
        assert shop.hook(webhook_id)["failure_count"] == 0
        # two more failures: 2 in a row again, not 4 — still active
        assert shop.deliver() == counts(retrying=1)
        assert shop.deliver() == counts(retrying=1)
        hook = shop.hook(webhook_id)
        assert (hook["status"], hook["failure_count"]) == ("active", 2)
        # the third in a row disables it
        assert shop.deliver() == counts(failed=1)
        hook = shop.hook(webhook_id)
        assert (hook["status"], hook["failure_count"]) == ("disabled", 3)
        assert len(receiver.requests) == 5


def test_a_disabled_webhook_set_active_again_delivers_new_events(
    make_shop: Callable[..., Shop],
) -> None:
    shop = make_shop(**{"shopsvc.webhooks.disable_after": "1"})
    with Receiver(500, default=200) as receiver:
        webhook_id = shop.webhook(receiver.url)
        shop.order()
        assert shop.deliver() == counts(failed=1)
        assert shop.hook(webhook_id)["status"] == "disabled"
        shop.order()  # not queued: the webhook is disabled
        assert len(shop.deliveries()) == 1
        shop.set_status(webhook_id, "active")
        third = shop.order()
        assert shop.deliver() == counts(delivered=1)
        assert [b["order"]["id"] for b in receiver.bodies()[1:]] == [third]


# --- crashes and leases


def test_events_committed_before_a_crash_are_delivered_later(
    make_shop: Callable[..., Shop], receiver: Receiver, database_url: str
) -> None:
    shop = make_shop(**{"shopsvc.webhooks.deliver_in_process": "false"})
    shop.webhook(receiver.url)
    order_id = shop.order()
    # the service dies after the commit, before anything was sent
    shop.engine.dispose()
    assert receiver.requests == []
    [row] = shop.deliveries()
    assert row["state"] == "pending"

    # a worker started later (its own engine) delivers it
    engine = make_engine(database_url)
    try:
        assert Deliverer(engine, shop.settings).run_once().as_dict() == counts(delivered=1)
    finally:
        engine.dispose()
    assert [b["order"]["id"] for b in receiver.bodies()] == [order_id]


def _in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(target()), daemon=True)
    thread.start()
    return thread, result


def test_an_expired_lease_is_taken_over_and_the_late_result_is_not_stored(
    make_shop: Callable[..., Shop],
) -> None:
    shop = make_shop(**HELD)
    # the first worker's send hangs, then fails; the second one's succeeds
    with Receiver(held(500), default=200) as receiver:
        webhook_id = shop.webhook(receiver.url)
        shop.order()
        first = shop.deliverer(lease_seconds=60)
        thread, result = _in_thread(first.run_once)
        assert receiver.wait_for(1)
        [row] = shop.deliveries()
        assert row["claim_token"] == first.token
        assert row["claimed_until"] > deliveries_sql.now_precise() + dt.timedelta(seconds=50)

        # a live claim is nobody else's
        assert shop.deliver() == NOTHING
        assert len(receiver.requests) == 1

        # the lease runs out (the first worker hangs, or died): another worker takes over
        past = deliveries_sql.now_precise() - dt.timedelta(seconds=1)
        shop.set_delivery(row["id"], claimed_until=past)
        assert shop.deliver() == counts(delivered=1)
        assert len(receiver.requests) == 2

        receiver.release()  # the first worker's late answer: 500
        thread.join(5)
        assert not thread.is_alive()
        [late] = result
        assert isinstance(late, PassResult)
        assert late.as_dict() == NOTHING
        assert late.lost == 1

        [row] = shop.deliveries()
        assert (row["state"], row["attempts"], row["claim_token"]) == ("delivered", 1, None)
        assert [(r["attempt"], r["status"], r["error"]) for r in shop.attempts()] == [
            (1, 200, None)
        ]
        assert shop.hook(webhook_id)["failure_count"] == 0
        assert receiver.delivery_ids() == [row["delivery_id"]] * 2


def test_two_workers_deliver_each_event_once(make_shop: Callable[..., Shop]) -> None:
    """PostgreSQL: claims with FOR UPDATE SKIP LOCKED; SQLite: claims serialised by its write
    lock. Either way a live lease is never claimed twice."""
    shop = make_shop()
    with Receiver(default=slow(0.01)) as receiver:
        shop.webhook(receiver.url)
        response = shop.api.post_json(f"{ORDERS}/bulk", {"orders": [{} for _ in range(40)]})
        order_ids = [o["id"] for o in response.json["orders"]]
        assert len(order_ids) == 40 and len(shop.deliveries()) == 40

        workers = [shop.deliverer(concurrency=4) for _ in range(2)]
        threads = [threading.Thread(target=w.run, daemon=True) for w in workers]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with shop.engine.connect() as conn:
                if deliveries_sql.pending_count(conn) == 0:
                    break
            time.sleep(0.02)
        for worker in workers:
            worker.stop()
        for thread in threads:
            thread.join(10)
        assert not any(thread.is_alive() for thread in threads)

        sent = collections.Counter(receiver.delivery_ids())
        rows = shop.deliveries()
        assert sorted(sent) == sorted(r["delivery_id"] for r in rows)
        assert set(sent.values()) == {1}
        assert sorted(b["order"]["id"] for b in receiver.bodies()) == sorted(order_ids)
        assert {(r["state"], r["attempts"]) for r in rows} == {("delivered", 1)}
        assert len(shop.attempts()) == 40


def test_a_slow_receiver_with_a_backlog_does_not_hold_up_other_webhooks(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    """One webhook gets at most half of the senders (worker.py), "so one slow receiver never
    holds up the others" — also when the slow one has more due deliveries than one claim
    looks at."""
    shop = make_shop(**HELD)
    with Receiver(default=held(200)) as slow_receiver:
        shop.webhook(slow_receiver.url)
        shop.api.post_json(f"{ORDERS}/bulk", {"orders": [{} for _ in range(20)]}, status=200)
        shop.webhook(receiver.url)
        last = shop.order()  # due after the slow webhook's backlog
        assert len(shop.deliveries()) == 22
        worker = shop.deliverer(concurrency=4)
        thread = threading.Thread(target=worker.run, daemon=True)
        thread.start()
        try:
            assert slow_receiver.wait_for(2)
            arrived = receiver.wait_for(1, timeout=2)
            held_sends = len(slow_receiver.requests)
        finally:
            slow_receiver.release()
            worker.stop()
            thread.join(10)
        assert held_sends == 2  # half of the senders
        assert arrived, "the other webhook's delivery waited for the slow receiver"
        assert [b["order"]["id"] for b in receiver.bodies()] == [last]


# --- what is not sent


def test_a_resource_deleted_before_sending_is_dropped_and_logged(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop()
    webhook_id = shop.webhook(receiver.url)
    order_id = shop.order()
    shop.api.delete(f"{ORDERS}/{order_id}?force=true", status=200)
    [row] = shop.deliveries()  # a forced delete fires nothing
    assert shop.deliver() == counts(dropped=1)
    assert receiver.requests == []
    [row] = shop.deliveries()
    assert (row["state"], row["attempts"], row["claim_token"]) == ("dropped", 0, None)
    [logged] = shop.attempts()
    assert log_entry(logged) == (
        row["delivery_id"],
        webhook_id,
        "order.created",
        order_id,
        0,
        None,
        "dropped: the order no longer exists",
    )
    assert logged["duration_ms"] == 0
    assert shop.hook(webhook_id)["failure_count"] == 0
    assert shop.deliver() == NOTHING


def test_a_receiver_down_then_back_gets_everything_in_order_per_resource(
    make_shop: Callable[..., Shop],
) -> None:
    shop = make_shop(**{"shopsvc.webhooks.disable_after": "100"})
    port = free_port()  # nothing listens there
    webhook_id = shop.webhook(f"http://127.0.0.1:{port}/hook", topic="order.updated")
    first, second = shop.order(), shop.order()  # order.created: not subscribed
    assert shop.deliveries() == []

    shop.edit_order(first, note="one")
    [d1] = shop.deliveries()
    # while a worker is sending d1, the order changes again: a second delivery
    shop.set_delivery(d1["id"], claim_token="x" * 32, claimed_until=dt.datetime(2999, 1, 1))
    shop.edit_order(first, note="two")
    shop.set_delivery(d1["id"], claim_token=None, claimed_until=None)  # that worker died
    shop.edit_order(second, note="three")
    shop.edit_order(second, note="four")  # merged into the pending one
    d1, d2, d3 = shop.deliveries()
    assert [(d["resource_id"], d["topic"]) for d in (d1, d2, d3)] == [
        (first, "order.updated"),
        (first, "order.updated"),
        (second, "order.updated"),
    ]

    # down: each pass fails what is due; d2 waits behind d1
    for attempt in (1, 2):
        assert shop.deliver() == counts(retrying=2)
        rows = shop.deliveries()
        assert [r["attempts"] for r in rows] == [attempt, 0, attempt]
    assert {(r["status"], r["error"]) for r in shop.attempts()} == {(None, "the connection failed")}

    with Receiver(port=port) as receiver:
        for _ in range(5):
            if shop.deliver() == NOTHING:
                break
        rows = shop.deliveries()
        assert [(r["state"], r["attempts"]) for r in rows] == [
            ("delivered", 3),
            ("delivered", 1),
            ("delivered", 3),
        ]
        arrived = [(r.json["order"]["id"], r.delivery_id) for r in receiver.posts]
        assert sorted(arrived) == sorted(
            [(first, d1["delivery_id"]), (first, d2["delivery_id"]), (second, d3["delivery_id"])]
        )
        assert [d for o, d in arrived if o == first] == [d1["delivery_id"], d2["delivery_id"]]
        for request in receiver.posts:  # rendered at send time
            expected = shop.api.get(f"{ORDERS}/{request.json['order']['id']}").json
            assert request.json == expected
        assert shop.hook(webhook_id)["failure_count"] == 0


@pytest.mark.parametrize("status", ["paused", "disabled"])
def test_a_webhook_no_longer_active_cancels_its_deliveries(
    make_shop: Callable[..., Shop], receiver: Receiver, status: str
) -> None:
    """The edit cancels what is pending for the webhook, logged, in its own transaction (a
    paused webhook's backlog never stands in the queue before the others')."""
    shop = make_shop()
    webhook_id = shop.webhook(receiver.url)
    order_id = shop.order()
    shop.set_status(webhook_id, status)
    [row] = shop.deliveries()
    assert (row["state"], row["attempts"], row["claim_token"]) == ("cancelled", 0, None)
    [logged] = shop.attempts()
    assert log_entry(logged) == (
        row["delivery_id"],
        webhook_id,
        "order.created",
        order_id,
        0,
        None,
        f"cancelled: the webhook was {status}",
    )
    assert shop.deliver() == NOTHING
    shop.order()  # an inactive webhook queues nothing
    assert len(shop.deliveries()) == 1
    # active again: what was cancelled stays cancelled
    shop.set_status(webhook_id, "active")
    assert shop.deliver() == NOTHING
    assert receiver.connections == 0


@pytest.mark.parametrize("status", ["paused", "disabled"])
def test_a_delivery_whose_webhook_is_no_longer_active_at_send_time_is_cancelled(
    make_shop: Callable[..., Shop], receiver: Receiver, status: str
) -> None:
    """A status changed behind the API's back (or between a claim and its send)."""
    shop = make_shop()
    webhook_id = shop.webhook(receiver.url)
    order_id = shop.order()
    with shop.engine.begin() as conn:
        conn.execute(sa.update(webhooks).where(webhooks.c.id == webhook_id).values(status=status))
    assert shop.deliver() == counts(cancelled=1)
    [row] = shop.deliveries()
    assert (row["state"], row["attempts"], row["claim_token"]) == ("cancelled", 0, None)
    [logged] = shop.attempts()
    assert log_entry(logged) == (
        row["delivery_id"],
        webhook_id,
        "order.created",
        order_id,
        0,
        None,
        f"webhook is {status}; not sent",
    )
    assert receiver.connections == 0


def test_a_deleted_webhook_takes_its_deliveries_along(make_shop: Callable[..., Shop]) -> None:
    shop = make_shop(**HELD)
    with Receiver(held(200)) as receiver:
        first_hook = shop.webhook(receiver.url)
        second_hook = shop.webhook(receiver.url)
        shop.order()
        shop.api.delete(f"{ROOT}/webhooks/{second_hook}", status=200)
        assert [r["webhook_id"] for r in shop.deliveries()] == [first_hook]
        # deleted while its delivery is being sent: the late result is stored nowhere
        worker = shop.deliverer()
        thread, result = _in_thread(worker.run_once)
        assert receiver.wait_for(1)
        shop.api.delete(f"{ROOT}/webhooks/{first_hook}", status=200)
        receiver.release()
        thread.join(5)
        assert not thread.is_alive()
        [passed] = result
        assert (passed.as_dict(), passed.lost) == (NOTHING, 1)
        assert shop.deliveries() == []
        assert shop.attempts() == []
        assert shop.deliver() == NOTHING
        assert len(receiver.requests) == 1


def test_a_private_target_fails_without_a_connection(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop(**{"shopsvc.outbound.allow_private_targets": "false"})
    webhook_id = shop.webhook(receiver.url)  # accepted on create
    order_id = shop.order()
    assert shop.deliver() == counts(retrying=1)
    [row] = shop.deliveries()
    assert (row["state"], row["attempts"]) == ("pending", 1)
    [logged] = shop.attempts()
    assert log_entry(logged) == (
        row["delivery_id"],
        webhook_id,
        "order.created",
        order_id,
        1,
        None,
        "the URL points to a private or reserved network address, which is not allowed",
    )
    assert shop.hook(webhook_id)["failure_count"] == 1
    assert receiver.connections == 0
    assert receiver.requests == []


def test_a_pass_prunes_what_is_older_than_log_days(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop(**{"shopsvc.webhooks.log_days": "30"})
    with Receiver(default=500) as failing:
        shop.webhook(receiver.url)
        shop.webhook(failing.url)
        order_id = shop.order()
        assert shop.deliver() == counts(delivered=1, retrying=1)
        delivered, pending = shop.deliveries()
        assert len(shop.attempts()) == 2

        clock = FakeClock()
        clock.advance(29 * 86400)
        assert shop.deliver(clock=clock) == counts(retrying=1)  # nothing old enough yet
        assert len(shop.deliveries()) == 2
        assert len(shop.attempts()) == 3

        clock.advance(2 * 86400)
        assert shop.deliver(clock=clock) == counts(retrying=1)
        # the finished delivery and the attempts logged over 30 days ago are gone; the
        # delivery still pending stays
        [row] = shop.deliveries()
        assert (row["id"], row["state"], row["attempts"]) == (pending["id"], "pending", 3)
        assert [(r["delivery_id"], r["attempt"], r["at"]) for r in shop.attempts()] == [
            (pending["delivery_id"], 2, clock.now - dt.timedelta(days=2)),
            (pending["delivery_id"], 3, clock.now),
        ]
        assert [r.json["order"]["id"] for r in failing.posts] == [order_id] * 3
        assert delivered["state"] == "delivered"


# --- running and stopping


def test_run_stops_after_finishing_the_send_under_way(make_shop: Callable[..., Shop]) -> None:
    shop = make_shop(**HELD)
    with Receiver(held(200)) as receiver:
        shop.webhook(receiver.url)
        first = shop.order()
        worker = shop.deliverer(concurrency=1)
        thread = threading.Thread(target=worker.run, daemon=True)
        thread.start()
        assert receiver.wait_for(1)
        second = shop.order()  # queued while the only sender is busy
        worker.stop()
        thread.join(0.3)
        assert thread.is_alive()  # the send under way is not abandoned
        receiver.release()
        thread.join(5)
        assert not thread.is_alive()

        one, two = shop.deliveries()
        assert (one["resource_id"], one["state"], one["claim_token"]) == (
            first,
            "delivered",
            None,
        )
        assert (two["resource_id"], two["state"], two["attempts"], two["claim_token"]) == (
            second,
            "pending",
            0,
            None,
        )
        assert [(r["attempt"], r["status"]) for r in shop.attempts()] == [(1, 200)]
        assert len(receiver.requests) == 1


def test_an_idle_worker_picks_up_a_new_event(
    make_shop: Callable[..., Shop],
    receiver: Receiver,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL: the committing transaction's NOTIFY wakes the worker (polling is switched
    off here); SQLite, which has no NOTIFY: the worker's poll finds it."""
    if database_url.startswith("postgresql"):
        monkeypatch.setattr("shopsvc.delivery.worker.POLL_SECONDS", 60.0)  # no polling to help
    shop = make_shop()
    shop.webhook(receiver.url)
    first = shop.order()
    worker = shop.deliverer()
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        assert receiver.wait_for(1)  # what was due when it started
        time.sleep(0.2)  # the listener is listening
        second = shop.order()  # its commit notifies the worker
        assert receiver.wait_for(2, timeout=3)
    finally:
        worker.stop()
        thread.join(5)
    assert not thread.is_alive()
    assert [b["order"]["id"] for b in receiver.bodies()] == [first, second]


def test_deliver_in_process(
    make_shop: Callable[..., Shop], receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread inside the server is woken after the commit (polling is switched off)."""
    monkeypatch.setattr("shopsvc.delivery.worker.POLL_SECONDS", 60.0)
    shop = make_shop(**{"shopsvc.webhooks.deliver_in_process": "true"})
    registry = shop.app.app.registry
    try:
        shop.webhook(receiver.url)
        order_id = shop.order()
        assert receiver.wait_for(1, timeout=5)
        deadline = time.monotonic() + 5
        while shop.deliveries()[0]["state"] != "delivered" and time.monotonic() < deadline:
            time.sleep(0.01)
        [row] = shop.deliveries()
        assert row["state"] == "delivered"
        assert [b["order"]["id"] for b in receiver.bodies()] == [order_id]
    finally:
        registry.deliverer.stop()
        for thread in threading.enumerate():
            if thread.name == "shopsvc-deliverer":
                thread.join(5)
    assert not [t for t in threading.enumerate() if t.name == "shopsvc-deliverer"]
