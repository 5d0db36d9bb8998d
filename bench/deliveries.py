"""Benchmark of webhook delivery: deliveries per second with 1, 4 and 16 senders, and the time
from commit to delivery of a single event with an idle worker.

Ten local receivers (``ThreadingHTTPServer`` on 127.0.0.1, in a child process) answer each
delivery after a random 0-50 ms; the last one always answers 500. Ten webhooks on
``product.updated`` (created through the API, one per receiver) and 500 products (created through
``POST /products/bulk``). For each sender count the outbox is emptied and refilled through the
real path — five ``PUT /products/bulk`` of 100 edits each queue 500 events x 10 webhooks = 5 000
deliveries in the requests' transactions — then one ``Deliverer(engine, settings,
concurrency=N).run_once()`` pass (on an engine of its own, as ``shopsvc CONFIG worker --once``
makes it) is timed. Attempts are counted at the receivers (every POST of a delivery, failed ones
included). The failing webhook is disabled after ``webhooks.disable_after`` (5) consecutive
failures, which cancels its remaining deliveries, so a whole pass makes about 4 500 attempts. A
pass running longer than ``--max-seconds`` is stopped (``Deliverer.stop()``: the sends under way
finish) and the rate is that of the attempts made until then.

Latency: the ten webhooks paused, one more on a receiver that answers at once; 50 times (after 3
warm-ups) a product is edited with ``PUT /products/<id>`` through WebTest, and the time from the
end of the request's commit (an after-commit callback that runs before any other) to the arrival
of the delivery's POST at the receiver is taken, with the worker idle before each edit:

* ``worker thread``: the app with ``webhooks.deliver_in_process = false`` and a
  ``Deliverer.run()`` in a thread of this process on its own engine;
* ``worker process`` (PostgreSQL): the same, but ``shopsvc CONFIG worker`` in a process of its
  own, as production runs it (on SQLite it would wait for its poll just as the thread does);
* ``in-process``: the app with ``webhooks.deliver_in_process = true``; the request wakes its
  deliverer after the commit.

A worker is woken by the transaction's ``NOTIFY`` on PostgreSQL; on SQLite it polls every
``POLL_SECONDS`` (nobody calls ``Deliverer.wake()`` but the in-process app itself).

    python bench/deliveries.py                        # SQLite, then PostgreSQL
    python bench/deliveries.py --database sqlite
    python bench/deliveries.py --database postgresql --postgresql-url postgresql://...
    python bench/deliveries.py --max-seconds 0        # every pass to its end (several minutes)

On PostgreSQL a scratch database ``shopsvc_bench_<random>`` is created on the server and dropped
afterwards.
"""

from __future__ import annotations

import argparse
import functools
import logging
import multiprocessing
import multiprocessing.queues
import os
import pathlib
import queue
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import admin_key, scratch_database  # noqa: E402
from shopsvc import main as app_main  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402
from shopsvc.delivery.worker import POLL_SECONDS, Deliverer  # noqa: E402
from shopsvc.settings import Settings, load_settings  # noqa: E402
from shopsvc.sql.tables import webhook_attempts, webhook_deliveries, webhooks  # noqa: E402

API = "/shop-api/v3"
POSTGRESQL = "postgresql://postgres@127.0.0.1:5432/postgres"
TOPIC = "product.updated"
RECEIVERS = 10
FAILING = RECEIVERS - 1  # the receiver that always answers 500
QUICK = RECEIVERS  # the receiver of the latency webhook: answers at once
PRODUCTS = 500
BULK = 100  # elements per bulk request (the default ``shopsvc.bulk_limit``)
MAX_DELAY = 0.050  # seconds
SENDERS = (1, 4, 16)
DELIVERY_HEADER = "X-Shop-Webhook-Delivery-ID"
WIDTH = 11  # of the database column


# --- the receivers


