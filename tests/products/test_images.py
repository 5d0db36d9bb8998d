"""``images`` (and a variation's ``image``) against the local image server (``image_host``): a
PNG, a file that is not an image and a 404: featured image and gallery, ids of stored images,
alt/title, clearing, and what a failure leaves behind (no product row, no media row, no file)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import media, product_gallery
from tests.helpers.api import Credentials, authorised, error
from tests.helpers.products import URL, create, edit, row, seed_media
from tests.helpers.server import PNG
from tests.helpers.sql import count_rows, select_all


@pytest.fixture(scope="module")
def module_media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("images") / "media"


@pytest.fixture(scope="module")
def shop_app(make_app: Callable[..., TestApp], module_media: Path) -> Iterator[TestApp]:
    """The app with a media directory of its own (one app for the module)."""
    app = make_app(**{"shopsvc.media_dir": str(module_media)})
    yield app
    app.app.registry.engine.dispose()


@pytest.fixture
def media_dir(module_media: Path) -> Path:
    """The app's media directory, empty at the start of each test."""
    shutil.rmtree(module_media, ignore_errors=True)
    return module_media


@pytest.fixture
def shop(shop_app: TestApp, admin: Credentials, media_dir: Path) -> TestApp:
    """The app with its own media directory, called as an administrator."""
    return authorised(shop_app, admin)


def files(media_dir: Path) -> list[Path]:
    return sorted(p for p in media_dir.rglob("*") if p.is_file()) if media_dir.exists() else []


def test_featured_and_gallery_from_src(
    shop: TestApp, image_host: str, media_dir: Path, engine: sa.Engine
) -> None:
    record = create(
        shop,
        title="Pictured",
        images=[
            {"src": f"{image_host}/img/second.png", "position": 2},
            {
                "src": f"{image_host}/img/front.png",
                "position": 0,
                "alt": "Front",
                "title": "Front view",
            },
            {"src": f"{image_host}/img/third%20one.png", "position": 1},
        ],
    )
    images = record["images"]
    assert [i["position"] for i in images] == [0, 1, 2]
    assert [i["title"] for i in images] == ["Front view", "second", "third one"]
    assert images[0]["alt"] == "Front" and images[1]["alt"] == ""
    for image in images:
        assert image["src"].startswith("http://localhost/media/") and image["src"].endswith(".png")
    assert record["featured_src"] == images[0]["src"]
    stored = select_all(engine, media)
    assert len(stored) == 3 and len(files(media_dir)) == 3
    assert {m["source_url"] for m in stored} == {
        f"{image_host}/img/second.png",
        f"{image_host}/img/front.png",
        f"{image_host}/img/third%20one.png",
    }
    for item in stored:
        assert (media_dir / item["file"]).read_bytes() == PNG
    assert row(engine, record["id"])["image_id"] == images[0]["id"]
    gallery = [g["media_id"] for g in select_all(engine, product_gallery)]
    assert gallery == [images[1]["id"], images[2]["id"]]


def test_existing_ids_and_alt_title(shop: TestApp, engine: sa.Engine) -> None:
    first, second = seed_media(engine, "a.png"), seed_media(engine, "b.png")
    record = create(
        shop,
        title="x",
        images=[
            {"id": first, "position": 0, "alt": "New alt"},
            {"id": str(second), "position": "3", "title": "<b>New</b> title"},
        ],
    )
    assert [(i["id"], i["position"]) for i in record["images"]] == [(first, 0), (second, 1)]
    by_id = {m["id"]: m for m in select_all(engine, media)}
    assert by_id[first]["alt"] == "New alt" and by_id[first]["title"] == "x"
    assert by_id[second]["title"] == "New title"


def test_unknown_image_id(shop: TestApp, engine: sa.Engine) -> None:
    response = shop.post_json(
        URL, {"product": {"title": "x", "images": [{"id": 4242, "position": 0}]}}, status=400
    )
    status, code, message = error(response)
    assert (status, code) == (400, "shop_api_invalid_param")
    assert message.startswith("Invalid parameter product.images[0].id")
    assert count_rows(engine) == 0


def test_images_merge_and_clear(shop: TestApp, engine: sa.Engine) -> None:
    a, b, c = (seed_media(engine, f"{n}.png") for n in "abc")
    record = create(shop, title="x", images=[{"id": a, "position": 0}, {"id": b, "position": 1}])
    product_id = record["id"]
    # an empty array changes nothing
    assert [i["id"] for i in edit(shop, product_id, images=[])["images"]] == [a, b]
    # only a featured image: the gallery stays
    assert [
        i["id"] for i in edit(shop, product_id, images=[{"id": c, "position": 0}])["images"]
    ] == [
        c,
        b,
    ]
    # only gallery images: the featured image stays, the gallery is replaced
    record = edit(shop, product_id, images=[{"id": a, "position": 4}, {"id": b, "position": 5}])
    assert [i["id"] for i in record["images"]] == [c, a, b]
    # a position-0 element without id or src removes the featured image
    record = edit(shop, product_id, images=[{"position": 0}])
    assert [i["id"] for i in record["images"]] == [a, b]
    assert record["featured_src"] == ""
    # a non-array value clears both
    for value in ("", False, 0, {"id": a}):
        edit(shop, product_id, images=[{"id": a, "position": 0}, {"id": b, "position": 1}])
        record = edit(shop, product_id, images=value)
        assert [i["id"] for i in record["images"]] == [0], value
        assert record["images"][0]["title"] == "Placeholder"
    # null means absent
    edit(shop, product_id, images=[{"id": a, "position": 0}])
    assert [i["id"] for i in edit(shop, product_id, images=None)["images"]] == [a]


