"""``Idempotency-Key`` and the network I/O of a write (``shopsvc.web.idempotency``), through HTTP
on both databases: the key is claimed by the first statement of the request's transaction, so
the image downloads of a product or category create and the delivery URL's name resolution of a
webhook create run with no write transaction open (no lock held across network I/O); the key is
still stored with the response and a repeat replays it. A repeat that commits while the first
is downloading makes the first answer with the repeat's replay (or the 422), its downloaded
files removed and nothing of it written."""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.outbound import addresses
from shopsvc.sql.tables import idempotency_keys, media, products, terms, webhooks
from tests.helpers.api import ROOT, Credentials, authorised, error
from tests.helpers.sql import count_rows, select_all

PRODUCTS = ROOT + "/products"
CATEGORIES = ROOT + "/products/categories"
WEBHOOKS = ROOT + "/webhooks"
REPLAYED = "Idempotent-Replayed"
IN_TRANSACTION = "images prefetched inside an open transaction"
PUBLIC = "93.184.215.14"


def spy_on(
    monkeypatch: pytest.MonkeyPatch, target: str, during: Callable[[], None] | None = None
) -> list[bool]:
    """Wrap the function ``target`` (a ``module.name`` taking the request first): for each
    call, whether the request's transaction was open then; ``during`` runs once, inside the
    first call, after the wrapped function."""
    module, _, name = target.rpartition(".")
    original = getattr(__import__(module, fromlist=[name]), name)
    opened: list[bool] = []

    def spy(request: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append("shopsvc.connection" in request.environ)
        result = original(request, *args, **kwargs)
        if during is not None and len(opened) == 1:
            during()
        return result

    monkeypatch.setattr(target, spy)
    return opened


def stored_keys(engine: sa.Engine) -> list[tuple[str, int | None]]:
    rows = select_all(engine, idempotency_keys)
    return sorted((row["idempotency_key"], row["status"]) for row in rows)


def files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file()) if directory.exists() else []


def assert_replay(first: Any, repeat: Any) -> None:
    """The repeat answers with the first's status, headers and body bytes, marked replayed."""
    assert repeat.status_int == first.status_int
    assert repeat.body == first.body
    assert repeat.headers[REPLAYED] == "true"
    assert REPLAYED not in first.headers
    assert repeat.headers["Content-Type"] == first.headers["Content-Type"]
    assert repeat.headers.get("Location") == first.headers.get("Location")


@pytest.fixture
def media_dir(tmp_path: Path) -> Path:
    return tmp_path / "media"


@pytest.fixture
def shop(build_app: Callable[..., TestApp], admin: Credentials, media_dir: Path) -> TestApp:
    """An administrator's client of an app with a media directory of this test's own."""
    return authorised(build_app(**{"shopsvc.media_dir": str(media_dir)}), admin)


