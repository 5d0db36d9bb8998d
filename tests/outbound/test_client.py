"""The one outbound HTTP client (``shopsvc.outbound.client``) and the webhook ping built on it.

A local HTTP server on 127.0.0.1 plays the outside world. Where a test needs a *public* first hop,
it changes the address policy (``is_public_address``) or the resolver (``_resolve``) inside
``shopsvc.outbound.client``, so everything works offline.
"""

from __future__ import annotations

import ast
import contextlib
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shopsvc.delivery.ping import ping
from shopsvc.outbound import addresses
from shopsvc.outbound import client as outbound
from shopsvc.outbound.addresses import is_public_address
from shopsvc.outbound.client import OutboundError, send
from tests.helpers.server import LocalServer, QuietHandler

LIMIT = 100


class Server:
    """One path per case; ``hits`` records (method, path, headers, body) of each request and
    ``connections`` counts the connections accepted."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, str, dict[str, str], bytes]] = []
        self.connections = 0
        self.server = LocalServer(self._handler())
        self.port = self.server.port
        self.base = self.server.url

    def paths(self) -> list[str]:
        return [path for _, path, _, _ in self.hits]

    def close(self) -> None:
        self.server.close()

    def _handler(self) -> type[QuietHandler]:
        server = self

        class Handler(QuietHandler):
            def setup(self) -> None:
                server.connections += 1
                super().setup()

            def handle_any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.hits.append((self.command, self.path, dict(self.headers), body))
                redirect = re.fullmatch(r"/redirect/(\d+)", self.path)
                if redirect:
                    remaining = int(redirect.group(1))
                    if remaining == 0:
                        self.reply(200, b"arrived")
                    else:
                        self.reply(302, b"", location=f"/redirect/{remaining - 1}")
                    return
                ROUTES.get(self.path, lambda h: h.reply(404, b"not found"))(self)

            do_GET = do_POST = do_PUT = handle_any

            def reply(
                self,
                status: int,
                body: bytes,
                *,
                location: str | None = None,
                length: bool = True,
            ) -> None:
                self.send_response(status)
                if location is not None:
                    self.send_header("Location", location)
                if length:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        def slow(handler: Handler) -> None:  # no answer within the deadline
            time.sleep(1.0)
            with contextlib.suppress(OSError):  # the client has given up
                handler.reply(200, b"late")

        def drip(handler: Handler) -> None:  # each read is quick, the whole is too slow
            handler.send_response(200)
            handler.end_headers()
            with contextlib.suppress(OSError):
                for _ in range(10):
                    handler.wfile.write(b"x")
                    handler.wfile.flush()
                    time.sleep(0.1)

        ROUTES: dict[str, Callable[[Handler], None]] = {
            "/ok": lambda h: h.reply(200, b"hello"),
            "/echo": lambda h: h.reply(200, h.headers.get("Host", "").encode()),
            "/exact": lambda h: h.reply(200, b"x" * LIMIT),
            "/big": lambda h: h.reply(200, b"x" * (LIMIT + 1)),
            "/big-stream": lambda h: h.reply(200, b"x" * (LIMIT * 10), length=False),
            "/slow": slow,
            "/drip": drip,
            "/to-other-loopback": lambda h: h.reply(
                302, b"", location=f"http://127.0.0.2:{server.port}/ok"
            ),
            "/to-ftp": lambda h: h.reply(301, b"", location="ftp://example.com/x"),
            "/see-other": lambda h: h.reply(303, b"", location="/ok"),
            "/temporary": lambda h: h.reply(307, b"", location="/ok"),
            "/to-localhost": lambda h: h.reply(
                302, b"", location=f"http://localhost:{server.port}/ok"
            ),
        }
        return Handler


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.close()


@pytest.fixture
def hits(server: Server) -> Server:
    server.hits.clear()
    server.connections = 0
    return server


def failure(url: str, **options: Any) -> OutboundError:
    options.setdefault("allow_private", True)
    with pytest.raises(OutboundError) as caught:
        send("GET", url, **options)
    return caught.value


# --- a plain request


def test_get(hits: Server) -> None:
    response = send("GET", f"{hits.base}/ok", allow_private=True)
    assert (response.status, response.body, response.url) == (200, b"hello", f"{hits.base}/ok")
    assert response.headers["content-length"] == "5"
    [(method, path, headers, _)] = hits.hits
    assert (method, path) == ("GET", "/ok")
    assert headers["User-Agent"] == outbound.USER_AGENT


def test_post_body_and_headers(hits: Server) -> None:
    send(
        "POST",
        f"{hits.base}/ok",
        allow_private=True,
        headers={"Content-Type": "text/plain", "User-Agent": "mine"},
        body=b"payload",
    )
    [(method, _, headers, body)] = hits.hits
    assert (method, body) == ("POST", b"payload")
    assert headers["Content-Type"] == "text/plain"
    assert headers["User-Agent"] == "mine"


def test_an_error_status_is_a_response(hits: Server) -> None:
    response = send("GET", f"{hits.base}/missing", allow_private=True)
    assert (response.status, response.body) == (404, b"not found")


def test_connection_refused() -> None:
    error = failure("http://127.0.0.1:9/")  # the discard port: nothing listens there
    assert (error.kind, error.reason) == ("connection", "the connection failed")


@pytest.mark.parametrize("url", ["ftp://example.com/x", "example.com", "http://", ""])
def test_invalid_url(url: str) -> None:
    assert (failure(url).kind, failure(url).reason) == ("invalid_url", "invalid URL")


# --- redirects


@pytest.mark.parametrize("hops", [0, 1, 3])
def test_up_to_three_redirects_are_followed(hits: Server, hops: int) -> None:
    response = send("GET", f"{hits.base}/redirect/{hops}", allow_private=True)
    assert (response.status, response.body) == (200, b"arrived")
    assert response.url == f"{hits.base}/redirect/0"
    assert len(hits.hits) == hops + 1


def test_a_fourth_redirect_is_refused(hits: Server) -> None:
    error = failure(f"{hits.base}/redirect/4")
    assert (error.kind, error.reason) == ("redirects", "more than 3 redirects")
    assert hits.paths() == ["/redirect/4", "/redirect/3", "/redirect/2", "/redirect/1"]


def test_the_redirect_limit_is_per_call(hits: Server) -> None:
    assert failure(f"{hits.base}/redirect/2", max_redirects=1).kind == "redirects"
    assert hits.paths() == ["/redirect/2", "/redirect/1"]


def test_no_redirect_mode_returns_the_3xx(hits: Server) -> None:
    response = send("GET", f"{hits.base}/redirect/2", allow_private=True, max_redirects=0)
    assert response.status == 302
    assert response.headers["Location"] == "/redirect/1"
    assert hits.paths() == ["/redirect/2"]


def test_redirect_to_an_invalid_url(hits: Server) -> None:
    error = failure(f"{hits.base}/to-ftp")
    assert (error.kind, error.reason) == ("invalid_url", "redirected to an invalid URL")


def test_see_other_continues_as_get_and_307_keeps_the_method(hits: Server) -> None:
    send("POST", f"{hits.base}/see-other", allow_private=True, body=b"data")
    send("POST", f"{hits.base}/temporary", allow_private=True, body=b"data")
    assert [(method, path, body) for method, path, _, body in hits.hits] == [
        ("POST", "/see-other", b"data"),
        ("GET", "/ok", b""),
        ("POST", "/temporary", b"data"),
        ("POST", "/ok", b"data"),
    ]


def test_credentials_are_dropped_when_the_origin_changes(hits: Server) -> None:
    send("GET", f"{hits.base}/to-localhost", allow_private=True, headers={"Authorization": "x"})
    first, second = hits.hits
    assert first[2]["Authorization"] == "x"
    assert "Authorization" not in second[2]


# --- private targets


def test_a_private_target_is_refused_without_a_connection(hits: Server) -> None:
    error = failure(f"{hits.base}/ok", allow_private=False)
    assert error.kind == "private_target"
    assert error.reason == (
        "the URL points to a private or reserved network address, which is not allowed"
    )
    assert hits.connections == 0


def test_every_redirect_target_is_checked(hits: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # 127.0.0.1 counts as public here, so the first hop passes; 127.0.0.2 stays private
    monkeypatch.setattr(addresses, "is_public_address", lambda address: address == "127.0.0.1")
    assert send("GET", f"{hits.base}/ok", allow_private=False).status == 200
    hits.hits.clear()
    error = failure(f"{hits.base}/to-other-loopback", allow_private=False)
    assert error.kind == "private_target"
    assert error.reason.startswith("redirected to a private or reserved network address")
    assert hits.paths() == ["/to-other-loopback"]


def test_the_checked_address_is_the_address_connected_to(
    hits: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second DNS answer (rebinding): the name is resolved once and the socket opened to
    the address that was checked, while Host still names the host."""
    resolved: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        resolved.append(host)
        return ["127.0.0.1"]

    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "shop.test":
            raise AssertionError("the host name was resolved a second time")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(addresses, "_resolve", resolve)
    monkeypatch.setattr(addresses, "is_public_address", lambda address: True)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    response = send("GET", f"http://shop.test:{hits.port}/echo", allow_private=False)
    assert response.body == f"shop.test:{hits.port}".encode()
    assert resolved == ["shop.test"]


