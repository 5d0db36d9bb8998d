"""Bodiless answers that keep the connection open under waitress.

A 304 (``If-None-Match`` matched, ``web/http_cache.py``) or a 204 (a CORS preflight) has no body
and ends with its header block (RFC 9112 §6.3): nothing needs a ``Content-Length`` to say where
it ends, and the connection can carry the client's next request. waitress 3 nevertheless
closes an HTTP/1.1 connection after every response without a ``Content-Length`` header — and
it drops that header from a 304 or 204 itself (and closes when the bytes it announces are
missing), so no header the application sets keeps the connection open: a client polling with
``If-None-Match`` reconnected for every 304.

:func:`install` makes waitress's channels run their requests as :class:`KeepAliveTask`, which
skips that one close: when the response is bodiless, the request HTTP/1.1 and the client did
not ask to close. Everything else — ``Connection: close`` asked by the client, HTTP/1.0, a body
without a length, an application that sent too few bytes, errors — closes as before. The app
factory calls it, so it holds wherever the app is served by waitress in this process
(``pserve``, ``waitress-serve``, a test's server); ``tests/web/test_keep_alive.py`` checks it on
a real waitress server, and fails if a waitress upgrade changes the hooks used here
(``WSGITask.build_response_header`` calling ``set_close_on_finish``).
"""

from __future__ import annotations

from waitress.channel import HTTPChannel
from waitress.task import WSGITask


class KeepAliveTask(WSGITask):  # type: ignore[misc]
    """waitress's WSGI task, but a bodiless HTTP/1.1 answer keeps the connection open."""

    _building_headers = False

    def build_response_header(self) -> bytes:
        self._building_headers = True
        try:
            return bytes(super().build_response_header())
        finally:
            self._building_headers = False

    def set_close_on_finish(self) -> None:
        if self._building_headers and self._ends_with_its_headers():
            return  # the close waitress makes for a missing Content-Length: none is needed
        super().set_close_on_finish()

    def _ends_with_its_headers(self) -> bool:
        asked_to_close = self.request.headers.get("CONNECTION", "").lower() == "close"
        return not self.has_body and self.version == "1.1" and not asked_to_close


def install() -> None:
    """Run waitress's requests as :class:`KeepAliveTask` (once; a no-op after)."""
    if HTTPChannel.task_class is WSGITask:
        HTTPChannel.task_class = KeepAliveTask
