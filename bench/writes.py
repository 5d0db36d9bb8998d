"""Statements and time of single writes against issue 25's targets: an order create, an order
edit that moves stock, and a variable product create; then, without a target, a simple product
create, a variable product edit and a variation edit.

Through the WSGI application in-process (``bench.common.wsgi_request``, every tween and the
authentication included), on a scratch database seeded with the products of ``bench/bulk.py``
(20 simple products with managed stock), a standard tax rate for every location, three media,
two tags and two global attributes of two terms each. The scenarios:

* **order create**: ``POST /orders`` with 5 line items (existing simple products, managed stock),
  billing and shipping addresses, payment details, a shipping line, a taxable fee and a coupon
  line; the tax rate applies (the response is checked for tax lines). Target: ≤ 15 statements.
* **order edit**: ``PUT /orders/<id>`` of a pending order of those 5 lines to ``processing``,
  which reduces the stock of its 5 stock-managed products (checked on one of them). Each timed
  edit gets a fresh pending order, created before the clock starts. Target: ≤ 12 statements.
* **variable product create**: ``POST /products`` of a variable product with 2 variations (their
  own SKU and price, one value of each attribute), 3 images, 2 categories and 2 tags (by id) and
  2 global attributes (``pa_<slug>``, existing terms, used for variations). Target: ≤ 15.
* **simple product create**: ``POST /products`` of a simple product with its price, SKU, 2
  categories and managed stock. No target.
* **variable product edit**: ``PUT /products/<id>`` of the title of a variable product made as
  above (once, before the clock starts), its two variations unchanged. No target.
* **variation edit**: ``PUT /products/<id>`` of that product's first variation, a new regular
  price each run. No target.

"Images already downloaded" means images given by the ``id`` of an existing ``media`` row (the
first is the featured image, the others the gallery): ``shopsvc.media.images`` has no store of
downloads keyed by URL — an image given by ``src`` is fetched from its host and stored before
the transaction (``prefetch_images``) and inserted as a new ``media`` row every time
(``download_image``), so a ``src`` would time the network, not the write. No ``alt`` or
``title`` is given (those update the media row, a write of their own).

Each line tells the median and minimum time of a warm loop (one warm-up, then ``--repeat``
timed requests), the statements of one captured run (``bench.floor.capture``: every statement
sent through a cursor; in brackets how many of them are transaction control, e.g. SQLite's
``BEGIN``; the target is held against the whole count) and whether the target holds (blank for
the scenarios without one).
``--show-sql`` lists the captured statements. ``--bulk`` then runs ``bench/bulk.py``'s families
(one create against bulks of ``--size`` creates and edits, within 10× one create) on the same
application; ``python bench/bulk.py`` alone gives the same figures.

    python bench/writes.py                      # SQLite in a temporary file
    python bench/writes.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/writes.py --repeat 50 --show-sql --bulk

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

from bench import bulk  # noqa: E402
from bench import orders as bench_orders  # noqa: E402
from bench.common import load_average, scratch_database, seeded_engine  # noqa: E402
from bench.floor import Trace, capture  # noqa: E402
from shopsvc.sql.tables import products  # noqa: E402
from shopsvc.testing.catalog import CatalogFactory  # noqa: E402

#: Issue 25's targets: statements of one request.
TARGETS = {"order create": 15, "order edit": 12, "variable product create": 15}
LINES = 5


@dataclass
class Seeded:
    """What the payloads refer to: ``bench/orders.py``'s sellables and tax rates, and for the
    product create media, categories, tags and two global attributes."""

    sellables: list[bench_orders.Sellable]
    categories: list[int]
    media: list[int]
    tags: list[int]
    #: each global attribute's slug and its terms' names
    attributes: list[tuple[str, list[str]]]

    def bulk(self) -> bulk.Seeded:
        """What ``bench/bulk.py``'s payloads need: categories and simple products."""
        simple = [s.product_id for s in self.sellables if s.variation_id is None]
        return bulk.Seeded(self.categories, simple[:20])


