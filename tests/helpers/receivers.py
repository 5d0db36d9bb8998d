"""Local webhook receivers for the delivery tests: an HTTP server on 127.0.0.1 that records every
request (method, path, headers as sent, body) and answers each one as its script says — a status,
after a delay, held until released, a redirect, or a connection closed without an answer.

Built on :class:`tests.helpers.server.LocalServer` and ``QuietHandler``. Waits inside the handler
(``delay``, ``hold``) end as soon as the receiver closes, so a test never waits for a receiver
the worker has stopped listening to.
"""

from __future__ import annotations

import collections
import json
import socket
import threading
import time
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any

from tests.helpers.server import POLL_INTERVAL, LocalServer, QuietHandler

#: How long a ``hold`` answer waits for :meth:`Receiver.release` at most.
HOLD_LIMIT = 10.0
#: Where a ``redirect`` answer sends the client (on the receiver itself, so that a client that
#: followed it would be seen).
REDIRECT_PATH = "/elsewhere"


@dataclass(frozen=True)
class Answer:
    """How the receiver answers one request.

    ``status`` with ``body`` (empty unless given); after ``delay`` seconds; ``hold``: not
    before :meth:`Receiver.release` is called; ``close``: close the connection without any
    answer; ``location``: a ``Location`` header (see :func:`redirect`)."""

    status: int = 200
    delay: float = 0.0
    hold: bool = False
    close: bool = False
    location: str | None = None
    body: bytes = b""


def slow(seconds: float, status: int = 200) -> Answer:
    return Answer(status, delay=seconds)


def held(status: int = 200) -> Answer:
    return Answer(status, hold=True)


def closed() -> Answer:
    return Answer(close=True)


def redirect(status: int = 302) -> Answer:
    return Answer(status, location=REDIRECT_PATH)


AnswerLike = Answer | int


def _answer(value: AnswerLike) -> Answer:
    return value if isinstance(value, Answer) else Answer(value)


@dataclass(frozen=True)
class Received:
    """One request as the receiver saw it: ``headers`` with their names as sent."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() when it arrived

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        """A header, whatever the case of its name."""
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None

    @property
    def delivery_id(self) -> str | None:
        return self.header("X-Shop-Webhook-Delivery-ID")


def free_port() -> int:
    """A port of 127.0.0.1 on which nothing listens (just now)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Receiver(LocalServer):
    """A webhook receiver on ``http://127.0.0.1:<port>``; :attr:`url` is its ``/hook``.

    ``script`` answers the first requests in turn (statuses or :class:`Answer`), then every
    request gets ``default``. :attr:`requests` holds what arrived (every method and path),
    :attr:`connections` how many connections were accepted. ``port``: listen on that port (a
    receiver that comes back where one was down)."""

    def __init__(self, *script: AnswerLike, default: AnswerLike = 200, port: int = 0) -> None:
        self.requests: list[Received] = []
        self.connections = 0
        self.script: collections.deque[Answer] = collections.deque(_answer(a) for a in script)
        self.default = _answer(default)
        self._changed = threading.Condition()
        self._released = threading.Event()
        self._closing = threading.Event()
        receiver = self

        class Handler(QuietHandler):
            def setup(self) -> None:
                super().setup()
                with receiver._changed:
                    receiver.connections += 1

            def do_POST(self) -> None:
                self._serve()

            def do_GET(self) -> None:
                self._serve()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                answer = receiver._record(
                    Received(self.command, self.path, dict(self.headers), body, time.monotonic())
                )
                receiver._wait(answer)
                if answer.close:
                    self.close_connection = True
                    return
                try:
                    self.send_response(answer.status)
                    if answer.location:
                        self.send_header("Location", answer.location)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except OSError:  # the client gave up waiting (a timeout)
                    self.close_connection = True

        # LocalServer's own set-up, on a port of our choice
        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_port
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = self.base + "/hook"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL}, daemon=True
        )
        self.thread.start()

    # --- the handler's side

    def _record(self, received: Received) -> Answer:
        with self._changed:
            self.requests.append(received)
            answer = self.script.popleft() if self.script else self.default
            self._changed.notify_all()
        return answer

    def _wait(self, answer: Answer) -> None:
        if answer.hold:
            deadline = time.monotonic() + HOLD_LIMIT
            while not self._released.is_set() and not self._closing.is_set():
                if time.monotonic() > deadline:
                    break
                self._released.wait(POLL_INTERVAL)
        if answer.delay:
            self._closing.wait(answer.delay)

    # --- the test's side

    def answer(self, *script: AnswerLike, default: AnswerLike | None = None) -> None:
        """Answer the next requests with ``script`` (then ``default``, if given, from now on)."""
        with self._changed:
            self.script.extend(_answer(a) for a in script)
            if default is not None:
                self.default = _answer(default)

    def release(self) -> None:
        """Let every held request (and every later one) answer."""
        self._released.set()

    def wait_for(self, count: int, timeout: float = 5.0) -> bool:
        """Whether ``count`` requests have arrived within ``timeout`` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self.requests) >= count, timeout)

    @property
    def posts(self) -> list[Received]:
        """The POSTs to :attr:`url`'s path."""
        return [r for r in list(self.requests) if r.method == "POST" and r.path == "/hook"]

    def delivery_ids(self) -> list[str | None]:
        return [r.delivery_id for r in self.posts]

    def bodies(self) -> list[Any]:
        return [r.json for r in self.posts]

    def close(self) -> None:
        self._closing.set()
        self._released.set()
        super().close()
