"""Requests started together from their own threads, for the race tests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

#: Bound on every wait of a test thread (the database's own lock timeout is 5 s).
JOIN = 30.0


def together(*calls: Callable[[], Any], timeout: float = JOIN) -> list[Any]:
    """Run each call in its own thread, started together by a barrier; their results, in order.
    The first failure of a call is raised in the caller; a call still running after ``timeout``
    fails the test."""
    start = threading.Barrier(len(calls), timeout=timeout)
    results: list[Any] = [None] * len(calls)
    failures: list[BaseException] = []

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            start.wait()
            results[index] = call()
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a request did not finish in time"
    if failures:
        raise failures[0]
    return results
