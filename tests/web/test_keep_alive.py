"""A 304 keeps the connection open (``shopsvc.web.keep_alive``): the app served by a real waitress
server, requests over one HTTP/1.1 connection (``http.client``), on both databases."""

from __future__ import annotations

import base64
import http.client
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from waitress.channel import HTTPChannel
from waitress.task import WSGITask
from webtest import TestApp
from webtest.http import StopableWSGIServer

from tests.helpers.api import ROOT, Credentials
from tests.helpers.webhooks import create_webhook


@contextmanager
def serving(app: Any) -> Iterator[int]:
    """``app`` served by waitress on 127.0.0.1 (WebTest's stoppable waitress server); its
    port."""
    server = StopableWSGIServer.create(app, host="127.0.0.1", threads=2)
    try:
        assert server.wait()
        yield server.effective_port
    finally:
        server.shutdown()
        server.runner.join(5)


class Client:
    """One HTTP/1.1 connection; :attr:`local_ports` the client-side port of each exchange."""

    def __init__(self, port: int, credentials: Credentials | None = None) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.headers: dict[str, str] = {}
        if credentials is not None:
            token = f"{credentials.consumer_key}:{credentials.consumer_secret}".encode()
            self.headers["Authorization"] = "Basic " + base64.b64encode(token).decode()
        self.local_ports: list[int] = []

    def request(self, method: str, path: str, **headers: str) -> http.client.HTTPResponse:
        self.connection.request(method, path, headers={**self.headers, **headers})
        self.local_ports.append(self.connection.sock.getsockname()[1])
        response = self.connection.getresponse()
        response.read()
        return response

    @property
    def open(self) -> bool:
        """Whether the connection is still open after the last response (``http.client`` closes
        it when the server said it would)."""
        return self.connection.sock is not None

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def shop(build_app: Callable[..., TestApp], admin: Credentials, api: TestApp) -> Iterator[Client]:
    """The app served by waitress, and a client of it as an administrator (a webhook exists)."""
    create_webhook(api, name="one")
    with serving(build_app().app) as port:
        client = Client(port, admin)
        yield client
        client.close()


@pytest.mark.parametrize("path", ["/webhooks", "/webhooks/1", "/webhooks/count"])
def test_a_304_keeps_the_connection_open(shop: Client, path: str) -> None:
    first = shop.request("GET", ROOT + path)
    assert first.status == 200
    assert first.getheader("Connection") is None
    etag = first.getheader("ETag")
    assert etag

    again = shop.request("GET", ROOT + path, **{"If-None-Match": etag})
    assert again.status == 304
    assert again.getheader("ETag") == etag
    assert again.getheader("Connection") is None
    assert again.getheader("Content-Length") is None
    assert shop.open

    third = shop.request("GET", ROOT + path, **{"If-None-Match": etag})
    assert third.status == 304
    assert shop.open
    # one connection for the three exchanges
    assert len(set(shop.local_ports)) == 1


def test_a_client_asking_to_close_is_closed(shop: Client) -> None:
    etag = shop.request("GET", ROOT + "/webhooks").getheader("ETag")
    response = shop.request(
        "GET", ROOT + "/webhooks", **{"If-None-Match": etag, "Connection": "close"}
    )
    assert response.status == 304
    assert response.getheader("Connection") == "close"
    assert not shop.open


def test_a_cors_preflight_keeps_the_connection_open(
    build_app: Callable[..., TestApp],
) -> None:
    app = build_app(**{"shopsvc.cors_origins": "https://admin.example.com"}).app
    with serving(app) as port:
        client = Client(port)
        headers = {
            "Origin": "https://admin.example.com",
            "Access-Control-Request-Method": "POST",
        }
        for _ in range(2):
            response = client.request("OPTIONS", ROOT + "/webhooks", **headers)
            assert response.status == 204
            assert response.getheader("Connection") is None
            assert client.open
        assert len(set(client.local_ports)) == 1
        client.close()


def test_waitress_alone_closes_after_a_304(shop: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``shopsvc.web.keep_alive`` changes (this test fails once waitress stops closing,
    and the module can go)."""
    monkeypatch.setattr(HTTPChannel, "task_class", WSGITask)
    etag = shop.request("GET", ROOT + "/webhooks").getheader("ETag")
    response = shop.request("GET", ROOT + "/webhooks", **{"If-None-Match": etag})
    assert response.status == 304
    assert response.getheader("Connection") == "close"
    assert not shop.open
