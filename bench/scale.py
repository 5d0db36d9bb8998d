"""Goal 3 of issue 10 on a seeded database: each request it names, timed through the WSGI
application, with its statements and the plans of its named queries.

The database must be seeded already (``shopsvc CONFIG seed --products 100000 --orders 1000000
--customers 50000``, then ``VACUUM ANALYZE``); this script neither creates, drops nor migrates
it. It makes an administrator's key for the run (user ``scale-bench``, created once; the key is
revoked at the end), or uses the one given with ``--key``/``--secret``.

The requests (their parameters picked from the data: the largest category, a published SKU, a
word of the titles, the best-selling product, a ``created_at`` range of a year ending a month
before the newest order):

* ``GET /orders`` and ``GET /products`` (first pages);
* ``GET /orders?status=completed&filter[created_at_min]=…&filter[created_at_max]=…&page=5000``;
* ``GET /products?filter[category]=…``, ``?filter[sku]=…``, ``?filter[q]=…``;
* ``GET /orders/count?status=any``, ``GET /orders/count``, ``GET /products/count``;
* ``GET /products/<id>/orders`` of the best-selling product and of the median one.

For each: the first run's time (the first such request of the process), the median of
``--repeat`` warm runs, the statements it ran, whether the median is under ``--budget`` ms
("tens of milliseconds"); then, for each named query the request runs (``shopsvc.sql.catalog``),
the top of its ``EXPLAIN (ANALYZE, BUFFERS)`` plan: the scan nodes (the indexes used) and the
execution time.

    python bench/scale.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/shopsvc_scale_1m
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import pathlib
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import basic_auth, load_average, wsgi_request  # noqa: E402
from bench.floor import capture  # noqa: E402
from shopsvc import main as app_main  # noqa: E402
from shopsvc.auth.keys import issue_key  # noqa: E402
from shopsvc.cli.dba import plan  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.sql import auth as auth_sql  # noqa: E402
from shopsvc.sql import auth_writes as auth_writes_sql  # noqa: E402
from shopsvc.sql import named_queries as catalog  # noqa: E402
from shopsvc.sql.tables import order_items, orders, product_terms, products, terms  # noqa: E402

API = "/shop-api/v3"
LOGIN = "scale-bench"
#: Plan lines worth showing: the nodes that read a table or an index, and the totals.
PLAN_WORDS = ("Scan", "Execution Time", "Planning Time", "Limit", "Aggregate", "Sort", "Join")


@dataclass
class Case:
    """One request of goal 3 and the named queries (with their ``--filter`` values) it runs."""

    label: str
    path: str
    params: dict[str, str]
    queries: list[tuple[str, dict[str, str]]] = field(default_factory=list)


def _rfc3339(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def pick(engine: sa.Engine) -> dict[str, Any]:
    """The parameters of the requests, from the data."""
    with engine.connect() as conn:
        newest = conn.execute(sa.select(sa.func.max(orders.c.created_at))).scalar_one()
        if newest is None:
            raise SystemExit("no orders: seed the database first")
        in_category = (
            sa.select(terms.c.slug, sa.func.count().label("n"))
            .select_from(product_terms.join(terms, terms.c.id == product_terms.c.term_id))
            .where(terms.c.taxonomy == "product_cat")
            .group_by(terms.c.slug)
            .order_by(sa.text("n DESC"), terms.c.slug)
            .limit(1)
        )
        category = conn.execute(in_category).first()
        middle = conn.execute(sa.select(sa.func.max(products.c.id))).scalar_one() // 2
        sku_row = conn.execute(
            sa.select(products.c.sku, products.c.title)
            .where(
                products.c.id >= middle,
                products.c.status == "publish",
                products.c.type != "variation",
                products.c.sku.is_not(None),
            )
            .order_by(products.c.id)
            .limit(1)
        ).first()
        best = conn.execute(
            sa.select(products.c.id)
            .where(products.c.type != "variation", products.c.status == "publish")
            .order_by(products.c.total_sales.desc(), products.c.id)
            .limit(1)
        ).scalar_one()
        listed = sa.and_(products.c.type != "variation", products.c.status == "publish")
        how_many = conn.execute(sa.select(sa.func.count()).where(listed)).scalar_one()
        typical = conn.execute(
            sa.select(products.c.id)
            .where(listed)
            .order_by(products.c.total_sales, products.c.id)
            .offset(how_many // 2)
            .limit(1)
        ).scalar_one()

        def lines(product_id: int) -> int:
            return conn.execute(
                sa.select(sa.func.count()).where(
                    order_items.c.item_type == "line_item",
                    sa.or_(
                        order_items.c.product_id == product_id,
                        order_items.c.variation_id == product_id,
                    ),
                )
            ).scalar_one()

        best_lines, typical_lines = lines(best), lines(typical)
    words = [w for w in (sku_row.title if sku_row else "").lower().split() if len(w) >= 4]
    return {
        "created_min": newest - dt.timedelta(days=395),
        "created_max": newest - dt.timedelta(days=30),
        "category": category.slug if category else "",
        "category_links": category.n if category else 0,
        "sku": sku_row.sku if sku_row else "",
        "q": words[0] if words else "shirt",
        "product": best,
        "product_lines": best_lines,
        "typical": typical,
        "typical_lines": typical_lines,
    }


def cases(found: dict[str, Any]) -> list[Case]:
    low, high = _rfc3339(found["created_min"]), _rfc3339(found["created_max"])
    deep = {"status": "completed", "created_at_min": low, "created_at_max": high, "page": "5000"}
    product, typical = str(found["product"]), str(found["typical"])
    return [
        Case("GET /orders", "/orders", {}, [("orders.count", {}), ("orders.page", {})]),
        Case(
            "GET /orders deep page",
            "/orders",
            {
                "status": "completed",
                "filter[created_at_min]": low,
                "filter[created_at_max]": high,
                "page": "5000",
            },
            [("orders.count", deep), ("orders.page", deep)],
        ),
        Case(
            "GET /orders/count?status=any",
            "/orders/count",
            {"status": "any"},
            [("orders.count_by_status", {})],
        ),
        Case("GET /orders/count", "/orders/count", {}, [("orders.count", {})]),
        Case(
            "GET /products",
            "/products",
            {},
            [("products.count", {}), ("products.page", {}), ("products.load.related", {})],
        ),
        Case(
            f"GET /products category={found['category']}",
            "/products",
            {"filter[category]": found["category"]},
            [
                ("products.count", {"category": found["category"]}),
                ("products.page", {"category": found["category"]}),
            ],
        ),
        Case(
            f"GET /products sku={found['sku']}",
            "/products",
            {"filter[sku]": found["sku"]},
            [("products.count", {"sku": found["sku"]}), ("products.page", {"sku": found["sku"]})],
        ),
        Case(
            f"GET /products q={found['q']}",
            "/products",
            {"filter[q]": found["q"]},
            [("products.count", {"q": found["q"]}), ("products.page", {"q": found["q"]})],
        ),
        Case("GET /products/count", "/products/count", {}, [("products.count", {})]),
        Case(
            f"GET /products/{typical}/orders (median)",
            f"/products/{typical}/orders",
            {},
            [
                ("products.orders.count", {"id": typical}),
                ("products.orders", {"id": typical}),
            ],
        ),
        Case(
            f"GET /products/{product}/orders (best seller)",
            f"/products/{product}/orders",
            {},
            [
                ("products.orders.count", {"id": product}),
                ("products.orders", {"id": product}),
            ],
        ),
    ]


def _related_terms(engine: sa.Engine, body: bytes) -> str:
    """The categories and tags of the products of a list's body (``products.load.related``)."""
    ids = [record["id"] for record in json.loads(body)["products"]]
    query = (
        sa.select(product_terms.c.term_id)
        .select_from(product_terms.join(terms, terms.c.id == product_terms.c.term_id))
        .where(
            product_terms.c.product_id.in_(ids),
            terms.c.taxonomy.in_(("product_cat", "product_tag")),
        )
        .distinct()
    )
    with engine.connect() as conn:
        return ",".join(str(term) for term in sorted(conn.execute(query).scalars())) or "1"


