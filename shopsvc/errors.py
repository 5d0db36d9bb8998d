"""The one error type of the API: every failure a client can see is an
``ApiError(code, message, status)``, rendered by ``shopsvc.views.errors`` as
``{"errors": [{"code": ..., "message": ...}]}`` (decisions.md §2). Pure: records, writers and
the domain raise these without knowing about HTTP.
"""

from __future__ import annotations

import sqlite3

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


class Sequential(Exception):
    """Raised by a set-based bulk writer (``shopsvc.web.bulk.Batch``): this bulk must run one
    element at a time. Here rather than in ``shopsvc.web.bulk`` so that writers, which never
    import Pyramid, may raise it; ``shopsvc.web.bulk`` re-exports it."""


def invalid_param(field: str, problem: str) -> ApiError:
    """400 ``shop_api_invalid_param`` naming the field and what was wrong with it."""
    return ApiError("shop_api_invalid_param", f"Invalid parameter {field}: {problem}.", 400)


def no_route() -> ApiError:
    return ApiError(
        "shop_api_no_route", "No route was found matching the URL and request method", 404
    )


#: PostgreSQL's lock_not_available, deadlock_detected and serialization_failure: the work was
#: refused because of other transactions, and the same request may succeed when tried again.
BUSY_SQLSTATES = frozenset({"55P03", "40P01", "40001"})


def is_busy(exc: BaseException) -> bool:
    """True for a database error that means "a lock could not be had in time"."""
    original = getattr(exc, "orig", exc)
    if isinstance(original, sqlite3.OperationalError):
        text = str(original).lower()
        return "locked" in text or "busy" in text
    return getattr(original, "sqlstate", None) in BUSY_SQLSTATES


def busy() -> ApiError:
    return ApiError(
        "shop_api_busy",
        "The database is busy with other requests; try again in a moment.",
        503,
        {"Retry-After": "1"},
    )
