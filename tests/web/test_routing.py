"""The shared protocol of every route (decisions.md §2 and §7): the index, routing, errors,
bodies, method override, HEAD, the output format and one transaction per request. Lists (paging,
order, filters, ``fields``) are in ``test_listing.py``.

The webhook routes serve as the vehicle; rows are created through the API and their timestamps
set with SQL where a test needs to control them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from pyramid.response import Response
from pyramid.scripting import prepare
from webtest import TestApp

from shopsvc.errors import ApiError
from shopsvc.sql.tables import webhooks
from shopsvc.web.request import ShopRequest as Request
from shopsvc.web.transaction import transaction_tween_factory
from tests.helpers.api import (
    BASE,
    ROOT,
    Credentials,
    assert_error,
    authorised,
    errors,
    paging_headers,
)
from tests.helpers.webhooks import ids, numbered_webhooks, set_times, webhook_ids

NO_ROUTE = {
    "errors": [
        {
            "code": "shop_api_no_route",
            "message": "No route was found matching the URL and request method",
        }
    ]
}
UNSUPPORTED = {
    "errors": [{"code": "shop_api_unsupported_method", "message": "Unsupported request method"}]
}
JSONP_DISABLED = {
    "errors": [
        {"code": "shop_api_jsonp_disabled", "message": "JSONP support is disabled on this site"}
    ]
}
MISSING_CREATE = {
    "errors": [
        {
            "code": "shop_api_missing_webhook_data",
            "message": "No webhook data specified to create webhook.",
        }
    ]
}
MISSING_EDIT = {
    "errors": [
        {
            "code": "shop_api_missing_webhook_data",
            "message": "No webhook data specified to edit webhook.",
        }
    ]
}
JSON_TYPE = "application/json; charset=UTF-8"
METHODS = ("HEAD", "GET", "POST", "PUT", "PATCH", "DELETE")


pytestmark = pytest.mark.usefixtures("no_ping")


# --- the index


STORE_KEYS = ["name", "description", "URL", "shop_version", "version", "routes", "meta"]
DEFAULT_META = {
    "timezone": "UTC",
    "currency": "USD",
    "currency_format": "$",
    "currency_position": "left",
    "thousand_separator": ",",
    "decimal_separator": ".",
    "price_num_decimals": 2,
    "tax_included": False,
    "weight_unit": "kg",
    "dimension_unit": "cm",
    "ssl_enabled": False,
    "permalinks_enabled": True,
    "generate_password": False,
    "links": {"help": f"{BASE}/"},
}


@pytest.mark.parametrize("path", [ROOT, f"{ROOT}/"])
def test_index_needs_no_authentication(app: TestApp, path: str) -> None:
    response = app.get(path, status=200)
    assert response.headers["Content-Type"] == JSON_TYPE
    assert list(response.json) == ["store"]
    store = response.json["store"]
    assert list(store) == STORE_KEYS
    assert store["name"] == "Shop"
    assert store["description"] == ""
    assert store["URL"] == BASE
    assert isinstance(store["shop_version"], str) and store["shop_version"]
    assert store["version"] == "3.1.0"
    assert store["meta"] == DEFAULT_META
    assert list(store["meta"]) == list(DEFAULT_META)


def test_index_ignores_bad_credentials(app: TestApp) -> None:
    client = TestApp(app.app)
    client.authorization = ("Basic", ("ck_nobody", "cs_nothing"))
    assert client.get(ROOT, status=200).json["store"]["version"] == "3.1.0"
    assert app.get(f"{ROOT}?consumer_key=ck_x&consumer_secret=cs_y&oauth_nonce=1", status=200)


def test_index_routes_of_webhooks(app: TestApp) -> None:
    routes = app.get(ROOT).json["store"]["routes"]
    assert next(iter(routes)) == "/"
    assert routes["/"] == {"supports": ["HEAD", "GET"], "meta": {"self": f"{BASE}{ROOT}/"}}
    assert routes["/webhooks"] == {
        "supports": ["HEAD", "GET", "POST"],
        "accepts_data": True,
        "meta": {"self": f"{BASE}{ROOT}/webhooks"},
    }
    assert routes["/webhooks/count"] == {
        "supports": ["HEAD", "GET"],
        "meta": {"self": f"{BASE}{ROOT}/webhooks/count"},
    }
    assert routes["/webhooks/<id>"] == {
        "supports": ["HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"],
        "accepts_data": True,
    }
    assert routes["/webhooks/<webhook_id>/deliveries"] == {"supports": ["HEAD", "GET"]}
    assert routes["/webhooks/<webhook_id>/deliveries/<id>"] == {"supports": ["HEAD", "GET"]}


def test_index_routes_follow_the_rules(app: TestApp) -> None:
    routes = app.get(ROOT).json["store"]["routes"]
    for pattern, entry in routes.items():
        supports = entry["supports"]
        assert supports, pattern
        assert supports == [m for m in METHODS if m in supports], pattern
        assert ("HEAD" in supports) == ("GET" in supports), pattern
        # edit routes take PUT, PATCH and POST; bulk routes POST, PUT and PATCH
        assert ("PUT" in supports) == ("PATCH" in supports), pattern
        if "PUT" in supports:
            assert "POST" in supports, pattern
        writes = any(m in supports for m in ("POST", "PUT", "PATCH"))
        assert entry.get("accepts_data", False) is writes, pattern
        if "<" in pattern:
            assert "meta" not in entry, pattern
        else:
            assert entry["meta"] == {"self": f"{BASE}{ROOT}{pattern}"}, pattern


def test_index_supports_exactly_what_is_routed(app: TestApp, api: TestApp) -> None:
    routes = app.get(ROOT).json["store"]["routes"]
    # like the original's route regexes: ids are digits, a slug is any segment
    matchers = {
        pattern: re.compile(
            re.sub(r"<[^>]+>", "[^/]+", re.sub(r"<[a-z_]*id>", "[0-9]+", pattern)) + "$"
        )
        for pattern in routes
    }
    for pattern in routes:
        concrete = re.sub(r"<[^>]+>", "1", pattern)
        # a path may match several patterns (``/taxes/classes/count`` is also a class slug)
        supported = {
            method
            for other, entry in routes.items()
            if matchers[other].match(concrete)
            for method in entry["supports"]
        }
        path = ROOT + concrete
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            response = api.request(path, method=method, expect_errors=True)
            routed = not (response.body and response.json == NO_ROUTE)
            assert routed is (method in supported), (pattern, method)
        if "GET" in supported:
            got = api.get(path, expect_errors=True)
            assert api.head(path, expect_errors=True).status_int == got.status_int, pattern


def test_index_reflects_store_settings(build_app: Callable[..., TestApp]) -> None:
    app = build_app(
        **{
            "shopsvc.public_url": "https://shop.example/",
            "shopsvc.store_name": "Corner Shop",
            "shopsvc.store_description": "Odds and ends",
            "shopsvc.currency": "EUR",
            "shopsvc.currency_position": "right_space",
            "shopsvc.thousand_separator": ".",
            "shopsvc.decimal_separator": ",",
            "shopsvc.price_decimals": "3",
            "shopsvc.prices_include_tax": "yes",
            "shopsvc.weight_unit": "lbs",
            "shopsvc.dimension_unit": "in",
            "shopsvc.timezone": "Europe/London",
        }
    )
    store = app.get(ROOT).json["store"]
    assert store["name"] == "Corner Shop"
    assert store["description"] == "Odds and ends"
    assert store["URL"] == "https://shop.example"
    assert store["routes"]["/webhooks"]["meta"] == {"self": f"https://shop.example{ROOT}/webhooks"}
    assert store["meta"] == {
        **DEFAULT_META,
        "timezone": "Europe/London",
        "currency": "EUR",
        "currency_format": "€",
        "currency_position": "right_space",
        "thousand_separator": ".",
        "decimal_separator": ",",
        "price_num_decimals": 3,
        "tax_included": True,
        "weight_unit": "lbs",
        "dimension_unit": "in",
        "ssl_enabled": True,
        "links": {"help": "https://shop.example/"},
    }


def test_index_other_methods_are_no_route(app: TestApp) -> None:
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        response = app.request(ROOT, method=method, expect_errors=True)
        assert response.status_int == 404, method
        assert response.json == NO_ROUTE


def test_index_unsupported_method_and_jsonp(app: TestApp) -> None:
    assert app.request(ROOT, method="OPTIONS", status=400).json == UNSUPPORTED
    assert app.get(f"{ROOT}?_jsonp=callback", status=400).json == JSONP_DISABLED
    assert app.get(f"{ROOT}/?_jsonp=callback", status=400).json == JSONP_DISABLED


# --- errors and routing


def test_unknown_path_is_no_route(api: TestApp) -> None:
    for path in (f"{ROOT}/nothing", f"{ROOT}/webhooks/1/nothing", f"{ROOT}/products/sku/abc"):
        response = api.get(path, status=404)
        assert response.headers["Content-Type"] == JSON_TYPE
        assert response.json == NO_ROUTE


def test_paths_outside_the_api_root_are_no_route(app: TestApp) -> None:
    # but the server's root, GET / (tests/web/test_home.py)
    for path in ("/nothing", "/webhooks", "/shop-api/v2/webhooks", f"{ROOT}x/webhooks"):
        assert app.get(path, status=404).json == NO_ROUTE


def test_known_path_with_wrong_method_is_no_route_not_405(api: TestApp) -> None:
    cases = [
        ("DELETE", f"{ROOT}/webhooks"),
        ("PUT", f"{ROOT}/webhooks"),
        ("PATCH", f"{ROOT}/webhooks"),
        ("POST", f"{ROOT}/webhooks/count"),
        ("DELETE", f"{ROOT}/webhooks/count"),
        ("POST", f"{ROOT}/webhooks/1/deliveries"),
    ]
    for method, path in cases:
        response = api.request(path, method=method, expect_errors=True)
        assert response.status_int == 404, (method, path)
        assert response.json == NO_ROUTE, (method, path)


def test_trailing_slash_on_a_resource_route_is_no_route(api: TestApp) -> None:
    hook = webhook_ids(api, "one")[0]
    for path in (
        f"{ROOT}/webhooks/",
        f"{ROOT}/webhooks/count/",
        f"{ROOT}/webhooks/{hook}/",
        f"{ROOT}//webhooks",
        f"{ROOT}/webhooks//{hook}",
    ):
        assert api.get(path, status=404).json == NO_ROUTE, path
    api.get(f"{ROOT}/webhooks/{hook}", status=200)


def test_paths_match_case_insensitively(api: TestApp) -> None:
    hook = webhook_ids(api, "one")[0]
    assert ids(api.get(f"{ROOT}/WEBHOOKS", status=200)) == [hook]
    assert api.get(f"{ROOT}/Webhooks/Count", status=200).json == {"count": 1}
    assert api.get(f"{ROOT.upper()}/webhooks/{hook}", status=200).json["webhook"]["id"] == hook
    assert api.get(ROOT.upper(), status=200).json["store"]["version"] == "3.1.0"


@pytest.mark.filterwarnings("ignore::webtest.lint.WSGIWarning")
@pytest.mark.parametrize("method", ["OPTIONS", "FOO", "TRACE", "get"])
def test_unsupported_method(api: TestApp, app: TestApp, method: str) -> None:
    response = api.request(f"{ROOT}/webhooks", method=method, expect_errors=True)
    assert response.status_int == 400
    assert response.headers["Content-Type"] == JSON_TYPE
    assert response.json == UNSUPPORTED
    # authentication comes first
    anonymous = app.request(f"{ROOT}/webhooks", method=method, expect_errors=True)
    assert_error(anonymous, 401, "shop_api_authentication_error", "Consumer secret is invalid.")


def test_method_override_by_query_parameter(api: TestApp) -> None:
    first, second = webhook_ids(api, "one", "two")
    response = api.post(f"{ROOT}/webhooks/{first}?_method=DELETE", status=200)
    assert response.json == {"message": "Permanently deleted webhook"}
    response = api.post(f"{ROOT}/webhooks/{second}?_method=delete", status=200)
    assert response.json == {"message": "Permanently deleted webhook"}
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": 0}


def test_method_override_by_header(api: TestApp) -> None:
    hook = webhook_ids(api, "one")[0]
    response = api.post(
        f"{ROOT}/webhooks/{hook}", headers={"X-HTTP-Method-Override": "DELETE"}, status=200
    )
    assert response.json == {"message": "Permanently deleted webhook"}
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": 0}


def test_method_override_query_wins_over_header(api: TestApp) -> None:
    hook = webhook_ids(api, "one")[0]
    response = api.post(
        f"{ROOT}/webhooks/{hook}?_method=GET",
        headers={"X-HTTP-Method-Override": "DELETE"},
        status=200,
    )
    assert response.json["webhook"]["id"] == hook
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": 1}


def test_method_override_to_an_unsupported_method(api: TestApp) -> None:
    assert api.get(f"{ROOT}/webhooks?_method=FOO", status=400).json == UNSUPPORTED
    response = api.get(f"{ROOT}/webhooks", headers={"X-HTTP-Method-Override": "FOO"}, status=400)
    assert response.json == UNSUPPORTED


def test_method_override_to_an_unrouted_method(api: TestApp) -> None:
    assert api.get(f"{ROOT}/webhooks?_method=DELETE", status=404).json == NO_ROUTE


def test_jsonp_is_disabled(api: TestApp, app: TestApp) -> None:
    assert api.get(f"{ROOT}/webhooks?_jsonp=cb", status=400).json == JSONP_DISABLED
    assert api.get(f"{ROOT}/webhooks/count?_jsonp=", status=400).json == JSONP_DISABLED
    assert app.get(f"{ROOT}/webhooks?_jsonp=cb", status=400).json == JSONP_DISABLED


def test_path_that_is_not_utf8_is_no_route(api: TestApp, app: TestApp) -> None:
    for path in (f"{ROOT}/%ff", f"{ROOT}/webhooks/%ff", "/%ff", f"{ROOT}/webhooks%00"):
        assert api.get(path, status=404).json == NO_ROUTE, path
        assert app.get(path, status=404).json == NO_ROUTE, path


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("filter[q]=%ff", "query string"),
        ("%ff=1", "query string"),
        ("fields=id%C3", "query string"),
        ("filter[q]=a%00b", "filter[q]"),
        ("status=%00", "status"),
        ("filter[sku]=%00", "filter[sku]"),
    ],
)
def test_query_that_is_not_text(api: TestApp, query: str, name: str) -> None:
    for path in (f"{ROOT}/webhooks", f"{ROOT}/webhooks/count", ROOT):
        response = api.get(f"{path}?{query}", status=400)
        assert_error(response, 400, "shop_api_invalid_param")
        assert name in errors(response)[0]["message"]


# --- bodies


def test_invalid_json(api: TestApp) -> None:
    response = api.post(f"{ROOT}/webhooks", "{bad", content_type="application/json", status=400)
    assert response.json == {
        "errors": [
            {
                "code": "shop_api_invalid_json",
                "message": "Invalid JSON body: Expecting property name enclosed in double quotes:"
                " line 1 column 2 (char 1).",
            }
        ]
    }


@pytest.mark.parametrize(
    "body",
    [
        b'{"webhook": {"topic": "order.created"',
        b'{"webhook": {}} trailing',
        b"\xff\xfe{}",
        b'{"webhook": {"topic": "order.created", "name": NaN}}',
        b'{"webhook": Infinity}',
        b"[" * 100_000 + b"]" * 100_000,
        b"'single'",
        b'{"webhook": {"topic": "order.created", "name": "\\ud800"}}',
        b'{"webhook": {"\\udfff": 1}}',
    ],
    ids=[
        "truncated",
        "trailing",
        "not-utf8",
        "nan",
        "infinity",
        "deep",
        "quotes",
        "lone-surrogate-value",
        "lone-surrogate-key",
    ],
)
def test_unparseable_bodies_are_invalid_json(api: TestApp, body: bytes) -> None:
    for method, path in (("POST", "/webhooks"), ("PUT", "/webhooks/1")):
        response = api.request(
            ROOT + path,
            method=method,
            body=body,
            content_type="application/json",
            expect_errors=True,
        )
        assert_error(response, 400, "shop_api_invalid_json")
        assert errors(response)[0]["message"].startswith("Invalid JSON body: ")
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": 0}


def test_unknown_body_charset_is_invalid_json(api: TestApp) -> None:
    response = api.post(
        f"{ROOT}/webhooks", b"{}", content_type="application/json; charset=klingon", status=400
    )
    assert_error(response, 400, "shop_api_invalid_json")


@pytest.mark.parametrize(
    "body", [b"", b"  \n\t ", b"null", b"{}", b"[]", b'{"webhook": null}', b'"webhook"', b"0"]
)
def test_missing_envelope_gets_the_routes_code(api: TestApp, body: bytes) -> None:
    response = api.post(f"{ROOT}/webhooks", body, content_type="application/json", status=400)
    assert response.json == MISSING_CREATE
    hook = webhook_ids(api, "one")[0]
    response = api.put(f"{ROOT}/webhooks/{hook}", body, content_type="application/json", status=400)
    assert response.json == MISSING_EDIT


@pytest.mark.parametrize("envelope", ["5", '"text"', "[]", '[{"topic": "order.created"}]', "true"])
def test_envelope_that_is_not_an_object(api: TestApp, envelope: str) -> None:
    body = f'{{"webhook": {envelope}}}'
    response = api.post(f"{ROOT}/webhooks", body, content_type="application/json", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert "webhook" in errors(response)[0]["message"]
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": 0}


def test_body_content_type_is_not_checked(api: TestApp) -> None:
    body = '{"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/"}}'
    response = api.post(f"{ROOT}/webhooks", body, content_type="text/plain", status=201)
    assert response.json["webhook"]["topic"] == "order.created"


# --- HEAD


def _same_but_bodiless(api: TestApp, path: str, status: int) -> None:
    got = api.get(path, status=status)
    head = api.head(path, status=status)
    assert head.body == b""
    assert got.body != b""

    def comparable(response: Any) -> list[tuple[str, str]]:
        return sorted((k, v) for k, v in response.headerlist if k != "X-Request-Id")

    assert comparable(head) == comparable(got)
    assert head.headers["Content-Length"] == str(len(got.body))


def test_head_wherever_get_works(api: TestApp) -> None:
    made = numbered_webhooks(api, 3)
    _same_but_bodiless(api, ROOT, 200)
    _same_but_bodiless(api, f"{ROOT}/", 200)
    _same_but_bodiless(api, f"{ROOT}/webhooks?filter[limit]=1&page=2", 200)
    _same_but_bodiless(api, f"{ROOT}/webhooks/count", 200)
    _same_but_bodiless(api, f"{ROOT}/webhooks/{made[0]}?fields=id", 200)
    _same_but_bodiless(api, f"{ROOT}/webhooks/{made[0]}/deliveries", 200)
    _same_but_bodiless(api, f"{ROOT}/webhooks/999", 404)
    _same_but_bodiless(api, f"{ROOT}/nothing", 404)
    _same_but_bodiless(api, f"{ROOT}/webhooks?filter[limit]=x", 400)


def test_head_needs_authentication(app: TestApp) -> None:
    response = app.head(f"{ROOT}/webhooks", status=401)
    assert response.body == b""
    assert response.headers["WWW-Authenticate"].startswith('Basic realm="Shop API.')


# --- output format


def test_timestamps_are_utc_seconds_with_z(api: TestApp, engine: sa.Engine) -> None:
    hook = webhook_ids(api, "one")[0]
    set_times(engine, hook, dt.datetime(2024, 3, 1, 9, 8, 7), dt.datetime(2024, 3, 2, 1, 2, 3))
    record = api.get(f"{ROOT}/webhooks/{hook}").json["webhook"]
    assert record["created_at"] == "2024-03-01T09:08:07Z"
    assert record["updated_at"] == "2024-03-02T01:02:03Z"
    (two,) = webhook_ids(api, "two")
    fresh = api.get(f"{ROOT}/webhooks/{two}").json["webhook"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", fresh["created_at"])


def test_errors_and_successes_are_json(api: TestApp) -> None:
    for path, status in ((f"{ROOT}/webhooks", 200), (f"{ROOT}/webhooks/0", 404)):
        response = api.get(path, status=status)
        assert response.headers["Content-Type"] == JSON_TYPE


def test_api_root_setting_serves_the_legacy_path(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    api = authorised(build_app(**{"shopsvc.api_root": "/wc-api/v3"}), admin)
    hook = webhook_ids(api, "legacy", root="/wc-api/v3")[0]
    assert api.get("/wc-api/v3/webhooks", status=200).json["webhooks"][0]["id"] == hook
    routes = api.get("/wc-api/v3/", status=200).json["store"]["routes"]
    assert routes["/webhooks"]["meta"] == {"self": f"{BASE}/wc-api/v3/webhooks"}
    assert api.get(f"{ROOT}/webhooks", status=404).json == NO_ROUTE
    response = api.get("/wc-api/v3/webhooks?filter[limit]=1&page=1")
    assert paging_headers(response) == {"X-Shop-Total": "1", "X-Shop-TotalPages": "1"}


# --- one transaction per request


@pytest.mark.parametrize(
    ("outcome", "rolled_back"), [("ok", False), ("error response", True), ("exception", True)]
)
def test_transaction_tween_commits_or_rolls_back(
    app: TestApp, engine: sa.Engine, outcome: str, rolled_back: bool
) -> None:
    ran: list[str] = []

    def handler(request: Request) -> Response:
        request.db.execute(
            sa.insert(webhooks).values(
                name="in the request",
                status="active",
                topic="order.created",
                delivery_url="http://127.0.0.1:9/",
                secret="s",
                api_version="legacy_v3",
                created_at=dt.datetime(2024, 1, 1),
                updated_at=dt.datetime(2024, 1, 1),
            )
        )
        request.on_rollback(lambda: ran.append("rollback"))
        request.after_commit(lambda: ran.append("commit"))
        if outcome == "exception":
            raise ApiError("shop_api_invalid_param", "a later check failed", 400)
        return Response(status=200 if outcome == "ok" else 400)

    tween = transaction_tween_factory(handler, app.app.registry)
    request = Request.blank(f"{ROOT}/webhooks", method="POST")
    with prepare(request=request, registry=app.app.registry):
        if outcome == "exception":
            with pytest.raises(ApiError):
                tween(request)
        else:
            response = tween(request)
            assert response.status_int == (200 if outcome == "ok" else 400)
    assert ran == (["rollback"] if rolled_back else ["commit"])
    with engine.connect() as conn:
        stored = conn.execute(sa.select(sa.func.count()).select_from(webhooks)).scalar_one()
    assert stored == (0 if rolled_back else 1)
