"""What integrators and operators expect around the API (issue 11): health probes, conditional
GETs, compression, structured access logs, request ids, CORS and the public documentation paths.

Through the real app on both databases; the webhook routes are the vehicle for lists and single
records, as in ``test_routing.py``.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import json
import logging
import os
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import brotli
import pytest
import sqlalchemy as sa
from pyramid.interfaces import ITweens
from webob import Request, Response
from webtest import TestApp

from shopsvc.db.engine import make_engine
from shopsvc.logs import REQUEST_ID, JsonFormatter, TextFormatter
from shopsvc.settings import SettingsError, load_settings
from shopsvc.web import http_cache
from shopsvc.web.access import new_request_id
from shopsvc.web.http_cache import HASHED_IN_GIL, acceptable_codings, if_none_match
from shopsvc.web.rendering import http_date
from tests.helpers.api import ROOT, Credentials, authorised, paging_headers
from tests.helpers.webhooks import numbered_webhooks, set_times, webhook_ids

HOOKS = f"{ROOT}/webhooks"
#: A list of webhooks longer than 1 KiB (compressed when the client accepts it).
BIG_LIST = f"{HOOKS}?filter[limit]=10"
ETAG = re.compile(r'"[A-Za-z0-9_-]{24}"')
HEX_ID = re.compile(r"[0-9a-f]{32}")


def access_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "shopsvc.access"]


@pytest.fixture
def access_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.DEBUG, logger="shopsvc.access")
    yield caplog


def raw(client: TestApp, path: str, method: str = "GET", **headers: str) -> Response:
    """The app's response as it leaves (WebTest would decode a gzip body and refuse a brotli
    one), with ``client``'s credentials."""
    request = Request.blank(path, environ=dict(client.extra_environ), method=method)
    request.headers.update({name.replace("_", "-"): value for name, value in headers.items()})
    response: Response = request.get_response(client.app)
    return response


def vary(response: Any) -> list[str]:
    return [item.strip() for item in response.headers.get("Vary", "").split(",") if item.strip()]


# --- health


def test_healthz_needs_no_authentication_and_no_database(app: TestApp) -> None:
    registry = app.app.registry
    real = registry.engine
    registry.engine = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/nothing")
    try:
        response = app.get("/healthz", status=200)
    finally:
        registry.engine = real
    assert response.json == {"status": "ok"}
    assert response.content_type == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert "ETag" not in response.headers
    head = app.head("/healthz", status=200)
    assert head.body == b""
    assert app.post("/healthz", status=404).json["errors"][0]["code"] == "shop_api_no_route"


def test_readyz_answers_ok_on_a_migrated_database(app: TestApp) -> None:
    assert app.get("/readyz", status=200).json == {"status": "ok"}
    assert app.head("/readyz", status=200).body == b""


def test_readyz_503_when_the_database_is_unreachable(app: TestApp) -> None:
    registry = app.app.registry
    real = registry.engine
    registry.engine = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/nothing")
    try:
        response = app.get("/readyz", status=503)
    finally:
        registry.engine.dispose()
        registry.engine = real
    assert response.json["status"] == "unavailable"
    assert response.json["reason"].startswith("database unreachable (")
    assert "nobody" not in response.text  # no connection details to an anonymous caller


def test_readyz_503_when_the_schema_is_behind(build_app: Callable[..., TestApp]) -> None:
    app = build_app()
    app.app.registry.shop_head_revision = "9999_not_yet_applied"
    response = app.get("/readyz", status=503)
    assert response.json["status"] == "unavailable"
    assert "9999_not_yet_applied" in response.json["reason"]
    assert "run migrate" in response.json["reason"]


def test_readyz_503_on_a_database_never_migrated(
    build_app: Callable[..., TestApp], tmp_path: Any
) -> None:
    app = build_app(**{"sqlalchemy.url": f"sqlite:///{tmp_path}/empty.sqlite"})
    response = app.get("/readyz", status=503)
    assert response.json["reason"].startswith("schema at revision none, latest is ")


