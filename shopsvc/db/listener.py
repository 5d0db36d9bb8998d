"""A daemon thread that ``LISTEN``\\ s on a PostgreSQL channel: the webhook worker's wake-ups
(``delivery.worker``) and the key cache's changes (``auth.key_cache``).

The thread holds a connection of its own, outside the engine's pool (a pooled connection held
for good would take a request's place), and calls ``heard(payload)`` for each notification.
A lost connection (a restart, ``pg_terminate_backend``) is replaced after ``retry_seconds``;
``listening(True/False, listener)``, when given, is told each time the ``LISTEN`` starts or
stops holding. :meth:`Listener.close` asks the thread to end, which it does at its next look
(every ``poll_seconds``) without being waited for; :meth:`Listener.join` waits.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from shopsvc.sql.common import listen_statement

log = logging.getLogger(__name__)


class Listener:
    """``LISTEN channel`` in a daemon thread (see the module)."""

    def __init__(
        self,
        engine: Engine,
        channel: str,
        heard: Callable[[str], None],
        *,
        name: str,
        listening: Callable[[bool, Listener], None] | None = None,
        retry_seconds: float = 1.0,
        poll_seconds: float = 1.0,
    ) -> None:
        self._engine = engine
        self.channel = channel
        self._heard = heard
        self._listening = listening
        self._retry = retry_seconds
        self._poll = poll_seconds
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def alive(self) -> bool:
        return self._thread.is_alive() and not self._closed.is_set()

    def close(self) -> None:
        self._closed.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _connect(self) -> Any:
        engine = self._engine
        args, kwargs = engine.dialect.create_connect_args(engine.url)
        driver = engine.dialect.loaded_dbapi.connect(*args, **kwargs, autocommit=True)
        driver.execute(listen_statement(self.channel))
        return driver

    def _told(self, listening: bool) -> None:
        if self._listening is not None:
            self._listening(listening, self)

    def _run(self) -> None:
        failing = False  # the first failure of a streak is a warning, the others debug
        while not self._closed.is_set():
            driver = None
            try:
                driver = self._connect()
                failing = False
                self._told(True)
                while not self._closed.is_set():
                    for notice in driver.notifies(timeout=self._poll):
                        self._heard(notice.payload)
            except Exception as exc:  # a lost connection: listen again
                if not self._closed.is_set():
                    level = logging.DEBUG if failing else logging.WARNING
                    log.log(level, "listening on %s failed (%s); retrying", self.channel, exc)
                    failing = True
            finally:
                self._told(False)
                if driver is not None:
                    with contextlib.suppress(Exception):  # already broken
                        driver.close()
            self._closed.wait(self._retry)
