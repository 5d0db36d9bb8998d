"""What becomes of stored images no record uses, through HTTP and the ``shopsvc`` command, against
the local S3 server (moto) and a local media directory: a product deleted for good takes its
objects with it once the delete has committed; a rolled-back request's copies are removed when it
ends, and those a failed removal left (the store went away, the process died) are removed by
``shopsvc CONFIG media prune``; ``media push`` copies a local ``media_dir`` into the bucket."""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.media.s3 import S3Storage
from shopsvc.media.storage import StorageError
from shopsvc.sql.tables import media, products
from tests.helpers.api import Credentials, authorised, errors
from tests.helpers.cli import lines, run
from tests.helpers.products import URL
from tests.helpers.server import PNG
from tests.helpers.sql import count_rows
from tests.media.conftest import Bucket, closed_port_url

IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture
def shop(s3_app: Callable[..., TestApp], admin: Credentials) -> TestApp:
    return authorised(s3_app(), admin)


def files(engine: sa.Engine) -> list[str]:
    """The files the ``media`` rows name, by id."""
    with engine.connect() as conn:
        return list(conn.execute(sa.select(media.c.file).order_by(media.c.id)).scalars())


def pictured(shop: TestApp, image_host: str, title: str, count: int = 2) -> dict[str, Any]:
    """A new product with ``count`` downloaded images (the first featured)."""
    images = [{"src": f"{image_host}/img/{title}-{n}.png", "position": n} for n in range(count)]
    body = {"product": {"title": title, "images": images}}
    return shop.post_json(URL, body, status=201).json["product"]


def write_ini(path: pathlib.Path, database_url: str, settings: dict[str, str]) -> pathlib.Path:
    lines = [f"{key} = {value}" for key, value in settings.items()]
    path.write_text(
        "\n".join(["[app:main]", "use = egg:shopsvc", f"sqlalchemy.url = {database_url}", *lines])
        + "\n"
    )
    return path


@pytest.fixture
def ini(tmp_path: pathlib.Path, database_url: str, bucket: Bucket) -> pathlib.Path:
    """The ini of a ``shopsvc`` command on the test database, with the media in the bucket."""
    return write_ini(tmp_path / "s3.ini", database_url, bucket.settings())


# --- a permanent delete


