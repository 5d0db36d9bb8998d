"""The floor of a request, and the service measured against it side by side.

The floor of a request is what any implementation has to spend to answer it: the same SQL
statements the request ran (captured with SQLAlchemy's ``before_cursor_execute`` event during
one request: statement text and parameters, with the transactions' commits and rollbacks)
replayed on a raw DBAPI connection of the same database and fetched
(``cursor.execute(sql, params); cursor.fetchall()``; on psycopg with PostgreSQL's ``$n``
placeholders on a ``RawCursor``, as the service runs its hot statements), plus serialising
the same response body with the fastest JSON encoder available (``orjson.dumps`` of the
decoded body).

Beside the floor, the least a service written in Python spends beyond it: the response's
objects (its dicts and lists: a page of 1000 products is some 45 000 of them holding 230 000
values) built and freed by Python with no rule applied, timed as a recursive copy of the
decoded body that shares its leaves (:func:`rebuilt`). ``floor + objects`` is the time of a
service that did nothing in Python but build its body; its ratio to the floor (``best``) is
where goal 1's ratios cannot go below while records are built as Python objects.

The service is timed through the real WSGI application (every tween, authentication included),
called directly (``bench.common.wsgi_request``). Service and floor runs alternate, so that a
neighbour's load on the machine weighs on both alike; each figure is a median.
"""

from __future__ import annotations

import sqlite3
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import psycopg
import sqlalchemy as sa

from bench.common import WsgiResponse, wsgi_request
from shopsvc.db.engine import make_engine
from shopsvc.sql.prepared import native_call

#: Statements that only frame transactions (PostgreSQL's driver sends BEGIN by itself).
CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "END")
#: Goal 1 (issue 10): a list within this many times its floor.
TARGETS = {"postgresql": 2.0, "sqlite": 3.0}


def _first_word(sql: str) -> str:
    return sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""


@dataclass
class Trace:
    """What one request sent to the database, in order: ``("sql", statement, parameters,
    executemany)``, ``("commit",)`` and ``("rollback",)``."""

    steps: list[tuple[Any, ...]] = field(default_factory=list)
    #: Statements the SQLite driver ran that SQLAlchemy's events did not see (a raw cursor):
    #: missing from the floor. ``None`` where it cannot be known (PostgreSQL).
    unseen: int | None = None

    @property
    def sql(self) -> list[str]:
        return [step[1] for step in self.steps if step[0] == "sql"]

    @property
    def statements(self) -> int:
        """Every statement sent through a cursor (SQLite's explicit BEGINs included)."""
        return len(self.sql)

    @property
    def control(self) -> int:
        """Of which transaction control (BEGIN, SAVEPOINT, …)."""
        return sum(1 for sql in self.sql if _first_word(sql) in CONTROL)

    @property
    def counted(self) -> str:
        """The benches' ``stmts`` column: every statement, then the transaction control among
        them in brackets where there is any (``14(2)``)."""
        return f"{self.statements}" + (f"({self.control})" if self.control else "")

    @property
    def queries(self) -> int:
        """Statements that are not transaction control: the same count on both databases."""
        return self.statements - self.control

    @property
    def transactions(self) -> int:
        return sum(1 for step in self.steps if step[0] in ("commit", "rollback"))


@contextmanager
def capture(engine: sa.Engine) -> Iterator[Trace]:
    """Record what ``engine``'s connections send while the block runs (one request)."""
    trace = Trace()
    traced: list[str] = []
    watched: list[sqlite3.Connection] = []

    def before(
        conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool
    ) -> None:
        if context is not None and getattr(context, "no_parameters", False):
            parameters = None
        trace.steps.append(("sql", statement, parameters, many))

    def commit(conn: Any) -> None:
        trace.steps.append(("commit",))

    def rollback(conn: Any) -> None:
        trace.steps.append(("rollback",))

    def checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        # SQLite tells every statement it runs: a cross-check of what the events saw.
        if isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.set_trace_callback(traced.append)
            watched.append(dbapi_connection)

    listeners: list[tuple[str, Callable[..., None]]] = [
        ("before_cursor_execute", before),
        ("commit", commit),
        ("rollback", rollback),
        ("checkout", checkout),
    ]
    for name, listener in listeners:
        sa.event.listen(engine, name, listener)
    try:
        yield trace
    finally:
        for name, listener in listeners:
            sa.event.remove(engine, name, listener)
        for connection in watched:
            connection.set_trace_callback(None)
    if engine.dialect.name == "sqlite":
        seen = 0
        for step in trace.steps:
            if step[0] == "sql" and _first_word(step[1]) not in CONTROL:
                seen += len(step[2]) if step[3] else 1
        ran = sum(1 for sql in traced if _first_word(sql) not in CONTROL)
        trace.unseen = max(0, ran - seen)


