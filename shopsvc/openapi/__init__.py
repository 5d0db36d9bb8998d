"""The OpenAPI 3.1 document of the API (``GET {api_root}/openapi.json``), generated from the live
configuration: the routed views and their methods (the registry's introspector), the path
parameters (the traversal resources), the write bodies (the Colander schemas of
``shopsvc.validation``), and, for what no schema says, one table beside the views
(``shopsvc.views.openapi_table``) and the record declarations (``records.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pyramid.registry import Registry

from shopsvc.openapi.document import build_document
from shopsvc.openapi.operations import ViewDoc
from shopsvc.openapi.routes import routed_views

__all__ = ["document"]


def document(registry: Registry, view_docs: Callable[[], Mapping[str, ViewDoc]]) -> Any:
    """The document of the application of ``registry``, built once."""
    cached = getattr(registry, "shop_openapi", None)
    if cached is None:
        cached = build_document(routed_views(registry), view_docs(), registry.shop)
        registry.shop_openapi = cached
    return cached
