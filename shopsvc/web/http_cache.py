"""Conditional GETs and compression, on the final response (errors included).

The tween sits under the access and CORS tweens and over the transaction tween, so it sees the
body that leaves, whatever produced it (a view, the exception view, a busy commit).

- **ETag** (strong) on every 200 answer to GET/HEAD under the API root: a digest of the identity
  body and of the pagination headers (so a page whose rows did not change but whose ``Total``
  did gets a new tag). Each content coding is a representation of its own (RFC 9110 §8.8.3), so
  it has a tag of its own: ``"<digest>"`` for identity, ``"<digest>-gzip"``, ``"<digest>-br"``.
  A view that sets its own ``ETag`` names the identity representation with it; the codings' tags
  are suffixed the same way.
- **If-None-Match** (weak comparison, RFC 9110 §13.1.2; a list of tags or ``*``): when a listed
  tag is that of a representation the client accepts, that representation is the selected one
  and the answer is 304 — no body, no ``Content-Type``/``-Length``/``-Encoding``, every other
  header kept (``ETag`` of the matched representation, ``Vary``, ``Last-Modified``, the
  pagination headers). A cache holding the identity body still gets its 304 after it starts
  sending ``Accept-Encoding: gzip``. ``If-Modified-Since`` is not evaluated: timestamps have a
  one-second resolution, so two edits within a second would share a ``Last-Modified``.
- ``Cache-Control: private, no-cache`` on those responses (unless a view set one): no shared
  cache stores a caller's records, and a browser revalidates (cheaply, with the ETag) instead of
  guessing a freshness lifetime from ``Last-Modified``.
- **Compression** of JSON bodies over :data:`MIN_COMPRESS_BYTES`: brotli (when the ``brotli``
  package is installed) or gzip, whichever the client's ``Accept-Encoding`` prefers (equal
  preference: brotli, then gzip, then identity; ``q=0`` refuses a coding), with
  ``Vary: Accept-Encoding`` on every response that size whatever the client sent. A HEAD
  response gets the GET's headers (encoding and length included) and no body; a 304 no body.

A 304 carries no ``Content-Length`` (waitress would strip it, and close a connection whose
announced bytes never came); ``web/keep_alive.py`` keeps its connection open.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Any

from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.web.gate import api_path

try:  # the optional brotli wheel
    import brotli
except ImportError:  # pragma: no cover - brotli is in setup.py's requirements
    brotli = None

MIN_COMPRESS_BYTES = 1024
GZIP_LEVEL = 6
#: brotli's default (11) takes ~20 times as long as gzip for a few percent; 5 beats gzip -6
#: in both size and time on API bodies.
BROTLI_QUALITY = 5
IDENTITY = "identity"
#: The weight of an ``identity`` that ``Accept-Encoding`` does not name: acceptable, but after
#: every coding the client names.
UNLISTED_IDENTITY = 0.0001
#: The codings this server can produce, in the order it prefers them at equal ``q``.
CODINGS: tuple[str, ...] = ("br", "gzip") if brotli is not None else ("gzip",)
CACHE_CONTROL = "private, no-cache"
_ENTITY_TAG = re.compile(r'\s*(?:W/)?"([^"]*)"\s*(?:,|$)')


# --- Accept-Encoding


def _qvalue(params: list[str]) -> float | None:
    """The ``q`` of a list element's parameters (1 when absent); None when it is malformed."""
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return None
            return q if 0 <= q <= 1 else None
    return 1.0


