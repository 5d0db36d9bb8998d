"""Order counts from ``order_counts`` (migration 0007) against the counts that read the orders,
on both databases.

The property test drives random order writes through HTTP -- creates at chosen moments (the
clock fixed per request, around midnight on a few days), status changes, trash and restore,
force deletes, bulk creates and edits -- then asks every count that the counters (or the
trashed-orders index) answer: the list totals (``X-Shop-Total``) and ``/orders/count`` with
and without a status, ``status=any``, ``created_at`` ranges with bounds at, around and between
midnights and in other offsets, a product's orders; each must equal the same request answered
with ``shopsvc.sql.orders.FAST_COUNTS`` off (every count reading the orders, as before 0007),
and ``order_counts`` must equal the orders counted per status and day. Then the migration (the
backfill, the downgrade), the boundaries of a range split into days, and a deadlock on the
counters answered 503 ``shop_api_busy``.
"""

from __future__ import annotations

import datetime as dt
import os
import pathlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webtest import TestApp

from shopsvc.db.engine import make_engine
from shopsvc.sql import order_counts as counts_sql
from shopsvc.sql import orders as orders_sql
from shopsvc.sql.paging import ListFilters
from shopsvc.sql.tables import order_counts, orders
from shopsvc.testing.catalog import CatalogFactory
from shopsvc.testing.databases import scratch_postgres
from tests.helpers.api import ROOT, errors
from tests.helpers.databases import POSTGRES_ENV, migration
from tests.helpers.order_writes import BULK, URL
from tests.helpers.orders import OrderFactory, kept_and_counted

FIRST_DAY = dt.date(2024, 3, 4)
DAYS = 3
#: Times of day an order is created at: midnight and the seconds around it, noon.
TIMES = (dt.time(0, 0, 0), dt.time(0, 0, 1), dt.time(12, 0, 0), dt.time(23, 59, 59))
STATUSES = orders_sql.LISTED_STATUSES
#: The ``status`` values a count is asked with (None: absent; an unknown one matches nothing).
ASKED_STATUSES = (None, "any", "completed", "pending", "trash", "completed,pending", "bogus")


@dataclass
class Clock:
    """The time the next request writes (``shopsvc.web.contexts.utc_now``)."""

    now: dt.datetime = dt.datetime(2024, 3, 4, 9)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fixed = Clock()
    monkeypatch.setattr("shopsvc.web.contexts.utc_now", lambda: fixed.now)
    return fixed


@pytest.fixture
def goods(engine: sa.Engine) -> list[int]:
    """A simple product and a variation (as its own product id), both sold."""
    catalog = CatalogFactory(engine)
    simple = catalog.product("Mug", regular_price="3")
    shirt = catalog.product("Shirt", type="variable")
    red = catalog.variation(shirt, {"color": "red"}, regular_price="5")
    return [simple, red]


def moment(day: int, time_of_day: dt.time) -> dt.datetime:
    return dt.datetime.combine(FIRST_DAY + dt.timedelta(days=day), time_of_day)


# --- the writes

MOMENTS = st.tuples(st.integers(0, DAYS - 1), st.sampled_from(TIMES))
PICK = st.integers(0, 1000)  # an order made so far, by position (modulo their number)
CREATE = st.tuples(st.just("create"), MOMENTS, st.sampled_from(STATUSES), st.integers(0, 1))
OPERATIONS = st.one_of(
    CREATE,
    st.tuples(st.just("status"), PICK, st.sampled_from(STATUSES)),
    st.tuples(st.just("trash"), PICK),
    st.tuples(st.just("delete"), PICK),
    st.tuples(
        st.just("bulk"),
        MOMENTS,
        st.lists(
            st.one_of(
                st.tuples(st.just("create"), st.sampled_from(STATUSES), st.integers(0, 1)),
                st.tuples(st.just("edit"), PICK, st.sampled_from(STATUSES)),
            ),
            min_size=1,
            max_size=4,
        ),
    ),
)


def _line(goods: list[int], which: int) -> list[dict[str, int]]:
    return [{"product_id": goods[which], "quantity": 1}]


