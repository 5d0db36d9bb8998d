"""The shared protocol around every route: request helpers and the tweens.

From the outside in: ``access_tween`` (outermost) gives each request its id (``request_id``: the
caller's ``X-Request-Id`` when it is a short safe token), strips HEAD bodies and writes the access
log line; the CORS tween (``cors.py``) and the HTTP cache tween (``http_cache.py``: ETags, 304s,
compression) come next; ``transaction_tween`` answers undecodable paths and queries, commits the
request's transaction on success and rolls it back on any error (then runs the on-rollback
callbacks, which delete files the request stored) and runs the after-commit callbacks (the webhook
ping) before the response leaves. ``protocol_tween`` (under the exception view, so its errors
render as API errors) applies the method override, refuses JSONP, authenticates before routing
(everything under the API root but the root itself and the public documentation), refuses unknown
methods and trailing slashes.
"""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import json
import logging
import os
import random
import re
import time
from collections.abc import Callable
from typing import Any

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response
from pyramid.tweens import EXCVIEW, INGRESS
from sqlalchemy.exc import DBAPIError

from shopsvc.db import run_on_rollback
from shopsvc.domain.events import EventSet
from shopsvc.errors import ApiError, busy, invalid_param, is_busy, no_route
from shopsvc.logs import REQUEST_ID, install_record_factory
from shopsvc.media import download_image
from shopsvc.records.context import RecordContext
from shopsvc.rendering import error_response
from shopsvc.settings import Settings
from shopsvc.sql import deliveries as deliveries_sql
from shopsvc.sql.tables import utc_now
from shopsvc.writers.context import WriteContext

access_log = logging.getLogger("shopsvc.access")
log = logging.getLogger(__name__)

KNOWN_METHODS = frozenset({"HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"})
#: An incoming ``X-Request-Id`` is reused only when it is such a token (it goes into every log
#: line and back out in a header); anything else gets a fresh id.
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
#: Paths below the API root served without authentication (besides the root itself): the
#: OpenAPI document and the documentation page with everything below it.
PUBLIC_API_PATHS = frozenset({"/openapi.json", "/docs"})
PUBLIC_API_PREFIXES = ("/docs/",)
#: Probes whose successful requests are logged at DEBUG (a load balancer calls them every few
#: seconds).
QUIET_PATHS = frozenset({"/healthz", "/readyz"})


# --- request helpers


def _signed_query(request: Request) -> dict[str, str]:
    """The query string with repeated parameters collapsed: the last value wins, in the position of
    the first (what PHP's ``$_GET`` does, and what the legacy clients rely on). Authentication
    reads (and OAuth signs) exactly this."""
    return dict(request.GET.items())


def _client_question_mark(pairs: list[tuple[str, str]]) -> str | None:
    """The parameter whose value carries the ``?`` the Python ``woocommerce`` client appends.

    Given an endpoint with a query (``get("webhooks?status=paused")``, the form its maintainers
    recommend), the client adds ``?`` to the URL, so the last parameter of the endpoint arrives as
    ``status=paused?``, signed, followed only by the client's ``oauth_*`` parameters. Only that
    shape counts: a request whose ``oauth_*`` block is not the tail (the client sends ``params=``
    a second time after it) or that has no parameter before it carries no such ``?``.
    """
    first_oauth = next((i for i, (k, _) in enumerate(pairs) if k.startswith("oauth_")), None)
    if not first_oauth or not all(k.startswith("oauth_") for k, _ in pairs[first_oauth:]):
        return None
    if "oauth_signature" not in dict(pairs[first_oauth:]):
        return None
    key, value = pairs[first_oauth - 1]
    return key if value.endswith("?") else None


def _query(request: Request) -> dict[str, str]:
    """The query string as the handlers read it: :func:`_signed_query` without the stray ``?``
    that the Python ``woocommerce`` client appends to the last value of an endpoint's query
    (so ``status=paused?`` means ``paused`` and ``force=true?`` means ``true``)."""
    query = dict(request.signed_query)
    stray = _client_question_mark(list(request.GET.items()))
    if stray is not None:
        query[stray] = query[stray][:-1]
    return query


def _filters(request: Request) -> dict[str, str]:
    """``filter[limit]=5&filter[q]=x`` → ``{"limit": "5", "q": "x"}``."""
    found: dict[str, str] = {}
    for key, value in request.query.items():
        if key.startswith("filter[") and key.endswith("]"):
            found[key[7:-1]] = value
    return found


# The request headers read on every request are read from the environ by their CGI names
# (``HTTP_X_REQUEST_ID``), as ``request.headers`` does after translating the name each time.


def _request_id(request: Request) -> str:
    """The caller's ``X-Request-Id`` when it is a short token of safe characters, else a new
    one."""
    given = request.environ.get("HTTP_X_REQUEST_ID", "")
    if SAFE_REQUEST_ID.fullmatch(given):
        return given
    return new_request_id()


