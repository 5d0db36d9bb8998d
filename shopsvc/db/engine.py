"""The database engine: connections checked at checkout, a read's deferred BEGIN on PostgreSQL,
the slow statement log, and a write transaction outside a request."""

from __future__ import annotations

import functools
import logging
import re
import select
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import URL, Connection, Engine, create_engine, event, exc, make_url

from shopsvc.sql.prepared import run_bare

log = logging.getLogger(__name__)
slow_log = logging.getLogger("shopsvc.sql.slow")


#: How much of a slow statement's SQL its log line shows.
SLOW_SQL_CHARS = 500


def make_engine(
    url: str, lock_timeout: float = 5.0, slow_sql_ms: float = 0.0, **kwargs: Any
) -> Engine:
    """An engine for ``url``; SQLite gets foreign keys, WAL and a busy timeout.

    ``lock_timeout`` (seconds, ``shopsvc.db_lock_timeout``) bounds every wait for a lock: SQLite's
    busy timeout, PostgreSQL's ``lock_timeout``. A wait that runs out raises an error that
    ``shopsvc.errors.is_busy`` recognises (the API answers 503 ``shop_api_busy``).
    ``slow_sql_ms`` (``shopsvc.slow_sql_ms``; 0: off) logs the slower statements
    (:func:`log_slow_statements`)."""
    engine = _make_engine(url, lock_timeout, **kwargs)

    @event.listens_for(engine, "checkin")
    def _forget_request(_dbapi_connection: Any, record: Any) -> None:
        # What a request noted on its connection (its id for the slow statement log; ``write``,
        # which makes SQLite's BEGIN an IMMEDIATE one; ``deferred_begin``, see defer_begin) ends
        # with it: the pooled connection serves another user next (a read, the deliverer, the
        # CLI).
        record.info.pop("request_id", None)
        record.info.pop("write", None)
        record.info.pop("deferred_begin", None)

    log_slow_statements(engine, slow_sql_ms)
    return engine