class Receivers:
    """The local webhook receivers (``ThreadingHTTPServer`` on 127.0.0.1), served from a child
    process so that their HTTP work does not compete for the interpreter lock of the worker
    being measured. Receiver ``n`` of ``specs`` = ``(status, max_delay, timed)`` answers every
    delivery ``status`` after a random ``0..max_delay`` seconds; it counts the deliveries and,
    when ``timed``, puts their arrival time (``time.monotonic()``, the clock this process reads
    too) in :attr:`arrivals`. Anything else (the ping of a new webhook) is answered 200 at once
    and not counted. Start it before any thread or engine (the child is forked)."""

    def __init__(self, specs: list[tuple[int, float, bool]]) -> None:
        context = multiprocessing.get_context("fork")
        self.hits = context.Array("q", len(specs))
        self.arrivals: multiprocessing.queues.Queue[float] = context.Queue()
        self._stop = context.Event()
        ready: multiprocessing.queues.Queue[list[int]] = context.Queue()
        self._process = context.Process(
            target=_serve,
            args=(specs, self.hits, self.arrivals, self._stop, ready),
            name="bench-receivers",
            daemon=True,
        )
        self._process.start()
        self.urls = [f"http://127.0.0.1:{port}/hook" for port in ready.get(timeout=30)]

    def total(self, indexes: Iterable[int] | None = None) -> int:
        with self.hits.get_lock():
            counts = list(self.hits)
        return sum(counts if indexes is None else (counts[n] for n in indexes))

    def drain(self) -> None:
        while True:
            try:
                self.arrivals.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        self._stop.set()
        self._process.join(timeout=5)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 16 senders may connect at once
    index: int
    status: int
    max_delay: float
    timed: bool
    rng: random.Random
    hits: Any
    arrivals: Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        arrived = time.monotonic()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status = 200
        if self.headers.get(DELIVERY_HEADER):
            server = self.server
            if server.timed:
                server.arrivals.put(arrived)
            with server.hits.get_lock():
                server.hits[server.index] += 1
                delay = server.rng.uniform(0, server.max_delay)
            if delay:
                time.sleep(delay)
            status = server.status
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def _serve(
    specs: list[tuple[int, float, bool]], hits: Any, arrivals: Any, stop: Any, ready: Any
) -> None:
    """The child process: every receiver in a thread of its own until ``stop``."""
    servers = []
    for index, (status, max_delay, timed) in enumerate(specs):
        server = _Server(("127.0.0.1", 0), _Handler)
        server.index, server.status, server.timed = index, status, timed
        server.max_delay, server.rng = max_delay, random.Random(index)
        server.hits, server.arrivals = hits, arrivals
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        servers.append(server)
    ready.put([server.server_port for server in servers])
    stop.wait()
    for server in servers:
        server.shutdown()
        server.server_close()


# --- the app and the catalogue


def app_settings(url: str, media: str, in_process: bool = False) -> dict[str, str]:
    return {
        "sqlalchemy.url": url,
        "shopsvc.media_dir": media,
        "shopsvc.auth.allow_basic_over_http": "true",
        "shopsvc.outbound.allow_private_targets": "true",  # the receivers are on 127.0.0.1
        "shopsvc.webhooks.timeout": "5",
        # A failed attempt is due again only after this; a pass (run_once) makes at most one
        # attempt per delivery anyway, so retries never enter the measure.
        "shopsvc.webhooks.retry_base_seconds": "60",
        "shopsvc.webhooks.disable_after": "5",
        "shopsvc.webhooks.deliver_in_process": "true" if in_process else "false",
    }


def client(settings: dict[str, str], key: str, secret: str) -> TestApp:
    api = TestApp(app_main({"__file__": "bench.ini"}, **settings))
    api.authorization = ("Basic", (key, secret))
    return api