def test_health_probes_are_logged_at_debug_only_on_success(
    build_app: Callable[..., TestApp], access_log: pytest.LogCaptureFixture
) -> None:
    app = build_app()
    app.get("/healthz")
    app.get("/readyz")
    app.get(ROOT)
    app.app.registry.shop_head_revision = "9999_not_yet_applied"
    app.get("/readyz", status=503)
    levels = [(r.path, r.status, r.levelno) for r in access_records(access_log)]  # type: ignore[attr-defined]
    assert levels == [
        ("/healthz", 200, logging.DEBUG),
        ("/readyz", 200, logging.DEBUG),
        (ROOT, 200, logging.INFO),
        ("/readyz", 503, logging.INFO),
    ]


# --- request ids and the access log


@pytest.mark.parametrize("given", ["abc", "req-42.retry_1", "A" * 64])
def test_a_safe_request_id_is_reused(app: TestApp, given: str) -> None:
    response = app.get(ROOT, headers={"X-Request-Id": given})
    assert response.headers["X-Request-Id"] == given


@pytest.mark.parametrize(
    "given", ["", "A" * 65, "has space", "new\\nline", "semi;colon", 'quote"', "é", "a/b"]
)
def test_an_unsafe_request_id_is_replaced(app: TestApp, given: str) -> None:
    response = app.get(ROOT, headers={"X-Request-Id": given})
    assert HEX_ID.fullmatch(response.headers["X-Request-Id"])


def test_new_request_ids_are_version_4_uuids() -> None:
    """As ``uuid.uuid4().hex`` writes them: 32 hex digits of a random UUID, version 4, RFC 4122
    variant."""
    made = [new_request_id() for _ in range(2000)]
    assert len(set(made)) == len(made)
    for made_id in made:
        assert HEX_ID.fullmatch(made_id)
        parsed = uuid.UUID(hex=made_id)
        assert (parsed.version, parsed.variant, parsed.hex) == (4, uuid.RFC_4122, made_id)
    # every other bit is random: each is 1 in some ids and 0 in others
    values = [int(made_id, 16) for made_id in made]
    fixed = (0xF000 << 64) | (0xC000 << 48)
    for bit in (bit for bit in range(128) if not fixed >> bit & 1):
        assert len({value >> bit & 1 for value in values}) == 2, bit


def test_a_forked_process_draws_other_request_ids() -> None:
    """The generator behind the ids is seeded again in a forked child (a server that forks its
    workers after loading the app)."""
    new_request_id()
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        os.write(writer, "".join(new_request_id() for _ in range(3)).encode())
        os._exit(0)
    os.close(writer)
    os.waitpid(child, 0)
    with os.fdopen(reader) as pipe:
        theirs = pipe.read()
    ours = "".join(new_request_id() for _ in range(3))
    assert len(theirs) == len(ours) == 96 and theirs != ours


