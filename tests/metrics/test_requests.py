"""``shopsvc.metrics.requests``: the request tallies queued per request and added up in batches —
nothing lost across batches or between threads, the histograms' buckets as Prometheus reads them,
and a method nobody knows kept under ``other``. (Through HTTP: tests/web/test_metrics.py.)"""

from __future__ import annotations

import threading

from prometheus_client import CollectorRegistry

from shopsvc.metrics.requests import BATCH, RequestCollector


def scraped(collector: RequestCollector) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(collector)
    return registry


def test_every_request_counts_across_batches_and_threads() -> None:
    collector = RequestCollector()
    registry = scraped(collector)
    per_thread = BATCH * 3 + 7

    def serve() -> None:
        for n in range(per_thread):
            collector.add("/products/<id>", "GET", 200 if n % 4 else 404, 0.002, 4, 1000)

    threads = [threading.Thread(target=serve) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    labels = {"route": "/products/<id>", "method": "GET"}
    total = 4 * per_thread
    not_found = 4 * len(range(0, per_thread, 4))
    value = registry.get_sample_value
    assert value("shopsvc_http_requests_total", {**labels, "status": "200"}) == total - not_found
    assert value("shopsvc_http_requests_total", {**labels, "status": "404"}) == not_found
    assert value("shopsvc_http_request_duration_seconds_count", labels) == total
    assert value("shopsvc_http_request_sql_statements_sum", labels) == 4 * total
    assert value("shopsvc_http_response_bytes_sum", labels) == 1000 * total


def test_the_buckets() -> None:
    collector = RequestCollector()
    registry = scraped(collector)
    for seconds, statements, size in [(0.0005, 0, 128), (0.001, 4, 129), (0.3, 2000, None)]:
        collector.add("/orders", "POST", 201, seconds, statements, size)
    labels = {"route": "/orders", "method": "POST"}

    def bucket(name: str, le: str) -> float | None:
        return registry.get_sample_value(f"{name}_bucket", {**labels, "le": le})

    duration = "shopsvc_http_request_duration_seconds"
    assert [bucket(duration, le) for le in ("0.001", "0.25", "0.5", "+Inf")] == [2, 2, 3, 3]
    statements = "shopsvc_http_request_sql_statements"
    assert [bucket(statements, le) for le in ("0.0", "4.0", "1000.0", "+Inf")] == [1, 2, 2, 3]
    sizes = "shopsvc_http_response_bytes"  # a body of unknown length is not observed
    assert [bucket(sizes, le) for le in ("128.0", "512.0", "+Inf")] == [1, 2, 2]
    assert registry.get_sample_value(f"{sizes}_sum", labels) == 257


def test_a_method_nobody_knows_is_other() -> None:
    collector = RequestCollector()
    registry = scraped(collector)
    for method in ("BREW", "PROPFIND", "GET"):
        collector.add("/webhooks", method, 400, 0.001, 1, 100)
    value = registry.get_sample_value
    labels = {"route": "/webhooks", "status": "400"}
    assert value("shopsvc_http_requests_total", {**labels, "method": "other"}) == 2
    assert value("shopsvc_http_requests_total", {**labels, "method": "GET"}) == 1
    assert value("shopsvc_http_requests_total", {**labels, "method": "BREW"}) is None
