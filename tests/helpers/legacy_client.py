"""Run the real PyPI ``woocommerce`` client (3.0.0) against a WebTest app.

The client builds its URLs, signs them (OAuth 1.0a over plain HTTP, HMAC-SHA256 in the query
string) and encodes its JSON bodies exactly as it does against a real shop; only its transport
is replaced: ``woocommerce.api.request`` (``requests.request``) becomes a function that prepares the
same ``requests`` request (so the query string is built by ``requests`` itself, including the
client's habit of sending every parameter twice) and hands it to the WSGI app through WebTest,
then wraps the answer in a ``requests.Response``.

Usage::

    client = LegacyClient(app, key.consumer_key, key.consumer_secret)
    response = client.post("products", {"product": {...}})   # a requests.Response

The app must serve the legacy root: ``make_app(**{"shopsvc.api_root": "/wc-api/v3"})``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import requests
import woocommerce.api
from requests.structures import CaseInsensitiveDict
from webtest import TestApp
from woocommerce import API

DEFAULT_URL = "http://shop.test"


class LegacyClient:
    """A ``woocommerce.API`` (``wp_api=False``, ``version="v3"``) whose requests go to ``app``."""

    def __init__(
        self,
        app: TestApp,
        consumer_key: str,
        consumer_secret: str,
        url: str = DEFAULT_URL,
        **options: Any,
    ) -> None:
        self.app = TestApp(app.app)  # no default authorisation: the client signs its requests
        self.api = API(
            url=url,
            consumer_key=consumer_key,
            consumer_secret=consumer_secret,
            wp_api=False,
            version="v3",
            **options,
        )
        #: Every request sent, as ``(method, full URL)``.
        self.sent: list[tuple[str, str]] = []
        self.header_lines: dict[int, list[tuple[str, str]]] = {}

    # --- the client's own methods, with the transport swapped

    def get(self, endpoint: str, **kwargs: Any) -> requests.Response:
        with self._transport():
            return self.api.get(endpoint, **kwargs)

    def post(self, endpoint: str, data: Any, **kwargs: Any) -> requests.Response:
        with self._transport():
            return self.api.post(endpoint, data, **kwargs)

    def put(self, endpoint: str, data: Any, **kwargs: Any) -> requests.Response:
        with self._transport():
            return self.api.put(endpoint, data, **kwargs)

    def delete(self, endpoint: str, **kwargs: Any) -> requests.Response:
        with self._transport():
            return self.api.delete(endpoint, **kwargs)

    # --- the transport

    @contextmanager
    def _transport(self) -> Iterator[None]:
        with mock.patch.object(woocommerce.api, "request", self._request):
            yield

    def _request(
        self,
        method: str,
        url: str,
        params: Any = None,
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
        auth: Any = None,
        **_: Any,
    ) -> requests.Response:
        """What ``requests.request`` would send, answered by the WSGI app."""
        prepared = requests.Request(
            method=method, url=url, params=params, data=data, headers=headers, auth=auth
        ).prepare()
        assert prepared.url is not None
        self.sent.append((method, prepared.url))
        body = prepared.body or b""
        if isinstance(body, str):
            body = body.encode("utf-8")
        wire_headers = {
            key: value
            for key, value in prepared.headers.items()
            if key.lower() not in ("content-length", "host")
        }
        if "Accept-Encoding" in wire_headers:
            # requests decodes what it accepts, WebTest only gzip and deflate (not brotli)
            wire_headers["Accept-Encoding"] = "gzip, deflate"
        answer = self.app.request(
            prepared.url,
            method=method,
            body=body,
            headers=wire_headers,
            expect_errors=True,
        )
        response = requests.Response()
        response.status_code = answer.status_int
        response.reason = answer.status.partition(" ")[2]
        joined: CaseInsensitiveDict[str] = CaseInsensitiveDict()
        for key, value in answer.headerlist:  # repeated headers joined, as urllib3 does
            joined[key] = f"{joined[key]}, {value}" if key in joined else value
        response.headers = joined
        self.header_lines[id(response)] = list(answer.headerlist)
        response._content = answer.body
        response.encoding = answer.charset or "utf-8"
        response.url = prepared.url
        response.request = prepared
        return response

    def link_headers(self, response: requests.Response) -> list[str]:
        """Every ``Link`` header line of a response (``requests`` folds them into one)."""
        lines = self.header_lines.get(id(response), [])
        return [value for key, value in lines if key.lower() == "link"]