def _plan_top(lines: list[str], width: int = 150) -> list[str]:
    kept = [line for line in lines if any(word in line for word in PLAN_WORDS)]
    return [line if len(line) <= width else line[: width - 1] + "…" for line in kept]


def _key(engine: sa.Engine, args: argparse.Namespace) -> tuple[str, str, int | None]:
    if args.key and args.secret:
        return args.key, args.secret, None
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with engine.begin() as conn:
        user = auth_sql.user_by_login(conn, LOGIN)
        if user is None:
            values = {"login": LOGIN, "email": f"{LOGIN}@example.com", "role": "administrator"}
            user = auth_writes_sql.create_user(conn, values, now)
        key = issue_key(user["id"], "read")
        key_id = auth_writes_sql.create_key(conn, key.row, now)
    return key.consumer_key, key.consumer_secret, key_id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="a seeded database")
    parser.add_argument("--repeat", type=int, default=7, help="warm runs per request (median)")
    parser.add_argument("--budget", type=float, default=100.0, help="'tens of ms': under this")
    parser.add_argument("--key", default=None, help="a consumer key (else one is made)")
    parser.add_argument("--secret", default=None, help="its consumer secret")
    parser.add_argument("--no-plans", action="store_true", help="time only, no EXPLAIN")
    parser.add_argument("--only", default="", help="run the cases whose label contains this")
    args = parser.parse_args(argv)
    engine = make_engine(args.database_url)
    found = pick(engine)
    key, secret, key_id = _key(engine, args)
    try:
        with tempfile.TemporaryDirectory() as media:
            settings = {
                "sqlalchemy.url": args.database_url,
                "shopsvc.media_dir": media,
                "shopsvc.auth.allow_basic_over_http": "true",
                "shopsvc.slow_sql_ms": "0",
            }
            app = app_main({"__file__": "scale.ini"}, **settings)
            run(app, engine, found, basic_auth(key, secret), args)
            app.registry.engine.dispose()
    finally:
        if key_id is not None:
            with engine.begin() as conn:
                auth_writes_sql.delete_key(conn, key_id)
        engine.dispose()
    return 0


