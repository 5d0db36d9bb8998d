"""``shopsvc.media_storage = s3`` through HTTP, against the local S3 server (moto): product and
category images stored in the bucket before the transaction (content type, a year's immutable
``Cache-Control``), their URLs below ``media_url`` (fetched from the bucket, never through the
app), the placeholder, and a failed upload (a 400, nothing written)."""

from __future__ import annotations

import logging
import re
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.media.s3 import S3Storage
from shopsvc.sql.tables import media, products, terms
from tests.helpers.api import ROOT, Credentials, authorised, errors
from tests.helpers.products import URL
from tests.helpers.server import PNG
from tests.helpers.sql import count_rows
from tests.media.conftest import Bucket, closed_port_url

CATEGORIES = ROOT + "/products/categories"
IMMUTABLE = "public, max-age=31536000, immutable"
STORED = r"\d{4}/\d{2}/[0-9a-f]{32}\.png"


@pytest.fixture
def shop(s3_app: Callable[..., TestApp], admin: Credentials) -> TestApp:
    return authorised(s3_app(), admin)


def media_rows(engine: sa.Engine) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(media).order_by(media.c.id)).mappings()
        return [dict(row) for row in rows]


def fetch(url: str) -> tuple[bytes, dict[str, str]]:
    """GET ``url`` as a browser would (the object store serves it, not the app); the body and
    the headers (names in lower case)."""
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read(), {name.lower(): value for name, value in answer.headers.items()}


def test_product_images_are_objects_in_the_bucket(
    shop: TestApp, bucket: Bucket, image_host: str, engine: sa.Engine
) -> None:
    response = shop.post_json(
        URL,
        {
            "product": {
                "title": "Pictured",
                "images": [
                    {"src": f"{image_host}/img/front.png", "position": 0},
                    {"src": f"{image_host}/img/back.png", "position": 1, "alt": "Back"},
                ],
            }
        },
        status=201,
    )
    record = response.json["product"]
    rows = media_rows(engine)
    assert sorted(row["file"] for row in rows) == bucket.names()
    assert len(rows) == 2
    front, back = rows
    assert [(image["id"], image["src"], image["position"]) for image in record["images"]] == [
        (front["id"], f"{bucket.public_url}/{front['file']}", 0),
        (back["id"], f"{bucket.public_url}/{back['file']}", 1),
    ]
    assert record["featured_src"] == f"{bucket.public_url}/{front['file']}"
    for row in rows:
        head = bucket.head(row["file"])
        assert (head["ContentType"], head["CacheControl"]) == ("image/png", IMMUTABLE)
        assert head["ContentLength"] == len(PNG)
        assert bucket.body(row["file"]) == PNG
    body, headers = fetch(record["featured_src"])  # the record's URL is the bucket's
    assert body == PNG
    assert (headers["content-type"], headers["cache-control"]) == ("image/png", IMMUTABLE)
    # the app does not serve (nor proxy) the object store's files
    path = record["featured_src"].split("/", 3)[3]
    shop.get(f"/media/{front['file']}", status=404)
    shop.get(f"/{path}", status=404)


