"""``GET /`` on the server's root (issue 26, item 2): where the API root, its documentation and
the health probes are — JSON, or HTML for a browser; no authentication, no store data."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from webtest import TestApp

from tests.helpers.api import Credentials, authorised

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

LINKS = {
    "api_root": "http://localhost/shop-api/v3",
    "documentation": "http://localhost/shop-api/v3/docs",
    "openapi": "http://localhost/shop-api/v3/openapi.json",
    "health": {"live": "http://localhost/healthz", "ready": "http://localhost/readyz"},
}

PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>shopsvc</title></head>
<body>
<h1>shopsvc</h1>
<ul>
<li>API root: <a href="http://localhost/shop-api/v3">http://localhost/shop-api/v3</a></li>
<li>Documentation: <a href="http://localhost/shop-api/v3/docs">http://localhost/shop-api/v3/docs</a>\
 (OpenAPI document: <a href="http://localhost/shop-api/v3/openapi.json">\
http://localhost/shop-api/v3/openapi.json</a>)</li>
<li>Health: <a href="http://localhost/healthz">http://localhost/healthz</a> (live), \
<a href="http://localhost/readyz">http://localhost/readyz</a> (ready)</li>
</ul>
</body>
</html>
"""


def test_the_root_answers_json_without_authentication(app: TestApp) -> None:
    response = app.get("/", status=200)
    assert response.json == LINKS
    assert response.headers["Content-Type"] == "application/json; charset=UTF-8"
    assert response.headers["Vary"] == "Accept"
    assert response.headers["Content-Length"] == str(len(response.body))
    assert "WWW-Authenticate" not in response.headers


@pytest.mark.parametrize(
    "accept",
    ["application/json", "*/*", "application/json, text/html", "text/html;q=0.5, */*", "image/png"],
)
def test_json_unless_html_is_preferred(app: TestApp, accept: str) -> None:
    response = app.get("/", headers={"Accept": accept}, status=200)
    assert response.content_type == "application/json"
    assert response.json == LINKS


@pytest.mark.parametrize("accept", [BROWSER, "text/html", "text/html, application/json;q=0.9"])
def test_a_browser_gets_a_small_page(app: TestApp, accept: str) -> None:
    response = app.get("/", headers={"Accept": accept}, status=200)
    assert response.headers["Content-Type"] == "text/html; charset=UTF-8"
    assert response.headers["Vary"] == "Accept"
    assert response.text == PAGE


def test_head_answers_the_headers_alone(app: TestApp) -> None:
    response = app.head("/", status=200)
    assert response.body == b""
    assert response.headers["Content-Type"] == "application/json; charset=UTF-8"
    html = app.head("/", headers={"Accept": BROWSER}, status=200)
    assert html.headers["Content-Type"] == "text/html; charset=UTF-8"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_other_methods_are_no_route(app: TestApp, method: str) -> None:
    response = app.request("/", method=method, status=404)
    assert response.json == {
        "errors": [
            {
                "code": "shop_api_no_route",
                "message": "No route was found matching the URL and request method",
            }
        ]
    }


@pytest.mark.filterwarnings("ignore:Unknown REQUEST_METHOD")  # WebTest's lint, of BREW
def test_an_unknown_method_is_refused_as_elsewhere(app: TestApp) -> None:
    response = app.request("/", method="BREW", status=400)
    assert response.json["errors"][0]["code"] == "shop_api_unsupported_method"


def test_credentials_change_nothing_and_no_store_data_is_shown(
    app: TestApp, admin: Credentials
) -> None:
    response = authorised(app, admin).get("/", status=200)
    assert response.json == LINKS
    anonymous_index = app.get("/shop-api/v3", status=200).json["store"]
    assert anonymous_index["name"] not in response.text


def test_the_links_follow_public_url(build_app: Callable[..., TestApp]) -> None:
    app = build_app(**{"shopsvc.public_url": "https://shop.example.com/"})
    assert app.get("/", status=200).json == {
        "api_root": "https://shop.example.com/shop-api/v3",
        "documentation": "https://shop.example.com/shop-api/v3/docs",
        "openapi": "https://shop.example.com/shop-api/v3/openapi.json",
        "health": {
            "live": "https://shop.example.com/healthz",
            "ready": "https://shop.example.com/readyz",
        },
    }


def test_the_links_name_the_request_host_and_escape_it_in_html(app: TestApp) -> None:
    response = app.get("/", headers={"Host": "shop.test:8080"}, status=200)
    assert response.json["api_root"] == "http://shop.test:8080/shop-api/v3"
    hostile = app.get("/", headers={"Host": 'x"<b>', "Accept": "text/html"}, status=200)
    assert "<b>" not in hostile.text and "x&quot;&lt;b&gt;" in hostile.text


def test_the_legacy_root_is_followed(legacy_app: TestApp) -> None:
    assert legacy_app.get("/", status=200).json["api_root"] == "http://localhost/wc-api/v3"