@pytest.mark.parametrize(
    "size", [0, 1, 2046, 2047, 2048, 4094, 4095, 5000, HASHED_IN_GIL, HASHED_IN_GIL + 1]
)
def test_the_entity_tag_is_the_sha256_of_the_body_and_paging_headers(size: int) -> None:
    """Hashed in pieces (up to ``HASHED_IN_GIL``) or at once, the digest is the body's."""
    body = bytes(range(256)) * (size // 256) + bytes(size % 256)
    headers = {"x-total": ["7"], "link": ["<a>; rel=next"]}
    expected = hashlib.sha256(body + b"\nX-Total: 7\nLink: <a>; rel=next").digest()[:18]
    got = http_cache._digest(headers, body, ("X-Total", "Link"))
    assert got == base64.urlsafe_b64encode(expected).decode()


def test_access_line_fields(
    app: TestApp, admin: Credentials, access_log: pytest.LogCaptureFixture
) -> None:
    api = authorised(app, admin)
    webhook_ids(api, "one")
    access_log.clear()
    query = f"consumer_key={admin.consumer_key}&consumer_secret={admin.consumer_secret}"
    response = app.get(
        f"{HOOKS}?{query}&filter[limit]=5",
        headers={"X-Request-Id": "trace-1"},
        extra_environ={"REMOTE_ADDR": "192.0.2.7"},
    )
    [record] = access_records(access_log)
    line = json.loads(JsonFormatter().format(record))
    assert {k: line[k] for k in ("level", "logger", "request_id", "method", "path")} == {
        "level": "INFO",
        "logger": "shopsvc.access",
        "request_id": "trace-1",
        "method": "GET",
        "path": HOOKS,
    }
    assert line["status"] == 200
    assert line["response_bytes"] == len(response.body)
    assert line["client_ip"] == "192.0.2.7"
    assert line["key_id"] == admin.key_id
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert dt.datetime.fromisoformat(line["time"]).tzinfo is not None
    text = json.dumps(line)
    assert admin.consumer_secret not in text and admin.consumer_key not in text
    assert "consumer" not in text and "filter" not in text  # the path has no query


def test_access_line_of_an_anonymous_or_refused_request(
    app: TestApp, access_log: pytest.LogCaptureFixture
) -> None:
    app.get(HOOKS, status=401)
    app.head(ROOT)
    refused, head = access_records(access_log)
    assert (refused.status, refused.key_id) == (401, None)  # type: ignore[attr-defined]
    assert (head.method, head.response_bytes) == ("HEAD", 0)  # type: ignore[attr-defined]


def test_access_line_cannot_be_forged_by_control_characters(
    app: TestApp, access_log: pytest.LogCaptureFixture
) -> None:
    app.get(f"{ROOT}/we%0Abhooks", status=401)
    app.get(f"{ROOT}?_method=GET%0Afake%20line", status=400)
    path, method = access_records(access_log)
    assert path.path == f"{ROOT}/we%0Abhooks"  # type: ignore[attr-defined]
    assert method.method == "GET\\x0aFAKE LINE"  # type: ignore[attr-defined]
    assert "\n" not in path.getMessage() + method.getMessage()


def test_client_ip_is_read_through_trusted_proxies_only(
    build_app: Callable[..., TestApp], access_log: pytest.LogCaptureFixture
) -> None:
    forwarded = {"X-Forwarded-For": "203.0.113.9, 10.0.0.2"}
    trusting = build_app(**{"shopsvc.trusted_proxies": "127.0.0.1"})
    trusting.get(ROOT, headers=forwarded, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    trusting.get(ROOT, headers=forwarded, extra_environ={"REMOTE_ADDR": "192.0.2.8"})
    seen = [r.client_ip for r in access_records(access_log)]  # type: ignore[attr-defined]
    assert seen == ["203.0.113.9", "192.0.2.8"]


def test_errors_carry_the_request_id(
    app: TestApp, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(request: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("shopsvc.views.root._routes", broken)
    caplog.set_level(logging.INFO)
    response = app.get(ROOT, status=500, headers={"X-Request-Id": "err-7"})
    assert response.headers["X-Request-Id"] == "err-7"
    [record] = [r for r in caplog.records if r.name == "shopsvc.views.errors"]
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "err-7"
    assert "RuntimeError: boom" in line["exception"]
    assert REQUEST_ID.get() is None  # reset once the request is over


def test_development_format_is_one_human_line(
    app: TestApp, admin: Credentials, access_log: pytest.LogCaptureFixture
) -> None:
    authorised(app, admin).get(HOOKS, headers={"X-Request-Id": "dev-1"})
    [record] = access_records(access_log)
    formatter = TextFormatter("%(levelname)s [%(name)s]%(request_tag)s %(message)s")
    line = formatter.format(record)
    assert "\n" not in line
    assert re.fullmatch(
        rf"INFO \[shopsvc\.access\] \[dev-1\] GET {HOOKS} 200 \d+\.\dms \d+B "
        rf"\S+ key={admin.key_id}",
        line,
    )
    outside = logging.LogRecord("shopsvc", logging.WARNING, "", 0, "hint", (), None)
    assert formatter.format(outside) == "WARNING [shopsvc] hint"
    plain = TextFormatter("[%(request_id)s] %(message)s")
    assert plain.format(outside) == "[-] hint"


# --- conditional GETs


def test_lists_and_records_carry_a_strong_etag(api: TestApp, engine: sa.Engine) -> None:
    [hook] = webhook_ids(api, "one")
    set_times(engine, hook, dt.datetime(2024, 3, 1, 9, 8, 7), dt.datetime(2024, 3, 2, 1, 2, 3))
    for path in (HOOKS, f"{HOOKS}/{hook}", f"{HOOKS}/count", ROOT, f"{HOOKS}/{hook}?fields=id"):
        got = api.get(path)
        assert ETAG.fullmatch(got.headers["ETag"]), path
        assert got.headers["Cache-Control"] == "private, no-cache"
        head = api.head(path)
        assert head.headers["ETag"] == got.headers["ETag"]
    single = api.get(f"{HOOKS}/{hook}")
    assert single.headers["Last-Modified"] == "Sat, 02 Mar 2024 01:02:03 GMT"
    assert api.get(f"{HOOKS}/{hook}?fields=id").headers["Last-Modified"] == (
        "Sat, 02 Mar 2024 01:02:03 GMT"
    )
    assert "Last-Modified" not in api.get(HOOKS).headers
    assert api.get(HOOKS).headers["ETag"] != single.headers["ETag"]


def test_if_none_match_answers_304_without_a_body(api: TestApp) -> None:
    numbered_webhooks(api, 3)
    url = f"{HOOKS}?filter[limit]=2"
    got = api.get(url)
    tag = got.headers["ETag"]
    for condition in (tag, f'"other", {tag}', f"W/{tag}", "*", f' "x" ,W/"y",  {tag} '):
        for method in (api.get, api.head):
            response = method(url, headers={"If-None-Match": condition}, status=304)
            assert response.body == b""
            assert response.headers["ETag"] == tag
            assert "Content-Type" not in response.headers
            assert "Content-Length" not in response.headers
            assert paging_headers(response) == paging_headers(got)
            assert response.headers.getall("Link") == got.headers.getall("Link")
            assert response.headers["X-Request-Id"]
            assert response.headers["Cache-Control"] == "private, no-cache"
    assert api.get(url, headers={"If-None-Match": '"other"'}, status=200).body == got.body


def test_a_change_changes_the_etag(api: TestApp) -> None:
    [hook] = webhook_ids(api, "one")
    first = api.get(f"{HOOKS}/{hook}").headers["ETag"]
    listed = api.get(HOOKS).headers["ETag"]
    api.put_json(f"{HOOKS}/{hook}", {"webhook": {"name": "renamed"}})
    api.get(f"{HOOKS}/{hook}", headers={"If-None-Match": first}, status=200)
    api.get(HOOKS, headers={"If-None-Match": listed}, status=200)


def test_a_new_total_changes_the_etag_of_an_unchanged_page(api: TestApp) -> None:
    numbered_webhooks(api, 2)
    url = f"{HOOKS}?filter[limit]=1&filter[order]=ASC&filter[orderby]=id"
    before = api.get(url)
    webhook_ids(api, "later")
    after = api.get(url, headers={"If-None-Match": before.headers["ETag"]}, status=200)
    assert after.body == before.body
    assert after.headers["X-Shop-Total"] == "3"


def test_only_successful_reads_are_conditional(api: TestApp) -> None:
    [hook] = webhook_ids(api, "one")
    missing = api.get(f"{HOOKS}/999", headers={"If-None-Match": "*"}, status=404)
    assert "ETag" not in missing.headers
    refused = api.get(f"{HOOKS}?filter[limit]=x", headers={"If-None-Match": "*"}, status=400)
    assert "ETag" not in refused.headers
    edited = api.put_json(
        f"{HOOKS}/{hook}", {"webhook": {"name": "x"}}, headers={"If-None-Match": "*"}, status=200
    )
    assert "ETag" not in edited.headers
    anonymous = TestApp(api.app)
    anonymous.get(HOOKS, headers={"If-None-Match": "*"}, status=401)


def test_health_and_media_carry_no_api_etag(app: TestApp) -> None:
    assert "ETag" not in app.get("/healthz").headers
    assert app.get("/healthz", headers={"If-None-Match": "*"}, status=200)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ('"a"', {"a"}),
        ('W/"a", "b-gzip"', {"a", "b-gzip"}),
        ("  *  ", None),
        ("garbage", set()),
    ],
)
def test_if_none_match_parsing(header: str, expected: set[str] | None) -> None:
    assert if_none_match(header) == expected


# --- compression
#
# WebTest decodes gzip bodies itself (and refuses brotli), so these tests read the app's
# responses as they leave it (``raw``).


def test_gzip_for_a_json_list_over_1_kib(api: TestApp) -> None:
    numbered_webhooks(api, 10)
    plain = raw(api, BIG_LIST)
    assert len(plain.body) > 1024
    assert "Content-Encoding" not in plain.headers
    assert vary(plain) == ["Accept-Encoding"]
    zipped = raw(api, BIG_LIST, Accept_Encoding="gzip")
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert vary(zipped) == ["Accept-Encoding"]
    assert gzip.decompress(zipped.body) == plain.body
    assert zipped.headers["Content-Length"] == str(len(zipped.body))
    assert len(zipped.body) < len(plain.body) / 3
    assert zipped.headers["ETag"] == plain.headers["ETag"][:-1] + '-gzip"'
    assert paging_headers(zipped) == paging_headers(plain)
    # WebTest (like any client) gets the same JSON back
    assert api.get(BIG_LIST, headers={"Accept-Encoding": "gzip"}).body == plain.body


def test_brotli_when_preferred(api: TestApp) -> None:
    numbered_webhooks(api, 10)
    plain = raw(api, BIG_LIST).body
    response = raw(api, BIG_LIST, Accept_Encoding="gzip, deflate, br")
    assert response.headers["Content-Encoding"] == "br"
    assert brotli.decompress(response.body) == plain
    assert response.headers["Content-Length"] == str(len(response.body))
    assert response.headers["ETag"].endswith('-br"')


@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        ("gzip;q=1, br;q=0.5", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("GZIP", "gzip"),
        ("x-gzip", "gzip"),
        ("*", "br"),
        ("gzip;q=0", None),
        ("gzip;q=0, br;q=0", None),
        ("identity", None),
        ("deflate", None),
        ("", None),
        ("gzip;q=0.5, identity;q=1", None),
        ("*;q=0", None),  # nothing acceptable: sent as it is
        ("gzip;q=nonsense", None),
    ],
)
def test_accept_encoding_is_honoured(api: TestApp, accept: str, coding: str | None) -> None:
    numbered_webhooks(api, 10)
    response = raw(api, BIG_LIST, Accept_Encoding=accept)
    assert response.headers.get("Content-Encoding") == coding
    assert "Accept-Encoding" in vary(response)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, ["identity"]),
        ("", ["identity"]),
        ("gzip, br", ["br", "gzip", "identity"]),
        ("gzip;q=0.8, br;q=0.9", ["br", "gzip", "identity"]),
        ("identity;q=0, gzip", ["gzip"]),
        ("*;q=0", []),
        ("*;q=0, identity", ["identity"]),
        ("br;q=0, *", ["gzip", "identity"]),
        ("gzip;q=1.5", ["identity"]),
        ("gzip ; q = 0.3 , identity;q=0.2", ["gzip", "identity"]),
    ],
)
def test_accept_encoding_parsing(header: str | None, expected: list[str]) -> None:
    assert acceptable_codings(header, ("br", "gzip")) == expected


