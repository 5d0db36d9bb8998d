"""``GET /metrics`` (docs/metrics.md), through HTTP on both databases: the Prometheus text format,
only to the networks of ``shopsvc.metrics.allow`` (404 ``shop_api_no_route`` elsewhere, as an
unknown path), the requests by route pattern, method and status with their durations, SQL
statements and bytes, the webhook outbox, the database pool and the key cache; and nothing of it
with ``shopsvc.metrics = false``. The worker's metrics: tests/webhooks/test_metrics.py."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from prometheus_client.parser import text_string_to_metric_families
from pyramid.interfaces import ITweens
from webtest import TestApp

from shopsvc.settings import SettingsError, load_settings
from shopsvc.sql.tables import webhook_deliveries
from tests.helpers.api import ROOT, Credentials, assert_error, authorised
from tests.helpers.products import create as create_product
from tests.helpers.webhooks import create_webhook

LOOPBACK = {"REMOTE_ADDR": "127.0.0.1"}
TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8"
PRODUCT = "/products/<id>"


def scrape(app: TestApp, **environ: str) -> str:
    """The body of ``GET /metrics`` from 127.0.0.1 (or ``environ``), which must answer 200."""
    response = app.get("/metrics", extra_environ={**LOOPBACK, **environ}, status=200)
    assert response.headers["Content-Type"] == TEXT_FORMAT
    return response.text


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape: (name, labels) → value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(text: str, name: str, **labels: str) -> float | None:
    return samples(text).get((name, frozenset(labels.items())))


def routes(text: str) -> set[tuple[str, str, str, float]]:
    """The ``shopsvc_http_requests_total`` samples as (route, method, status, count)."""
    return {
        (labels["route"], labels["method"], labels["status"], count)
        for (name, label_set), count in samples(text).items()
        if name == "shopsvc_http_requests_total"
        for labels in [dict(label_set)]
    }


@pytest.fixture
def fresh(build_app: Callable[..., TestApp]) -> TestApp:
    """An app of this test's own: its metrics start from nothing."""
    return build_app()


@pytest.fixture
def client(fresh: TestApp, admin: Credentials) -> TestApp:
    return authorised(fresh, admin)


@contextmanager
def counted(engine: sa.Engine) -> Iterator[list[int]]:
    """How many statements ``engine`` sends while the block runs (a listener of the test's)."""
    seen = [0]

    def count(*_: Any) -> None:
        seen[0] += 1

    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)


# --- the requests


def test_requests_by_route_pattern_method_and_status(fresh: TestApp, client: TestApp) -> None:
    product = create_product(client, title="Lamp")
    client.get(f"{ROOT}/products/{product['id']}", status=200)
    client.get(f"{ROOT}/products/{product['id']}", status=200)
    client.get(f"{ROOT}/products/999999", status=404)
    client.head(f"{ROOT}/products/{product['id']}", status=200)
    text = scrape(fresh)
    line = 'shopsvc_http_requests_total{method="GET",route="/products/<id>",status="200"} 2.0'
    assert line in text.splitlines()
    assert routes(text) == {
        ("/products", "POST", "201", 1.0),
        (PRODUCT, "GET", "200", 2.0),
        (PRODUCT, "GET", "404", 1.0),
        (PRODUCT, "HEAD", "200", 1.0),
    }
    count = "shopsvc_http_request_duration_seconds_count"
    assert value(text, count, route=PRODUCT, method="GET") == 3.0
    assert value(text, count, route=PRODUCT, method="HEAD") == 1.0
    assert value(text, count, route="/products", method="POST") == 1.0
    total = value(text, "shopsvc_http_request_duration_seconds_sum", route=PRODUCT, method="GET")
    assert total is not None and 0 < total < 30
    infinite = "shopsvc_http_request_duration_seconds_bucket"
    assert value(text, infinite, route=PRODUCT, method="GET", le="+Inf") == 3.0


