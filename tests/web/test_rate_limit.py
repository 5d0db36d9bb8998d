"""Rate limits per caller (``shopsvc.rate_limit``, ``web/rate_limit.py``), through HTTP on both
databases: the RateLimit-Policy and RateLimit fields on every response under the API root (none
outside it), 429 ``shop_api_too_many_requests`` with ``Retry-After`` past the limit (with CORS and
the access line), per key and per client address, the bulk weight, the burst window; the counters
in the machine's Redis shared by two apps, and a Redis that is down skipped with one warning. The
setting's syntax and its hostile spellings."""

from __future__ import annotations

import logging
import os
import re
import time
import types
import uuid
from collections.abc import Callable, Iterator

import limits.storage.memory
import limits.strategies
import pytest
import redis
from pyramid.interfaces import ITweens
from webtest import TestApp

from shopsvc.settings import RatePolicy, SettingsError, load_settings
from shopsvc.web import rate_limit
from tests.helpers.api import ROOT, Credentials, assert_error, authorised

REDIS_URL = "redis://127.0.0.1:6379"
#: A port nothing listens on: a Redis that is down.
CLOSED_REDIS_URL = "redis://127.0.0.1:1"
TOO_MANY = "Too many requests; try again after the number of seconds in Retry-After."


def remaining(response: object, name: str = "default") -> tuple[int, int]:
    """(r, t) of the policy ``name`` in the response's ``RateLimit`` field."""
    field = response.headers["RateLimit"]  # type: ignore[attr-defined]
    match = re.search(rf'"{name}";r=(\d+);t=(\d+)', field)
    assert match is not None, field
    return int(match[1]), int(match[2])


def assert_no_limit_headers(response: object) -> None:
    headers = response.headers  # type: ignore[attr-defined]
    assert "RateLimit" not in headers
    assert "RateLimit-Policy" not in headers