def acceptable_codings(header: str | None, offered: Sequence[str] = CODINGS) -> list[str]:
    """The content codings of ``offered`` plus ``identity`` that ``header`` (``Accept-Encoding``)
    accepts, most preferred first (RFC 9110 §12.5.3). No header: identity only (compressing
    for a client that did not ask is allowed, and breaks naive clients)."""
    if header is None:
        return [IDENTITY]
    weights: dict[str, float] = {}
    for element in header.split(","):
        coding, *params = element.split(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        if coding == "x-gzip":
            coding = "gzip"
        q = _qvalue(params)
        if q is not None:
            weights[coding] = q
    star = weights.get("*")
    candidates = (*offered, IDENTITY)
    ranked: list[tuple[float, int, str]] = []
    for order, coding in enumerate(candidates):
        q = weights.get(coding)
        if q is None:
            # an unlisted coding takes ``*``'s weight; unlisted identity stays acceptable (last)
            # unless ``*;q=0`` refuses it
            q = star if star is not None else (UNLISTED_IDENTITY if coding == IDENTITY else 0)
        if q > 0:
            ranked.append((-q, order, coding))
    return [coding for _, _, coding in sorted(ranked)]


def compress(body: bytes, coding: str) -> bytes:
    if coding == "gzip":
        return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    if coding == "br" and brotli is not None:
        return bytes(brotli.compress(body, quality=BROTLI_QUALITY))
    raise ValueError(f"unknown content coding {coding!r}")


# --- entity tags


#: hashlib lets go of the GIL to hash 2048 bytes or more at once: under waitress's busy
#: threads, a hand-off to another thread for each response. A body up to
#: :data:`HASHED_IN_GIL` is hashed in pieces just under that; a larger one (a page) at once.
HASH_PIECE = 2047
HASHED_IN_GIL = 64 * 1024


def _digest(headers: Headers, body: bytes, paging: Sequence[str]) -> str:
    """The identity representation's opaque tag: body and pagination headers, hashed."""
    if len(body) <= HASHED_IN_GIL:
        hashed = hashlib.sha256()
        view = memoryview(body)
        for start in range(0, len(body), HASH_PIECE):
            hashed.update(view[start : start + HASH_PIECE])
    else:
        hashed = hashlib.sha256(body)
    for name in paging:
        for value in headers.get(name.lower(), ()):
            hashed.update(f"\n{name}: {value}".encode())
    return base64.urlsafe_b64encode(hashed.digest()[:18]).decode("ascii")


def entity_tag(opaque: str, coding: str, weak: bool = False) -> str:
    """The tag of ``coding``'s representation: ``"<opaque>"``, ``"<opaque>-gzip"``, …"""
    prefix = "W/" if weak else ""
    return f'{prefix}"{opaque}"' if coding == IDENTITY else f'{prefix}"{opaque}-{coding}"'


def _own_tag(headers: Headers) -> tuple[bool, str] | None:
    """``(weak, opaque)`` of an ETag the view set itself (None when it set none)."""
    if "etag" not in headers:
        return None
    value = headers["etag"][-1].strip()
    weak = value.startswith("W/")
    return weak, value.removeprefix("W/").strip('"')


def if_none_match(header: str) -> set[str] | None:
    """The opaque tags of an ``If-None-Match`` list (weak or strong alike); None for ``*``."""
    if header.strip() == "*":
        return None
    return {match.group(1) for match in _ENTITY_TAG.finditer(header)}


def _matched_coding(header: str, opaque: str, codings: Sequence[str]) -> str | None:
    """The acceptable coding whose representation the client holds, by ``If-None-Match``."""
    listed = if_none_match(header)
    if listed is None:
        return codings[0]
    for coding in codings:
        if entity_tag(opaque, coding).strip('"') in listed:
            return coding
    return None


# --- the tween

#: A response's headers by lowercased name, each with its values in order: read once by
#: :func:`finish` (every lookup of webob's ``response.headers`` lowercases every name).
Headers = dict[str, list[str]]


def _headers(response: Response) -> Headers:
    found: Headers = {}
    for name, value in response.headerlist:
        found.setdefault(name.lower(), []).append(value)
    return found


def _is_json(headers: Headers) -> bool:
    # ``response.content_type``: the last Content-Type's media type
    media_type = headers.get("content-type", [""])[-1].split(";", 1)[0].lower()
    return media_type == "application/json" or media_type.endswith("+json")


def _in_memory(response: Response) -> bool:
    return isinstance(response.app_iter, (list, tuple))


def _compressible(response: Response, headers: Headers, status: int) -> bool:
    if status in (204, 304) or "content-encoding" in headers:
        return False
    if "no-transform" in headers.get("cache-control", [""])[-1].lower():
        return False
    if not (_is_json(headers) and _in_memory(response)):
        return False
    # ``response.content_length``: the first Content-Length, None unless an integer
    length = headers.get("content-length", [""])[0]
    try:
        return int(length) > MIN_COMPRESS_BYTES
    except ValueError:
        return False


def _validated(request: Request, response: Response, headers: Headers, status: int) -> bool:
    """An ETag goes on 200 answers to GET/HEAD under the API root."""
    if request.method not in ("GET", "HEAD") or status != 200:
        return False
    if "etag" not in headers and not _in_memory(response):
        return False
    try:
        return api_path(request) is not None
    except UnicodeError:
        return False


def add_vary(response: Response, field: str) -> None:
    present = [item.strip().lower() for item in response.headers.get("Vary", "").split(",")]
    if field.lower() not in present and "*" not in present:
        response.vary = (*(response.vary or ()), field)


def _add_vary(response: Response, headers: Headers, field: str) -> None:
    """:func:`add_vary` on a response without a ``Vary`` (the common case) appends it."""
    if "vary" in headers:
        add_vary(response, field)
    else:
        response.headerlist.append(("Vary", field))


def _not_modified(response: Response, etag: str) -> Response:
    close = getattr(response.app_iter, "close", None)
    response.status_code = 304
    response.app_iter = []
    if close is not None:  # a file the view opened
        close()
    for name in ("Content-Type", "Content-Length", "Content-Encoding"):
        if name in response.headers:
            del response.headers[name]
    response.headers["ETag"] = etag
    return response


def finish(request: Request, response: Response) -> Response:
    """ETag, 304, ``Vary`` and compression for ``response`` (changed in place or replaced)."""
    headers = _headers(response)  # as the view left them: what the checks below read
    status = response.status_code
    compressible = _compressible(response, headers, status)
    codings = [IDENTITY]
    if compressible:
        _add_vary(response, headers, "Accept-Encoding")
        # the request's headers by their CGI names: request.headers, less the lookup
        codings = acceptable_codings(request.environ.get("HTTP_ACCEPT_ENCODING")) or [IDENTITY]
    if _validated(request, response, headers, status):
        own = _own_tag(headers)
        if own is not None:  # the view's own tag names the identity representation
            weak, opaque = own
        else:
            shop = request.shop
            paging = (shop.header("Total"), shop.header("TotalPages"), "Link")
            weak, opaque = False, _digest(headers, response.body, paging)
        if "cache-control" not in headers:
            response.headerlist.append(("Cache-Control", CACHE_CONTROL))
        condition = request.environ.get("HTTP_IF_NONE_MATCH")
        if condition is not None:
            matched = _matched_coding(condition, opaque, codings)
            if matched is not None:
                return _not_modified(response, entity_tag(opaque, matched, weak))
        tag = entity_tag(opaque, codings[0], weak)
        if own is None:
            response.headerlist.append(("ETag", tag))
        else:
            response.headers["ETag"] = tag
    if compressible and codings[0] != IDENTITY:
        response.body = compress(response.body, codings[0])
        response.headers["Content-Encoding"] = codings[0]
    return response


def http_cache_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    def http_cache_tween(request: Request) -> Response:
        return finish(request, handler(request))

    return http_cache_tween
