"""The delivery commands of the console script (decisions.md §1): ``worker [--once]
[--concurrency N]``, ``deliveries [--webhook ID] [--failed] [--limit N]`` and ``redeliver
DELIVERY_ID``, on both databases — the API (a TestApp) queues the events, the CLI (``main`` in
this process, or the ``shopsvc`` script in a subprocess) delivers them and reports."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import pathlib
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.delivery.worker import Deliverer
from shopsvc.domain.timestamps import format_timestamp
from shopsvc.sql import deliveries as deliveries_sql
from shopsvc.sql.tables import webhook_attempts, webhooks
from tests.helpers.api import ROOT, TIMESTAMP, Credentials
from tests.helpers.cli import lines, run
from tests.helpers.deliveries import NOTHING, Shop, counts
from tests.helpers.orders import URL as ORDERS
from tests.helpers.receivers import Receiver, free_port, held

FIELDS = [
    "delivery_id",
    "webhook_id",
    "topic",
    "resource_id",
    "attempt",
    "status",
    "error",
    "duration_ms",
    "at",
]
COUNT_KEYS = list(NOTHING)
#: The CLI's worker: retries due at once, short sends.
CLI_SETTINGS = {
    "shopsvc.outbound.allow_private_targets": "true",
    "shopsvc.webhooks.retry_base_seconds": "0",
    "shopsvc.webhooks.timeout": "0.5",
}


@pytest.fixture
def write_ini(tmp_path: pathlib.Path, database_url: str) -> Callable[..., pathlib.Path]:
    """An ini for the test database with ``CLI_SETTINGS`` and the given ones."""

    def write(**settings: str) -> pathlib.Path:
        merged = {
            "sqlalchemy.url": database_url.replace("%", "%%"),
            **CLI_SETTINGS,
            **settings,
        }
        path = tmp_path / "delivery.ini"
        lines = ["[app:main]", "use = egg:shopsvc", *(f"{k} = {v}" for k, v in merged.items())]
        path.write_text("\n".join(lines) + "\n")
        return path

    return write


@pytest.fixture
def shop(
    build_app: Callable[..., TestApp], make_key: Callable[..., Credentials], no_ping: None
) -> Shop:
    """The API over the same database (it queues the events; the CLI delivers them)."""
    return Shop(build_app(), make_key())


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The command printed nothing and exactly one line on stderr; that line."""
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    return line


