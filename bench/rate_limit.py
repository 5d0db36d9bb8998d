"""The rate limiter's cost on a single GET (``shopsvc.rate_limit``, web/rate_limit.py).

One scratch database with one product; four apps over it: two without a limit (the tween not in
the chain; their difference is the noise), one with the counters in memory, and one with them in
Redis (``--redis-url``, default the machine's 127.0.0.1:6379, under a key prefix of this run,
deleted afterwards). Alternating batches of ``GET /products/<id>`` straight through the WSGI
apps (bench/common.py, no test client); the medians per request and the difference to the first
app without a limit are printed.
The limit (``--rate``; with a burst, two windows) is high enough never to refuse.

    python bench/rate_limit.py [--database-url postgresql://…] [--batches 10] [--requests 300]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import time
import uuid
from typing import Any

import redis

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import (  # noqa: E402
    admin_key,
    app_main,
    basic_auth,
    load_average,
    scratch_database,
    wsgi_request,
)

ROOT = "/shop-api/v3"


def _per_request(app: Any, path: str, headers: dict[str, str], count: int) -> float:
    """Wall-clock seconds per request over ``count`` GETs of ``path``."""
    started = time.perf_counter()
    for _ in range(count):
        response = wsgi_request(app, "GET", path, None, headers)
        if response.status != 200:
            raise SystemExit(f"GET {path}: HTTP {response.status}: {response.body[:300]!r}")
    return (time.perf_counter() - started) / count


def _redis_up(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--rate", default="100000000/minute burst 10000000", help="the limit")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    parser.add_argument("--batches", type=int, default=10, help="alternating batches per app")
    parser.add_argument("--requests", type=int, default=300, help="GETs per batch")
    args = parser.parse_args(argv)
    prefix = f"shopsvc-bench-{uuid.uuid4().hex}"
    print(load_average())
    with scratch_database(args.database_url) as url, tempfile.TemporaryDirectory() as media:
        base = {
            "sqlalchemy.url": url,
            "shopsvc.media_dir": media,
            "shopsvc.auth.allow_basic_over_http": "true",
            "shopsvc.auto_migrate": "true",
        }
        apps: dict[str, Any] = {"no limit": app_main({"__file__": "bench.ini"}, **base)}
        # a second app without a limit: the difference between two like apps is the noise
        apps["no limit again"] = app_main({"__file__": "bench.ini"}, **base)
        apps["memory"] = app_main(
            {"__file__": "bench.ini"}, **base, **{"shopsvc.rate_limit": args.rate}
        )
        if _redis_up(args.redis_url):
            redis_settings = {
                "shopsvc.rate_limit": args.rate,
                "shopsvc.rate_limit.storage_url": args.redis_url,
                "shopsvc.rate_limit.key_prefix": prefix,
            }
            apps["redis"] = app_main({"__file__": "bench.ini"}, **base, **redis_settings)
        else:
            print(f"Redis at {args.redis_url} is down: its row is left out")
        key, secret = admin_key(apps["no limit"].registry.engine)
        headers = {"Authorization": basic_auth(key, secret)}
        body = json.dumps({"product": {"title": "Bench", "regular_price": "9.50"}}).encode()
        created = wsgi_request(apps["no limit"], "POST", f"{ROOT}/products", None, headers, body)
        if created.status != 201:
            raise SystemExit(f"POST /products: HTTP {created.status}: {created.body[:300]!r}")
        product_id = json.loads(created.body)["product"]["id"]
        path = f"{ROOT}/products/{product_id}"
        try:
            for app in apps.values():
                _per_request(app, path, headers, 50)  # warm: caches, the pool, the connection
            samples: dict[str, list[float]] = {name: [] for name in apps}
            for batch in range(args.batches):
                for name in list(apps) if batch % 2 == 0 else list(apps)[::-1]:
                    samples[name].append(_per_request(apps[name], path, headers, args.requests))
        finally:
            for app in apps.values():
                app.registry.engine.dispose()
            if "redis" in apps:
                client = redis.Redis.from_url(args.redis_url)
                for stored in client.scan_iter(match=f"{prefix}:*"):
                    client.delete(stored)
    median = {name: statistics.median(runs) for name, runs in samples.items()}
    off = median["no limit"]
    print(
        f"rate limit {args.rate!r}: {args.batches} alternating batches of {args.requests} GETs "
        f"{ROOT}/products/<id> per app, medians per request:"
    )
    for name, value in median.items():
        extra = (
            ""
            if name == "no limit"
            else f" ({(value - off) * 1e6:+.1f} µs, {value / off - 1:+.1%})"
        )
        print(f"    {name:<14} {value * 1000:.3f} ms{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