def create_products(api: TestApp, count: int) -> list[int]:
    """``count`` simple products through ``POST /products/bulk``; their ids."""
    ids: list[int] = []
    for start in range(0, count, BULK):
        items = [
            {"title": f"Product {n}", "sku": f"P-{n}", "regular_price": "10", "type": "simple"}
            for n in range(start, min(start + BULK, count))
        ]
        response = api.post_json(f"{API}/products/bulk", {"products": items})
        results = response.json["products"]
        assert all("error" not in result for result in results), results[:3]
        ids += [result["id"] for result in results]
    return ids


def create_webhook(api: TestApp, name: str, url: str) -> int:
    body = {"webhook": {"name": name, "topic": TOPIC, "delivery_url": url}}
    return api.post_json(f"{API}/webhooks", body, status=201).json["webhook"]["id"]


def set_status(api: TestApp, webhook_ids: list[int], status: str) -> None:
    """Through the API (``active`` also clears the count of consecutive failures)."""
    for webhook_id in webhook_ids:
        api.put_json(f"{API}/webhooks/{webhook_id}", {"webhook": {"status": status}})


def queue_events(api: TestApp, engine: sa.Engine, product_ids: list[int], round_no: int) -> int:
    """Empty the outbox and the attempt log, then edit every product through ``PUT
    /products/bulk`` (the transaction tween queues the deliveries); how many are pending."""
    clear_outbox(engine)
    for start in range(0, len(product_ids), BULK):
        items = [
            {"id": product_id, "title": f"Product {product_id} (round {round_no})"}
            for product_id in product_ids[start : start + BULK]
        ]
        results = api.put_json(f"{API}/products/bulk", {"products": items}).json["products"]
        assert all("error" not in result for result in results), results[:3]
    return state_counts(engine).get("pending", 0)


def clear_outbox(engine: sa.Engine) -> None:
    """Delete every delivery and logged attempt (what a pass left pending too)."""
    with engine.begin() as conn:
        conn.execute(sa.delete(webhook_deliveries))
        conn.execute(sa.delete(webhook_attempts))


def state_counts(engine: sa.Engine, webhook_id: int | None = None) -> dict[str, int]:
    query = sa.select(webhook_deliveries.c.state, sa.func.count()).group_by(
        webhook_deliveries.c.state
    )
    if webhook_id is not None:
        query = query.where(webhook_deliveries.c.webhook_id == webhook_id)
    with engine.connect() as conn:
        return {state: count for state, count in conn.execute(query)}


def webhook_status(engine: sa.Engine, webhook_id: int) -> str:
    with engine.connect() as conn:
        query = sa.select(webhooks.c.status).where(webhooks.c.id == webhook_id)
        return str(conn.execute(query).scalar())


# --- deliveries per second


def measure_throughput(
    label: str,
    url: str,
    settings: Settings,
    senders: int,
    app_engine: sa.Engine,
    receivers: Receivers,
    failing_id: int,
    queued: int,
    max_seconds: float,
) -> None:
    engine = make_engine(url, lock_timeout=settings.db_lock_timeout)
    deliverer = Deliverer(engine, settings, concurrency=senders)
    timer = threading.Timer(max_seconds, deliverer.stop) if max_seconds > 0 else None
    before, failing_before = receivers.total(), receivers.total([FAILING])
    cpu = time.process_time()
    started = time.perf_counter()
    if timer is not None:
        timer.start()
    try:
        result = deliverer.run_once()
    finally:
        if timer is not None:
            timer.cancel()
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    attempts = receivers.total() - before
    engine.dispose()
    states = state_counts(app_engine)
    failing = state_counts(app_engine, failing_id)
    capped = f"; stopped at the {max_seconds:g} s cap" if deliverer.stopping else ""
    print(
        f"{label:<{WIDTH}} senders={senders:<3} {attempts:>5} attempts in {elapsed:5.1f} s "
        f"{attempts / elapsed:>8.1f}/s  (of {queued} queued{capped}; "
        f"{cpu / elapsed * 100:.0f}% CPU, {cpu / max(attempts, 1) * 1000:.1f} ms CPU/attempt)",
        flush=True,
    )
    print(
        f"{'':<{WIDTH}} {'':<11} delivered {states.get('delivered', 0)}, still pending "
        f"{states.get('pending', 0)}; failing webhook {webhook_status(app_engine, failing_id)} "
        f"after {receivers.total([FAILING]) - failing_before} attempts, "
        f"{failing.get('cancelled', 0)} of its deliveries cancelled; results lost: "
        f"{result.lost} (sent while it was being disabled)",
        flush=True,
    )


