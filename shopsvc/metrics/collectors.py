"""What is read when Prometheus scrapes — the webhook outbox's backlog (one query), the database
pool's use, the key cache's hits and misses — and the count of the SQL statements a request
sends (a cursor event that adds one to its thread's running count: a request reads the count
before and after itself, so statements of other threads, such as the key cache's listener or a
deliverer, count for no request)."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from sqlalchemy import Connection, Engine, event

from shopsvc.sql import deliveries as deliveries_sql

log = logging.getLogger(__name__)

# --- the statements of a request


class _Statements(threading.local):
    """The statements this thread has sent so far (through engines :func:`count_statements`
    watches). A running count, never reset: a request takes the difference (nothing to set up
    and tear down per request)."""

    sent = 0


STATEMENTS = _Statements()


def _count_statement(
    _conn: Connection, _cursor: Any, statement: str, parameters: Any, *_: Any
) -> tuple[str, Any]:
    STATEMENTS.sent += 1
    return statement, parameters


def count_statements(engine: Engine) -> None:
    """Every statement ``engine`` sends (``before_cursor_execute``: one that fails counts too)
    adds one to its thread's count. A ``retval`` listener: SQLAlchemy calls it as it is (a
    plain listener it wraps in a function of its own, a second call per statement)."""
    if not event.contains(engine, "before_cursor_execute", _count_statement):
        event.listen(engine, "before_cursor_execute", _count_statement, retval=True)


# --- read on a scrape

OUTBOX_PENDING = ("shopsvc_webhook_outbox_pending", "Pending webhook deliveries.")
OUTBOX_AGE = (
    "shopsvc_webhook_outbox_oldest_age_seconds",
    "Seconds since the longest-waiting pending delivery fell due (0: none is due).",
)


class OutboxCollector:
    """The webhook outbox: how many deliveries are pending, and for how long the one waiting
    longest has been due (0 when none is due yet: a retry waiting for its time is not late).
    One query (``sql.deliveries.backlog``); when it fails the two are left out of the scrape."""

    def __init__(
        self, engine: Engine, clock: Callable[[], dt.datetime] = deliveries_sql.now_precise
    ) -> None:
        self.engine = engine
        self.clock = clock

    def describe(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(*OUTBOX_PENDING)
        yield GaugeMetricFamily(*OUTBOX_AGE)

    def collect(self) -> Iterator[Metric]:
        try:
            with self.engine.connect() as conn:
                pending, oldest_due = deliveries_sql.backlog(conn)
        except Exception as exc:  # a scrape must answer even when the database does not
            log.warning("metrics: the outbox could not be read: %s", exc)
            return
        now = self.clock()
        age = max(0.0, (now - oldest_due).total_seconds()) if oldest_due is not None else 0.0
        yield GaugeMetricFamily(*OUTBOX_PENDING, value=pending)
        yield GaugeMetricFamily(*OUTBOX_AGE, value=age)


class PoolCollector:
    """The engine's connection pool (SQLAlchemy's ``QueuePool``: PostgreSQL and SQLite files):
    its size, the connections checked out, those opened beyond the size, and the idle ones."""

    FAMILIES = (
        ("shopsvc_db_pool_size", "Connections the pool keeps open (pool_size)."),
        ("shopsvc_db_pool_checked_out", "Connections in use."),
        ("shopsvc_db_pool_overflow", "Connections open beyond pool_size."),
        ("shopsvc_db_pool_idle", "Connections open and idle in the pool."),
    )

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def describe(self) -> Iterator[Metric]:
        for name, documentation in self.FAMILIES:
            yield GaugeMetricFamily(name, documentation)

    def collect(self) -> Iterator[Metric]:
        pool: Any = self.engine.pool
        if not all(hasattr(pool, name) for name in ("size", "checkedout", "overflow")):
            return  # another kind of pool (an in-memory SQLite database's)
        values = (pool.size(), pool.checkedout(), max(0, pool.overflow()), pool.checkedin())
        for (name, documentation), value in zip(self.FAMILIES, values, strict=True):
            yield GaugeMetricFamily(name, documentation, value=value)


class KeyCacheCollector:
    """The key cache (``auth.key_cache``, PostgreSQL): lookups answered from memory, lookups
    that read the database, and whether it is listening (it answers only then)."""

    HITS = ("shopsvc_key_cache_hits", "Key lookups answered from the cache.")
    MISSES = ("shopsvc_key_cache_misses", "Key lookups that read the database.")
    LISTENING = ("shopsvc_key_cache_listening", "1 while the cache hears of key changes.")

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def describe(self) -> Iterator[Metric]:
        yield CounterMetricFamily(*self.HITS)
        yield CounterMetricFamily(*self.MISSES)
        yield GaugeMetricFamily(*self.LISTENING)

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(*self.HITS, value=self.cache.hits)
        yield CounterMetricFamily(*self.MISSES, value=self.cache.misses)
        yield GaugeMetricFamily(*self.LISTENING, value=1 if self.cache.listening else 0)
