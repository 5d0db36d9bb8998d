"""The one connection and transaction of a request (``request.db``), its on-begin, after-commit
and on-rollback callbacks, and savepoints (the transaction tween ends the transaction)."""

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

#: Where the callbacks to run on the request's connection right after its transaction begins
#: wait (:func:`on_begin`).
ON_BEGIN = "shopsvc.on_begin"


def on_begin(request: Request, callback: Callable[[Connection], None]) -> None:
    """Run ``callback(connection)`` when the request's transaction is opened, before any other
    statement of it (the claim of an ``Idempotency-Key``: a write's first statement, taken only
    once the view has done its network I/O). What it raises is raised where ``request.db`` was
    first asked for; the transaction stays open for the transaction tween to end."""
    request.environ.setdefault(ON_BEGIN, []).append(callback)


def _request_db(request: Request) -> Connection:
    """The request's connection, in a transaction the transaction tween ends. Once opened it is
    the one connection of the request, even when an on-begin callback raised (``request.db``
    then was not kept and is asked for again)."""
    opened = request.environ.get("shopsvc.connection")
    if opened is not None:
        return opened
    connection: Connection = request.registry.engine.connect()
    connection.info["write"] = request.method not in ("GET", "HEAD")
    connection.info["request_id"] = request.request_id  # for the slow statement log
    if not connection.info["write"] and connection.dialect.name == "postgresql":
        defer_begin(connection)
    connection.begin()
    request.environ["shopsvc.connection"] = connection
    for callback in request.environ.pop(ON_BEGIN, []):
        callback(connection)
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
