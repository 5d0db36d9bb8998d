"""The request class of the application: what ``db/request.py`` and the ``web`` modules add to
Pyramid's request, declared once on a class.

(Pyramid's ``config.add_request_method`` would do the same per request, by building a new class
for every request: measurable on a GET that takes a couple of milliseconds.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pyramid.request import Request

from shopsvc.db import request as db_request
from shopsvc.web import access, body, client, contexts, rendering
from shopsvc.web import query as query_string

T = TypeVar("T")


class reify(Generic[T]):
    """Computed on first access, then an attribute of the instance under the descriptor's own
    name (Pyramid's ``reify`` stores under the function's name; ``functools.cached_property``
    takes a lock that all requests share before Python 3.12)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.name] = value
        return value


def _identity(request: Request) -> Any:
    return Request.identity.fget(request)  # type: ignore[attr-defined]


class ShopRequest(Request):
    # authentication (auth/policy.py), asked for several times a request: Pyramid's property
    # looks the policy up each time
    identity = reify(_identity)
    # the database (db/request.py): the request's connection and transaction callbacks
    db = reify(db_request._request_db)
    after_commit = db_request._after_commit
    on_rollback = db_request._on_rollback
    # the protocol (query.py, client.py, body.py, contexts.py, access.py)
    request_id = reify(access._request_id)
    signed_query = reify(query_string._signed_query)
    query = reify(query_string._query)
    filters = reify(query_string._filters)
    shop = reify(client._shop)
    scheme_seen = reify(client._scheme)
    client_ip = reify(client._client_ip)
    public_url = reify(client._public_url)
    json_object = reify(body._json_object)
    envelope = body._envelope
    require = contexts._require
    record_context = reify(contexts._record_context)
    write_context = reify(contexts._write_context)
    events = reify(contexts._events)
    # rendering (rendering.py)
    render_json = rendering.render_json