@pytest.mark.filterwarnings("ignore:Unknown REQUEST_METHOD")  # WebTest's lint, of BREW
def test_the_route_is_a_pattern_never_the_path(fresh: TestApp, client: TestApp) -> None:
    client.get(f"{ROOT}/products/12345", status=404)
    client.get(f"{ROOT}/products/00012345", status=404)
    client.get(f"{ROOT}/orders/7/notes/3", status=404)
    client.get(f"{ROOT}/products/abc", status=404)  # no route: an item takes digits only
    client.get(f"{ROOT}/nothing/here", status=404)
    client.get(f"{ROOT}/webhooks/count", status=200)
    fresh.get("/favicon.ico", status=404)
    fresh.get("/healthz", status=200)
    fresh.get(f"{ROOT}/orders/5", status=401)  # refused before routing: named all the same
    fresh.get(f"{ROOT}/orders/5/nope", status=401)
    client.request(f"{ROOT}/webhooks", method="BREW", status=400)
    assert routes(scrape(fresh)) == {
        (PRODUCT, "GET", "404", 2.0),
        ("/orders/<order_id>/notes/<id>", "GET", "404", 1.0),
        ("unmatched", "GET", "404", 2.0),
        ("/webhooks/count", "GET", "200", 1.0),
        ("outside_api", "GET", "404", 1.0),
        ("/healthz", "GET", "200", 1.0),
        ("/orders/<id>", "GET", "401", 1.0),
        ("unmatched", "GET", "401", 1.0),
        ("/webhooks", "other", "400", 1.0),
    }


def test_sql_statements_and_bytes_per_request(fresh: TestApp, client: TestApp) -> None:
    product = create_product(client, title="Lamp")
    url = f"{ROOT}/products/{product['id']}"
    get = {"route": PRODUCT, "method": "GET"}
    with counted(fresh.app.registry.engine) as seen:
        sizes = [len(client.get(url, status=200).body) for _ in range(3)]
    text = scrape(fresh)
    # every statement the three GETs sent, as the test's own listener saw them
    assert value(text, "shopsvc_http_request_sql_statements_sum", **get) == seen[0] > 0
    assert value(text, "shopsvc_http_request_sql_statements_count", **get) == 3.0
    assert value(text, "shopsvc_http_response_bytes_sum", **get) == sum(sizes)
    head = client.head(url, status=200)
    assert int(head.headers["Content-Length"]) == sizes[0]
    etag = client.get(url, status=200).headers["ETag"]
    client.get(url, headers={"If-None-Match": etag}, status=304)
    text = scrape(fresh)
    # the GET that took the ETag sent the body, the 304 none
    assert value(text, "shopsvc_http_response_bytes_sum", **get) == sum(sizes) + sizes[0]
    assert value(text, "shopsvc_http_response_bytes_count", **get) == 5.0
    assert value(text, "shopsvc_http_response_bytes_bucket", **get, le="128.0") == 1.0
    head_labels = {"route": PRODUCT, "method": "HEAD"}
    assert value(text, "shopsvc_http_response_bytes_sum", **head_labels) == 0.0
    assert value(text, "shopsvc_http_response_bytes_count", **head_labels) == 1.0


def test_probes_send_no_statement(fresh: TestApp) -> None:
    fresh.get("/healthz", status=200)
    text = scrape(fresh)
    name = "shopsvc_http_request_sql_statements_bucket"
    assert value(text, name, route="/healthz", method="GET", le="0.0") == 1.0
    assert value(text, "shopsvc_http_response_bytes_sum", route="/healthz", method="GET") == 15.0


# --- the page itself


def test_the_page_headers_and_formats(fresh: TestApp) -> None:
    response = fresh.get("/metrics", extra_environ=LOOPBACK, status=200)
    assert response.headers["Content-Type"] == TEXT_FORMAT
    assert response.headers["Cache-Control"] == "no-store"
    assert int(response.headers["Content-Length"]) == len(response.body)
    assert sorted(response.headers) == [
        "Cache-Control",
        "Content-Length",
        "Content-Type",
        "X-Request-Id",
    ]
    text = response.text
    assert "# TYPE shopsvc_http_requests_total counter" in text.splitlines()
    assert "# TYPE shopsvc_http_request_duration_seconds histogram" in text.splitlines()
    assert value(text, "process_cpu_seconds_total") is not None  # the library's process metrics
    assert value(text, "python_gc_collections_total", generation="0") is not None
    assert "_created" not in text
    head = fresh.head("/metrics", extra_environ=LOOPBACK, status=200)
    assert head.body == b""
    assert head.headers["Content-Type"] == TEXT_FORMAT
    open_metrics = fresh.get(
        "/metrics",
        headers={"Accept": "application/openmetrics-text; version=1.0.0"},
        extra_environ=LOOPBACK,
        status=200,
    )
    assert open_metrics.headers["Content-Type"].startswith(
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    )
    assert open_metrics.text.endswith("# EOF\n")


def test_scrapes_are_counted_and_other_methods_are_no_route(fresh: TestApp) -> None:
    scrape(fresh)
    unknown = fresh.post("/nothing", extra_environ=LOOPBACK, status=404)
    posted = fresh.post("/metrics", extra_environ=LOOPBACK, status=404)
    assert posted.body == unknown.body
    assert_error(posted, 404, "shop_api_no_route")
    assert ("/metrics", "GET", "200", 1.0) in routes(scrape(fresh))


