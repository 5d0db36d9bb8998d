"""Image downloads, their storage and clean-up, ``media`` rows, and serving ``media_url``.

A local HTTP server plays the remote image hosts; ``download_image`` runs on a Pyramid request of
the real app (``pyramid.scripting.prepare``), inside the request's own transaction.
"""

from __future__ import annotations

import re
import struct
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa
from pyramid.response import Response
from pyramid.scripting import prepare
from webtest import TestApp

from shopsvc.errors import ApiError
from shopsvc.media import images as media
from shopsvc.media import storage
from shopsvc.media.images import download_image, media_url, placeholder_url, sniff, title_from_url
from shopsvc.outbound import addresses
from shopsvc.sql import media as media_sql
from shopsvc.sql import media_writes as media_writes_sql
from shopsvc.sql.tables import media as media_table
from shopsvc.web.request import ShopRequest as Request
from shopsvc.web.transaction import transaction_tween_factory
from tests.helpers.api import errors
from tests.helpers.server import LocalServer, QuietHandler

PRODUCT_CODE = "shop_api_product_image_upload_error"
CATEGORY_CODE = "shop_api_product_category_image_upload_error"
STORE_CODE = "shop_api_cannot_upload_product_image"
STORED_FILE = re.compile(r"\d{4}/\d{2}/[0-9a-f]{32}\.(png|jpg|gif|webp)")
SMALL_LIMIT = 1024


# --- image bytes


