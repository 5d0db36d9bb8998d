"""The files of the documentation page (``{api_root}/docs/…``), through HTTP on both databases:
compressed as the client's ``Accept-Encoding`` asks (brotli, gzip), with ``Vary``, an ``ETag`` per
representation that ``If-None-Match`` answers with 304, and cached for a year when asked for by
the page's versioned link (docs/openapi.md, "The page")."""

from __future__ import annotations

import gzip
import re
from typing import Any

import brotli
from webob import Request, Response
from webtest import TestApp

from shopsvc.openapi.page import swagger_ui_dir
from tests.helpers.api import ROOT

BUNDLE = "swagger-ui-bundle.js"
YEAR = "public, max-age=31536000, immutable"


def raw(app: TestApp, path: str, method: str = "GET", **headers: str) -> Response:
    """The app's response as it leaves (WebTest would decode gzip and refuse brotli)."""
    request = Request.blank(path, method=method)
    request.headers.update({name.replace("_", "-"): value for name, value in headers.items()})
    response: Response = request.get_response(app.app)
    return response


def links(app: TestApp) -> dict[str, str]:
    """The page's links to its files, by file name."""
    page = app.get(f"{ROOT}/docs", status=200).text
    found = re.findall(r'(?:href|src)="([^"]+)"', page)
    return {link.split("?")[0].rsplit("/", 1)[1]: link.replace("&amp;", "&") for link in found}


def vary(response: Any) -> list[str]:
    return [item.strip() for item in response.headers.get("Vary", "").split(",") if item.strip()]


def test_the_page_links_versioned_files(app: TestApp) -> None:
    found = links(app)
    assert set(found) == {
        "swagger-ui.css",
        "index.css",
        "favicon-32x32.png",
        BUNDLE,
        "swagger-ui-standalone-preset.js",
    }
    for name, link in found.items():
        assert re.fullmatch(rf"{ROOT}/docs/{re.escape(name)}\?v=[\w-]{{16}}", link), link


def test_the_bundle_in_each_coding(app: TestApp) -> None:
    plain = (swagger_ui_dir() / BUNDLE).read_bytes()
    link = links(app)[BUNDLE]
    identity = raw(app, link)
    assert identity.status_int == 200
    assert identity.body == plain
    assert "Content-Encoding" not in identity.headers
    assert identity.headers["Content-Type"] == "text/javascript"
    assert vary(identity) == ["Accept-Encoding"]
    assert identity.headers["Cache-Control"] == YEAR
    tag = identity.headers["ETag"]
    assert re.fullmatch(r'"[\w-]{16}"', tag)

    zipped = raw(app, link, Accept_Encoding="gzip")
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.body) == plain
    assert zipped.headers["Content-Length"] == str(len(zipped.body))
    assert len(zipped.body) < len(plain) / 3
    assert zipped.headers["ETag"] == tag[:-1] + '-gzip"'
    assert vary(zipped) == ["Accept-Encoding"]

    for accepted in ("gzip, deflate, br", "br", "*"):
        packed = raw(app, link, Accept_Encoding=accepted)
        assert packed.headers["Content-Encoding"] == "br", accepted
        assert brotli.decompress(packed.body) == plain
        assert len(packed.body) < len(zipped.body)
        assert packed.headers["ETag"] == tag[:-1] + '-br"'
    refused = raw(app, link, Accept_Encoding="br;q=0, gzip;q=0.5")
    assert refused.headers["Content-Encoding"] == "gzip"
    assert "Content-Encoding" not in raw(app, link, Accept_Encoding="identity").headers


def test_if_none_match_is_a_304_for_the_representation_held(app: TestApp) -> None:
    link = links(app)[BUNDLE]
    zipped_tag = raw(app, link, Accept_Encoding="gzip").headers["ETag"]
    again = raw(app, link, Accept_Encoding="gzip", If_None_Match=zipped_tag)
    assert again.status_int == 304
    assert again.body == b""
    assert again.headers["ETag"] == zipped_tag
    assert "Content-Encoding" not in again.headers
    # another representation is sent in full
    other = raw(app, link, If_None_Match=zipped_tag)
    assert other.status_int == 200
    assert "Content-Encoding" not in other.headers


def test_an_unversioned_or_stale_link_is_revalidated(app: TestApp) -> None:
    for query in ("", "?v=old"):
        response = raw(app, f"{ROOT}/docs/{BUNDLE}{query}", Accept_Encoding="gzip")
        assert response.status_int == 200
        assert response.headers["Cache-Control"] == "public, no-cache"
        assert response.headers["Content-Encoding"] == "gzip"


def test_head_has_the_headers_of_get(app: TestApp) -> None:
    link = links(app)[BUNDLE]
    got = raw(app, link, Accept_Encoding="br")
    head = raw(app, link, method="HEAD", Accept_Encoding="br")
    assert head.status_int == 200
    assert head.body == b""
    for name in ("Content-Type", "Content-Encoding", "Content-Length", "ETag", "Cache-Control"):
        assert head.headers[name] == got.headers[name], name


def test_images_are_sent_as_they_are(app: TestApp) -> None:
    link = links(app)["favicon-32x32.png"]
    response = raw(app, link, Accept_Encoding="gzip, br")
    assert response.headers["Content-Type"] == "image/png"
    assert "Content-Encoding" not in response.headers
    assert "Vary" not in response.headers
    assert response.body == (swagger_ui_dir() / "favicon-32x32.png").read_bytes()
    assert response.headers["Cache-Control"] == YEAR


def test_another_name_is_no_route(app: TestApp) -> None:
    response = app.get(f"{ROOT}/docs/swagger-editor.js", status=404)
    assert response.json["errors"][0]["code"] == "shop_api_no_route"
