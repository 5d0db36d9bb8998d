"""Health probes outside the API root, without authentication (the protocol tween authenticates
only below the API root); their successful requests are logged at DEBUG (``protocol.QUIET_PATHS``).

- ``GET /healthz``: the process is up and answering; touches no database.
- ``GET /readyz``: the database answers and its schema is at the latest migration, and (with
  ``shopsvc.media_storage = s3``) the media bucket answers; otherwise 503 with the reason (the
  error's detail goes to the log, not to the caller).
"""

from __future__ import annotations

import logging

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.db.schema import head_revision, revisions
from shopsvc.media.backend import storage_of
from shopsvc.media.storage import StorageError
from shopsvc.web.rendering import render_json

log = logging.getLogger(__name__)

HEALTHZ = "/healthz"
READYZ = "/readyz"


def _answer(request: Request, status: int, body: dict[str, str]) -> Response:
    response = render_json(request, body, status=status)
    response.headers["Cache-Control"] = "no-store"
    return response


def _head(registry: Registry) -> str | None:
    """The latest migration's revision (read from the migration scripts once)."""
    if not hasattr(registry, "shop_head_revision"):
        registry.shop_head_revision = head_revision()
    head: str | None = registry.shop_head_revision
    return head


def healthz(request: Request) -> Response:
    return _answer(request, 200, {"status": "ok"})


def readyz(request: Request) -> Response:
    try:
        current = revisions(request.registry.engine)
    except Exception as exc:  # any failure to reach the database means "not ready"
        log.warning("readiness: the database is unreachable: %s", exc)
        reason = f"database unreachable ({type(exc).__name__})"
        return _answer(request, 503, {"status": "unavailable", "reason": reason})
    head = _head(request.registry)
    if current != {head}:
        at = ", ".join(sorted(current)) or "none"
        reason = f"schema at revision {at}, latest is {head}: run migrate"
        return _answer(request, 503, {"status": "unavailable", "reason": reason})
    try:
        storage_of(request.registry).check()
    except StorageError as exc:  # the bucket of shopsvc.media_storage = s3
        log.warning("readiness: the media bucket is unreachable: %s", exc.__cause__ or exc)
        reason = f"media bucket unreachable ({exc.name})"
        return _answer(request, 503, {"status": "unavailable", "reason": reason})
    return _answer(request, 200, {"status": "ok"})


def includeme(config: Configurator) -> None:
    config.add_route("shop_healthz", HEALTHZ)
    config.add_route("shop_readyz", READYZ)
    config.add_view(healthz, route_name="shop_healthz", request_method=("GET", "HEAD"))
    config.add_view(readyz, route_name="shop_readyz", request_method=("GET", "HEAD"))