def _ok(response: Any) -> None:
    assert response.status_int < 500, response.body[:500]


def apply(api: TestApp, clock: Clock, goods: list[int], made: list[int], step: Any) -> None:
    """One write through HTTP (orders deleted for good leave ``made``)."""
    kind = step[0]
    if kind == "create":
        _, (day, at), status, which = step
        clock.now = moment(day, at)
        order = {"status": status, "line_items": _line(goods, which)}
        response = api.post_json(URL, {"order": order}, status=201)
        made.append(response.json["order"]["id"])
        return
    if kind == "bulk":
        _, (day, at), elements = step
        clock.now = moment(day, at)
        body = []
        for element in elements:
            if element[0] == "create":
                body.append({"status": element[1], "line_items": _line(goods, element[2])})
            elif made:
                body.append({"id": made[element[1] % len(made)], "status": element[2]})
        if not body:
            return
        response = api.post_json(BULK, {"orders": body}, status="*")
        _ok(response)
        for sent, result in zip(body, response.json["orders"], strict=True):
            if "id" not in sent and result.get("id"):
                made.append(result["id"])
        return
    if not made:
        return
    order_id = made[step[1] % len(made)]
    clock.now += dt.timedelta(seconds=1)
    if kind == "status":  # restores a trashed order too
        _ok(api.put_json(f"{URL}/{order_id}", {"order": {"status": step[2]}}, status="*"))
    elif kind == "trash":
        _ok(api.delete(f"{URL}/{order_id}", status="*"))
    else:
        _ok(api.delete(f"{URL}/{order_id}", params={"force": "true"}, status="*"))
        made.remove(order_id)


# --- the counts


def _bounds() -> list[str | None]:
    """``created_at`` bounds: absent, each day's midnight (as a date, in UTC and in other
    offsets), the seconds around it, noon, fractions of a second; a day before and after."""
    found: list[str | None] = [None]
    for offset in range(-1, DAYS + 1):
        day = FIRST_DAY + dt.timedelta(days=offset)
        found += [
            day.isoformat(),
            f"{day}T00:00:00Z",
            f"{day}T00:00:01Z",
            f"{day}T23:59:59Z",
            f"{day}T23:59:59.5Z",
            f"{day}T12:00:00+00:00",
            f"{day}T01:00:00+01:00",  # midnight UTC
            f"{day}T23:00:00-01:00",  # the next midnight UTC
            f"{day}T00:00:00-05:00",
            f"{day}T02:00:00 02:00",  # an unencoded "+": midnight UTC
        ]
    return found


BOUNDS = _bounds()
QUESTIONS = st.tuples(
    st.sampled_from(ASKED_STATUSES), st.sampled_from(BOUNDS), st.sampled_from(BOUNDS)
)


def _params(status: str | None, low: str | None, high: str | None) -> dict[str, str]:
    params = {"filter[limit]": "1"}
    if status is not None:
        params["status"] = status
    if low is not None:
        params["filter[created_at_min]"] = low
    if high is not None:
        params["filter[created_at_max]"] = high
    return params


def answers(api: TestApp, goods: list[int], questions: list[Any]) -> dict[str, Any]:
    """Every count asked: the order list's total, ``/orders/count`` (one count, or one per
    status with ``status=any``), a product's orders' total."""
    found: dict[str, Any] = {}
    asked = [(None, None, None), ("any", None, None), *questions]
    for status, low, high in asked:
        params = _params(status, low, high)
        key = repr(sorted(params.items()))
        listed = api.get(URL, params=params, status=200)
        found[f"list {key}"] = listed.headers["X-Shop-Total"]
        found[f"count {key}"] = api.get(f"{URL}/count", params=params, status=200).json
    for product in goods:
        for status in (None, "completed"):
            params = _params(status, None, None)
            response = api.get(f"{ROOT}/products/{product}/orders", params=params, status=200)
            found[f"product {product} {status}"] = response.headers["X-Shop-Total"]
    return found