def replay(dbapi_connection: Any, steps: Iterable[tuple[Any, ...]]) -> None:
    """Run ``steps`` on a raw DBAPI connection, fetching every result. On psycopg a statement
    with named parameters runs as the service runs its prepared ones: with PostgreSQL's ``$n``
    placeholders on a ``RawCursor`` (no parse of the query on each execution), its short id
    lists padded as the service pads them (``sql.prepared.Native``)."""
    cursor = dbapi_connection.cursor()
    psycopg_driver = isinstance(dbapi_connection, psycopg.Connection)
    raw = psycopg.RawCursor(dbapi_connection) if psycopg_driver else None
    try:
        for step in steps:
            if step[0] == "sql":
                _, statement, parameters, many = step
                if many:
                    cursor.executemany(statement, parameters)
                elif parameters is None:
                    cursor.execute(statement)
                elif raw is not None and isinstance(parameters, dict):
                    raw.execute(*native_call(statement, parameters))
                    raw.fetchall()
                    continue
                else:
                    cursor.execute(statement, parameters)
                if cursor.description is not None:
                    cursor.fetchall()
            elif step[0] == "commit":
                dbapi_connection.commit()
            else:
                dbapi_connection.rollback()
    finally:
        cursor.close()
        if raw is not None:
            raw.close()


@contextmanager
def raw_connection(url: str) -> Iterator[Any]:
    """A driver connection to ``url`` configured as the service's are (``make_engine``)."""
    engine = make_engine(url)
    pooled = engine.raw_connection()
    try:
        yield pooled.driver_connection
    finally:
        pooled.close()
        engine.dispose()


@dataclass
class Comparison:
    label: str
    records: int
    bytes: int
    trace: Trace
    service_ms: float
    service_min_ms: float
    sql_ms: float
    json_ms: float
    floor_ms: float
    #: :func:`rebuilt` of the decoded body, median: the objects' own cost (see the module)
    objects_ms: float
    dialect: str
    runs: int

    @property
    def ratio(self) -> float:
        return self.service_ms / self.floor_ms

    @property
    def best(self) -> float:
        """The ratio of a service that only built its body's objects in Python."""
        return (self.floor_ms + self.objects_ms) / self.floor_ms

    @property
    def target(self) -> float:
        return TARGETS.get(self.dialect, 2.0)

    @property
    def holds(self) -> bool:
        return self.ratio <= self.target


def rebuilt(value: Any) -> Any:
    """``value`` (decoded JSON) with every dict and list built anew, the leaves shared."""
    kind = type(value)
    if kind is dict:
        return {key: rebuilt(item) for key, item in value.items()}
    if kind is list:
        return [rebuilt(item) for item in value]
    return value


