"""The transaction tween: undecodable paths and queries answered first; the request's webhook
events queued in the outbox (and the response of a request with an ``Idempotency-Key`` stored
beside its change: ``idempotency.py``), then its transaction committed on success (a busy
database → 503 ``shop_api_busy``) or rolled back on any error, or when the claim of its key
answered for it (then the on-rollback callbacks, which delete files the request stored); the
after-commit callbacks (the webhook ping) run before the response leaves."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy.exc import DBAPIError

from shopsvc.db.request import run_on_rollback
from shopsvc.errors import ApiError, busy, invalid_param, is_busy, no_route
from shopsvc.sql import deliveries as deliveries_sql
from shopsvc.web import idempotency
from shopsvc.web.rendering import error_response

log = logging.getLogger(__name__)


def _queue_events(request: Request) -> None:
    """Put the request's events in the outbox, in its own transaction; after the commit the
    in-process deliverer (if any) is woken."""
    events = request.__dict__.get("events")
    if not events:
        return
    queued = deliveries_sql.enqueue(
        request.db, events.fired(), request.public_url, deliveries_sql.now_precise()
    )
    if queued:
        wake = getattr(request.registry, "wake_deliveries", None)
        if wake is not None:
            request.after_commit(wake)


def _finish_transaction(request: Request, success: bool) -> None:
    connection = request.environ.pop("shopsvc.connection", None)
    if connection is None:
        return
    try:
        if success:
            connection.commit()
        else:
            try:
                connection.rollback()
            except DBAPIError as exc:
                if not exc.connection_invalidated:
                    raise
                # The connection was lost (a database restart): the server ended its
                # transaction with it, and the pool has let it go.
                log.warning("rollback on a lost connection: %s", exc.orig)
    finally:
        connection.close()


def _run_after_commit(request: Request) -> None:
    for callback in request.environ.pop("shopsvc.after_commit", []):
        try:
            callback()
        except Exception:
            log.exception("after-commit callback failed")


def _undecodable(request: Request) -> ApiError | None:
    """A path or query string that is not UTF-8 (``%ff``) or holds a NUL (which PostgreSQL text
    cannot store) names no route or parameter; say so before anything else trips over it."""
    try:
        if "\x00" in request.path_info:
            return no_route()
    except UnicodeError:
        return no_route()
    try:
        pairs = list(request.GET.items())
    except UnicodeError:
        return invalid_param("query string", "not valid UTF-8")
    for key, value in pairs:
        if "\x00" in key or "\x00" in value:
            return invalid_param(key.replace("\x00", "\\0"), "must not contain NUL characters")
    return None


def transaction_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    def transaction_tween(request: Request) -> Response:
        try:
            undecodable = _undecodable(request)
            if undecodable is not None:
                response = error_response(request, undecodable)
            else:
                response = handler(request)
            success = (
                response.status_code < 400
                and getattr(request, "exception", None) is None
                and not idempotency.was_answered(request)
            )
            try:
                if success:
                    idempotency.record(request, response)
                    _queue_events(request)
                _finish_transaction(request, success)
            except DBAPIError as exc:  # the outbox or the commit could not get its lock
                if not is_busy(exc):
                    raise
                _finish_transaction(request, False)
                success = False
                response = error_response(request, busy())
            if success:
                request.environ.pop("shopsvc.on_rollback", None)
            else:
                run_on_rollback(request)
            if success:
                _run_after_commit(request)
            return response
        except BaseException:
            _finish_transaction(request, False)
            run_on_rollback(request)
            raise

    return transaction_tween
