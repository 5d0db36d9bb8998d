"""Writers lock rows in one global order (issue 24, item 3; ``docs/sql.md`` "Lock order"): two
orders listing the same two products in opposite orders, moved to processing at once, both
succeed — no deadlock, no 503 ``shop_api_busy``. Both databases.

Each request goes through its own ``TestApp`` (its own database connection) from its own thread.
To make the interleaving certain, each request's first lock of products (an order edit's plan
locks every product its stock moves may write, ``sql.order_lookups.products_with_families``; a
refund's first stock move) is followed by a rendezvous (``AfterFirst``): both requests would hold
a product before either takes its next one. With the products locked one by one in line order,
that is a deadlock on PostgreSQL (one request gets 503); with the products locked up front in id
order, the second request waits for the first one's lock before its first move, and the first
goes on alone after ``WINDOW``. SQLite
serialises writers (``BEGIN IMMEDIATE``) and must give the same outcome.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql import order_lookups
from shopsvc.sql.tables import products
from shopsvc.writers import order_refunds
from tests.helpers.api import Credentials, authorised
from tests.helpers.order_writes import URL, create, product, stock_of
from tests.helpers.sql import one_row
from tests.helpers.threads import together

#: How long the first request at the rendezvous waits for the second (seconds; under the
#: database's lock timeout of 5 s, above PostgreSQL's deadlock_timeout of 1 s).
WINDOW = 2.0


def total_sales(engine: sa.Engine, product_id: int) -> int:
    return int(one_row(engine, products, product_id)["total_sales"])


class AfterFirst:
    """Wraps a function so that, in each of two threads, its first call is followed by a wait
    for the other thread's first call (at most ``WINDOW``); counts how many met."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.barrier = threading.Barrier(2, timeout=WINDOW)
        self.seen: set[int] = set()
        self.met = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self.function(*args, **kwargs)
        if threading.get_ident() not in self.seen:
            self.seen.add(threading.get_ident())
            try:
                self.barrier.wait()
                self.met += 1
            except threading.BrokenBarrierError:
                pass
        return result


def test_two_orders_with_the_same_products_in_opposite_orders_do_not_deadlock(
    app: TestApp, admin: Credentials, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One order goes from pending to processing (its stock is reduced), the other from
    on-hold to cancelled (its stock is restored): the two status changes share no
    ``order_counts`` row, so only the products' locks are in question."""
    first, second = authorised(app, admin), authorised(app, admin)
    mug = product(engine, "Mug", "10", manage_stock=True, stock_quantity=10)
    cup = product(engine, "Cup", "5", manage_stock=True, stock_quantity=10)
    one = create(
        first,
        line_items=[{"product_id": mug, "quantity": 1}, {"product_id": cup, "quantity": 2}],
    )
    other = create(
        second,
        status="on-hold",
        line_items=[{"product_id": cup, "quantity": 3}, {"product_id": mug, "quantity": 4}],
    )
    assert (stock_of(engine, mug), stock_of(engine, cup)) == (6, 7)
    meeting = AfterFirst(order_lookups.products_with_families)
    monkeypatch.setattr(order_lookups, "products_with_families", meeting)

    def put(client: TestApp, order_id: int, status: str) -> Callable[[], Any]:
        body = {"order": {"status": status}}
        return lambda: client.put_json(f"{URL}/{order_id}", body, status="*")

    answers = together(put(first, one["id"], "processing"), put(second, other["id"], "cancelled"))

    assert [a.status_int for a in answers] == [200, 200], [a.json for a in answers]
    assert [a.json["order"]["status"] for a in answers] == ["processing", "cancelled"]
    assert meeting.met == 0  # the second request never held a product the first one wanted
    assert (stock_of(engine, mug), stock_of(engine, cup)) == (9, 8)
    assert (total_sales(engine, mug), total_sales(engine, cup)) == (5, 5)


def test_two_refunds_restocking_the_same_products_in_opposite_orders_do_not_deadlock(
    app: TestApp, admin: Credentials, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = authorised(app, admin), authorised(app, admin)
    mug = product(engine, "Mug", "10", manage_stock=True, stock_quantity=10)
    cup = product(engine, "Cup", "5", manage_stock=True, stock_quantity=10)
    one = create(
        first,
        status="processing",
        line_items=[{"product_id": mug, "quantity": 1}, {"product_id": cup, "quantity": 2}],
    )
    other = create(
        second,
        status="processing",
        line_items=[{"product_id": cup, "quantity": 3}, {"product_id": mug, "quantity": 4}],
    )
    meeting = AfterFirst(order_refunds.move_stock)
    monkeypatch.setattr(order_refunds, "move_stock", meeting)

    def refund(client: TestApp, order: dict[str, Any]) -> Callable[[], Any]:
        lines = {str(item["id"]): {"qty": item["quantity"]} for item in order["line_items"]}
        body = {"amount": "1", "line_items": lines, "restock_items": True}
        return lambda: client.post_json(
            f"{URL}/{order['id']}/refunds", {"order_refund": body}, status="*"
        )

    answers = together(refund(first, one), refund(second, other))

    assert [a.status_int for a in answers] == [201, 201], [a.json for a in answers]
    assert meeting.met == 0
    assert [
        one_row(engine, products, mug)["stock_quantity"],
        one_row(engine, products, cup)["stock_quantity"],
    ] == [10, 10]
