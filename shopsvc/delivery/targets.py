"""Whether a webhook's delivery URL is one the private-target policy refuses, asked when a webhook
is created or edited — only when asked to (docs/webhooks.md "Private targets").

decisions.md accepts a private delivery URL on create (with private targets off, its ping is
skipped and its deliveries fail), and that is the default. A shop that would rather hear at once
that such a webhook can never be delivered sets ``shopsvc.webhooks.refuse_private_delivery_urls
= true``: then, with ``shopsvc.outbound.allow_private_targets = false``, a URL whose host is a
private or reserved address, or a name resolving to one, is refused at create and edit.

A name that does not resolve when asked (or not within
:data:`~shopsvc.outbound.addresses.RESOLVE_TIMEOUT`) is accepted: the sender applies the policy
again on every attempt, to the addresses the name has then.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from shopsvc.outbound.addresses import refused_host
from shopsvc.settings import Settings


def refuses_private_urls(shop: Settings) -> bool:
    """Whether create and edit check delivery URLs at all: only when the shop opted in
    (``webhooks_refuse_private_delivery_urls``) and private targets are off. Otherwise nothing
    is looked up and a private URL is accepted, as decisions.md says."""
    return shop.webhooks_refuse_private_delivery_urls and not shop.allow_private_targets


def refused_delivery_url(url: str, allow_private: bool) -> bool:
    """True when the policy refuses ``url`` (a valid ``http(s)`` URL) now; always False with
    ``allow_private``."""
    if allow_private:
        return False
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return bool(host) and refused_host(host)  # the port plays no part in what a name resolves to
