"""Statements and time of the single product writes (issue 25): a variable product created with
two variations, three images (existing media), two categories, two tags and two attributes (one
global with its terms, one custom); a simple product created; the variable product edited (title,
price of a variation, one new variation); a variation edited by ``PUT /products/<id>``.

Each line tells the median (and minimum) time of a warm loop through the WSGI application
in-process (``bench.common.wsgi_request``, every tween and the authentication included) and the
statements of one captured run (``bench.floor.capture``; in brackets: of which transaction
control), next to the issue's bound where it sets one.

    python bench/product_writes.py                      # SQLite in a temporary file
    python bench/product_writes.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import itertools
import json
import pathlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

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
from shopsvc.testing.catalog import CatalogFactory  # noqa: E402

PREFIX = "/shop-api/v3"
#: Issue 25: the variable product create, in statements (transaction control included).
BOUND = 15


def variable_product(seeded: dict[str, Any], n: int) -> dict[str, Any]:
    """The issue's shape: 2 variations, 3 images, 2 categories, 2 tags, 2 attributes."""
    return {
        "title": f"Bench tee {n}",
        "type": "variable",
        "sku": f"TEE-{n}",
        "images": [{"id": m, "position": p} for p, m in enumerate(seeded["media"])],
        "categories": seeded["categories"],
        "tags": seeded["tags"],
        "attributes": [
            {
                "name": "Color",
                "slug": "pa_color",
                "options": ["Red", "Blue"],
                "variation": True,
                "visible": True,
            },
            {"name": "Size", "options": ["S", "M"], "variation": True, "visible": True},
        ],
        "variations": [
            {
                "sku": f"TEE-{n}-{color}",
                "regular_price": "12.00",
                "attributes": [
                    {"name": "Color", "slug": "pa_color", "option": color},
                    {"name": "Size", "option": s},
                ],
            }
            for color, s in (("Red", "S"), ("Blue", "M"))
        ],
    }


def simple_product(seeded: dict[str, Any], n: int) -> dict[str, Any]:
    return {
        "title": f"Bench simple {n}",
        "regular_price": "9.99",
        "sku": f"SIMPLE-{n}",
        "categories": seeded["categories"],
        "managing_stock": True,
        "stock_quantity": 5,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--repeat", type=int, default=40, help="timed requests of each kind")
    args = parser.parse_args(argv)
    with scratch_database(args.database_url) as url, tempfile.TemporaryDirectory() as media:
        engine = make_engine(url)
        migrate(engine)
        with engine.begin() as conn:
            factory = CatalogFactory(conn)
            color = factory.attribute("Color")
            for name in ("Red", "Blue"):
                factory.attribute_term(color, name)
            seeded = {
                "media": [factory.media() for _ in range(3)],
                "categories": [factory.category(f"Category {n}") for n in range(2)],
                "tags": [factory.tag(f"Tag {n}") for n in range(2)],
            }
        analyze(engine)
        key, secret = admin_key(engine)
        engine.dispose()
        settings = {
            "sqlalchemy.url": url,
            "shopsvc.media_dir": media,
            "shopsvc.auth.allow_basic_over_http": "true",
        }
        app = app_main({"__file__": "bench.ini"}, **settings)
        app_engine = app.registry.engine
        headers = {"Authorization": basic_auth(key, secret)}

        def send(method: str, path: str, body: dict[str, Any], status: int) -> Any:
            response = wsgi_request(
                app, method, PREFIX + path, None, headers, json.dumps(body).encode()
            )
            if response.status != status:
                raise SystemExit(f"{method} {path}: HTTP {response.status}: {response.body!r}")
            return json.loads(response.body)

        counter = itertools.count(1)
        made = send("POST", "/products", {"product": variable_product(seeded, 0)}, 201)
        variation_id = made["product"]["variations"][0]["id"]
        kinds: list[tuple[str, Callable[[], Any], int | None]] = [
            (
                "variable create",
                lambda: send(
                    "POST", "/products", {"product": variable_product(seeded, next(counter))}, 201
                ),
                BOUND,
            ),
            (
                "simple create",
                lambda: send(
                    "POST", "/products", {"product": simple_product(seeded, next(counter))}, 201
                ),
                None,
            ),
            (
                "variable edit",
                lambda: send(
                    "PUT",
                    f"/products/{made['product']['id']}",
                    {"product": {"title": f"Bench tee edited {next(counter)}"}},
                    200,
                ),
                None,
            ),
            (
                "variation edit",
                lambda: send(
                    "PUT",
                    f"/products/{variation_id}",
                    {"product": {"regular_price": f"{next(counter) % 90 + 1}.00"}},
                    200,
                ),
                None,
            ),
        ]
        print(
            f"{app_engine.dialect.name}: median of {args.repeat} after a warm-up; stmts = "
            f"statements of one captured run (in brackets: transaction control); {load_average()}"
        )
        print(f"  {'':<18} {'median ms':>9} {'min ms':>8} {'stmts':>8} {'bound':>5}")
        for label, request, bound in kinds:
            request()
            timings = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                request()
                timings.append(time.perf_counter() - started)
            trace: Trace
            with capture(app_engine) as trace:
                request()
            stmts = f"{trace.statements}" + (f"({trace.control})" if trace.control else "")
            print(
                f"  {label:<18} {statistics.median(timings) * 1000:>9.1f} "
                f"{min(timings) * 1000:>8.1f} {stmts:>8} {bound or '':>5}"
            )
        app_engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
