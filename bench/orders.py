"""Benchmark of the order list against its floor, of an order create, and of the memory the
worst page takes: ``GET /orders?filter[limit]=10|100|1000`` and ``POST /orders`` (five line items
and a shipping line).

Seeds a small catalogue (40 simple products, 10 variable ones with 3 variations each, in the
standard and a reduced tax class), three tax rates (FR 10 % standard and shipping, FR 5 %
reduced, US-CA 7.25 %), 200 customers with profiles, then N orders (default 10 000) of 1-5
line items, one shipping line, sometimes a taxable fee and a coupon, spread over the seven
statuses, with what the order writers store: line, shipping and fee taxes (``taxes`` JSON),
one tax item per rate, the order totals (computed by ``shopsvc.domain.totals``, as a
recalculation does), variation meta on the lines and a status-change note. Everything is
inserted with multi-row inserts in one transaction.

Then, for each page size, the request is timed through the WSGI application (median of
``--repeat``) side by side with its floor (see ``bench/floor.py``: the request's own statements
replayed on a raw DBAPI connection and fetched, plus ``orjson.dumps`` of its body), and the ratio
is printed next to goal 1's target (issue 10: within 2x on PostgreSQL, 3x on SQLite), with the
statements the request ran and the response size; a create is timed and its statements counted.
The statement count of a page must not grow with the page size.

Last, goal 4: a fresh Python process (this script with ``--memory-child``) builds the app on
the seeded database, serves a 10-order page, then the worst page (``filter[limit]=1000``:
1000 orders with all their children) three times; its peak resident size
(``getrusage(RUSAGE_SELF).ru_maxrss``) is printed against the 300 MB target.

    python bench/orders.py                      # SQLite in a temporary file
    python bench/orders.py --database-url postgresql://postgres@127.0.0.1:5432/postgres

With a PostgreSQL URL a scratch database ``shopsvc_bench_<random>`` is created on that server and
dropped afterwards.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import pathlib
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import (  # noqa: E402
    WsgiResponse,
    admin_key,
    analyze,
    basic_auth,
    load_average,
    scratch_database,
    wsgi_request,
)
from bench.floor import capture, compare_pages, print_comparisons  # noqa: E402
from shopsvc import main as app_main  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402
from shopsvc.domain import orders as rules  # noqa: E402
from shopsvc.domain.tax import Address, TaxRate  # noqa: E402
from shopsvc.domain.totals import (  # noqa: E402
    FeeLine,
    LineItem,
    ShippingLine,
    TotalsSettings,
    calculate_totals,
)
from shopsvc.sql.tables import (  # noqa: E402
    BILLING_FIELDS,
    SHIPPING_FIELDS,
    attributes,
    customer_profiles,
    order_item_meta,
    order_items,
    order_notes,
    orders,
    tax_classes,
    tax_rates,
    users,
)
from shopsvc.testing.catalog import CatalogFactory  # noqa: E402

API = "/shop-api/v3/orders"
BASE_TIME = dt.datetime(2024, 1, 1, 8, 0, 0)
CENT = Decimal("0.01")
REDUCED = "reduced-rate"
#: How often each status appears (the seven listed statuses, completed the most common).
STATUS_WEIGHTS = {
    "pending": 8,
    "processing": 15,
    "on-hold": 5,
    "completed": 55,
    "cancelled": 7,
    "refunded": 4,
    "failed": 6,
}
PAYMENTS = (("bacs", "Direct Bank Transfer"), ("cheque", "Check Payments"), ("paypal", "PayPal"))
#: (country, state, postcode, city) of the seeded addresses; the last one matches no rate.
PLACES = (
    ("FR", "", "75001", "Paris"),
    ("FR", "", "69002", "Lyon"),
    ("US", "CA", "94103", "San Francisco"),
    ("DE", "", "10115", "Berlin"),
)
BATCH = 1000
Row = dict[str, Any]
#: An ``order_items`` row with every column at its default (what the writers leave unset).
BLANK_ITEM: Row = {
    "name": "",
    "product_id": None,
    "variation_id": None,
    "quantity": 0,
    "tax_class": "",
    "taxable": False,
    "method_id": "",
    "subtotal": Decimal(0),
    "subtotal_tax": Decimal(0),
    "total": Decimal(0),
    "total_tax": Decimal(0),
    "taxes": "{}",
    "rate_id": None,
    "rate_code": "",
    "compound": False,
    "tax_total": Decimal(0),
    "shipping_tax_total": Decimal(0),
}


# --- seeding


@dataclass(frozen=True)
class Sellable:
    """What a line item copies of the product it sells."""

    product_id: int
    variation_id: int | None
    name: str
    price: Decimal
    tax_class: str
    meta: tuple[tuple[str, str], ...] = ()


def seed_taxes(conn: sa.Connection) -> list[TaxRate]:
    reduced = conn.execute(
        sa.insert(tax_classes).values(slug=REDUCED, name="Reduced rate").returning(tax_classes.c.id)
    ).scalar_one()
    specs = [
        ("FR", "", "10", "TVA", True, None),
        ("FR", "", "5", "TVA reduite", True, reduced),
        ("US", "CA", "7.25", "CA Tax", True, None),
    ]
    rates = []
    for order, (country, state, rate, name, shipping, class_id) in enumerate(specs):
        rate_id = conn.execute(
            sa.insert(tax_rates)
            .values(
                country=country,
                state=state,
                rate=Decimal(rate),
                name=name,
                priority=1,
                compound=False,
                shipping=shipping,
                rate_order=order,
                tax_class_id=class_id,
            )
            .returning(tax_rates.c.id)
        ).scalar_one()
        rates.append(
            TaxRate(
                id=rate_id,
                country=country,
                state=state,
                rate=Decimal(rate),
                name=name,
                priority=1,
                compound=False,
                shipping=shipping,
                order=order,
                tax_class=REDUCED if class_id else "",
            )
        )
    return rates


def seed_catalog(conn: sa.Connection) -> list[Sellable]:
    factory = CatalogFactory(conn)
    # bench/throughput.py seeds bench/products.py's catalogue first: its Color has these terms.
    color = conn.execute(sa.select(attributes.c.id).where(attributes.c.slug == "color")).scalar()
    if color is None:
        color = factory.attribute("Color")
        for slug in ("red", "green", "blue"):
            factory.attribute_term(color, slug.title(), slug)
    sellables = []
    for n in range(40):
        tax_class = REDUCED if n % 5 == 0 else ""
        price = Decimal(5 + (n * 7) % 60) + Decimal("0.99")
        product = factory.product(
            f"Simple product {n}",
            sku=f"S-{n}",
            regular_price=price,
            tax_class=tax_class,
            manage_stock=True,
            stock_quantity=1_000_000,
        )
        sellables.append(Sellable(product, None, f"Simple product {n}", price, tax_class))
    for n in range(10):
        tax_class = REDUCED if n % 4 == 0 else ""
        product = factory.product(
            f"Shirt {n}",
            type="variable",
            sku=f"V-{n}",
            tax_class=tax_class,
            attributes=[
                {"attribute_id": color, "variation": True},
                {"name": "Size", "options": ["S", "M", "L"], "variation": True},
            ],
        )
        for index, (slug, size) in enumerate((("red", "S"), ("green", "M"), ("blue", "L"))):
            title = f"Shirt {n} - {slug.title()}, {size}"
            price = Decimal(20 + n + index) + Decimal("0.50")
            variation = factory.variation(
                product,
                {"color": slug, "size": size},
                title=title,
                sku=f"V-{n}-{index}",
                regular_price=price,
                manage_stock=True,
                stock_quantity=1_000_000,
                menu_order=index,
            )
            meta = (("pa_color", slug), ("size", size))
            sellables.append(Sellable(product, variation, title, price, tax_class, meta))
    return sellables


def _address(rng: random.Random, n: int) -> dict[str, str]:
    country, state, postcode, city = PLACES[rng.randrange(len(PLACES))]
    return {
        "first_name": rng.choice(("Ann", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Giulia")),
        "last_name": rng.choice(("Martin", "Smith", "Dupont", "Rossi", "Müller", "Khan")),
        "company": "ACME" if n % 7 == 0 else "",
        "address_1": f"{1 + n % 200} Main Street",
        "address_2": "Apt 4" if n % 3 == 0 else "",
        "city": city,
        "state": state,
        "postcode": postcode,
        "country": country,
    }


def _next_id(conn: sa.Connection, table: sa.Table) -> int:
    return int(conn.execute(sa.select(sa.func.max(table.c.id))).scalar() or 0) + 1


def seed_customers(conn: sa.Connection, rng: random.Random, count: int) -> list[tuple[int, Row]]:
    """``count`` customers with a profile; ``(user id, billing address)`` of each."""
    rows, addresses = [], []
    for n in range(count):
        billing = _address(rng, n)
        billing.update(email=f"customer{n}@example.com", phone=f"+33 1 23 45 {n:04d}")
        addresses.append(billing)
        rows.append(
            {
                "login": f"customer{n}",
                "email": billing["email"],
                "first_name": billing["first_name"],
                "last_name": billing["last_name"],
                "role": "customer",
                "created_at": BASE_TIME - dt.timedelta(days=30),
                "updated_at": BASE_TIME - dt.timedelta(days=30),
            }
        )
    first = _next_id(conn, users)
    ids = list(range(first, first + count))
    conn.execute(sa.insert(users), [{**row, "id": i} for row, i in zip(rows, ids, strict=True)])
    conn.execute(
        sa.insert(customer_profiles),
        [
            {
                "user_id": user_id,
                "billing": json.dumps(billing),
                "shipping": json.dumps({k: billing[k] for k in SHIPPING_FIELDS}),
                "updated_at": BASE_TIME - dt.timedelta(days=30),
            }
            for user_id, billing in zip(ids, addresses, strict=True)
        ],
    )
    return list(zip(ids, addresses, strict=True))


def _taxes_json(total: dict[int, Decimal], subtotal: dict[int, Decimal] | None = None) -> str:
    """As ``writers/order_totals.py`` stores it."""
    data = {"total": {str(k): str(v) for k, v in total.items()}}
    data["subtotal"] = {str(k): str(v) for k, v in (subtotal or {}).items()}
    return json.dumps(data)


@dataclass
class PlannedOrder:
    row: Row
    items: list[Row]  # line items, shipping, fees, coupons, tax items, in the writer's order
    meta: list[list[tuple[str, str]]]  # per item of ``items``
    note: str | None


def plan_order(
    n: int,
    rng: random.Random,
    rates: list[TaxRate],
    sellables: list[Sellable],
    customers: list[tuple[int, Row]],
    totals_settings: TotalsSettings,
) -> PlannedOrder:
    created = BASE_TIME + dt.timedelta(minutes=50 * n + rng.randrange(40))
    status = rng.choices(list(STATUS_WEIGHTS), weights=list(STATUS_WEIGHTS.values()))[0]
    if rng.random() < 0.7:
        customer_id, billing = rng.choice(customers)
        billing = dict(billing)
    else:
        customer_id = 0
        billing = _address(rng, n)
        billing.update(email=f"guest{n}@example.org", phone="")
    shipping = {key: billing[key] for key in SHIPPING_FIELDS}
    coupon = rng.random() < 0.2
    lines: list[tuple[Sellable, int, Decimal, Decimal]] = []
    for sellable in rng.sample(sellables, rng.randint(1, 5)):
        quantity = rng.choice((1, 1, 1, 2, 3))
        subtotal = sellable.price * quantity
        total = (subtotal * Decimal("0.9")).quantize(CENT) if coupon else subtotal
        lines.append((sellable, quantity, subtotal, total))
    shipping_cost = rng.choice((Decimal("4.90"), Decimal("9.90"), Decimal("0")))
    fee = Decimal("2.50") if rng.random() < 0.25 else None

    result = calculate_totals(
        [LineItem(s, t, q, sell.tax_class, True, key=i) for i, (sell, q, s, t) in enumerate(lines)],
        [ShippingLine(shipping_cost, key="shipping")],
        [FeeLine(fee, "", True, key="fee")] if fee is not None else [],
        rates=rates,
        address=Address(billing["country"], billing["state"], billing["postcode"], billing["city"]),
        settings=totals_settings,
    )
    items: list[Row] = []
    meta: list[list[tuple[str, str]]] = []
    for (sellable, quantity, subtotal, total), line in zip(lines, result.lines, strict=True):
        items.append(
            {
                "item_type": "line_item",
                "name": sellable.name,
                "product_id": sellable.product_id,
                "variation_id": sellable.variation_id,
                "quantity": quantity,
                "tax_class": sellable.tax_class,
                "taxable": True,
                "subtotal": subtotal,
                "total": total,
                "subtotal_tax": line.subtotal_tax,
                "total_tax": line.total_tax,
                "taxes": _taxes_json(line.taxes, line.subtotal_taxes),
            }
        )
        meta.append(list(sellable.meta))
    [ship] = result.shipping_lines
    method = "free_shipping" if shipping_cost == 0 else "flat_rate"
    items.append(
        {
            "item_type": "shipping",
            "method_id": method,
            "name": "Free shipping" if shipping_cost == 0 else "Flat rate",
            "subtotal": shipping_cost,
            "total": shipping_cost,
            "total_tax": ship.total_tax,
            "taxes": _taxes_json(ship.taxes),
        }
    )
    meta.append([])
    for fee_totals in result.fees:
        items.append(
            {
                "item_type": "fee",
                "name": "Gift wrapping",
                "taxable": True,
                "subtotal": fee,
                "total": fee_totals.total,
                "total_tax": fee_totals.total_tax,
                "taxes": _taxes_json(fee_totals.taxes),
            }
        )
        meta.append([])
    if coupon:
        amount = sum((s - t for _, _, s, t in lines), Decimal(0))
        items.append({"item_type": "coupon", "name": "save10", "subtotal": amount, "total": amount})
        meta.append([])
    for tax_line in result.tax_lines:
        items.append(
            {
                "item_type": "tax",
                "name": tax_line.title,
                "rate_id": tax_line.rate_id,
                "rate_code": tax_line.code,
                "compound": tax_line.compound,
                "tax_total": tax_line.tax_total,
                "shipping_tax_total": tax_line.shipping_tax_total,
            }
        )
        meta.append([])

    method_id, method_title = PAYMENTS[n % len(PAYMENTS)]
    paid = status in ("processing", "completed", "refunded")
    row: Row = {
        "order_key": rules.new_order_key(),
        "status": status,
        "currency": "EUR",
        "prices_include_tax": False,
        "customer_id": customer_id,
        "customer_note": "Leave at the door, please." if n % 11 == 0 else "",
        "customer_ip": f"203.0.113.{n % 250}",
        "customer_user_agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0",
        "payment_method": method_id,
        "payment_method_title": method_title,
        "transaction_id": f"TX{n:08d}" if paid and method_id == "paypal" else "",
        "date_paid": created + dt.timedelta(minutes=5) if paid else None,
        "date_completed": created + dt.timedelta(days=2) if status == "completed" else None,
        **{f"billing_{key}": billing[key] for key in BILLING_FIELDS},
        **{f"shipping_{key}": shipping[key] for key in SHIPPING_FIELDS},
        "discount_total": result.total_discount,
        "discount_tax": sum(
            (line.subtotal_tax - line.total_tax for line in result.lines), Decimal(0)
        ),
        "shipping_total": result.total_shipping,
        "shipping_tax": result.shipping_tax,
        "cart_tax": result.cart_tax,
        "total_tax": result.total_tax,
        "total": result.total,
        "stock_reduced": status in ("processing", "completed", "on-hold", "refunded"),
        "sales_recorded": status in ("processing", "completed", "on-hold", "refunded"),
        "order_meta": json.dumps({"source": "web"} if n % 2 else {}),
        "created_at": created,
        "updated_at": created + dt.timedelta(days=2 if status == "completed" else 0, minutes=5),
    }
    note = None
    if status != "pending":
        note = f"Order status changed from Pending payment to {rules.LABELS[status]}."
    return PlannedOrder(row, items, meta, note)


def _advance_sequences(conn: sa.Connection, tables: list[sa.Table]) -> None:
    """After inserts with explicit ids, PostgreSQL's id sequences must move past them (SQLite's
    AUTOINCREMENT follows by itself)."""
    if conn.dialect.name != "postgresql":
        return
    for table in tables:
        conn.exec_driver_sql(
            f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
            f"(SELECT max(id) FROM {table.name}))"
        )


def seed(engine: sa.Engine, count: int, progress: Callable[[str], None]) -> dict[str, int]:
    """The catalogue, taxes, customers and ``count`` orders, in one transaction; row counts.

    Orders and items get their ids here (the children need them), so their inserts need no
    RETURNING; ``engine`` may then send them as the driver's own executemany."""
    rng = random.Random(8)
    counts = {"orders": 0, "items": 0, "meta": 0}
    totals_settings = TotalsSettings(tax_classes=(REDUCED,))
    with engine.begin() as conn:
        rates = seed_taxes(conn)
        sellables = seed_catalog(conn)
        customers = seed_customers(conn, rng, 200)
        order_id, item_id = _next_id(conn, orders), _next_id(conn, order_items)
        for start in range(0, count, BATCH):
            order_rows, item_rows, meta_rows, note_rows = [], [], [], []
            for n in range(start, min(start + BATCH, count)):
                plan = plan_order(n, rng, rates, sellables, customers, totals_settings)
                order_rows.append({**plan.row, "id": order_id})
                for item, meta in zip(plan.items, plan.meta, strict=True):
                    # Every row of one multi-row insert has the same keys: the blank item's.
                    item_rows.append({**BLANK_ITEM, **item, "id": item_id, "order_id": order_id})
                    meta_rows += [
                        {"item_id": item_id, "meta_key": key, "meta_value": value}
                        for key, value in meta
                    ]
                    item_id += 1
                if plan.note:
                    note_rows.append(
                        {
                            "order_id": order_id,
                            "note": plan.note,
                            "customer_note": False,
                            "system": True,
                            "created_at": plan.row["created_at"] + dt.timedelta(minutes=5),
                        }
                    )
                order_id += 1
            for table, rows in (
                (orders, order_rows),
                (order_items, item_rows),
                (order_item_meta, meta_rows),
                (order_notes, note_rows),
            ):
                if rows:
                    conn.execute(sa.insert(table), rows)
            counts["orders"] += len(order_rows)
            counts["items"] += len(item_rows)
            counts["meta"] += len(meta_rows)
            progress(f"  {counts['orders']} orders\r")
        _advance_sequences(conn, [users, orders, order_items])
    progress(" " * 30 + "\r")
    return counts