def test_small_responses_are_never_compressed(api: TestApp) -> None:
    [hook] = webhook_ids(api, "one")
    for path in (f"{HOOKS}/count", f"{HOOKS}/{hook}", f"{HOOKS}/999"):
        response = raw(api, path, Accept_Encoding="gzip, br")
        assert len(response.body) <= 1024
        assert "Content-Encoding" not in response.headers
        assert "Vary" not in response.headers


def test_head_gets_the_headers_of_the_compressed_get_and_no_body(api: TestApp) -> None:
    numbered_webhooks(api, 10)
    for accept in ("gzip", "br", "identity"):
        got = raw(api, BIG_LIST, Accept_Encoding=accept)
        head = raw(api, BIG_LIST, "HEAD", Accept_Encoding=accept)
        assert head.body == b""
        assert sorted(h for h in head.headerlist if h[0] != "X-Request-Id") == sorted(
            h for h in got.headerlist if h[0] != "X-Request-Id"
        )


def test_304_for_the_representation_the_client_holds(api: TestApp) -> None:
    numbered_webhooks(api, 10)
    identity_tag = raw(api, BIG_LIST).headers["ETag"]
    gzip_tag = raw(api, BIG_LIST, Accept_Encoding="gzip").headers["ETag"]
    assert gzip_tag != identity_tag
    # a cache holding the gzip body, asking again with gzip
    response = raw(api, BIG_LIST, Accept_Encoding="gzip", If_None_Match=gzip_tag)
    assert (response.status_code, response.body, response.headers["ETag"]) == (304, b"", gzip_tag)
    assert "Content-Encoding" not in response.headers
    assert "Content-Length" not in response.headers
    assert "Accept-Encoding" in vary(response)
    # a cache holding the identity body that now accepts gzip: its copy is still good
    response = raw(api, BIG_LIST, Accept_Encoding="gzip", If_None_Match=identity_tag)
    assert (response.status_code, response.headers["ETag"]) == (304, identity_tag)
    # the gzip tag from a client that no longer accepts gzip: it gets the identity body
    full = raw(api, BIG_LIST, If_None_Match=gzip_tag)
    assert (full.status_code, full.headers["ETag"]) == (200, identity_tag)
    assert "Content-Encoding" not in full.headers


