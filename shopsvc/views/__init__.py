"""View configuration, one module per resource family."""

from typing import Any

from pyramid.config import Configurator

#: The venusian category of the read views, scanned before all others (see :func:`includeme`).
READ_VIEWS = "shopsvc.read_views"
#: ``@view_config(context=…, **READ)``: a ``GET``/``HEAD`` view.
READ: dict[str, Any] = {"request_method": ("GET", "HEAD"), "_category": READ_VIEWS}


def includeme(config: Configurator) -> None:
    # Pyramid tries the views of one context in the order they were registered (ours differ in
    # their method only, so none is preferred), and every view whose method does not match
    # costs a PredicateMismatch: an HTTPNotFound, a whole Response built and thrown away. A
    # scan registers a module's views alphabetically (``delete_product`` before
    # ``get_product``), and ``product_writes`` before ``products``: so the reads, by far the
    # most frequent requests, are registered first, each family's in a scan of their own.
    config.scan("shopsvc.views", categories=(READ_VIEWS,))
    config.scan("shopsvc.views")
    config.include("shopsvc.views.terms")
