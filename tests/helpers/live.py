"""A WSGI application served over real HTTP on 127.0.0.1 for the length of a test (a generated
client, schemathesis): a quiet, threading ``wsgiref`` server on a free port."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


@contextmanager
def served(wsgi_app: Any, path: str = "") -> Iterator[str]:
    """``wsgi_app`` served on 127.0.0.1 (a thread per request); its base URL with ``path``."""
    server = make_server(
        "127.0.0.1", 0, wsgi_app, server_class=_ThreadingServer, handler_class=_QuietHandler
    )
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{path}"
    finally:
        server.shutdown()
        server.server_close()
