"""The exception views: every error leaves as ``{"errors": [{"code", "message"}]}`` with its
status (decisions.md §2); an unknown path or method is ``shop_api_no_route``, a database lock
that could not be had in time ``shop_api_busy``, anything unexpected a logged 500."""

from __future__ import annotations

import logging

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import exception_view_config, notfound_view_config
from sqlalchemy.exc import DBAPIError

from shopsvc.errors import ApiError, busy, is_busy, no_route
from shopsvc.web.rendering import error_response

log = logging.getLogger(__name__)


@exception_view_config(ApiError)
def api_error_view(exc: ApiError, request: Request) -> Response:
    return error_response(request, exc)


@notfound_view_config()
def not_found_view(request: Request) -> Response:
    # Pyramid raises HTTPNotFound for an unknown path and for a known path with a method that
    # has no view (predicate mismatch): the legacy API has no 405, both are "no route".
    return error_response(request, no_route())


@exception_view_config(DBAPIError)
def database_error_view(exc: DBAPIError, request: Request) -> Response:
    if is_busy(exc):
        log.warning("busy database on %s %s: %s", request.method, request.path, exc.orig)
        return error_response(request, busy())
    return internal_error_view(exc, request)


@exception_view_config(Exception)
def internal_error_view(exc: Exception, request: Request) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.path)
    error = ApiError("shop_api_internal_error", "An internal error occurred.", 500)
    return error_response(request, error)
