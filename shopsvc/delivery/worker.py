"""The delivery worker: claims due deliveries from the outbox and sends them with a pool of
senders (``shopsvc CONFIG worker [--once]``, or a thread inside ``pserve`` when
``shopsvc.webhooks.deliver_in_process`` is on).

* **Claims and leases.** Deliveries are claimed in a short transaction for a lease (the send
  timeout plus a margin); a worker killed mid-send leaves its claims to expire and be taken by
  the next worker, and a worker whose lease ran out cannot store its result (the claim token no
  longer matches). On PostgreSQL the claim uses ``FOR UPDATE SKIP LOCKED``: any number of
  workers share one queue and each due delivery goes to exactly one of them.
* **Senders.** ``webhooks.concurrency`` threads; one webhook gets at most half of them (at
  least one), so one slow receiver never holds up the others.
* **Waking up.** A worker waits for a PostgreSQL ``NOTIFY`` from the committing transaction (a
  listener thread), for :meth:`Deliverer.wake` (the in-process deliverer, woken after each
  commit that queued deliveries), for a send to finish, or at most ``POLL_SECONDS``.
* **Stopping.** :meth:`Deliverer.stop` (SIGTERM/SIGINT in the CLI): no new claims; the sends
  under way finish and are stored; the worker returns.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from sqlalchemy import Engine

from shopsvc.db.engine import shown_url, write_transaction
from shopsvc.db.listener import Listener
from shopsvc.delivery import sender
from shopsvc.delivery.sender import Clock, Outcome
from shopsvc.metrics import registry as metrics_registry
from shopsvc.metrics.registry import Metrics
from shopsvc.settings import Settings
from shopsvc.sql import deliveries as sql
from shopsvc.sql import idempotency_writes as idempotency_writes_sql

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5
#: How long a claim outlives the longest send.
LEASE_MARGIN_SECONDS = 30.0
PRUNE_EVERY_SECONDS = 3600.0


@dataclass
class PassResult:
    """What a pass (``worker --once``) did, by the state each attempt left its delivery in."""

    delivered: int = 0
    retrying: int = 0
    failed: int = 0
    cancelled: int = 0
    dropped: int = 0
    lost: int = 0

    def add(self, outcome: Outcome | None) -> None:
        if outcome is None:
            self.lost += 1
            return
        name = "retrying" if outcome.state == "pending" else outcome.state
        setattr(self, name, getattr(self, name) + 1)

    def as_dict(self) -> dict[str, int]:
        return {
            "delivered": self.delivered,
            "retrying": self.retrying,
            "failed": self.failed,
            "cancelled": self.cancelled,
            "dropped": self.dropped,
        }


def outcome_label(outcome: Outcome | None) -> str:
    """The ``outcome`` label of ``shopsvc_webhook_attempts_total`` for an attempt's outcome:
    ``delivered``, ``retried`` (a retry is due), ``failed`` (no attempt left), ``disabled``
    (failed, and the webhook disabled for its failures), ``cancelled`` (the webhook is no longer
    active), ``dropped`` (the resource is gone), ``lost`` (the claim ran out, or the attempt
    raised)."""
    if outcome is None:
        return metrics_registry.LOST
    if outcome.state == "pending":
        return metrics_registry.RETRIED
    if outcome.state == "failed" and outcome.disabled:
        return metrics_registry.DISABLED
    return outcome.state


class Deliverer:
    """Delivers the outbox of one database. ``concurrency`` overrides the setting;
    ``lease_seconds`` the claim lease; ``clock`` the time (tests); ``metrics`` counts the
    attempts' outcomes (the worker's ``--metrics-port``, the app's with ``deliver_in_process``).
    """

    def __init__(
        self,
        engine: Engine,
        settings: Settings,
        *,
        concurrency: int | None = None,
        lease_seconds: float | None = None,
        clock: Clock = sql.now_precise,
        metrics: Metrics | None = None,
    ) -> None:
        self.engine = engine
        self.metrics = metrics
        self.settings = settings
        self.concurrency = concurrency or settings.webhooks_concurrency
        self.per_webhook = max(1, self.concurrency // 2)
        self.lease = dt.timedelta(
            seconds=lease_seconds or settings.webhooks_timeout + LEASE_MARGIN_SECONDS
        )
        self.clock = clock
        self.token = uuid.uuid4().hex
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._inflight: dict[Future[Outcome | None], int] = {}
        self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="shopsvc-sender")
        self.thread: threading.Thread | None = None
        #: Who delivers, as the start line names it (``start_in_process``: the thread in pserve).
        self.label = "webhook worker"

    # --- control

    def wake(self) -> None:
        """Look for due deliveries now (after a commit that queued some)."""
        self._wake.set()

    def stop(self) -> None:
        """Claim nothing more; :meth:`run` returns once the sends under way are stored."""
        self._stop.set()
        self._wake.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread :func:`start_in_process` started (if any) to end."""
        if self.thread is not None:
            self.thread.join(timeout)

    # --- the two ways to run

    def run_once(self) -> PassResult:
        """One pass: at most one attempt for each delivery due when the pass starts."""
        result = PassResult()
        start = self.clock()
        self.prune()
        try:
            while not self.stopping:
                claimed = self._fill(pass_start=start)
                if not claimed and not self._inflight:
                    break
                self._collect(result, block=not claimed or self._full())
            self._drain(result)
        finally:
            self._pool.shutdown(wait=True)
        return result

    def describe(self) -> str:
        """What the start line says: the senders, what wakes the worker, the database."""
        if self.engine.dialect.name == "postgresql":
            wakes = f"woken by NOTIFY on {sql.CHANNEL} (LISTEN), else every {POLL_SECONDS:g} s"
        else:
            wakes = f"looking for due deliveries every {POLL_SECONDS:g} s"
        return (
            f"{self.concurrency} senders (at most {self.per_webhook} per webhook), {wakes}, "
            f"database {shown_url(self.engine.url)}"
        )

    def run(self) -> None:
        """Deliver until :meth:`stop`."""
        log.info("%s started: %s", self.label, self.describe())
        listener = self._listen()
        prune_at = time.monotonic()
        result = PassResult()
        try:
            while not self.stopping:
                if time.monotonic() >= prune_at:
                    self.prune()
                    prune_at = time.monotonic() + PRUNE_EVERY_SECONDS
                self._wake.clear()
                claimed = self._fill()
                self._collect(result, block=False)
                if claimed and not self._full():
                    continue  # there may be more due
                self._wake.wait(POLL_SECONDS)
            self._drain(result)
        finally:
            if listener is not None:
                listener.close()
                listener.join(timeout=5)
            self._pool.shutdown(wait=True)

    # --- the parts

    def prune(self) -> None:
        before = self.clock() - dt.timedelta(days=self.settings.webhooks_log_days)
        try:
            with write_transaction(self.engine) as conn:
                logged, finished = sql.prune(conn, before)
                keys = idempotency_writes_sql.prune(conn, self.clock())
        except Exception:  # a busy database: next time
            log.exception("pruning the delivery log failed")
            return
        if keys:
            log.info("pruned %s expired idempotency keys", keys)
        if logged or finished:
            log.info("pruned %s logged attempts and %s finished deliveries", logged, finished)

    def _full(self) -> bool:
        return len(self._inflight) >= self.concurrency

    def _fill(self, pass_start: dt.datetime | None = None) -> int:
        """Claim what the free senders can take and start sending; how many were claimed."""
        free = self.concurrency - len(self._inflight)
        if free <= 0 or self.stopping:
            return 0
        now = self.clock()
        busy: dict[int, int] = {}
        for webhook_id in self._inflight.values():
            busy[webhook_id] = busy.get(webhook_id, 0) + 1
        try:
            if self.engine.dialect.name == "sqlite":  # spare SQLite's write lock when idle
                with self.engine.connect() as conn, conn.begin():
                    if not sql.has_due(conn, now, pass_start):
                        return 0
            with write_transaction(self.engine) as conn:
                claimed = sql.claim(
                    conn,
                    token=self.token,
                    now=now,
                    lease_until=now + self.lease,
                    limit=free,
                    per_webhook=self.per_webhook,
                    busy=busy,
                    pass_start=pass_start,
                )
        except Exception:
            log.exception("claiming deliveries failed")
            return 0
        for delivery_id, webhook_id in claimed:
            future = self._pool.submit(self._send, delivery_id)
            self._inflight[future] = webhook_id
            future.add_done_callback(lambda _f: self._wake.set())
        return len(claimed)

    def _send(self, delivery_id: int) -> Outcome | None:
        try:
            outcome = sender.attempt(
                self.engine, self.settings, delivery_id, self.token, self.clock
            )
        except Exception:
            # The claim stays: the delivery is tried again when the lease runs out.
            log.exception("delivery %s failed unexpectedly", delivery_id)
            outcome = None
        if self.metrics is not None:
            self.metrics.count_attempt(outcome_label(outcome))
        return outcome

    def _collect(self, result: PassResult, block: bool) -> None:
        if not self._inflight:
            return
        done, _ = wait(
            list(self._inflight),
            timeout=POLL_SECONDS if block else 0,
            return_when=FIRST_COMPLETED,
        )
        for future in done:
            del self._inflight[future]
            result.add(future.result())

    def _drain(self, result: PassResult) -> None:
        while self._inflight:
            self._collect(result, block=True)

    def _listen(self) -> Listener | None:
        """PostgreSQL: a thread that wakes the worker on each ``NOTIFY`` of the outbox."""
        if self.engine.dialect.name != "postgresql":
            return None
        return Listener(
            self.engine,
            sql.CHANNEL,
            lambda _payload: self._wake.set(),
            name="shopsvc-listener",
            retry_seconds=POLL_SECONDS * 4,
        )


def start_in_process(
    engine: Engine, settings: Settings, metrics: Metrics | None = None
) -> Deliverer:
    """A deliverer running in a daemon thread of this process (``deliver_in_process``);
    :meth:`Deliverer.stop` then :meth:`Deliverer.join` end it."""
    deliverer = Deliverer(engine, settings, metrics=metrics)
    deliverer.label = "webhook delivery thread (shopsvc.webhooks.deliver_in_process)"
    deliverer.thread = threading.Thread(target=deliverer.run, name="shopsvc-deliverer", daemon=True)
    deliverer.thread.start()
    return deliverer