def make_png(width: int = 2, height: int = 2, grey: int = 0x80) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    rows = b"".join(b"\x00" + bytes([grey]) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def make_jpeg() -> bytes:
    """A valid 8×8 grey baseline JPEG: one block whose DC difference is 0, then end-of-block."""

    def segment(marker: int, payload: bytes) -> bytes:
        return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload

    one_code = b"\x01" + b"\x00" * 15 + b"\x00"  # one code of length 1, for symbol 0
    return (
        b"\xff\xd8"
        + segment(0xDB, b"\x00" + b"\x01" * 64)  # quantisation table 0
        + segment(0xC0, struct.pack(">BHHB", 8, 8, 8, 1) + b"\x01\x11\x00")  # 8×8, 1 component
        + segment(0xC4, b"\x00" + one_code)  # DC table 0
        + segment(0xC4, b"\x10" + one_code)  # AC table 0
        + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")  # start of scan
        + b"\x3f"  # DC "0" + EOB "0", padded with ones
        + b"\xff\xd9"
    )


PNG = make_png()
JPEG = make_jpeg()
BIG_PNG = PNG + b"\x00" * (SMALL_LIMIT * 4)
EXACT_PNG = PNG + b"\x00" * (SMALL_LIMIT - len(PNG))


# --- the remote image host


class ImageHost:
    """A local HTTP server with one path per case; ``hits`` records the paths requested."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        self.server = LocalServer(self._handler())
        self.port = self.server.port
        self.base = self.server.url

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    def close(self) -> None:
        self.server.close()

    def _handler(self) -> type[QuietHandler]:
        host = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                host.hits.append(self.path)
                path = urlsplit(self.path).path
                redirect = re.fullmatch(r"/redirect/(\d+)", path)
                if redirect:
                    self._redirect(int(redirect.group(1)))
                elif path in SPECIAL:
                    SPECIAL[path](self)
                elif path in FILES:
                    status, content_type, body = FILES[path]
                    self.send(status, body, content_type)
                else:
                    self.send(404, b"Not Found", "text/plain")

            def _redirect(self, remaining: int) -> None:
                if remaining == 0:
                    self.send(200, PNG, "image/png")
                    return
                self.send_response(302)
                self.send_header("Location", f"/redirect/{remaining - 1}")
                self.send_header("Content-Length", "0")
                self.end_headers()

        def to_other_loopback(handler: Handler) -> None:
            handler.send_response(302)
            handler.send_header("Location", f"http://127.0.0.2:{host.port}/image.png")
            handler.end_headers()

        def to_ftp(handler: Handler) -> None:
            handler.send_response(301)
            handler.send_header("Location", "ftp://example.com/image.png")
            handler.end_headers()

        def no_location(handler: Handler) -> None:
            handler.send(302, b"", "text/plain")

        def streamed_big(handler: Handler) -> None:  # no Content-Length: read until close
            handler.send(200, BIG_PNG, "image/png", length=False)

        def slow(handler: Handler) -> None:
            time.sleep(2)
            handler.send(200, PNG, "image/png")

        def drip(handler: Handler) -> None:  # each read is quick, the whole is too slow
            handler.send_response(200)
            handler.send_header("Content-Type", "image/png")
            handler.end_headers()
            handler.wfile.write(PNG)
            for _ in range(10):
                handler.wfile.flush()
                time.sleep(0.2)
                handler.wfile.write(b"\x00" * 16)

        SPECIAL: dict[str, Callable[[Handler], None]] = {
            "/to-other-loopback": to_other_loopback,
            "/to-ftp": to_ftp,
            "/no-location": no_location,
            "/big-stream.png": streamed_big,
            "/slow.png": slow,
            "/drip.png": drip,
        }
        return Handler


FILES: dict[str, tuple[int, str, bytes]] = {
    "/image.png": (200, "image/png", PNG),
    "/images/red%20shoe.png": (200, "image/png", PNG),
    "/photo.jpg": (200, "application/octet-stream", JPEG),
    "/fake.png": (200, "image/png", b"this is text, not an image\n"),
    "/empty.png": (200, "image/png", b""),
    "/big.png": (200, "image/png", BIG_PNG),
    "/exact.png": (200, "image/png", EXACT_PNG),
    "/error.png": (500, "image/png", PNG),
    "/big-error.png": (500, "text/html", b"x" * (SMALL_LIMIT * 4)),
}


@pytest.fixture(scope="module")
def host() -> Iterator[ImageHost]:
    server = ImageHost()
    yield server
    server.close()


# --- apps and requests


@pytest.fixture
def media_dir(tmp_path: Path) -> Path:
    return tmp_path / "media"


@pytest.fixture
def build(make_app: Callable[..., TestApp], media_dir: Path) -> Iterator[Callable[..., TestApp]]:
    """An app whose media_dir is this test's own (plus any other settings)."""
    built: list[TestApp] = []

    def make(**settings: str) -> TestApp:
        app = make_app(**{"shopsvc.media_dir": str(media_dir), **settings})
        built.append(app)
        return app

    yield make
    for app in built:
        app.app.registry.engine.dispose()


@pytest.fixture
def shop(build: Callable[..., TestApp]) -> TestApp:
    return build()


@contextmanager
def api_request(app: TestApp) -> Iterator[Request]:
    """A POST request of the app with its extensions (``db``, ``shop``, ``on_rollback``, …)."""
    request = Request.blank("/shop-api/v3/products", method="POST")
    with prepare(request=request, registry=app.app.registry):
        try:
            yield request
        finally:
            connection = request.environ.pop("shopsvc.connection", None)
            if connection is not None:
                connection.rollback()
                connection.close()


def finish(request: Request, success: bool) -> None:
    """End the request's transaction as the transaction tween does, then (on rollback) run the
    on-rollback callbacks."""
    connection = request.environ.pop("shopsvc.connection")
    if success:
        connection.commit()
    else:
        connection.rollback()
    connection.close()
    callbacks = request.environ.pop("shopsvc.on_rollback", [])
    if not success:
        for callback in callbacks:
            callback()


def download(app: TestApp, url: str, code: str = PRODUCT_CODE) -> int:
    """Download in a request that commits; the new media id."""
    with api_request(app) as request:
        media_id = download_image(request, url, code)
        finish(request, True)
    return media_id


def failure(app: TestApp, url: str, code: str = PRODUCT_CODE) -> ApiError:
    with api_request(app) as request, pytest.raises(ApiError) as caught:
        download_image(request, url, code)
    return caught.value


def media_rows(engine: sa.Engine) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(media_table).order_by(media_table.c.id)).mappings()
        return [dict(row) for row in rows]


def stored_files(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if path.is_file())


def assert_refused(error: ApiError, url: str, reason: str, code: str = PRODUCT_CODE) -> None:
    assert error.code == code
    assert error.status == 400
    assert error.message == f"Error getting remote image {url}: {reason}."


# --- sniffing and titles


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (JPEG, ("image/jpeg", "jpg")),
        (PNG, ("image/png", "png")),
        (b"GIF87a\x01\x00\x01\x00", ("image/gif", "gif")),
        (b"GIF89a\x01\x00\x01\x00", ("image/gif", "gif")),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", ("image/webp", "webp")),
        (b"RIFF\x24\x00\x00\x00WAVEfmt ", None),
        (b"RIFF\x00\x00\x00\x00WEB", None),
        (b"\xff\xd8", None),
        (b"\x89PNG\r\n", None),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", None),
        (b"", None),
    ],
)
def test_sniff_reads_the_bytes(data: bytes, expected: tuple[str, str] | None) -> None:
    kind = sniff(data)
    assert ((kind.mime_type, kind.extension) if kind else None) == expected


