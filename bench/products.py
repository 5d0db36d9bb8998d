"""Benchmark of the product list against its floor: ``GET /products?filter[limit]=10|100|1000``.

Seeds N variable products (featured image and gallery, two categories, a tag, a shipping class, a
global and a custom attribute, a download, two reviews, and two variations each with an image,
attribute values and a download) into a scratch database. Then, for each page size, the request
is timed through the WSGI application (median of ``--repeat``) side by side with its floor (see
``bench/floor.py``: the request's own statements replayed on a raw DBAPI connection and fetched,
plus ``orjson.dumps`` of its body), and the ratio is printed next to goal 1's target (issue 10:
within 2x on PostgreSQL, 3x on SQLite), with the statements the request ran. The statement count
must not grow with the page size.

    python bench/products.py                      # SQLite in a temporary file
    python bench/products.py --database-url postgresql://postgres@127.0.0.1:5432/postgres

With a PostgreSQL URL a scratch database ``shopsvc_bench_<random>`` is created on that server and
dropped afterwards.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import admin_key, analyze, basic_auth, load_average, scratch_database  # noqa: E402
from bench.floor import compare_pages, print_comparisons  # noqa: E402
from shopsvc import main as app_main  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402
from shopsvc.testing.catalog import CatalogFactory  # noqa: E402

API = "/shop-api/v3/products"


def seed(engine: sa.Engine, count: int) -> None:
    with engine.begin() as conn:
        factory = CatalogFactory(conn)
        categories = [factory.category(f"Category {n}") for n in range(20)]
        tags = [factory.tag(f"Tag {n}") for n in range(10)]
        shipping = factory.shipping_class("Standard parcel")
        color = factory.attribute("Color", order_by="name")
        colors = {
            slug: factory.attribute_term(color, slug.title(), slug)
            for slug in ("red", "green", "blue")
        }
        for n in range(count):
            product = factory.product(
                f"Product {n}",
                type="variable",
                sku=f"P-{n}",
                description=f"<p>Description of product {n}.</p>",
                short_description="<p>Short.</p>",
                image_id=factory.media(f"bench/p{n}.png", f"Product {n}", "front"),
                gallery=[factory.media(f"bench/p{n}-{g}.png") for g in range(2)],
                categories=[categories[n % 20], categories[(n + 7) % 20]],
                tags=[tags[n % 10]],
                shipping_class_id=shipping,
                weight="1.25",
                length="10",
                width="5",
                height="2",
                downloadable=True,
                downloads=[{"name": "Manual", "file": f"https://example.com/manual-{n}.pdf"}],
                attributes=[
                    {"attribute_id": color, "terms": list(colors.values()), "variation": True},
                    {"name": "Size", "options": ["S", "M", "L"], "variation": True},
                ],
            )
            for index, (slug, size) in enumerate((("red", "S"), ("blue", "M"))):
                factory.variation(
                    product,
                    {"color": slug, "size": size},
                    title=f"Product {n} - {slug}",
                    sku=f"P-{n}-{index}",
                    regular_price=str(10 + index),
                    sale_price="9" if index else None,
                    manage_stock=True,
                    stock_quantity=5,
                    image_id=factory.media(f"bench/v{n}-{index}.png"),
                    downloadable=True,
                    downloads=[{"name": "Extra", "file": f"https://example.com/x-{n}-{index}"}],
                    menu_order=index,
                )
            factory.review(product, 4)
            factory.review(product, 5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--products", type=int, default=1000, help="variable products to seed")
    parser.add_argument(
        "--repeat", type=int, default=7, help="timed requests (and floors) per page size"
    )
    parser.add_argument("--limits", default="10,100,1000", help="page sizes, comma separated")
    args = parser.parse_args(argv)
    limits = [int(part) for part in args.limits.split(",") if part.strip()]
    with scratch_database(args.database_url) as url, tempfile.TemporaryDirectory() as media:
        engine = make_engine(url)
        migrate(engine)
        started = time.perf_counter()
        seed(engine, args.products)
        analyze(engine)
        seeded = time.perf_counter() - started
        key, secret = admin_key(engine)
        engine.dispose()
        settings = {
            "sqlalchemy.url": url,
            "shopsvc.media_dir": media,
            "shopsvc.auth.allow_basic_over_http": "true",
            "shopsvc.max_page_size": str(max(limits)),
        }
        app = app_main({"__file__": "bench.ini"}, **settings)
        app_engine = app.registry.engine
        headers = {"Authorization": basic_auth(key, secret)}
        print(
            f"{app_engine.dialect.name}: {args.products} variable products, "
            f"{2 * args.products} variations seeded in {seeded:.1f} s; median of {args.repeat} "
            "timed requests and floors per page size at least (more within 2 s), alternating, "
            f"after a warm-up; {load_average()}"
        )
        results = compare_pages(app, app_engine, url, API, "products", limits, headers, args.repeat)
        print_comparisons(results)
        print(f"after the runs: {load_average()}")
        app_engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
