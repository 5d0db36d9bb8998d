"""The OpenAPI document and the page that renders it, without authentication:
``GET {api_root}/openapi.json`` and ``GET {api_root}/docs`` (with its files under
``{api_root}/docs/…``).

The page is Swagger UI from the ``swagger-ui-py`` package's static files, served from here (no CDN
at run time); only the files the page uses are served (``shopsvc.openapi.page``).
"""

from __future__ import annotations

import html
import json

from pyramid.request import Request
from pyramid.response import FileResponse, Response
from pyramid.view import view_config

from shopsvc.errors import no_route
from shopsvc.openapi.document import cached_document
from shopsvc.openapi.page import DOCS_FILES, FILE_MAX_AGE, PAGE, swagger_ui_dir
from shopsvc.views import READ
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
    page = PAGE.format(
        title=html.escape(f"{request.shop.store_name} API"),
        docs=html.escape(root + "/docs"),
        document=json.dumps(root + "/openapi.json").replace("<", "\\u003c"),
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
    response = FileResponse(
        str(swagger_ui_dir() / name),
        request=request,
        content_type=DOCS_FILES[name],
        cache_max_age=FILE_MAX_AGE,
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    if request.method == "HEAD":  # the file opened for the body would stay open otherwise
        close = getattr(response.app_iter, "close", None)
        if close is not None:
            close()
    return response
