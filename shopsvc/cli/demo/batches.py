"""A run's phases and their batches, and the machinery that makes and writes them.

A phase (customers, products, orders) is cut into batches; a batch is the rows of one
transaction and a pure function of its number and the ids reserved for it, so the batches of a
phase are independent. On PostgreSQL a large phase runs in worker processes, each making
batches and loading them with ``COPY`` (``shopsvc.sql.demo.insert_rows``); otherwise one
thread makes the next batch while the current one is written."""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.util import Finalize
from typing import Any, Protocol, TypeVar

from sqlalchemy import Engine, Table

from shopsvc.db.engine import make_engine, write_transaction
from shopsvc.settings import Settings
from shopsvc.sql import demo as sql

T = TypeVar("T")
Row = tuple[Any, ...]


@dataclass
class Counts:
    """The rows a run created."""

    products: int = 0
    variations: int = 0
    media: int = 0
    customers: int = 0
    orders: int = 0
    order_items: int = 0
    order_item_meta: int = 0
    order_notes: int = 0
    refunds: int = 0
    refund_items: int = 0

    def add(self, other: Counts) -> None:
        for name in Counts.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Batch:
    """The rows of one transaction, ``(table, columns, rows)`` in insertion order, how many
    records the progress bar counts, and what the phase keeps of it."""

    tables: list[tuple[Table, tuple[str, ...], list[Row]]]
    size: int
    result: Any = None


class Phase(Protocol):
    """What the runner needs of a phase: its size, its batch size, and its batches."""

    #: the table whose ids the runner reserves, batch by batch, in batch order
    leading: Table
    total: int
    size: int

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch: ...


def _batch_count(phase: Phase) -> int:
    """How many batches make ``phase``."""
    return -(-phase.total // phase.size)


def batch_rng(key: str, index: int) -> random.Random:
    """The pseudo-random generator of batch ``index`` of the phase ``key``."""
    return random.Random(f"{key}:{index}")


def _insert(engine: Engine, batch: Batch) -> None:
    """One batch in one transaction."""
    with write_transaction(engine) as conn:
        for table, columns, rows in batch.tables:
            sql.insert_rows(conn, table, columns, rows)


def _prefetch(items: Iterator[T], depth: int = 2) -> Iterator[T]:
    """``items``, made by a thread that runs up to ``depth`` ahead (what it raises is raised
    here)."""
    channel: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                while not stop.is_set():
                    try:
                        channel.put((True, item), timeout=0.2)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            channel.put((False, None))
        except BaseException as exc:  # handed to the consumer
            channel.put((False, exc))

    worker = threading.Thread(target=produce, name="seed-generator", daemon=True)
    worker.start()
    try:
        while True:
            more, value = channel.get()
            if not more:
                if value is not None:
                    raise value
                return
            yield value
    finally:
        stop.set()
        while worker.is_alive():
            with contextlib.suppress(queue.Empty):
                channel.get(timeout=0.1)
        worker.join()


#: The worker process's engine, id reserver and phase (set by ``_start_worker``).
_WORKER: tuple[Engine, sql.IdReserver, Phase] | None = None


def _start_worker(url: str, lock_timeout: float, phase: Phase) -> None:
    """A worker process's set-up: its own engine and id reserver, and the phase it makes."""
    global _WORKER
    engine = make_engine(url, lock_timeout=lock_timeout)
    Finalize(None, engine.dispose, exitpriority=10)  # close the connections on exit
    _WORKER = (engine, sql.IdReserver(engine), phase)


def _work(task: tuple[int, Sequence[int]]) -> tuple[int, int, Any]:
    """Make and write one batch in a worker process: ``(index, size, result)``."""
    assert _WORKER is not None
    engine, reserver, phase = _WORKER
    index, ids = task
    batch = phase.batch(index, reserver, ids)
    _insert(engine, batch)
    return index, batch.size, batch.result


def run_phase(
    engine: Engine,
    settings: Settings,
    phase: Phase,
    advance: Callable[[int], object],
    jobs: int,
) -> list[Any]:
    """Make and write every batch of ``phase`` (by ``jobs`` processes when there are enough
    batches); the batches' results in batch order. ``advance`` is told each batch's size as it
    is written (the progress bar's ``update``).

    The ids of the ``leading`` table are reserved here, batch after batch, so that they follow
    the batches' order (orders' ids grow with their ``created_at``) whoever writes them."""
    reserver = sql.IdReserver(engine)
    count = _batch_count(phase)

    def tasks() -> Iterator[tuple[int, Sequence[int]]]:
        for index in range(count):
            size = min(phase.size, phase.total - index * phase.size)
            yield index, reserver.reserve(phase.leading, size)

    if jobs <= 1 or count < 2 * jobs:
        results = []
        for batch in _prefetch(phase.batch(i, reserver, ids) for i, ids in tasks()):
            _insert(engine, batch)
            advance(batch.size)
            results.append(batch.result)
        return results
    found: dict[int, Any] = {}
    context = _process_context(phase)
    initargs = (settings.database_url, settings.db_lock_timeout, phase)
    with context.Pool(jobs, initializer=_start_worker, initargs=initargs) as pool:
        for index, size, result in pool.imap_unordered(_work, tasks()):
            advance(size)
            found[index] = result
        pool.close()
        pool.join()
    return [found[index] for index in range(count)]


def _process_context(phase: Phase) -> multiprocessing.context.BaseContext:
    """Worker processes forked from a fork server that has imported this module and the
    phase's (quick to start, and never a copy of a process holding connections or threads);
    spawned where there is no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, type(phase).__module__])
    return context
