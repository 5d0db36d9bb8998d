"""The order records' exact bytes, to compare before and after a change to how they are built.

Seeds the orders of ``bench/orders.py`` (default 2000; their ``order_key`` drawn from a fixed
sequence instead of at random, so that two runs give the same bytes on the same code) into a
scratch database, then writes each response body and its headers (but ``Date`` and
``X-Request-Id``) to files of ``DIR``: the pages of 10, 100 and 1000 orders, page 3 of 100, with
``filter[dp]``, ``filter[meta]``, ``filter[all_item_meta]`` and ``filter[expand]=products,taxes``,
a single order, and the records without a request (``RecordContext.for_system``, as the CLI and
the webhook sender build them).

    python bench/order_bodies.py /tmp/before              # before the change
    python bench/order_bodies.py /tmp/after --compare /tmp/before
    python bench/order_bodies.py DIR --database-url postgresql://postgres@127.0.0.1:5432/postgres

``--compare`` exits 1 when a body differs (its name is printed).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import pathlib
import sys

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench import orders as bench_orders  # noqa: E402
from bench.common import api_bodies, bodies_main  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402
from shopsvc.records.context import RecordContext  # noqa: E402
from shopsvc.records.orders import OrderOptions, order_records  # noqa: E402
from shopsvc.settings import Settings  # noqa: E402

API = bench_orders.API
NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def fixed_order_keys() -> None:
    """``order_key`` from a fixed sequence while seeding (the writers draw it at random)."""
    numbers = itertools.count(1)
    bench_orders.rules.new_order_key = lambda: f"shop_order_{next(numbers):013d}"  # type: ignore[assignment]


def bodies(url: str, count: int) -> dict[str, bytes]:
    """Every body and header list, by name, from a freshly seeded database at ``url``."""
    fixed_order_keys()
    engine = make_engine(url)
    migrate(engine)
    bench_orders.seed(engine, count, lambda text: None)
    requests: list[tuple[str, str, dict[str, str]]] = [
        (f"page-{limit}", API, {"filter[limit]": str(limit)}) for limit in (10, 100, 1000)
    ]
    requests += [
        ("page-3-of-100", API, {"filter[limit]": "100", "page": "3"}),
        ("dp-3", API, {"filter[limit]": "100", "filter[dp]": "3"}),
        ("meta", API, {"filter[limit]": "100", "filter[meta]": "true"}),
        ("all-item-meta", API, {"filter[limit]": "100", "filter[all_item_meta]": "true"}),
        ("expand", API, {"filter[limit]": "100", "filter[expand]": "products,taxes"}),
        ("single", f"{API}/5", {}),
    ]
    found = api_bodies(engine, url, requests, with_headers=True)
    with engine.connect() as conn, conn.begin():
        context = RecordContext.for_system(conn, Settings(), ("edit_shop_orders",), now=NOW)
        records = order_records(context, list(range(1, 201)), OrderOptions(meta=True))
    found["system"] = json.dumps(records, ensure_ascii=False).encode()
    engine.dispose()
    return found


def main(argv: list[str] | None = None) -> int:
    return bodies_main(argv, __doc__, bodies, "orders", 2000)


if __name__ == "__main__":
    sys.exit(main())