#: Request ids are no secret: drawn from a generator seeded from ``os.urandom`` (again in a
#: forked child), not from ``os.urandom`` itself, a system call that lets go of the GIL on every
#: request (under waitress's busy threads, a hand-off to another thread).
_REQUEST_IDS = random.Random()
os.register_at_fork(after_in_child=_REQUEST_IDS.seed)
#: The bits of a version 4 UUID that are not random: version 4, variant RFC 4122.
_UUID4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)


def new_request_id() -> str:
    """A random (version 4) UUID's 32 hex digits, as ``uuid.uuid4().hex`` writes them, without
    the ``UUID`` object."""
    return f"{_REQUEST_IDS.getrandbits(128) & _UUID4_CLEAR | _UUID4_SET:032x}"


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


def _envelope(request: Request, key: str, code: str, message: str) -> Any:
    """The value under the envelope ``key`` of the JSON body.

    Unparseable JSON → 400 ``shop_api_invalid_json``; an empty body, a body that is not an object,
    an absent key or a null envelope → the route's own missing-data error.
    """
    body = request.json_object
    value = body.get(key) if isinstance(body, dict) else None
    if value is None:
        raise ApiError(code, message, 400)
    return value


#: JSON integers longer than this are read as ±10**HUGE_DIGITS: far beyond every integer column,
#: so the field's own range check names it, and never the thousands of digits that Python will
#: not convert (nor the quadratic cost of converting them).
HUGE_DIGITS = 400


def _parse_int(text: str) -> int:
    if len(text) <= HUGE_DIGITS:
        return int(text)
    return -(10**HUGE_DIGITS) if text.startswith("-") else 10**HUGE_DIGITS


def _refuse_constant(name: str) -> Any:
    # Python's parser accepts NaN and ±Infinity; JSON (RFC 8259) has no such values.
    raise ValueError(f"{name} is not valid JSON")


#: How deeply a JSON body may nest objects and arrays (a product with variations and their
#: attributes needs six levels); deeper bodies are refused before anything walks them.
MAX_JSON_DEPTH = 64


def _check_json_value(body: Any) -> None:
    """Refuse a decoded body that nests deeper than ``MAX_JSON_DEPTH`` or holds text that is not
    Unicode (``"\\ud800"``, which can be neither stored nor sent back). Iterative, so no body can
    exhaust the interpreter's stack."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ApiError(
                    "shop_api_invalid_json", "Invalid JSON body: unpaired surrogate.", 400
                ) from None
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > MAX_JSON_DEPTH:
            raise ApiError(
                "shop_api_invalid_json",
                f"Invalid JSON body: nested deeper than {MAX_JSON_DEPTH} levels.",
                400,
            )
        if isinstance(value, dict):
            for key, item in value.items():
                stack.append((key, depth))
                stack.append((item, depth + 1))
        else:
            stack.extend((item, depth + 1) for item in value)


def too_large(limit: int) -> ApiError:
    return ApiError(
        "shop_api_request_entity_too_large",
        f"The request body is larger than {limit} bytes.",
        413,
    )


def _read_body(request: Request) -> bytes:
    """The body, read up to ``max_body_bytes`` (a declared length above it was refused by the
    protocol tween; a body without a declared length is read no further than one byte past it)."""
    limit = request.shop.max_body_bytes
    if request.content_length is not None:
        return request.body
    if not request.is_body_readable:
        return b""
    raw = request.body_file_raw.read(limit + 1)
    if len(raw) > limit:
        raise too_large(limit)
    return raw


def _json_object(request: Request) -> Any:
    raw = _read_body(request)
    if not raw or not raw.strip():
        return None
    try:
        text = raw.decode(request.charset or "utf-8")
        body = json.loads(text, parse_constant=_refuse_constant, parse_int=_parse_int)
    except UnicodeDecodeError as exc:
        raise ApiError("shop_api_invalid_json", f"Invalid JSON body: {exc.reason}.", 400) from None
    except LookupError:  # an unknown charset in the Content-Type
        raise ApiError(
            "shop_api_invalid_json", f"Invalid JSON body: unknown charset {request.charset}.", 400
        ) from None
    except RecursionError:
        raise ApiError(
            "shop_api_invalid_json", "Invalid JSON body: nested too deeply.", 400
        ) from None
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise ApiError("shop_api_invalid_json", f"Invalid JSON body: {exc}.", 400) from None
    _check_json_value(body)
    return body


def _record_context(request: Request) -> RecordContext:
    """What records are built from, for this request: its connection, the settings, the URL
    the client sees and the caller's capabilities."""
    identity = request.identity
    return RecordContext(
        conn=request.db,
        settings=request.shop,
        public_url=request.public_url,
        capabilities=identity.capabilities if identity is not None else frozenset(),
        now=dt.datetime.now(dt.UTC),
    )