def test_product_images_download_before_the_key_is_claimed(
    shop: TestApp,
    engine: sa.Engine,
    image_host: str,
    media_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    opened = spy_on(monkeypatch, "shopsvc.views.product_writes.prefetch_images")
    body = {"product": {"title": "Pictured", "images": [{"src": f"{image_host}/img/a.png"}]}}
    headers = {"Idempotency-Key": "product-with-image"}
    caplog.set_level(logging.WARNING, logger="shopsvc.media.images")
    first = shop.post_json(PRODUCTS, body, headers=headers, status=201)
    assert opened == [False]
    assert IN_TRANSACTION not in caplog.text
    assert first.json["product"]["images"][0]["src"].startswith("http://localhost/media/")
    assert stored_keys(engine) == [("product-with-image", 201)]
    repeat = shop.post_json(PRODUCTS, body, headers=headers, status=201)
    assert_replay(first, repeat)
    assert opened == [False]  # the repeat ran no view: nothing downloaded again
    assert count_rows(engine, products) == 1
    assert count_rows(engine, media) == 1 and len(files(media_dir)) == 1


def test_category_image_downloads_before_the_key_is_claimed(
    shop: TestApp,
    engine: sa.Engine,
    image_host: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    opened = spy_on(monkeypatch, "shopsvc.views.terms.prefetch_images")
    body = {"product_category": {"name": "Shoes", "image": f"{image_host}/image.png"}}
    headers = {"Idempotency-Key": "category-with-image"}
    caplog.set_level(logging.WARNING, logger="shopsvc.media.images")
    first = shop.post_json(CATEGORIES, body, headers=headers, status=201)
    assert opened == [False]
    assert IN_TRANSACTION not in caplog.text
    assert first.json["product_category"]["image"].startswith("http://localhost/media/")
    assert stored_keys(engine) == [("category-with-image", 201)]
    repeat = shop.post_json(CATEGORIES, body, headers=headers, status=201)
    assert_replay(first, repeat)
    assert opened == [False]
    assert count_rows(engine, terms) == 1
    assert count_rows(engine, media) == 1


def test_webhook_delivery_url_resolves_before_the_key_is_claimed(
    build_app: Callable[..., TestApp],
    admin: Credentials,
    engine: sa.Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ``shopsvc.webhooks.refuse_private_delivery_urls`` the delivery URL's name is
    resolved (a fake resolver) while no transaction is open; the key is stored and replayed."""
    resolved: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            resolved.append(host)
        if host != "public.test":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [PUBLIC]

    monkeypatch.setattr(addresses, "_resolve", resolve)
    monkeypatch.setattr("shopsvc.views.webhooks.ping", lambda *args, **kwargs: None)
    opened = spy_on(monkeypatch, "shopsvc.views.webhooks._refused")
    client = authorised(
        build_app(
            **{
                "shopsvc.outbound.allow_private_targets": "false",
                "shopsvc.webhooks.refuse_private_delivery_urls": "true",
            }
        ),
        admin,
    )
    body = {"webhook": {"topic": "order.created", "delivery_url": "https://public.test/hook"}}
    headers = {"Idempotency-Key": "webhook-1"}
    first = client.post_json(WEBHOOKS, body, headers=headers, status=201)
    assert resolved == ["public.test"] and opened == [False]
    assert first.json["webhook"]["delivery_url"] == "https://public.test/hook"
    assert stored_keys(engine) == [("webhook-1", 201)]
    repeat = client.post_json(WEBHOOKS, body, headers=headers, status=201)
    assert_replay(first, repeat)
    assert resolved == ["public.test"] and opened == [False]
    assert count_rows(engine, webhooks) == 1


def test_a_repeat_committed_during_the_download_is_replayed_to_the_first(
    shop: TestApp,
    engine: sa.Engine,
    image_host: str,
    media_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The repeat arrives while the first is downloading (it runs inside the first's download,
    which holds no lock) and commits; the first's claim then finds the key committed: the first
    answers with the repeat's replay, its own download removed, nothing of it written."""
    body = {"product": {"title": "Raced", "images": [{"src": f"{image_host}/img/raced.png"}]}}
    headers = {"Idempotency-Key": "raced"}
    repeats: list[Any] = []

    def repeat() -> None:
        repeats.append(shop.post_json(PRODUCTS, body, headers=headers, status=201))
        assert len(files(media_dir)) == 2  # the first's download and the repeat's

    opened = spy_on(monkeypatch, "shopsvc.views.product_writes.prefetch_images", during=repeat)
    first = shop.post_json(PRODUCTS, body, headers=headers, status=201)
    assert opened == [False, False]
    (committed,) = repeats
    assert REPLAYED not in committed.headers
    assert_replay(committed, first)
    assert stored_keys(engine) == [("raced", 201)]
    assert count_rows(engine, products) == 1
    assert count_rows(engine, media) == 1
    (kept,) = files(media_dir)
    assert committed.json["product"]["images"][0]["src"].endswith(kept.name)


def test_another_request_committed_during_the_download_makes_the_first_422(
    shop: TestApp,
    engine: sa.Engine,
    image_host: str,
    media_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    headers = {"Idempotency-Key": "raced-other"}
    other = {"product": {"title": "Other"}}

    def another() -> None:
        shop.post_json(PRODUCTS, other, headers=headers, status=201)

    spy_on(monkeypatch, "shopsvc.views.product_writes.prefetch_images", during=another)
    body = {"product": {"title": "First", "images": [{"src": f"{image_host}/img/first.png"}]}}
    response = shop.post_json(PRODUCTS, body, headers=headers, status=422)
    assert error(response) == (
        422,
        "shop_api_idempotency_key_mismatch",
        "This Idempotency-Key was already used with a different request (method, path, query or "
        "body); send a new key for a new request.",
    )
    assert REPLAYED not in response.headers
    assert [row["title"] for row in select_all(engine, products)] == ["Other"]
    assert count_rows(engine, media) == 0 and files(media_dir) == []
    assert stored_keys(engine) == [("raced-other", 201)]