def test_error_bodies_are_compressed_too(api: TestApp) -> None:
    path = f"{HOOKS}?filter[orderby]={'x' * 2000}"
    plain = raw(api, path)
    assert plain.status_code == 400 and len(plain.body) > 1024
    zipped = raw(api, path, Accept_Encoding="gzip")
    assert (zipped.status_code, zipped.headers["Content-Encoding"]) == (400, "gzip")
    assert gzip.decompress(zipped.body) == plain.body
    assert "ETag" not in zipped.headers


# --- CORS

CORS = {"shopsvc.cors_origins": "https://app.example, https://admin.example:8443/"}
PREFLIGHT = {"Origin": "https://app.example", "Access-Control-Request-Method": "PUT"}


def test_cors_is_off_by_default(api: TestApp) -> None:
    response = api.get(HOOKS, headers={"Origin": "https://app.example"})
    assert not [name for name in response.headers if name.startswith("Access-Control-")]
    assert "Origin" not in vary(response)
    preflight = api.options(HOOKS, headers=PREFLIGHT, status="*")
    assert preflight.status_int >= 400
    assert "Access-Control-Allow-Origin" not in preflight.headers


def test_preflight_is_answered_before_authentication(
    build_app: Callable[..., TestApp], access_log: pytest.LogCaptureFixture
) -> None:
    app = build_app(**CORS)
    headers = {**PREFLIGHT, "Access-Control-Request-Headers": "authorization, content-type"}
    response = app.options(f"{HOOKS}/12", headers=headers, status=204)
    assert response.body == b""
    assert response.headers["Access-Control-Allow-Origin"] == "https://app.example"
    methods = response.headers["Access-Control-Allow-Methods"].split(", ")
    assert methods == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
    allowed = response.headers["Access-Control-Allow-Headers"].split(", ")
    for name in ("Authorization", "Content-Type", "X-HTTP-Method-Override", "X-Request-Id"):
        assert name in allowed
    assert int(response.headers["Access-Control-Max-Age"]) > 0
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert vary(response) == ["Origin"]
    assert "Content-Type" not in response.headers
    assert response.headers["X-Request-Id"]
    [record] = access_records(access_log)
    assert (record.method, record.status) == ("OPTIONS", 204)  # type: ignore[attr-defined]
    other = app.options(
        HOOKS, headers={**PREFLIGHT, "Origin": "https://admin.example:8443"}, status=204
    )
    assert other.headers["Access-Control-Allow-Origin"] == "https://admin.example:8443"