def compare(
    app: Callable[..., Any],
    engine: sa.Engine,
    floor_connection: Any,
    label: str,
    path: str,
    params: Mapping[str, str],
    headers: Mapping[str, str],
    repeat: int,
    count: Callable[[Any], int],
    min_seconds: float = 2.0,
) -> Comparison:
    """Time ``GET path?params`` through ``app`` against its floor, alternating, after one
    warm-up of each and one request whose statements are captured: ``repeat`` times each, and
    more (up to ten times as many) until ``min_seconds`` have passed, so that a fast request's
    median is not at the mercy of a neighbour's burst. ``count`` tells the records of the
    decoded body."""

    def request() -> WsgiResponse:
        response = wsgi_request(app, "GET", path, params, headers)
        if response.status != 200:
            raise SystemExit(f"{label}: HTTP {response.status}: {response.body[:500]!r}")
        return response

    request()  # warm-up: caches, lazy imports, last_access
    with capture(engine) as trace:
        response = request()
    document = orjson.loads(response.body)
    replay(floor_connection, trace.steps)  # warm-up of the floor's connection
    service, sql, encode, floor, objects = [], [], [], [], []
    began = time.perf_counter()
    while len(service) < repeat or (
        time.perf_counter() - began < min_seconds and len(service) < 10 * repeat
    ):
        started = time.perf_counter()
        request()
        service.append(time.perf_counter() - started)
        started = time.perf_counter()
        replay(floor_connection, trace.steps)
        replayed = time.perf_counter()
        orjson.dumps(document)
        done = time.perf_counter()
        rebuilt(document)  # built and freed
        objects.append(time.perf_counter() - done)
        sql.append(replayed - started)
        encode.append(done - replayed)
        floor.append(done - started)
    return Comparison(
        label=label,
        records=count(document),
        bytes=len(response.body),
        trace=trace,
        service_ms=statistics.median(service) * 1000,
        service_min_ms=min(service) * 1000,
        sql_ms=statistics.median(sql) * 1000,
        json_ms=statistics.median(encode) * 1000,
        floor_ms=statistics.median(floor) * 1000,
        objects_ms=statistics.median(objects) * 1000,
        dialect=engine.dialect.name,
        runs=len(service),
    )


def compare_pages(
    app: Any,
    engine: sa.Engine,
    url: str,
    path: str,
    plural: str,
    limits: Iterable[int],
    headers: Mapping[str, str],
    repeat: int,
) -> list[Comparison]:
    """:func:`compare` for the list ``path`` at each page size of ``limits``."""
    with raw_connection(url) as floor_connection:
        return [
            compare(
                app,
                engine,
                floor_connection,
                f"GET filter[limit]={limit}",
                path,
                {"filter[limit]": str(limit)},
                headers,
                repeat,
                lambda document: len(document[plural]),
            )
            for limit in limits
        ]


def print_comparisons(results: list[Comparison], title: str = "request") -> None:
    """One line per request: the service's time, the floor (SQL + JSON), the ratio against
    goal 1's target, the statements, the body size."""
    print(
        f"{title:<22} {'records':>7} {'service ms':>10} {'min ms':>8} {'floor ms':>9} "
        f"{'= SQL ms':>9} {'+ JSON ms':>9} {'ratio':>6} {'target':>6} {'holds':>5} "
        f"{'objects ms':>10} {'best':>5} "
        f"{'stmts':>5} {'bytes':>9} {'runs':>4}"
    )
    for r in results:
        print(
            f"{r.label:<22} {r.records:>7} {r.service_ms:>10.1f} {r.service_min_ms:>8.1f} "
            f"{r.floor_ms:>9.1f} {r.sql_ms:>9.1f} {r.json_ms:>9.1f} {r.ratio:>5.1f}x "
            f"{'≤' + format(r.target, 'g') + 'x':>6} {'yes' if r.holds else 'NO':>5} "
            f"{r.objects_ms:>10.1f} {r.best:>4.1f}x "
            f"{r.trace.counted:>5} {r.bytes:>9} {r.runs:>4}"
        )
    print(
        "floor = the request's captured statements replayed on a raw DBAPI connection and "
        "fetched + orjson.dumps of its body; objects = the body's dicts and lists built and freed "
        "by Python, no rule applied (a recursive copy of the decoded body), and best = "
        "(floor + objects) / floor, the least ratio of a service building its body as Python "
        "objects; stmts = every statement the request sent "
        "(in brackets: of which transaction control, e.g. SQLite's BEGIN); runs = timed "
        "requests and floors (medians)"
    )
    unseen = sum(r.trace.unseen or 0 for r in results)
    if unseen:
        print(
            f"WARNING: {unseen} statement(s) ran on SQLite outside SQLAlchemy's events: the "
            "floor and the counts above miss them"
        )