def seed(engine: sa.Engine) -> Seeded:
    """``bench/orders.py``'s tax rates (FR 10 %, a reduced class, CA) and catalogue (40 simple
    products and 10 variable ones of 3 variations, all stock-managed), 6 categories, 3 media,
    2 tags and a second global attribute (Material) beside its Color."""
    with engine.begin() as conn:
        bench_orders.seed_taxes(conn)
        sellables = bench_orders.seed_catalog(conn)
        factory = CatalogFactory(conn)
        categories = [factory.category(f"Bench category {n}") for n in range(6)]
        media = [factory.media(f"bench/image-{n}.png", f"Image {n}") for n in range(3)]
        tags = [factory.tag(f"Bench tag {n}") for n in range(2)]
        material = factory.attribute("Material", "material")
        for order, name in enumerate(("Cotton", "Linen")):
            factory.attribute_term(material, name, menu_order=order)
    attributes = [("color", ["Red", "Blue"]), ("material", ["Cotton", "Linen"])]
    return Seeded(sellables, categories, media, tags, attributes)


# --- the payloads (``n`` is unique over the whole run)


def order_create(seeded: Seeded, n: int, paid: bool) -> dict[str, Any]:
    """Three simple products and two variations picked by attribute (as ``bench/orders.py``'s
    create), a shipping line, a taxable fee and a coupon line, French addresses (taxed)."""
    simple = [s for s in seeded.sellables if s.variation_id is None]
    variable = sorted({s.product_id for s in seeded.sellables if s.variation_id is not None})
    lines: list[dict[str, Any]] = [
        {"product_id": simple[(n + k) % len(simple)].product_id, "quantity": 1 + k % 3}
        for k in range(3)
    ]
    lines += [
        {
            "product_id": variable[(n + k) % len(variable)],
            "quantity": 1,
            "variations": {"attribute_pa_color": "Blue"},
        }
        for k in range(2)
    ]
    return {
        "billing_address": {**bulk.ADDRESS, "email": f"buyer{n}@example.com", "phone": "+33 1"},
        "shipping_address": bulk.ADDRESS,
        "payment_details": {"method_id": "bacs", "method_title": "Bank", "paid": paid},
        "line_items": lines,
        "shipping_lines": [{"method_id": "flat_rate", "method_title": "Flat", "total": "7.50"}],
        "fee_lines": [{"title": "Wrapping", "total": "2.00", "taxable": True, "tax_class": ""}],
        "coupon_lines": [{"code": f"save{n % 10}", "amount": "3.00"}],
    }


def product_create(seeded: Seeded, n: int) -> dict[str, Any]:
    (colour, colours), (material, materials) = seeded.attributes
    return {
        "title": f"Bench variable {n}",
        "type": "variable",
        "sku": f"VAR-{n}",
        "categories": seeded.categories[:2],
        "tags": seeded.tags,
        "images": [{"id": media, "position": index} for index, media in enumerate(seeded.media)],
        "attributes": [
            {"name": "Color", "slug": f"pa_{colour}", "options": colours, "variation": True},
            {"name": "Material", "slug": f"pa_{material}", "options": materials, "variation": True},
        ],
        "variations": [
            {
                "sku": f"VAR-{n}-{index}",
                "regular_price": f"{10 + index}.00",
                "attributes": [
                    {"slug": f"pa_{colour}", "option": colours[index]},
                    {"slug": f"pa_{material}", "option": materials[index]},
                ],
            }
            for index in range(2)
        ],
    }


def simple_create(seeded: Seeded, n: int) -> dict[str, Any]:
    """A simple product with its price, SKU, 2 categories and managed stock."""
    return {
        "title": f"Bench simple {n}",
        "regular_price": "9.99",
        "sku": f"SIMPLE-{n}",
        "categories": seeded.categories[:2],
        "managing_stock": True,
        "stock_quantity": 5,
    }


# --- measures


