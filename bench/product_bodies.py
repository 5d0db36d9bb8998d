"""The product records' exact bytes, to compare before and after a change to how they are built.

Seeds the catalogue of ``bench/products.py`` plus products of every kind and shape (a simple
product on sale, one with a future sale, an external and a grouped product, variations that
inherit or not, drafts, private and unpriced variations, custom attributes whose names and values
need sanitising and quoting) into a scratch database, then writes each response body to a file
of ``DIR``: the 1000-product page, page 3 of 100, a variable product, a variation, every odd
product, and the records without a request (``RecordContext.for_system``, as the CLI and the
webhook sender build them) under several store settings, with and without ``edit_products``.
Every timestamp is fixed (the catalogue factory's clock, sale windows far in the past or future,
the records' ``now``), so that two runs give the same bytes on the same code.

    python bench/product_bodies.py /tmp/before              # before the change
    python bench/product_bodies.py /tmp/after --compare /tmp/before
    python bench/product_bodies.py DIR --database-url postgresql://postgres@127.0.0.1:5432/postgres

``--compare`` exits 1 when a body differs (its name is printed).
"""

from __future__ import annotations

import datetime as dt
import json
import pathlib
import sys

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import api_bodies, bodies_main  # noqa: E402
from bench.products import API, seed  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402
from shopsvc.records.context import RecordContext  # noqa: E402
from shopsvc.records.products import product_records  # noqa: E402
from shopsvc.settings import Settings  # noqa: E402
from shopsvc.testing.catalog import CatalogFactory  # noqa: E402

PAST = dt.datetime(2020, 1, 1)
FUTURE = dt.datetime(2099, 1, 1)
NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
#: Store settings the records are rendered under without a request.
SETTINGS = {
    "default": Settings(),
    "odd": Settings(
        public_url="https://shop.example/x y",
        media_url="/m",
        hide_out_of_stock=True,
        calc_taxes=False,
        price_decimals=3,
        currency="EUR",
        currency_position="right_space",
        thousand_separator=".",
        decimal_separator=",",
        price_display_suffix="<b>incl</b> VAT",
        dimension_unit="in",
    ),
    "no-stock": Settings(manage_stock=False, out_of_stock_threshold=2, price_decimals=0),
}


