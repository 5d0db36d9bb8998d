"""CORS for browser integrations (``shopsvc.cors_origins``; off when empty, the default).

The tween sits under the access tween (so preflights get a request id and an access line) and
over everything that authenticates, renders errors or caches, so that:

- a preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) under the API root
  is answered here, before authentication: 204 with the allowed methods, request headers and
  max-age when the origin is listed, a bare 204 otherwise;
- every other response under the API root — errors, 304s and 401s included — carries
  ``Access-Control-Allow-Origin`` (the caller's origin, echoed) and
  ``Access-Control-Expose-Headers`` (pagination headers, ``ETag``, ``X-Request-Id``, and with
  ``shopsvc.rate_limit`` the rate limit's fields and ``Retry-After``) when the origin is listed;
  ``Vary: Origin`` goes on all of them.

Origins not listed get no CORS header at all. No ``Access-Control-Allow-Credentials``: the API
authenticates with an ``Authorization`` header or query keys that the page's script sends, never
with cookies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.web.gate import api_path
from shopsvc.web.http_cache import add_vary

ALLOW_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE"
ALLOW_HEADERS = "Authorization, Content-Type, If-None-Match, X-HTTP-Method-Override, X-Request-Id"
#: Seconds a browser may cache a preflight (Chromium caps it at 7200).
MAX_AGE = 7200


def _under_api(request: Request) -> bool:
    try:
        return api_path(request) is not None
    except UnicodeError:
        return False


def _preflight(request: Request) -> bool:
    return (
        request.method == "OPTIONS"
        and "Origin" in request.headers
        and "Access-Control-Request-Method" in request.headers
    )


def _preflight_response(origin: str | None) -> Response:
    response = Response(status=204)
    for name in ("Content-Type", "Content-Length"):
        if name in response.headers:
            del response.headers[name]
    response.headers["Vary"] = "Origin"
    if origin is not None:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Allow-Methods"] = ALLOW_METHODS
        response.headers["Access-Control-Allow-Headers"] = ALLOW_HEADERS
        response.headers["Access-Control-Max-Age"] = str(MAX_AGE)
    return response


def cors_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    shop = registry.shop
    origins = frozenset(shop.cors_origins)
    if not origins:
        return handler  # CORS is off: the tween is not in the chain at all
    any_origin = "*" in origins
    expose = ", ".join(
        (shop.header("Total"), shop.header("TotalPages"), "Link", "ETag", "X-Request-Id")
    )
    if shop.rate_limit is not None:  # web/rate_limit.py
        expose += ", RateLimit-Policy, RateLimit, Retry-After"

    def allowed(request: Request) -> str | None:
        """The request's ``Origin`` when it is listed (echoed as sent), else None."""
        origin = request.headers.get("Origin")
        if not origin:
            return None
        return origin if any_origin or origin.strip().lower() in origins else None

    def cors_tween(request: Request) -> Response:
        if not _under_api(request):
            return handler(request)
        origin = allowed(request)
        if _preflight(request):
            return _preflight_response(origin)
        response = handler(request)
        add_vary(response, "Origin")
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = expose
        return response

    return cors_tween