@pytest.mark.parametrize(
    ("url", "title"),
    [
        ("http://example.com/images/red%20shoe.jpg?size=large#top", "red shoe"),
        ("http://example.com/a/photo.tar.png", "photo.tar"),
        ("http://example.com/noext", "noext"),
        ("http://example.com/", ""),
        ("http://example.com", ""),
    ],
)
def test_title_is_the_file_name_without_extension(url: str, title: str) -> None:
    assert title_from_url(url) == title


# --- downloading


def test_png_is_stored_with_a_media_row(
    shop: TestApp, host: ImageHost, engine: sa.Engine, media_dir: Path
) -> None:
    url = host.url("/images/red%20shoe.png")
    media_id = download(shop, url)
    [row] = media_rows(engine)
    assert row["id"] == media_id
    assert STORED_FILE.fullmatch(row["file"]) and row["file"].endswith(".png")
    assert row["file"].startswith(time.strftime("%Y/%m/", time.gmtime()))
    assert row["mime_type"] == "image/png"
    assert row["source_url"] == url
    assert row["title"] == "red shoe"
    assert row["alt"] == ""
    assert row["created_at"] == row["updated_at"]
    assert (media_dir / row["file"]).read_bytes() == PNG
    assert stored_files(media_dir) == [media_dir / row["file"]]


def test_jpeg_is_recognised_by_its_bytes_not_its_content_type(
    shop: TestApp, host: ImageHost, engine: sa.Engine, media_dir: Path
) -> None:
    download(shop, host.url("/photo.jpg"))
    [row] = media_rows(engine)
    assert row["mime_type"] == "image/jpeg"
    assert row["file"].endswith(".jpg")
    assert row["title"] == "photo"
    assert (media_dir / row["file"]).read_bytes() == JPEG


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_up_to_three_redirects_are_followed(
    shop: TestApp, host: ImageHost, engine: sa.Engine, hops: int
) -> None:
    download(shop, host.url(f"/redirect/{hops}"))
    [row] = media_rows(engine)
    assert row["source_url"] == host.url(f"/redirect/{hops}")
    assert row["mime_type"] == "image/png"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/fake.png", "the file is not a JPEG, PNG, GIF or WebP image"),
        ("/missing.png", "the server answered HTTP 404"),
        ("/error.png", "the server answered HTTP 500"),
        ("/empty.png", "the file is empty"),
        ("/redirect/4", "more than 3 redirects"),
        ("/no-location", "the server answered HTTP 302"),
        ("/to-ftp", "redirected to an invalid URL"),
    ],
)
@pytest.mark.parametrize("code", [PRODUCT_CODE, CATEGORY_CODE])
def test_fetch_and_content_failures(
    shop: TestApp,
    host: ImageHost,
    engine: sa.Engine,
    media_dir: Path,
    path: str,
    reason: str,
    code: str,
) -> None:
    url = host.url(path)
    assert_refused(failure(shop, url, code), url, reason, code)
    assert media_rows(engine) == []
    assert stored_files(media_dir) == []


def test_four_redirects_stop_at_the_fourth(shop: TestApp, host: ImageHost) -> None:
    host.hits.clear()
    failure(shop, host.url("/redirect/4"))
    assert host.hits == ["/redirect/4", "/redirect/3", "/redirect/2", "/redirect/1"]


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/a.png", "example.com/a.png", "http://", "http://exa mple.com/a.png", ""],
)
def test_invalid_urls(shop: TestApp, url: str) -> None:
    assert_refused(failure(shop, url), url, "invalid URL")


@pytest.mark.parametrize("path", ["/big.png", "/big-stream.png"])
def test_too_large(
    build: Callable[..., TestApp],
    host: ImageHost,
    engine: sa.Engine,
    media_dir: Path,
    path: str,
) -> None:
    app = build(**{"shopsvc.max_image_bytes": str(SMALL_LIMIT)})
    url = host.url(path)
    reason = f"the image is larger than {SMALL_LIMIT} bytes"
    assert_refused(failure(app, url), url, reason)
    assert media_rows(engine) == []
    assert stored_files(media_dir) == []


def test_an_error_status_wins_over_a_large_body(
    build: Callable[..., TestApp], host: ImageHost
) -> None:
    app = build(**{"shopsvc.max_image_bytes": str(SMALL_LIMIT)})
    url = host.url("/big-error.png")
    assert_refused(failure(app, url), url, "the server answered HTTP 500")


