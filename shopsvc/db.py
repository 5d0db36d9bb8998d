"""The database engine, schema migrations, and the one connection + transaction per request."""

from __future__ import annotations

import logging
import pathlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from pyramid.config import Configurator
from pyramid.request import Request
from sqlalchemy import Connection, Engine, create_engine, event

log = logging.getLogger(__name__)
MIGRATIONS = str(pathlib.Path(__file__).parent / "migrations")


def make_engine(url: str, lock_timeout: float = 5.0, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite gets foreign keys, WAL and a busy timeout.

    ``lock_timeout`` (seconds, ``shopsvc.db_lock_timeout``) bounds every wait for a lock: SQLite's
    busy timeout, PostgreSQL's ``lock_timeout``. A wait that runs out raises an error that
    ``shopsvc.errors.is_busy`` recognises (the API answers 503 ``shop_api_busy``)."""
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
            if ":memory:" not in url:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("write") else "BEGIN")

        return engine
    options = f"-c lock_timeout={max(1, round(lock_timeout * 1000))}"
    return create_engine(url, pool_pre_ping=True, connect_args={"options": options}, **kwargs)


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


def _alembic_config(connection: Connection) -> AlembicConfig:
    config = AlembicConfig()
    config.set_main_option("script_location", MIGRATIONS)
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine) -> str:
    """Bring the schema to the latest migration; return the revision reached."""
    with engine.begin() as connection:
        command.upgrade(_alembic_config(connection), "head")
    return current_revision(engine) or ""


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    return ScriptDirectory(MIGRATIONS).get_current_head()


def _request_db(request: Request) -> Connection:
    """The request's connection, in a transaction the transaction tween ends."""
    connection: Connection = request.registry.engine.connect()
    connection.info["write"] = request.method not in ("GET", "HEAD")
    connection.begin()
    request.environ["shopsvc.connection"] = connection
    return connection


def _after_commit(request: Request, callback: Callable[[], None]) -> None:
    request.environ.setdefault("shopsvc.after_commit", []).append(callback)


def _on_rollback(request: Request, callback: Callable[[], None]) -> None:
    """Run ``callback`` if the request's transaction is rolled back (e.g. delete stored files)."""
    request.environ.setdefault("shopsvc.on_rollback", []).append(callback)


def _run_callbacks(callbacks: list[Callable[[], None]]) -> None:
    for callback in reversed(callbacks):
        try:
            callback()
        except Exception:
            log.exception("on-rollback callback failed")


def run_on_rollback(request: Request) -> None:
    """Undo what a rolled-back transaction cannot (e.g. delete the files it stored)."""
    _run_callbacks(request.environ.pop("shopsvc.on_rollback", []))


@contextmanager
def savepoint(request: Request) -> Iterator[None]:
    """A SAVEPOINT on the request's connection; when it is rolled back, the ``on_rollback``
    callbacks registered inside it run too and the webhook events recorded inside it are
    forgotten (bulk elements each run in one)."""
    callbacks = request.environ.setdefault("shopsvc.on_rollback", [])
    mark = len(callbacks)
    try:
        with request.db.begin_nested(), request.events.savepoint():
            yield
    except BaseException:
        undone = callbacks[mark:]
        del callbacks[mark:]
        _run_callbacks(undone)
        raise


def includeme(config: Configurator) -> None:
    """The engine (``registry.engine``, from ``registry.shop``, the parsed settings), the schema
    migrated first when ``shopsvc.auto_migrate`` is on, and the request's connection."""
    shop = config.registry.shop
    engine = make_engine(shop.database_url, lock_timeout=shop.db_lock_timeout)
    config.registry.engine = engine
    if shop.auto_migrate:
        migrate(engine)
    config.add_request_method(_request_db, "db", reify=True)
    config.add_request_method(_after_commit, "after_commit")
    config.add_request_method(_on_rollback, "on_rollback")