def check(
    api: TestApp,
    engine: sa.Engine,
    goods: list[int],
    questions: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept, counted = kept_and_counted(engine)
    assert kept == counted
    fast = answers(api, goods, questions)
    with monkeypatch.context() as patched:
        patched.setattr(orders_sql, "FAST_COUNTS", False)
        scanned = answers(api, goods, questions)
    assert fast == scanned


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(OPERATIONS, min_size=1, max_size=10),
    questions=st.lists(QUESTIONS, min_size=2, max_size=6),
)
def test_counts_equal_the_counts_of_the_orders(
    api: TestApp,
    engine: sa.Engine,
    clock: Clock,
    goods: list[int],
    monkeypatch: pytest.MonkeyPatch,
    steps: list[Any],
    questions: list[Any],
) -> None:
    """Orders accumulate from example to example (the database is emptied once per test)."""
    with engine.connect() as conn:  # the orders earlier examples left
        made = list(conn.execute(sa.select(orders.c.id).order_by(orders.c.id)).scalars())
    for step in steps:
        apply(api, clock, goods, made, step)
    check(api, engine, goods, questions, monkeypatch)


def test_every_kind_of_write_is_counted(
    api: TestApp,
    engine: sa.Engine,
    clock: Clock,
    goods: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each write once, in a fixed order, the counts checked after each one: a create at
    midnight and one a second before it, a status change, trash, restore, a bulk of creates and
    edits, a force delete, and writes straight to the table (a DBA's SQL: an insert of several
    rows, a move to another day, a delete of several)."""
    made: list[int] = []
    questions = [("completed", f"{FIRST_DAY}T00:00:00Z", f"{FIRST_DAY}T23:59:59Z")]
    questions += [(None, f"{FIRST_DAY}T00:00:01Z", None), ("any", None, f"{FIRST_DAY}")]
    steps: list[Any] = [
        ("create", (0, dt.time(0)), "completed", 0),
        ("create", (0, dt.time(23, 59, 59)), "pending", 1),
        ("status", 1, "completed"),
        ("trash", 0),
        ("status", 0, "processing"),
        ("bulk", (1, dt.time(0)), [("create", "on-hold", 0), ("edit", 0, "failed")]),
        ("delete", 1),
    ]
    for step in steps:
        apply(api, clock, goods, made, step)
        check(api, engine, goods, questions, monkeypatch)
    sql_rows = [(0, TIMES[0], "completed"), (2, TIMES[3], "trash"), (1, TIMES[2], "pending")]
    with engine.begin() as conn:
        conn.execute(
            sa.insert(orders),
            [
                {
                    "order_key": "shop_order_sql",
                    "currency": "USD",
                    "status": status,
                    "created_at": moment(day, at),
                    "updated_at": moment(day, at),
                }
                for day, at, status in sql_rows
            ],
        )
    check(api, engine, goods, questions, monkeypatch)
    with engine.begin() as conn:  # every order to another day, in one statement
        odd = orders.c.id % 2 == 1
        later = sa.case((odd, moment(2, TIMES[1])), else_=moment(1, TIMES[3]))
        conn.execute(sa.update(orders).values(created_at=later))
    check(api, engine, goods, questions, monkeypatch)
    with engine.begin() as conn:
        conn.execute(sa.delete(orders).where(orders.c.status.in_(("completed", "trash"))))
    check(api, engine, goods, questions, monkeypatch)


# --- a range as whole days and partial days

INSTANTS = [
    moment(day, at)
    for day in range(-1, DAYS + 1)
    for at in (*TIMES, dt.time(0, 0, 0, 500_000), dt.time(23, 59, 59, 999_999))
]
EDGES = st.one_of(
    st.none(),
    st.sampled_from(INSTANTS),
    st.datetimes(min_value=moment(-2, TIMES[0]), max_value=moment(DAYS + 1, TIMES[0])),
)


def _inside(split: counts_sql.Split, instant: dt.datetime) -> int:
    """In how many parts of ``split`` ``instant`` is."""
    parts = 0
    if split.days is not None:
        first, end = split.days
        day = instant.date()
        parts += (first is None or day >= first) and (end is None or day < end)
    for piece in split.pieces:
        above = piece.low is None or instant >= piece.low
        below = piece.high is None or (
            instant <= piece.high if piece.closed else instant < piece.high
        )
        parts += above and below
    return parts


@settings(max_examples=300, deadline=None)
@given(low=EDGES, high=EDGES)
def test_a_range_is_whole_days_and_at_most_two_partial_days(
    low: dt.datetime | None, high: dt.datetime | None
) -> None:
    """Every instant of ``[low, high]`` is in exactly one part, every other in none; at most
    two parts are read from the orders, and each lies within one day."""
    split = counts_sql.split(low, high)
    assert len(split.pieces) <= 2
    for piece in split.pieces:
        assert piece.low is not None and piece.high is not None
        last = piece.high if piece.closed else piece.high - dt.timedelta(microseconds=1)
        assert last.date() == piece.low.date() or last < piece.low
    for instant in [*INSTANTS, *(edge for edge in (low, high) if edge is not None)]:
        wanted = (low is None or instant >= low) and (high is None or instant <= high)
        assert _inside(split, instant) == int(wanted), instant


def test_a_range_at_the_ends_of_the_calendar() -> None:
    """No day after the last one: a range starting on it is read from the orders."""
    last = dt.datetime.combine(dt.date.max, dt.time(10))
    assert counts_sql.split(last, None) == counts_sql.Split(
        None, (counts_sql.Piece(last, None, True),)
    )
    first = dt.datetime.combine(dt.date.min, dt.time())
    assert counts_sql.split(first, None) == counts_sql.Split((dt.date.min, None), ())


def test_the_counters_answer_only_status_and_created_at() -> None:
    """Any other filter (customer, product, ``q``, ``in``, ``not_in``, ``updated_at_*``) is
    counted in the orders; paging and ordering change nothing."""
    every = orders_sql.OrderFilters()
    dated = ListFilters(created_min=dt.datetime(2024, 1, 1), page=3, offset=20, orderby="id")
    assert orders_sql.counters_answer(dated, orders_sql.OrderFilters(statuses=("completed",)))
    narrower = [
        ListFilters(ids_in=()),
        ListFilters(ids_in=(1,)),
        ListFilters(ids_not_in=(1,)),
        ListFilters(updated_min=dt.datetime(2024, 1, 1)),
        ListFilters(updated_max=dt.datetime(2024, 1, 1)),
        ListFilters(q="ann"),
    ]
    for params in narrower:
        assert not orders_sql.counters_answer(params, every), params
    assert not orders_sql.counters_answer(ListFilters(), orders_sql.OrderFilters(customer_id=3))
    assert not orders_sql.counters_answer(ListFilters(), orders_sql.OrderFilters(product_id=3))


# --- the migration


@pytest.fixture
def fresh_url(database_url: str, tmp_path: pathlib.Path) -> Iterator[str]:
    """An empty database of the kind of ``database_url``."""
    if database_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'fresh.sqlite'}"
        return
    with scratch_postgres(os.environ[POSTGRES_ENV], "shopsvc_test") as url:
        yield url


def _triggers(conn: sa.Connection) -> list[str]:
    if conn.dialect.name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
    else:
        query = (
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'orders'::regclass "
            "AND NOT tgisinternal UNION ALL "
            "SELECT proname FROM pg_proc WHERE proname LIKE 'order_counts%%'"
        )
    return sorted(conn.exec_driver_sql(query).scalars())


def test_the_migration_backfills_the_counts_and_the_downgrade_removes_them(
    fresh_url: str,
) -> None:
    engine = make_engine(fresh_url)
    try:
        with engine.begin() as conn:
            migration(conn, "upgrade", "0006")
            factory = OrderFactory(conn)
            for day, at, status in [
                (0, TIMES[0], "completed"),
                (0, TIMES[3], "completed"),
                (0, TIMES[3], "trash"),
                (1, TIMES[1], "pending"),
                (2, TIMES[2], "completed"),
            ]:
                factory.order(status=status, created_at=moment(day, at))
        with engine.begin() as conn:
            migration(conn, "upgrade", "0007")
        kept, counted = kept_and_counted(engine)
        assert kept == counted
        assert counted[("completed", FIRST_DAY)] == 2
        with engine.begin() as conn:  # the triggers count from now on
            OrderFactory(conn).order(status="failed", created_at=moment(1, TIMES[0]))
            assert _triggers(conn)
        kept, counted = kept_and_counted(engine)
        assert kept == counted and len(counted) == 5

        with engine.begin() as conn:
            migration(conn, "downgrade", "0006")
            assert _triggers(conn) == []
            assert not sa.inspect(conn).has_table("order_counts")
            names = {index["name"] for index in sa.inspect(conn).get_indexes("orders")}
            assert "ix_orders_trashed" not in names
            # orders are written as before 0007
            OrderFactory(conn).order(status="on-hold", created_at=moment(2, TIMES[0]))
        with engine.begin() as conn:
            migration(conn, "upgrade", "head")
        kept, counted = kept_and_counted(engine)
        assert kept == counted and counted[("on-hold", FIRST_DAY + dt.timedelta(2))] == 1
        if engine.dialect.name == "postgresql":  # TRUNCATE empties the counts too
            with engine.begin() as conn:
                conn.exec_driver_sql("TRUNCATE orders CASCADE")
            with engine.connect() as conn:
                assert conn.scalar(sa.select(sa.func.count()).select_from(order_counts)) == 0
    finally:
        engine.dispose()


# --- a deadlock on the counters


def test_a_deadlock_on_the_counters_is_503_busy(
    api: TestApp, engine: sa.Engine, clock: Clock, goods: list[int]
) -> None:
    """A status change (pending to completed) locks the counters of both statuses of the
    order's day, in ``(status, day)`` order; another transaction that holds the pending one and
    then asks for the completed one closes a cycle. PostgreSQL aborts the request, which
    waited first (the other transaction's ``deadlock_timeout`` is longer): 503
    ``shop_api_busy``, nothing written; SQLite serialises writers and has no such deadlock."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite runs one write transaction at a time")
    order = api.post_json(URL, {"order": {"line_items": _line(goods, 0)}}, status=201)
    order_id = order.json["order"]["id"]
    day = clock.now.date()
    other = engine.connect()
    try:
        other.begin()
        other.exec_driver_sql("SET LOCAL deadlock_timeout = '20s'")
        other.exec_driver_sql(
            f"SELECT n FROM order_counts WHERE status = 'pending' AND day = '{day}' FOR UPDATE"
        )
        found: list[Any] = []
        request = threading.Thread(
            target=lambda: found.append(
                api.put_json(f"{URL}/{order_id}", {"order": {"status": "completed"}}, status="*")
            )
        )
        request.start()
        _wait_for_a_lock_wait(engine)
        # the request has inserted (completed, day), not committed, and waits for (pending,
        # day): an upsert of (completed, day) waits for the request
        other.exec_driver_sql(
            "INSERT INTO order_counts (status, day, n) VALUES ('completed', "
            f"'{day}', 0) ON CONFLICT (status, day) DO UPDATE SET n = order_counts.n"
        )
        request.join(30)
        assert not request.is_alive()
    finally:
        other.rollback()
        other.close()
    [response] = found
    assert response.status_int == 503
    assert errors(response)[0]["code"] == "shop_api_busy"
    assert api.get(f"{URL}/{order_id}").json["order"]["status"] == "pending"
    kept, counted = kept_and_counted(engine)
    assert kept == counted


def _wait_for_a_lock_wait(engine: sa.Engine) -> None:
    """Until another session of this database waits for a lock."""
    deadline = time.monotonic() + 10
    with engine.connect() as conn:
        while time.monotonic() < deadline:
            waiting = conn.exec_driver_sql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            ).scalar_one()
            if waiting:
                return
            time.sleep(0.01)
    raise AssertionError("no request waited for a lock")
