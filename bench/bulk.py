"""Benchmark of the bulk routes against one create (issue 10, goal 5): ``/products/bulk``,
``/orders/bulk`` and ``/taxes/bulk``.

For each family, side by side in one run, through the WSGI application in-process
(``bench.common.wsgi_request``, every tween and the authentication included):

* **one create**: a single ``POST /<family>`` (median of ``--repeat-one`` after a warm-up);
* **bulk of N creates**: ``POST /<family>/bulk`` with ``--size`` new records (fresh SKUs and
  names each run, so the bulk is repeatable; median of ``--repeat``);
* **bulk of N edits**: ``PUT /<family>/bulk`` editing ``--size`` existing records (values that
  change on every run, so that each run really writes).

The records: simple products (title, slug ``name``, type ``simple``, regular price, SKU, two
categories by id, stock management fields, a ``meta_data`` entry — which the product writes
ignore, as every unknown field — and a description), edited by
price and stock (half found by id, half by SKU); orders (two line items of existing simple
products, billing and shipping addresses, a status, ``paid`` false), edited by status and an
``order_meta`` entry; tax rates (country, state, a postcode list, city, rate, name, class),
edited by rate and name. Each line tells the median (and minimum) time, the ratio to one
create, the statements the request ran (one captured run, ``bench.floor.capture``; in
brackets: of which transaction control) and whether goal 5's target holds: a bulk within
10× one create. Every bulk response is checked: no element may come back as an error.

    python bench/bulk.py                      # SQLite in a temporary file
    python bench/bulk.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/bulk.py --families taxes --repeat 5

With a PostgreSQL URL a scratch database ``shopsvc_bench_<random>`` is created on that server and
dropped afterwards.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import (  # noqa: E402
    WsgiResponse,
    basic_auth,
    load_average,
    scratch_database,
    seeded_engine,
    wsgi_request,
)
from bench.floor import Trace, capture  # noqa: E402
from shopsvc import main as app_main  # noqa: E402
from shopsvc.sql.tables import tax_classes  # noqa: E402
from shopsvc.testing.catalog import CatalogFactory  # noqa: E402

PREFIX = "/shop-api/v3"
#: Goal 5 (issue 10): a bulk of 100 creates or edits within this many times one create.
TARGET = 10.0
FAMILIES = ("products", "orders", "taxes")
SINGULAR = {"products": "product", "orders": "order", "taxes": "tax"}
#: Tax classes the rates are spread over ("" is the built-in standard class).
TAX_CLASSES = ("Reduced rate", "Zero rate")
TAX_CLASS_SLUGS = ("standard", "reduced-rate", "zero-rate")
ORDER_STATUSES = ("on-hold", "processing")
ADDRESS = {
    "first_name": "Ann",
    "last_name": "Martin",
    "address_1": "1 Rue de Rivoli",
    "city": "Paris",
    "postcode": "75001",
    "country": "FR",
}


@dataclass
class Seeded:
    """What the payloads refer to: category ids and simple products to sell."""

    categories: list[int]
    products: list[int]


def seed(engine: sa.Engine) -> Seeded:
    """Categories and 20 simple products with plenty of stock (the orders' line items)."""
    with engine.begin() as conn:
        factory = CatalogFactory(conn)
        categories = [factory.category(f"Bench category {n}") for n in range(6)]
        products = [
            factory.product(
                f"Sellable {n}",
                sku=f"SELL-{n}",
                regular_price=f"{5 + n}.50",
                manage_stock=True,
                stock_quantity=10_000_000,
            )
            for n in range(20)
        ]
    return Seeded(categories, products)


# --- the payloads (``n`` is unique over the whole run: fresh SKUs, names, values)


def product_create(seeded: Seeded, n: int) -> dict[str, Any]:
    cats = seeded.categories
    return {
        "title": f"Bench product {n}",
        "name": f"bench-product-{n}",
        "type": "simple",
        "regular_price": f"{10 + n % 90}.99",
        "sku": f"BENCH-{n}",
        "categories": [cats[n % len(cats)], cats[(n + 1) % len(cats)]],
        "managing_stock": True,
        "stock_quantity": 100 + n % 50,
        "backorders": False,
        "meta_data": [{"key": "bench_origin", "value": f"run {n}"}],
        "description": f"A benchmark product, number {n}.",
    }


def product_edit(record: dict[str, Any], index: int, n: int) -> dict[str, Any]:
    """Price and stock; half the elements find their product by id, half by SKU."""
    change: dict[str, Any] = {"regular_price": f"{20 + n % 70}.49", "stock_quantity": n % 500}
    if index % 2:
        return {"sku": record["sku"], **change}
    return {"id": record["id"], **change}


def order_create(seeded: Seeded, n: int) -> dict[str, Any]:
    products = seeded.products
    return {
        "status": "pending",
        "billing_address": {**ADDRESS, "email": f"buyer{n}@example.com", "phone": "+33 1 00 00"},
        "shipping_address": ADDRESS,
        "payment_details": {"method_id": "bacs", "method_title": "Bank", "paid": False},
        "line_items": [
            {"product_id": products[n % len(products)], "quantity": 1 + n % 3},
            {"product_id": products[(n + 7) % len(products)], "quantity": 2},
        ],
    }


def order_edit(record: dict[str, Any], index: int, n: int) -> dict[str, Any]:
    return {
        "id": record["id"],
        "status": ORDER_STATUSES[n % 2],
        "order_meta": {"bench_edit": f"edit {n}"},
    }


def tax_create(seeded: Seeded, n: int) -> dict[str, Any]:
    return {
        "country": "FR" if n % 2 else "US",
        "state": "" if n % 2 else "CA",
        "postcode": [f"{75000 + n % 1000}", f"{69000 + n % 1000}", "13*"],
        "city": f"City {n}",
        "rate": f"{5 + n % 20}.5",
        "name": f"Bench tax {n}",
        "class": TAX_CLASS_SLUGS[n % len(TAX_CLASS_SLUGS)],
    }


def tax_edit(record: dict[str, Any], index: int, n: int) -> dict[str, Any]:
    return {"id": record["id"], "rate": f"{1 + n % 30}.25", "name": f"Bench tax edited {n}"}


@dataclass(frozen=True)
class Family:
    plural: str
    create: Callable[[Seeded, int], dict[str, Any]]
    edit: Callable[[dict[str, Any], int, int], dict[str, Any]]


FAMILY = {
    "products": Family("products", product_create, product_edit),
    "orders": Family("orders", order_create, order_edit),
    "taxes": Family("taxes", tax_create, tax_edit),
}


# --- measures


@dataclass
class Measure:
    label: str
    timings: list[float]
    trace: Trace

    @property
    def median_ms(self) -> float:
        return statistics.median(self.timings) * 1000

    @property
    def min_ms(self) -> float:
        return min(self.timings) * 1000


class Client:
    def __init__(self, app: Any, engine: sa.Engine, headers: dict[str, str]) -> None:
        self.app, self.engine, self.headers = app, engine, headers

    @classmethod
    def start(cls, url: str, media: str, key: str, secret: str, size: int) -> Client:
        """The application on ``url`` (media in ``media``, bulks of up to ``size``, EUR), sent
        to as the administrator of ``key`` and ``secret`` (bench/bulk.py, bench/writes.py)."""
        settings = {
            "sqlalchemy.url": url,
            "shopsvc.media_dir": media,
            "shopsvc.auth.allow_basic_over_http": "true",
            "shopsvc.bulk_limit": str(max(100, size)),
            "shopsvc.currency": "EUR",
        }
        app = app_main({"__file__": "bench.ini"}, **settings)
        return cls(app, app.registry.engine, {"Authorization": basic_auth(key, secret)})

    def send(self, method: str, path: str, body: dict[str, Any], status: int) -> Any:
        response: WsgiResponse = wsgi_request(
            self.app, method, PREFIX + path, None, self.headers, json.dumps(body).encode()
        )
        if response.status != status:
            raise SystemExit(f"{method} {path}: HTTP {response.status}: {response.body[:800]!r}")
        return json.loads(response.body)

    def measure(
        self, label: str, repeat: int, request: Callable[[], Any], check: Callable[[Any], None]
    ) -> Measure:
        """``request`` once to warm up, ``repeat`` timed runs, then one run whose statements
        are captured; ``check`` sees every decoded answer."""
        check(request())
        timings = []
        for _ in range(repeat):
            started = time.perf_counter()
            answer = request()
            timings.append(time.perf_counter() - started)
            check(answer)
        with capture(self.engine) as trace:
            check(request())
        return Measure(label, timings, trace)


def no_errors(plural: str, size: int) -> Callable[[Any], None]:
    def check(answer: Any) -> None:
        items = answer[plural]
        failed = [item for item in items if "error" in item]
        if len(items) != size or failed:
            raise SystemExit(f"{plural}/bulk: {len(failed)} error items, e.g. {failed[:2]}")

    return check


def measure_family(
    client: Client,
    seeded: Seeded,
    family: Family,
    size: int,
    repeat_one: int,
    repeat: int,
    counter: Iterator[int],
) -> list[Measure]:
    plural, singular = family.plural, SINGULAR[family.plural]

    def one() -> Any:
        return client.send(
            "POST", f"/{plural}", {singular: family.create(seeded, next(counter))}, 201
        )

    def creates() -> Any:
        elements = [family.create(seeded, next(counter)) for _ in range(size)]
        return client.send("POST", f"/{plural}/bulk", {plural: elements}, 200)

    measures = [client.measure("one create (POST)", repeat_one, one, lambda answer: None)]
    targets: list[dict[str, Any]] = []

    def keep(answer: Any) -> None:
        no_errors(plural, size)(answer)
        if not targets:
            targets.extend(answer[plural])

    measures.append(client.measure(f"bulk of {size} creates", repeat, creates, keep))

    def edits() -> Any:
        n = next(counter)
        elements = [family.edit(record, index, n) for index, record in enumerate(targets)]
        return client.send("PUT", f"/{plural}/bulk", {plural: elements}, 200)

    measures.append(client.measure(f"bulk of {size} edits", repeat, edits, no_errors(plural, size)))
    return measures


def print_family(plural: str, measures: list[Measure]) -> None:
    one = measures[0].median_ms
    print(f"{plural}:")
    print(
        f"  {'':<22} {'median ms':>9} {'min ms':>8} {'× one':>7} {'target':>6} {'holds':>5} "
        f"{'stmts':>8} {'runs':>4}"
    )
    for index, m in enumerate(measures):
        if index:
            ratio = m.median_ms / one
            verdict = (f"{ratio:>6.1f}x", f"≤{TARGET:g}x", "yes" if ratio <= TARGET else "NO")
        else:
            verdict = ("", "", "")
        print(
            f"  {m.label:<22} {m.median_ms:>9.1f} {m.min_ms:>8.1f} {verdict[0]:>7} "
            f"{verdict[1]:>6} {verdict[2]:>5} {m.trace.counted:>8} {len(m.timings):>4}"
        )
    unseen = sum(m.trace.unseen or 0 for m in measures)
    if unseen:
        print(f"  WARNING: {unseen} statement(s) ran on SQLite outside SQLAlchemy's events")


def run_families(
    client: Client,
    seeded: Seeded,
    families: list[str],
    size: int,
    repeat_one: int,
    repeat: int,
    counter: Iterator[int],
) -> None:
    """The tax classes the rates are spread over (those the database lacks), then each family
    of ``families`` measured and printed (bench/bulk.py, bench/writes.py ``--bulk``)."""
    with client.engine.connect() as conn:
        existing = set(conn.execute(sa.select(tax_classes.c.name)).scalars())
    for name in TAX_CLASSES:
        if name not in existing:
            client.send("POST", "/taxes/classes", {"tax_class": {"name": name}}, 201)
    for plural in families:
        measures = measure_family(client, seeded, FAMILY[plural], size, repeat_one, repeat, counter)
        print_family(plural, measures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument(
        "--families", default=",".join(FAMILIES), help="comma separated: products,orders,taxes"
    )
    parser.add_argument("--size", type=int, default=100, help="elements per bulk")
    parser.add_argument("--repeat", type=int, default=7, help="timed bulks of each kind")
    parser.add_argument("--repeat-one", type=int, default=30, help="timed single creates")
    args = parser.parse_args(argv)
    families = [part.strip() for part in args.families.split(",") if part.strip()]
    unknown = [name for name in families if name not in FAMILY]
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    with scratch_database(args.database_url) as url, tempfile.TemporaryDirectory() as media:
        engine, seeded, key, secret = seeded_engine(url, seed)
        engine.dispose()
        client = Client.start(url, media, key, secret, args.size)
        app_engine = client.engine
        print(
            f"{app_engine.dialect.name}: one create median of {args.repeat_one}, bulks of "
            f"{args.size} median of {args.repeat}, each after a warm-up; stmts = statements "
            f"of one captured run (in brackets: transaction control); {load_average()}"
        )
        counter = itertools.count(1)
        run_families(client, seeded, families, args.size, args.repeat_one, args.repeat, counter)
        print(f"after the runs: {load_average()}")
        app_engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
