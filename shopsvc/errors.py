"""The one error type of the API and the exception views that render it.

Every failure a client can see is an ``ApiError(code, message, status)`` rendered as
``{"errors": [{"code": ..., "message": ...}]}`` (decisions.md §2).
"""

from __future__ import annotations

import logging

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import exception_view_config, notfound_view_config

log = logging.getLogger(__name__)

BASIC_REALM = (
    'Basic realm="Shop API. Use a consumer key in the username field and a consumer secret '
    'in the password field."'
)


class ApiError(Exception):
    """A client-visible error with the spec's code, message and HTTP status."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.headers = headers or {}

    def as_item(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def invalid_param(field: str, problem: str) -> ApiError:
    """400 ``shop_api_invalid_param`` naming the field and what was wrong with it."""
    return ApiError("shop_api_invalid_param", f"Invalid parameter {field}: {problem}.", 400)


def no_route() -> ApiError:
    return ApiError(
        "shop_api_no_route", "No route was found matching the URL and request method", 404
    )


def error_response(request: Request, error: ApiError) -> Response:
    response = request.render_json({"errors": [error.as_item()]}, status=error.status)
    response.headers.update(error.headers)
    return response


@exception_view_config(ApiError)
def api_error_view(exc: ApiError, request: Request) -> Response:
    return error_response(request, exc)


@notfound_view_config()
def not_found_view(request: Request) -> Response:
    # Pyramid raises HTTPNotFound for an unknown path and for a known path with a method that
    # has no view (predicate mismatch): the legacy API has no 405, both are "no route".
    return error_response(request, no_route())


@exception_view_config(Exception)
def internal_error_view(exc: Exception, request: Request) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.path)
    error = ApiError("shop_api_internal_error", "An internal error occurred.", 500)
    return error_response(request, error)
