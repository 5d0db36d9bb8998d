"""What a view hands to the layers below instead of the request: the record context, the write
context, the request's webhook events, and the capability check with a family's code."""

from __future__ import annotations

import datetime as dt
import functools

from pyramid.request import Request

from shopsvc.domain.events import EventSet
from shopsvc.errors import ApiError
from shopsvc.media.images import download_image, reserve_image
from shopsvc.records.context import RecordContext
from shopsvc.sql.tables import utc_now
from shopsvc.writers.context import WriteContext


def _record_context(request: Request) -> RecordContext:
    """What records are built from, for this request: its connection, the settings, the URL
    the client sees and the caller's capabilities."""
    identity = request.identity
    return RecordContext(
        conn=request.db,
        settings=request.shop,
        public_url=request.public_url,
        capabilities=identity.capabilities if identity is not None else frozenset(),
        now=dt.datetime.now(dt.UTC),
    )


def _write_context(request: Request) -> WriteContext:
    """What writers get instead of the request: its connection, the settings, one timestamp for
    the whole request, and image downloads that are deleted again when the request rolls back."""
    return WriteContext(
        conn=request.db,
        settings=request.shop,
        now=utc_now(),
        download=functools.partial(download_image, request),
        reserve=functools.partial(reserve_image, request),
        events=request.events,
    )


def _events(request: Request) -> EventSet:
    """The webhook events of the request's changes; queued in the outbox just before its
    transaction commits (:func:`_queue_events`)."""
    return EventSet()


def _require(request: Request, capability: str, code: str, message: str) -> None:
    """401 ``code`` unless the authenticated user holds ``capability``."""
    if not request.has_permission(capability):
        raise ApiError(code, message, 401)
