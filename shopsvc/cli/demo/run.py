"""A ``seed`` run from start to end: its options, the run's tag and key, the shared catalogue,
then the customers, products and orders phases, each behind a progress bar (tqdm, on stderr),
and the counts of what was made. ``shopsvc.cli.main.cmd_seed`` imports this module only when
the command runs."""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from tqdm import tqdm

from shopsvc.cli.demo.batches import Counts, run_phase
from shopsvc.cli.demo.catalogue import setup_catalogue
from shopsvc.cli.demo.customers import Customer, CustomerPhase, existing_customers
from shopsvc.cli.demo.images import image_files
from shopsvc.cli.demo.orders import OrderPhase
from shopsvc.cli.demo.products import ProductPhase, Sellable, existing_sellables
from shopsvc.cli.demo.taxes import Taxes
from shopsvc.db.engine import write_transaction
from shopsvc.settings import Settings
from shopsvc.sql import demo as sql
from shopsvc.sql.tables import metadata, utc_now

#: The demo store ``seed`` makes with no options.
DEMO_PRODUCTS = 20
DEMO_CUSTOMERS = 5
DEMO_ORDERS = 30
#: A run of at most this many products has image files of its own below ``media_dir``.
SMALL_RUN = 1000
#: What an appending run without new products (customers) sells from (to), at most.
EXISTING_LIMIT = 20_000
#: Rows of one transaction: customers, products and orders per batch.
CUSTOMER_BATCH = 2000
PRODUCT_BATCH = 500
ORDER_BATCH = 5000
SQLITE_ORDER_BATCH = 2000
#: Every table: a run writes to most of them (the gallery, the attributes and their terms, the
#: variations' values, the refunds' items, the order counts…), and a table left without
#: statistics gets plans for a table of unknown size -- the gallery once had the product list's
#: media read in full (50 ms a page of ten on the million-order database).
ANALYZED = tuple(metadata.sorted_tables)


class SeedError(Exception):
    """A run that cannot be carried out (a negative count, nothing to sell)."""


@dataclass(frozen=True)
class SeedOptions:
    """The options of ``shopsvc CONFIG seed``."""

    products: int = DEMO_PRODUCTS
    customers: int = DEMO_CUSTOMERS
    orders: int = DEMO_ORDERS
    seed_value: int = 1
    progress: bool = True
    #: processes generating and writing a large phase on PostgreSQL (None: the CPUs, at most 4)
    jobs: int | None = None


def _bar(options: SeedOptions, total: int, label: str) -> tqdm[Any]:
    """A phase's progress bar on stderr (none with ``--no-progress``)."""
    return tqdm(
        total=total,
        desc=f"{label:<9}",
        unit=f" {label}",
        unit_scale=total >= 10_000,
        file=sys.stderr,
        disable=not options.progress or total == 0,
        dynamic_ncols=True,
    )


def _run_tag(engine: Engine) -> str:
    """``s<N>`` for the first N that no SKU, slug or login carries yet."""
    with engine.connect() as conn:
        number = 1
        while sql.tag_in_use(conn, f"s{number}"):
            number += 1
    return f"s{number}"


def run(
    engine: Engine, settings: Settings, options: SeedOptions, now: dt.datetime | None = None
) -> dict[str, Any]:
    """Seed the database; what was created, and the seconds it took."""
    started = time.perf_counter()
    for name in ("products", "customers", "orders"):
        if getattr(options, name) < 0:
            raise SeedError(f"--{name} must not be negative")
    if options.jobs is not None and options.jobs < 1:
        raise SeedError("--jobs must be at least 1")
    now = now or utc_now()
    postgres = engine.dialect.name == "postgresql"
    # SQLite writes one transaction at a time: its batches are made by one thread meanwhile
    jobs = (options.jobs or min(os.cpu_count() or 1, 4)) if postgres else 1
    existing: list[Sellable] = []
    if options.orders and not options.products:  # orders only: they sell what is there
        existing = existing_sellables(engine, EXISTING_LIMIT)
        if not existing:
            raise SeedError("there is no published product with a price to sell: add --products")
    tag = _run_tag(engine)
    key = f"shopsvc-seed:{options.seed_value}:{tag}"
    catalogue = setup_catalogue(engine)
    counts = Counts()

    customers: list[Customer] = []
    if options.customers:
        phase = CustomerPhase(f"{key}:customers", tag, now, options.customers, CUSTOMER_BATCH)
        with _bar(options, options.customers, "customers") as bar:
            for made in run_phase(engine, settings, phase, bar.update, jobs):
                customers.extend(made)
        counts.customers = len(customers)

    sellables: list[Sellable] = []
    if options.products:
        files = image_files(settings, options.products <= SMALL_RUN)
        products_phase = ProductPhase(
            f"{key}:products",
            tag,
            now,
            options.products,
            catalogue,
            files,
            settings.out_of_stock_threshold,
            settings.manage_stock,
            PRODUCT_BATCH,
        )
        with _bar(options, options.products, "products") as bar:
            for made, variations, media_rows in run_phase(
                engine, settings, products_phase, bar.update, jobs
            ):
                sellables.extend(made)
                counts.variations += variations
                counts.media += media_rows
        counts.products = options.products

    if options.orders:
        dated = bool(customers)
        sellables = sellables or existing
        customers = customers or existing_customers(engine, EXISTING_LIMIT)
        taxes = Taxes(list(catalogue.rates), settings, catalogue.class_slugs)
        orders_phase = OrderPhase(
            f"{key}:orders",
            now,
            options.orders,
            sellables,
            customers,
            taxes,
            settings.currency,
            settings.prices_include_tax,
            size=ORDER_BATCH if postgres else SQLITE_ORDER_BATCH,
            dated=dated,
        )
        sold: Counter[int] = Counter()
        with _bar(options, options.orders, "orders") as bar:
            for units, made_counts in run_phase(engine, settings, orders_phase, bar.update, jobs):
                sold.update(units)
                counts.add(made_counts)
        with write_transaction(engine) as conn:
            sql.add_total_sales(conn, dict(sold))
    if postgres and options.orders + options.products >= 10_000:
        # fresh planner statistics and visibility map for what was added
        with engine.connect() as conn:
            sql.vacuum_analyze(conn.execution_options(isolation_level="AUTOCOMMIT"), ANALYZED)
    return {
        "tag": tag,
        "seed_value": options.seed_value,
        **{name: getattr(counts, name) for name in Counts.__dataclass_fields__},
        "seconds": round(time.perf_counter() - started, 1),
    }