def test_pool_gauges(fresh: TestApp, client: TestApp) -> None:
    text = scrape(fresh)  # nothing connected yet (the outbox is read after the pool)
    assert value(text, "shopsvc_db_pool_size") == 5.0
    assert value(text, "shopsvc_db_pool_checked_out") == 0.0
    assert value(text, "shopsvc_db_pool_overflow") == 0.0
    assert value(text, "shopsvc_db_pool_idle") == 0.0
    client.get(f"{ROOT}/webhooks", status=200)
    text = scrape(fresh)  # the request's connections are back in the pool
    engine = fresh.app.registry.engine
    assert value(text, "shopsvc_db_pool_checked_out") == 0.0
    idle = engine.pool.checkedin()  # type: ignore[attr-defined]
    assert value(text, "shopsvc_db_pool_idle") == idle >= 1
    held = [engine.connect() for _ in range(7)]  # the pool's 5 and 2 beyond
    try:
        text = scrape(fresh)
        assert value(text, "shopsvc_db_pool_checked_out") == 7.0
        assert value(text, "shopsvc_db_pool_overflow") == 2.0
        assert value(text, "shopsvc_db_pool_idle") == 0.0
    finally:
        for connection in held:
            connection.close()


# --- who may scrape


def same_as_an_unknown_path(app: TestApp, response: Any, **environ: str) -> None:
    unknown = app.get("/no-such-page", extra_environ=environ, status=404)
    assert response.status_int == 404
    assert response.body == unknown.body
    headers = {k: v for k, v in response.headers.items() if k != "X-Request-Id"}
    assert headers == {k: v for k, v in unknown.headers.items() if k != "X-Request-Id"}
    assert_error(response, 404, "shop_api_no_route")


@pytest.mark.parametrize("address", ["", "10.1.2.3", "203.0.113.9", "2001:db8::1", "not-an-ip"])
def test_only_loopback_by_default(fresh: TestApp, address: str) -> None:
    environ = {"REMOTE_ADDR": address} if address else {}
    response = fresh.get("/metrics", extra_environ=environ, status=404)
    same_as_an_unknown_path(fresh, response, **environ)
    assert fresh.head("/metrics", extra_environ=environ, status=404).body == b""


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
def test_loopback_may_scrape(fresh: TestApp, address: str) -> None:
    scrape(fresh, REMOTE_ADDR=address)


def test_the_allowed_networks_are_a_setting(build_app: Callable[..., TestApp]) -> None:
    app = build_app(**{"shopsvc.metrics.allow": "10.0.0.0/8, 2001:db8::/32"})
    scrape(app, REMOTE_ADDR="10.200.0.7")
    scrape(app, REMOTE_ADDR="2001:db8::5")
    for address in ("127.0.0.1", "11.0.0.1", "::1"):
        response = app.get("/metrics", extra_environ={"REMOTE_ADDR": address}, status=404)
        same_as_an_unknown_path(app, response, REMOTE_ADDR=address)


def test_behind_a_trusted_proxy_the_client_is_who_the_proxy_saw(
    build_app: Callable[..., TestApp],
) -> None:
    """The proxy on loopback is trusted: a client on the internet is refused even when it
    writes a loopback address into ``X-Forwarded-For`` itself (the proxy appends the address it
    saw); the proxy's own scrape (no forwarded address) is answered."""
    app = build_app(**{"shopsvc.trusted_proxies": "127.0.0.1"})
    for forwarded in ("203.0.113.9", "127.0.0.1, 203.0.113.9", "garbage, 203.0.113.9"):
        environ = {**LOOPBACK, "HTTP_X_FORWARDED_FOR": forwarded}
        response = app.get("/metrics", extra_environ=environ, status=404)
        assert_error(response, 404, "shop_api_no_route")
    scrape(app)
    scrape(app, HTTP_X_FORWARDED_FOR="127.0.0.1")  # only trusted proxies on the way
    # a client on the proxy's network, allowed by the setting, passed on by the proxy
    inside = build_app(
        **{"shopsvc.trusted_proxies": "127.0.0.1", "shopsvc.metrics.allow": "10.0.0.0/8"}
    )
    scrape(inside, HTTP_X_FORWARDED_FOR="10.0.0.8")
    response = inside.get("/metrics", extra_environ=LOOPBACK, status=404)  # the proxy itself
    assert_error(response, 404, "shop_api_no_route")


