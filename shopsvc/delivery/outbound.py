"""Outbound HTTP (webhook pings and deliveries, image downloads): timeouts, no redirects unless
asked, and no private targets unless ``outbound.allow_private_targets``."""

from __future__ import annotations

import ipaddress
import logging
import socket
from urllib.parse import urlsplit

import requests

from shopsvc.domain.urls import is_http_url

log = logging.getLogger(__name__)
USER_AGENT = "Shop/0.1.0 Hookshot (shopsvc)"


def is_private_target(url: str) -> bool:
    """True when the URL's host is, or resolves to, a loopback, private, link-local or otherwise
    non-public address (or cannot be resolved at all)."""
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError, ValueError):
        return True
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if not address.is_global:
            return True
    return False


def target_allowed(url: str, allow_private: bool) -> bool:
    return is_http_url(url) and (allow_private or not is_private_target(url))


def ping(url: str, webhook_id: int, allow_private: bool, timeout: float = 5.0) -> int | None:
    """POST ``webhook_id=<id>`` to a new webhook's delivery URL; the status code, or None when
    it was skipped or failed. Its outcome never reaches the API client."""
    if not target_allowed(url, allow_private):
        log.info("webhook %s: ping to %s skipped (private target)", webhook_id, url)
        return None
    try:
        response = requests.post(
            url,
            data={"webhook_id": str(webhook_id)},
            headers={"User-Agent": USER_AGENT},
            timeout=timeout,
            allow_redirects=False,
        )
    except requests.RequestException as exc:
        log.info("webhook %s: ping to %s failed: %s", webhook_id, url, exc)
        return None
    log.info("webhook %s: ping to %s answered %s", webhook_id, url, response.status_code)
    return response.status_code
