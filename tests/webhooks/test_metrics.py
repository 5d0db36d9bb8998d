"""The delivery workers' metrics (docs/metrics.md), on both databases: the attempts counted by
outcome (``shopsvc_webhook_attempts_total``) by a worker, by the app's in-process deliverer (in
its ``/metrics``), and served by ``shopsvc CONFIG worker --metrics-port N`` in the Prometheus text
format, with the outbox and pool gauges."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from prometheus_client.parser import text_string_to_metric_families

from shopsvc.cli.main import main
from shopsvc.delivery.sender import Outcome
from shopsvc.delivery.worker import outcome_label
from shopsvc.metrics.registry import OUTCOMES, Metrics
from shopsvc.sql.tables import webhooks
from tests.helpers.deliveries import FAST, Shop, counts
from tests.helpers.orders import URL as ORDERS
from tests.helpers.receivers import Receiver, free_port

#: Retries due at once and short sends.
TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8"
#: How long a test waits for a worker at most.
WAIT = 20.0


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as server:
        yield server


def attempts(metrics: Metrics) -> dict[str, float | None]:
    """``shopsvc_webhook_attempts_total`` by outcome."""
    return {
        outcome: metrics.registry.get_sample_value(
            "shopsvc_webhook_attempts_total", {"outcome": outcome}
        )
        for outcome in OUTCOMES
    }


def expected(**some: float) -> dict[str, float]:
    return {outcome: float(some.get(outcome, 0)) for outcome in OUTCOMES}


def parsed(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def delivered_count(text: str) -> float | None:
    return parsed(text).get(("shopsvc_webhook_attempts_total", (("outcome", "delivered"),)))


# --- counted by outcome


@pytest.mark.parametrize(
    ("outcome", "label"),
    [
        (Outcome("delivered", 200), "delivered"),
        (Outcome("pending", 500, "the receiver answered 500"), "retried"),
        (Outcome("failed", 500, "the receiver answered 500"), "failed"),
        (Outcome("failed", 500, "the receiver answered 500", disabled=True), "disabled"),
        (Outcome("cancelled", None, "webhook is paused; not sent"), "cancelled"),
        (Outcome("dropped", None, "dropped: the order no longer exists"), "dropped"),
        (None, "lost"),
    ],
)
def test_the_outcome_labels(outcome: Outcome | None, label: str) -> None:
    assert outcome_label(outcome) == label


def test_a_worker_counts_its_attempts_by_outcome(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop(**{"shopsvc.webhooks.max_attempts": "2"})
    metrics = Metrics()
    assert attempts(metrics) == expected()  # every outcome there from the start, at 0
    with Receiver(default=500) as failing:
        shop.webhook(receiver.url)
        shop.webhook(failing.url)
        paused = shop.webhook(receiver.url)
        shop.order()
        with shop.engine.begin() as conn:  # paused behind the API's back: cancelled when sent
            conn.execute(sa.update(webhooks).where(webhooks.c.id == paused).values(status="paused"))
        gone = shop.order()
        shop.api.delete(f"{ORDERS}/{gone}?force=true", status=200)
        assert shop.deliver(metrics=metrics) == counts(
            delivered=1, retrying=1, cancelled=1, dropped=2
        )
        assert attempts(metrics) == expected(delivered=1, retried=1, cancelled=1, dropped=2)
        assert shop.deliver(metrics=metrics) == counts(failed=1)  # the second attempt of two
        assert attempts(metrics) == expected(
            delivered=1, retried=1, failed=1, cancelled=1, dropped=2
        )


def test_the_failure_that_disables_a_webhook(make_shop: Callable[..., Shop]) -> None:
    shop = make_shop(**{"shopsvc.webhooks.disable_after": "1"})
    metrics = Metrics()
    with Receiver(default=503) as failing:
        webhook_id = shop.webhook(failing.url)
        shop.order()
        assert shop.deliver(metrics=metrics) == counts(failed=1)
    assert shop.hook(webhook_id)["status"] == "disabled"
    assert attempts(metrics) == expected(disabled=1)


def test_the_in_process_deliverer_counts_in_the_apps_metrics(
    make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop(**{"shopsvc.webhooks.deliver_in_process": "true"})
    shop.webhook(receiver.url)
    shop.order()
    assert receiver.wait_for(1, timeout=WAIT), "the in-process deliverer never sent"
    deadline = time.monotonic() + WAIT
    while True:  # counted once the attempt is stored, just after the receiver answered
        text = shop.app.get("/metrics", extra_environ={"REMOTE_ADDR": "127.0.0.1"}).text
        if delivered_count(text) == 1.0 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert delivered_count(text) == 1.0
    assert parsed(text)[("shopsvc_webhook_outbox_pending", ())] == 0.0


# --- worker --metrics-port


@pytest.fixture
def ini(tmp_path: pathlib.Path, database_url: str) -> pathlib.Path:
    settings = {
        "sqlalchemy.url": database_url.replace("%", "%%"),
        "shopsvc.outbound.allow_private_targets": "true",
        **FAST,
    }
    path = tmp_path / "worker.ini"
    lines = ["[app:main]", "use = egg:shopsvc", *(f"{k} = {v}" for k, v in settings.items())]
    path.write_text("\n".join(lines) + "\n")
    return path


def fetch(url: str) -> tuple[int, str, str]:
    """Status, content type and text of a GET of ``url``."""
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.headers["Content-Type"], response.read().decode()


def listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_worker_serves_its_metrics_on_a_port(
    ini: pathlib.Path, make_shop: Callable[..., Shop], receiver: Receiver
) -> None:
    shop = make_shop()
    shop.webhook(receiver.url)
    shop.order()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPSVC_")}
    process = subprocess.Popen(
        ["shopsvc", str(ini), "worker", "--metrics-port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert receiver.wait_for(1, timeout=WAIT), "the worker never sent"
        deadline = time.monotonic() + WAIT
        while True:
            try:
                status, content_type, text = fetch(f"http://127.0.0.1:{port}/metrics")
            except (urllib.error.URLError, ConnectionError):
                status, content_type, text = 0, "", ""
            if delivered_count(text) == 1.0 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert (status, content_type) == (200, TEXT_FORMAT)
        samples = parsed(text)
        assert delivered_count(text) == 1.0
        assert samples[("shopsvc_webhook_attempts_total", (("outcome", "failed"),))] == 0.0
        assert samples[("shopsvc_webhook_outbox_pending", ())] == 0.0
        assert samples[("shopsvc_db_pool_size", ())] == 5.0
        assert ("process_cpu_seconds_total", ()) in samples
        assert not any(name.startswith("shopsvc_http_") for name, _ in samples)  # no requests
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out == ""
    assert not listening(port)


def test_worker_once_with_a_metrics_port_stops_serving_when_done(
    ini: pathlib.Path, engine: sa.Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    assert main([str(ini), "worker", "--once", "--metrics-port", str(port)]) == 0
    assert capsys.readouterr().out.strip() == (
        '{"delivered": 0, "retrying": 0, "failed": 0, "cancelled": 0, "dropped": 0}'
    )
    assert not listening(port)


@pytest.mark.parametrize("port", ["0", "-5", "70000"])
def test_worker_metrics_port_must_be_a_port(
    ini: pathlib.Path, engine: sa.Engine, capsys: pytest.CaptureFixture[str], port: str
) -> None:
    assert main([str(ini), "worker", "--once", "--metrics-port", port]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("shopsvc worker: --metrics-port must be a port number (1 to 65535)\n")


def test_worker_metrics_port_in_use(
    ini: pathlib.Path, engine: sa.Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main([str(ini), "worker", "--once", "--metrics-port", str(port)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line == (
        f"shopsvc worker: --metrics-port: cannot listen on 127.0.0.1 port {port}: "
        "Address already in use"
    )
