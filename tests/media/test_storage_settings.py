"""The media storage settings: ``shopsvc.media_storage`` and ``shopsvc.s3.*`` (their defaults,
environment overrides, and a clear ``SettingsError`` naming the key for each bad value), an
absolute ``shopsvc.media_url`` (records' URLs start with it; the local storage serves at its
path), and the backend each setting makes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from webtest import TestApp

from shopsvc import main
from shopsvc.media.backend import make_storage
from shopsvc.media.s3 import S3Storage
from shopsvc.media.storage import LocalStorage
from shopsvc.settings import Settings, SettingsError, load_settings
from tests.helpers.api import Credentials, authorised
from tests.helpers.products import URL
from tests.helpers.server import PNG

S3 = {"shopsvc.media_storage": "s3", "shopsvc.s3.bucket": "shop-media"}


def load(settings: dict[str, str], **environ: str) -> Settings:
    return load_settings({"sqlalchemy.url": "sqlite://", **settings}, environ)


def test_defaults_are_todays_local_storage() -> None:
    shop = load({})
    assert (shop.media_storage, shop.media_url, shop.media_path) == ("local", "/media", "/media")
    assert (shop.s3_bucket, shop.s3_prefix, shop.s3_endpoint_url, shop.s3_region) == ("",) * 4
    assert shop.s3_addressing_style == "auto"
    assert isinstance(make_storage(shop), LocalStorage)


def test_s3_settings_from_the_ini_and_the_environment() -> None:
    shop = load(
        {
            **S3,
            "shopsvc.media_storage": " S3 ",
            "shopsvc.s3.prefix": "/shop/media/",
            "shopsvc.s3.endpoint_url": "http://127.0.0.1:9000/",
            "shopsvc.s3.addressing_style": "Path",
            "shopsvc.media_url": "https://cdn.example.com/media/",
        },
        SHOPSVC_S3_REGION="eu-west-3",
    )
    assert (shop.media_storage, shop.s3_bucket, shop.s3_prefix) == (
        "s3",
        "shop-media",
        "shop/media",
    )
    assert (shop.s3_endpoint_url, shop.s3_region) == ("http://127.0.0.1:9000", "eu-west-3")
    assert (shop.s3_addressing_style, shop.media_url) == ("path", "https://cdn.example.com/media")
    storage = make_storage(shop)
    assert isinstance(storage, S3Storage)
    assert storage.describe() == "s3://shop-media/shop/media"
    assert storage.key("2026/05/a.png") == "shop/media/2026/05/a.png"
    from_env = load({}, SHOPSVC_MEDIA_STORAGE="s3", SHOPSVC_S3_BUCKET="other")
    assert (from_env.media_storage, from_env.s3_bucket) == ("s3", "other")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"shopsvc.media_storage": "ftp"}, "shopsvc.media_storage: 'ftp' is not local or s3"),
        ({"shopsvc.media_storage": ""}, "shopsvc.media_storage: '' is not local or s3"),
        (
            {"shopsvc.media_storage": "s3"},
            "shopsvc.s3.bucket: must be set when shopsvc.media_storage is s3",
        ),
        ({**S3, "shopsvc.s3.bucket": "a/b"}, "shopsvc.s3.bucket: 'a/b' is not a bucket name"),
        ({**S3, "shopsvc.s3.bucket": "a b"}, "shopsvc.s3.bucket: 'a b' is not a bucket name"),
        (
            {**S3, "shopsvc.s3.addressing_style": "dns"},
            "shopsvc.s3.addressing_style: 'dns' is not auto, virtual or path",
        ),
        (
            {**S3, "shopsvc.s3.prefix": "a/../b"},
            "shopsvc.s3.prefix: 'a/../b' is not a key prefix (segments separated by /, none "
            "empty, . or ..)",
        ),
        (
            {**S3, "shopsvc.s3.prefix": "a//b"},
            "shopsvc.s3.prefix: 'a//b' is not a key prefix (segments separated by /, none "
            "empty, . or ..)",
        ),
        (
            {**S3, "shopsvc.s3.endpoint_url": "minio:9000"},
            "shopsvc.s3.endpoint_url: 'minio:9000' is not an http(s) URL",
        ),
        (
            {**S3, "shopsvc.s3.region": "eu west"},
            "shopsvc.s3.region: 'eu west' is not a region name",
        ),
        (
            {**S3, "shopsvc.media_url": "ftp://cdn.example.com/media"},
            "shopsvc.media_url: 'ftp://cdn.example.com/media' is neither a path nor an http(s) URL "
            "without a query",
        ),
        (
            {**S3, "shopsvc.media_url": "https://cdn.example.com/m?x=1"},
            "shopsvc.media_url: 'https://cdn.example.com/m?x=1' is neither a path nor an http(s) "
            "URL without a query",
        ),
        (
            {"shopsvc.media_url": "https://cdn.example.com"},
            "shopsvc.media_url: 'https://cdn.example.com' has no path, where the local media "
            "storage would serve the files (e.g. https://cdn.example.com/media)",
        ),
    ],
)
def test_bad_values_are_settings_errors(settings: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load(settings)
    assert str(caught.value) == message


def test_the_app_refuses_to_start_with_a_bad_setting() -> None:
    with pytest.raises(SettingsError, match=r"^shopsvc.media_storage: 'disk' is not local or s3$"):
        main({}, **{"sqlalchemy.url": "sqlite://", "shopsvc.media_storage": "disk"})


def test_an_absolute_media_url_with_the_local_storage(
    build_app: Callable[..., TestApp], admin: Credentials, image_host: str
) -> None:
    """A CDN in front of the app: records link to the CDN, the app serves the CDN's path."""
    app = build_app(**{"shopsvc.media_url": "https://cdn.example.com/static/"})
    shop = authorised(app, admin)
    body = {"product": {"title": "Lit", "images": [{"src": f"{image_host}/img/lit.png"}]}}
    record = shop.post_json(URL, body, status=201).json["product"]
    src = record["images"][0]["src"]
    assert src.startswith("https://cdn.example.com/static/20")
    assert shop.get(src[len("https://cdn.example.com") :]).body == PNG
    bare = shop.post_json(URL, {"product": {"title": "Bare"}}, status=201).json["product"]
    assert bare["images"][0]["src"] == "https://cdn.example.com/static/placeholder.png"
    assert shop.get("/static/placeholder.png").content_type == "image/png"