@pytest.fixture
def limited(build_app: Callable[..., TestApp]) -> Callable[..., TestApp]:
    """An app of this test's own (its counters start from nothing) with ``rate``."""

    def build(rate: str, **settings: str) -> TestApp:
        return build_app(**{"shopsvc.rate_limit": rate, **settings})

    return build


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-memory counters' clock stands still, half a second past the 30th second of a
    minute: no window ends mid-test on a slow machine, and the headers' ``t`` are exact (the
    minute's fixed window ends in 29.5 s, the second's in 0.5 s: ``t=30`` and ``t=1``)."""
    now = time.time() // 60 * 60 + 30.5
    clock = types.SimpleNamespace(time=lambda: now, monotonic=time.monotonic)
    monkeypatch.setattr(limits.storage.memory, "time", clock)
    monkeypatch.setattr(limits.strategies, "time", clock)
    monkeypatch.setattr(rate_limit, "time", clock)


# --- off by default


def test_off_by_default_no_limiter_and_no_headers(app: TestApp, admin: Credentials) -> None:
    assert rate_limit.limiter_of(app.app.registry) is None
    response = authorised(app, admin).get(f"{ROOT}/products", status=200)
    assert_no_limit_headers(response)


def test_the_limit_is_counted_in_the_gate_the_tweens_stay_as_they_are(
    app: TestApp, limited: Callable[..., TestApp]
) -> None:
    def tweens(app: TestApp) -> list[str]:
        return [name for name, _ in app.app.registry.queryUtility(ITweens).implicit()]

    assert tweens(limited("100/minute")) == tweens(app)


@pytest.mark.usefixtures("frozen_clock")
def test_a_failed_login_says_where_its_address_stands_and_counts_against_it(
    limited: Callable[..., TestApp], admin: Credentials
) -> None:
    """A request whose credentials fail is the client address's request: its 401 carries the
    headers, and past the limit the address gets 429 instead (a password guesser is slowed down),
    while a good key keeps its own count."""
    app = limited("2/minute")
    where = {"REMOTE_ADDR": "192.0.2.7"}
    bad = Credentials(admin.user_id, admin.key_id, admin.consumer_key, "cs_wrong")
    for left in (1, 0):
        response = authorised(app, bad).get(f"{ROOT}/products", extra_environ=where, status=401)
        assert remaining(response)[0] == left
    response = authorised(app, bad).get(f"{ROOT}/products", extra_environ=where, status=429)
    assert_error(response, 429, "shop_api_too_many_requests")
    good = authorised(app, admin).get(f"{ROOT}/products", extra_environ=where, status=200)
    assert remaining(good)[0] == 1


# --- the headers


@pytest.mark.usefixtures("frozen_clock")
def test_every_response_under_the_api_root_says_where_the_caller_stands(
    limited: Callable[..., TestApp], admin: Credentials
) -> None:
    app = limited("100/minute")
    api = authorised(app, admin)
    first = api.get(f"{ROOT}/products", status=200)
    assert first.headers["RateLimit-Policy"] == '"default";q=100;w=60'
    assert first.headers["RateLimit"] == '"default";r=99;t=30'
    # errors of the router and of the views carry them too
    missing = api.get(f"{ROOT}/nowhere", status=404)
    assert_error(missing, 404, "shop_api_no_route")
    assert remaining(missing)[0] == 98
    invalid = api.post_json(f"{ROOT}/products", {"product": {"name": 5}}, status=400)
    assert remaining(invalid)[0] == 97
    assert api.head(f"{ROOT}/products", status=200).headers["RateLimit-Policy"]
    # nothing outside the API root
    assert_no_limit_headers(app.get("/healthz", status=200))
    # the public paths count per address
    index = app.get(f"{ROOT}", status=200)
    assert remaining(index)[0] == 99


@pytest.mark.usefixtures("frozen_clock")
def test_429_past_the_limit_with_retry_after_cors_and_the_access_line(
    limited: Callable[..., TestApp], admin: Credentials, caplog: pytest.LogCaptureFixture
) -> None:
    origin = "https://app.example"
    app = limited("3/minute", **{"shopsvc.cors_origins": origin})
    api = authorised(app, admin, HTTP_ORIGIN=origin)
    for left in (2, 1, 0):
        assert remaining(api.get(f"{ROOT}/products", status=200))[0] == left
    with caplog.at_level(logging.INFO, logger="shopsvc.access"):
        refused = api.get(f"{ROOT}/products", status=429)
    assert_error(refused, 429, "shop_api_too_many_requests", TOO_MANY)
    assert refused.headers["Retry-After"] == "30"
    assert refused.headers["RateLimit-Policy"] == '"default";q=3;w=60'
    assert refused.headers["RateLimit"] == '"default";r=0;t=30'
    assert refused.headers["Access-Control-Allow-Origin"] == origin
    exposed = refused.headers["Access-Control-Expose-Headers"]
    assert exposed.endswith(", RateLimit-Policy, RateLimit, Retry-After")
    assert refused.headers["X-Request-Id"]
    [line] = [record for record in caplog.records if record.name == "shopsvc.access"]
    assert (line.status, line.key_id) == (429, admin.key_id)  # type: ignore[attr-defined]
    # a refused request uses nothing: still refused, still 0
    assert remaining(api.get(f"{ROOT}/products", status=429))[0] == 0


@pytest.mark.usefixtures("frozen_clock")
def test_each_key_has_its_own_limit(
    limited: Callable[..., TestApp], make_key: Callable[..., Credentials]
) -> None:
    app = limited("2/minute")
    first, second = authorised(app, make_key()), authorised(app, make_key())
    first.get(f"{ROOT}/products", status=200)
    first.get(f"{ROOT}/products", status=200)
    first.get(f"{ROOT}/products", status=429)
    assert remaining(second.get(f"{ROOT}/products", status=200))[0] == 1
    # the anonymous address is a caller of its own as well
    assert remaining(app.get(f"{ROOT}", status=200))[0] == 1


@pytest.mark.usefixtures("frozen_clock")
def test_unauthenticated_requests_count_per_client_address(
    limited: Callable[..., TestApp],
) -> None:
    app = limited("2/minute", **{"shopsvc.trusted_proxies": "10.0.0.0/8"})
    one = {"REMOTE_ADDR": "192.0.2.1"}
    for left in (1, 0):
        assert remaining(app.get(f"{ROOT}", extra_environ=one, status=200))[0] == left
    assert_error(
        app.get(f"{ROOT}/openapi.json", extra_environ=one, status=429),
        429,
        "shop_api_too_many_requests",
    )
    other = {"REMOTE_ADDR": "192.0.2.2"}
    assert remaining(app.get(f"{ROOT}", extra_environ=other, status=200))[0] == 1
    # behind a trusted proxy, the forwarded address is the caller
    proxied = {"REMOTE_ADDR": "10.1.2.3", "HTTP_X_FORWARDED_FOR": "192.0.2.1"}
    app.get(f"{ROOT}", extra_environ=proxied, status=429)
    proxied = {"REMOTE_ADDR": "10.1.2.3", "HTTP_X_FORWARDED_FOR": "192.0.2.3"}
    assert remaining(app.get(f"{ROOT}", extra_environ=proxied, status=200))[0] == 1
    # an untrusted peer's X-Forwarded-For is ignored: the peer is the caller
    spoofed = {"REMOTE_ADDR": "192.0.2.1", "HTTP_X_FORWARDED_FOR": "192.0.2.9"}
    app.get(f"{ROOT}", extra_environ=spoofed, status=429)


@pytest.mark.usefixtures("frozen_clock")
def test_a_bulk_write_costs_more_than_a_single_write(
    limited: Callable[..., TestApp], admin: Credentials
) -> None:
    assert rate_limit.BULK_COST == 10
    api = authorised(limited("15/minute"), admin)
    single = api.post_json(f"{ROOT}/taxes", {"tax": {"rate": "5"}}, status=201)
    assert remaining(single)[0] == 14
    bulk = api.put_json(f"{ROOT}/taxes/bulk", {"taxes": [{"rate": "6"}]}, status=200)
    assert remaining(bulk)[0] == 4
    # a read of the bulk path is no bulk write; a second bulk does not fit in the 3 left after it
    assert remaining(api.get(f"{ROOT}/taxes/bulk", status="*"))[0] == 3
    refused = api.put_json(f"{ROOT}/taxes/bulk", {"taxes": [{"rate": "7"}]}, status=429)
    assert_error(refused, 429, "shop_api_too_many_requests")
    assert remaining(refused)[0] == 3  # nothing used
    assert remaining(api.get(f"{ROOT}/taxes", status=200))[0] == 2


@pytest.mark.usefixtures("frozen_clock")
def test_the_burst_caps_any_one_second(limited: Callable[..., TestApp], admin: Credentials) -> None:
    api = authorised(limited("10/minute burst 3"), admin)
    policy = '"burst";q=3;w=1, "default";q=10;w=60'
    for left in (2, 1, 0):
        response = api.get(f"{ROOT}/products", status=200)
        assert response.headers["RateLimit-Policy"] == policy
        assert remaining(response, "burst")[0] == left
        assert remaining(response, "default")[0] == left + 7
    refused = api.get(f"{ROOT}/products", status=429)
    assert_error(refused, 429, "shop_api_too_many_requests")
    assert refused.headers["Retry-After"] == "1"
    assert remaining(refused, "burst") == (0, 1)
    assert remaining(refused, "default")[0] == 7  # the burst refused it: the minute is untouched
    assert refused.headers["RateLimit"] == '"burst";r=0;t=1, "default";r=7;t=30'


# --- Redis


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of this test's own in the machine's Redis, whose keys are deleted after."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as exc:
        if os.environ.get("SHOPSVC_REQUIRE_POSTGRES"):
            pytest.fail(f"Redis at {REDIS_URL} is down but SHOPSVC_REQUIRE_POSTGRES is set: {exc}")
        pytest.skip(f"Redis at {REDIS_URL} is down: {exc}")
    prefix = f"shopsvc-test-{uuid.uuid4().hex}"
    yield prefix
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)
    client.close()


def test_two_apps_share_the_limit_in_redis(
    limited: Callable[..., TestApp], admin: Credentials, redis_prefix: str
) -> None:
    settings = {
        "shopsvc.rate_limit.storage_url": REDIS_URL,
        "shopsvc.rate_limit.key_prefix": redis_prefix,
    }
    one = authorised(limited("4/day", **settings), admin)
    other = authorised(limited("4/day", **settings), admin)
    assert remaining(one.get(f"{ROOT}/products", status=200))[0] == 3
    assert remaining(other.get(f"{ROOT}/products", status=200))[0] == 2
    assert remaining(one.get(f"{ROOT}/products", status=200))[0] == 1
    assert remaining(other.get(f"{ROOT}/products", status=200))[0] == 0
    for app in (one, other):
        refused = app.get(f"{ROOT}/products", status=429)
        assert_error(refused, 429, "shop_api_too_many_requests")
        assert 1 <= int(refused.headers["Retry-After"]) <= 86400
    keys = redis.Redis.from_url(REDIS_URL).keys(f"{redis_prefix}:*")
    assert keys  # the counters are in Redis, under the prefix


def test_a_redis_that_is_down_skips_the_limit_with_one_warning(
    limited: Callable[..., TestApp],
    admin: Credentials,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rate_limit, "RETRY_SECONDS", 0.0)  # every request asks Redis again
    app = limited("1/minute", **{"shopsvc.rate_limit.storage_url": CLOSED_REDIS_URL})
    api = authorised(app, admin)
    with caplog.at_level(logging.WARNING, logger="shopsvc.web.rate_limit"):
        for _ in range(3):
            assert_no_limit_headers(api.get(f"{ROOT}/products", status=200))
        assert_no_limit_headers(app.get(f"{ROOT}", status=200))
    warnings = [r for r in caplog.records if r.name == "shopsvc.web.rate_limit"]
    assert len(warnings) == 1
    assert warnings[0].levelno == logging.WARNING
    assert "rate limit storage unreachable" in warnings[0].getMessage()


def test_a_failed_redis_is_skipped_for_a_moment_then_asked_again() -> None:
    """The limiter itself: after a failure, no request waits on Redis for ``RETRY_SECONDS``;
    a storage that answers again ends the streak (one more line, at WARNING)."""
    calls: list[str] = []

    class Flaky:
        down = True

        def hit(self, *args: object, **kwargs: object) -> bool:
            calls.append("hit")
            if self.down:
                raise ConnectionError("refused")
            return True

        def get_window_stats(self, *args: object) -> object:
            return type("Stats", (), {"reset_time": 0.0, "remaining": 1})()

    storage = rate_limit.make_storage(load_settings({}, environ={}))
    limiter = rate_limit.RateLimiter(RatePolicy(2, 60), storage)
    flaky = Flaky()
    limiter.strategy = flaky  # type: ignore[assignment]
    assert limiter.hit("key:1", 1) is None
    assert limiter.hit("key:1", 1) is None  # skipped without asking
    assert calls == ["hit"]
    limiter._retry_at = 1.0  # the moment has passed
    flaky.down = False
    decision = limiter.hit("key:1", 1)
    assert decision is not None and decision.allowed
    assert limiter._failing_since is None


# --- the setting


@pytest.mark.parametrize(
    ("text", "policy"),
    [
        ("120/minute", RatePolicy(120, 60)),
        ("120/minute burst 20", RatePolicy(120, 60, 20)),
        ("  120 / Minutes   BURST  20 ", RatePolicy(120, 60, 20)),
        ("1000/hour", RatePolicy(1000, 3600)),
        ("50/10 seconds", RatePolicy(50, 10)),
        ("5/second", RatePolicy(5, 1)),
        ("100000/day", RatePolicy(100000, 86400)),
        ("", None),
        ("off", None),
        ("OFF", None),
        ("false", None),
    ],
)
def test_rate_limit_setting(text: str, policy: RatePolicy | None) -> None:
    assert load_settings({"shopsvc.rate_limit": text}, environ={}).rate_limit == policy


def test_rate_limit_from_the_environment() -> None:
    settings = load_settings({}, environ={"SHOPSVC_RATE_LIMIT": "30/minute"})
    assert settings.rate_limit == RatePolicy(30, 60)
    assert settings.rate_limit_storage_url == "memory://"
    assert settings.rate_limit_key_prefix == "shopsvc"


@pytest.mark.parametrize(
    "text",
    [
        "120",
        "minute",
        "120/",
        "/minute",
        "120/fortnight",
        "120 per minute",
        "0/minute",
        "-5/minute",
        "1.5/minute",
        "120/0 seconds",
        "120/minute burst",
        "120/minute burst 0",
        "120/minute burst 120",
        "120/minute burst 500",
        "10/second burst 2",
        "120/minute, 10/second",
        "120/minute burst 20 burst 5",
        "9" * 20 + "/minute",
        "120/minute\x00",
        "١٢٠/minute",  # Arabic-Indic digits
        "true",
    ],
)
def test_hostile_rate_limit_settings_name_the_key(text: str) -> None:
    with pytest.raises(SettingsError, match=r"^shopsvc\.rate_limit: "):
        load_settings({"shopsvc.rate_limit": text}, environ={})


@pytest.mark.parametrize(
    "url", ["", "redis", "http://127.0.0.1:6379", "memcached://x", "redis://a b", "file:///tmp"]
)
def test_hostile_storage_urls_name_the_key(url: str) -> None:
    with pytest.raises(SettingsError, match=r"^shopsvc\.rate_limit\.storage_url: "):
        load_settings({"shopsvc.rate_limit.storage_url": url}, environ={})


@pytest.mark.parametrize("prefix", ["", "a b", "x" * 65, "a*", "a\nb"])
def test_hostile_key_prefixes_name_the_key(prefix: str) -> None:
    with pytest.raises(SettingsError, match=r"^shopsvc\.rate_limit\.key_prefix: "):
        load_settings({"shopsvc.rate_limit.key_prefix": prefix}, environ={})


def test_the_openapi_document_declares_the_429(app: TestApp) -> None:
    document = app.get(f"{ROOT}/openapi.json", status=200).json
    answer = document["components"]["responses"]["TooManyRequests"]
    assert answer["x-error-codes"] == ["shop_api_too_many_requests"]
    assert set(answer["headers"]) == {"Retry-After", "RateLimit-Policy", "RateLimit"}
    assert "`shop_api_too_many_requests`" in document["info"]["description"]


def test_the_in_process_counters_expire_without_a_timer_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    storage = rate_limit.make_storage(load_settings({}, environ={}))
    assert isinstance(storage, rate_limit.SweptMemoryStorage)
    storage.timer.join()  # the one the base class starts
    started: list[object] = []
    monkeypatch.setattr(limits.storage.memory.threading, "Timer", started.append)
    monkeypatch.setattr(rate_limit, "SWEEP_SECONDS", 0.0)
    storage.incr("gone", 0.01)
    time.sleep(0.05)
    storage.incr("kept", 60)
    assert "gone" not in storage.storage  # swept by the next write
    assert storage.storage["kept"] == 1
    assert started == []