def test_element_without_position_goes_to_the_gallery(shop: TestApp, engine: sa.Engine) -> None:
    a = seed_media(engine, "a.png")
    record = create(shop, title="x", images=[{"id": a}])
    assert row(engine, record["id"])["image_id"] is None
    assert [g["media_id"] for g in select_all(engine, product_gallery)] == [a]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/fake.png", "the file is not a JPEG, PNG, GIF or WebP image"),
        ("/missing.png", "the server answered HTTP 404"),
    ],
)
def test_download_errors(
    shop: TestApp, image_host: str, engine: sa.Engine, media_dir: Path, path: str, reason: str
) -> None:
    url = f"{image_host}{path}"
    response = shop.post_json(
        URL, {"product": {"title": "x", "images": [{"src": url, "position": 0}]}}, status=400
    )
    assert error(response) == (
        400,
        "shop_api_product_image_upload_error",
        f"Error getting remote image {url}: {reason}.",
    )
    assert count_rows(engine) == 0
    assert count_rows(engine, media) == 0
    assert files(media_dir) == []


def test_invalid_url(shop: TestApp, engine: sa.Engine) -> None:
    response = shop.post_json(
        URL, {"product": {"title": "x", "images": [{"src": "ftp://x", "position": 0}]}}, status=400
    )
    assert error(response)[1] == "shop_api_product_image_upload_error"
    assert count_rows(engine) == 0


def test_failing_image_on_create_leaves_no_file(
    shop: TestApp, image_host: str, engine: sa.Engine, media_dir: Path
) -> None:
    body = {
        "title": "x",
        "images": [
            {"src": f"{image_host}/img/good.png", "position": 0},
            {"src": f"{image_host}/missing.png", "position": 1},
        ],
    }
    response = shop.post_json(URL, {"product": body}, status=400)
    assert error(response)[1] == "shop_api_product_image_upload_error"
    assert count_rows(engine) == 0 and count_rows(engine, media) == 0
    assert files(media_dir) == []


def test_failure_after_the_images_leaves_no_file(
    shop: TestApp, image_host: str, engine: sa.Engine, media_dir: Path
) -> None:
    create(shop, title="Taken", sku="TAKEN")
    body = {
        "title": "x",
        "sku": "taken",
        "images": [{"src": f"{image_host}/img/a.png", "position": 0}],
    }
    response = shop.post_json(URL, {"product": body}, status=400)
    assert error(response)[1] == "shop_api_product_sku_already_exists"
    assert count_rows(engine) == 1 and count_rows(engine, media) == 0
    assert files(media_dir) == []


def test_failed_bulk_element_leaves_no_file(
    shop: TestApp, image_host: str, engine: sa.Engine, media_dir: Path
) -> None:
    response = shop.post_json(
        f"{URL}/bulk",
        {
            "products": [
                {"title": "kept", "images": [{"src": f"{image_host}/img/kept.png", "position": 0}]},
                {
                    "title": "failed",
                    "images": [
                        {"src": f"{image_host}/img/lost.png", "position": 0},
                        {"src": f"{image_host}/fake.png", "position": 1},
                    ],
                },
            ]
        },
    )
    kept, failed = response.json["products"]
    assert failed["error"]["code"] == "shop_api_product_image_upload_error"
    [stored] = select_all(engine, media)
    assert kept["images"][0]["id"] == stored["id"]
    assert files(media_dir) == [media_dir / stored["file"]]
    assert count_rows(engine) == 1


def test_variation_image_from_src(shop: TestApp, image_host: str, engine: sa.Engine) -> None:
    record = create(
        shop,
        title="x",
        type="variable",
        images=[{"src": f"{image_host}/img/parent.png", "position": 0}],
        variations=[
            {"regular_price": "1", "image": [{"src": f"{image_host}/img/own.png", "position": 7}]},
            {"regular_price": "2"},
        ],
    )
    own, inherited = record["variations"]
    assert own["image"][0]["title"] == "own" and own["image"][0]["position"] == 0
    assert inherited["image"][0]["id"] == record["images"][0]["id"]
    assert count_rows(engine, media) == 2
