"""One process's metrics (docs/metrics.md): a registry of its own — not ``prometheus_client``'s
global one, so that every app a test builds has its own — holding the library's process,
platform and garbage collector metrics, the HTTP request metrics (``requests.py``), the webhook
attempts' counter, and whatever ``collectors.py`` reads on a scrape."""

from __future__ import annotations

from typing import Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.exposition import choose_encoder, start_http_server
from sqlalchemy import Engine

from shopsvc.metrics import collectors
from shopsvc.metrics.requests import RequestCollector

#: What became of a webhook delivery attempt (``shopsvc_webhook_attempts_total{outcome}``).
DELIVERED, RETRIED, FAILED, DISABLED = "delivered", "retried", "failed", "disabled"
CANCELLED, DROPPED, LOST = "cancelled", "dropped", "lost"
OUTCOMES = (DELIVERED, RETRIED, FAILED, DISABLED, CANCELLED, DROPPED, LOST)


class Metrics:
    """The metrics of one process (a ``pserve`` app, or a worker). ``requests.add`` records a
    request (the app's metrics tween)."""

    def __init__(self) -> None:
        # No ``*_created`` series beside every counter (the text format would show them as
        # series of their own): a setting of the library's, so for the whole process.
        disable_created_metrics()
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.requests = RequestCollector()
        self.registry.register(self.requests)
        self.webhook_attempts = Counter(
            "shopsvc_webhook_attempts",
            "Webhook delivery attempts by outcome.",
            ("outcome",),
            registry=self.registry,
        )
        self._attempts = {outcome: self.webhook_attempts.labels(outcome) for outcome in OUTCOMES}

    def watch_engine(self, engine: Engine) -> None:
        """The database pool's use and the webhook outbox's backlog, read on each scrape."""
        self.registry.register(collectors.PoolCollector(engine))
        self.registry.register(collectors.OutboxCollector(engine))

    def watch_key_cache(self, cache: Any) -> None:
        """The key cache's hits and misses (``auth.key_cache.KeyCache``)."""
        self.registry.register(collectors.KeyCacheCollector(cache))

    def count_attempt(self, outcome: str) -> None:
        """One webhook delivery attempt ended so (one of :data:`OUTCOMES`)."""
        self._attempts[outcome].inc()

    def exposition(self, accept: str | None = None) -> tuple[bytes, str]:
        """The registry in the format ``accept`` asks for (the Prometheus text format unless
        it asks for OpenMetrics) and its content type."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type

    def serve(self, port: int, address: str = "127.0.0.1") -> WSGIServer:
        """Serve the registry over HTTP on ``address:port`` from a daemon thread (the worker's
        ``--metrics-port``); ``shutdown()`` and ``server_close()`` the server to stop."""
        server, _thread = start_http_server(port, address, registry=self.registry)
        return server
