"""Who is asking and which URL they see: the settings, the client's address and scheme (from
``X-Forwarded-*`` only behind a trusted proxy) and the public URL of the service."""

from __future__ import annotations

import ipaddress

from pyramid.request import Request

from shopsvc.settings import Settings


def _shop(request: Request) -> Settings:
    return request.registry.shop


def _from_trusted_proxy(request: Request) -> bool:
    proxies = request.shop.trusted_proxies
    if not proxies or not request.remote_addr:
        return False
    try:
        address = ipaddress.ip_address(request.remote_addr)
    except ValueError:
        return False
    return any(address in network for network in proxies)


def _client_ip(request: Request) -> str:
    """The caller's IP: the first ``X-Forwarded-For`` address when a trusted proxy sent it,
    else the peer's address."""
    forwarded = request.environ.get("HTTP_X_FORWARDED_FOR", "")
    if forwarded and _from_trusted_proxy(request):
        return forwarded.split(",")[0].strip()
    return request.remote_addr or ""


def _scheme(request: Request) -> str:
    forwarded = request.environ.get("HTTP_X_FORWARDED_PROTO", "")
    if forwarded and _from_trusted_proxy(request):
        return forwarded.split(",")[0].strip().lower()
    return request.scheme


def _public_url(request: Request) -> str:
    """The canonical ``scheme://host[:port]`` used in links and OAuth base strings."""
    configured = request.shop.public_url
    if configured:
        return configured
    scheme = request.scheme_seen
    host = request.host
    default_port = {"http": ":80", "https": ":443"}.get(scheme)
    if default_port and host.endswith(default_port):
        host = host[: -len(default_port)]
    return f"{scheme}://{host}"
