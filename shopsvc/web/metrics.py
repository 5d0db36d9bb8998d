"""Request metrics (``shopsvc.metrics``, on by default; docs/metrics.md): the process's
:class:`~shopsvc.metrics.registry.Metrics` made when the app is configured, and the tween, right
under the access tween, that records every response — its route pattern (never the path), method
and status, its duration, the SQL statements it sent and the bytes of its body.

The route is the traversal resource's ``pattern`` (``/products/<id>``) or the matched URL
dispatch route's (``/healthz``); a request that matched nothing is ``unmatched`` below the API
root and ``outside_api`` elsewhere. A request refused before routing (authentication, a body too
large) is named by walking the resource tree the way the router would have."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.metrics.collectors import STATEMENTS, count_statements
from shopsvc.metrics.registry import Metrics
from shopsvc.web.access import bytes_sent
from shopsvc.web.gate import api_path, odd_segments, path_segments
from shopsvc.web.resources import ApiRoot, PrefixSegment, Resource

log = logging.getLogger(__name__)

#: The route of a request below the API root that matched no route.
UNMATCHED = "unmatched"
#: The route of a request outside the API root that matched no route.
OUTSIDE_API = "outside_api"


def _walked_route(request: Request) -> str:
    """The pattern the router would have found (for a request refused before routing)."""
    try:
        below = api_path(request)
    except UnicodeError:
        return UNMATCHED
    if below is None:
        return OUTSIDE_API
    if odd_segments(below):
        return UNMATCHED
    node: Resource = ApiRoot(None, "")
    for segment in path_segments(below):
        try:
            node = node[segment]
        except KeyError:
            return UNMATCHED
    return node.pattern or UNMATCHED


def route_of(request: Request) -> str:
    """The label of the route ``request`` was addressed to (see the module's docstring)."""
    attrs = request.__dict__
    route = attrs.get("matched_route")
    if route is not None:
        pattern: str = route.pattern
        return pattern
    context = attrs.get("context")
    if context is None:
        return _walked_route(request)
    if isinstance(context, PrefixSegment):
        return OUTSIDE_API
    if attrs.get("view_name") or not isinstance(context, Resource):
        return UNMATCHED
    return context.pattern or UNMATCHED


def metrics_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    """Under the access tween: every response, errors included (an exception that no view
    turned into a response counts as a 500 and goes on up)."""
    observe = registry.metrics.requests.add
    clock = time.perf_counter

    def metrics_tween(request: Request) -> Response:
        sent = STATEMENTS.sent
        started = clock()
        response: Response | None = None
        try:
            response = handler(request)
            return response
        finally:
            elapsed = clock() - started
            statements = STATEMENTS.sent - sent
            try:
                method = request.method
                status, size = 500, None
                if response is not None:
                    status, size = response.status_code, bytes_sent(request, response)
                observe(route_of(request), method, status, elapsed, statements, size)
            except Exception:  # metrics never cost a request its answer
                log.exception("recording the request's metrics failed")

    return metrics_tween


def includeme(config: Configurator) -> None:
    """``registry.metrics``: the process's metrics (None with ``shopsvc.metrics = false``),
    watching the app's engine (pool, outbox, statements) and key cache. After
    ``db.request`` and ``auth.policy``: the engine and the key cache exist."""
    registry = config.registry
    if not registry.shop.metrics:
        registry.metrics = None
        return
    metrics = Metrics()
    metrics.watch_engine(registry.engine)
    count_statements(registry.engine)
    if getattr(registry, "key_cache", None) is not None:
        metrics.watch_key_cache(registry.key_cache)
    registry.metrics = metrics
