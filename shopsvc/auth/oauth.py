"""OAuth 1.0a "one-legged" signature checks, exactly as the legacy v3 API server does them.

Pure functions only: no web framework, no database. The security policy feeds them the decoded query
string of the request and the consumer secret it looked up; nonce bookkeeping is done by the caller.

How the legacy server builds the string to sign (reference: core.md §6.4, clients.md A3):

* Parameters come only from the query string, already percent-decoded (and ``+`` turned into a
  space). A repeated parameter keeps the position of its first occurrence and the value of its last
  one (PHP ``$_GET`` semantics), see :func:`collapse_query`.
* PHP folds ``filter[limit]=5`` into ``filter => {limit: 5}``. The top-level keys are sorted
  byte-wise (``strcmp``) before encoding; the inner keys keep the order of first appearance and
  are not encoded at all.
* Every top-level key and every value is ``rawurldecode``-d (``+`` stays ``+``), then
  ``rawurlencode``-d (RFC 3986: only ``A-Za-z0-9-_.~`` kept, ``/`` becomes ``%2F``), then every
  ``%`` becomes ``%25``. A scalar gives ``key%3Dvalue``; a nested item gives
  ``key%255Binner%255D%3Dvalue``. Pairs are joined with ``%26``.
* String to sign: ``METHOD&rawurlencode(base_uri)&pairs``. Key: consumer secret + ``&``.
  Signature: base64 of the raw HMAC-SHA1 / HMAC-SHA256.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import quote_from_bytes, unquote_to_bytes

__all__ = [
    "MSG_BAD_METHOD",
    "MSG_BAD_SIGNATURE",
    "MSG_BAD_TIMESTAMP",
    "MSG_NONCE_USED",
    "REQUIRED_PARAMS",
    "SIGNATURE_METHODS",
    "TIMESTAMP_WINDOW",
    "OAuthError",
    "base_string",
    "check_timestamp",
    "collapse_query",
    "missing_param",
    "missing_param_message",
    "sign",
    "verify_signature",
]

#: Checked in this order; the first one absent or empty is reported.
REQUIRED_PARAMS: tuple[str, ...] = (
    "oauth_consumer_key",
    "oauth_timestamp",
    "oauth_nonce",
    "oauth_signature",
    "oauth_signature_method",
)

#: Accepted values of ``oauth_signature_method`` (exact strings) and their hash functions.
SIGNATURE_METHODS: dict[str, str] = {"HMAC-SHA1": "sha1", "HMAC-SHA256": "sha256"}

#: Allowed clock difference in seconds, both ways (15 minutes).
TIMESTAMP_WINDOW = 900

MSG_BAD_METHOD = "Invalid signature - signature method is invalid."
MSG_BAD_SIGNATURE = "Invalid signature - provided signature does not match."
MSG_BAD_TIMESTAMP = "Invalid timestamp."
#: For the caller's nonce check (not done here).
MSG_NONCE_USED = "Invalid nonce - nonce has already been used."

# What PHP's array-to-string conversion yields for a value nested deeper than one level.
_PHP_ARRAY = "Array"
_TIMESTAMP_RE = re.compile(r"[0-9]{1,20}")
_INT_KEY_RE = re.compile(r"0|[1-9][0-9]*")


class OAuthError(Exception):
    """An authentication failure; ``message`` is the exact user-facing text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def collapse_query(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Collapse decoded query pairs like PHP's ``$_GET``: last value wins, first position kept.

    ``[("page", "1"), ("a", "x"), ("page", "2")]`` gives ``{"page": "2", "a": "x"}`` in that order.
    """
    collapsed: dict[str, str] = {}
    for key, value in pairs:
        # Assigning to an existing dict key keeps its original position.
        collapsed[key] = value
    return collapsed


def missing_param(params: Mapping[str, str]) -> str | None:
    """Return the first required OAuth parameter that is absent or empty, else None.

    "Empty" follows PHP's ``empty()``, which the legacy server uses: ``""`` and ``"0"``.
    """
    for name in REQUIRED_PARAMS:
        value = params.get(name)
        if value is None or value == "" or value == "0":
            return name
    return None


def missing_param_message(name: str) -> str:
    """The user-facing message for a missing required parameter."""
    return f"{name} parameter is missing."


def _rawurlencode(data: bytes, *, keep_slash: bool = False) -> str:
    # quote_from_bytes always keeps A-Za-z0-9 and "_.-~" (exactly PHP's rawurlencode set).
    return quote_from_bytes(data, safe="/" if keep_slash else "")


def _normalize(text: str, *, keep_slash: bool = False) -> str:
    """rawurldecode, then rawurlencode, then double-encode every ``%``.

    Works on bytes like PHP: invalid ``%`` escapes are kept verbatim by the decode and a ``+`` is
    left alone. ``keep_slash`` reproduces the Python ``woocommerce`` client, whose ``quote()``
    leaves ``/`` raw (the legacy server does not).
    """
    decoded = unquote_to_bytes(text.encode("utf-8"))
    return _rawurlencode(decoded, keep_slash=keep_slash).replace("%", "%25")


def _split_php_key(key: str) -> tuple[str, str | None, bool]:
    """Split a query key the way PHP registers it in ``$_GET``.

    Returns ``(top, inner, deeper)``: ``inner`` is None for a scalar; ``""`` for ``a[]``; ``deeper``
    is true when the key nests more than one level (``a[b][c]``). A ``[`` without a closing ``]``
    is part of the plain name (PHP turns it into ``_``; kept here so the name stays as sent).
    """
    open_at = key.find("[")
    if open_at <= 0:
        return key, None, False
    close_at = key.find("]", open_at + 1)
    if close_at < 0:
        return key, None, False
    top = key[:open_at]
    inner = key[open_at + 1 : close_at]
    rest = key[close_at + 1 :]
    deeper = rest.startswith("[") and "]" in rest
    return top, inner, deeper


def _fold(params: Mapping[str, str]) -> dict[str, str | dict[str, str]]:
    """Fold ``name[inner]`` keys into nested maps, keeping first-appearance order like PHP."""
    folded: dict[str, str | dict[str, str]] = {}
    for key, value in params.items():
        top, inner, deeper = _split_php_key(key)
        if inner is None:
            folded[top] = value
            continue
        current = folded.get(top)
        if not isinstance(current, dict):
            current = {}
            folded[top] = current  # an earlier scalar is replaced in place, like PHP
        if inner == "":
            # PHP's auto-index: one more than the largest integer key so far, else 0.
            ints = [int(k) for k in current if _INT_KEY_RE.fullmatch(k)]
            inner = str(max(ints) + 1 if ints else 0)
        current[inner] = _PHP_ARRAY if deeper else value
    return folded


def _strcmp_key(key: str) -> bytes:
    return key.encode("utf-8")


def base_string(
    method: str, base_uri: str, params: Mapping[str, str], *, keep_slash: bool = False
) -> str:
    """Build the legacy server's string to sign.

    ``method`` is the effective (possibly overridden) HTTP method; ``base_uri`` is the canonical
    ``scheme://host[:port]`` + API root + route path, not yet encoded; ``params`` is the collapsed
    query string including the ``oauth_*`` parameters (``oauth_signature`` is ignored if present).
    ``keep_slash=True`` builds the variant the Python ``woocommerce`` client signs when a key or
    value contains ``/`` (not what the legacy server accepts).
    """
    folded = _fold(params)
    folded.pop("oauth_signature", None)
    pairs: list[str] = []
    for key in sorted(folded, key=_strcmp_key):
        value = folded[key]
        enc_key = _normalize(key, keep_slash=keep_slash)
        if isinstance(value, dict):
            for inner, inner_value in value.items():
                enc_value = _normalize(inner_value, keep_slash=keep_slash)
                pairs.append(f"{enc_key}%255B{inner}%255D%3D{enc_value}")
        else:
            pairs.append(f"{enc_key}%3D{_normalize(value, keep_slash=keep_slash)}")
    encoded_uri = _rawurlencode(base_uri.encode("utf-8"))
    return f"{method.upper()}&{encoded_uri}&{'%26'.join(pairs)}"


def sign(base: str, consumer_secret: str, signature_method: str) -> str:
    """Base64 of the raw HMAC of ``base`` keyed with ``consumer_secret + "&"``.

    Raises OAuthError (signature method is invalid) unless the method is exactly ``HMAC-SHA1`` or
    ``HMAC-SHA256``.
    """
    digest_name = SIGNATURE_METHODS.get(signature_method)
    if digest_name is None:
        raise OAuthError(MSG_BAD_METHOD)
    key = (consumer_secret + "&").encode("utf-8")
    mac = hmac.new(key, base.encode("utf-8"), getattr(hashlib, digest_name)).digest()
    return base64.b64encode(mac).decode("ascii")


def _received_signature(raw: str) -> bytes:
    """The client's signature as the server reads it: spaces back to ``+``, then rawurldecode."""
    return unquote_to_bytes(raw.replace(" ", "+").encode("utf-8"))


def verify_signature(
    method: str,
    base_uri: str,
    params: Mapping[str, str],
    consumer_secret: str,
    *,
    allow_raw_slash: bool = False,
    alternative_base_uris: Sequence[str] = (),
) -> None:
    """Check ``params["oauth_signature"]`` against the legacy base string; raise OAuthError if bad.

    The signature method is checked first (after normalisation, as the server does), then the
    signature is compared in constant time. ``allow_raw_slash=True`` additionally accepts the
    variant signed by the Python ``woocommerce`` client when a key or value contains ``/``
    (genuine WooCommerce rejects those). ``alternative_base_uris`` are further spellings of the
    same base URI that are accepted too (the path as sent, percent-escapes and all, which is
    what RFC 5849 libraries sign, besides the decoded path the legacy server signs).
    """
    signature_method = _normalize(params.get("oauth_signature_method", ""))
    if signature_method not in SIGNATURE_METHODS:
        raise OAuthError(MSG_BAD_METHOD)
    received = _received_signature(params.get("oauth_signature", ""))

    lenient_too = allow_raw_slash and any("/" in k or "/" in v for k, v in params.items())
    for uri in (base_uri, *(alt for alt in alternative_base_uris if alt != base_uri)):
        expected = sign(base_string(method, uri, params), consumer_secret, signature_method)
        if hmac.compare_digest(expected.encode("ascii"), received):
            return
        if lenient_too:
            lenient = base_string(method, uri, params, keep_slash=True)
            expected = sign(lenient, consumer_secret, signature_method)
            if hmac.compare_digest(expected.encode("ascii"), received):
                return
    raise OAuthError(MSG_BAD_SIGNATURE)


def check_timestamp(timestamp: str, now: float, window: int = TIMESTAMP_WINDOW) -> int:
    """Return the timestamp as an int if within ``window`` seconds of ``now`` (both edges included).

    ``now`` is truncated to whole seconds like PHP's ``time()``. Anything but plain ASCII digits is
    invalid. Raises OAuthError("Invalid timestamp.").
    """
    if not isinstance(timestamp, str) or not _TIMESTAMP_RE.fullmatch(timestamp):
        raise OAuthError(MSG_BAD_TIMESTAMP)
    value = int(timestamp)
    current = math.floor(now)
    if value < current - window or value > current + window:
        raise OAuthError(MSG_BAD_TIMESTAMP)
    return value