# --- commit to delivery


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-fraction * len(ordered) // 1)))
    return ordered[int(rank) - 1]


def _mark(committed: list[float]) -> None:
    committed.append(time.monotonic())


def measure_latency(
    label: str,
    how: str,
    api: TestApp,
    product_ids: list[int],
    receivers: Receivers,
    samples: int,
    pause: float,
    warmup: int = 3,
) -> None:
    """``samples`` edits of a product, each after the worker went idle; commit → arrival.

    ``pause``: the longest wait after a delivery before the next edit (random, at least 50 ms,
    so that a polling worker is caught at every phase of its poll)."""
    receivers.drain()
    rng = random.Random(5)
    latencies: list[float] = []
    for n in range(warmup + samples):
        committed: list[float] = []
        mark = functools.partial(_mark, committed)
        environ = {"shopsvc.after_commit": [mark]}
        product_id = product_ids[n % len(product_ids)]
        body = {"product": {"title": f"Latency {n}"}}
        api.put_json(f"{API}/products/{product_id}", body, extra_environ=environ)
        arrived = receivers.arrivals.get(timeout=10)
        if n >= warmup:
            latencies.append(arrived - committed[0])
        time.sleep(rng.uniform(0.05, max(0.05, pause)))
    ms = [value * 1000 for value in latencies]
    print(
        f"{label:<{WIDTH}} {how:<15} {len(ms)} events, commit -> delivery: median "
        f"{statistics.median(ms):6.1f} ms  p99 {percentile(ms, 0.99):6.1f} ms  "
        f"(min {min(ms):.1f}, max {max(ms):.1f})",
        flush=True,
    )


@contextmanager
def worker_thread(url: str, settings: Settings) -> Iterator[None]:
    """``Deliverer.run()`` in a thread of this process, on an engine of its own."""
    engine = make_engine(url, lock_timeout=settings.db_lock_timeout)
    deliverer = Deliverer(engine, settings)
    thread = threading.Thread(target=deliverer.run, name="bench-worker", daemon=True)
    thread.start()
    try:
        time.sleep(0.5)  # its listener LISTENs (PostgreSQL)
        yield
    finally:
        deliverer.stop()
        thread.join(timeout=10)
        engine.dispose()


@contextmanager
def worker_process(settings: dict[str, str], directory: str) -> Iterator[None]:
    """``shopsvc CONFIG worker`` in a process of its own; stopped with SIGTERM."""
    ini = pathlib.Path(directory) / "worker.ini"
    lines = ["[app:main]", "use = egg:shopsvc", *(f"{k} = {v}" for k, v in settings.items())]
    ini.write_text("\n".join(lines) + "\n")
    command = [sys.executable, "-m", "shopsvc.cli", str(ini), "worker"]
    process = subprocess.Popen(
        command, cwd=ROOT_DIR, env={**os.environ, "PYTHONPATH": str(ROOT_DIR)}
    )
    try:
        time.sleep(3)  # it starts and LISTENs (PostgreSQL)
        if process.poll() is not None:
            raise RuntimeError(f"the worker process ended: {process.returncode}")
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- one database


