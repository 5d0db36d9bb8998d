"""The one local HTTP server of the tests, and the image host built on it.

:class:`LocalServer` binds 127.0.0.1 on a free port and serves from a daemon thread; its request
threads are daemons too, and ``serve_forever`` polls every :data:`POLL_INTERVAL` seconds, so
closing it takes milliseconds (the default poll of half a second made every server fixture cost
half a second at teardown).
"""

from __future__ import annotations

import base64
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

POLL_INTERVAL = 0.01

#: A 1×1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing and can answer in one call."""

    def send(self, status: int, body: bytes, content_type: str, length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class LocalServer:
    """``handler`` served on ``http://127.0.0.1:<free port>`` until :meth:`close` (or the end of
    the ``with`` block)."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port: int = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


#: What the image host answers, by path: ``(status, content type, body)``. Any path under
#: ``/img/`` is the PNG too (each test picks its own file names); anything else is a 404.
IMAGES: dict[str, tuple[int, str, bytes]] = {
    "/image.png": (200, "image/png", PNG),
    "/fake.png": (200, "image/png", b"<html>not an image</html>"),
    "/text.txt": (200, "image/png", b"not an image"),
}


class ImageHandler(QuietHandler):
    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.startswith("/img/"):
            self.send(200, PNG, "image/png")
        elif path in IMAGES:
            status, content_type, body = IMAGES[path]
            self.send(status, body, content_type)
        else:
            self.send(404, b"", "text/plain")
