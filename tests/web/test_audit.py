"""Findings of the audit of the shared protocol, webhooks, taxes, settings and the CLI.

Each test pins a place where the service departed from shop-api.md / decisions.md (or failed
with a 500, or refused what the real ``woocommerce`` client sends):

* OAuth signs the *decoded* route path, as the legacy server and the Python client do
  (``/taxes/classes/Zero Rate``), besides the path as sent (RFC 5849 libraries);
* the ``?`` the Python client appends to the last value of an endpoint's query
  (``get("webhooks?status=paused")``) is not part of the value;
* ``filter[limit]=-1`` is read by its leading characters like every query integer;
* a webhook topic longer than its column, or a delivery URL with control characters, is a 400
  (PostgreSQL answered 500);
* ``postgresql://`` database URLs mean psycopg 3, every ``shopsvc.*`` key the app reads can come
  from the environment, and CLI commands on an unmigrated database say so (exit status 2).
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Any

import pytest
from webtest import TestApp

from shopsvc.cli.main import main as cli_main
from shopsvc.settings import load_settings
from tests.helpers.api import HTTPS, LEGACY_ROOT, ROOT, Credentials, authorised, errors
from tests.helpers.legacy_client import LegacyClient
from tests.helpers.oauth import signed
from tests.helpers.webhooks import webhook_ids

pytestmark = pytest.mark.usefixtures("no_ping")


@pytest.fixture
def client(legacy_app: TestApp, admin: Credentials) -> LegacyClient:
    return LegacyClient(legacy_app, admin.consumer_key, admin.consumer_secret)


# --- OAuth signs the decoded route path


def test_woocommerce_client_deletes_a_tax_class_whose_slug_has_a_space(
    client: LegacyClient,
) -> None:
    # The spec's class slug route takes spaces; the client signs "Zero%20Rate" (it quotes the
    # unencoded URL), which is the decoded path encoded once, as the legacy server signs it.
    created = client.post("taxes/classes", {"tax_class": {"name": "Zero Rate"}})
    assert created.status_code == 201
    response = client.delete("taxes/classes/Zero Rate")
    assert response.status_code == 200, response.text
    assert response.json() == {"message": "Deleted tax_class"}
    client.post("taxes/classes", {"tax_class": {"name": "Réduit"}})
    response = client.delete("taxes/classes/Réduit")
    assert response.status_code == 200, response.text


def test_oauth_signed_over_the_path_as_sent_is_accepted_too(
    legacy_app: TestApp, admin: Credentials
) -> None:
    # RFC 5849 libraries (oauthlib) sign the path with its percent-escapes as sent.
    authorised(legacy_app, admin, **HTTPS).post_json(
        f"{LEGACY_ROOT}/taxes/classes", {"tax_class": {"name": "Zero Rate"}}, status=201
    )
    url = signed(admin, "DELETE", f"{LEGACY_ROOT}/taxes/classes/Zero%20Rate")
    response = TestApp(legacy_app.app).delete(url)
    assert response.json == {"message": "Deleted tax_class"}


def test_oauth_signature_over_another_path_still_fails(
    legacy_app: TestApp, admin: Credentials
) -> None:
    url = signed(admin, "DELETE", f"{LEGACY_ROOT}/taxes/classes/Zero%20Rate")
    tampered = url.replace("Zero%20Rate", "Zero%20Rates", 1)
    response = TestApp(legacy_app.app).delete(tampered, status=401)
    assert errors(response)[0]["message"] == (
        "Invalid signature - provided signature does not match."
    )


# --- the woocommerce client's stray "?"


def test_client_question_mark_is_not_part_of_a_string_value(
    client: LegacyClient, legacy_app: TestApp, admin: Credentials
) -> None:
    api = authorised(legacy_app, admin, **HTTPS)
    paused = webhook_ids(api, "paused one", root=LEGACY_ROOT, status="paused")
    active = webhook_ids(api, "active one", "active two", root=LEGACY_ROOT)
    response = client.get("webhooks?status=paused")
    assert "status=paused%3F" in client.sent[-1][1]  # what the client really sends
    assert response.status_code == 200, response.text
    assert [hook["id"] for hook in response.json()["webhooks"]] == paused
    assert client.get("webhooks/count?status=active").json() == {"count": 2}
    response = client.get("webhooks?fields=id,name")
    assert response.json()["webhooks"] == [
        {"id": active[1], "name": "active two"},
        {"id": active[0], "name": "active one"},
        {"id": paused[0], "name": "paused one"},
    ]
    response = client.get("webhooks?filter[orderby]=id&filter[order]=asc")
    assert [hook["id"] for hook in response.json()["webhooks"]] == [*paused, *active]


def test_client_question_mark_leaves_links_clean(client: LegacyClient) -> None:
    https_api = authorised(client.app, _key_of(client), **HTTPS)
    webhook_ids(https_api, "a", "b", "c", root=LEGACY_ROOT)
    response = client.get("webhooks?filter[limit]=2")
    links = client.link_headers(response)
    assert links == [
        '<http://shop.test/wc-api/v3/webhooks?filter%5Blimit%5D=2&page=2>; rel="next"',
        '<http://shop.test/wc-api/v3/webhooks?filter%5Blimit%5D=2&page=2>; rel="last"',
    ]


def test_client_limit_minus_one_returns_everything(client: LegacyClient) -> None:
    api = authorised(client.app, _key_of(client), **HTTPS)
    webhook_ids(api, *[f"h{n}" for n in range(12)], root=LEGACY_ROOT)
    response = client.get("webhooks?filter[limit]=-1")
    assert response.status_code == 200, response.text
    assert len(response.json()["webhooks"]) == 12
    assert response.headers["X-WC-TotalPages"] == "1"


def test_a_question_mark_the_client_did_not_append_is_kept(client: LegacyClient) -> None:
    # With params=..., the client sends each parameter again after its OAuth block: the value
    # is the caller's own, "?" included.
    api = authorised(client.app, _key_of(client), **HTTPS)
    webhook_ids(api, "what?", "what", root=LEGACY_ROOT)
    response = client.get("webhooks", params={"filter[q]": "what?", "fields": "name"})
    assert response.json() == {"webhooks": [{"name": "what?"}]}


def test_question_mark_outside_the_clients_shape_is_kept(api: TestApp) -> None:
    # Basic (or query keys): no OAuth block, so nothing was appended by the client.
    response = api.get(f"{ROOT}/webhooks?status=paused%3F", status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"


def _key_of(client: LegacyClient) -> Credentials:
    return Credentials(0, 0, client.api.consumer_key, client.api.consumer_secret)


# --- filter[limit]=-1 by its leading characters


def test_limit_minus_one_by_its_leading_characters(api: TestApp) -> None:
    webhook_ids(api, *[f"h{n}" for n in range(11)])
    response = api.get(f"{ROOT}/webhooks?filter[limit]=-1x")
    assert len(response.json["webhooks"]) == 11
    assert response.headers["X-Shop-TotalPages"] == "1"
    response = api.get(f"{ROOT}/webhooks?filter[limit]=-12", status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"


# --- input that PostgreSQL refused with a 500


def test_topic_longer_than_a_topic_is_stored_is_invalid(api: TestApp) -> None:
    topic = "action.shop_" + "a" * 300
    body = {"webhook": {"topic": topic, "delivery_url": "http://x.test/"}}
    response = api.post_json(f"{ROOT}/webhooks", body, status=400)
    assert errors(response) == [
        {
            "code": "shop_api_invalid_webhook_topic",
            "message": "Webhook topic is required and must be valid.",
        }
    ]
    (webhook_id,) = webhook_ids(api, "hook")
    response = api.put_json(
        f"{ROOT}/webhooks/{webhook_id}", {"webhook": {"topic": topic}}, status=400
    )
    assert errors(response)[0]["code"] == "shop_api_invalid_webhook_topic"
    longest = "action.shop_" + "a" * (200 - len("action.shop_"))
    body = {"webhook": {"topic": longest, "delivery_url": "http://x.test/"}}
    assert api.post_json(f"{ROOT}/webhooks", body, status=201).json["webhook"]["topic"] == longest


@pytest.mark.parametrize(
    "url", ["http://x.test/a\x00b", "http://x.test/a\x01", "http://x.test/\x7f"]
)
def test_delivery_url_with_control_characters_is_invalid(api: TestApp, url: str) -> None:
    body = json.dumps({"webhook": {"topic": "order.created", "delivery_url": url}})
    response = api.post(
        f"{ROOT}/webhooks", body, headers={"Content-Type": "application/json"}, status=400
    )
    assert errors(response)[0]["code"] == "shop_api_invalid_webhook_delivery_url"
    (webhook_id,) = webhook_ids(api, "hook")
    body = json.dumps({"webhook": {"delivery_url": url}})
    response = api.put(
        f"{ROOT}/webhooks/{webhook_id}",
        body,
        headers={"Content-Type": "application/json"},
        status=400,
    )
    assert errors(response)[0]["code"] == "shop_api_invalid_webhook_delivery_url"


# --- settings


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgresql://shop:pw@db/shop", "postgresql+psycopg://shop:pw@db/shop"),
        ("postgres://shop@db:5433/shop", "postgresql+psycopg://shop@db:5433/shop"),
        ("postgresql+psycopg://db/shop", "postgresql+psycopg://db/shop"),
        ("postgresql+psycopg2://db/shop", "postgresql+psycopg2://db/shop"),
        ("sqlite:///shop.sqlite", "sqlite:///shop.sqlite"),
    ],
)
def test_database_urls_without_a_driver_mean_psycopg(given: str, used: str) -> None:
    assert load_settings({"sqlalchemy.url": given}, {}).database_url == used
    from_env = load_settings({"sqlalchemy.url": "sqlite://"}, {"SHOPSVC_DATABASE_URL": given})
    assert from_env.database_url == used


def test_help_url_from_the_environment_alone(
    build_app: Callable[..., TestApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOPSVC_HELP_URL", "https://docs.example/api")
    app = build_app()
    assert app.get(ROOT).json["store"]["meta"]["links"] == {"help": "https://docs.example/api"}


# --- the command line on a database that is not migrated


def test_commands_on_an_unmigrated_database_ask_for_migrate(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ini = tmp_path / "test.ini"
    ini.write_text(
        "[app:main]\nuse = egg:shopsvc\nsqlalchemy.url = sqlite:///%(here)s/shop.sqlite\n"
    )
    argv = [str(ini), "create-user", "--login", "a", "--email", "a@b.c", "--role", "customer"]
    assert cli_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "migrate" in captured.err
    assert cli_main([str(ini), "migrate"]) == 0
    capsys.readouterr()
    assert cli_main(argv) == 0
    record: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert record["login"] == "a"