def test_a_permanent_delete_removes_the_objects_after_its_commit(
    shop: TestApp,
    bucket: Bucket,
    image_host: str,
    engine: sa.Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doomed = pictured(shop, image_host, "doomed")
    kept = pictured(shop, image_host, "kept", count=1)
    [doomed_front, doomed_back, kept_front] = files(engine)
    # another product shows the doomed product's second image too (an existing image by id)
    shared, kept_id = doomed["images"][1]["id"], kept["images"][0]["id"]
    shop.put_json(
        f"{URL}/{kept['id']}",
        {"product": {"images": [{"id": kept_id, "position": 0}, {"id": shared, "position": 1}]}},
        status=200,
    )
    seen: list[tuple[list[str], int, int]] = []
    delete = S3Storage.delete

    def spying_delete(self: S3Storage, names: Any) -> None:
        # when the objects go: the product is gone for another connection (committed), and the
        # app holds no connection (no transaction open)
        seen.append((sorted(names), count_rows(engine, products), engine_in_use(shop)))
        delete(self, names)

    monkeypatch.setattr(S3Storage, "delete", spying_delete)
    response = shop.delete(f"{URL}/{doomed['id']}?force=true", status=200)
    assert response.json == {"message": "Permanently deleted product"}
    assert seen == [([doomed_front], 1, 0)]
    assert files(engine) == [doomed_back, kept_front]  # the shared row stays
    assert bucket.names() == sorted([doomed_back, kept_front])
    record = shop.get(f"{URL}/{kept['id']}").json["product"]
    assert [(image["src"], image["position"]) for image in record["images"]] == [
        (f"{bucket.public_url}/{kept_front}", 0),
        (f"{bucket.public_url}/{doomed_back}", 1),
    ]


def engine_in_use(app: TestApp) -> int:
    """The connections the app's engine has handed out."""
    pool: Any = app.app.registry.engine.pool
    return int(pool.checkedout())


def test_trash_and_a_failed_delete_keep_the_objects(
    shop: TestApp, bucket: Bucket, image_host: str, engine: sa.Engine
) -> None:
    product = pictured(shop, image_host, "trashed")
    stored = bucket.names()
    response = shop.delete(f"{URL}/{product['id']}", status=202)
    assert response.json == {"message": "Deleted product"}
    assert bucket.names() == stored and len(files(engine)) == 2
    # a delete that rolls back (a later step fails) takes nothing with it
    with pytest.MonkeyPatch.context() as patch:

        def refuse(*args: Any, **kwargs: Any) -> bool:
            return False

        patch.setattr("shopsvc.sql.product_writes.delete_product", refuse)
        response = shop.delete(f"{URL}/{product['id']}?force=true", status=500)
    assert errors(response) == [
        {"code": "shop_api_cannot_delete_product", "message": "This product cannot be deleted."}
    ]
    assert bucket.names() == stored and len(files(engine)) == 2


def test_the_local_storage_keeps_a_deleted_products_files(
    build_app: Callable[..., TestApp],
    admin: Credentials,
    image_host: str,
    engine: sa.Engine,
    tmp_path: pathlib.Path,
) -> None:
    """``local`` behaves as it always has: rows and files stay (``media prune`` leaves them, as
    rows name them)."""
    shop = authorised(build_app(**{"shopsvc.media_dir": str(tmp_path)}), admin)
    product = pictured(shop, image_host, "local")
    shop.delete(f"{URL}/{product['id']}?force=true", status=200)
    assert [(tmp_path / file).read_bytes() for file in files(engine)] == [PNG, PNG]


# --- a rolled-back request, and media prune


def duplicate_sku(shop: TestApp, image_host: str) -> dict[str, Any]:
    """A create that fails after its image was stored (its SKU is taken): the 400's JSON."""
    shop.post_json(URL, {"product": {"title": "First", "sku": "TAKEN"}}, status=201)
    body = {"title": "Second", "sku": "TAKEN", "images": [{"src": f"{image_host}/img/late.png"}]}
    return shop.post_json(URL, {"product": body}, status=400).json


SKU_TAKEN = {
    "errors": [
        {
            "code": "shop_api_product_sku_already_exists",
            "message": "The SKU already exists on another product.",
        }
    ]
}


def test_a_rolled_back_request_leaves_no_object(
    shop: TestApp, bucket: Bucket, image_host: str, engine: sa.Engine
) -> None:
    assert duplicate_sku(shop, image_host) == SKU_TAKEN
    assert files(engine) == []
    assert bucket.names() == []


def test_media_prune_removes_what_a_failed_removal_left(
    shop: TestApp,
    bucket: Bucket,
    image_host: str,
    engine: sa.Engine,
    ini: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = pictured(shop, image_host, "kept", count=1)
    with monkeypatch.context() as patch:  # the store is gone when the request ends

        def unreachable(self: S3Storage, names: Any) -> None:
            raise StorageError("the media store is unreachable", "EndpointConnectionError")

        patch.setattr(S3Storage, "delete", unreachable)
        assert duplicate_sku(shop, image_host) == SKU_TAKEN
    [kept_file] = files(engine)
    [orphan] = [name for name in bucket.names() if name != kept_file]
    size = bucket.head(orphan)["ContentLength"]
    capsys.readouterr()

    # too young: it might belong to a request still under way
    assert run([ini, "media", "prune"]) == 0
    report = {
        "storage": "s3",
        "location": f"s3://{bucket.name}/shop",
        "dry_run": False,
        "checked": 0,
        "removed": [],
        "bytes_removed": 0,
    }
    assert lines(capsys) == ([report], "")
    assert run([ini, "media", "prune", "--older-than", "0", "--dry-run"]) == 0
    dry = {**report, "dry_run": True, "checked": 2, "removed": [orphan], "bytes_removed": size}
    assert lines(capsys) == ([dry], "")
    assert sorted(bucket.names()) == sorted([kept_file, orphan])

    assert run([ini, "media", "prune", "--older-than", "0"]) == 0
    assert lines(capsys) == ([{**dry, "dry_run": False}], "")
    assert bucket.names() == [kept_file]
    assert bucket.keys() == sorted([f"shop/{kept_file}", "shop/placeholder.png"])
    record = shop.get(f"{URL}/{kept['id']}").json["product"]
    assert record["images"][0]["src"] == f"{bucket.public_url}/{kept_file}"


def test_media_prune_on_a_local_directory(
    build_app: Callable[..., TestApp],
    admin: Credentials,
    image_host: str,
    engine: sa.Engine,
    database_url: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    media_dir = tmp_path / "media"
    shop = authorised(build_app(**{"shopsvc.media_dir": str(media_dir)}), admin)
    pictured(shop, image_host, "kept", count=1)
    [kept_file] = files(engine)
    orphan = "2020/01/" + "ab" * 16 + ".png"  # stored by a process that died before its commit
    (media_dir / "2020/01").mkdir(parents=True)
    (media_dir / orphan).write_bytes(PNG)
    (media_dir / "placeholder.png").write_bytes(PNG)  # the operator's: never an orphan
    (media_dir / "seed").mkdir()
    (media_dir / "seed/product-1.png").write_bytes(PNG)  # the demo data's: never an orphan
    ini = write_ini(tmp_path / "local.ini", database_url, {"shopsvc.media_dir": str(media_dir)})
    capsys.readouterr()
    assert run([ini, "media", "prune", "--older-than", "0"]) == 0
    assert lines(capsys) == (
        [
            {
                "storage": "local",
                "location": str(media_dir.resolve()),
                "dry_run": False,
                "checked": 2,
                "removed": [orphan],
                "bytes_removed": len(PNG),
            }
        ],
        "",
    )
    left = sorted(path.relative_to(media_dir).as_posix() for path in media_dir.rglob("*.png"))
    assert left == sorted([kept_file, "placeholder.png", "seed/product-1.png"])


# --- media push


def test_media_push_copies_media_dir_into_the_bucket(
    build_app: Callable[..., TestApp],
    admin: Credentials,
    image_host: str,
    engine: sa.Engine,
    bucket: Bucket,
    database_url: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An installation that moves: its images downloaded to a local directory, then pushed into
    the bucket; the records' URLs then point at the bucket, and the pictures are there."""
    media_dir = tmp_path / "media"
    local = authorised(build_app(**{"shopsvc.media_dir": str(media_dir)}), admin)
    product = pictured(local, image_host, "moving")
    first, second = files(engine)
    (media_dir / "placeholder.png").write_bytes(PNG)  # the operator's own placeholder
    (media_dir / "notes.txt").write_text("not an image")
    ini = write_ini(
        tmp_path / "s3.ini", database_url, bucket.settings(**{"shopsvc.media_dir": str(media_dir)})
    )
    report = {
        "storage": "s3",
        "location": f"s3://{bucket.name}/shop",
        "source": str(media_dir.resolve()),
        "dry_run": True,
        "copied": 2,
        "skipped": 0,
        "bytes_copied": 2 * len(PNG),
        "placeholder": False,
    }
    capsys.readouterr()
    assert run([ini, "media", "push", "--dry-run"]) == 0
    assert lines(capsys) == ([report], "")
    assert bucket.keys() == []
    assert run([ini, "media", "push"]) == 0
    assert lines(capsys) == ([{**report, "dry_run": False, "placeholder": True}], "")
    assert bucket.names() == sorted([first, second])
    for name in (first, second):
        head = bucket.head(name)
        assert (head["ContentType"], head["CacheControl"]) == ("image/png", IMMUTABLE)
        assert bucket.body(name) == PNG
    placeholder = bucket.head("placeholder.png")
    assert (placeholder["CacheControl"], bucket.body("placeholder.png")) == (
        "public, max-age=86400",
        PNG,
    )
    # again: nothing new to copy
    assert run([ini, "media", "push"]) == 0
    again = {**report, "dry_run": False, "copied": 0, "skipped": 2, "bytes_copied": 0}
    assert lines(capsys) == ([{**again, "placeholder": True}], "")
    # the app on the bucket shows the same pictures from there
    moved = authorised(build_app(**bucket.settings()), admin)
    record = moved.get(f"{URL}/{product['id']}").json["product"]
    assert [image["src"] for image in record["images"]] == [
        f"{bucket.public_url}/{first}",
        f"{bucket.public_url}/{second}",
    ]


# --- the commands' refusals


@pytest.mark.parametrize(
    ("argv", "settings", "message"),
    [
        (
            ["media", "push"],
            {},
            "shopsvc media: push copies media_dir into an object store: set "
            "shopsvc.media_storage = s3 and shopsvc.s3.bucket first",
        ),
        (
            ["media", "prune", "--older-than", "-1"],
            {},
            "shopsvc media: --older-than must not be negative",
        ),
        (
            ["media", "prune"],
            {"shopsvc.media_storage": "ftp"},
            "shopsvc: bad setting: shopsvc.media_storage: 'ftp' is not local or s3",
        ),
        (
            ["media", "prune"],
            {"shopsvc.media_storage": "s3"},
            "shopsvc: bad setting: shopsvc.s3.bucket: must be set when shopsvc.media_storage is s3",
        ),
    ],
)
def test_media_commands_refuse_cleanly(
    engine: sa.Engine,
    database_url: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    settings: dict[str, str],
    message: str,
) -> None:
    ini = write_ini(tmp_path / "x.ini", database_url, settings)
    assert run([ini, *argv]) == 2
    assert lines(capsys) == ([], message + "\n")


def test_media_commands_on_an_unreachable_store(
    engine: sa.Engine,
    bucket: Bucket,
    database_url: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    endpoint = closed_port_url()
    (tmp_path / "media").mkdir()
    settings = bucket.settings(
        **{"shopsvc.s3.endpoint_url": endpoint, "shopsvc.media_dir": str(tmp_path / "media")}
    )
    ini = write_ini(tmp_path / "gone.ini", database_url, settings)
    where = f"s3://{bucket.name}/shop"
    for action in ("prune", "push"):
        assert run([ini, "media", action]) == 2
        assert lines(capsys) == (
            [],
            f"shopsvc media: {where}: the media store is unreachable\n",
        )
