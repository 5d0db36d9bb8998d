"""The OpenAPI document and the page that renders it, without authentication:
``GET {api_root}/openapi.json`` and ``GET {api_root}/docs`` (with its files under
``{api_root}/docs/…``).

The page is Swagger UI from the ``swagger-ui-py`` package's static files, served from here (no CDN
at run time); only the files the page uses are served (``shopsvc.openapi.page``), from memory:
compressed as the client's ``Accept-Encoding`` prefers (brotli, gzip; ``Vary: Accept-Encoding``),
with an ``ETag`` per representation (``"<digest>"``, ``"<digest>-gzip"``, ``"<digest>-br"``, which
the http_cache tween answers ``If-None-Match`` with), cached for a year when asked for by the
page's versioned link and revalidated otherwise.
"""

from __future__ import annotations

import html
import json

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.errors import no_route
from shopsvc.openapi.document import cached_document
from shopsvc.openapi.page import (
    DOCS_FILES,
    PAGE,
    UNVERSIONED_CACHE,
    VERSIONED_CACHE,
    asset,
    encoded,
    page_links,
)
from shopsvc.views import READ
from shopsvc.web.http_cache import IDENTITY, acceptable_codings, add_vary, entity_tag
from shopsvc.web.resources import Docs, DocsFile, OpenApiDocument


def _api_root(request: Request) -> str:
    return request.script_name + request.shop.api_root


@view_config(context=OpenApiDocument, **READ)
def openapi_document(context: OpenApiDocument, request: Request) -> Response:
    """This document."""
    return request.render_json(cached_document(request.registry))


@view_config(context=Docs, **READ)
def docs_page(context: Docs, request: Request) -> Response:
    """The documentation page: Swagger UI rendering the OpenAPI document."""
    root = _api_root(request)
    links = {key: html.escape(link) for key, link in page_links(root + "/docs").items()}
    page = PAGE.format(
        title=html.escape(f"{request.shop.store_name} API"),
        document=json.dumps(root + "/openapi.json").replace("<", "\\u003c"),
        **links,
    )
    response = Response(page, content_type="text/html", charset="utf-8")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@view_config(context=DocsFile, **READ)
def docs_file(context: DocsFile, request: Request) -> Response:
    """A file of the documentation page."""
    name = context.__name__
    if name not in DOCS_FILES:
        raise no_route()
    found = asset(name)
    coding = IDENTITY
    if found.compressible:
        accepted = acceptable_codings(request.environ.get("HTTP_ACCEPT_ENCODING"))
        coding = accepted[0] if accepted else IDENTITY
    body = found.body if coding == IDENTITY else encoded(name, coding)
    response = Response(body=body, content_type=found.content_type, charset=None)
    if coding != IDENTITY:
        response.headers["Content-Encoding"] = coding
    if found.compressible:
        add_vary(response, "Accept-Encoding")
    response.headers["ETag"] = entity_tag(found.digest, coding)
    versioned = request.GET.get("v") == found.digest
    response.headers["Cache-Control"] = VERSIONED_CACHE if versioned else UNVERSIONED_CACHE
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
