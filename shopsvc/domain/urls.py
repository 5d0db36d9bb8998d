"""URL rules shared by webhooks and image sources."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-_.]*[A-Za-z0-9])?)$")


def is_http_url(url: str) -> bool:
    """A valid absolute URL beginning with ``http://`` or ``https://`` (what PHP's URL validator
    accepts: a host, an optional numeric port, no white space)."""
    if not url.startswith(("http://", "https://")) or any(ch.isspace() for ch in url):
        return False
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    host = parts.netloc.rpartition("@")[2]
    if port is not None:
        host = host.rsplit(":", 1)[0]
    return bool(parts.hostname) and _HOST.match(host) is not None