def bench_database(kind: str, args: argparse.Namespace, receivers: Receivers) -> None:
    def say(text: str) -> None:
        print(f"{kind:<{WIDTH}} {text}", flush=True)

    with (
        scratch_database(None if kind == "sqlite" else args.postgresql_url) as url,
        tempfile.TemporaryDirectory() as media,
    ):
        engine = make_engine(url)
        migrate(engine)
        key, secret = admin_key(engine)
        engine.dispose()
        raw = app_settings(url, media)
        settings = load_settings(raw)
        api = client(raw, key, secret)
        app_engine: sa.Engine = api.app.registry.engine
        started = time.perf_counter()
        product_ids = create_products(api, args.products)
        hook_ids = [create_webhook(api, f"bench {n}", receivers.urls[n]) for n in range(RECEIVERS)]
        failing_id = hook_ids[FAILING]
        say(
            f"setup: {len(product_ids)} products (bulk POST), {len(hook_ids)} webhooks on "
            f"{TOPIC} in {time.perf_counter() - started:.1f} s"
        )
        for round_no, senders in enumerate(args.senders):
            set_status(api, hook_ids, "active")
            started = time.perf_counter()
            queued = queue_events(api, app_engine, product_ids, round_no)
            say(
                f"queued {queued} deliveries with {-(-len(product_ids) // BULK)} bulk PUTs "
                f"in {time.perf_counter() - started:.1f} s"
            )
            measure_throughput(
                kind,
                url,
                settings,
                senders,
                app_engine,
                receivers,
                failing_id,
                queued,
                args.max_seconds,
            )

        # Latency: one webhook only, on the receiver that answers at once.
        # The passes stopped at the cap left deliveries pending: a worker would first cancel
        # each of them (their webhooks are no longer active), so it would not be idle.
        set_status(api, hook_ids, "paused")
        clear_outbox(app_engine)
        create_webhook(api, "latency", receivers.urls[QUICK])
        polled = kind != "postgresql"
        pause = POLL_SECONDS + 0.05 if polled else 0.1
        say(
            "a worker is woken by "
            + (f"its poll (every {POLL_SECONDS:g} s)" if polled else "NOTIFY")
            + "; deliver_in_process=true wakes its deliverer after the commit"
        )
        with worker_thread(url, settings):
            measure_latency(kind, "worker thread", api, product_ids, receivers, args.samples, pause)
        if not polled:  # a polling worker process waits exactly as the thread does
            with worker_process(raw, media):
                measure_latency(
                    kind, "worker process", api, product_ids, receivers, args.samples, pause
                )
        app_engine.dispose()

        in_process = client(app_settings(url, media, in_process=True), key, secret)
        try:
            time.sleep(0.2)
            measure_latency(
                kind, "in-process", in_process, product_ids, receivers, args.samples, 0.1
            )
        finally:
            deliverer = in_process.app.registry.deliverer
            deliverer.stop()
            deliverer.join(timeout=10)
            in_process.app.registry.engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgresql", "both"),
        default="both",
        help="default: both, SQLite first",
    )
    parser.add_argument("--postgresql-url", default=POSTGRESQL, help=f"default: {POSTGRESQL}")
    parser.add_argument("--products", type=int, default=PRODUCTS, help="events per pass")
    parser.add_argument(
        "--senders",
        type=lambda text: [int(part) for part in text.split(",") if part.strip()],
        default=list(SENDERS),
        help="sender counts, comma separated (default 1,4,16)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=12.0,
        help="stop a pass after this long (0: never; default 12)",
    )
    parser.add_argument("--samples", type=int, default=50, help="latency samples per set-up")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)

    specs = [(500 if n == FAILING else 200, MAX_DELAY, False) for n in range(RECEIVERS)]
    receivers = Receivers([*specs, (200, 0.0, True)])  # before any thread: it forks
    kinds = ("sqlite", "postgresql") if args.database == "both" else (args.database,)
    print(
        f"{RECEIVERS} receivers answering after 0-{MAX_DELAY * 1000:g} ms (one always 500), "
        f"{args.products} events x {RECEIVERS} webhooks per pass, attempts counted at the "
        f"receivers; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    started = time.perf_counter()
    try:
        for kind in kinds:
            bench_database(kind, args, receivers)
    finally:
        receivers.close()
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