def test_unlisted_origins_get_no_cors_headers(build_app: Callable[..., TestApp]) -> None:
    app = build_app(**CORS)
    for origin in ("https://evil.example", "http://app.example", "https://app.example.evil"):
        preflight = app.options(HOOKS, headers={**PREFLIGHT, "Origin": origin}, status=204)
        assert not [n for n in preflight.headers if n.startswith("Access-Control-")]
        actual = app.get(HOOKS, headers={"Origin": origin}, status=401)
        assert not [n for n in actual.headers if n.startswith("Access-Control-")]
        assert "Origin" in vary(actual)


def test_actual_responses_expose_the_paging_and_request_id_headers(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    app = build_app(**CORS)
    api = authorised(app, admin)
    numbered_webhooks(api, 10)
    origin = {"Origin": "https://app.example"}
    listed = raw(api, BIG_LIST, Origin="https://app.example", Accept_Encoding="gzip")
    assert listed.headers["Access-Control-Allow-Origin"] == "https://app.example"
    exposed = listed.headers["Access-Control-Expose-Headers"].split(", ")
    for name in ("X-Shop-Total", "X-Shop-TotalPages", "Link", "X-Request-Id", "ETag"):
        assert name in exposed
    assert sorted(vary(listed)) == ["Accept-Encoding", "Origin"]
    # errors and 304s carry them too
    refused = app.get(HOOKS, headers=origin, status=401)
    assert refused.headers["Access-Control-Allow-Origin"] == "https://app.example"
    missing = api.get(f"{HOOKS}/999", headers=origin, status=404)
    assert missing.headers["Access-Control-Allow-Origin"] == "https://app.example"
    condition = {**origin, "If-None-Match": listed.headers["ETag"], "Accept-Encoding": "gzip"}
    unchanged = api.get(BIG_LIST, headers=condition, status=304)
    assert unchanged.headers["ETag"] == listed.headers["ETag"]
    assert unchanged.headers["Access-Control-Allow-Origin"] == "https://app.example"
    # outside the API root (health, media): no CORS
    assert "Access-Control-Allow-Origin" not in app.get("/healthz", headers=origin).headers


def test_any_origin_and_the_legacy_header_prefix(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    app = build_app(
        **{
            "shopsvc.cors_origins": "*",
            "shopsvc.api_root": "/wc-api/v3",
            "shopsvc.header_prefix": "X-WC",
        }
    )
    response = authorised(app, admin).get(
        "/wc-api/v3/webhooks", headers={"Origin": "https://anywhere.example"}
    )
    assert response.headers["Access-Control-Allow-Origin"] == "https://anywhere.example"
    exposed = response.headers["Access-Control-Expose-Headers"]
    assert exposed.startswith("X-WC-Total, X-WC-TotalPages, Link")


def test_cors_origins_setting() -> None:
    assert load_settings({}, environ={}).cors_origins == ()
    listed = "HTTPS://App.Example:443/,http://a.example:80  https://b.example:8443"
    shop = load_settings({"shopsvc.cors_origins": listed}, environ={})
    assert shop.cors_origins == (
        "https://app.example",
        "http://a.example",
        "https://b.example:8443",
    )
    env = load_settings({}, environ={"SHOPSVC_CORS_ORIGINS": "*"})
    assert env.cors_origins == ("*",)
    for bad in ("app.example", "https://app.example/path", "null", "https://"):
        with pytest.raises(SettingsError, match="cors_origins"):
            load_settings({"shopsvc.cors_origins": bad}, environ={})


# --- public documentation paths, tween order


@pytest.mark.parametrize(
    "path", ["/openapi.json", "/docs", "/DOCS", "/docs/", "/docs/swagger-ui.css", "/docs/a/b.js"]
)
def test_documentation_paths_need_no_authentication(app: TestApp, path: str) -> None:
    response = app.get(ROOT + path, status="*")
    assert response.status_int != 401
    assert "WWW-Authenticate" not in response.headers


@pytest.mark.parametrize("path", ["/docsx", "/openapi.json/x", "/openapi.jsonx", "/webhooks/docs"])
def test_neighbours_of_the_documentation_need_authentication(app: TestApp, path: str) -> None:
    app.get(ROOT + path, status=401)


def test_tween_order(app: TestApp) -> None:
    order = [name for name, _ in app.app.registry.queryUtility(ITweens).implicit()]
    assert order == [
        "shopsvc.web.access.access_tween_factory",
        "shopsvc.web.metrics.metrics_tween_factory",  # shopsvc.metrics (on by default)
        "shopsvc.web.cors.cors_tween_factory",
        "shopsvc.web.http_cache.http_cache_tween_factory",
        "shopsvc.web.transaction.transaction_tween_factory",
        "pyramid.tweens.excview_tween_factory",
        "shopsvc.web.gate.gate_tween_factory",
    ]


def test_http_date_is_what_webob_writes() -> None:
    """``rendering.http_date`` writes ``Last-Modified`` as webob's setter did: the fields of the
    datetime as they are (an aware datetime is not converted), English names, ``GMT``."""
    zones = (
        dt.UTC,
        dt.timezone(dt.timedelta(hours=5, minutes=30)),
        dt.timezone(-dt.timedelta(hours=8)),
    )
    values = [
        dt.datetime(1, 1, 1, tzinfo=dt.UTC),
        dt.datetime(999, 12, 31, 23, 59, 59, tzinfo=dt.UTC),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC),
        dt.datetime(2024, 2, 29, 0, 0, 0, tzinfo=dt.UTC),
        dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC),
    ]
    start = dt.datetime(1999, 12, 25, 13, 7, 9)
    values += [start + dt.timedelta(days=37 * i, seconds=4099 * i) for i in range(400)]
    values += [value.replace(tzinfo=zones[i % 3]) for i, value in enumerate(values)]
    for value in values:
        response = Response()
        response.last_modified = value
        assert http_date(value) == response.headers["Last-Modified"], value
