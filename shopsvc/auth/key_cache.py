"""The consumer keys a process has verified, kept in memory (PostgreSQL; issue 10, goal 2).

Every authenticated request looks its key up: on PostgreSQL a round trip of its own, a third of
a single record's. A :class:`KeyCache` keeps the rows it has read (``sql.auth.find_key``: the
key, its permissions and secret, its user's login and role) and answers from memory for as long
as nothing has changed them.

What changes them is told by the database itself. Triggers (migration 0008) send a
``NOTIFY`` on :data:`sql.auth.KEYS_CHANNEL` in the transaction of every change that matters
to a cached row, whoever makes it (the service, ``shopsvc CONFIG revoke-key``, a DBA's SQL):

* a key deleted, or its user, permissions, secret or hash changed: the payload is the key's
  hash, and that entry goes;
* a user deleted, or its login or role changed: ``user:<id>``, and that user's keys go;
* either table truncated: ``*``, and everything goes.

A thread of the process (``db.listener.Listener``) ``LISTEN``\\ s on a connection of its own
and applies each notification as it arrives. PostgreSQL delivers it when the change commits; the
thread applies it within moments, so a key revoked by the CLI is refused by the next request
that process serves. The cache answers only while that thread listens: before its ``LISTEN``
has run, and from a lost connection until a new one listens again, every lookup reads the
database (and the entries are dropped whenever listening starts anew).

Three rules keep a stale row out:

* a row is stored only if no notification arrived while it was being read (the cache's
  *generation*, which every notification and every (re)start of listening bumps): a change
  committed after the read's snapshot was taken always bumps it before the row could be stored;
* a missing key is never stored (a key created later is found at once);
* an entry is read again after :data:`MAX_AGE` seconds whatever happened, so that a lost
  notification (a connection pooler in transaction mode delivers none: see
  docs/configuration.md, ``shopsvc.auth.cache_keys``) cannot keep a revoked key alive for
  longer than that.

A child forked from the process (a pre-forking server) inherits the entries but not the
thread: it drops them and listens anew when first used (``os.register_at_fork``).

``last_access`` is not watched (it changes once a minute per key, ``sql.auth_writes.touch_key``): a
request that touches it updates its own entry (:meth:`KeyCache.touched`).

SQLite has no notifications: there the lookup is an in-process read of a few microseconds, and
every request keeps making it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from typing import Any

from sqlalchemy import Engine, event

from shopsvc.db.listener import Listener
from shopsvc.sql import auth as auth_sql

log = logging.getLogger(__name__)

#: Seconds after which an entry is read again even though no notification came.
MAX_AGE = 60.0
#: At most this many keys are kept (a store has a handful); past it the cache starts afresh.
MAX_ENTRIES = 10_000
#: Seconds between two attempts to listen again after the connection was lost.
RETRY_SECONDS = 1.0
#: How often (seconds) the listener looks whether it should stop.
POLL_SECONDS = 1.0


class KeyCache:
    """The keys of ``find_key`` by hash, kept while a listener hears of their changes."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._entries: dict[str, tuple[dict[str, Any], float]] = {}
        self._lock = threading.Lock()
        #: Bumped by every notification and every (re)start of listening.
        self.generation = 0
        #: Set while the listener's ``LISTEN`` holds (:attr:`listening`).
        self._listening = threading.Event()
        self._listener: Listener | None = None
        #: The tokens :meth:`settle` waits to hear back.
        self._settled: dict[str, threading.Event] = {}
        #: Lookups answered from memory, and lookups that read the database (the metrics';
        #: counted without a lock, as the lookup itself runs without one).
        self.hits = 0
        self.misses = 0
        event.listen(engine, "engine_disposed", self._on_dispose)
        _CACHES.add(self)

    @property
    def listening(self) -> bool:
        """True while the listener's ``LISTEN`` holds; the cache answers only then."""
        return self._listening.is_set()

    def find(self, conn: Any, key_hash: str) -> dict[str, Any] | None:
        """The key with this consumer-key hash (``sql.auth.find_key``): from memory when the
        cache holds it, else read on ``conn`` (and kept when nothing changed meanwhile). The
        row is shared: read it, never change it."""
        if self.listening:
            entry = self._entries.get(key_hash)
            if entry is not None and time.monotonic() - entry[1] < MAX_AGE:
                self.hits += 1
                return entry[0]
        else:
            self._start()
        self.misses += 1
        generation = self.generation
        row = auth_sql.find_key(conn, key_hash)
        if row is not None:
            self._store(key_hash, row, generation)
        return row

    def touched(self, key_hash: str, last_access: Any) -> None:
        """The key's ``last_access`` was written (by this request, which commits it): its
        entry says so, or the next request would write it again."""
        with self._lock:
            entry = self._entries.get(key_hash)
            if entry is not None:
                self._entries[key_hash] = ({**entry[0], "last_access": last_access}, entry[1])

    def _store(self, key_hash: str, row: dict[str, Any], generation: int) -> None:
        with self._lock:
            if not self.listening or generation != self.generation:
                return
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[key_hash] = (row, time.monotonic())

    def changed(self, payload: str) -> None:
        """Apply one notification (a key's hash, ``user:<id>``, or ``*``)."""
        with self._lock:
            self.generation += 1
            if payload.startswith("user:"):
                user = payload[len("user:") :]
                for key_hash, (row, _) in list(self._entries.items()):
                    if str(row["user_id"]) == user:
                        del self._entries[key_hash]
            elif payload == "*" or not payload:
                self._entries.clear()
            else:
                self._entries.pop(payload, None)

    def set_listening(self, listening: bool, by: Listener | None = None) -> None:
        """The listener started (or stopped) hearing of changes: start afresh either way. A
        listener's word (``by``) counts only while it is the cache's own: one that was stopped
        may still be on its way out when another has started."""
        with self._lock:
            if by is not None and by is not self._listener:
                return
            self.generation += 1
            self._entries.clear()
            if listening:
                self._listening.set()
            else:
                self._listening.clear()

    def settle(self, timeout: float = 5.0) -> bool:
        """Wait until every change committed before this call has reached the cache (a
        notification of our own, sent now, came back through the listener); False if the
        listener did not hear it in ``timeout`` seconds. Tests use it; requests never wait."""
        deadline = time.monotonic() + timeout
        if not self.start(timeout):
            return False
        token = f"settle:{id(self)}:{time.monotonic_ns()}"
        waiter = self._settled[token] = threading.Event()
        with self.engine.connect() as conn:
            auth_sql.notify_keys(conn, token)
            conn.commit()
        return waiter.wait(max(0.0, deadline - time.monotonic()))

    def _heard(self, payload: str) -> None:
        waiter = self._settled.pop(payload, None)
        if waiter is not None:
            waiter.set()
        else:
            self.changed(payload)

    def start(self, wait: float = 0.0) -> bool:
        """Start listening (the app does when it is built), and wait up to ``wait`` seconds
        for the ``LISTEN`` to hold; whether it does."""
        self._start()
        return self._listening.wait(wait)

    def _start(self) -> None:
        if self._listener is not None and self._listener.alive():
            return
        with self._lock:
            if self._listener is None or not self._listener.alive():
                self._listener = Listener(
                    self.engine,
                    auth_sql.KEYS_CHANNEL,
                    self._heard,
                    name="shopsvc-keys",
                    listening=self.set_listening,
                    retry_seconds=RETRY_SECONDS,
                    poll_seconds=POLL_SECONDS,
                )

    def stop(self) -> None:
        """Stop listening (the cache reads the database from then on, until used again). The
        thread is not waited for: it ends at its next look (:data:`POLL_SECONDS`)."""
        with self._lock:
            listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        self.set_listening(False)

    def forked(self) -> None:
        """In a child process (``os.fork``: a pre-forking server) the listener thread is gone
        and its lock may be held for good: start afresh, not listening, until used again."""
        self._lock = threading.Lock()
        self._listener = None
        self._entries = {}
        self.generation += 1
        self._listening = threading.Event()

    def _on_dispose(self, _engine: Engine) -> None:
        # The app's engine was disposed (tests, a forked worker): its listener's connection
        # goes with it; the next lookup starts another.
        self.stop()


#: Every cache of this process, for :func:`_after_fork_in_child`.
_CACHES: weakref.WeakSet[KeyCache] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for cache in list(_CACHES):
        cache.forked()


os.register_at_fork(after_in_child=_after_fork_in_child)
