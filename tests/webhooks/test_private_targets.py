"""Private delivery URLs at create and edit.

By default (decisions.md "Webhook delivery") a private delivery URL is accepted on create and
edit, even with ``shopsvc.outbound.allow_private_targets = false``: nothing is looked up, its
ping is skipped and its deliveries fail. With ``shopsvc.webhooks.refuse_private_delivery_urls =
true`` as well, a delivery URL the private-target policy refuses is refused: 400
``shop_api_invalid_webhook_delivery_url``, nothing written, no ping. Names are resolved by a
fake resolver (``shopsvc.outbound.addresses._resolve``), never by the real DNS."""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.outbound import addresses
from shopsvc.sql.tables import webhooks
from tests.helpers.api import Credentials, authorised, errors
from tests.helpers.deliveries import FAST, Shop, counts
from tests.helpers.receivers import Receiver
from tests.helpers.sql import one_row
from tests.helpers.webhooks import URL

#: Private targets off (production's setting), delivery URLs not checked (the default).
PRIVATE_OFF = {"shopsvc.outbound.allow_private_targets": "false"}
#: Private targets off and the opt-in refusal of delivery URLs they would never reach.
STRICT = {**PRIVATE_OFF, "shopsvc.webhooks.refuse_private_delivery_urls": "true"}
REFUSED = {
    "code": "shop_api_invalid_webhook_delivery_url",
    "message": (
        "Webhook delivery URL points to a private or reserved network address; set"
        " shopsvc.outbound.allow_private_targets = true to allow it, or"
        " shopsvc.webhooks.refuse_private_delivery_urls = false to accept it (its deliveries"
        " fail)."
    ),
}
INVALID = {
    "code": "shop_api_invalid_webhook_delivery_url",
    "message": "Webhook delivery URL must be a valid URL starting with http:// or https://",
}
PUBLIC = "93.184.215.14"
#: What the fake resolver answers, by name; any other name does not resolve.
NAMES = {
    "hooks.internal.test": ["10.1.2.3", "fd00::7"],
    "loopback.test": ["127.0.0.1"],
    "mixed.test": [PUBLIC, "192.168.1.20"],
    "public.test": [PUBLIC, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
}


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fake resolver in place; the names it was asked, in order (a literal address, which
    the sender and the ping also hand to the resolver, resolves to itself and is not listed)."""
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            asked.append(host)
        if host not in NAMES:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return NAMES[host]

    monkeypatch.setattr(addresses, "_resolve", resolve)
    return asked


@pytest.fixture
def pings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs pinged after a create (the ping itself patched out)."""
    pinged: list[str] = []
    monkeypatch.setattr(
        "shopsvc.views.webhooks.ping", lambda url, *args, **kwargs: pinged.append(url)
    )
    return pinged


@pytest.fixture
def strict(build_app: Callable[..., TestApp], admin: Credentials) -> TestApp:
    """An administrator's client of an app that refuses private targets and refuses the
    delivery URLs they would never reach (the opt-in)."""
    return authorised(build_app(**STRICT), admin)


def count(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(webhooks)).scalar_one())


def post(client: TestApp, delivery_url: str, status: int) -> Any:
    body = {"webhook": {"topic": "order.created", "delivery_url": delivery_url}}
    return client.post_json(URL, body, status=status)


# --- the default: decisions.md