@dataclass
class Scenario:
    label: str
    timings: list[float]
    trace: Trace

    @property
    def target(self) -> int | None:
        """Issue 25's bound; ``None`` for the extra scenarios it sets none for."""
        return TARGETS.get(self.label)


def measure(
    engine: sa.Engine,
    label: str,
    repeat: int,
    request: Callable[[Any], Any],
    check: Callable[[Any], None],
    prepare: Callable[[], Any] = lambda: None,
) -> Scenario:
    """``request(prepare())`` once to warm up, ``repeat`` timed runs (``prepare`` untimed), then
    one run whose statements on ``engine`` are captured; ``check`` sees every decoded answer."""
    check(request(prepare()))
    timings = []
    for _ in range(repeat):
        prepared = prepare()
        started = time.perf_counter()
        answer = request(prepared)
        timings.append(time.perf_counter() - started)
        check(answer)
    prepared = prepare()
    with capture(engine) as trace:
        answer = request(prepared)
    check(answer)
    return Scenario(label, timings, trace)


def scenarios(
    client: bulk.Client,
    checks: sa.Engine,
    seeded: Seeded,
    repeat: int,
    counter: Iterator[int],
) -> list[Scenario]:
    """The three scenarios on ``client``'s application; ``checks`` is another engine on the same
    database, for reading stock outside the captured statements."""

    def create_order(paid: bool) -> Any:
        body = {"order": order_create(seeded, next(counter), paid)}
        return client.send("POST", "/orders", body, 201)["order"]

    def stock(product_id: int) -> int:
        with checks.connect() as conn:
            query = sa.select(products.c.stock_quantity).where(products.c.id == product_id)
            return conn.execute(query).scalar_one()

    def moved(order: Any, before: int) -> None:
        first = order["line_items"][0]
        after = stock(first["product_id"])
        if order["status"] != "processing" or before - after != first["quantity"]:
            raise SystemExit(f"order: stock {before} → {after}, status {order['status']}")

    def paid_create(_: Any) -> Any:
        product_id = order_create(seeded, next(counter) + 1, True)["line_items"][0]["product_id"]
        before = stock(product_id)
        order = create_order(True)
        if order["line_items"][0]["product_id"] != product_id:
            raise SystemExit("order create: the first line is not the product expected")
        moved(order, before)
        return order

    def created(order: Any) -> None:
        if len(order["line_items"]) != LINES or not order["tax_lines"] or not order["fee_lines"]:
            raise SystemExit(f"order create: lines or taxes missing: {json.dumps(order)[:800]}")
        if not order["coupon_lines"] or order["total_tax"] in ("0.00", "0"):
            raise SystemExit(f"order create: no coupon or no tax: {json.dumps(order)[:800]}")

    def process(order: Any) -> Any:
        before = stock(order["line_items"][0]["product_id"])
        body = {"order": {"status": "processing"}}
        edited = client.send("PUT", f"/orders/{order['id']}", body, 200)["order"]
        moved(edited, before)
        return edited

    def create_product(_: Any) -> Any:
        body = {"product": product_create(seeded, next(counter))}
        return client.send("POST", "/products", body, 201)["product"]

    def variable(product: Any) -> None:
        if len(product["variations"]) != 2 or len(product["images"]) != 3:
            raise SystemExit(f"product create: {json.dumps(product)[:800]}")
        if len(product["attributes"]) != 2 or len(product["tags"]) != 2:
            raise SystemExit(f"product create: {json.dumps(product)[:800]}")

    def create_simple(_: Any) -> Any:
        body = {"product": simple_create(seeded, next(counter))}
        return client.send("POST", "/products", body, 201)["product"]

    def simple(product: Any) -> None:
        if product["type"] != "simple" or product["stock_quantity"] != 5:
            raise SystemExit(f"simple product create: {json.dumps(product)[:800]}")

    made = create_product(None)
    variation_id = made["variations"][0]["id"]

    def edit_product(_: Any) -> Any:
        body = {"product": {"title": f"Bench variable edited {next(counter)}"}}
        return client.send("PUT", f"/products/{made['id']}", body, 200)["product"]

    def edited(product: Any) -> None:
        if not product["title"].startswith("Bench variable edited "):
            raise SystemExit(f"variable product edit: {json.dumps(product)[:800]}")
        if len(product["variations"]) != 2:
            raise SystemExit(f"variable product edit: {json.dumps(product)[:800]}")

    def edit_variation(_: Any) -> Any:
        price = f"{next(counter) % 90 + 1}.00"
        body = {"product": {"regular_price": price}}
        answer = client.send("PUT", f"/products/{variation_id}", body, 200)["product"]
        if answer["regular_price"] != price:
            raise SystemExit(f"variation edit: {price} sent: {json.dumps(answer)[:800]}")
        return answer

    engine = client.engine
    return [
        measure(engine, "order create", repeat, paid_create, created),
        measure(engine, "order edit", repeat, process, lambda _: None, lambda: create_order(False)),
        measure(engine, "variable product create", repeat, create_product, variable),
        measure(engine, "simple product create", repeat, create_simple, simple),
        measure(engine, "variable product edit", repeat, edit_product, edited),
        measure(engine, "variation edit", repeat, edit_variation, lambda _: None),
    ]


