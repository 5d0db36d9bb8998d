"""Metrics for operators in the Prometheus text format (``prometheus_client``; docs/metrics.md).

- ``registry.py``: :class:`~shopsvc.metrics.registry.Metrics`, one process's registry (its own,
  not the library's global one) with the process collectors, the request metrics and the webhook
  attempts' counter; what the worker's ``--metrics-port`` serves.
- ``requests.py``: the HTTP request metrics, recorded cheaply per request, exposed on a scrape.
- ``collectors.py``: what is read when Prometheus scrapes (the webhook outbox, the database pool,
  the key cache) and the count of a request's SQL statements.

Nothing here knows Pyramid: the request tween is ``web/metrics.py``, the ``/metrics`` view
``views/metrics.py``.
"""
