"""The access tween (outermost): each request's id (``request.request_id``: the caller's
``X-Request-Id`` when it is a short safe token, else a new one), HEAD bodies dropped, and the
access log line."""

from __future__ import annotations

import logging
import os
import random
import re
import time
from collections.abc import Callable
from typing import Any

from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.logs import REQUEST_ID

log = logging.getLogger(__name__)


access_log = logging.getLogger("shopsvc.access")


#: An incoming ``X-Request-Id`` is reused only when it is such a token (it goes into every log
#: line and back out in a header); anything else gets a fresh id.
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


#: Probes and scrapes whose successful requests are logged at DEBUG (a load balancer calls the
#: probes every few seconds, Prometheus ``/metrics`` every 15 seconds or so).
QUIET_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
#: Where the gate keeps the caller it authenticated (this log names its key).
IDENTITY = "shopsvc.identity"


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


def bytes_sent(request: Request, response: Response) -> int | None:
    """The body's bytes as the access log and the metrics count them (none for HEAD, 204, 304)."""
    if request.method == "HEAD" or response.status_code in (204, 304):
        return 0
    return response.content_length


def _key_id(request: Request) -> int | None:
    """The id of the key the request authenticated with (never the key itself)."""
    identity = request.environ.get(IDENTITY)
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
    sent = bytes_sent(request, response) if response is not None else None
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
