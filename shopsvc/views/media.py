"""Stored images and the placeholder: ``GET``/``HEAD {media_url}/<path>``, without authentication
(paths outside the API root are not authenticated by the protocol tween). Only with the ``local``
media storage (at the path of ``media_url`` when it is an absolute URL, e.g. a CDN's): an object
store's files are fetched from the store or its CDN, never through the app.

``media_url`` is a setting, so the route is added when ``config.scan`` reaches this module (a
venusian callback, like ``@view_config``'s) rather than by a decorator with a fixed pattern.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import venusian
from pyramid.request import Request
from pyramid.response import FileResponse, Response

from shopsvc.errors import no_route
from shopsvc.media.backend import storage_of
from shopsvc.media.images import PLACEHOLDER_FILE, content_type, find_file
from shopsvc.media.maintenance import ensure_placeholder

ROUTE = "shop_media"
STORED_MAX_AGE = 365 * 24 * 3600  # stored files have unique names and never change
PLACEHOLDER_MAX_AGE = 24 * 3600
View = Callable[[Request], Response]


def _register(scanner: Any, name: str, view: View) -> None:
    config = scanner.config
    shop = config.registry.shop
    if shop.media_storage != "local":
        # An object store's files are fetched from it (media_url), never through the app; the
        # placeholder is uploaded to it when the app starts, if it has none.
        registry = config.registry
        config.action(None, lambda: ensure_placeholder(storage_of(registry), shop.media_dir))
        return
    config.add_route(ROUTE, f"{shop.media_path}/*subpath")
    config.add_view(view, route_name=ROUTE, request_method=("GET", "HEAD"))


def media_route(view: View) -> View:
    """Like ``@view_config``: registers ``view`` for ``{media_url}/*subpath`` when scanned."""
    venusian.attach(view, _register, category="pyramid")
    return view


@media_route
def serve_media(request: Request) -> Response:
    path = find_file(request.shop.media_dir, request.subpath)
    if path is None:
        raise no_route()
    max_age = PLACEHOLDER_MAX_AGE if path == PLACEHOLDER_FILE else STORED_MAX_AGE
    response = FileResponse(
        str(path), request=request, content_type=content_type(path.name), cache_max_age=max_age
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    if request.method == "HEAD":
        _close_body(response)
    return response


def _close_body(response: Response) -> None:
    """Close the opened file now: the transaction tween drops HEAD bodies without closing them."""
    close = getattr(response.app_iter, "close", None)
    if close is not None:
        close()