# --- measuring


def create_body(sellables: list[dict[str, Any]]) -> dict[str, Any]:
    """Five line items (three simple products, two variations picked by attributes), a shipping
    line, both addresses, paid (so the create also reduces stock and records sales)."""
    address = {
        "first_name": "Ann",
        "last_name": "Martin",
        "address_1": "1 Rue de Rivoli",
        "city": "Paris",
        "postcode": "75001",
        "country": "FR",
    }
    return {
        "order": {
            "billing_address": {**address, "email": "ann@example.com", "phone": "+33 1 00 00"},
            "shipping_address": address,
            "payment_details": {"method_id": "bacs", "method_title": "Bank", "paid": True},
            "line_items": sellables,
            "shipping_lines": [{"method_id": "flat_rate", "method_title": "Flat", "total": "9.90"}],
        }
    }


def measure_create(
    app: Callable[..., Any], engine: sa.Engine, headers: dict[str, str], repeat: int
) -> dict[str, Any]:
    """``POST /orders`` with five lines: median of ``repeat`` after a warm-up, then one more
    create whose statements are counted."""
    with engine.connect() as conn:
        simple = conn.execute(
            sa.text("SELECT id FROM products WHERE type = 'simple' ORDER BY id LIMIT 3")
        ).scalars()
        variable = conn.execute(
            sa.text("SELECT id FROM products WHERE type = 'variable' ORDER BY id LIMIT 2")
        ).scalars()
        lines: list[dict[str, Any]] = [{"product_id": i, "quantity": 2} for i in simple]
        lines += [
            {"product_id": i, "quantity": 1, "variations": {"attribute_pa_color": "Blue"}}
            for i in variable
        ]
    body = json.dumps(create_body(lines)).encode()

    def create() -> WsgiResponse:
        response = wsgi_request(app, "POST", API, None, headers, body)
        if response.status != 201:
            raise SystemExit(f"POST {API}: HTTP {response.status}: {response.body[:500]!r}")
        return response

    timings = []
    for attempt in range(repeat + 1):
        started = time.perf_counter()
        create()
        elapsed = time.perf_counter() - started
        if attempt:  # the first request warms caches up
            timings.append(elapsed)
    with capture(engine) as trace:
        response = create()
    order = json.loads(response.body)["order"]
    assert len(order["line_items"]) == 5 and order["tax_lines"], order
    return {
        "median_ms": statistics.median(timings) * 1000,
        "min_ms": min(timings) * 1000,
        "trace": trace,
        "bytes": len(response.body),
    }


