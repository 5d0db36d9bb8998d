"""The one HTTP client for the outside world (design.md): image downloads, webhook pings and the
webhook sender all call :func:`send`.

Every request gets:

* **the private-target policy on every hop** (``addresses.py``): with ``allow_private=False``
  every address a host resolves to must be public, and the socket is opened to one of exactly
  those addresses.
* **redirects followed by hand**: at most ``max_redirects`` (3 unless asked), each target
  checked again (URL shape and addresses); ``max_redirects=0`` returns a 3xx as it is.
* **one deadline** for the whole exchange: connection, every redirect and the body. Each socket
  wait is bounded by the time left, and the time left is checked between reads of the body, so a
  server dripping bytes cannot stretch it.
* **a size cap** on the body (as decoded, so a compressed bomb counts at its real size): a
  ``Content-Length`` above the cap is refused before reading, otherwise reading stops as soon as
  the cap is passed.

No Pyramid here: the CLI and the delivery worker use this module without a request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from requests.structures import CaseInsensitiveDict

from shopsvc.domain.urls import is_http_url
from shopsvc.outbound.addresses import RefusedTarget, new_session

log = logging.getLogger(__name__)


__all__ = [
    "MAX_REDIRECTS",
    "USER_AGENT",
    "OutboundError",
    "OutboundResponse",
    "send",
]


USER_AGENT = "Shop/0.1.0 Hookshot (shopsvc)"
MAX_REDIRECTS = 3
TIMEOUT = 10.0  # seconds, for the whole exchange
MAX_BYTES = 10 * 1024 * 1024
CHUNK_SIZE = 64 * 1024
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


FailureKind = Literal[
    "invalid_url", "private_target", "timeout", "connection", "read", "too_large", "redirects"
]


class OutboundError(Exception):
    """A request that failed: ``kind`` says what happened, ``reason`` says it in words that
    complete a sentence ("… failed: the connection failed"). ``status`` is the final response's
    status when the failure came while reading its body (too large, timed out), else None."""

    def __init__(self, kind: FailureKind, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class OutboundResponse:
    """The final response: its status, headers (case-insensitive), whole body and URL (after
    any redirects)."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise OutboundError("timeout", "the request timed out")
    return left


def _open(
    session: requests.Session,
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes | None,
    deadline: float,
    redirected: bool,
) -> requests.Response:
    """One request, its body not yet read."""
    if not is_http_url(url):
        raise OutboundError(
            "invalid_url", "redirected to an invalid URL" if redirected else "invalid URL"
        )
    try:
        return session.request(
            method,
            url,
            headers=dict(headers),
            data=body,
            timeout=_remaining(deadline),
            stream=True,
            allow_redirects=False,
        )
    except RefusedTarget:
        where = "redirected to" if redirected else "the URL points to"
        raise OutboundError(
            "private_target",
            f"{where} a private or reserved network address, which is not allowed",
        ) from None
    except requests.Timeout:
        raise OutboundError("timeout", "the request timed out") from None
    except requests.RequestException as exc:
        log.info("%s %s failed: %s", method, url, exc)
        raise OutboundError("connection", "the connection failed") from None


def _declared_length(response: requests.Response) -> int | None:
    try:
        return int(response.headers.get("Content-Length", ""))
    except ValueError:
        return None


def _chunks(response: requests.Response, deadline: float) -> Iterator[bytes]:
    """The decoded body as it arrives; before each read the socket may wait only the time left."""
    raw = response.raw
    read = getattr(raw, "read1", None) or raw.read  # read1: urllib3 >= 2
    while True:
        left = _remaining(deadline)
        sock = getattr(getattr(raw, "connection", None), "sock", None)
        if sock is not None:
            sock.settimeout(left)
        chunk = read(CHUNK_SIZE, decode_content=True)
        if not chunk:
            return
        yield chunk


def _read_body(response: requests.Response, max_bytes: int, deadline: float) -> bytes:
    too_large = OutboundError("too_large", f"the response is larger than {max_bytes} bytes")
    declared = _declared_length(response)
    if declared is not None and declared > max_bytes:
        raise too_large
    body = bytearray()
    try:
        for chunk in _chunks(response, deadline):
            body += chunk
            if len(body) > max_bytes:
                raise too_large
    except (urllib3.exceptions.TimeoutError, TimeoutError):
        raise OutboundError("timeout", "the request timed out") from None
    except (urllib3.exceptions.HTTPError, requests.RequestException, OSError) as exc:
        log.info("reading the response of %s failed: %s", response.url, exc)
        raise OutboundError("read", "the connection failed while reading the response") from None
    return bytes(body)


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port


def send(
    method: str,
    url: str,
    *,
    allow_private: bool,
    max_redirects: int = MAX_REDIRECTS,
    timeout: float = TIMEOUT,
    max_bytes: int = MAX_BYTES,
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
) -> OutboundResponse:
    """Send one request and read the whole response; :class:`OutboundError` on any failure.

    ``max_redirects`` redirects are followed (a 303, or a 301/302 after a POST, continues as a
    GET without the body; credentials are dropped when the origin changes); with
    ``max_redirects=0`` a 3xx is the response. ``timeout`` is the total deadline in seconds,
    ``max_bytes`` the largest body accepted. ``User-Agent`` defaults to :data:`USER_AGENT`.
    """
    if max_redirects < 0:
        raise ValueError("max_redirects must not be negative")
    deadline = time.monotonic() + timeout
    current_method = method.upper()
    current_headers = CaseInsensitiveDict({"User-Agent": USER_AGENT, **(headers or {})})
    current_body = body
    current = url
    with new_session(allow_private) as session:
        for hop in range(max_redirects + 1):
            response = _open(
                session, current_method, current, current_headers, current_body, deadline, hop > 0
            )
            with response:
                location = response.headers.get("Location")
                status = response.status_code
                if max_redirects == 0 or status not in REDIRECT_STATUSES or not location:
                    try:
                        data = _read_body(response, max_bytes, deadline)
                    except OutboundError as exc:
                        exc.status = status
                        raise
                    return OutboundResponse(status, response.headers, data, current)
            target = urljoin(current, location.strip())
            if (status == 303 and current_method != "HEAD") or (
                status in (301, 302) and current_method == "POST"
            ):
                current_method, current_body = "GET", None
                current_headers.pop("Content-Type", None)
            if _origin(target) != _origin(current):
                current_headers.pop("Authorization", None)
                current_headers.pop("Cookie", None)
            current = target
    raise OutboundError("redirects", f"more than {max_redirects} redirects")
