"""Calling the API: the root, credentials, reading errors, creating a record, the API's
timestamps, and the checks every collection route shares."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from webtest import TestApp

ROOT = "/shop-api/v3"
#: Where WebTest's requests go: the host of every absolute URL the app builds.
BASE = "http://localhost"
#: The original's API root, which the real legacy clients build.
LEGACY_ROOT = "/wc-api/v3"
#: The app as the real legacy clients see it: OAuth only over plain HTTP, the original's root
#: and header prefix.
LEGACY_SETTINGS = {
    "shopsvc.auth.allow_basic_over_http": "false",
    "shopsvc.api_root": LEGACY_ROOT,
    "shopsvc.header_prefix": "X-WC",
}
#: A request's environ over HTTPS.
HTTPS = {"wsgi.url_scheme": "https", "HTTP_HOST": "localhost:443"}
#: A timestamp as the API writes it (ISO 8601, UTC, to the second).
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def stamp(moment: dt.datetime) -> str:
    """``moment`` (naive, UTC) as the API writes it."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class Credentials:
    def __init__(self, user_id: int, key_id: int, consumer_key: str, consumer_secret: str) -> None:
        self.user_id = user_id
        self.key_id = key_id
        self.consumer_key = consumer_key
        self.consumer_secret = consumer_secret


def authorised(app: TestApp, credentials: Credentials, **environ: str) -> TestApp:
    """A TestApp sharing ``app``'s application that sends ``credentials`` by HTTP Basic (with
    ``environ`` in every request: ``**HTTPS`` for HTTPS)."""
    client = TestApp(app.app, extra_environ=environ)
    client.authorization = ("Basic", (credentials.consumer_key, credentials.consumer_secret))
    return client


def errors(response: Any) -> list[dict[str, str]]:
    """The ``errors`` list of an error response."""
    return response.json["errors"]


def error(response: Any) -> tuple[int, str, str]:
    """``(status, code, message)`` of a response carrying exactly one error."""
    [item] = errors(response)
    return response.status_int, item["code"], item["message"]


def assert_error(response: Any, status: int, code: str, message: str | None = None) -> None:
    """``response`` is a JSON error of ``status`` carrying exactly one error, of ``code`` (and
    ``message`` when given), with no other key."""
    assert response.status_int == status
    assert response.content_type == "application/json"
    [item] = errors(response)
    assert set(item) == {"code", "message"}
    assert item["code"] == code
    if message is not None:
        assert item["message"] == message


def create(api: TestApp, url: str, envelope: str, /, **fields: Any) -> dict[str, Any]:
    """POST ``{envelope: fields}`` to ``url``, expect 201, return the created record."""
    return api.post_json(url, {envelope: fields}, status=201).json[envelope]


def links(response: Any) -> list[str]:
    """The ``Link`` headers of a list response."""
    return response.headers.getall("Link")


def paging_headers(response: Any) -> dict[str, str]:
    """The ``X-…`` headers of a response but the request id: its paging headers."""
    return {k: v for k, v in response.headerlist if k.startswith("X-") and k != "X-Request-Id"}


def check_unpaginated(response: Any, total: int) -> None:
    """A list that is never paged: every row on one page, no ``Link``."""
    assert response.headers["X-Shop-Total"] == str(total)
    assert response.headers["X-Shop-TotalPages"] == ("1" if total else "0")
    assert "Link" not in response.headers


def check_index(api: TestApp, collection: str, item: str) -> None:
    """The index lists the collection route (GET, POST) and the item route (every method)."""
    routes = api.get(ROOT).json["store"]["routes"]
    expected: dict[str, Any] = {"supports": ["HEAD", "GET", "POST"], "accepts_data": True}
    if "<" not in collection:
        expected["meta"] = {"self": "http://localhost" + ROOT + collection}
    assert routes[collection] == expected
    assert routes[item] == {
        "supports": ["HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"],
        "accepts_data": True,
    }
