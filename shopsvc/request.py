"""The request class of the application: what ``db``, ``protocol`` and ``rendering`` add to
Pyramid's request, declared once on a class.

(Pyramid's ``config.add_request_method`` would do the same per request, by building a new class
for every request: measurable on a GET that takes a couple of milliseconds.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pyramid.request import Request

from shopsvc import db as database
from shopsvc import protocol, rendering

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
    # authentication (security.py), asked for several times a request: Pyramid's property
    # looks the policy up each time
    identity = reify(_identity)
    # the database (db.py): the request's connection and transaction callbacks
    db = reify(database._request_db)
    after_commit = database._after_commit
    on_rollback = database._on_rollback
    # the protocol (protocol.py)
    request_id = reify(protocol._request_id)
    signed_query = reify(protocol._signed_query)
    query = reify(protocol._query)
    filters = reify(protocol._filters)
    shop = reify(protocol._shop)
    scheme_seen = reify(protocol._scheme)
    client_ip = reify(protocol._client_ip)
    public_url = reify(protocol._public_url)
    json_object = reify(protocol._json_object)
    envelope = protocol._envelope
    require = protocol._require
    record_context = reify(protocol._record_context)
    write_context = reify(protocol._write_context)
    events = reify(protocol._events)
    # rendering (rendering.py)
    render_json = rendering.render_json
