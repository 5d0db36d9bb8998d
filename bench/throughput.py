"""Throughput of a single-record GET under waitress, against a bare Pyramid JSON view: goal 2 of
issue 10 (at least 25 % of the bare floor's requests per second, at most 4 statements per GET).

Requires ``wrk`` (Debian: ``apt-get install wrk``); installs nothing. Seeds a scratch database
with bench/products.py's catalogue (1000 variable products by default) and bench/orders.py's
orders (2000 by default) and makes an administrator's key, then starts two servers, each in a
process of its own on a free port of 127.0.0.1, both ``waitress`` with the same options (4
threads, the same connection limit):

* ``shopsvc``: the service (``shopsvc.main`` as ``pserve`` would build it) on that database,
  Basic authentication over plain HTTP allowed;
* ``bare``: a bare Pyramid app whose only view returns, through Pyramid's ``json`` renderer, the
  same document the service answers for the product (``/product``) or for the order
  (``/order``): a product-sized (order-sized) dict.

For each of ``GET /shop-api/v3/products/<id>`` and ``GET /shop-api/v3/orders/<id>`` (with the
key in an ``Authorization: Basic`` header), ``wrk -t2 -c16 -d10s`` (configurable) runs against
the bare view and then against the service, each after a short warm-up, in ``--rounds`` (2)
alternating rounds so that a neighbour's burst of load does not fall on one side only; the
requests per second of each run, and of each target its median over the rounds, and the ratio
are printed against the 25 % target. Python logging is left
unconfigured in both servers (WARNING and above only): no access log.

Before that, the statements one single-record GET sends, authentication included, are counted
in this process (the same capture as bench/floor.py) on a steady-state request (authentication
writes ``last_access`` at most once a minute: the request counted follows two others) and
printed against the target of 4 (transaction control, e.g. SQLite's BEGIN, shown apart).

Then the cost of the request metrics (``shopsvc.metrics``, docs/metrics.md; issue 23: under 3 %
of a single product GET), in this process: one app (metrics on) serves the product GET through
three tween chains built from its tween factories — with the metrics tween (and the statement
counter's cursor event), without, and without again — in ``--metrics-batches`` batches of
``--metrics-requests`` requests, the chains' order alternating. The same app, so the same
objects in the same places: the two chains without the metrics tween differ by the machine's
noise only, which the printout shows. The cost is the difference of the medians of the CPU time
per request (this thread's: the wall clock moves with the machine's other load), against the
target; the wall clock's is printed too. (Timed alone in a loop, the tween takes 2 to 3 µs; in a
request, after the request's own work has pushed its data out of the processor's caches, several
times that: timing the tween alone would understate its cost.)

``--metrics-only`` measures the metrics and stops (no ``wrk`` needed).

    python bench/throughput.py                      # SQLite in a temporary file
    python bench/throughput.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/throughput.py --duration 30 --connections 32
    python bench/throughput.py --metrics-only       # the metrics' cost only

With a PostgreSQL URL a scratch database ``shopsvc_bench_<random>`` is created on that server and
dropped afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import orjson
import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench import orders as orders_bench  # noqa: E402
from bench import products as products_bench  # noqa: E402
from bench.common import (  # noqa: E402
    admin_key,
    analyze,
    basic_auth,
    load_average,
    scratch_database,
    wsgi_request,
)
from bench.floor import Trace, capture  # noqa: E402
from shopsvc import main as app_main  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402

API = "/shop-api/v3"
#: Goal 2 (issue 10): requests per second at least this share of the bare floor's.
RATIO_TARGET = 0.25
#: Goal 2: statements per single-record GET, authentication included.
STATEMENT_TARGET = 4
#: Issue 23: recording a request's metrics costs at most this share of a single product GET.
METRICS_TARGET = 0.03


# --- the servers (each in a child process: ``--serve KIND CONFIG``)


def bare_app(documents: dict[str, Any]) -> Any:
    """A bare Pyramid app: one JSON view per document, at ``/<name>``."""
    from pyramid.config import Configurator

    config = Configurator()

    def view(request: Any) -> Any:
        return documents[request.matched_route.name]

    for name in documents:
        config.add_route(name, f"/{name}")
        config.add_view(view, route_name=name, renderer="json")
    return config.make_wsgi_app()


def serve(kind: str, config_path: str) -> None:
    """Serve ``kind`` (``shopsvc`` or ``bare``) with waitress on a free port of 127.0.0.1 and
    say which on the first line of standard output."""
    import waitress.server

    config = json.loads(pathlib.Path(config_path).read_text())
    if kind == "shopsvc":
        app = app_main({"__file__": "bench.ini"}, **config["settings"])
    else:
        app = bare_app(config["documents"])
    server = waitress.server.create_server(app, host="127.0.0.1", port=0, **config["waitress"])
    print(f"PORT {server.effective_port}", flush=True)
    server.run()


@contextmanager
def server_process(
    kind: str, config_path: str, log_path: pathlib.Path
) -> Iterator[tuple[int, int]]:
    """Start ``serve(kind)`` in a child process; yield its port and process id; stop it
    afterwards."""
    with open(log_path, "w") as log:
        child = subprocess.Popen(
            [sys.executable, str(pathlib.Path(__file__).resolve()), "--serve", kind, config_path],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        if not line.startswith("PORT "):
            child.wait(timeout=10)
            raise SystemExit(f"{kind} server did not start:\n{log_path.read_text()[-3000:]}")
        yield int(line.split()[1]), child.pid
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


# --- measuring


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far; NaN where ``/proc``
    does not tell."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fetch(url: str, headers: dict[str, str]) -> bytes:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        if response.status != 200:
            raise SystemExit(f"{url}: HTTP {response.status}")
        return response.read()


def wrk(args: argparse.Namespace, url: str, headers: dict[str, str], seconds: int) -> dict:
    """Run ``wrk`` against ``url``; its requests per second, mean latency and failures."""
    command = ["wrk", f"-t{args.wrk_threads}", f"-c{args.connections}", f"-d{seconds}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    done = subprocess.run(
        [*command, url], capture_output=True, text=True, timeout=seconds + 60, check=False
    )
    if done.returncode:
        raise SystemExit(f"wrk failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    out = done.stdout
    rate = re.search(r"Requests/sec:\s*([\d.]+)", out)
    if rate is None:
        raise SystemExit(f"unexpected wrk output:\n{out}")
    latency = re.search(r"Latency\s+([\d.]+)(us|ms|s)\b", out)
    latency_ms = float("nan")
    if latency:
        scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[latency.group(2)]
        latency_ms = float(latency.group(1)) * scale
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", out)
    errors = re.search(r"Socket errors:(.*)", out)
    requests = re.search(r"(\d+) requests in", out)
    return {
        "rps": float(rate.group(1)),
        "latency_ms": latency_ms,
        "requests": int(requests.group(1)) if requests else 0,
        "non_2xx": int(non_2xx.group(1)) if non_2xx else 0,
        "errors": errors.group(1).strip() if errors else "",
    }


def steady_state_trace(app: Any, path: str, headers: dict[str, str]) -> tuple[Trace, bytes]:
    """The statements of a steady-state ``GET path`` (the third in a row) and its body."""
    for _ in range(2):
        response = wsgi_request(app, "GET", path, None, headers)
        if response.status != 200:
            raise SystemExit(f"GET {path}: HTTP {response.status}: {response.body[:500]!r}")
    with capture(app.registry.engine) as trace:
        response = wsgi_request(app, "GET", path, None, headers)
    return trace, response.body


def print_trace(label: str, trace: Trace) -> None:
    holds = "holds" if trace.queries <= STATEMENT_TARGET else "does NOT hold"
    print(
        f"{label}: {trace.queries} statements, authentication included (+ {trace.control} "
        f"transaction control; {trace.transactions} transactions) — target ≤ "
        f"{STATEMENT_TARGET}: {holds}"
    )
    for sql in trace.sql:
        text = " ".join(sql.split())
        print(f"    {text[:110]}{'…' if len(text) > 110 else ''}")
    if trace.unseen:
        print(f"    WARNING: {trace.unseen} more ran on SQLite outside SQLAlchemy's events")


def pick_ids(engine: sa.Engine, products: int) -> tuple[int, int]:
    """A variable product of the middle of the catalogue, and an order of three line items."""
    with engine.connect() as conn:
        product = conn.execute(
            sa.text("SELECT id FROM products WHERE sku = :sku"), {"sku": f"P-{products // 2}"}
        ).scalar_one()
        order = conn.execute(
            sa.text(
                "SELECT order_id FROM order_items WHERE item_type = 'line_item' "
                "GROUP BY order_id HAVING count(*) = 3 ORDER BY order_id LIMIT 1"
            )
        ).scalar_one()
    return product, order


# --- the metrics' cost


def _per_request(app: Any, path: str, headers: dict[str, str], count: int) -> tuple[float, float]:
    """Wall-clock and this thread's CPU seconds per request over ``count`` GETs of ``path``."""
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in range(count):
        response = wsgi_request(app, "GET", path, None, headers)
        if response.status != 200:
            raise SystemExit(f"GET {path}: HTTP {response.status}: {response.body[:300]!r}")
    return (time.perf_counter() - wall) / count, (time.thread_time() - cpu) / count