def seed_odd(engine: sa.Engine) -> dict[str, int]:
    """Products of every kind and shape; their ids by name."""
    ids: dict[str, int] = {}
    with engine.begin() as conn:
        make = CatalogFactory(conn)
        make.clock = dt.datetime(2030, 5, 6, 7, 8, 9)
        category = make.category("Extras Ümläut")
        tag = make.tag("Odd & Tag")
        bulky = make.shipping_class("Bulky")
        size = make.attribute("Größe", order_by="menu_order")
        big = make.attribute_term(size, "Big one", "big-one", menu_order=2)
        small = make.attribute_term(size, "Small/é", "small-e", menu_order=1)
        ids["sale_simple"] = make.product(
            "On sale",
            regular_price="20.5",
            sale_price="15.125",
            sale_from=PAST,
            sale_to=FUTURE,
            categories=[category],
            tags=[tag],
            tax_class="reduced-rate",
            featured=True,
            attributes=[
                {"name": "Fancy Name!", "options": ["A | B", "C"]},
                {"attribute_id": size, "terms": [big, small], "visible": False},
            ],
            upsell_ids=[1, 2],
            cross_sell_ids=[3],
            manage_stock=True,
            stock_quantity=0,
            stock_status="onbackorder",
            backorders="notify",
            sku="ODD-1",
            purchase_note="Thanks",
            total_sales=7,
            weight="0.005",
            length="1.005",
        )
        ids["future_sale"] = make.product(
            "Future sale",
            regular_price="1234567.891",
            sale_price="1",
            sale_from=FUTURE,
            catalog_visibility="hidden",
            virtual=True,
            tax_status="shipping",
            shipping_class_id=bulky,
            sold_individually=True,
            categories=[category],
        )
        ids["external"] = make.product(
            "External",
            type="external",
            regular_price="3",
            product_url="https://x.example/a?b=c",
            button_text="Buy it",
            tax_status="none",
            reviews_allowed=False,
        )
        ids["grouped"] = make.product("Group", type="grouped", categories=[category], menu_order=3)
        ids["child_a"] = make.product(
            "Child A", parent_id=ids["grouped"], regular_price="5", menu_order=2
        )
        ids["child_b"] = make.product(
            "Child B", parent_id=ids["grouped"], regular_price="0", status="draft"
        )
        ids["child_c"] = make.product(
            "Child C",
            parent_id=ids["grouped"],
            regular_price="7",
            sale_price="6",
            image_id=make.media("a b/é.png", "T", "A"),
        )
        ids["free_group"] = make.product("Free group", type="grouped")
        make.product("Free child", parent_id=ids["free_group"], regular_price="0")
        ids["variable"] = make.product(
            "Variable odd",
            type="variable",
            sku="VODD",
            weight="2",
            length="3",
            width="4",
            height="5",
            shipping_class_id=bulky,
            manage_stock=True,
            stock_quantity=3,
            tax_class="zero",
            purchase_note="parent note",
            cross_sell_ids=[9, 8],
            image_id=make.media("odd/feature.png", "Feature", "f"),
            attributes=[
                {"attribute_id": size, "terms": [big, small], "variation": True},
                {"name": "Fancy Name!", "options": ["x y", "a&b/c", "é"], "variation": True},
                {"name": "Not variation", "options": ["q"]},
                {"name": "MixedCase", "options": ["Q"], "variation": True},
            ],
        )
        variable = ids["variable"]
        ids["inheriting_variation"] = make.variation(
            variable,
            {"größe": "big-one", "fancy-name": "a&b/c", "mixedcase": "Q"},
            regular_price="8",
            sale_price="7",
            sale_from=PAST,
        )
        ids["own_variation"] = make.variation(
            variable,
            {"größe": "small-e", "Fancy Name!": "x y"},
            sku="OWN",
            regular_price="9",
            weight="1",
            image_id=make.media("v/own.png"),
            manage_stock=True,
            stock_quantity=0,
            stock_status="outofstock",
            tax_class="",
            menu_order=-1,
        )
        ids["draft_variation"] = make.variation(
            variable, {"fancy-name": "é"}, status="draft", regular_price="1"
        )
        ids["private_variation"] = make.variation(
            variable, {}, status="private", regular_price="11", downloadable=True, virtual=True
        )
        ids["unpriced_variation"] = make.variation(variable, {"fancy-name": ""})
        ids["draft"] = make.product("Draft", status="draft", regular_price="1")
        ids["childless_variable"] = make.product("Variable without variations", type="variable")
    return ids


def system_bodies(engine: sa.Engine, ids: list[int]) -> dict[str, bytes]:
    """The records of ``ids`` without a request, under each of :data:`SETTINGS`."""
    bodies = {}
    for name, settings in SETTINGS.items():
        for capabilities in ((), ("edit_products",)):
            with engine.connect() as conn, conn.begin():
                context = RecordContext.for_system(conn, settings, capabilities, now=NOW)
                records = product_records(context, ids)
            label = f"system-{name}-{'editor' if capabilities else 'reader'}"
            bodies[label] = json.dumps(records, ensure_ascii=False).encode()
    return bodies


def bodies(url: str, products: int) -> dict[str, bytes]:
    """Every body, by name, from a freshly seeded database at ``url``."""
    engine = make_engine(url)
    migrate(engine)
    seed(engine, products)
    odd = seed_odd(engine)
    requests: list[tuple[str, str, dict[str, str]]] = [
        ("page-1000", API, {"filter[limit]": "1000"}),
        ("page-3-of-100", API, {"filter[limit]": "100", "page": "3"}),
        ("variable", f"{API}/1", {}),
        ("variation", f"{API}/2", {}),
        ("any-status", API, {"filter[limit]": "60", "filter[post_status]": "any"}),
        ("with-meta", API, {"filter[limit]": "5", "filter[meta]": "true"}),
    ]
    requests += [(name, f"{API}/{product_id}", {}) for name, product_id in odd.items()]
    found = api_bodies(engine, url, requests)
    found.update(system_bodies(engine, sorted(odd.values()) + list(range(1, 40))))
    engine.dispose()
    return found


def main(argv: list[str] | None = None) -> int:
    return bodies_main(argv, __doc__, bodies, "products", 1000)


if __name__ == "__main__":
    sys.exit(main())