def test_the_next_checked_address_is_tried_when_one_refuses(
    hits: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nothing listens on 127.0.0.2 (the server binds 127.0.0.1 only): refused, then the next
    monkeypatch.setattr(addresses, "_resolve", lambda host, port: ["127.0.0.2", "127.0.0.1"])
    monkeypatch.setattr(addresses, "is_public_address", lambda address: True)
    response = send("GET", f"http://shop.test:{hits.port}/ok", allow_private=False)
    assert response.body == b"hello"


def test_one_private_address_among_public_ones_is_refused(
    hits: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(addresses, "_resolve", lambda host, port: ["93.184.216.34", "127.0.0.1"])
    assert failure(f"http://shop.test:{hits.port}/ok", allow_private=False).kind == (
        "private_target"
    )
    assert hits.connections == 0


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("93.184.216.34", True),
        ("2606:4700:4700::1111", True),
        ("64:ff9b::808:808", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("192.0.2.1", False),
        ("::1", False),
        ("fc00::1", False),
        ("fe80::1%eth0", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("64:ff9b::a00:1", False),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(address) is public


# --- deadline and size


def test_deadline_against_a_slow_server(hits: Server) -> None:
    started = time.monotonic()
    error = failure(f"{hits.base}/slow", timeout=0.3)
    assert (error.kind, error.reason) == ("timeout", "the request timed out")
    assert time.monotonic() - started < 0.8


def test_deadline_covers_the_body(hits: Server) -> None:
    started = time.monotonic()
    error = failure(f"{hits.base}/drip", timeout=0.3)
    assert (error.kind, error.status) == ("timeout", 200)
    assert time.monotonic() - started < 0.8


@pytest.mark.parametrize("path", ["/big", "/big-stream"])
def test_size_cap(hits: Server, path: str) -> None:
    error = failure(f"{hits.base}{path}", max_bytes=LIMIT)
    assert error.kind == "too_large"
    assert error.reason == f"the response is larger than {LIMIT} bytes"
    assert error.status == 200


def test_exactly_the_cap_is_accepted(hits: Server) -> None:
    response = send("GET", f"{hits.base}/exact", allow_private=True, max_bytes=LIMIT)
    assert len(response.body) == LIMIT


# --- the webhook ping


def test_ping_posts_the_webhook_id_without_following_redirects(hits: Server) -> None:
    assert ping(f"{hits.base}/redirect/1", 7, allow_private=True) == 302
    [(method, path, headers, body)] = hits.hits
    assert (method, path, body) == ("POST", "/redirect/1", b"webhook_id=7")
    assert headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert headers["User-Agent"] == "Shop/0.1.0 Hookshot (shopsvc)"


def test_ping_failures_are_quiet(hits: Server) -> None:
    assert ping(f"{hits.base}/ok", 7, allow_private=False) is None  # skipped
    assert ping("http://127.0.0.1:9/", 7, allow_private=True) is None
    assert ping(f"{hits.base}/slow", 7, allow_private=True, timeout=0.2) is None
    assert hits.connections == 1  # the slow one


# --- layering


def test_outbound_imports_no_pyramid() -> None:
    source = Path(outbound.__file__).read_text() + Path(addresses.__file__).read_text()
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    assert not {name for name in modules if name.split(".")[0] == "pyramid"}
    project = {name for name in modules if name.startswith("shopsvc")}
    assert project == {"shopsvc.domain.urls", "shopsvc.outbound.addresses"}