def run(
    app: Any, engine: sa.Engine, found: dict[str, Any], auth: str, args: argparse.Namespace
) -> None:
    app_engine = app.registry.engine
    headers = {"Authorization": auth}
    print(
        f"{app_engine.dialect.name}: median of {args.repeat} warm runs, budget {args.budget:g} "
        f"ms; {load_average()}"
    )
    print(
        f"picked: category {found['category']} ({found['category_links']} products), sku "
        f"{found['sku']}, q {found['q']!r}, best seller {found['product']} "
        f"({found['product_lines']} order lines), median seller {found['typical']} "
        f"({found['typical_lines']}), created_at {found['created_min']:%Y-%m-%d} .. "
        f"{found['created_max']:%Y-%m-%d}"
    )
    selected = [case for case in cases(found) if args.only in case.label]
    results = []
    for case in selected:
        started = time.perf_counter()
        first = wsgi_request(app, "GET", API + case.path, case.params, headers)
        first_ms = (time.perf_counter() - started) * 1000
        if first.status != 200:
            raise SystemExit(f"{case.label}: {first.status} {first.body[:300]!r}")
        times = []
        for _ in range(args.repeat):
            with capture(app_engine) as trace:
                started = time.perf_counter()
                response = wsgi_request(app, "GET", API + case.path, case.params, headers)
                times.append((time.perf_counter() - started) * 1000)
        median = statistics.median(times)
        total = dict(response.headers).get("X-Shop-Total", "")
        results.append((case, first_ms, median, trace, response, total))
        verdict = "ok" if median < args.budget else "SLOW"
        print(
            f"{case.label:<44} first {first_ms:8.1f} ms  median {median:7.1f} ms  "
            f"{trace.queries} queries  {len(response.body):7d} bytes  total {total or '-':>8}  "
            f"{verdict}"
        )
    if args.no_plans:
        print(f"after the runs: {load_average()}")
        return
    for case, _first, _median, _trace, response, _total in results:
        print(f"\n== {case.label}")
        for name, filters in case.queries:
            values = dict(filters)
            if name == "products.load.related":
                values["term_ids"] = _related_terms(engine, response.body)
            built = catalog.get(name).build(values)
            with engine.connect() as conn:
                lines = plan(conn, built, analyze=True)
            shown = " ".join(f"{k}={v}" for k, v in values.items())
            print(f"-- {name} {shown}")
            for line in _plan_top(lines):
                print(f"   {line}")
    print(f"\nafter the runs: {load_average()}")


if __name__ == "__main__":
    sys.exit(main())