#: Goal 4 (issue 10): the process stays under this resident size serving the worst page.
MEMORY_TARGET_MB = 300


def _rss_kb() -> int:
    """The process's resident set size now (Linux: ``/proc/self/status``), in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def memory_child() -> None:
    """In a fresh interpreter (``--memory-child``, settings on standard input): build the app,
    warm it up with a 10-order page, then request the worst page ``requests`` times; print the
    resident sizes (KiB) as one JSON line."""
    config = json.loads(sys.stdin.read())
    app = app_main({"__file__": "bench.ini"}, **config["settings"])
    headers = config["headers"]
    warm = wsgi_request(app, "GET", API, {"filter[limit]": "10"}, headers)
    assert warm.status == 200, warm.body[:500]
    del warm
    before = _rss_kb()
    peaks, size = [], 0
    for _ in range(config["requests"]):
        response = wsgi_request(app, "GET", API, {"filter[limit]": str(config["limit"])}, headers)
        assert response.status == 200, response.body[:500]
        size = len(response.body)
        del response
        peaks.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux
    after = _rss_kb()
    # Decoded only now: the check of the page must not weigh on the peaks above.
    check = wsgi_request(app, "GET", API, {"filter[limit]": str(config["limit"])}, headers)
    orders_on_page = json.loads(check.body)["orders"]
    children = sum(
        len(order[name])
        for order in orders_on_page
        for name in ("line_items", "shipping_lines", "fee_lines", "coupon_lines", "tax_lines")
    )
    app.registry.engine.dispose()
    print(
        json.dumps(
            {
                "before_kb": before,
                "peaks_kb": peaks,
                "after_kb": after,
                "bytes": size,
                "records": len(orders_on_page),
                "children": children,
            }
        )
    )


def measure_memory(
    settings: dict[str, str], headers: dict[str, str], limit: int, requests: int
) -> dict[str, Any]:
    """Run :func:`memory_child` in a fresh process on the seeded database."""
    config = {"settings": settings, "headers": headers, "limit": limit, "requests": requests}
    child = subprocess.run(
        [sys.executable, str(pathlib.Path(__file__).resolve()), "--memory-child"],
        input=json.dumps(config),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if child.returncode:
        raise SystemExit(f"memory measure failed:\n{child.stderr[-3000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def print_memory(result: dict[str, Any], limit: int) -> None:
    def mb(kib: int) -> float:
        return kib * 1024 / 1e6

    peaks = result["peaks_kb"]
    peak = mb(max(peaks))
    holds = "holds" if peak < MEMORY_TARGET_MB else "does NOT hold"
    print(
        f"memory, a fresh process serving GET filter[limit]={limit} "
        f"({result['records']} orders with {result['children']} child lines, "
        f"{result['bytes']} bytes) {len(peaks)} times through the WSGI app:"
    )
    print(
        f"  RSS before the page {mb(result['before_kb']):.1f} MB; peak RSS (ru_maxrss) "
        f"{mb(peaks[0]):.1f} MB after the first, {peak:.1f} MB after {len(peaks)}; "
        f"RSS after {mb(result['after_kb']):.1f} MB"
    )
    print(f"  peak {peak:.1f} MB — target < {MEMORY_TARGET_MB} MB (10^6 bytes): {holds}")


def progress(text: str) -> None:
    print(text, end="", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--orders", type=int, default=10_000, help="orders to seed")
    parser.add_argument(
        "--repeat", type=int, default=7, help="timed requests (and floors) per measure"
    )
    parser.add_argument("--limits", default="10,100,1000", help="page sizes, comma separated")
    parser.add_argument(
        "--memory-limit", type=int, default=1000, help="page size of the memory measure"
    )
    parser.add_argument(
        "--memory-requests", type=int, default=3, help="worst pages served in the memory measure"
    )
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child()
        return 0
    limits = [int(part) for part in args.limits.split(",") if part.strip()]
    with scratch_database(args.database_url) as url, tempfile.TemporaryDirectory() as media:
        engine = make_engine(url)
        migrate(engine)
        started = time.perf_counter()
        counts = seed(engine, args.orders, progress if sys.stdout.isatty() else lambda text: None)
        analyze(engine)
        seeded = time.perf_counter() - started
        key, secret = admin_key(engine)
        engine.dispose()
        settings = {
            "sqlalchemy.url": url,
            "shopsvc.media_dir": media,
            "shopsvc.auth.allow_basic_over_http": "true",
            "shopsvc.max_page_size": str(max([*limits, args.memory_limit])),
            "shopsvc.currency": "EUR",
        }
        headers = {"Authorization": basic_auth(key, secret)}
        app = app_main({"__file__": "bench.ini"}, **settings)
        app_engine = app.registry.engine
        print(
            f"{app_engine.dialect.name}: {counts['orders']} orders, {counts['items']} order "
            f"items, {counts['meta']} item meta seeded in {seeded:.1f} s; median of "
            f"{args.repeat} timed requests and floors per page size at least (more within 2 s), "
            f"alternating, after a warm-up; {load_average()}"
        )
        results = compare_pages(app, app_engine, url, API, "orders", limits, headers, args.repeat)
        print_comparisons(results)
        created = measure_create(app, app_engine, headers, args.repeat)
        trace = created["trace"]
        print(
            f"POST 5 lines: median {created['median_ms']:.1f} ms, min {created['min_ms']:.1f} "
            f"ms, {trace.statements} statements ({trace.control} transaction control), "
            f"{created['bytes']} bytes"
        )
        app_engine.dispose()
        print_memory(
            measure_memory(settings, headers, args.memory_limit, args.memory_requests),
            args.memory_limit,
        )
        print(f"after the runs: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