def _write_context(request: Request) -> WriteContext:
    """What writers get instead of the request: its connection, the settings, one timestamp for
    the whole request, and image downloads that are deleted again when the request rolls back."""
    return WriteContext(
        conn=request.db,
        settings=request.shop,
        now=utc_now(),
        download=functools.partial(download_image, request),
        events=request.events,
    )


def _events(request: Request) -> EventSet:
    """The webhook events of the request's changes; queued in the outbox just before its
    transaction commits (:func:`_queue_events`)."""
    return EventSet()


def _queue_events(request: Request) -> None:
    """Put the request's events in the outbox, in its own transaction; after the commit the
    in-process deliverer (if any) is woken."""
    events = request.__dict__.get("events")
    if not events:
        return
    queued = deliveries_sql.enqueue(
        request.db, events.fired(), request.public_url, deliveries_sql.now_precise()
    )
    if queued:
        wake = getattr(request.registry, "wake_deliveries", None)
        if wake is not None:
            request.after_commit(wake)


def _require(request: Request, capability: str, code: str, message: str) -> None:
    """401 ``code`` unless the authenticated user holds ``capability``."""
    if not request.has_permission(capability):
        raise ApiError(code, message, 401)


# --- tweens


def _odd_segments(path: str) -> bool:
    """True for a path with an empty (``//``), ``.`` or ``..`` segment. Traversal would skip or
    resolve such segments, so the path would reach a view under a different spelling of the API
    root than the one authentication looks at; these paths are no route, before authentication
    (a single trailing slash is judged by the routes: the API root's index accepts it)."""
    segments = path.split("/")[1:]
    if segments and segments[-1] == "":
        segments.pop()
    return any(segment in ("", ".", "..") for segment in segments)


def api_path(request: Request) -> str | None:
    """The path below the API root (``""`` for the root itself), or None outside the API.
    Raises ``UnicodeError`` for a path that is not UTF-8."""
    root = request.shop.api_root.lower()
    path = request.path_info
    lowered = path.lower()
    if lowered == root or lowered == root + "/":
        return ""
    if lowered.startswith(root + "/"):
        return path[len(root) :]
    return None


def _public(below: str) -> bool:
    """The root and the documentation are served without authentication."""
    lowered = below.lower()
    return lowered == "" or lowered in PUBLIC_API_PATHS or lowered.startswith(PUBLIC_API_PREFIXES)


def _override_method(request: Request) -> None:
    override = request.GET.get("_method")
    if override:
        request.method = override.upper()
    elif "HTTP_X_HTTP_METHOD_OVERRIDE" in request.environ:
        request.method = request.environ["HTTP_X_HTTP_METHOD_OVERRIDE"]


def protocol_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    def protocol_tween(request: Request) -> Response:
        _override_method(request)
        if _odd_segments(request.path_info):
            raise no_route()
        limit = request.shop.max_body_bytes
        if request.content_length is not None and request.content_length > limit:
            raise too_large(limit)
        below = api_path(request)
        if below is not None and "_jsonp" in request.GET:
            # The original answers any JSONP request, the root and auth failures included, with
            # this error (its JSON handler replaces whatever the response would have been).
            raise ApiError("shop_api_jsonp_disabled", "JSONP support is disabled on this site", 400)
        if below is None or _public(below):
            if request.method not in KNOWN_METHODS:
                raise ApiError("shop_api_unsupported_method", "Unsupported request method", 400)
            return handler(request)
        # authentication runs before routing; the access log names the key
        request.environ["shopsvc.identity"] = request.identity
        if request.method not in KNOWN_METHODS:
            raise ApiError("shop_api_unsupported_method", "Unsupported request method", 400)
        if below.endswith("/"):
            raise no_route()
        return handler(request)

    return protocol_tween


def _finish_transaction(request: Request, success: bool) -> None:
    connection = request.environ.pop("shopsvc.connection", None)
    if connection is None:
        return
    try:
        if success:
            connection.commit()
        else:
            try:
                connection.rollback()
            except DBAPIError as exc:
                if not exc.connection_invalidated:
                    raise
                # The connection was lost (a database restart): the server ended its
                # transaction with it, and the pool has let it go.
                log.warning("rollback on a lost connection: %s", exc.orig)
    finally:
        connection.close()


def _run_after_commit(request: Request) -> None:
    for callback in request.environ.pop("shopsvc.after_commit", []):
        try:
            callback()
        except Exception:
            log.exception("after-commit callback failed")


