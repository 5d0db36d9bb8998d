"""Authentication (decisions.md §2 and §7 "Authentication order", reference core.md §6):
query keys and HTTP Basic over HTTPS (or plain HTTP when allowed), OAuth 1.0a one-legged over plain
HTTP, signed by the real clients (PyPI ``woocommerce`` 3.0.0 and ``oauthlib``), key permissions,
and authentication before routing."""

from __future__ import annotations

import hashlib
import hmac
import time
import types
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
import requests
import sqlalchemy as sa
import woocommerce
import woocommerce.api
from oauthlib import oauth1
from webtest import TestApp

from shopsvc.auth import policy as security
from shopsvc.auth.policy import hash_consumer_key
from shopsvc.sql.tables import api_keys
from tests.helpers.api import HTTPS, LEGACY_ROOT, ROOT, Credentials, authorised, errors
from tests.helpers.oauth import signed
from tests.helpers.webhooks import webhook_ids

REALM = (
    'Basic realm="Shop API. Use a consumer key in the username field and a consumer secret in '
    'the password field."'
)
AUTH = "shop_api_authentication_error"
NO_OAUTH = {"shopsvc.auth.allow_basic_over_http": "false"}


pytestmark = pytest.mark.usefixtures("no_ping")


def _disposing(app: TestApp) -> Iterator[TestApp]:
    yield app
    app.app.registry.engine.dispose()


@pytest.fixture(scope="module")
def oauth_app(make_app: Callable[..., TestApp]) -> Iterator[TestApp]:
    """Plain HTTP without Basic: OAuth only (the production setting)."""
    yield from _disposing(make_app(**NO_OAUTH))


@pytest.fixture(scope="module")
def legacy_app(make_app: Callable[..., TestApp]) -> Iterator[TestApp]:
    """The legacy path the real ``woocommerce`` client builds (``/wc-api/v3``), OAuth only."""
    yield from _disposing(make_app(**NO_OAUTH, **{"shopsvc.api_root": LEGACY_ROOT}))


def assert_auth_error(response: Any, message: str, challenge: bool) -> None:
    assert response.status_int == 401
    assert response.headers["Content-Type"] == "application/json; charset=UTF-8"
    assert response.json == {"errors": [{"code": AUTH, "message": message}]}
    if challenge:
        assert response.headers["WWW-Authenticate"] == REALM
    else:
        assert "WWW-Authenticate" not in response.headers


def basic(app: TestApp, key: str, secret: str, **environ: str) -> TestApp:
    client = TestApp(app.app, extra_environ=environ)
    client.authorization = ("Basic", (key, secret))
    return client


def replace_param(url: str, name: str, value: str) -> str:
    path, _, query = url.partition("?")
    pairs = [pair.split("=", 1) for pair in query.split("&")]
    return path + "?" + "&".join(f"{k}={value if k == name else v}" for k, v in pairs)


def drop_param(url: str, name: str) -> str:
    path, _, query = url.partition("?")
    return path + "?" + "&".join(p for p in query.split("&") if p.split("=", 1)[0] != name)


# --- no credentials, and authentication before routing


def test_no_credentials_where_basic_is_allowed(app: TestApp) -> None:
    response = app.get(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_no_credentials_over_plain_http(oauth_app: TestApp) -> None:
    response = oauth_app.get(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "oauth_consumer_key parameter is missing.", challenge=False)


def test_no_credentials_over_https_without_the_setting(oauth_app: TestApp) -> None:
    response = oauth_app.get(f"{ROOT}/webhooks", extra_environ=HTTPS, status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_authentication_runs_before_routing(app: TestApp, api: TestApp) -> None:
    for path in (f"{ROOT}/nothing", f"{ROOT}/webhooks/", f"{ROOT}/products/sku/x"):
        response = app.get(path, status=401)
        assert_auth_error(response, "Consumer secret is invalid.", challenge=True)
        response = api.get(path, status=404)
        assert errors(response)[0]["code"] == "shop_api_no_route"
    response = app.delete(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)
    assert errors(api.delete(f"{ROOT}/webhooks", status=404))[0]["code"] == "shop_api_no_route"


def test_authentication_before_routing_over_oauth(oauth_app: TestApp, admin: Credentials) -> None:
    response = oauth_app.get(f"{ROOT}/nothing", status=401)
    assert_auth_error(response, "oauth_consumer_key parameter is missing.", challenge=False)
    response = oauth_app.get(signed(admin, "GET", f"{ROOT}/nothing"), status=404)
    assert errors(response)[0]["code"] == "shop_api_no_route"


# --- HTTP Basic and query keys


def test_basic(app: TestApp, admin: Credentials) -> None:
    client = basic(app, admin.consumer_key, admin.consumer_secret)
    assert client.get(f"{ROOT}/webhooks/count", status=200).json == {"count": 0}


def test_basic_unknown_key(app: TestApp, admin: Credentials) -> None:
    client = basic(app, "ck_" + "0" * 40, admin.consumer_secret)
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "Consumer key is invalid.", challenge=True)


def test_basic_wrong_secret(app: TestApp, admin: Credentials) -> None:
    client = basic(app, admin.consumer_key, admin.consumer_secret[:-1] + "x")
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)
    client = basic(app, admin.consumer_key, "")
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_another_keys_secret_is_wrong(app: TestApp, make_key: Callable[..., Credentials]) -> None:
    first, second = make_key(), make_key()
    client = basic(app, first.consumer_key, second.consumer_secret)
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