def print_scenarios(results: list[Scenario], show_sql: bool) -> None:
    print(
        f"  {'':<24} {'median ms':>9} {'min ms':>8} {'stmts':>8} {'target':>6} {'holds':>5} "
        f"{'runs':>4}"
    )
    for s in results:
        if s.target is None:
            bound, holds = "", ""
        else:
            bound, holds = f"≤{s.target}", "yes" if s.trace.statements <= s.target else "NO"
        print(
            f"  {s.label:<24} {statistics.median(s.timings) * 1000:>9.1f} "
            f"{min(s.timings) * 1000:>8.1f} {s.trace.counted:>8} {bound:>6} "
            f"{holds:>5} {len(s.timings):>4}"
        )
    unseen = sum(s.trace.unseen or 0 for s in results)
    if unseen:
        print(
            f"  note: SQLite traced {unseen} statement(s) beyond SQLAlchemy's events: its trigger "
            "programs (order_counts on orders, migration 0007) are traced as statements too"
        )
    if show_sql:
        for s in results:
            print(f"{s.label}:")
            for number, sql in enumerate(s.trace.sql, 1):
                print(f"  {number:>3} {' '.join(sql.split())[:160]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--repeat", type=int, default=30, help="timed requests per scenario")
    parser.add_argument("--show-sql", action="store_true", help="list the captured statements")
    parser.add_argument("--bulk", action="store_true", help="then bench/bulk.py's families")
    parser.add_argument("--size", type=int, default=100, help="elements per bulk (--bulk)")
    parser.add_argument("--repeat-bulk", type=int, default=7, help="timed bulks (--bulk)")
    args = parser.parse_args(argv)
    with scratch_database(args.database_url) as url, tempfile.TemporaryDirectory() as media:
        engine, seeded, key, secret = seeded_engine(url, seed)
        client = bulk.Client.start(url, media, key, secret, args.size)
        app_engine = client.engine
        print(
            f"{app_engine.dialect.name}: median and min of {args.repeat} after a warm-up; "
            f"stmts = statements of one captured run (in brackets: transaction control), held "
            f"against issue 25's target; {load_average()}"
        )
        counter = itertools.count(1)
        print_scenarios(scenarios(client, engine, seeded, args.repeat, counter), args.show_sql)
        if args.bulk:
            families = list(bulk.FAMILIES)
            bulk.run_families(
                client, seeded.bulk(), families, args.size, args.repeat, args.repeat_bulk, counter
            )
        else:
            print(
                "bulks against one create (issue 25: within 10x): python bench/bulk.py, or --bulk"
            )
        print(f"after the runs: {load_average()}")
        app_engine.dispose()
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