def _undecodable(request: Request) -> ApiError | None:
    """A path or query string that is not UTF-8 (``%ff``) or holds a NUL (which PostgreSQL text
    cannot store) names no route or parameter; say so before anything else trips over it."""
    try:
        if "\x00" in request.path_info:
            return no_route()
    except UnicodeError:
        return no_route()
    try:
        pairs = list(request.GET.items())
    except UnicodeError:
        return invalid_param("query string", "not valid UTF-8")
    for key, value in pairs:
        if "\x00" in key or "\x00" in value:
            return invalid_param(key.replace("\x00", "\\0"), "must not contain NUL characters")
    return None


#: Control characters (a ``%0A`` in a path, a ``_method`` override) would forge lines in a
#: plain-text log: they are written as ``\xNN``.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _for_log(text: str, limit: int) -> str:
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text[:limit])


def _path_for_log(request: Request) -> str:
    """The path only: query strings may carry ``consumer_secret`` and OAuth signatures."""
    try:
        path: str = request.path
    except UnicodeError:
        return repr(request.environ.get("PATH_INFO", ""))
    return _for_log(path, 2000)


def transaction_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    def transaction_tween(request: Request) -> Response:
        try:
            undecodable = _undecodable(request)
            if undecodable is not None:
                response = error_response(request, undecodable)
            else:
                response = handler(request)
            success = response.status_code < 400 and getattr(request, "exception", None) is None
            try:
                if success:
                    _queue_events(request)
                _finish_transaction(request, success)
            except DBAPIError as exc:  # the outbox or the commit could not get its lock
                if not is_busy(exc):
                    raise
                _finish_transaction(request, False)
                success = False
                response = error_response(request, busy())
            if success:
                request.environ.pop("shopsvc.on_rollback", None)
            else:
                run_on_rollback(request)
            if success:
                _run_after_commit(request)
            return response
        except BaseException:
            _finish_transaction(request, False)
            run_on_rollback(request)
            raise

    return transaction_tween


def _bytes_sent(request: Request, response: Response) -> int | None:
    if request.method == "HEAD" or response.status_code in (204, 304):
        return 0
    return response.content_length


def _key_id(request: Request) -> int | None:
    """The id of the key the request authenticated with (never the key itself)."""
    identity = request.environ.get("shopsvc.identity")
    return identity.key_id if identity is not None else None


def _log_access(request: Request, response: Response | None, started: float) -> None:
    """One line per request: its fields as ``extra=`` (``logs.ACCESS_FIELDS``), the message
    a human line of them. Successful health probes go to DEBUG."""
    if not access_log.isEnabledFor(logging.INFO):  # nor DEBUG then: nothing would be written
        return
    status = response.status_code if response is not None else 500
    path = _path_for_log(request)
    method = _for_log(request.method, 32)
    duration = round((time.perf_counter() - started) * 1000, 1)
    sent = _bytes_sent(request, response) if response is not None else None
    key_id = _key_id(request)
    client_ip = request.client_ip
    level = logging.DEBUG if status < 400 and path in QUIET_PATHS else logging.INFO
    access_log.log(
        level,
        "%s %s %s %.1fms %sB %s key=%s",
        method,
        path,
        status,
        duration,
        "-" if sent is None else sent,
        client_ip or "-",
        "-" if key_id is None else key_id,
        extra={  # request_id: the record factory adds it (logs.install_record_factory)
            "method": method,
            "path": path,
            "status": status,
            "duration_ms": duration,
            "response_bytes": sent,
            "client_ip": client_ip,
            "key_id": key_id,
        },
    )


def _strip_head_body(response: Response) -> None:
    """A HEAD response keeps every header of the GET (``Content-Length`` included), no body."""
    length = response.content_length
    close = getattr(response.app_iter, "close", None)
    response.app_iter = [b""]
    response.content_length = length
    if close is not None:
        close()


def access_tween_factory(handler: Callable[[Request], Response], registry: Registry) -> Any:
    """Outermost: the request id (``X-Request-Id`` out, in every log record meanwhile), HEAD
    bodies dropped, and the access log line."""

    def access_tween(request: Request) -> Response:
        started = time.perf_counter()
        token = REQUEST_ID.set(request.request_id)
        response: Response | None = None
        try:
            response = handler(request)
            response.headers["X-Request-Id"] = request.request_id
            if request.method == "HEAD":
                _strip_head_body(response)
            return response
        finally:
            try:
                _log_access(request, response, started)
            finally:
                REQUEST_ID.reset(token)

    return access_tween


def includeme(config: Configurator) -> None:
    """The log record factory and the tweens (the request's attributes: ``shopsvc.request``)."""
    install_record_factory()
    # outermost → innermost: access, cors (cors.py), http_cache (http_cache.py), transaction,
    # the exception view, protocol, the router
    config.add_tween("shopsvc.protocol.access_tween_factory", under=INGRESS)
    config.add_tween("shopsvc.protocol.transaction_tween_factory", over=EXCVIEW)
    config.add_tween("shopsvc.protocol.protocol_tween_factory", under=EXCVIEW)
