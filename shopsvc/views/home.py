"""The server's root, ``GET /`` (outside the API root): where things are, for whoever opens the
server's address — the API root, its documentation and OpenAPI document, the health probes.

No authentication and no store data (the API root's index has the store's). JSON, or a small
HTML page when the client prefers ``text/html`` (a browser's ``Accept``); either way
``Vary: Accept``. Other methods are no route, like every path's (404 ``shop_api_no_route``).
Not routed when ``shopsvc.api_root`` is ``/`` itself (the path belongs to the API then).
"""

from __future__ import annotations

import html
from typing import Any

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.views.health import HEALTHZ, READYZ
from shopsvc.web.rendering import render_json

HOME = "/"
JSON_TYPE = "application/json"
HTML_TYPE = "text/html"


def links(request: Request) -> dict[str, Any]:
    """The URLs the root points to, under the service's public URL (``shopsvc.public_url``, or
    the request's scheme and host)."""
    base = request.public_url
    api = base + request.shop.api_root
    return {
        "api_root": api,
        "documentation": api + "/docs",
        "openapi": api + "/openapi.json",
        "health": {"live": base + HEALTHZ, "ready": base + READYZ},
    }


def _prefers_html(request: Request) -> bool:
    """Whether the client ranks ``text/html`` above JSON (no ``Accept``: JSON)."""
    if "Accept" not in request.headers:
        return False
    offers = request.accept.acceptable_offers([JSON_TYPE, HTML_TYPE])
    return bool(offers) and offers[0][0] == HTML_TYPE


def _page(found: dict[str, Any]) -> str:
    def link(url: str) -> str:
        quoted = html.escape(url)
        return f'<a href="{quoted}">{quoted}</a>'

    health = found["health"]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head><meta charset="utf-8"><title>shopsvc</title></head>\n<body>\n'
        "<h1>shopsvc</h1>\n<ul>\n"
        f"<li>API root: {link(found['api_root'])}</li>\n"
        f"<li>Documentation: {link(found['documentation'])}"
        f" (OpenAPI document: {link(found['openapi'])})</li>\n"
        f"<li>Health: {link(health['live'])} (live), {link(health['ready'])} (ready)</li>\n"
        "</ul>\n</body>\n</html>\n"
    )


def home(request: Request) -> Response:
    found = links(request)
    if _prefers_html(request):
        response = Response(body=_page(found).encode("utf-8"), headerlist=[])
        response.headerlist.append(("Content-Type", "text/html; charset=UTF-8"))
    else:
        response = render_json(request, found)
    response.headerlist.append(("Vary", "Accept"))
    return response


def includeme(config: Configurator) -> None:
    if config.registry.shop.api_root == HOME:
        return
    config.add_route("shop_home", HOME)
    config.add_view(home, route_name="shop_home", request_method=("GET", "HEAD"))