def shown_url(url: str | URL) -> str:
    """A database URL for a log line or a message: its password hidden (``***``)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return "(unparseable)"


def _make_engine(url: str, lock_timeout: float, **kwargs: Any) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": lock_timeout},
            **kwargs,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            # Let SQLAlchemy, not pysqlite, issue BEGIN so that SAVEPOINTs work.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            # Temporary B-trees (a UNION's distinct rows, an IN list's subquery) in memory:
            # by default SQLite opens a file in the temporary directory for each, a dozen
            # system calls per statement (a single product's family rows: 460 µs, 40 µs here).
            cursor.execute("PRAGMA temp_store=MEMORY")
            if ":memory:" not in url:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Connection) -> None:
            # On the driver's cursor, still seen by the cursor events (the slow statement log
            # times a BEGIN IMMEDIATE waiting for the write lock; the statement counts see it).
            run_bare(conn, "BEGIN IMMEDIATE" if conn.info.get("write") else "BEGIN")

        return engine
    options = f"-c lock_timeout={max(1, round(lock_timeout * 1000))}"
    engine = create_engine(url, connect_args={"options": options}, **kwargs)
    event.listen(engine, "checkout", _check_alive)
    event.listen(engine, "checkin", _note_idle)
    event.listen(engine, "before_cursor_execute", _begin_before_writing)
    return engine


#: A statement that may write or lock: data-modifying (a ``WITH`` may hold an ``INSERT``), a
#: row lock, an advisory lock, a sequence step, a notification or setting (both take effect
#: with the transaction), a ``SAVEPOINT`` or anything not a query.
_MAY_WRITE = re.compile(
    r"\b(?:INSERT|UPDATE|DELETE|MERGE|FOR\s+(?:NO\s+KEY\s+)?(?:UPDATE|SHARE|KEY\s+SHARE)"
    r"|pg_advisory\w*|nextval|setval|pg_notify|set_config)\b",
    re.IGNORECASE,
)

_FIRST_WORD = re.compile(r"\s*(\w+)")


@functools.lru_cache(maxsize=2048)
def reads_only(statement: str) -> bool:
    """Whether ``statement`` is a query that neither writes nor locks: one that can run outside
    a transaction block with the same result."""
    first = _FIRST_WORD.match(statement)
    return (
        first is not None
        and first.group(1).upper() in ("SELECT", "WITH")
        and not _MAY_WRITE.search(statement)
    )


def defer_begin(connection: Connection) -> None:
    """A read request's connection (GET, HEAD) on PostgreSQL: its queries run without a
    transaction block until one may write (:func:`reads_only`), which then begins the
    transaction the request ends as always. At READ COMMITTED each statement reads its own
    snapshot in a transaction too, so a read sees the same rows; it is spared the ``BEGIN`` and
    ``COMMIT`` round trips (two of a single record's five). The driver is back in transaction
    mode at the connection's next checkout (:func:`_check_alive`), whoever takes it."""
    connection.connection.driver_connection.autocommit = True  # type: ignore[union-attr]
    connection.info["deferred_begin"] = True


def _begin_before_writing(conn: Connection, _cursor: Any, statement: str, *_: Any) -> None:
    if conn.info.get("deferred_begin") and not reads_only(statement):
        # psycopg sends BEGIN before this statement (the driver is idle between statements
        # in autocommit, so the switch is allowed); the request's commit or rollback ends it.
        del conn.info["deferred_begin"]
        conn.connection.driver_connection.autocommit = False  # type: ignore[union-attr]


#: A pooled PostgreSQL connection idle for longer than this (seconds) is pinged at checkout.
PING_IDLE_SECONDS = 10.0


def _note_idle(_dbapi_connection: Any, record: Any) -> None:
    record.info["idle_since"] = time.monotonic()


def _has_input(fd: int) -> bool:
    """Whether the socket ``fd`` has something to read now (no wait)."""
    return bool(select.select([fd], [], [], 0)[0])


def _check_alive(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """A pooled PostgreSQL connection handed out only when it still works (what SQLAlchemy's
    ``pool_pre_ping`` does with a round trip on every checkout, a twentieth of a single GET's
    time under load): one that the server has closed or told to go (a restart,
    ``pg_terminate_backend``, ``idle_session_timeout``: the server writes its FATAL message and
    closes the socket) has something to read while idle, which a poll of its socket sees at
    once. One idle for longer than :data:`PING_IDLE_SECONDS` (a firewall may have dropped it
    silently) is pinged as before. Raising ``DisconnectionError`` makes the pool discard it and
    check out another (a new one after a restart)."""
    if dbapi_connection.closed or _has_input(dbapi_connection.fileno()):
        raise exc.DisconnectionError("the server closed the connection")
    if dbapi_connection.autocommit:
        # Left so by a read request (:func:`defer_begin`); idle in the pool, so switchable.
        dbapi_connection.autocommit = False
    idle_since = record.info.get("idle_since")
    if idle_since is not None and time.monotonic() - idle_since > PING_IDLE_SECONDS:
        try:
            dbapi_connection.execute("SELECT 1").fetchall()
            dbapi_connection.rollback()  # the ping's own transaction
        except Exception as error:
            raise exc.DisconnectionError("the connection did not answer") from error


def log_slow_statements(engine: Engine, threshold_ms: float) -> None:
    """Log every statement of ``engine`` that runs longer than ``threshold_ms`` (0: none) on
    ``shopsvc.sql.slow`` at WARNING: its duration, the request it served (``request_id``, from
    the request's connection), the shape of its parameters (names and types, list lengths —
    never a value) and the start of its SQL."""

    if threshold_ms <= 0:
        return
    threshold = threshold_ms / 1000

    @event.listens_for(engine, "before_cursor_execute")
    def _started(
        conn: Connection, cursor: Any, sql: str, parameters: Any, context: Any, many: bool
    ) -> None:
        if context is not None:
            context.shopsvc_started = time.perf_counter()

    @event.listens_for(engine, "after_cursor_execute")
    def _finished(
        conn: Connection, cursor: Any, sql: str, parameters: Any, context: Any, many: bool
    ) -> None:
        started = getattr(context, "shopsvc_started", None)
        if started is None:
            return
        elapsed = time.perf_counter() - started
        if elapsed >= threshold and slow_log.isEnabledFor(logging.WARNING):
            _log_slow(conn, sql, parameter_shape(context, parameters, many), elapsed)


def _log_slow(conn: Connection, sql: str, shape: Any, elapsed: float) -> None:
    statement = " ".join(sql.split())
    if len(statement) > SLOW_SQL_CHARS:
        statement = statement[:SLOW_SQL_CHARS] + "…"
    duration = round(elapsed * 1000, 1)
    record = slow_log.makeRecord(
        slow_log.name,
        logging.WARNING,
        __file__,
        0,
        "slow SQL: %.1fms parameters %s: %s",
        (duration, shape, statement),
        None,
        extra={"duration_ms": duration, "parameters": shape, "statement": statement},
    )
    request_id = conn.info.get("request_id")
    if request_id is not None and getattr(record, "request_id", None) is None:
        record.request_id = request_id
    slow_log.handle(record)


def _type_name(value: Any) -> str:
    if isinstance(value, list | tuple | set | frozenset):
        return f"{type(value).__name__}[{len(value)}]"
    return "None" if value is None else type(value).__name__


def _shape(values: Any) -> Any:
    if isinstance(values, Mapping):
        return {str(name): _type_name(value) for name, value in values.items()}
    if isinstance(values, Sequence) and not isinstance(values, str | bytes):
        return [_type_name(value) for value in values]
    return _type_name(values)


def parameter_shape(context: Any, parameters: Any, executemany: bool = False) -> Any:
    """What a statement's parameters look like, without their values: ``{name: type}`` of a
    compiled statement's parameters (an ``IN`` list as ``list[n]``), the positions' types of a
    raw one; an ``executemany`` as ``{"rows": n, "row": <shape of the first>}``."""
    rows = getattr(context, "compiled_parameters", None) if context is not None else None
    if getattr(context, "compiled", None) is None or not rows:
        rows = list(parameters) if executemany else [parameters]
    if not rows or rows[0] is None:
        return {}
    first = _shape(rows[0]) or {}
    # An IN list was expanded into one parameter per element (``id_1`` → ``id_1_1``, …).
    expanded = getattr(context, "_expanded_parameters", None) or {}
    if isinstance(first, dict):
        for name, names in expanded.items():
            for element in names:
                first.pop(element, None)
            first[name] = f"list[{len(names)}]"
    return {"rows": len(rows), "row": first} if len(rows) > 1 else first


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A short transaction that writes (on SQLite it takes the write lock up front)."""
    with engine.connect() as connection:
        connection.info["write"] = True
        try:
            with connection.begin():
                yield connection
        finally:
            connection.info.pop("write", None)
