"""Signing requests with OAuth 1.0a the way the real clients do (by oauthlib)."""

from __future__ import annotations

import time
from urllib.parse import urlencode

from oauthlib import oauth1

from tests.helpers.api import BASE, Credentials


def signed(
    credentials: Credentials,
    method: str,
    path: str,
    query: list[tuple[str, str]] | None = None,
    *,
    signature_method: str = oauth1.SIGNATURE_HMAC_SHA256,
    timestamp: int | None = None,
    nonce: str | None = None,
    base: str = BASE,
    secret: str | None = None,
    key: str | None = None,
) -> str:
    """``path?query`` with OAuth 1.0a parameters added by oauthlib (query-string signature)."""
    client = oauth1.Client(
        key or credentials.consumer_key,
        client_secret=credentials.consumer_secret if secret is None else secret,
        signature_method=signature_method,
        signature_type=oauth1.SIGNATURE_TYPE_QUERY,
        timestamp=str(int(time.time()) if timestamp is None else timestamp),
        nonce=nonce,
    )
    url = base + path + ("?" + urlencode(query) if query else "")
    uri, _, _ = client.sign(url, http_method=method)
    return uri[len(base) :]
