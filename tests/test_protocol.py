"""The shared protocol of every route (decisions.md §2 and §7): the index, routing, errors, bodies,
method override, pagination, the common filters, ``fields`` and HEAD.

The webhook routes serve as the vehicle for lists; rows are created through the API and their
timestamps set with SQL where a test needs to control them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from conftest import ROOT, Credentials, authorised, errors
from pyramid.request import Request
from pyramid.response import Response
from pyramid.scripting import prepare
from webtest import TestApp

from shopsvc.errors import ApiError
from shopsvc.protocol import transaction_tween_factory
from shopsvc.rendering import filter_fields, parse_fields
from shopsvc.sql.tables import webhooks

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
BASE = "http://localhost"


pytestmark = pytest.mark.usefixtures("no_ping")


def create_webhook(api: TestApp, name: str, topic: str = "order.created") -> int:
    body = {"webhook": {"topic": topic, "delivery_url": "http://127.0.0.1:9/hook", "name": name}}
    return api.post_json(f"{ROOT}/webhooks", body, status=201).json["webhook"]["id"]


def create_webhooks(api: TestApp, count: int) -> list[int]:
    return [create_webhook(api, f"hook {n}") for n in range(1, count + 1)]


def set_times(
    engine: sa.Engine, webhook_id: int, created: dt.datetime, updated: dt.datetime | None = None
) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.update(webhooks)
            .where(webhooks.c.id == webhook_id)
            .values(created_at=created, updated_at=updated or created)
        )


def ids(response: Any) -> list[int]:
    return [hook["id"] for hook in response.json["webhooks"]]


def links(response: Any) -> list[str]:
    return response.headers.getall("Link")


def link(query: str, rel: str) -> str:
    return f'<{BASE}{ROOT}/webhooks?{query}>; rel="{rel}"'


def paging_headers(response: Any) -> dict[str, str]:
    return {k: v for k, v in response.headerlist if k.startswith("X-") and k != "X-Request-Id"}


def assert_error(response: Any, status: int, code: str, message: str | None = None) -> None:
    assert response.status_int == status
    assert response.content_type == "application/json"
    assert len(errors(response)) == 1
    assert errors(response)[0]["code"] == code
    assert set(errors(response)[0]) == {"code", "message"}
    if message is not None:
        assert errors(response)[0]["message"] == message


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
    for path in ("/", "/webhooks", "/shop-api/v2/webhooks", f"{ROOT}x/webhooks"):
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
    hook = create_webhook(api, "one")
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
    hook = create_webhook(api, "one")
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
    first, second = create_webhook(api, "one"), create_webhook(api, "two")
    response = api.post(f"{ROOT}/webhooks/{first}?_method=DELETE", status=200)
    assert response.json == {"message": "Permanently deleted webhook"}
    response = api.post(f"{ROOT}/webhooks/{second}?_method=delete", status=200)
    assert response.json == {"message": "Permanently deleted webhook"}
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": 0}


def test_method_override_by_header(api: TestApp) -> None:
    hook = create_webhook(api, "one")
    response = api.post(
        f"{ROOT}/webhooks/{hook}", headers={"X-HTTP-Method-Override": "DELETE"}, status=200
    )
    assert response.json == {"message": "Permanently deleted webhook"}
    assert api.get(f"{ROOT}/webhooks/count").json == {"count": 0}


def test_method_override_query_wins_over_header(api: TestApp) -> None:
    hook = create_webhook(api, "one")
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
    hook = create_webhook(api, "one")
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


# --- pagination


def test_default_page_size_and_pages(api: TestApp) -> None:
    made = create_webhooks(api, 12)
    first = api.get(f"{ROOT}/webhooks", status=200)
    assert ids(first) == made[::-1][:10]
    assert paging_headers(first) == {"X-Shop-Total": "12", "X-Shop-TotalPages": "2"}
    assert links(first) == [link("page=2", "next"), link("page=2", "last")]
    second = api.get(f"{ROOT}/webhooks?page=2", status=200)
    assert ids(second) == made[::-1][10:]
    assert paging_headers(second) == {"X-Shop-Total": "12", "X-Shop-TotalPages": "2"}
    assert links(second) == [link("page=1", "first"), link("page=1", "prev")]


def test_link_headers_in_the_middle(api: TestApp) -> None:
    made = create_webhooks(api, 7)
    response = api.get(f"{ROOT}/webhooks?page=2&filter[limit]=2", status=200)
    assert ids(response) == [made[4], made[3]]
    assert paging_headers(response) == {"X-Shop-Total": "7", "X-Shop-TotalPages": "4"}
    query = "filter%5Blimit%5D=2&page="
    assert links(response) == [
        link(query + "1", "first"),
        link(query + "1", "prev"),
        link(query + "3", "next"),
        link(query + "4", "last"),
    ]


def test_link_headers_on_the_last_page_and_beyond(api: TestApp) -> None:
    made = create_webhooks(api, 5)
    last = api.get(f"{ROOT}/webhooks?filter[limit]=2&page=3", status=200)
    assert ids(last) == [made[0]]
    query = "filter%5Blimit%5D=2&page="
    assert links(last) == [link(query + "1", "first"), link(query + "2", "prev")]
    beyond = api.get(f"{ROOT}/webhooks?filter[limit]=2&page=5", status=200)
    assert ids(beyond) == []
    assert paging_headers(beyond) == {"X-Shop-Total": "5", "X-Shop-TotalPages": "3"}
    assert links(beyond) == [
        link(query + "1", "first"),
        link(query + "4", "prev"),
        link(query + "3", "last"),
    ]


def test_single_page_has_no_link(api: TestApp) -> None:
    create_webhooks(api, 3)
    response = api.get(f"{ROOT}/webhooks", status=200)
    assert paging_headers(response) == {"X-Shop-Total": "3", "X-Shop-TotalPages": "1"}
    assert links(response) == []


def test_no_results_have_zero_pages_and_no_link(api: TestApp) -> None:
    response = api.get(f"{ROOT}/webhooks?page=2", status=200)
    assert response.json == {"webhooks": []}
    assert paging_headers(response) == {"X-Shop-Total": "0", "X-Shop-TotalPages": "0"}
    assert links(response) == []
    create_webhook(api, "one")
    response = api.get(f"{ROOT}/webhooks?filter[q]=nothing-matches", status=200)
    assert paging_headers(response) == {"X-Shop-Total": "0", "X-Shop-TotalPages": "0"}
    assert links(response) == []


def test_link_keeps_the_query_but_replaces_page_and_drops_secrets(
    app: TestApp, api: TestApp, admin: Credentials
) -> None:
    create_webhooks(api, 3)
    key, secret = admin.consumer_key, admin.consumer_secret
    response = app.get(
        f"{ROOT}/webhooks?page=2&filter[limit]=1&consumer_key={key}&consumer_secret={secret}"
        "&oauth_signature=xyz&oauth_nonce=n&status=active&page=2",
        status=200,
    )
    query = f"filter%5Blimit%5D=1&consumer_key={key}&status=active&page="
    assert links(response) == [
        link(query + "1", "first"),
        link(query + "1", "prev"),
        link(query + "3", "next"),
        link(query + "3", "last"),
    ]


def test_link_urls_use_the_public_url(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    api = authorised(build_app(**{"shopsvc.public_url": "https://shop.example:8443"}), admin)
    create_webhooks(api, 2)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=1", status=200)
    assert links(response) == [
        f'<https://shop.example:8443{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="next"',
        f'<https://shop.example:8443{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="last"',
    ]


def test_link_urls_follow_the_request_host_and_scheme(api: TestApp) -> None:
    create_webhooks(api, 2)
    response = api.get(
        f"{ROOT}/webhooks?filter[limit]=1",
        extra_environ={"wsgi.url_scheme": "https", "HTTP_HOST": "api.example:443"},
        status=200,
    )
    assert links(response)[0] == (
        f'<https://api.example{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="next"'
    )
    response = api.get(
        f"{ROOT}/webhooks?filter[limit]=1", extra_environ={"HTTP_HOST": "api.example:8080"}
    )
    assert links(response)[0] == (
        f'<http://api.example:8080{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="next"'
    )


def test_header_prefix_setting(build_app: Callable[..., TestApp], admin: Credentials) -> None:
    api = authorised(build_app(**{"shopsvc.header_prefix": "X-WC"}), admin)
    create_webhooks(api, 3)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=2", status=200)
    assert paging_headers(response) == {"X-WC-Total": "3", "X-WC-TotalPages": "2"}
    assert "X-Shop-Total" not in response.headers


def test_counts_carry_no_pagination_headers(api: TestApp) -> None:
    create_webhooks(api, 3)
    response = api.get(f"{ROOT}/webhooks/count?page=2&filter[limit]=1", status=200)
    assert response.json == {"count": 3}
    assert paging_headers(response) == {}
    assert links(response) == []


def test_page_size_setting(build_app: Callable[..., TestApp], admin: Credentials) -> None:
    api = authorised(build_app(**{"shopsvc.page_size": "2"}), admin)
    made = create_webhooks(api, 5)
    response = api.get(f"{ROOT}/webhooks", status=200)
    assert ids(response) == [made[4], made[3]]
    assert paging_headers(response) == {"X-Shop-Total": "5", "X-Shop-TotalPages": "3"}
    assert ids(api.get(f"{ROOT}/webhooks?filter[limit]=0")) == [made[4], made[3]]
    assert ids(api.get(f"{ROOT}/webhooks?filter[limit]=")) == [made[4], made[3]]


def test_limit_minus_one_and_large_limits_use_the_maximum(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    api = authorised(build_app(**{"shopsvc.max_page_size": "3"}), admin)
    made = create_webhooks(api, 7)
    for limit in ("-1", "50", "4", "3"):
        response = api.get(f"{ROOT}/webhooks?filter[limit]={limit}", status=200)
        assert ids(response) == made[::-1][:3], limit
        assert paging_headers(response) == {"X-Shop-Total": "7", "X-Shop-TotalPages": "3"}, limit
    response = api.get(f"{ROOT}/webhooks?filter[limit]=-1&page=3", status=200)
    assert ids(response) == [made[0]]


def test_limit_minus_one_returns_everything_by_default(api: TestApp) -> None:
    made = create_webhooks(api, 12)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=-1", status=200)
    assert ids(response) == made[::-1]
    assert paging_headers(response) == {"X-Shop-Total": "12", "X-Shop-TotalPages": "1"}
    assert links(response) == []


def test_query_integers_use_their_leading_digits(api: TestApp) -> None:
    made = create_webhooks(api, 6)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=2%3F&page=2abc", status=200)
    assert ids(response) == [made[3], made[2]]
    assert paging_headers(response) == {"X-Shop-Total": "6", "X-Shop-TotalPages": "3"}
    response = api.get(f"{ROOT}/webhooks?filter[limit]=4.9&filter[offset]=1x", status=200)
    assert ids(response) == [made[4], made[3], made[2], made[1]]


def test_zero_or_empty_page_is_the_first(api: TestApp) -> None:
    made = create_webhooks(api, 3)
    for query in ("page=0", "page=", "page=00"):
        response = api.get(f"{ROOT}/webhooks?filter[limit]=2&{query}", status=200)
        assert ids(response) == [made[2], made[1]], query


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("page=x", "page"),
        ("page=-1", "page"),
        ("filter[limit]=abc", "filter[limit]"),
        ("filter[limit]=-5", "filter[limit]"),
        ("filter[limit]=%3F5", "filter[limit]"),
        ("filter[offset]=none", "filter[offset]"),
        ("filter[offset]=-2", "filter[offset]"),
    ],
)
def test_query_integers_without_leading_digits(api: TestApp, query: str, name: str) -> None:
    response = api.get(f"{ROOT}/webhooks?{query}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert name in errors(response)[0]["message"]


def test_offset_replaces_the_page_skip(api: TestApp) -> None:
    made = create_webhooks(api, 8)
    newest_first = made[::-1]
    response = api.get(f"{ROOT}/webhooks?filter[offset]=3&filter[limit]=2", status=200)
    assert ids(response) == newest_first[3:5]
    response = api.get(f"{ROOT}/webhooks?filter[offset]=3&filter[limit]=2&page=3", status=200)
    assert ids(response) == newest_first[3:5]
    assert paging_headers(response) == {"X-Shop-Total": "8", "X-Shop-TotalPages": "4"}
    response = api.get(f"{ROOT}/webhooks?filter[offset]=7", status=200)
    assert ids(response) == newest_first[7:]
    assert ids(api.get(f"{ROOT}/webhooks?filter[offset]=8", status=200)) == []


def test_repeated_parameters_last_wins(api: TestApp) -> None:
    made = create_webhooks(api, 4)
    response = api.get(f"{ROOT}/webhooks?page=1&filter[limit]=3&page=2&filter[limit]=1", status=200)
    assert ids(response) == [made[2]]
    assert paging_headers(response) == {"X-Shop-Total": "4", "X-Shop-TotalPages": "4"}


def test_huge_numbers_in_the_query(api: TestApp) -> None:
    made = create_webhooks(api, 2)
    huge = "9" * 30
    response = api.get(f"{ROOT}/webhooks?page={huge}", status=200)
    assert ids(response) == []
    response = api.get(f"{ROOT}/webhooks?filter[offset]={huge}", status=200)
    assert ids(response) == []
    response = api.get(f"{ROOT}/webhooks?filter[limit]={huge}", status=200)
    assert ids(response) == made[::-1]
    response = api.get(f"{ROOT}/webhooks?filter[in]={made[0]},{huge}", status=200)
    assert ids(response) == [made[0]]
    response = api.get(f"{ROOT}/webhooks?filter[not_in]={huge}", status=200)
    assert ids(response) == made[::-1]


# --- order and orderby


def test_default_order_is_created_at_descending_with_ties_by_id(
    api: TestApp, engine: sa.Engine
) -> None:
    made = create_webhooks(api, 5)
    moment = dt.datetime(2024, 3, 1, 12, 0, 0)
    set_times(engine, made[0], moment + dt.timedelta(hours=1))
    for hook in made[1:4]:
        set_times(engine, hook, moment)
    set_times(engine, made[4], moment - dt.timedelta(hours=1))
    expected = [made[0], made[3], made[2], made[1], made[4]]
    assert ids(api.get(f"{ROOT}/webhooks")) == expected
    assert ids(api.get(f"{ROOT}/webhooks?filter[order]=DESC&filter[orderby]=date")) == expected
    assert ids(api.get(f"{ROOT}/webhooks?filter[order]=asc")) == expected[::-1]
    ascending = api.get(f"{ROOT}/webhooks?filter[orderby]=CREATED_AT&filter[order]=Asc")
    assert ids(ascending) == expected[::-1]


def test_pages_never_overlap_or_skip_on_ties(api: TestApp, engine: sa.Engine) -> None:
    made = create_webhooks(api, 7)
    for hook in made:
        set_times(engine, hook, dt.datetime(2024, 1, 1))
    for order in ("ASC", "DESC"):
        seen: list[int] = []
        for page in (1, 2, 3, 4):
            url = f"{ROOT}/webhooks?filter[limit]=2&filter[order]={order}&page={page}"
            seen += ids(api.get(url))
        assert seen == (made if order == "ASC" else made[::-1]), order


def test_orderby_id_is_case_insensitive(api: TestApp, engine: sa.Engine) -> None:
    made = create_webhooks(api, 3)
    set_times(engine, made[0], dt.datetime(2030, 1, 1))
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=ID")) == made[::-1]
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=id&filter[order]=ASC")) == made
    assert ids(api.get(f"{ROOT}/webhooks")) == [made[0], made[2], made[1]]


def test_orderby_name_and_modified(api: TestApp, engine: sa.Engine) -> None:
    b = create_webhook(api, "Bravo")
    a = create_webhook(api, "alpha")
    c = create_webhook(api, "Charlie")
    a2 = create_webhook(api, "alpha")
    by_name = api.get(f"{ROOT}/webhooks?filter[orderby]=title&filter[order]=ASC")
    names = [hook["name"] for hook in by_name.json["webhooks"]]
    assert sorted(names, key=str.lower) == ["alpha", "alpha", "Bravo", "Charlie"]
    assert [ids(by_name)[i] for i, n in enumerate(names) if n == "alpha"] == [a, a2]
    by_name_desc = ids(api.get(f"{ROOT}/webhooks?filter[orderby]=name&filter[order]=DESC"))
    assert by_name_desc.index(a2) < by_name_desc.index(a)
    set_times(engine, b, dt.datetime(2024, 1, 1), dt.datetime(2024, 6, 1))
    set_times(engine, a, dt.datetime(2024, 1, 2), dt.datetime(2024, 5, 1))
    set_times(engine, c, dt.datetime(2024, 1, 3), dt.datetime(2024, 7, 1))
    set_times(engine, a2, dt.datetime(2024, 1, 4), dt.datetime(2024, 4, 1))
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=modified&filter[order]=ASC")) == [
        a2,
        a,
        b,
        c,
    ]
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=updated_at")) == [c, b, a, a2]


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("filter[orderby]=rand", "filter[orderby]"),
        ("filter[orderby]=meta_value", "filter[orderby]"),
        ("filter[orderby]=menu_order", "filter[orderby]"),
        ("filter[order]=up", "filter[order]"),
        ("filter[order]=ascending", "filter[order]"),
    ],
)
def test_unknown_order_or_orderby(api: TestApp, query: str, name: str) -> None:
    response = api.get(f"{ROOT}/webhooks?{query}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert name in errors(response)[0]["message"]


def test_unknown_filter_keys_are_ignored(api: TestApp) -> None:
    made = create_webhooks(api, 2)
    response = api.get(f"{ROOT}/webhooks?filter[bogus]=1&filter[post_status]=any&x=y")
    assert ids(response) == made[::-1]


# --- in, not_in, dates, q


def test_filter_in_and_not_in(api: TestApp) -> None:
    made = create_webhooks(api, 5)
    one, two, three, four, five = made
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]={two},{four}")) == [four, two]
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]= {two} , {four} ,")) == [four, two]
    assert ids(api.get(f"{ROOT}/webhooks?filter[not_in]={one},{five}")) == [four, three, two]
    both = api.get(f"{ROOT}/webhooks?filter[in]={one},{two},{three}&filter[not_in]={two}")
    assert ids(both) == [three, one]
    assert paging_headers(both) == {"X-Shop-Total": "2", "X-Shop-TotalPages": "1"}
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]=")) == made[::-1]
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]=999")) == []
    count = api.get(f"{ROOT}/webhooks/count?filter[in]={one},{two}&filter[not_in]={one}")
    assert count.json == {"count": 1}


@pytest.mark.parametrize("key", ["in", "not_in"])
@pytest.mark.parametrize("value", ["1,x", "a", "1%3B2", "-1", "1.5"])
def test_filter_in_with_a_non_id(api: TestApp, key: str, value: str) -> None:
    response = api.get(f"{ROOT}/webhooks?filter[{key}]={value}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert f"filter[{key}]" in errors(response)[0]["message"]


@pytest.fixture
def dated(api: TestApp, engine: sa.Engine) -> list[int]:
    """Four webhooks created on 1, 2, 3 and 4 March 2024 at 10:00 UTC, each updated a day
    after its creation."""
    made = create_webhooks(api, 4)
    for day, hook in enumerate(made, start=1):
        created = dt.datetime(2024, 3, day, 10, 0, 0)
        set_times(engine, hook, created, created + dt.timedelta(days=1))
    return made


def _between(api: TestApp, query: str) -> list[int]:
    return sorted(ids(api.get(f"{ROOT}/webhooks?{query}", status=200)))


def test_created_at_filters_are_inclusive(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00:00Z") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00:01Z") == [three, four]
    assert _between(api, "filter[created_at_max]=2024-03-02T10:00:00Z") == [one, two]
    assert _between(api, "filter[created_at_max]=2024-03-02T09:59:59Z") == [one]
    both = "filter[created_at_min]=2024-03-02T10:00:00Z&filter[created_at_max]=2024-03-03T10:00:00Z"
    assert _between(api, both) == [two, three]
    count = api.get(f"{ROOT}/webhooks/count?{both}")
    assert count.json == {"count": 2}


def test_updated_at_filters(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    assert _between(api, "filter[updated_at_min]=2024-03-04T10:00:00Z") == [three, four]
    assert _between(api, "filter[updated_at_max]=2024-03-03T10:00:00Z") == [one, two]
    query = "filter[updated_at_min]=2024-03-03&filter[updated_at_max]=2024-03-04T10:00:00"
    assert _between(api, query) == [two, three]


def test_date_filters_honour_offsets(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    # 12:00+02:00 is 10:00Z; 05:00-05:00 is 10:00Z
    assert _between(api, "filter[created_at_min]=2024-03-02T12:00:00%2B02:00") == [
        two,
        three,
        four,
    ]
    assert _between(api, "filter[created_at_min]=2024-03-02T12:00:01%2B02:00") == [three, four]
    assert _between(api, "filter[created_at_max]=2024-03-02T05:00:00-05:00") == [one, two]
    assert _between(api, "filter[created_at_max]=2024-03-02T04:59:59-05:00") == [one]
    assert _between(api, "filter[created_at_max]=2024-03-02T15:29:59%2B0530") == [one]
    # an offset whose "+" was not encoded arrives as a space
    assert _between(api, "filter[created_at_min]=2024-03-02T12:00:00+02:00") == [two, three, four]


def test_date_only_means_midnight_utc(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    assert _between(api, "filter[created_at_max]=2024-03-02") == [one]
    assert _between(api, "filter[created_at_min]=2024-03-02") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02 10:00:00.000") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00:00.5Z") == [three, four]


@pytest.mark.parametrize(
    "key", ["created_at_min", "created_at_max", "updated_at_min", "updated_at_max"]
)
@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2024-13-01",
        "2024-02-30",
        "2024-03-01T25:00:00Z",
        "01/03/2024",
        "@1709287200",
        "2024-03-01T10:00:00Zjunk",
        "9999-12-31T23:00:00-05:00",
        "0001-01-01T00:00:00%2B05:00",
    ],
)
def test_unparseable_dates(api: TestApp, key: str, value: str) -> None:
    response = api.get(f"{ROOT}/webhooks?filter[{key}]={value}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert f"filter[{key}]" in errors(response)[0]["message"]
    response = api.get(f"{ROOT}/webhooks/count?filter[{key}]={value}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")


def test_empty_date_filter_is_ignored(api: TestApp) -> None:
    made = create_webhooks(api, 2)
    assert ids(api.get(f"{ROOT}/webhooks?filter[created_at_min]=")) == made[::-1]


def test_filter_q_is_a_case_insensitive_search(api: TestApp) -> None:
    order = create_webhook(api, "Order Sync")
    create_webhook(api, "Stock levels")
    mixed = create_webhook(api, "reorder ALERTS")
    percent = create_webhook(api, "100% done_now")
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=ORDER")) == [mixed, order]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=order%20s")) == [order]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=%25")) == [percent]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=e_n")) == [percent]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=o_s")) == []
    assert api.get(f"{ROOT}/webhooks/count?filter[q]=order").json == {"count": 2}
    assert len(ids(api.get(f"{ROOT}/webhooks?filter[q]="))) == 4


# --- fields


def test_fields_on_a_single_response(api: TestApp) -> None:
    hook = create_webhook(api, "one")
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=id,name", status=200)
    assert response.json == {"webhook": {"id": hook, "name": "one"}}
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=topic,missing,id", status=200)
    assert response.json == {"webhook": {"id": hook, "topic": "order.created"}}
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=", status=200)
    assert set(response.json["webhook"]) > {"id", "name", "topic", "delivery_url"}


def test_fields_on_a_list_response(api: TestApp) -> None:
    first, second = create_webhooks(api, 2)
    response = api.get(f"{ROOT}/webhooks?fields=name,id", status=200)
    assert response.json == {
        "webhooks": [{"id": second, "name": "hook 2"}, {"id": first, "name": "hook 1"}]
    }


def test_fields_dotted_names_a_child_of_an_object(api: TestApp) -> None:
    hook = create_webhook(api, "one")
    # a dotted name on a scalar keeps nothing of it; on a list of strings keeps the list
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=id,name.first,hooks.x", status=200)
    assert response.json == {
        "webhook": {"id": hook, "hooks": ["shop_process_shop_order_meta", "shop_new_order"]}
    }


def test_fields_filter_of_nested_objects() -> None:
    record = {
        "id": 7,
        "status": "processing",
        "billing_address": {"first_name": "Ann", "last_name": "Lee", "city": "Oslo"},
        "line_items": [
            {"id": 1, "product_id": 10, "quantity": 2},
            {"id": 2, "product_id": 11, "quantity": 1},
        ],
        "tags": ["a", "b"],
    }
    wanted = parse_fields("id,billing_address.first_name,billing_address.last_name,line_items.id")
    assert filter_fields(record, wanted) == {
        "id": 7,
        "billing_address": {"first_name": "Ann", "last_name": "Lee"},
        "line_items": [{"id": 1}, {"id": 2}],
    }
    # a parent named whole wins over its dotted children, in either order
    assert (
        filter_fields(record, parse_fields("billing_address.city,billing_address"))[
            "billing_address"
        ]
        == record["billing_address"]
    )
    assert (
        filter_fields(record, parse_fields("billing_address,billing_address.city"))[
            "billing_address"
        ]
        == record["billing_address"]
    )
    # only the first two segments count; children are matched per parent
    assert filter_fields(record, parse_fields("billing_address.city.x,line_items.city")) == {
        "billing_address": {"city": "Oslo"},
        "line_items": [{}, {}],
    }
    assert filter_fields(record, parse_fields("")) == record
    assert filter_fields(record, parse_fields(None)) == record


def test_fields_does_not_shape_writes(api: TestApp) -> None:
    body = {"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/"}}
    created = api.post_json(f"{ROOT}/webhooks?fields=id", body, status=201).json["webhook"]
    assert {"id", "name", "topic", "delivery_url", "status"} <= set(created)
    edited = api.put_json(
        f"{ROOT}/webhooks/{created['id']}?fields=id", {"webhook": {"name": "renamed"}}, status=200
    ).json["webhook"]
    assert edited["name"] == "renamed" and "topic" in edited


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
    made = create_webhooks(api, 3)
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
    hook = create_webhook(api, "one")
    set_times(engine, hook, dt.datetime(2024, 3, 1, 9, 8, 7), dt.datetime(2024, 3, 2, 1, 2, 3))
    record = api.get(f"{ROOT}/webhooks/{hook}").json["webhook"]
    assert record["created_at"] == "2024-03-01T09:08:07Z"
    assert record["updated_at"] == "2024-03-02T01:02:03Z"
    fresh = api.get(f"{ROOT}/webhooks/{create_webhook(api, 'two')}").json["webhook"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", fresh["created_at"])


def test_errors_and_successes_are_json(api: TestApp) -> None:
    for path, status in ((f"{ROOT}/webhooks", 200), (f"{ROOT}/webhooks/0", 404)):
        response = api.get(path, status=status)
        assert response.headers["Content-Type"] == JSON_TYPE


def test_api_root_setting_serves_the_legacy_path(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    api = authorised(build_app(**{"shopsvc.api_root": "/wc-api/v3"}), admin)
    hook = create_webhook_at(api, "/wc-api/v3", "legacy")
    assert api.get("/wc-api/v3/webhooks", status=200).json["webhooks"][0]["id"] == hook
    routes = api.get("/wc-api/v3/", status=200).json["store"]["routes"]
    assert routes["/webhooks"]["meta"] == {"self": f"{BASE}/wc-api/v3/webhooks"}
    assert api.get(f"{ROOT}/webhooks", status=404).json == NO_ROUTE
    response = api.get("/wc-api/v3/webhooks?filter[limit]=1&page=1")
    assert paging_headers(response) == {"X-Shop-Total": "1", "X-Shop-TotalPages": "1"}


def create_webhook_at(api: TestApp, root: str, name: str) -> int:
    body = {
        "webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/", "name": name}
    }
    return api.post_json(f"{root}/webhooks", body, status=201).json["webhook"]["id"]


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
            assert response.headers["X-Request-Id"]
    assert ran == (["rollback"] if rolled_back else ["commit"])
    with engine.connect() as conn:
        stored = conn.execute(sa.select(sa.func.count()).select_from(webhooks)).scalar_one()
    assert stored == (0 if rolled_back else 1)
