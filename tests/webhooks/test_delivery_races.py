"""Races between a request queueing an event and a worker claiming the outbox (issue 24, item
2): the interleavings are forced with barriers (``threading.Event`` in a patched
:func:`shopsvc.sql.deliveries.enqueue` and :func:`shopsvc.sql.deliveries.claim`), and the
receiver must end up with the newest state of the record. Both databases: on PostgreSQL the
merge and the claim lock the delivery row (``FOR UPDATE SKIP LOCKED``); on SQLite writers are
serialised, so the worker's claim waits for the request's commit and the same checks hold.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from webtest import TestApp

from shopsvc.sql import deliveries as deliveries_sql
from tests.helpers.api import Credentials
from tests.helpers.deliveries import Shop
from tests.helpers.orders import URL as ORDERS
from tests.helpers.receivers import Receiver

FAST = {"shopsvc.webhooks.retry_base_seconds": "0", "shopsvc.webhooks.timeout": "2"}
#: How long a step may take before the test calls it stuck.
WAIT = 10.0
#: How long the test gives a worker's pass to block (SQLite: on the request's write lock).
BLOCKED = 1.0


@pytest.fixture
def shop(
    build_app: Callable[..., TestApp], make_key: Callable[..., Credentials], no_ping: None
) -> Shop:
    return Shop(build_app(**FAST), make_key())


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as server:
        yield server


def _start(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    result: list[Any] = []

    def run() -> None:
        try:
            result.append(target())
        except BaseException as exc:  # reported by _finish
            result.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


def _finish(thread: threading.Thread, result: list[Any]) -> Any:
    thread.join(WAIT)
    assert not thread.is_alive()
    [value] = result
    if isinstance(value, BaseException):
        raise value
    return value


def _drain(shop: Shop) -> None:
    for _ in range(5):
        if shop.deliver()["delivered"] == 0:
            return


def _order_with_a_pending_update(shop: Shop, receiver: Receiver) -> int:
    """An order whose ``order.updated`` delivery (note "first") is pending and unclaimed."""
    shop.webhook(receiver.url, topic="order.updated")
    order_id = shop.order(note="created")
    shop.edit_order(order_id, note="first")
    [pending] = shop.deliveries()
    assert (pending["state"], pending["claim_token"]) == ("pending", None)
    return order_id


def _notes(receiver: Receiver) -> list[str]:
    return [body["order"]["note"] for body in receiver.bodies()]


def test_a_claim_between_the_merge_decision_and_the_commit_does_not_lose_the_newer_state(
    shop: Shop, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request decides to merge its event into the pending delivery; a worker's pass runs
    before the request commits. The worker must not send that delivery with the older state
    and leave the newer one undelivered."""
    order_id = _order_with_a_pending_update(shop, receiver)
    decided, go_on = threading.Event(), threading.Event()
    enqueue = deliveries_sql.enqueue

    def enqueue_then_wait(*args: Any, **kwargs: Any) -> int:
        queued = enqueue(*args, **kwargs)  # the decision (and the insert, if any) is made
        decided.set()
        assert go_on.wait(WAIT)  # ...and the request has not committed yet
        return queued

    monkeypatch.setattr(deliveries_sql, "enqueue", enqueue_then_wait)
    edit, edited = _start(lambda: shop.edit_order(order_id, note="second"))
    assert decided.wait(WAIT)
    monkeypatch.setattr(deliveries_sql, "enqueue", enqueue)

    # a worker's pass while the request is between its decision and its commit (on SQLite the
    # pass waits for the request's write lock)
    worker, worked = _start(shop.deliver)
    worker.join(BLOCKED)
    go_on.set()
    _finish(edit, edited)
    _finish(worker, worked)
    _drain(shop)

    current = shop.api.get(f"{ORDERS}/{order_id}").json
    assert current["order"]["note"] == "second"
    assert receiver.bodies()[-1] == current
    assert _notes(receiver)[-1] == "second"
    assert {row["state"] for row in shop.deliveries()} == {"delivered"}


def test_an_event_raised_while_a_worker_claims_the_delivery_gets_its_own(
    shop: Shop, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker has locked the pending delivery to claim it (not committed yet) when a
    request raises the same event and decides whether to merge it; the worker then commits its
    claim and sends before the request commits. The request must not have merged into the row
    being claimed: its event gets a delivery of its own, which carries the newer state."""
    order_id = _order_with_a_pending_update(shop, receiver)
    claimed, claim_on = threading.Event(), threading.Event()
    decided, commit_on = threading.Event(), threading.Event()
    claim, enqueue = deliveries_sql.claim, deliveries_sql.enqueue

    def claim_then_wait(*args: Any, **kwargs: Any) -> list[tuple[int, int]]:
        taken = claim(*args, **kwargs)  # locked and marked, not committed
        if taken and not claimed.is_set():
            claimed.set()
            assert claim_on.wait(WAIT)
        return taken

    def enqueue_then_wait(*args: Any, **kwargs: Any) -> int:
        queued = enqueue(*args, **kwargs)
        decided.set()
        assert commit_on.wait(WAIT)
        return queued

    monkeypatch.setattr(deliveries_sql, "claim", claim_then_wait)
    monkeypatch.setattr(deliveries_sql, "enqueue", enqueue_then_wait)
    worker, worked = _start(shop.deliver)
    assert claimed.wait(WAIT)
    # the request decides while the worker's claim is uncommitted (on SQLite it waits for the
    # worker's write lock instead, and decides after the claim)
    edit, edited = _start(lambda: shop.edit_order(order_id, note="second"))
    decided.wait(BLOCKED)
    claim_on.set()  # the worker commits its claim, renders and sends; the request waits
    _finish(worker, worked)
    assert decided.wait(WAIT)
    monkeypatch.setattr(deliveries_sql, "claim", claim)
    monkeypatch.setattr(deliveries_sql, "enqueue", enqueue)
    commit_on.set()
    _finish(edit, edited)
    _drain(shop)

    current = shop.api.get(f"{ORDERS}/{order_id}").json
    assert current["order"]["note"] == "second"
    assert _notes(receiver) == ["first", "second"]
    assert receiver.bodies()[-1] == current
    assert [row["state"] for row in shop.deliveries()] == ["delivered", "delivered"]
