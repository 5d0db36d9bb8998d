"""Benchmark of ``Idempotency-Key`` (issue 24, item 1): what the header costs on ``POST /orders``.

Through the WSGI application in-process (``bench.common.wsgi_request``, every tween and the
authentication included), on a scratch database with a few products, the three kinds of order
create interleaved in one warm loop (so that a drift of the machine touches all alike):

* **without the header**: a plain create;
* **a new key**: the same create with a fresh ``Idempotency-Key`` each time (the key looked up
  in a short read of its own, then claimed by the transaction's first statement, the response
  stored at its end);
* **a replay**: the first key sent again with the same body (the stored response, nothing run).

Each line tells the median (and minimum) time; the last two lines the median cost of a new key
over a plain create, and how much faster a replay answers.

    python bench/idempotency.py                      # SQLite in a temporary file
    python bench/idempotency.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/idempotency.py --repeat 300

With a PostgreSQL URL a scratch database ``shopsvc_bench_<random>`` is created on that server and
dropped afterwards.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import (  # noqa: E402
    basic_auth,
    load_average,
    scratch_database,
    seeded_engine,
    wsgi_request,
)
from shopsvc import main as app_main  # noqa: E402
from shopsvc.testing.catalog import CatalogFactory  # noqa: E402

API = "/shop-api/v3"


def _timed(call: Callable[[], int], expect: int) -> float:
    started = time.perf_counter()
    status = call()
    elapsed = time.perf_counter() - started
    if status != expect:
        raise SystemExit(f"HTTP {status}, expected {expect}")
    return elapsed


def run(url: str, repeat: int, warmup: int) -> None:
    def seed(engine: sa.Engine) -> list[int]:
        factory = CatalogFactory(engine)
        return [factory.product(f"Thing {n}", regular_price="10") for n in range(3)]

    engine, product_ids, key, secret = seeded_engine(url, seed)
    auth = {"Authorization": basic_auth(key, secret)}
    body = json.dumps(
        {
            "order": {
                "status": "processing",
                "line_items": [{"product_id": pid, "quantity": 1} for pid in product_ids],
                "billing_address": {"first_name": "Ada", "email": "ada@example.com"},
            }
        }
    ).encode()
    with tempfile.TemporaryDirectory() as media:
        app = app_main(
            {"__file__": "bench.ini"},
            **{
                "sqlalchemy.url": url,
                "shopsvc.media_dir": media,
                "shopsvc.auth.allow_basic_over_http": "true",
            },
        )
        counter = iter(range(10**9))

        def plain() -> int:
            return wsgi_request(app, "POST", API + "/orders", headers=auth, body=body).status

        def new_key() -> int:
            headers = {**auth, "Idempotency-Key": f"bench-{next(counter)}"}
            return wsgi_request(app, "POST", API + "/orders", headers=headers, body=body).status

        def replay() -> int:
            headers = {**auth, "Idempotency-Key": "bench-replayed"}
            return wsgi_request(app, "POST", API + "/orders", headers=headers, body=body).status

        kinds = {"without the header": plain, "a new key": new_key, "a replay": replay}
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for round_ in range(warmup + repeat):
            for name, call in kinds.items():
                elapsed = _timed(call, 201)
                if round_ >= warmup:
                    times[name].append(elapsed)
        app.registry.engine.dispose()
    engine.dispose()
    print(f"POST /orders (3 line items), {engine.dialect.name}, {repeat} runs each after {warmup}")
    print(load_average())
    medians = {}
    for name, found in times.items():
        medians[name] = statistics.median(found)
        print(
            f"  {name:<20} median {medians[name] * 1000:7.3f} ms   min {min(found) * 1000:7.3f} ms"
        )
    extra = medians["a new key"] - medians["without the header"]
    share = extra / medians["without the header"] * 100
    print(f"  cost of a new key: {extra * 1000:+.3f} ms ({share:+.1f} %) per create")
    ratio = medians["without the header"] / medians["a replay"]
    print(f"  a replay answers {ratio:.1f}x faster than a create")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--repeat", type=int, default=200, help="timed runs of each kind (200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed runs first (20)")
    args = parser.parse_args(argv)
    with scratch_database(args.database_url) as url:
        run(url, args.repeat, args.warmup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
