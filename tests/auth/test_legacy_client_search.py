"""The real ``woocommerce`` 3.0.0 client searching for a value with a ``/`` in it, with the default
settings: the client signs the ``/`` unescaped where the original's base string has ``%2F``, and
``shopsvc.auth.oauth_allow_raw_slash`` (true by default) accepts that variant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webtest import TestApp

from tests.helpers.api import LEGACY_SETTINGS
from tests.helpers.legacy_client import LegacyClient


# ``legacy_app`` (tests/conftest.py) leaves ``oauth_allow_raw_slash`` at its default.
def test_search_for_a_slash_works_out_of_the_box(legacy_client: LegacyClient) -> None:
    switch = legacy_client.post("products", {"product": {"title": "Cable a/b switch"}})
    assert switch.status_code == 201, switch.text
    other = legacy_client.post("products", {"product": {"title": "Cable ab switch"}})
    assert other.status_code == 201, other.text

    found = legacy_client.get("products", params={"filter[q]": "a/b"})
    assert found.status_code == 200, found.text
    assert [p["id"] for p in found.json()["products"]] == [switch.json()["product"]["id"]]
    # on the wire the "/" is %2F; the client signed it raw (see the strict test below)
    method, url = legacy_client.sent[-1]
    assert method == "GET" and "filter%5Bq%5D=a%2Fb" in url
    assert "oauth_signature=" in url

    counted = legacy_client.get("products/count", params={"filter[q]": "a/b"})
    assert counted.status_code == 200, counted.text
    assert counted.json() == {"count": 1}


def test_a_wrong_secret_is_still_refused(legacy_client: LegacyClient, legacy_app: TestApp) -> None:
    wrong = LegacyClient(legacy_app, legacy_client.api.consumer_key, "cs_" + "0" * 40)
    refused = wrong.get("products", params={"filter[q]": "a/b"})
    assert refused.status_code == 401
    assert refused.json()["errors"][0]["code"] == "shop_api_authentication_error"


def test_strict_setting_refuses_the_clients_variant(
    make_app: Callable[..., TestApp], make_key: Callable[..., Any]
) -> None:
    strict = make_app(**LEGACY_SETTINGS, **{"shopsvc.auth.oauth_allow_raw_slash": "false"})
    try:
        key = make_key("shop_manager", "read_write")
        legacy_client = LegacyClient(strict, key.consumer_key, key.consumer_secret)
        refused = legacy_client.get("products", params={"filter[q]": "a/b"})
        assert refused.status_code == 401
        assert refused.json()["errors"][0]["code"] == "shop_api_authentication_error"
        # a value without "/" is signed the same way by both sides
        assert legacy_client.get("products", params={"filter[q]": "ab"}).status_code == 200
    finally:
        strict.app.registry.engine.dispose()