def test_by_default_a_private_url_is_accepted_not_pinged_and_its_deliveries_fail(
    build_app: Callable[..., TestApp],
    make_key: Callable[..., Credentials],
    receiver: Receiver,
    lookups: list[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """decisions.md: "A private delivery URL is accepted on create; with private targets off,
    its ping is skipped and its deliveries fail." — on edit too, and nothing is looked up."""
    shop = Shop(build_app(**FAST, **PRIVATE_OFF), make_key())
    assert shop.settings.webhooks_refuse_private_delivery_urls is False
    body = {"webhook": {"topic": "order.created", "delivery_url": receiver.url}}
    with caplog.at_level(logging.INFO, logger="shopsvc.delivery.ping"):
        created = shop.api.post_json(URL, body, status=201).json["webhook"]
    assert (created["delivery_url"], created["status"]) == (receiver.url, "active")
    skipped = f"webhook {created['id']}: ping to {receiver.url} skipped (private target)"
    assert skipped in caplog.messages
    assert (receiver.connections, receiver.requests) == (0, [])
    # its deliveries fail, without a connection
    shop.order()
    assert shop.deliver() == counts(retrying=1)
    [attempt] = shop.attempts()
    assert attempt["error"] == (
        "the URL points to a private or reserved network address, which is not allowed"
    )
    assert (receiver.connections, receiver.requests) == (0, [])
    assert lookups == []
    # edit and create with private addresses and names: accepted, nothing looked up
    for url in ("http://10.0.0.5/hook", "https://loopback.test:8443/hook"):
        edit = {"webhook": {"delivery_url": url}}
        edited = shop.api.put_json(f"{URL}/{created['id']}", edit, status=200)
        assert edited.json["webhook"]["delivery_url"] == url
    body = {"webhook": {"topic": "order.created", "delivery_url": "http://hooks.internal.test/"}}
    with caplog.at_level(logging.INFO, logger="shopsvc.delivery.ping"):
        other = shop.api.post_json(URL, body, status=201).json["webhook"]
    assert (
        f"webhook {other['id']}: ping to http://hooks.internal.test/ skipped (private target)"
        in caplog.messages
    )
    assert lookups == ["hooks.internal.test"]  # the ping's own, which the policy refused


def test_the_opt_in_does_nothing_while_private_targets_are_allowed(
    build_app: Callable[..., TestApp],
    admin: Credentials,
    lookups: list[str],
    pings: list[str],
) -> None:
    client = authorised(
        build_app(**{"shopsvc.webhooks.refuse_private_delivery_urls": "true"}), admin
    )
    for url in ("http://127.0.0.1:9/hook", "http://loopback.test/hook"):
        assert post(client, url, 201).json["webhook"]["delivery_url"] == url
    assert lookups == []
    assert pings == ["http://127.0.0.1:9/hook", "http://loopback.test/hook"]


# --- opt-in: shopsvc.webhooks.refuse_private_delivery_urls = true


@pytest.mark.parametrize(
    "delivery_url",
    [
        "http://127.0.0.1:8099/hook",
        "https://10.20.30.40/hook",
        "http://[::1]:8099/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://192.168.0.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0:9/",
        "HTTP://127.0.0.1/upper-case-scheme",
        " http://127.0.0.1/padded ",
    ],
)
def test_a_private_address_is_refused_at_create(
    strict: TestApp, engine: sa.Engine, lookups: list[str], pings: list[str], delivery_url: str
) -> None:
    before = count(engine)
    response = post(strict, delivery_url, 400)
    expected = INVALID if delivery_url.startswith("HTTP") else REFUSED
    assert response.json == {"errors": [expected]}
    assert lookups == []  # a literal address needs no lookup
    assert count(engine) == before
    assert pings == []


@pytest.mark.parametrize("host", ["hooks.internal.test", "loopback.test", "mixed.test"])
def test_a_name_resolving_to_a_private_address_is_refused(
    strict: TestApp, engine: sa.Engine, lookups: list[str], pings: list[str], host: str
) -> None:
    before = count(engine)
    response = post(strict, f"https://{host}:8443/hook", 400)
    assert response.json == {"errors": [REFUSED]}
    assert lookups == [host]
    assert count(engine) == before
    assert pings == []


@pytest.mark.parametrize("host", ["public.test", "nowhere.test"])
def test_a_public_or_unresolved_name_is_accepted(
    strict: TestApp, lookups: list[str], pings: list[str], host: str
) -> None:
    url = f"http://{host}/hook"
    webhook = post(strict, url, 201).json["webhook"]
    assert webhook["delivery_url"] == url
    assert lookups == [host]
    assert pings == [url]  # the ping (and every delivery) applies the policy again


def test_a_public_address_is_accepted(
    strict: TestApp, lookups: list[str], pings: list[str]
) -> None:
    url = f"http://{PUBLIC}:8080/hook"
    assert post(strict, url, 201).json["webhook"]["delivery_url"] == url
    assert (lookups, pings) == ([], [url])


def test_a_lookup_that_takes_too_long_accepts_the_url(
    strict: TestApp, monkeypatch: pytest.MonkeyPatch, pings: list[str]
) -> None:
    released = threading.Event()

    def hang(host: str, port: int) -> list[str]:
        released.wait(10)  # a resolver that answers late, with a private address
        return ["10.0.0.1"]

    monkeypatch.setattr(addresses, "_resolve", hang)
    monkeypatch.setattr(addresses, "RESOLVE_TIMEOUT", 0.2)
    started = time.monotonic()
    try:
        post(strict, "http://slow.test/hook", 201)
    finally:
        released.set()
    assert 0.2 <= time.monotonic() - started < 2
    assert pings == ["http://slow.test/hook"]


def test_allowed_when_the_setting_is_true(
    api: TestApp, lookups: list[str], receiver: Receiver
) -> None:
    """The tests' default (and development.ini's): private targets allowed, nothing looked up,
    the ping sent."""
    for url in (receiver.url, "http://hooks.internal.test/hook"):
        assert post(api, url, 201).json["webhook"]["delivery_url"] == url
    assert lookups == []
    assert receiver.wait_for(1)
    assert len(receiver.requests) == 1


def test_the_order_of_checks_is_kept(
    strict: TestApp,
    build_app: Callable[..., TestApp],
    make_key: Callable[..., Credentials],
    lookups: list[str],
) -> None:
    # topic before the delivery URL
    body = {"webhook": {"topic": "nope", "delivery_url": "http://127.0.0.1/"}}
    response = strict.post_json(URL, body, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_webhook_topic"
    # the capability before the delivery URL; a caller without it gets nothing looked up
    customer = authorised(strict, make_key("customer", "read_write"))
    body = {"webhook": {"topic": "order.created", "delivery_url": "http://loopback.test/"}}
    response = customer.post_json(URL, body, status=401)
    assert errors(response)[0]["code"] == "shop_api_user_cannot_create_webhooks"
    assert lookups == []
    # the delivery URL before the other fields
    body = {"webhook": {**body["webhook"], "name": ["not", "text"]}}
    assert strict.post_json(URL, body, status=400).json == {"errors": [REFUSED]}


# --- edit


@pytest.mark.parametrize("method", ["put_json", "patch_json", "post_json"])
@pytest.mark.parametrize("delivery_url", ["http://127.0.0.1:8099/hook", "http://loopback.test/"])
def test_edit_to_a_private_target_is_refused_and_nothing_written(
    strict: TestApp,
    engine: sa.Engine,
    lookups: list[str],
    pings: list[str],
    method: str,
    delivery_url: str,
) -> None:
    webhook = post(strict, f"http://{PUBLIC}/hook", 201).json["webhook"]
    before = one_row(engine, webhooks, webhook["id"])
    body = {"webhook": {"delivery_url": delivery_url, "name": "renamed", "status": "paused"}}
    response = getattr(strict, method)(f"{URL}/{webhook['id']}", body, status=400)
    assert response.json == {"errors": [REFUSED]}
    assert one_row(engine, webhooks, webhook["id"]) == before
    assert strict.get(f"{URL}/{webhook['id']}").json == {"webhook": webhook}
    assert len(pings) == 1  # the create's: an edit pings nothing


def test_edit_to_a_public_or_unresolved_name_is_accepted(
    strict: TestApp, lookups: list[str], pings: list[str]
) -> None:
    webhook = post(strict, f"http://{PUBLIC}/hook", 201).json["webhook"]
    for url in ("https://public.test/hook", "https://nowhere.test/hook"):
        body = {"webhook": {"delivery_url": url}}
        edited = strict.put_json(f"{URL}/{webhook['id']}", body, status=200)
        assert edited.json["webhook"]["delivery_url"] == url
    assert lookups == ["public.test", "nowhere.test"]


def test_edit_checks_the_webhook_before_the_delivery_url(
    strict: TestApp, lookups: list[str]
) -> None:
    body = {"webhook": {"delivery_url": "http://127.0.0.1/"}}
    response = strict.put_json(f"{URL}/4242", body, status=404)
    assert errors(response)[0]["code"] == "shop_api_no_webhook_found"
    webhook = post(strict, f"http://{PUBLIC}/hook", 201).json["webhook"]
    body = {"webhook": {"topic": "nope", "delivery_url": "http://127.0.0.1/"}}
    response = strict.put_json(f"{URL}/{webhook['id']}", body, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_webhook_topic"


def test_the_lookup_holds_no_lock(
    strict: TestApp, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch, pings: list[str]
) -> None:
    """The name is resolved before the request's transaction: meanwhile another connection
    writes the very webhook being edited without waiting (on SQLite a write request's
    transaction holds the database's write lock from its first statement)."""
    webhook = post(strict, f"http://{PUBLIC}/hook", 201).json["webhook"]
    written: list[bool] = []

    def resolve(host: str, port: int) -> list[str]:
        with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                conn.execute(sa.text("PRAGMA busy_timeout = 0"))
            else:
                conn.execute(sa.text("SET lock_timeout = '100ms'"))
            conn.execute(
                sa.update(webhooks).where(webhooks.c.id == webhook["id"]).values(name="meanwhile")
            )
            conn.commit()
        written.append(True)
        return ["10.0.0.1"]

    monkeypatch.setattr(addresses, "_resolve", resolve)
    body = {"webhook": {"delivery_url": "http://inside.test/", "name": "renamed"}}
    strict.put_json(f"{URL}/{webhook['id']}", body, status=400)
    assert written == [True]
    assert strict.get(f"{URL}/{webhook['id']}").json["webhook"]["name"] == "meanwhile"
