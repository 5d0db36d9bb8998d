"""The tweens in their order, registered in one place.

From the outside in: access (``access.py``: request id, HEAD bodies, the access line), the
request metrics (``metrics.py``, with ``shopsvc.metrics`` on), CORS (``cors.py``), the HTTP cache
(``http_cache.py``: ETags, 304s, compression), the transaction (``transaction.py``), Pyramid's
exception view, the gate (``gate.py``), the rate limit (``rate_limit.py``, with
``shopsvc.rate_limit`` set: under the gate, which authenticated the caller), the router."""

from __future__ import annotations

from pyramid.config import Configurator
from pyramid.tweens import EXCVIEW, INGRESS

from shopsvc.logs import install_record_factory

ACCESS = "shopsvc.web.access.access_tween_factory"
METRICS = "shopsvc.web.metrics.metrics_tween_factory"
CORS = "shopsvc.web.cors.cors_tween_factory"
HTTP_CACHE = "shopsvc.web.http_cache.http_cache_tween_factory"
TRANSACTION = "shopsvc.web.transaction.transaction_tween_factory"
GATE = "shopsvc.web.gate.gate_tween_factory"


def includeme(config: Configurator) -> None:
    """The log record factory and the tweens (the request's attributes: ``web/request.py``)."""
    install_record_factory()
    config.add_tween(ACCESS, under=INGRESS)
    if config.registry.shop.metrics:
        config.add_tween(METRICS, under=ACCESS, over=CORS)
    config.add_tween(CORS, under=ACCESS, over=HTTP_CACHE)
    config.add_tween(HTTP_CACHE, under=CORS, over=TRANSACTION)
    config.add_tween(TRANSACTION, over=EXCVIEW)
    config.add_tween(GATE, under=EXCVIEW)
