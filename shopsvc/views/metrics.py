"""``GET``/``HEAD /metrics``: the process's metrics in the Prometheus text format (OpenMetrics
when the scraper asks for it), outside the API root and without authentication, answered only to
the client networks of ``shopsvc.metrics.allow`` (default: loopback). Anyone else gets exactly
what an unknown path gets (404 ``shop_api_no_route``); with ``shopsvc.metrics = false`` the route
does not exist. See docs/metrics.md."""

from __future__ import annotations

import ipaddress

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.errors import no_route

METRICS = "/metrics"
ROUTE = "shop_metrics"


def _parsed(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # ``::ffff:127.0.0.1`` from a dual-stack socket
    return address


def _trusted(request: Request, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return any(address in network for network in request.shop.trusted_proxies)


def scraper_address(request: Request) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address the scrape comes from, as the service sees its clients
    (``shopsvc.trusted_proxies``) but read from the proxy's end: behind a trusted proxy, the
    last ``X-Forwarded-For`` address that no trusted proxy holds. (``request.client_ip`` takes
    the first one, which the client itself may have written: ``X-Forwarded-For: 127.0.0.1``
    through a proxy that appends would pass for loopback.)"""
    peer = _parsed(request.remote_addr or "")
    if peer is None or not _trusted(request, peer):
        return peer
    forwarded = request.environ.get("HTTP_X_FORWARDED_FOR", "").strip()
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None = peer
    for hop in reversed(forwarded.split(",") if forwarded else []):
        address = _parsed(hop)
        if address is None or not _trusted(request, address):
            return address  # the client (None: a hop that is no address, nobody vouches)
    return address  # the proxy's own request, or one passed on by trusted proxies only


def allowed(request: Request) -> bool:
    """Whether the scrape comes from a network of ``shopsvc.metrics.allow``."""
    address = scraper_address(request)
    return address is not None and any(address in network for network in request.shop.metrics_allow)


def metrics(request: Request) -> Response:
    if not allowed(request):
        raise no_route()
    body, content_type = request.registry.metrics.exposition(request.headers.get("Accept"))
    response = Response(body=body)
    response.headers["Content-Type"] = content_type
    response.headers["Cache-Control"] = "no-store"
    return response


def includeme(config: Configurator) -> None:
    """The route, when the app records metrics (``registry.metrics``: ``web/metrics.py``)."""
    if getattr(config.registry, "metrics", None) is None:
        return
    config.add_route(ROUTE, METRICS)
    config.add_view(metrics, route_name=ROUTE, request_method=("GET", "HEAD"))
