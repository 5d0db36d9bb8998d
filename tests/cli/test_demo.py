"""``shopsvc CONFIG seed`` on both databases: what it writes reads back through the API like what
the API writes, its order totals are what a recalculation stores, and a second run appends."""

from __future__ import annotations

import json
import pathlib
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.cli.main import main
from shopsvc.media.images import sniff
from shopsvc.settings import Settings, load_settings
from shopsvc.sql.tables import order_items, orders, products, users, utc_now, webhook_deliveries
from shopsvc.writers.context import WriteContext
from shopsvc.writers.order_batch import OrderBatch
from shopsvc.writers.orders import Client
from tests.helpers.api import ROOT
from tests.helpers.orders import kept_and_counted

PRODUCTS, CUSTOMERS, ORDERS = 12, 6, 60
#: The order's total columns a recalculation stores.
TOTALS = ("discount_total", "discount_tax", "shipping_total", "shipping_tax", "cart_tax")
TOTALS += ("total_tax", "total")


def _ini(tmp_path: pathlib.Path, database_url: str, **settings: str) -> pathlib.Path:
    path = tmp_path / "seed.ini"
    lines = [
        "[app:main]",
        "use = egg:shopsvc",
        f"sqlalchemy.url = {database_url}",
        f"shopsvc.media_dir = {tmp_path / 'media'}",
        *(f"{key} = {value}" for key, value in settings.items()),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _seed(ini: pathlib.Path, capsys: pytest.CaptureFixture[str], *options: str) -> dict[str, Any]:
    try:
        status = main([str(ini), "seed", "--no-progress", *options])
    except SystemExit as exit:
        status = int(exit.code or 0)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    [line] = captured.out.splitlines()
    return dict(json.loads(line))


def _small(ini: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    return _seed(
        ini,
        capsys,
        *("--products", str(PRODUCTS), "--customers", str(CUSTOMERS), "--orders", str(ORDERS)),
    )


def _money(value: str) -> Decimal:
    return Decimal(value)


def _all(api: TestApp, path: str, key: str, **params: str) -> list[dict[str, Any]]:
    found = api.get(f"{ROOT}{path}", params={"filter[limit]": "-1", **params}).json[key]
    return list(found)


def test_a_small_store_reads_back_through_the_api(
    engine: sa.Engine,
    database_url: str,
    api: TestApp,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    made = _small(_ini(tmp_path, database_url), capsys)
    assert made["tag"] == "s1"
    assert made["products"] == PRODUCTS
    assert made["customers"] == CUSTOMERS
    assert made["orders"] == ORDERS
    assert made["variations"] > 0 and made["refunds"] > 0 and made["order_notes"] > 0

    # products: the list and the count agree; every record is complete
    listed = _all(api, "/products", "products")
    assert len(listed) == PRODUCTS
    assert api.get(f"{ROOT}/products/count").json == {"count": PRODUCTS}
    for product in listed:
        assert product["status"] == "publish" and product["sku"]
        assert product["categories"] and product["images"][0]["id"] > 0
        assert "/seed/" in product["images"][0]["src"]  # a demo-sized run has its own files
        assert Decimal(product["price"]) > 0
    variable = [product for product in listed if product["type"] == "variable"]
    assert variable, "some products are variable"
    for product in variable:
        variations = product["variations"]
        assert 1 <= len(variations) <= 3
        prices = [Decimal(variation["price"]) for variation in variations]
        assert Decimal(product["price"]) == min(prices)
        assert product["regular_price"] == ""
        assert product["in_stock"] == any(variation["in_stock"] for variation in variations)
        chosen = {a["slug"]: set(a["options"]) for a in product["attributes"] if a["variation"]}
        for variation in variations:
            assert variation["sku"].startswith(product["sku"] + "-")
            assert variation["tax_class"] == product["tax_class"]
            assert variation["image"][0]["id"] > 0
            values = {a["slug"]: a["option"] for a in variation["attributes"]}
            assert set(values) == set(chosen)
            assert all(value for value in values.values())
            # a variation of a global attribute stores the term's slug, shown as is
            assert all(
                value in chosen[slug]
                or value.replace("-", " ") in {o.lower() for o in chosen[slug]}
                for slug, value in values.items()
            )
        # the single GET is the same record
        assert api.get(f"{ROOT}/products/{product['id']}").json["product"] == product

    # orders: every status sums to the total, totals add up
    counts = api.get(f"{ROOT}/orders/count", params={"status": "any"}).json["count"]
    assert sum(counts.values()) == ORDERS
    assert api.get(f"{ROOT}/orders/count").json == {"count": ORDERS}
    listed_orders = _all(api, "/orders", "orders")
    assert len(listed_orders) == ORDERS
    assert len({order["status"] for order in listed_orders}) >= 3
    for order in listed_orders:
        lines = order["line_items"]
        assert 1 <= len(lines) <= 5
        items = sum(_money(line["total"]) for line in lines)
        fees = sum(_money(fee["total"]) for fee in order["fee_lines"])
        shipping = sum(_money(ship["total"]) for ship in order["shipping_lines"])
        assert _money(order["total_shipping"]) == shipping
        taxes = sum(_money(line["total"]) for line in order["tax_lines"])
        assert _money(order["total_tax"]) == taxes
        assert _money(order["total_tax"]) == _money(order["cart_tax"]) + _money(
            order["shipping_tax"]
        )
        assert _money(order["total"]) == items + fees + shipping + _money(order["total_tax"])
        assert _money(order["subtotal"]) == sum(_money(line["subtotal"]) for line in lines)
        assert _money(order["total_discount"]) == _money(order["subtotal"]) - items
        assert order["shipping_methods"] and order["billing_address"]["email"]
        for line in lines:
            assert line["sku"] and line["quantity"] >= 1
        assert order["payment_details"]["paid"] == (
            order["status"] in ("processing", "completed", "refunded")
        )
    one = listed_orders[0]
    assert api.get(f"{ROOT}/orders/{one['id']}").json["order"] == one

    # notes and refunds
    refunded = [order for order in listed_orders if order["status"] == "refunded"]
    for order in listed_orders:
        refunds = api.get(f"{ROOT}/orders/{order['id']}/refunds").json["order_refunds"]
        notes = api.get(f"{ROOT}/orders/{order['id']}/notes").json["order_notes"]
        if order["status"] != "pending":
            assert any("Order status changed" in note["note"] for note in notes)
        if order in refunded:
            assert sum(_money(refund["amount"]) for refund in refunds) == _money(order["total"])
        assert sum(_money(r["amount"]) for r in refunds) <= _money(order["total"])
        for refund in refunds:
            for line in refund["line_items"]:
                assert line["quantity"] < 0 and _money(line["total"]) < 0
                assert line["refunded_item_id"] in {item["id"] for item in order["line_items"]}
    assert made["refunds"] == sum(
        len(api.get(f"{ROOT}/orders/{order['id']}/refunds").json["order_refunds"])
        for order in listed_orders
    )

    # customers: their orders by filter[customer_id]
    by_customer = Counter(order["customer_id"] for order in listed_orders if order["customer_id"])
    assert by_customer, "some orders have a registered customer"
    for customer_id, count in by_customer.items():
        found = _all(api, "/orders", "orders", **{"filter[customer_id]": str(customer_id)})
        assert len(found) == count
        assert {order["customer_id"] for order in found} == {customer_id}
        assert found[0]["customer"]["orders_count"] == count
        assert found[0]["customer"]["role"] == "customer"

    # total_sales follows the orders that recorded their sales
    sold: Counter[int] = Counter()
    for order in listed_orders:
        if order["status"] in ("processing", "completed", "on-hold", "refunded"):
            for line in order["line_items"]:
                product = api.get(f"{ROOT}/products/{line['product_id']}").json["product"]
                sold[product["parent_id"] or product["id"]] += line["quantity"]
    assert {p["id"]: p["total_sales"] for p in listed if p["total_sales"]} == dict(sold)


class _Administrator:
    """A caller holding every capability (``loaders.base.Caller``)."""

    def __init__(self, conn: sa.Connection) -> None:
        self.db = conn

    def has_permission(self, permission: str, context: Any = None) -> bool:
        return True


def _recalculated(engine: sa.Engine, settings: Settings) -> tuple[int, list[str]]:
    """Recalculate every order as an edit that sends an empty item array does (the order
    planner, ``writers.order_batch``), in a transaction rolled back; the number of orders and
    what differed from what was stored."""
    differences: list[str] = []

    def snapshot(conn: sa.Connection, order_id: int) -> dict[str, Any]:
        row = conn.execute(sa.select(orders).where(orders.c.id == order_id)).mappings().one()
        items = conn.execute(
            sa.select(order_items).where(order_items.c.order_id == order_id)
        ).mappings()
        columns = ("subtotal", "subtotal_tax", "total", "total_tax", "tax_total")
        return {
            "order": {name: Decimal(row[name]) for name in TOTALS},
            "items": sorted(
                (
                    item["item_type"],
                    item["rate_id"] or 0,
                    item["rate_code"],
                    item["name"],
                    *(Decimal(item[name]) for name in columns),
                    Decimal(item["shipping_tax_total"]),
                    json.dumps(
                        {
                            part: {k: str(Decimal(v)) for k, v in found.items()}
                            for part, found in json.loads(item["taxes"]).items()
                        },
                        sort_keys=True,
                    ),
                )
                for item in items
            ),
        }

    with engine.connect() as conn, conn.begin() as transaction:
        ids = list(conn.execute(sa.select(orders.c.id).order_by(orders.c.id)).scalars())
        ctx = WriteContext(conn=conn, settings=settings, now=utc_now())
        for order_id in ids:
            before = snapshot(conn, order_id)
            batch = OrderBatch(ctx, _Administrator(conn), Client(), lambda ids: [])
            batch.write_one({"line_items": []}, order_id)
            after = snapshot(conn, order_id)
            if before != after:
                differences.append(f"order {order_id}: stored {before} recalculated {after}")
        transaction.rollback()
    return len(ids), differences


@pytest.mark.parametrize(
    "settings",
    [{}, {"shopsvc.tax_round_at_subtotal": "true"}, {"shopsvc.shipping_tax_class": "inherit"}],
    ids=["integers", "calculate_totals", "inherit-shipping-class"],
)
def test_order_totals_are_what_a_recalculation_stores(
    engine: sa.Engine,
    database_url: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    settings: dict[str, str],
) -> None:
    """The integer arithmetic (default settings) and ``calculate_totals`` itself (other
    settings) store what an order edit's recalculation computes from the items."""
    _seed(
        _ini(tmp_path, database_url, **settings),
        capsys,
        *("--products", "8", "--customers", "4", "--orders", "80"),
    )
    shop = load_settings({"sqlalchemy.url": database_url, **settings})
    count, differences = _recalculated(engine, shop)
    assert count == 80
    assert differences == []


def test_seeding_twice_appends_without_collisions(
    engine: sa.Engine,
    database_url: str,
    api: TestApp,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ini = _ini(tmp_path, database_url)
    first = _small(ini, capsys)
    second = _small(ini, capsys)
    assert (first["tag"], second["tag"]) == ("s1", "s2")
    assert api.get(f"{ROOT}/products/count").json == {"count": 2 * PRODUCTS}
    assert api.get(f"{ROOT}/orders/count").json == {"count": 2 * ORDERS}
    with engine.connect() as conn:
        skus = list(conn.execute(sa.select(products.c.sku)).scalars())
        logins = list(conn.execute(sa.select(users.c.login)).scalars())
        emails = [e.lower() for e in conn.execute(sa.select(users.c.email)).scalars()]
        categories = conn.execute(
            sa.text("SELECT count(*) FROM terms WHERE taxonomy = 'product_cat'")
        ).scalar_one()
        rates = conn.execute(sa.text("SELECT count(*) FROM tax_rates")).scalar_one()
    assert len(skus) == len(set(skus)) == 2 * PRODUCTS + first["variations"] + second["variations"]
    assert len(logins) == len(set(logins)) and len(emails) == len(set(emails))
    assert sum(1 for login in logins if login.endswith("-s2")) == CUSTOMERS
    # the shared catalogue is found again, not made twice
    assert categories == 7 + 22
    assert rates == 10

    # orders only: they sell the products and go to the customers already there
    with engine.connect() as conn:
        before = conn.execute(sa.select(sa.func.max(orders.c.id))).scalar_one()
    third = _seed(ini, capsys, "--products", "0", "--customers", "0", "--orders", "10")
    assert (third["tag"], third["orders"], third["products"]) == ("s3", 10, 0)
    with engine.connect() as conn:
        new = list(conn.execute(sa.select(orders.c.id).where(orders.c.id > before)).scalars())
        customers = set(conn.execute(sa.select(users.c.id)).scalars())
    assert len(new) == 10
    kept, counted = kept_and_counted(engine)  # the triggers counted every order (0007)
    assert kept == counted and sum(counted.values()) == 2 * ORDERS + 10
    for order_id in new:
        order = api.get(f"{ROOT}/orders/{order_id}").json["order"]
        assert all(line["sku"] for line in order["line_items"])  # products that exist
        assert order["customer_id"] == 0 or order["customer_id"] in customers


def test_the_demo_store(
    engine: sa.Engine,
    database_url: str,
    api: TestApp,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    made = _seed(_ini(tmp_path, database_url), capsys)
    assert (made["products"], made["customers"], made["orders"]) == (20, 5, 30)
    files = list((tmp_path / "media" / "seed").glob("*.png"))
    assert len(files) == 8
    assert all(sniff(path.read_bytes()) is not None for path in files)  # PNGs the shop serves
    src = api.get(f"{ROOT}/products").json["products"][0]["images"][0]["src"]
    assert "/media/seed/product-" in src


@pytest.mark.usefixtures("no_ping")
def test_seeding_fires_no_webhook(
    engine: sa.Engine,
    database_url: str,
    api: TestApp,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The demo data is written as rows, not through the API's writers: active webhooks on
    every topic it touches get no delivery (docs/cli.md "Demo data")."""
    topics = ("order.created", "product.created", "customer.created", "action.shop_new_customer")
    for topic in topics:
        hook = {"name": topic, "topic": topic, "delivery_url": "http://127.0.0.1:9/hook"}
        assert api.post_json(f"{ROOT}/webhooks", {"webhook": hook}, status=201)
    with engine.connect() as conn:
        before = conn.execute(sa.select(sa.func.count()).select_from(webhook_deliveries)).scalar()
    made = _small(_ini(tmp_path, database_url), capsys)
    assert (made["products"], made["customers"], made["orders"]) == (PRODUCTS, CUSTOMERS, ORDERS)
    with engine.connect() as conn:
        after = conn.execute(sa.select(sa.func.count()).select_from(webhook_deliveries)).scalar()
    assert after == before
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": len(topics)}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--orders", "-1"], "--orders must not be negative"),
        (["--products", "0", "--orders", "3"], "no published product"),
    ],
)
def test_what_seed_refuses(
    engine: sa.Engine,
    database_url: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str,
) -> None:
    assert main([str(_ini(tmp_path, database_url)), "seed", "--no-progress", *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    with engine.connect() as conn:  # refused before writing anything
        assert conn.execute(sa.select(sa.func.count()).select_from(users)).scalar_one() == 0


def test_several_processes_on_postgresql(
    engine: sa.Engine,
    database_url: str,
    api: TestApp,
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A large run on PostgreSQL makes and writes its batches in several processes (here with
    small batches): the same records, the same totals."""
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite writes from one process")
    from shopsvc.cli.demo import run as seed

    for name, size in (("CUSTOMER_BATCH", 3), ("PRODUCT_BATCH", 5), ("ORDER_BATCH", 20)):
        monkeypatch.setattr(seed, name, size)
    shop = load_settings({"sqlalchemy.url": database_url, "shopsvc.media_dir": str(tmp_path)})
    options = seed.SeedOptions(products=20, customers=12, orders=80, progress=False, jobs=2)
    made = seed.run(engine, shop, options)
    assert (made["products"], made["customers"], made["orders"]) == (20, 12, 80)
    assert api.get(f"{ROOT}/products/count").json == {"count": 20}
    assert (
        sum(api.get(f"{ROOT}/orders/count", params={"status": "any"}).json["count"].values()) == 80
    )
    with engine.connect() as conn:
        ids = list(conn.execute(sa.select(orders.c.id, orders.c.created_at).order_by(orders.c.id)))
    kept, counted = kept_and_counted(engine)  # several processes' batches counted (0007)
    assert kept == counted and sum(counted.values()) == 80
    # order ids are handed out batch after batch: they grow with created_at
    assert [created for _, created in ids] == sorted(created for _, created in ids)
    count, differences = _recalculated(engine, shop)
    assert (count, differences) == (80, [])