def _chain(app: Any, metrics: bool) -> Any:
    """The app's tween chain (what ``app.handle_request`` holds) built anew, with or without
    the metrics tween."""
    from pyramid.interfaces import ITweens

    from shopsvc.web.tweens import METRICS

    tweens = app.registry.getUtility(ITweens)
    handler = app.orig_handle_request
    for name, factory in (tweens.explicit or tweens.implicit())[::-1]:
        if metrics or name != METRICS:
            handler = factory(handler, app.registry)
    return handler


def metrics_overhead(
    args: argparse.Namespace, settings: dict[str, str], path: str, headers: dict[str, str]
) -> None:
    """Print the metrics' cost on a single product GET (see the module's docstring)."""
    from shopsvc.metrics.collectors import _count_statement

    app = app_main({"__file__": "bench.ini"}, **settings, **{"shopsvc.metrics": "true"})
    engine = app.registry.engine
    chains = {"on": _chain(app, True), "off": _chain(app, False), "off again": _chain(app, False)}

    def switch(side: str) -> None:
        app.handle_request = chains[side]
        counting = sa.event.contains(engine, "before_cursor_execute", _count_statement)
        if side != "on" and counting:
            sa.event.remove(engine, "before_cursor_execute", _count_statement)
        elif side == "on" and not counting:
            sa.event.listen(engine, "before_cursor_execute", _count_statement, retval=True)

    try:
        for side in chains:
            switch(side)
            _per_request(app, path, headers, 50)  # warm: caches, the pool
        samples: dict[str, list[tuple[float, float]]] = {side: [] for side in chains}
        for batch in range(args.metrics_batches):
            for side in list(chains) if batch % 2 == 0 else list(chains)[::-1]:
                switch(side)
                samples[side].append(_per_request(app, path, headers, args.metrics_requests))
    finally:
        engine.dispose()
    wall = {side: statistics.median(s[0] for s in runs) for side, runs in samples.items()}
    cpu = {side: statistics.median(s[1] for s in runs) for side, runs in samples.items()}
    wall_off = (wall["off"] + wall["off again"]) / 2
    cpu_off = (cpu["off"] + cpu["off again"]) / 2
    share = cpu["on"] / cpu_off - 1
    holds = "holds" if share <= METRICS_TARGET else "does NOT hold"
    print(
        f"metrics: {args.metrics_batches} alternating batches of {args.metrics_requests} GETs "
        f"{path} through one app, its tweens built with and without the metrics tween (twice "
        f"without: the noise), medians per request:"
    )
    for side in chains:
        print(
            f"    {side:<9} {wall[side] * 1000:.3f} ms ({wall[side] / wall_off - 1:+.2%}), "
            f"{cpu[side] * 1000:.3f} ms CPU ({cpu[side] / cpu_off - 1:+.2%})"
        )
    print(
        f"metrics: recording a request's metrics costs {share:+.2%} of a product GET's CPU time "
        f"({(cpu['on'] - cpu_off) * 1e6:.1f} µs of {cpu_off * 1000:.3f} ms; wall clock "
        f"{wall['on'] / wall_off - 1:+.2%}) — target ≤ {METRICS_TARGET:.0%}: {holds}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--products", type=int, default=1000, help="variable products to seed")
    parser.add_argument("--orders", type=int, default=2000, help="orders to seed")
    parser.add_argument("--threads", type=int, default=4, help="waitress threads (both servers)")
    parser.add_argument(
        "--connection-limit", type=int, default=100, help="waitress connection_limit (both)"
    )
    parser.add_argument("--wrk-threads", type=int, default=2, help="wrk -t")
    parser.add_argument("--connections", type=int, default=16, help="wrk -c")
    parser.add_argument("--duration", type=int, default=10, help="wrk -d, seconds per run")
    parser.add_argument(
        "--warmup", type=int, default=2, help="seconds of wrk before each target's first run"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="alternating rounds over the four targets; req/s is each target's median",
    )
    parser.add_argument(
        "--metrics-batches", type=int, default=30, help="A/B batches of the metrics' cost (30)"
    )
    parser.add_argument(
        "--metrics-requests", type=int, default=200, help="GETs per metrics batch (200)"
    )
    parser.add_argument(
        "--metrics-only", action="store_true", help="measure the metrics' cost only (no wrk)"
    )
    parser.add_argument("--serve", nargs=2, metavar=("KIND", "CONFIG"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(*args.serve)
        return 0
    if not args.metrics_only and shutil.which("wrk") is None:
        print("bench/throughput.py needs wrk: apt-get install wrk", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        url = stack.enter_context(scratch_database(args.database_url))
        work = pathlib.Path(stack.enter_context(tempfile.TemporaryDirectory()))
        engine = make_engine(url)
        migrate(engine)
        started = time.perf_counter()
        products_bench.seed(engine, args.products)
        counts = orders_bench.seed(engine, args.orders, lambda text: None)
        analyze(engine)
        seeded = time.perf_counter() - started
        key, secret = admin_key(engine)
        product_id, order_id = pick_ids(engine, args.products)
        engine.dispose()
        settings = {
            "sqlalchemy.url": url,
            "shopsvc.media_dir": str(work / "media"),
            "shopsvc.auth.allow_basic_over_http": "true",
            "shopsvc.currency": "EUR",
        }
        headers = {"Authorization": basic_auth(key, secret)}
        paths = {"product": f"{API}/products/{product_id}", "order": f"{API}/orders/{order_id}"}

        app = app_main({"__file__": "bench.ini"}, **settings)
        dialect = app.registry.engine.dialect.name
        print(
            f"{dialect}: {args.products} variable products, {counts['orders']} orders seeded in "
            f"{seeded:.1f} s; {load_average()}"
        )
        documents = {}
        for name, path in paths.items():
            trace, body = steady_state_trace(app, path, headers)
            documents[name] = orjson.loads(body)
            print_trace(f"GET {path}", trace)
        app.registry.engine.dispose()
        metrics_overhead(args, settings, paths["product"], headers)
        if args.metrics_only:
            return 0

        waitress_options = {"threads": args.threads, "connection_limit": args.connection_limit}
        config_path = work / "servers.json"
        config_path.write_text(
            json.dumps({"settings": settings, "documents": documents, "waitress": waitress_options})
        )
        shop_port, shop_pid = stack.enter_context(
            server_process("shopsvc", str(config_path), work / "shopsvc.log")
        )
        bare_port, bare_pid = stack.enter_context(
            server_process("bare", str(config_path), work / "bare.log")
        )
        targets = {}
        for name, path in paths.items():
            targets[name] = [
                ("bare Pyramid", f"/{name}", f"http://127.0.0.1:{bare_port}/{name}", {}, bare_pid),
                ("shopsvc", path, f"http://127.0.0.1:{shop_port}{path}", headers, shop_pid),
            ]
        print(
            f"waitress {waitress_options} for both; wrk -t{args.wrk_threads} "
            f"-c{args.connections} -d{args.duration}s, {args.rounds} alternating round(s), "
            f"after {args.warmup} s of warm-up"
        )
        print(
            f"{'round':>5} {'server':<13} {'GET':<30} {'bytes':>6} {'req/s':>9} "
            f"{'latency ms':>10} {'requests':>9} {'non-2xx':>7} {'CPU ms/req':>10}  socket errors"
        )
        rates: dict[tuple[str, str], list[float]] = {}
        costs: dict[tuple[str, str], list[float]] = {}
        sizes: dict[str, int] = {}
        for round_ in range(1, args.rounds + 1):
            for name, runs in targets.items():
                for server, shown, target, target_headers, pid in runs:
                    if round_ == 1:
                        sizes[target] = len(fetch(target, target_headers))
                        if args.warmup:
                            wrk(args, target, target_headers, args.warmup)
                    used = cpu_seconds(pid)
                    result = wrk(args, target, target_headers, args.duration)
                    cost = (cpu_seconds(pid) - used) * 1000 / max(result["requests"], 1)
                    rates.setdefault((name, server), []).append(result["rps"])
                    costs.setdefault((name, server), []).append(cost)
                    print(
                        f"{round_:>5} {server:<13} {shown:<30} {sizes[target]:>6} "
                        f"{result['rps']:>9.1f} {result['latency_ms']:>10.2f} "
                        f"{result['requests']:>9} {result['non_2xx']:>7} {cost:>10.3f}  "
                        f"{result['errors'] or '-'}"
                    )
        for name in targets:
            bare = statistics.median(rates[(name, "bare Pyramid")])
            shop = statistics.median(rates[(name, "shopsvc")])
            ratio = shop / bare
            holds = "holds" if ratio >= RATIO_TARGET else "does NOT hold"
            print(
                f"{name}: shopsvc {shop:.1f} req/s, bare Pyramid {bare:.1f} req/s (medians of "
                f"the rounds): {ratio:.1%} of the bare floor serving the same document — "
                f"target ≥ {RATIO_TARGET:.0%}: {holds}"
            )
            # A process runs Python on one core at a time (the GIL; only the sockets' and the
            # driver's waits, and SQLite's steps, run beside it): its CPU per request bounds
            # its rate, whatever the load generator does.
            cpu = statistics.median(costs[(name, "shopsvc")])
            print(
                f"{name}: shopsvc's process spent {cpu:.3f} ms of CPU per request (median of "
                f"the rounds); one core at that cost serves {1000 / cpu:.0f} req/s; the "
                f"target ({RATIO_TARGET * bare:.0f} req/s) needs at most "
                f"{1000 / (RATIO_TARGET * bare):.3f} ms per request of one core"
            )
        print(f"after the runs: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