def worker_once(ini: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> dict[str, int]:
    assert run([ini, "worker", "--once"]) == 0
    [record], err = lines(capsys)
    assert err == ""
    assert list(record) == COUNT_KEYS
    return record


def logged(shop: Shop) -> list[dict[str, Any]]:
    """The attempt log as ``deliveries`` shows it, newest first (from the table)."""
    with shop.engine.connect() as conn:
        rows = conn.execute(sa.select(webhook_attempts).order_by(webhook_attempts.c.id.desc()))
        return [
            {**{f: row[f] for f in FIELDS}, "at": format_timestamp(row["at"])}
            for row in rows.mappings()
        ]


# --- worker


def test_worker_once_prints_one_line_of_counts(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    receiver: Receiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ini = write_ini(**{"shopsvc.webhooks.max_attempts": "2"})
    with Receiver(default=500) as failing:
        shop.webhook(receiver.url)
        shop.webhook(failing.url)
        paused = shop.webhook(receiver.url)
        shop.order()
        # paused behind the API's back: its delivery is cancelled when its turn comes (an
        # API edit would have cancelled it at once)
        with shop.engine.begin() as conn:
            paused_now = sa.update(webhooks).where(webhooks.c.id == paused)
            conn.execute(paused_now.values(status="paused"))
        gone = shop.order()  # two deliveries (the paused webhook queues nothing)
        shop.api.delete(f"{ORDERS}/{gone}?force=true", status=200)
        assert len(shop.deliveries()) == 5

        assert worker_once(ini, capsys) == counts(delivered=1, retrying=1, cancelled=1, dropped=2)
        assert len(receiver.posts) == 1 and len(failing.posts) == 1
        # the second attempt of two fails for good
        assert worker_once(ini, capsys) == counts(failed=1)
        assert worker_once(ini, capsys) == counts()
        assert len(failing.posts) == 2
    assert sorted(r["state"] for r in shop.deliveries()) == [
        "cancelled",
        "delivered",
        "dropped",
        "dropped",
        "failed",
    ]


@pytest.mark.parametrize("concurrency", ["3", "1"])
def test_worker_once_with_a_concurrency(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    receiver: Receiver,
    capsys: pytest.CaptureFixture[str],
    concurrency: str,
) -> None:
    ini = write_ini()
    shop.webhook(receiver.url)
    orders = [shop.order() for _ in range(3)]
    assert run([ini, "worker", "--once", "--concurrency", concurrency]) == 0
    [record], _ = lines(capsys)
    assert record == counts(delivered=3)
    assert sorted(b["order"]["id"] for b in receiver.bodies()) == orders


@pytest.mark.parametrize("value", ["0", "-1"])
def test_worker_concurrency_must_be_positive(
    write_ini: Callable[..., pathlib.Path],
    engine: sa.Engine,
    capsys: pytest.CaptureFixture[str],
    value: str,
) -> None:
    assert run([write_ini(), "worker", "--once", "--concurrency", value]) == 2
    assert "--concurrency" in one_error_line(capsys)


def test_worker_stops_on_sigterm_after_its_send(
    write_ini: Callable[..., pathlib.Path], shop: Shop
) -> None:
    ini = write_ini(**{"shopsvc.webhooks.timeout": "5"})  # held: no timeout
    with Receiver(held(200)) as receiver:
        shop.webhook(receiver.url)
        order_id = shop.order()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPSVC_")}
        process = subprocess.Popen(
            ["shopsvc", str(ini), "worker"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert receiver.wait_for(1, timeout=20), "the worker never sent"
            process.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            assert process.poll() is None  # still finishing the send under way
            receiver.release()
            out, err = process.communicate(timeout=15)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        assert process.returncode == 0, err
        assert out == ""
    [row] = shop.deliveries()
    assert (row["state"], row["attempts"], row["claim_token"]) == ("delivered", 1, None)
    assert [(r["resource_id"], r["attempt"], r["status"]) for r in shop.attempts()] == [
        (order_id, 1, 200)
    ]


# --- deliveries


def test_deliveries_lists_every_attempt_newest_first(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    receiver: Receiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ini = write_ini(**{"shopsvc.webhooks.disable_after": "100"})
    assert run([ini, "deliveries"]) == 0
    assert capsys.readouterr() == ("", "")  # nothing yet: nothing printed

    with Receiver(default=500) as failing:
        good = shop.webhook(receiver.url)
        bad = shop.webhook(failing.url)
        down = shop.webhook(f"http://127.0.0.1:{free_port()}/hook")
        orders = [shop.order(), shop.order()]
        worker_once(ini, capsys)
        worker_once(ini, capsys)
    # good: 2 delivered; bad: 2 × 2 answered 500; down: 2 × 2 without an answer
    expected = logged(shop)
    assert len(expected) == 10

    assert run([ini, "deliveries"]) == 0
    shown, err = lines(capsys)
    assert err == ""
    assert shown == expected
    for record in shown:
        assert list(record) == FIELDS
        assert TIMESTAMP.fullmatch(record["at"])
        assert isinstance(record["duration_ms"], int)
    rows = shop.deliveries()
    by_delivery = {r["delivery_id"]: r for r in rows}
    assert {(r["webhook_id"], r["topic"], r["resource_id"]) for r in shown} == {
        (hook, "order.created", order) for hook in (good, bad, down) for order in orders
    }
    for record in shown:
        row = by_delivery[record["delivery_id"]]
        assert (row["webhook_id"], row["resource_id"]) == (
            record["webhook_id"],
            record["resource_id"],
        )
    assert {(r["webhook_id"], r["attempt"], r["status"], r["error"]) for r in shown} == {
        (good, 1, 200, None),
        (bad, 1, 500, "the receiver answered 500"),
        (bad, 2, 500, "the receiver answered 500"),
        (down, 1, None, "the connection failed"),
        (down, 2, None, "the connection failed"),
    }
    # newest first: the second pass's attempts before the first's
    assert [r["attempt"] for r in shown] == sorted((r["attempt"] for r in shown), reverse=True)

    def listed(*options: str) -> list[Any]:
        assert run([ini, "deliveries", *options]) == 0
        records, err = lines(capsys)
        assert err == ""
        return records

    assert listed("--webhook", str(bad)) == [r for r in expected if r["webhook_id"] == bad]
    failed = [r for r in expected if r["webhook_id"] != good]
    assert len(failed) == 8
    assert listed("--failed") == failed
    assert listed("--webhook", str(down), "--failed") == [
        r for r in expected if r["webhook_id"] == down
    ]
    assert listed("--webhook", str(good), "--failed") == []
    assert listed("--limit", "3") == expected[:3]
    assert listed("--failed", "--limit", "1") == failed[:1]
    assert listed("--webhook", "999") == []


@pytest.mark.parametrize("option", [["--limit", "0"], ["--limit", "x"], ["--webhook", "one"]])
def test_deliveries_bad_options(
    write_ini: Callable[..., pathlib.Path],
    engine: sa.Engine,
    capsys: pytest.CaptureFixture[str],
    option: list[str],
) -> None:
    assert run([write_ini(), "deliveries", *option]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err != ""


# --- redeliver


def test_redeliver_queues_a_failed_delivery_again_with_the_same_id(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ini = write_ini(**{"shopsvc.webhooks.max_attempts": "1"})
    with Receiver(500, default=200) as receiver:
        webhook_id = shop.webhook(receiver.url)
        order_id = shop.order()
        assert worker_once(ini, capsys) == counts(failed=1)
        [row] = shop.deliveries()
        assert row["state"] == "failed"
        delivery_id = row["delivery_id"]

        # the id as `deliveries` shows it (any case, surrounding blanks ignored)
        assert run([ini, "redeliver", f" {delivery_id.upper()} "]) == 0
        [record], err = lines(capsys)
        assert err == ""
        assert record == {
            "delivery_id": delivery_id,
            "webhook_id": webhook_id,
            "topic": "order.created",
            "resource_id": order_id,
            "state": "pending",
        }
        [row] = shop.deliveries()
        assert (row["state"], row["attempts"], row["claim_token"]) == ("pending", 1, None)

        assert worker_once(ini, capsys) == counts(delivered=1)
        assert receiver.delivery_ids() == [delivery_id] * 2
        [row] = shop.deliveries()
        assert (row["delivery_id"], row["state"], row["attempts"]) == (delivery_id, "delivered", 2)
        assert [(r["attempt"], r["status"]) for r in logged(shop)] == [(2, 200), (1, 500)]

        # a delivered one can be sent again too (same id)
        assert run([ini, "redeliver", delivery_id]) == 0
        capsys.readouterr()
        assert worker_once(ini, capsys) == counts(delivered=1)
        assert receiver.delivery_ids() == [delivery_id] * 3
        assert [r["attempt"] for r in logged(shop)] == [3, 2, 1]


def test_redeliver_makes_a_retrying_delivery_due_now(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A delivery waiting for its retry (a minute after a failed attempt) is due again at once,
    with a new round of attempts: the next pass sends it."""
    ini = write_ini(**{"shopsvc.webhooks.retry_base_seconds": "60"})
    with Receiver(500, default=200) as receiver:
        shop.webhook(receiver.url)
        shop.order()
        assert worker_once(ini, capsys) == counts(retrying=1)
        [waiting] = shop.deliveries()
        assert waiting["due_at"] - waiting["last_attempt_at"] == dt.timedelta(seconds=60)
        assert worker_once(ini, capsys) == counts()  # not due for a minute

        before = deliveries_sql.now_precise()
        assert run([ini, "redeliver", waiting["delivery_id"]]) == 0
        [record], _ = lines(capsys)
        assert record["state"] == "pending"
        [row] = shop.deliveries()
        assert before <= row["due_at"] <= deliveries_sql.now_precise()
        assert (row["state"], row["attempts"], row["round_start"]) == ("pending", 1, 1)
        assert (row["claim_token"], row["last_attempt_at"]) == (None, None)

        assert worker_once(ini, capsys) == counts(delivered=1)
        assert receiver.delivery_ids() == [waiting["delivery_id"]] * 2
        assert [(r["attempt"], r["status"]) for r in logged(shop)] == [(2, 200), (1, 500)]


def test_a_running_worker_sends_a_redelivered_delivery_at_once(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    capsys: pytest.CaptureFixture[str],
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker running meanwhile gets it within a second of ``redeliver``, not at its retry
    time: on PostgreSQL ``redeliver``'s NOTIFY wakes it (polling is switched off here), on
    SQLite its poll finds it."""
    if database_url.startswith("postgresql"):
        monkeypatch.setattr("shopsvc.delivery.worker.POLL_SECONDS", 60.0)
    ini = write_ini(**{"shopsvc.webhooks.retry_base_seconds": "600"})
    slow_retries = dataclasses.replace(shop.settings, webhooks_retry_base_seconds=600)
    with Receiver(500, default=200) as receiver:
        shop.webhook(receiver.url)
        shop.order()
        worker = Deliverer(shop.engine, slow_retries)
        thread = threading.Thread(target=worker.run, daemon=True)
        thread.start()
        try:
            assert receiver.wait_for(1)  # the first attempt fails: retry in 10 minutes
            time.sleep(0.3)  # its outcome stored, the listener listening
            [row] = shop.deliveries()
            assert (row["state"], row["attempts"]) == ("pending", 1)
            started = time.monotonic()
            assert run([ini, "redeliver", row["delivery_id"]]) == 0
            assert receiver.wait_for(2, timeout=3)
            assert time.monotonic() - started < 2
        finally:
            worker.stop()
            thread.join(5)
        assert not thread.is_alive()
    capsys.readouterr()
    [row] = shop.deliveries()
    assert (row["state"], row["attempts"]) == ("delivered", 2)
    assert receiver.delivery_ids() == [row["delivery_id"]] * 2


def test_redeliver_refuses_a_delivery_being_sent(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A worker holds a live claim on it: the attempt under way decides what comes next."""
    ini = write_ini(**{"shopsvc.webhooks.retry_base_seconds": "60"})
    with Receiver(default=500) as failing:
        shop.webhook(failing.url)
        shop.order()
        assert worker_once(ini, capsys) == counts(retrying=1)
    [row] = shop.deliveries()
    claimed = {"claim_token": "another worker", "claimed_until": row["due_at"]}
    shop.set_delivery(row["id"], **claimed)
    [before] = shop.deliveries()
    assert run([ini, "redeliver", row["delivery_id"]]) == 2
    line = one_error_line(capsys)
    assert line.startswith("shopsvc redeliver: ")
    assert f"delivery {row['delivery_id']} is being sent right now" in line
    assert shop.deliveries() == [before]


def test_redeliver_a_pending_delivery_changes_nothing(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    receiver: Receiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ini = write_ini()
    shop.webhook(receiver.url)
    shop.order()
    [before] = shop.deliveries()
    assert run([ini, "redeliver", before["delivery_id"]]) == 0
    [record], _ = lines(capsys)
    assert record["state"] == "pending"
    assert shop.deliveries() == [before]
    assert worker_once(ini, capsys) == counts(delivered=1)
    assert len(receiver.posts) == 1


@pytest.mark.parametrize(
    "delivery_id", ["0f8fad5b-d9cb-469f-a165-70867728950e", "not-a-delivery", ""]
)
def test_redeliver_an_unknown_delivery(
    write_ini: Callable[..., pathlib.Path],
    engine: sa.Engine,
    capsys: pytest.CaptureFixture[str],
    delivery_id: str,
) -> None:
    assert run([write_ini(), "redeliver", delivery_id]) == 2
    line = one_error_line(capsys)
    assert line.startswith("shopsvc redeliver: ")
    assert repr(delivery_id) in line


@pytest.mark.parametrize("how", ["disabled by failures", "paused"])
def test_redeliver_for_a_webhook_not_active(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    capsys: pytest.CaptureFixture[str],
    how: str,
) -> None:
    ini = write_ini(**{"shopsvc.webhooks.disable_after": "1", "shopsvc.webhooks.max_attempts": "1"})
    with Receiver(default=500) as receiver:
        webhook_id = shop.webhook(receiver.url)
        shop.order()
        assert worker_once(ini, capsys) == counts(failed=1)
        status = "disabled"
        if how == "paused":
            shop.set_status(webhook_id, "paused")  # (active first: the count is reset)
            status = "paused"
        assert shop.hook(webhook_id)["status"] == status
        [before] = shop.deliveries()
        assert run([ini, "redeliver", before["delivery_id"]]) == 2
        line = one_error_line(capsys)
        assert line.startswith("shopsvc redeliver: ")
        assert f"webhook {webhook_id} is {status}" in line
        assert shop.deliveries() == [before]
        assert len(receiver.posts) == 1


# --- customer.created from create-user


def test_create_user_of_a_customer_is_delivered_as_customer_created(
    write_ini: Callable[..., pathlib.Path],
    shop: Shop,
    receiver: Receiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ini = write_ini(**{"shopsvc.public_url": "https://shop.example.com"})
    webhook_id = shop.webhook(receiver.url, topic="customer.created")
    argv = [ini, "create-user", "--login", "cat", "--email", "cat@example.com"]
    assert run([*argv, "--role", "customer", "--first-name", "Cat"]) == 0
    [user], _ = lines(capsys)
    assert run([ini, "create-user", "--login", "boss", "--email", "b@example.com", "--role",
                "shop_manager"]) == 0  # fmt: skip
    capsys.readouterr()
    assert worker_once(ini, capsys) == counts(delivered=1)  # the customer only
    [request] = receiver.posts
    customer = request.json["customer"]
    assert list(request.json) == ["customer"]
    assert (customer["id"], customer["email"], customer["first_name"], customer["role"]) == (
        user["id"],
        "cat@example.com",
        "Cat",
        "customer",
    )
    assert request.header("X-Shop-Webhook-Topic") == "customer.created"
    assert request.header("X-Shop-Webhook-Resource") == "customer"
    assert request.header("X-Shop-Webhook-Source") == "https://shop.example.com/"
    assert request.header("X-Shop-Webhook-ID") == str(webhook_id)
    assert shop.api.get(f"{ROOT}/webhooks/{webhook_id}").json["webhook"]["status"] == "active"
