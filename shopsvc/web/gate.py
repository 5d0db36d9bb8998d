"""The gate every request passes under the exception view (so its errors render as API errors):
the method override, odd paths (``//``, ``.``, ``..``) and bodies over the limit refused, JSONP
refused, authentication before routing (everything under the API root but the root itself and the
public documentation), unknown methods and trailing slashes refused; an ``Idempotency-Key``
answered from its committed response, or left to be claimed by the first statement of the
request's transaction, after the view's network I/O (``idempotency.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.db import request as db_request
from shopsvc.errors import ApiError, no_route
from shopsvc.web import idempotency, rate_limit
from shopsvc.web.access import IDENTITY
from shopsvc.web.body import too_large

KNOWN_METHODS = frozenset({"HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"})


#: Paths below the API root served without authentication (besides the root itself): the
#: OpenAPI document and the documentation page with everything below it.
PUBLIC_API_PATHS = frozenset({"/openapi.json", "/docs"})
PUBLIC_API_PREFIXES = ("/docs/",)


def path_segments(path: str) -> list[str]:
    """The segments of a path below its leading ``/``, a single trailing slash dropped."""
    segments = path.split("/")[1:]
    if segments and segments[-1] == "":
        segments.pop()
    return segments


def odd_segments(path: str) -> bool:
    """True for a path with an empty (``//``), ``.`` or ``..`` segment. Traversal would skip or
    resolve such segments, so the path would reach a view under a different spelling of the API
    root than the one authentication looks at; these paths are no route, before authentication
    (a single trailing slash is judged by the routes: the API root's index accepts it)."""
    return any(segment in ("", ".", "..") for segment in path_segments(path))


def api_path(request: Request) -> str | None:
    """The path below the API root (``""`` for the root itself), or None outside the API.
    Raises ``UnicodeError`` for a path that is not UTF-8."""
    root = request.shop.api_root.lower()
    path = request.path_info
    lowered = path.lower()
    if lowered == root or lowered == root + "/":
        return ""
    if lowered.startswith(root + "/"):
        return path[len(root) :]
    return None


def _public(below: str) -> bool:
    """The root and the documentation are served without authentication."""
    lowered = below.lower()
    return lowered == "" or lowered in PUBLIC_API_PATHS or lowered.startswith(PUBLIC_API_PREFIXES)


def _override_method(request: Request) -> None:
    override = request.GET.get("_method")
    if override:
        request.method = override.upper()
    elif "HTTP_X_HTTP_METHOD_OVERRIDE" in request.environ:
        request.method = request.environ["HTTP_X_HTTP_METHOD_OVERRIDE"]


def _authenticate(request: Request) -> None:
    """The caller, for everything after the gate (the access log names its key): authenticated
    here, or by the rate limiter before, whose failure is raised now, in the gate's order."""
    failure = request.environ.pop(rate_limit.AUTH_FAILURE, None)
    if failure is not None:
        raise failure
    if IDENTITY not in request.environ:
        request.environ[IDENTITY] = request.identity


def gate_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    limiter = rate_limit.limiter_of(registry)

    def gate_tween(request: Request) -> Response:
        _override_method(request)
        if odd_segments(request.path_info):
            raise no_route()
        limit = request.shop.max_body_bytes
        if request.content_length is not None and request.content_length > limit:
            raise too_large(limit)
        below = api_path(request)
        if below is not None and limiter is not None:
            rate_limit.admit(limiter, request, below, _public(below))
        if below is not None and "_jsonp" in request.GET:
            # The original answers any JSONP request, the root and auth failures included, with
            # this error (its JSON handler replaces whatever the response would have been).
            raise ApiError("shop_api_jsonp_disabled", "JSONP support is disabled on this site", 400)
        if below is None or _public(below):
            if request.method not in KNOWN_METHODS:
                raise ApiError("shop_api_unsupported_method", "Unsupported request method", 400)
            return handler(request)
        # authentication runs before routing
        _authenticate(request)
        if request.method not in KNOWN_METHODS:
            raise ApiError("shop_api_unsupported_method", "Unsupported request method", 400)
        if below.endswith("/"):
            raise no_route()
        if idempotency.ENVIRON_HEADER in request.environ:
            replay = idempotency.begin(request)
            if replay is not None:
                return replay
            if db_request.ON_BEGIN in request.environ:  # the claim waits for the transaction
                return idempotency.run(request, handler)
        return handler(request)

    return gate_tween