@pytest.mark.parametrize(
    "header", ["Basic !!!notbase64", "Basic " + "Y2tfb25seQ==", "Bearer abc", "Basic"]
)
def test_malformed_authorization_is_no_credentials(app: TestApp, header: str) -> None:
    response = app.get(f"{ROOT}/webhooks", headers={"Authorization": header}, status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_query_keys(app: TestApp, admin: Credentials) -> None:
    query = urlencode(
        {"consumer_key": admin.consumer_key, "consumer_secret": admin.consumer_secret}
    )
    assert app.get(f"{ROOT}/webhooks/count?{query}", status=200).json == {"count": 0}


def test_query_keys_wrong_secret_and_unknown_key(app: TestApp, admin: Credentials) -> None:
    query = urlencode({"consumer_key": admin.consumer_key, "consumer_secret": "cs_wrong"})
    response = app.get(f"{ROOT}/webhooks?{query}", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)
    query = urlencode({"consumer_key": "ck_unknown", "consumer_secret": admin.consumer_secret})
    response = app.get(f"{ROOT}/webhooks?{query}", status=401)
    assert_auth_error(response, "Consumer key is invalid.", challenge=True)


def test_query_keys_win_over_basic(app: TestApp, admin: Credentials) -> None:
    client = basic(app, admin.consumer_key, admin.consumer_secret)
    query = urlencode({"consumer_key": admin.consumer_key, "consumer_secret": "cs_wrong"})
    response = client.get(f"{ROOT}/webhooks?{query}", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_half_a_query_pair_falls_back_to_basic(app: TestApp, admin: Credentials) -> None:
    client = basic(app, admin.consumer_key, admin.consumer_secret)
    for query in (
        {"consumer_key": "ck_unknown"},
        {"consumer_secret": "cs_wrong"},
        {"consumer_key": "ck_unknown", "consumer_secret": ""},
    ):
        client.get(f"{ROOT}/webhooks/count?{urlencode(query)}", status=200)
    response = app.get(f"{ROOT}/webhooks?consumer_key={admin.consumer_key}", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_basic_and_query_keys_ignored_over_plain_http(
    oauth_app: TestApp, admin: Credentials
) -> None:
    client = basic(oauth_app, admin.consumer_key, admin.consumer_secret)
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert_auth_error(response, "oauth_consumer_key parameter is missing.", challenge=False)
    query = urlencode(
        {"consumer_key": admin.consumer_key, "consumer_secret": admin.consumer_secret}
    )
    response = oauth_app.get(f"{ROOT}/webhooks?{query}", status=401)
    assert_auth_error(response, "oauth_consumer_key parameter is missing.", challenge=False)


def test_basic_and_query_keys_over_https(oauth_app: TestApp, admin: Credentials) -> None:
    client = basic(oauth_app, admin.consumer_key, admin.consumer_secret, **HTTPS)
    assert client.get(f"{ROOT}/webhooks/count", status=200).json == {"count": 0}
    query = urlencode(
        {"consumer_key": admin.consumer_key, "consumer_secret": admin.consumer_secret}
    )
    response = oauth_app.get(f"{ROOT}/webhooks/count?{query}", extra_environ=HTTPS, status=200)
    assert response.json == {"count": 0}
    client = basic(oauth_app, admin.consumer_key, "cs_wrong", **HTTPS)
    response = client.get(f"{ROOT}/webhooks/count", status=401)
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_forwarded_proto_from_a_trusted_proxy(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    app = build_app(**NO_OAUTH, **{"shopsvc.trusted_proxies": "10.0.0.0/8, 192.0.2.7"})
    for proxy in ("10.1.2.3", "192.0.2.7"):
        client = basic(app, admin.consumer_key, admin.consumer_secret, REMOTE_ADDR=proxy)
        response = client.get(
            f"{ROOT}/webhooks/count", headers={"X-Forwarded-Proto": "https"}, status=200
        )
        assert response.json == {"count": 0}
    client = basic(app, admin.consumer_key, admin.consumer_secret, REMOTE_ADDR="10.1.2.3")
    response = client.get(f"{ROOT}/webhooks", headers={"X-Forwarded-Proto": "http"}, status=401)
    assert_auth_error(response, "oauth_consumer_key parameter is missing.", challenge=False)
    # links say https too
    webhook_ids(basic(app, admin.consumer_key, admin.consumer_secret, **HTTPS), "hook")
    webhook_ids(basic(app, admin.consumer_key, admin.consumer_secret, **HTTPS), "hook")
    response = client.get(
        f"{ROOT}/webhooks?filter[limit]=1",
        headers={"X-Forwarded-Proto": "https", "Host": "shop.example"},
        status=200,
    )
    assert response.headers.getall("Link")[0] == (
        f'<https://shop.example{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="next"'
    )


def test_forwarded_proto_from_anyone_else_is_ignored(
    build_app: Callable[..., TestApp], oauth_app: TestApp, admin: Credentials
) -> None:
    app = build_app(**NO_OAUTH, **{"shopsvc.trusted_proxies": "10.0.0.0/8"})
    for client in (
        basic(app, admin.consumer_key, admin.consumer_secret, REMOTE_ADDR="192.168.1.5"),
        basic(app, admin.consumer_key, admin.consumer_secret),
        basic(oauth_app, admin.consumer_key, admin.consumer_secret, REMOTE_ADDR="10.1.2.3"),
    ):
        response = client.get(
            f"{ROOT}/webhooks", headers={"X-Forwarded-Proto": "https"}, status=401
        )
        assert_auth_error(response, "oauth_consumer_key parameter is missing.", challenge=False)


def test_consumer_key_is_stored_only_as_a_hash(
    engine: sa.Engine, make_key: Callable[..., Credentials]
) -> None:
    credentials = make_key()
    with engine.connect() as conn:
        row = conn.execute(sa.select(api_keys)).mappings().one()
    assert credentials.consumer_key not in [str(value) for value in row.values()]
    assert row["consumer_key_hash"] == hash_consumer_key(credentials.consumer_key)
    assert len(row["consumer_key_hash"]) == 64
    assert row["truncated_key"] == credentials.consumer_key[-7:]
    assert credentials.consumer_key.startswith("ck_") and len(credentials.consumer_key) == 43
    assert credentials.consumer_secret.startswith("cs_") and len(credentials.consumer_secret) == 43


def test_successful_authentication_records_last_access(
    app: TestApp, engine: sa.Engine, admin: Credentials
) -> None:
    with engine.connect() as conn:
        assert conn.execute(sa.select(api_keys.c.last_access)).scalar_one() is None
    basic(app, admin.consumer_key, "cs_wrong").get(f"{ROOT}/webhooks", status=401)
    with engine.connect() as conn:
        assert conn.execute(sa.select(api_keys.c.last_access)).scalar_one() is None
    authorised(app, admin).get(f"{ROOT}/webhooks", status=200)
    with engine.connect() as conn:
        assert conn.execute(sa.select(api_keys.c.last_access)).scalar_one() is not None


# --- key permissions


@pytest.mark.parametrize(
    ("permissions", "method", "path", "message"),
    [
        ("read", "POST", "/webhooks", "The API key provided does not have write permissions."),
        ("read", "PUT", "/webhooks/1", "The API key provided does not have write permissions."),
        ("read", "PATCH", "/webhooks/1", "The API key provided does not have write permissions."),
        ("read", "DELETE", "/webhooks/1", "The API key provided does not have write permissions."),
        ("write", "GET", "/webhooks", "The API key provided does not have read permissions."),
        ("write", "GET", "/nothing", "The API key provided does not have read permissions."),
    ],
)
def test_key_permissions(
    app: TestApp,
    make_key: Callable[..., Credentials],
    permissions: str,
    method: str,
    path: str,
    message: str,
) -> None:
    client = authorised(app, make_key("administrator", permissions))
    response = client.request(ROOT + path, method=method, expect_errors=True)
    assert_auth_error(response, message, challenge=True)


def test_write_key_head_needs_read_permission(
    app: TestApp, make_key: Callable[..., Credentials]
) -> None:
    client = authorised(app, make_key("administrator", "write"))
    response = client.head(f"{ROOT}/webhooks", status=401)
    assert response.body == b""
    assert response.headers["WWW-Authenticate"] == REALM


def test_key_permissions_allow(app: TestApp, make_key: Callable[..., Credentials]) -> None:
    reader = authorised(app, make_key("administrator", "read"))
    writer = authorised(app, make_key("administrator", "write"))
    both = authorised(app, make_key("administrator", "read_write"))
    (hook,) = webhook_ids(writer, "hook")
    assert reader.get(f"{ROOT}/webhooks/{hook}", status=200).json["webhook"]["id"] == hook
    reader.head(f"{ROOT}/webhooks/{hook}", status=200)
    writer.put_json(f"{ROOT}/webhooks/{hook}", {"webhook": {"name": "x"}}, status=200)
    assert both.get(f"{ROOT}/webhooks/{hook}", status=200).json["webhook"]["name"] == "x"
    both.delete(f"{ROOT}/webhooks/{hook}", status=200)


def test_key_permissions_use_the_overridden_method(
    app: TestApp, make_key: Callable[..., Credentials]
) -> None:
    reader = authorised(app, make_key("administrator", "read"))
    writer = authorised(app, make_key("administrator", "write"))
    (hook,) = webhook_ids(writer, "hook")
    response = reader.get(f"{ROOT}/webhooks/{hook}?_method=DELETE", status=401)
    assert_auth_error(
        response, "The API key provided does not have write permissions.", challenge=True
    )
    response = writer.post(
        f"{ROOT}/webhooks/{hook}", headers={"X-HTTP-Method-Override": "GET"}, status=401
    )
    assert_auth_error(
        response, "The API key provided does not have read permissions.", challenge=True
    )


def test_unknown_methods_pass_the_permission_check_then_fail(
    app: TestApp, make_key: Callable[..., Credentials]
) -> None:
    for permissions in ("read", "write"):
        client = authorised(app, make_key("administrator", permissions))
        response = client.request(f"{ROOT}/webhooks", method="OPTIONS", status=400)
        assert errors(response)[0]["code"] == "shop_api_unsupported_method"


def test_capabilities_come_from_the_role(
    app: TestApp, make_key: Callable[..., Credentials]
) -> None:
    for role in ("administrator", "shop_manager"):
        authorised(app, make_key(role)).get(f"{ROOT}/webhooks", status=200)
    response = authorised(app, make_key("customer")).get(f"{ROOT}/webhooks", status=401)
    assert errors(response)[0]["code"] == "shop_api_user_cannot_read_webhook"
    assert "WWW-Authenticate" not in response.headers


# --- OAuth 1.0a signed by oauthlib


@pytest.mark.parametrize(
    "signature_method", [oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_HMAC_SHA256]
)
def test_oauth_signed_by_oauthlib(
    oauth_app: TestApp, api: TestApp, admin: Credentials, signature_method: str
) -> None:
    hooks = webhook_ids(api, *(f"hook {n}" for n in range(3)))
    url = signed(
        admin,
        "GET",
        f"{ROOT}/webhooks",
        [("filter[limit]", "2"), ("filter[q]", "hook"), ("page", "2")],
        signature_method=signature_method,
    )
    response = oauth_app.get(url, status=200)
    assert [hook["id"] for hook in response.json["webhooks"]] == [hooks[0]]
    # Link URLs keep the query but never the oauth_* parameters
    assert response.headers.getall("Link") == [
        f"<http://localhost{ROOT}/webhooks?filter%5Blimit%5D=2&filter%5Bq%5D=hook&page=1>;"
        ' rel="first"',
        f"<http://localhost{ROOT}/webhooks?filter%5Blimit%5D=2&filter%5Bq%5D=hook&page=1>;"
        ' rel="prev"',
    ]


def test_oauth_write_with_a_json_body(oauth_app: TestApp, admin: Credentials) -> None:
    body = {"webhook": {"topic": "product.updated", "delivery_url": "http://127.0.0.1:9/"}}
    response = oauth_app.post_json(signed(admin, "POST", f"{ROOT}/webhooks"), body, status=201)
    hook = response.json["webhook"]["id"]
    url = signed(admin, "PUT", f"{ROOT}/webhooks/{hook}")
    oauth_app.put_json(url, {"webhook": {"name": "renamed"}}, status=200)
    response = oauth_app.delete(signed(admin, "DELETE", f"{ROOT}/webhooks/{hook}"), status=200)
    assert response.json == {"message": "Permanently deleted webhook"}


def test_oauth_signs_the_overridden_method(
    oauth_app: TestApp, api: TestApp, admin: Credentials
) -> None:
    (hook,) = webhook_ids(api, "hook")
    as_post = signed(admin, "POST", f"{ROOT}/webhooks/{hook}", [("_method", "DELETE")])
    response = oauth_app.post(as_post, status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )
    as_delete = signed(admin, "DELETE", f"{ROOT}/webhooks/{hook}", [("_method", "DELETE")])
    response = oauth_app.post(as_delete, status=200)
    assert response.json == {"message": "Permanently deleted webhook"}
    (hook,) = webhook_ids(api, "hook")
    url = signed(admin, "DELETE", f"{ROOT}/webhooks/{hook}")
    oauth_app.post(url, headers={"X-HTTP-Method-Override": "DELETE"}, status=200)


def test_oauth_over_https_with_an_https_base(oauth_app: TestApp, admin: Credentials) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks/count", base="https://localhost")
    assert oauth_app.get(url, extra_environ=HTTPS, status=200).json == {"count": 0}


def test_oauth_where_basic_is_allowed(app: TestApp, admin: Credentials) -> None:
    assert app.get(signed(admin, "GET", f"{ROOT}/webhooks/count"), status=200).json == {"count": 0}
    url = drop_param(signed(admin, "GET", f"{ROOT}/webhooks/count"), "oauth_nonce")
    response = app.get(url, status=401)
    assert_auth_error(response, "oauth_nonce parameter is missing.", challenge=True)


def test_oauth_base_uri_uses_the_public_url(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    app = build_app(**NO_OAUTH, **{"shopsvc.public_url": "https://shop.example"})
    good = signed(admin, "GET", f"{ROOT}/webhooks/count", base="https://shop.example")
    assert app.get(good, status=200).json == {"count": 0}
    bad = signed(admin, "GET", f"{ROOT}/webhooks/count")
    response = app.get(bad, status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )


def test_oauth_base_uri_uses_the_request_host(oauth_app: TestApp, admin: Credentials) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks/count", base="http://api.example:8080")
    environ = {"HTTP_HOST": "api.example:8080"}
    assert oauth_app.get(url, extra_environ=environ, status=200).json == {"count": 0}
    url = signed(admin, "GET", f"{ROOT}/webhooks/count", base="http://localhost")
    response = oauth_app.get(url, extra_environ=environ, status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )


@pytest.mark.parametrize(
    "missing",
    [
        "oauth_consumer_key",
        "oauth_timestamp",
        "oauth_nonce",
        "oauth_signature",
        "oauth_signature_method",
    ],
)
def test_oauth_missing_parameter(oauth_app: TestApp, admin: Credentials, missing: str) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks")
    response = oauth_app.get(drop_param(url, missing), status=401)
    assert_auth_error(response, f"{missing} parameter is missing.", challenge=False)
    response = oauth_app.get(replace_param(url, missing, ""), status=401)
    assert_auth_error(response, f"{missing} parameter is missing.", challenge=False)


def test_oauth_missing_parameters_reported_in_order(oauth_app: TestApp) -> None:
    response = oauth_app.get(f"{ROOT}/webhooks?oauth_nonce=abc&oauth_signature=x", status=401)
    assert_auth_error(response, "oauth_consumer_key parameter is missing.", challenge=False)
    response = oauth_app.get(f"{ROOT}/webhooks?oauth_consumer_key=ck_x&oauth_nonce=n", status=401)
    assert_auth_error(response, "oauth_timestamp parameter is missing.", challenge=False)


def test_oauth_unknown_key(oauth_app: TestApp, admin: Credentials) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks", key="ck_" + "1" * 40)
    response = oauth_app.get(url, status=401)
    assert_auth_error(response, "Consumer key is invalid.", challenge=False)


def test_oauth_wrong_secret(oauth_app: TestApp, admin: Credentials) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks", secret="cs_" + "2" * 40)
    response = oauth_app.get(url, status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [("filter[limit]", "3"), ("page", "1"), ("oauth_nonce", "othernonce"), ("extra", "1")],
)
def test_oauth_tampered_request(
    oauth_app: TestApp, admin: Credentials, name: str, value: str
) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks", [("filter[limit]", "2"), ("page", "2")])
    if name == "extra":
        tampered = url + "&extra=1"
    else:
        tampered = replace_param(url, name.replace("[", "%5B").replace("]", "%5D"), value)
    assert tampered != url
    response = oauth_app.get(tampered, status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )
    oauth_app.get(url, status=200)


def test_oauth_tampered_path(oauth_app: TestApp, admin: Credentials) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks")
    response = oauth_app.get(url.replace("/webhooks?", "/webhooks/count?"), status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )


def test_oauth_unsupported_signature_method(oauth_app: TestApp, admin: Credentials) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks")
    for method in ("PLAINTEXT", "RSA-SHA1", "hmac-sha1", "HMAC-SHA512"):
        response = oauth_app.get(replace_param(url, "oauth_signature_method", method), status=401)
        assert_auth_error(
            response, "Invalid signature - signature method is invalid.", challenge=False
        )


@pytest.fixture
def server_clock(monkeypatch: pytest.MonkeyPatch) -> int:
    """The time the OAuth check reads, held still: a boundary of the 900 s window is tested
    exactly however long the request takes on a loaded machine."""
    now = int(time.time())
    monkeypatch.setattr(security, "time", types.SimpleNamespace(time=lambda: float(now)))
    return now


@pytest.mark.parametrize("offset", [-901, 901, -86400, 86400])
def test_oauth_stale_timestamp(
    oauth_app: TestApp, admin: Credentials, offset: int, server_clock: int
) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks", timestamp=server_clock + offset)
    response = oauth_app.get(url, status=401)
    assert_auth_error(response, "Invalid timestamp.", challenge=False)


@pytest.mark.parametrize("offset", [-900, -600, 600, 900])
def test_oauth_timestamp_within_fifteen_minutes(
    oauth_app: TestApp, admin: Credentials, offset: int, server_clock: int
) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks/count", timestamp=server_clock + offset)
    assert oauth_app.get(url, status=200).json == {"count": 0}


def test_oauth_signature_is_checked_before_the_timestamp(
    oauth_app: TestApp, admin: Credentials
) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks", timestamp=int(time.time()) - 3600)
    response = oauth_app.get(replace_param(url, "oauth_signature", "AAAA"), status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )


def test_oauth_reused_nonce(oauth_app: TestApp, admin: Credentials) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks/count", nonce="once-only-nonce")
    assert oauth_app.get(url, status=200).json == {"count": 0}
    response = oauth_app.get(url, status=401)
    assert_auth_error(response, "Invalid nonce - nonce has already been used.", challenge=False)
    # the same nonce with another timestamp is still a reuse
    again = signed(
        admin,
        "GET",
        f"{ROOT}/webhooks/count",
        nonce="once-only-nonce",
        timestamp=int(time.time()) - 60,
    )
    response = oauth_app.get(again, status=401)
    assert_auth_error(response, "Invalid nonce - nonce has already been used.", challenge=False)
    # a fresh nonce works
    assert oauth_app.get(signed(admin, "GET", f"{ROOT}/webhooks/count"), status=200)


@pytest.mark.parametrize("length", [255, 256, 4000])
def test_oauth_nonce_of_any_length(oauth_app: TestApp, admin: Credentials, length: int) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks/count", nonce="n" * length)
    assert oauth_app.get(url, status=200).json == {"count": 0}
    response = oauth_app.get(url, status=401)
    assert_auth_error(response, "Invalid nonce - nonce has already been used.", challenge=False)


def test_oauth_nonce_is_per_key(oauth_app: TestApp, make_key: Callable[..., Credentials]) -> None:
    first, second = make_key(), make_key()
    oauth_app.get(signed(first, "GET", f"{ROOT}/webhooks/count", nonce="shared"), status=200)
    oauth_app.get(signed(second, "GET", f"{ROOT}/webhooks/count", nonce="shared"), status=200)
    response = oauth_app.get(signed(first, "GET", f"{ROOT}/webhooks", nonce="shared"), status=401)
    assert_auth_error(response, "Invalid nonce - nonce has already been used.", challenge=False)


def test_oauth_failed_request_does_not_use_its_nonce(
    oauth_app: TestApp, make_key: Callable[..., Credentials]
) -> None:
    reader = make_key("administrator", "read")
    body = {"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/"}}
    url = signed(reader, "POST", f"{ROOT}/webhooks", nonce="n1")
    response = oauth_app.post_json(url, body, status=401)
    assert_auth_error(
        response, "The API key provided does not have write permissions.", challenge=False
    )
    url = signed(reader, "GET", f"{ROOT}/webhooks/count", nonce="n1")
    assert oauth_app.get(url, status=200).json == {"count": 0}


def test_oauth_timestamp_checked_before_the_nonce(oauth_app: TestApp, admin: Credentials) -> None:
    oauth_app.get(signed(admin, "GET", f"{ROOT}/webhooks", nonce="n2"), status=200)
    url = signed(admin, "GET", f"{ROOT}/webhooks", nonce="n2", timestamp=int(time.time()) - 1000)
    response = oauth_app.get(url, status=401)
    assert_auth_error(response, "Invalid timestamp.", challenge=False)


def test_oauth_key_permissions(oauth_app: TestApp, make_key: Callable[..., Credentials]) -> None:
    reader, writer = make_key("administrator", "read"), make_key("administrator", "write")
    body = {"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/"}}
    response = oauth_app.post_json(signed(reader, "POST", f"{ROOT}/webhooks"), body, status=401)
    assert_auth_error(
        response, "The API key provided does not have write permissions.", challenge=False
    )
    response = oauth_app.get(signed(writer, "GET", f"{ROOT}/webhooks"), status=401)
    assert_auth_error(
        response, "The API key provided does not have read permissions.", challenge=False
    )


def test_oauth_repeated_parameters_last_wins(
    oauth_app: TestApp, api: TestApp, admin: Credentials
) -> None:
    hooks = webhook_ids(api, *(f"hook {n}" for n in range(3)))
    url = signed(admin, "GET", f"{ROOT}/webhooks", [("filter[limit]", "1"), ("page", "2")])
    path, _, query = url.partition("?")
    # an earlier value of a repeated parameter is neither signed nor used
    response = oauth_app.get(f"{path}?page=3&{query}", status=200)
    assert [hook["id"] for hook in response.json["webhooks"]] == [hooks[1]]


def test_oauth_with_an_unsigned_extra_parameter_fails(
    oauth_app: TestApp, admin: Credentials
) -> None:
    url = signed(admin, "GET", f"{ROOT}/webhooks")
    response = oauth_app.get(url + "&fields=id", status=401)
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )


# --- OAuth signed by the real PyPI ``woocommerce`` 3.0.0 client


@pytest.fixture
def wc_transport(monkeypatch: pytest.MonkeyPatch) -> Callable[[TestApp], list[str]]:
    """Route the client's ``requests.request`` into a TestApp; returns the URLs it sent."""

    def install(app: TestApp) -> list[str]:
        sent: list[str] = []

        def transport(method: str, url: str, **kwargs: Any) -> Any:
            prepared = requests.Request(
                method=method,
                url=url,
                params=kwargs.get("params"),
                data=kwargs.get("data"),
                headers=kwargs.get("headers"),
                auth=kwargs.get("auth"),
            ).prepare()
            assert prepared.url is not None
            sent.append(prepared.url)
            headers = {k: v for k, v in prepared.headers.items() if k.lower() != "content-length"}
            return app.request(
                prepared.url,
                method=method,
                body=prepared.body or b"",
                headers=headers,
                expect_errors=True,
            )

        monkeypatch.setattr(woocommerce.api, "request", transport)
        return sent

    return install


def wc_client(credentials: Credentials, url: str = "http://localhost", **kwargs: Any) -> Any:
    return woocommerce.API(
        url=url,
        consumer_key=credentials.consumer_key,
        consumer_secret=credentials.consumer_secret,
        wp_api=False,
        version="v3",
        **kwargs,
    )


def test_woocommerce_client_version() -> None:
    assert woocommerce.api.__version__ == "3.0.0"


def test_woocommerce_client_oauth_list_with_duplicated_params(
    legacy_app: TestApp, admin: Credentials, wc_transport: Callable[[TestApp], list[str]]
) -> None:
    api_https = basic(legacy_app, admin.consumer_key, admin.consumer_secret, **HTTPS)
    hooks = webhook_ids(api_https, *(f"hook {n}" for n in range(5)), root=LEGACY_ROOT)
    sent = wc_transport(legacy_app)
    response = wc_client(admin).get("webhooks", params={"filter[limit]": 2, "page": 2})
    assert response.status_int == 200
    assert [hook["id"] for hook in response.json["webhooks"]] == [hooks[2], hooks[1]]
    assert response.headers["X-Shop-Total"] == "5"
    assert response.headers["X-Shop-TotalPages"] == "3"
    # the client really sent every parameter twice, and signed with HMAC-SHA256
    assert sent[0].count("page=2") == 2
    assert sent[0].count("filter%5Blimit%5D=2") == 2
    assert "oauth_signature_method=HMAC-SHA256" in sent[0]
    assert "Link" in response.headers
    for line in response.headers.getall("Link"):
        assert "oauth_" not in line and line.count("page=") == 1


def test_woocommerce_client_oauth_endpoint_with_a_query(
    legacy_app: TestApp, admin: Credentials, wc_transport: Callable[..., Any]
) -> None:
    api_https = basic(legacy_app, admin.consumer_key, admin.consumer_secret, **HTTPS)
    hooks = webhook_ids(api_https, *(f"hook {n}" for n in range(3)), root=LEGACY_ROOT)
    sent = wc_transport(legacy_app)
    # the maintainers' recommended form; the client appends a "?" to the last value
    response = wc_client(admin).get("webhooks?filter[limit]=2")
    assert "filter%5Blimit%5D=2%3F" in sent[0]
    assert response.status_int == 200
    assert [hook["id"] for hook in response.json["webhooks"]] == [hooks[2], hooks[1]]


def test_woocommerce_client_oauth_writes(
    legacy_app: TestApp, admin: Credentials, wc_transport: Callable[..., Any]
) -> None:
    wc_transport(legacy_app)
    client = wc_client(admin)
    body = {
        "webhook": {
            "topic": "coupon.created",
            "delivery_url": "http://127.0.0.1:9/",
            "name": "Café ✓ — ünïcode",
        }
    }
    response = client.post("webhooks", body)
    assert response.status_int == 201
    created = response.json["webhook"]
    assert created["name"] == "Café ✓ — ünïcode"
    assert created["topic"] == "coupon.created"
    response = client.put(f"webhooks/{created['id']}", {"webhook": {"status": "paused"}})
    assert response.status_int == 200
    assert response.json["webhook"]["status"] == "paused"
    response = client.get(f"webhooks/{created['id']}", params={"fields": "id,status"})
    assert response.json == {"webhook": {"id": created["id"], "status": "paused"}}
    response = client.delete(f"webhooks/{created['id']}")
    assert response.status_int == 200
    assert response.json == {"message": "Permanently deleted webhook"}
    assert client.get("webhooks/count").json == {"count": 0}


def test_woocommerce_client_oauth_failures(
    legacy_app: TestApp, admin: Credentials, wc_transport: Callable[..., Any]
) -> None:
    wc_transport(legacy_app)
    wrong = Credentials(admin.user_id, admin.key_id, admin.consumer_key, "cs_" + "3" * 40)
    response = wc_client(wrong).get("webhooks")
    assert_auth_error(
        response, "Invalid signature - provided signature does not match.", challenge=False
    )
    unknown = Credentials(0, 0, "ck_" + "4" * 40, admin.consumer_secret)
    response = wc_client(unknown).get("webhooks")
    assert_auth_error(response, "Consumer key is invalid.", challenge=False)
    response = wc_client(admin).get("nothing")
    assert response.status_int == 404
    assert errors(response)[0]["code"] == "shop_api_no_route"


@pytest.mark.filterwarnings("ignore::webtest.lint.WSGIWarning")
def test_woocommerce_client_options_is_unsupported(
    legacy_app: TestApp, admin: Credentials, wc_transport: Callable[..., Any]
) -> None:
    wc_transport(legacy_app)
    response = wc_client(admin).options("webhooks")
    assert response.status_int == 400
    assert errors(response)[0]["code"] == "shop_api_unsupported_method"


@pytest.mark.parametrize("query_string_auth", [False, True])
def test_woocommerce_client_over_https(
    legacy_app: TestApp,
    admin: Credentials,
    wc_transport: Callable[..., Any],
    query_string_auth: bool,
) -> None:
    sent = wc_transport(legacy_app)
    client = wc_client(admin, url="https://localhost", query_string_auth=query_string_auth)
    response = client.get("webhooks/count")
    assert response.status_int == 200
    assert response.json == {"count": 0}
    assert ("consumer_secret=" in sent[0]) is query_string_auth
    assert "oauth_" not in sent[0]
    wrong = Credentials(0, 0, admin.consumer_key, "cs_wrong")
    response = wc_client(wrong, url="https://localhost", query_string_auth=query_string_auth).get(
        "webhooks/count"
    )
    assert_auth_error(response, "Consumer secret is invalid.", challenge=True)


def test_woocommerce_client_slash_in_a_value_is_accepted_unless_strict(
    make_app: Callable[..., TestApp],
    legacy_app: TestApp,
    admin: Credentials,
    wc_transport: Callable[..., Any],
) -> None:
    # The client signs "/" raw while the original server encodes it: accepted by default
    # (shopsvc.auth.oauth_allow_raw_slash defaults to true); false refuses it, as the original.
    wc_transport(legacy_app)
    response = wc_client(admin).get("webhooks", params={"filter[q]": "a/b"})
    assert response.status_int == 200
    assert response.json == {"webhooks": []}
    wrong = Credentials(admin.user_id, admin.key_id, admin.consumer_key, "cs_" + "5" * 40)
    response = wc_client(wrong).get("webhooks", params={"filter[q]": "a/b"})
    assert response.status_int == 401
    strict = make_app(
        **{
            "shopsvc.api_root": LEGACY_ROOT,
            "shopsvc.auth.allow_basic_over_http": "false",
            "shopsvc.auth.oauth_allow_raw_slash": "false",
        }
    )
    try:
        wc_transport(strict)
        response = wc_client(admin).get("webhooks", params={"filter[q]": "a/b"})
        assert_auth_error(
            response, "Invalid signature - provided signature does not match.", challenge=False
        )
    finally:
        strict.app.registry.engine.dispose()


@pytest.mark.parametrize("consumer_key", ["ck_" + "0" * 40, "", "ck_ünïcode", "x" * 500])
def test_consumer_keys_are_stored_as_their_hmac_sha256(consumer_key: str) -> None:
    """The stored hash of every key ever issued: HMAC-SHA256 under ``shop-api``, in hex (twice,
    as the hash is computed from a copy of one keyed HMAC)."""
    expected = hmac.new(b"shop-api", consumer_key.encode("utf-8"), hashlib.sha256).hexdigest()
    assert hash_consumer_key(consumer_key) == hash_consumer_key(consumer_key) == expected
