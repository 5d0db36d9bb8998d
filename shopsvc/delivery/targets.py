"""Whether a webhook's delivery URL is one the private-target policy refuses, asked when a webhook
is created or edited (docs/webhooks.md "Private targets"): with
``shopsvc.outbound.allow_private_targets = false`` a URL whose host is a private or reserved
address, or a name resolving to one, could never be delivered to, so the API refuses it at
once instead of accepting a webhook whose every delivery fails.

A name that does not resolve when asked (or not within
:data:`~shopsvc.outbound.addresses.RESOLVE_TIMEOUT`) is accepted: the sender applies the policy
again on every attempt, to the addresses the name has then.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from shopsvc.outbound.addresses import refused_host


def refused_delivery_url(url: str, allow_private: bool) -> bool:
    """True when the policy refuses ``url`` (a valid ``http(s)`` URL) now; always False with
    ``allow_private``."""
    if allow_private:
        return False
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return False
    return bool(host) and refused_host(host, port or (443 if parts.scheme == "https" else 80))
