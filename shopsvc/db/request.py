"""The one connection and transaction of a request (``request.db``), its after-commit and
on-rollback callbacks, and savepoints (the transaction tween ends the transaction)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pyramid.config import Configurator
from pyramid.request import Request
from sqlalchemy import Connection

from shopsvc.db.engine import defer_begin, make_engine
from shopsvc.db.schema import migrate

log = logging.getLogger(__name__)


def _request_db(request: Request) -> Connection:
    """The request's connection, in a transaction the transaction tween ends."""
    connection: Connection = request.registry.engine.connect()
    connection.info["write"] = request.method not in ("GET", "HEAD")
    connection.info["request_id"] = request.request_id  # for the slow statement log
    if not connection.info["write"] and connection.dialect.name == "postgresql":
        defer_begin(connection)
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
    migrated first when ``shopsvc.auto_migrate`` is on (the request's connection:
    ``ShopRequest.db``, from :func:`_request_db`)."""
    shop = config.registry.shop
    engine = make_engine(
        shop.database_url, lock_timeout=shop.db_lock_timeout, slow_sql_ms=shop.slow_sql_ms
    )
    config.registry.engine = engine
    if shop.auto_migrate:
        migrate(engine)
