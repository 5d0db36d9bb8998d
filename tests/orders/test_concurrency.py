"""Two requests on the same order at once (issue 8): two payments of a pending order reduce the
stock once, two refunds never refund more than the order's total — on both databases.

Each request goes through its own ``TestApp`` (its own database connection) on one app, from its
own thread; a ``threading.Barrier`` starts them together. PostgreSQL runs them truly at the same
time, so the order row is locked (``SELECT … FOR UPDATE``) before an edit or a refund reads the
order's state; SQLite serialises writers (``BEGIN IMMEDIATE``) and must give the same outcome.

To make the race certain rather than likely, the step that follows the read (an edit's plan,
which decides on the payment from the order it read; a refund row) is held at a rendezvous
(``Rendezvous``) until both requests reach it or ``WINDOW`` runs out: without the lock both
requests would get there having read the same state; with it the second is still waiting for the
lock, so the first goes on alone after ``WINDOW``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql import order_refund_writes as order_refund_writes_sql
from shopsvc.sql.tables import order_notes, order_refunds, products
from shopsvc.writers.order_batch import OrderBatch
from tests.helpers.api import Credentials, authorised
from tests.helpers.order_writes import URL, create, edit, order_row, product
from tests.helpers.sql import one_row, select_all
from tests.helpers.threads import together

#: How long the first request at the rendezvous waits for the second (seconds).
WINDOW = 0.5
PAYMENT = {"method_id": "bacs", "method_title": "Direct Bank Transfer", "paid": True}


class Rendezvous:
    """Wraps a function so that its first two callers wait for each other (at most ``WINDOW``)
    before running it; counts how many met."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.barrier = threading.Barrier(2, timeout=WINDOW)
        self.met = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            self.barrier.wait()
            self.met += 1
        except threading.BrokenBarrierError:
            pass
        return self.function(*args, **kwargs)


@pytest.fixture
def clients(app: TestApp, admin: Credentials) -> Iterator[tuple[TestApp, TestApp]]:
    """Two callers of the same app, each with its own requests (and database connections)."""
    yield authorised(app, admin), authorised(app, admin)


@pytest.fixture
def mug(engine: sa.Engine) -> int:
    """A stock-managed product: 10 in stock at 10.00."""
    return product(engine, "Mug", "10", manage_stock=True, stock_quantity=10)


def _status_notes(engine: sa.Engine, order_id: int) -> list[str]:
    rows = select_all(engine, order_notes)
    assert {row["order_id"] for row in rows} <= {order_id}
    return [row["note"] for row in rows if "Order status changed" in row["note"]]


def test_two_payments_reduce_stock_once(
    clients: tuple[TestApp, TestApp],
    engine: sa.Engine,
    mug: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = clients
    order = create(first, line_items=[{"product_id": mug, "quantity": 3}])
    assert (order["status"], order["total"]) == ("pending", "30.00")
    meeting = Rendezvous(OrderBatch.plan)
    monkeypatch.setattr(OrderBatch, "plan", lambda batch, element: meeting(batch, element))
    url = f"{URL}/{order['id']}"

    def pay(client: TestApp) -> Callable[[], Any]:
        return lambda: client.put_json(url, {"order": {"payment_details": PAYMENT}}, status="*")

    answers = together(pay(first), pay(second))

    assert [answer.status_int for answer in answers] == [200, 200], [a.json for a in answers]
    assert [answer.json["order"]["status"] for answer in answers] == ["processing"] * 2
    assert meeting.met == 0  # the second payment never saw a pending order
    row = one_row(engine, products, mug)
    assert (row["stock_quantity"], row["total_sales"]) == (7, 3)
    assert _status_notes(engine, order["id"]) == [
        "Order status changed from Pending payment to Processing."
    ]
    stored = order_row(engine, order["id"])
    assert (stored["status"], stored["stock_reduced"], stored["sales_recorded"]) == (
        "processing",
        True,
        True,
    )


def test_two_refunds_never_exceed_the_total(
    clients: tuple[TestApp, TestApp],
    engine: sa.Engine,
    mug: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = clients
    order = create(first, line_items=[{"product_id": mug, "quantity": 3}])
    order = edit(first, order["id"], payment_details=PAYMENT)
    assert (order["status"], order["total"]) == ("processing", "30.00")
    meeting = Rendezvous(order_refund_writes_sql.insert_refund)
    monkeypatch.setattr(order_refund_writes_sql, "insert_refund", meeting)
    url = f"{URL}/{order['id']}/refunds"

    def refund(client: TestApp) -> Callable[[], Any]:
        return lambda: client.post_json(url, {"order_refund": {"amount": "20.00"}}, status="*")

    answers = together(refund(first), refund(second))

    assert sorted(answer.status_int for answer in answers) == [201, 400], [a.json for a in answers]
    [created] = [answer for answer in answers if answer.status_int == 201]
    [refused] = [answer for answer in answers if answer.status_int == 400]
    assert created.json["order_refund"]["amount"] == "20.00"
    assert refused.json == {
        "errors": [{"code": "shop_api_invalid_order_refund", "message": "Invalid refund amount."}]
    }
    assert meeting.met == 0
    rows = select_all(engine, order_refunds)
    assert [(row["order_id"], Decimal(row["amount"])) for row in rows] == [(order["id"], 20)]
    assert order_row(engine, order["id"])["status"] == "processing"  # 10.00 is left
    assert _status_notes(engine, order["id"]) == [
        "Order status changed from Pending payment to Processing."
    ]


def test_two_refunds_of_the_whole_remainder_refund_once(
    clients: tuple[TestApp, TestApp],
    engine: sa.Engine,
    mug: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two edits to ``refunded`` at once: one refund of the remainder, one status note."""
    first, second = clients
    order = create(first, line_items=[{"product_id": mug, "quantity": 3}])
    order = edit(first, order["id"], payment_details=PAYMENT)
    meeting = Rendezvous(order_refund_writes_sql.insert_refund)
    monkeypatch.setattr(order_refund_writes_sql, "insert_refund", meeting)
    url = f"{URL}/{order['id']}"

    def refund_all(client: TestApp) -> Callable[[], Any]:
        return lambda: client.put_json(url, {"order": {"status": "refunded"}}, status="*")

    answers = together(refund_all(first), refund_all(second))

    assert [answer.status_int for answer in answers] == [200, 200], [a.json for a in answers]
    assert meeting.met == 0
    rows = select_all(engine, order_refunds)
    assert [(Decimal(row["amount"]), row["reason"]) for row in rows] == [
        (30, "Order fully refunded")
    ]
    assert _status_notes(engine, order["id"]) == [
        "Order status changed from Pending payment to Processing.",
        "Order status changed from Processing to Refunded.",
    ]
