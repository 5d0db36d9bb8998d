"""The HTTP request metrics: queued per request, added up in batches, exposed as Prometheus
counters and histograms when scraped.

``prometheus_client``'s own counters and histograms take a lock for every addition (a histogram
two per observation): a request's counter and three histograms took some 8 µs timed in a loop,
more inside a request, whose own work has pushed their data out of the processor's caches. Here
a request only queues its numbers (:meth:`RequestCollector.add`); the queue is added up every
:data:`BATCH` requests and on each scrape into one :class:`Series` per (route, method) —
requests by status, and the bucket counts and sums of the three histograms — and turned into
the same families on a scrape. What the whole tween costs a request: bench/throughput.py
(docs/metrics.md)."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import deque
from collections.abc import Iterator, Sequence

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

#: Methods recorded under their own name; any other (the gate refuses them) as ``other``.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"

#: Requests queued before the request that queues the last of them adds them up (some 0.1 ms
#: for that request).
BATCH = 256
#: Seconds: a single record takes a millisecond or two, a page of 1000 a second or so.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
#: Statements a request sends: 0 (the probes), 4 for a single record, more for writes.
STATEMENT_BUCKETS = (0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100, 250, 1000)
#: Bytes of a response's body as sent (compressed when it was).
BYTES_BUCKETS = (128, 512, 2048, 8192, 32768, 131072, 524288, 2097152, 8388608)

REQUESTS = ("shopsvc_http_requests", "HTTP requests by route pattern, method and status.")
DURATION = (
    "shopsvc_http_request_duration_seconds",
    "Time from the request entering the service to its response leaving it.",
)
STATEMENTS = (
    "shopsvc_http_request_sql_statements",
    "SQL statements a request sent (SQLite's BEGIN included; COMMIT and ROLLBACK not).",
)
RESPONSE_BYTES = (
    "shopsvc_http_response_bytes",
    "Bytes of the response body as sent (0 for HEAD, 204 and 304).",
)


class Series:
    """The tallies of one (route, method): requests by status, and for each histogram its
    bucket counts (not cumulative; the last one past every bound) and sum."""

    __slots__ = (
        "duration",
        "duration_sum",
        "sizes",
        "sizes_sum",
        "statements",
        "statements_sum",
        "statuses",
    )

    def __init__(self) -> None:
        self.statuses: dict[int, int] = {}
        self.duration = [0] * (len(DURATION_BUCKETS) + 1)
        self.duration_sum = 0.0
        self.statements = [0] * (len(STATEMENT_BUCKETS) + 1)
        self.statements_sum = 0
        self.sizes = [0] * (len(BYTES_BUCKETS) + 1)
        self.sizes_sum = 0

    def add(self, status: int, seconds: float, statements: int, size: int | None) -> None:
        """One request (under the collector's lock)."""
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.duration[bisect_left(DURATION_BUCKETS, seconds)] += 1
        self.duration_sum += seconds
        self.statements[bisect_left(STATEMENT_BUCKETS, statements)] += 1
        self.statements_sum += statements
        if size is not None:
            self.sizes[bisect_left(BYTES_BUCKETS, size)] += 1
            self.sizes_sum += size

    def copy(self) -> Series:
        """The tallies as they are now (under the collector's lock)."""
        copied = Series()
        copied.statuses = dict(self.statuses)
        copied.duration, copied.duration_sum = list(self.duration), self.duration_sum
        copied.statements, copied.statements_sum = list(self.statements), self.statements_sum
        copied.sizes, copied.sizes_sum = list(self.sizes), self.sizes_sum
        return copied


def _cumulative(bounds: Sequence[float], counts: Sequence[int]) -> list[tuple[str, float]]:
    """The ``le`` buckets of a histogram from its bucket counts."""
    buckets, total = [], 0
    for bound, count in zip((*bounds, float("inf")), counts, strict=True):
        total += count
        buckets.append((floatToGoString(bound), float(total)))
    return buckets


class RequestCollector:
    """The request metrics of one process: :meth:`add` per request, :meth:`collect` per scrape.
    ``route`` must come from a bounded set (route patterns and fixed labels); any method not in
    :data:`METHODS` is recorded as ``other``.

    :meth:`add` only queues the request's numbers (a deque's append, safe between threads); the
    request that fills a batch of :data:`BATCH`, and every scrape, adds the queue up. A request's
    data and the tallies are then touched in one go, while they are in the processor's caches,
    rather than once per request after the request's own work has pushed them out."""

    def __init__(self) -> None:
        self._series: dict[tuple[str, str], Series] = {}
        self._queued: deque[tuple[str, str, int, float, int, int | None]] = deque()
        #: Held while the queue is added up, and while a scrape copies the tallies.
        self._lock = threading.Lock()

    def add(
        self,
        route: str,
        method: str,
        status: int,
        seconds: float,
        statements: int,
        size: int | None,
    ) -> None:
        """Record one request (``size`` None: a body of unknown length, not observed)."""
        queued = self._queued
        queued.append((route, method, status, seconds, statements, size))
        if len(queued) >= BATCH:
            self.add_up()

    def add_up(self) -> None:
        """Add the queued requests to the tallies."""
        with self._lock:
            queued, series_of = self._queued, self._series
            for _ in range(len(queued)):
                route, method, status, seconds, statements, size = queued.popleft()
                series = series_of.get((route, method))
                if series is None:
                    if method not in METHODS:  # a caller picks the method: one series for all
                        method = OTHER_METHOD
                    series = series_of.setdefault((route, method), Series())
                series.add(status, seconds, statements, size)

    def describe(self) -> Iterator[Metric]:
        yield CounterMetricFamily(*REQUESTS, labels=("route", "method", "status"))
        for name, documentation in (DURATION, STATEMENTS, RESPONSE_BYTES):
            yield HistogramMetricFamily(name, documentation, labels=("route", "method"))

    def collect(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(*REQUESTS, labels=("route", "method", "status"))
        duration = HistogramMetricFamily(*DURATION, labels=("route", "method"))
        statements = HistogramMetricFamily(*STATEMENTS, labels=("route", "method"))
        sizes = HistogramMetricFamily(*RESPONSE_BYTES, labels=("route", "method"))
        self.add_up()
        with self._lock:
            everything = [(labels, series.copy()) for labels, series in self._series.items()]
        for (route, method), series in everything:
            for status, count in sorted(series.statuses.items()):
                requests.add_metric((route, method, str(status)), count)
            labels = (route, method)
            buckets = _cumulative(DURATION_BUCKETS, series.duration)
            duration.add_metric(labels, buckets, series.duration_sum)
            buckets = _cumulative(STATEMENT_BUCKETS, series.statements)
            statements.add_metric(labels, buckets, series.statements_sum)
            if sum(series.sizes):
                sizes.add_metric(labels, _cumulative(BYTES_BUCKETS, series.sizes), series.sizes_sum)
        yield from (requests, duration, statements, sizes)