def test_uploads_happen_before_the_transaction(
    shop: TestApp,
    bucket: Bucket,
    image_host: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No database connection is checked out while an object is uploaded: no request holds the
    write lock across network I/O."""
    engine = shop.app.registry.engine
    checked_out: list[int] = []
    put = S3Storage.put

    def spying_put(self: S3Storage, *args: Any, **kwargs: Any) -> None:
        checked_out.append(engine.pool.checkedout())
        put(self, *args, **kwargs)

    monkeypatch.setattr(S3Storage, "put", spying_put)
    with caplog.at_level(logging.WARNING, logger="shopsvc"):
        shop.post_json(
            URL + "/bulk",
            {
                "products": [
                    {"title": "One", "images": [{"src": f"{image_host}/img/same.png"}]},
                    {"title": "Two", "images": [{"src": f"{image_host}/img/same.png"}]},
                ]
            },
            status=200,
        )
    assert checked_out == [0, 0]  # one copy per product, both before the transaction
    assert "inside the request's transaction" not in caplog.text
    assert len(bucket.names()) == 2


def test_placeholder_is_uploaded_when_the_app_starts(
    shop: TestApp, bucket: Bucket, engine: sa.Engine
) -> None:
    head = bucket.head("placeholder.png")
    assert (head["ContentType"], head["CacheControl"]) == ("image/png", "public, max-age=86400")
    record = shop.post_json(URL, {"product": {"title": "Bare"}}, status=201).json["product"]
    assert record["featured_src"] == ""
    [image] = record["images"]
    assert (image["id"], image["src"], image["title"]) == (
        0,
        f"{bucket.public_url}/placeholder.png",
        "Placeholder",
    )
    body, headers = fetch(image["src"])
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    assert headers["content-type"] == "image/png"


#: A create whose image cannot be stored: ``(route, envelope, fields for an image URL)``.
LOST_IMAGE: list[tuple[str, str, Callable[[str], dict[str, Any]]]] = [
    (URL, "product", lambda src: {"title": "Lost", "images": [{"src": src}]}),
    (CATEGORIES, "product_category", lambda src: {"name": "Lost", "image": src}),
]


@pytest.mark.parametrize(("route", "envelope", "fields"), LOST_IMAGE, ids=["product", "category"])
def test_a_failed_upload_is_a_clean_400_and_writes_nothing(
    build_app: Callable[..., TestApp],
    bucket: Bucket,
    admin: Credentials,
    image_host: str,
    engine: sa.Engine,
    route: str,
    envelope: str,
    fields: Callable[[str], dict[str, Any]],
) -> None:
    """The object store cannot be reached: 400 ``shop_api_cannot_upload_product_image`` (the
    spec's code for an image that could not be stored, categories included), no product or
    category row, no media row, no object."""
    app = build_app(**bucket.settings(**{"shopsvc.s3.endpoint_url": closed_port_url()}))
    shop = authorised(app, admin)
    src = f"{image_host}/img/lost.png"
    response = shop.post_json(route, {envelope: fields(src)}, status=400)
    assert response.content_type == "application/json"
    assert errors(response) == [
        {
            "code": "shop_api_cannot_upload_product_image",
            "message": f"Error storing image {src}: the media store is unreachable.",
        }
    ]
    assert count_rows(engine, products) == 0
    assert count_rows(engine, terms) == 0
    assert media_rows(engine) == []
    assert bucket.keys() == []  # not even the placeholder: the app never reached the store


def test_a_download_failure_keeps_its_own_code(
    shop: TestApp, bucket: Bucket, image_host: str, engine: sa.Engine
) -> None:
    src = f"{image_host}/fake.png"
    response = shop.post_json(
        CATEGORIES, {"product_category": {"name": "Fake", "image": src}}, status=400
    )
    assert errors(response) == [
        {
            "code": "shop_api_product_category_image_upload_error",
            "message": f"Error getting remote image {src}: "
            "the file is not a JPEG, PNG, GIF or WebP image.",
        }
    ]
    assert media_rows(engine) == []
    assert bucket.names() == []


def test_category_image_is_an_object_in_the_bucket(
    shop: TestApp, bucket: Bucket, image_host: str, engine: sa.Engine
) -> None:
    response = shop.post_json(
        CATEGORIES,
        {"product_category": {"name": "Shoes", "image": f"{image_host}/img/shoes.png"}},
        status=201,
    )
    [row] = media_rows(engine)
    assert bucket.names() == [row["file"]]
    assert re.fullmatch(STORED, row["file"])
    assert response.json["product_category"] == {
        "id": response.json["product_category"]["id"],
        "name": "Shoes",
        "slug": "shoes",
        "parent": 0,
        "description": "",
        "display": "default",
        "image": f"{bucket.public_url}/{row['file']}",
        "count": 0,
    }
    head = bucket.head(row["file"])
    assert (head["ContentType"], head["CacheControl"]) == ("image/png", IMMUTABLE)
    body, headers = fetch(response.json["product_category"]["image"])
    assert (body, headers["content-type"]) == (PNG, "image/png")
    # an edit's new image: a new object beside the first (names never change)
    category_id = response.json["product_category"]["id"]
    edited = shop.put_json(
        f"{CATEGORIES}/{category_id}",
        {"product_category": {"image": f"{image_host}/img/boots.png"}},
        status=200,
    ).json["product_category"]
    first, second = media_rows(engine)
    assert edited["image"] == f"{bucket.public_url}/{second['file']}"
    assert bucket.names() == sorted([first["file"], second["file"]])


def test_a_bulk_tries_an_unreachable_store_once(
    build_app: Callable[..., TestApp],
    bucket: Bucket,
    admin: Credentials,
    image_host: str,
    engine: sa.Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each element that needs the store fails with the 400 of a store failure; the store is
    tried once for the whole request (not once per image); the element without an image is
    created."""
    app = build_app(**bucket.settings(**{"shopsvc.s3.endpoint_url": closed_port_url()}))
    tries: list[str] = []
    put = S3Storage.put

    def counting_put(self: S3Storage, name: str, *args: Any, **kwargs: Any) -> None:
        tries.append(name)
        put(self, name, *args, **kwargs)

    monkeypatch.setattr(S3Storage, "put", counting_put)
    srcs = [f"{image_host}/img/bulk-{n}.png" for n in range(3)]
    elements: list[dict[str, Any]] = [
        {"title": f"Bulk {n}", "images": [{"src": src}]} for n, src in enumerate(srcs)
    ]
    elements.append({"title": "Plain"})
    response = authorised(app, admin).post_json(URL + "/bulk", {"products": elements}, status=200)
    *failed, created = response.json["products"]
    assert failed == [
        {
            "id": 0,
            "sku": "",
            "error": {
                "code": "shop_api_cannot_upload_product_image",
                "message": f"Error storing image {src}: the media store is unreachable.",
            },
        }
        for src in srcs
    ]
    assert created["title"] == "Plain"
    assert len(tries) == 1
    assert count_rows(engine, products) == 1
    assert media_rows(engine) == []