def test_exactly_the_limit_is_accepted(
    build: Callable[..., TestApp], host: ImageHost, engine: sa.Engine, media_dir: Path
) -> None:
    app = build(**{"shopsvc.max_image_bytes": str(SMALL_LIMIT)})
    download(app, host.url("/exact.png"))
    [row] = media_rows(engine)
    assert (media_dir / row["file"]).stat().st_size == SMALL_LIMIT


@pytest.mark.parametrize("path", ["/slow.png", "/drip.png"])
def test_timeout_covers_the_whole_download(
    shop: TestApp, host: ImageHost, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    monkeypatch.setattr(media, "TIMEOUT", 0.5)
    url = host.url(path)
    started = time.monotonic()
    assert_refused(failure(shop, url), url, "the download timed out")
    assert time.monotonic() - started < 1.5


def test_connection_refused(shop: TestApp) -> None:
    url = "http://127.0.0.1:9/image.png"  # the discard port: nothing listens there
    assert_refused(failure(shop, url), url, "the connection failed")


# --- private targets


def test_private_targets_refused_when_not_allowed(
    build: Callable[..., TestApp], host: ImageHost, engine: sa.Engine
) -> None:
    app = build(**{"shopsvc.outbound.allow_private_targets": "false"})
    url = host.url("/image.png")
    host.hits.clear()
    reason = "the URL points to a private or reserved network address, which is not allowed"
    assert_refused(failure(app, url), url, reason)
    assert host.hits == []
    assert media_rows(engine) == []


def test_every_redirect_target_is_checked(
    build: Callable[..., TestApp], host: ImageHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Treat 127.0.0.1 as public: the first hop passes, the redirect to 127.0.0.2 (private) must
    # be refused before it is requested.
    monkeypatch.setattr(addresses, "is_public_address", lambda address: address == "127.0.0.1")
    app = build(**{"shopsvc.outbound.allow_private_targets": "false"})
    url = host.url("/to-other-loopback")
    host.hits.clear()
    reason = "redirected to a private or reserved network address, which is not allowed"
    assert_refused(failure(app, url), url, reason)
    assert host.hits == ["/to-other-loopback"]


# --- storing and clean-up


def test_failure_to_store(
    build: Callable[..., TestApp], host: ImageHost, engine: sa.Engine, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where media_dir should be")
    app = build(**{"shopsvc.media_dir": str(blocker)})
    url = host.url("/image.png")
    error = failure(app, url)
    assert error.code == STORE_CODE
    assert error.status == 400
    assert error.message.startswith(f"Error storing image {url}: ")
    assert media_rows(engine) == []


def test_rollback_deletes_the_stored_files(
    shop: TestApp, host: ImageHost, engine: sa.Engine, media_dir: Path
) -> None:
    with api_request(shop) as request:
        download_image(request, host.url("/image.png"), PRODUCT_CODE)
        download_image(request, host.url("/photo.jpg"), PRODUCT_CODE)
        assert len(stored_files(media_dir)) == 2
        finish(request, False)
    assert stored_files(media_dir) == []
    assert media_rows(engine) == []


def test_commit_keeps_the_stored_file(
    shop: TestApp, host: ImageHost, engine: sa.Engine, media_dir: Path
) -> None:
    with api_request(shop) as request:
        download_image(request, host.url("/image.png"), PRODUCT_CODE)
        finish(request, True)
    [row] = media_rows(engine)
    assert stored_files(media_dir) == [media_dir / row["file"]]


def test_cleanup_tolerates_a_file_already_gone(tmp_path: Path) -> None:
    storage.delete_file(tmp_path / "gone.png")  # no error


@pytest.mark.parametrize("outcome", ["error response", "exception"])
def test_transaction_tween_deletes_files_of_a_failed_request(
    shop: TestApp, host: ImageHost, engine: sa.Engine, media_dir: Path, outcome: str
) -> None:
    def handler(request: Request) -> Response:
        download_image(request, host.url("/image.png"), PRODUCT_CODE)
        assert len(stored_files(media_dir)) == 1
        if outcome == "exception":
            raise ApiError("shop_api_invalid_param", "a later check failed", 400)
        return Response(status=400)

    tween = transaction_tween_factory(handler, shop.app.registry)
    with api_request(shop) as request:
        if outcome == "exception":
            with pytest.raises(ApiError):
                tween(request)
        else:
            assert tween(request).status_code == 400
    assert media_rows(engine) == []
    assert stored_files(media_dir) == []


# --- media rows


def test_sql_media_rows(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        first = media_writes_sql.insert(conn, {"file": "2024/01/a.png", "mime_type": "image/png"})
        second = media_writes_sql.insert(
            conn, {"file": "2024/01/b.jpg", "mime_type": "image/jpeg", "title": "B", "alt": "b"}
        )
        statements: list[str] = []
        sa.event.listen(conn, "before_cursor_execute", lambda *args: statements.append(args[2]))
        found = media_sql.get_many(conn, [second, first, 999_999, first])
        assert len(statements) == 1
        assert set(found) == {first, second}
        assert found[second]["title"] == "B" and found[second]["alt"] == "b"
        assert found[first]["title"] == "" and found[first]["source_url"] == ""
        assert media_sql.get_many(conn, []) == {}
        assert media_sql.exists(conn, first) and not media_sql.exists(conn, 999_999)
        assert media_writes_sql.update_text(conn, first, title="New")
        assert media_writes_sql.update_text(conn, first, alt="Alt text")
        assert media_writes_sql.update_text(conn, first)
        assert not media_writes_sql.update_text(conn, 999_999, title="x")
        assert not media_sql.exists(conn, 2**40)
        row = media_sql.get(conn, first)
        assert row is not None and (row["title"], row["alt"]) == ("New", "Alt text")


# --- URLs


def test_urls(shop: TestApp, build: Callable[..., TestApp]) -> None:
    with api_request(shop) as request:
        assert media_url(request, "2024/05/abc.png") == "http://localhost/media/2024/05/abc.png"
        assert placeholder_url(request) == "http://localhost/media/placeholder.png"
    other = build(
        **{"shopsvc.public_url": "https://shop.example.com/", "shopsvc.media_url": "files/"}
    )
    with api_request(other) as request:
        assert placeholder_url(request) == "https://shop.example.com/files/placeholder.png"


# --- serving


def test_serves_a_downloaded_image(shop: TestApp, host: ImageHost, engine: sa.Engine) -> None:
    download(shop, host.url("/photo.jpg"))
    [row] = media_rows(engine)
    with api_request(shop) as request:
        path = urlsplit(media_url(request, row["file"])).path
    response = shop.get(path)
    assert response.body == JPEG
    assert response.content_type == "image/jpeg"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    head = shop.head(path)
    assert head.body == b""
    assert head.content_length == len(JPEG)
    assert head.content_type == "image/jpeg"


def test_serves_the_packaged_placeholder(shop: TestApp) -> None:
    packaged = (Path(media.__file__).parent / "static" / "placeholder.png").read_bytes()
    assert sniff(packaged) == media.PNG
    width, height = struct.unpack(">II", packaged[16:24])
    assert (width, height) == (64, 64)
    response = shop.get("/media/placeholder.png")
    assert response.body == packaged
    assert response.content_type == "image/png"


def test_a_placeholder_in_media_dir_wins(shop: TestApp, media_dir: Path) -> None:
    media_dir.mkdir(parents=True)
    own = make_png(3, 3, 0x10)
    (media_dir / "placeholder.png").write_bytes(own)
    assert shop.get("/media/placeholder.png").body == own


def test_serves_at_the_configured_media_url(build: Callable[..., TestApp]) -> None:
    app = build(**{"shopsvc.media_url": "/static/files"})
    assert app.get("/static/files/placeholder.png").content_type == "image/png"
    assert errors(app.get("/media/placeholder.png", status=404))[0]["code"] == "shop_api_no_route"


@pytest.mark.parametrize(
    "path",
    [
        "/media/nope.png",
        "/media/../outside.png",
        "/media/%2e%2e/outside.png",
        "/media/2024/../../outside.png",
        "/media/link.png",
        "/media/.hidden.png",
        "/media/notes.txt",
        "/media/2024",
        "/media/2024/",
        "/media/",
        "/media",
        "/media/2024%5c..%5c..%5coutside.png",
    ],
)
def test_serving_refuses_unknown_and_outside_files(
    shop: TestApp, media_dir: Path, tmp_path: Path, path: str
) -> None:
    (media_dir / "2024").mkdir(parents=True)
    (tmp_path / "outside.png").write_bytes(PNG)
    (media_dir / "link.png").symlink_to(tmp_path / "outside.png")
    (media_dir / ".hidden.png").write_bytes(PNG)
    (media_dir / "notes.txt").write_text("notes")
    response = shop.get(path, status=404)
    assert errors(response) == [
        {
            "code": "shop_api_no_route",
            "message": "No route was found matching the URL and request method",
        }
    ]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_serving_is_read_only(shop: TestApp, method: str) -> None:
    response = shop.request("/media/placeholder.png", method=method, status=404)
    assert errors(response)[0]["code"] == "shop_api_no_route"