def test_the_allowed_networks_are_parsed_like_the_trusted_proxies() -> None:
    settings = load_settings({}, environ={})
    assert [str(n) for n in settings.metrics_allow] == ["127.0.0.0/8", "::1/128"]
    assert settings.metrics is True
    parsed = load_settings({"shopsvc.metrics.allow": "192.0.2.7 10.0.0.0/8,::1"}, environ={})
    assert [str(n) for n in parsed.metrics_allow] == ["192.0.2.7/32", "10.0.0.0/8", "::1/128"]
    with pytest.raises(SettingsError, match=r"^shopsvc\.metrics\.allow: "):
        load_settings({"shopsvc.metrics.allow": "localhost"}, environ={})
    with pytest.raises(SettingsError, match=r"^shopsvc\.trusted_proxies: "):
        load_settings({"shopsvc.trusted_proxies": "localhost"}, environ={})
    off = load_settings({}, environ={"SHOPSVC_METRICS": "false"})
    assert off.metrics is False
    nobody = load_settings({}, environ={"SHOPSVC_METRICS_ALLOW": ""})
    assert nobody.metrics_allow == ()


# --- switched off


def test_metrics_off(build_app: Callable[..., TestApp], admin: Credentials) -> None:
    app = build_app(**{"shopsvc.metrics": "false"})
    assert app.app.registry.metrics is None
    response = app.get("/metrics", extra_environ=LOOPBACK, status=404)
    same_as_an_unknown_path(app, response, **LOOPBACK)
    order = [name for name, _ in app.app.registry.queryUtility(ITweens).implicit()]
    assert "shopsvc.web.metrics.metrics_tween_factory" not in order
    authorised(app, admin).get(f"{ROOT}/webhooks", status=200)  # served as ever


# --- the webhook outbox


def test_the_outbox_gauges(
    fresh: TestApp, client: TestApp, no_ping: None, engine: sa.Engine
) -> None:
    text = scrape(fresh)
    assert value(text, "shopsvc_webhook_outbox_pending") == 0.0
    assert value(text, "shopsvc_webhook_outbox_oldest_age_seconds") == 0.0
    create_webhook(client, topic="product.created")
    create_product(client, title="Lamp")
    create_product(client, title="Desk")
    text = scrape(fresh)
    assert value(text, "shopsvc_webhook_outbox_pending") == 2.0
    age = value(text, "shopsvc_webhook_outbox_oldest_age_seconds")
    assert age is not None and 0.0 <= age < 60.0
    # due two minutes ago (a delivery nobody delivered), and one due only later (a retry)
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with engine.begin() as conn:
        ids = [r for (r,) in conn.execute(sa.select(webhook_deliveries.c.id).order_by("id"))]
        for row_id, due in zip(
            ids, (now - dt.timedelta(seconds=120), now + dt.timedelta(hours=1)), strict=True
        ):
            conn.execute(
                sa.update(webhook_deliveries)
                .where(webhook_deliveries.c.id == row_id)
                .values(due_at=due)
            )
    age = value(scrape(fresh), "shopsvc_webhook_outbox_oldest_age_seconds")
    assert age is not None and 120.0 <= age < 180.0
    with engine.begin() as conn:
        conn.execute(sa.delete(webhook_deliveries).where(webhook_deliveries.c.id == ids[0]))
    text = scrape(fresh)
    assert value(text, "shopsvc_webhook_outbox_pending") == 1.0
    assert value(text, "shopsvc_webhook_outbox_oldest_age_seconds") == 0.0  # not due yet
    with engine.begin() as conn:
        conn.execute(sa.update(webhook_deliveries).values(state="delivered"))
    assert value(scrape(fresh), "shopsvc_webhook_outbox_pending") == 0.0


# --- the key cache (PostgreSQL)


def test_key_cache_hits_and_misses(fresh: TestApp, make_key: Callable[..., Credentials]) -> None:
    cache = fresh.app.registry.key_cache
    if cache is None:
        assert "shopsvc_key_cache" not in scrape(fresh)  # SQLite: every request reads its key
        return
    assert cache.settle(), "the key cache's listener did not start"
    text = scrape(fresh)
    assert value(text, "shopsvc_key_cache_hits_total") == 0.0
    assert value(text, "shopsvc_key_cache_misses_total") == 0.0
    assert value(text, "shopsvc_key_cache_listening") == 1.0
    client = authorised(fresh, make_key())
    for _ in range(4):
        client.get(f"{ROOT}/webhooks", status=200)
    text = scrape(fresh)
    assert value(text, "shopsvc_key_cache_misses_total") == 1.0
    assert value(text, "shopsvc_key_cache_hits_total") == 3.0
