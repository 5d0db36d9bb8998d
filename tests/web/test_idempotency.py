"""``Idempotency-Key`` (issue 24, item 1; ``shopsvc.web.idempotency``), through HTTP on both
databases: a repeat replays the stored response and writes nothing, a different request with the
same key is 422, a malformed key 400, a failure stores nothing, keys are scoped to the consumer
key and expire, two identical requests at once make one order, bulk routes and DELETE replay
too, the worker and ``prune-idempotency`` prune; random header values never give a 5xx."""

from __future__ import annotations

import datetime as dt
import pathlib
import threading
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from webtest import TestApp

from shopsvc.delivery.worker import Deliverer
from shopsvc.sql import idempotency_writes as idempotency_writes_sql
from shopsvc.sql.tables import idempotency_keys, orders, webhook_deliveries
from tests.helpers.api import Credentials, authorised, error
from tests.helpers.cli import lines, run
from tests.helpers.order_writes import BULK, URL, product
from tests.helpers.sql import count_rows
from tests.helpers.threads import JOIN, together
from tests.helpers.webhooks import create_webhook
from tests.hostile.harness import hostile_settings

KEY = "order-2026-11-28-0001"
REPLAYED = "Idempotent-Replayed"
INVALID = (
    400,
    "shop_api_invalid_idempotency_key",
    "Invalid Idempotency-Key header: it must be 1 to 255 visible ASCII characters "
    "(no spaces, control or non-ASCII characters).",
)
MISMATCH = (
    422,
    "shop_api_idempotency_key_mismatch",
    "This Idempotency-Key was already used with a different request (method, path, query or "
    "body); send a new key for a new request.",
)


def order_body(product_id: int, quantity: int = 1) -> dict[str, Any]:
    return {"order": {"line_items": [{"product_id": product_id, "quantity": quantity}]}}


def post(api: TestApp, body: Any, key: str | None = KEY, status: int = 201, url: str = URL) -> Any:
    headers = {} if key is None else {"Idempotency-Key": key}
    return api.post_json(url, body, headers=headers, status=status)


def with_key(api: TestApp, key: str, method: str, url: str, **kwargs: Any) -> Any:
    """A request whose ``Idempotency-Key`` goes straight into the WSGI environ (any string)."""
    return getattr(api, method)(url, extra_environ={"HTTP_IDEMPOTENCY_KEY": key}, **kwargs)


def stored_keys(engine: sa.Engine) -> int:
    return count_rows(engine, idempotency_keys)


def order_count(engine: sa.Engine) -> int:
    return count_rows(engine, orders)


def delivery_count(engine: sa.Engine) -> int:
    return count_rows(engine, webhook_deliveries)


def expire_all(engine: sa.Engine) -> None:
    past = dt.datetime(2000, 1, 1)
    with engine.begin() as conn:
        conn.execute(sa.update(idempotency_keys).values(expires_at=past))


def client_headers(response: Any) -> dict[str, str]:
    """The headers a client reads (not the per-response request id)."""
    return {name: value for name, value in response.headers.items() if name != "X-Request-Id"}


# --- replay, mismatch


@pytest.mark.usefixtures("no_ping")
def test_a_repeat_replays_the_stored_response_and_writes_nothing(
    api: TestApp, engine: sa.Engine
) -> None:
    create_webhook(api)
    body = order_body(product(engine))
    first = post(api, body)
    assert REPLAYED not in first.headers
    assert (order_count(engine), delivery_count(engine), stored_keys(engine)) == (1, 1, 1)

    again = post(api, body)
    assert again.status_int == 201
    assert again.json == first.json
    assert again.body == first.body
    assert again.headers[REPLAYED] == "true"
    assert client_headers(again) == {**client_headers(first), REPLAYED: "true"}
    assert again.headers["Content-Type"] == "application/json; charset=UTF-8"
    # one order, no second webhook delivery queued, one key
    assert (order_count(engine), delivery_count(engine), stored_keys(engine)) == (1, 1, 1)

    # without the key the same body makes a second order
    post(api, body, key=None)
    assert order_count(engine) == 2


def test_the_quoted_form_names_the_same_key(api: TestApp, engine: sa.Engine) -> None:
    body = order_body(product(engine))
    first = post(api, body, key='"abc-1"')
    again = post(api, body, key="abc-1")
    assert again.headers[REPLAYED] == "true"
    assert again.json == first.json
    assert order_count(engine) == 1


def test_the_same_key_with_another_request_is_422(api: TestApp, engine: sa.Engine) -> None:
    product_id = product(engine)
    first = post(api, order_body(product_id))
    # another body, another query, another method on the same path: each a mismatch
    assert error(post(api, order_body(product_id, 2), status=422)) == MISMATCH
    response = post(api, order_body(product_id), status=422, url=URL + "?context=edit")
    assert error(response) == MISMATCH
    put = api.put_json(
        f"{URL}/{first.json['order']['id']}",
        {"order": {"status": "completed"}},
        headers={"Idempotency-Key": KEY},
        status=422,
    )
    assert error(put) == MISMATCH
    assert REPLAYED not in put.headers
    assert order_count(engine) == 1
    assert post(api, order_body(product_id)).headers[REPLAYED] == "true"


# --- malformed keys


@pytest.mark.parametrize(
    "key",
    ["", "x" * 256, "a\x01b", "tab\there", "caf\xe9", "two words", "a\x7fb"],
    ids=["empty", "256", "control", "tab", "non-ascii", "space", "del"],
)
def test_a_malformed_key_is_400(api: TestApp, engine: sa.Engine, key: str) -> None:
    body = order_body(product(engine))
    response = with_key(api, key, "post_json", URL, params=body, status=400)
    assert error(response) == INVALID
    assert (order_count(engine), stored_keys(engine)) == (0, 0)


def test_keys_of_1_and_255_characters_are_valid(api: TestApp, engine: sa.Engine) -> None:
    body = order_body(product(engine))
    post(api, body, key="!")
    post(api, body, key="~" * 255)
    post(api, body, key='"a\\"b"')  # not an sf-string without escapes: the key as it is
    assert (order_count(engine), stored_keys(engine)) == (3, 3)


def test_a_safe_method_ignores_the_header(api: TestApp) -> None:
    response = with_key(api, "", "get", URL, status=200)
    assert REPLAYED not in response.headers


# --- failures, scope, expiry


def test_a_failure_stores_nothing_and_the_fixed_request_runs(
    api: TestApp, engine: sa.Engine
) -> None:
    product_id = product(engine)
    bad = {"order": {"line_items": [{"product_id": product_id, "quantity": 1}], "status": "x"}}
    failed = post(api, bad, status=400)
    assert REPLAYED not in failed.headers
    assert stored_keys(engine) == 0
    first = post(api, order_body(product_id))
    assert REPLAYED not in first.headers
    assert (order_count(engine), stored_keys(engine)) == (1, 1)


def test_keys_are_scoped_to_the_consumer_key(
    app: TestApp, api: TestApp, engine: sa.Engine, make_key: Callable[..., Credentials]
) -> None:
    body = order_body(product(engine))
    first = post(api, body)
    other = post(authorised(app, make_key("shop_manager", "read_write")), body)
    assert REPLAYED not in other.headers
    assert other.json["order"]["id"] != first.json["order"]["id"]
    assert (order_count(engine), stored_keys(engine)) == (2, 2)


def test_an_expired_key_is_new(api: TestApp, engine: sa.Engine) -> None:
    product_id = product(engine)
    first = post(api, order_body(product_id))
    expire_all(engine)
    again = post(api, order_body(product_id))
    assert REPLAYED not in again.headers
    assert again.json["order"]["id"] == first.json["order"]["id"] + 1
    # and a new request may take an expired key too
    expire_all(engine)
    post(api, order_body(product_id, 3))
    assert (order_count(engine), stored_keys(engine)) == (3, 1)
    assert post(api, order_body(product_id, 3)).headers[REPLAYED] == "true"


def test_the_expiry_follows_the_setting(
    build_app: Callable[..., TestApp], admin: Credentials, engine: sa.Engine
) -> None:
    api = authorised(build_app(**{"shopsvc.idempotency_hours": "2"}), admin)
    before = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
    post(api, order_body(product(engine)))
    with engine.connect() as conn:
        row = conn.execute(sa.select(idempotency_keys)).mappings().one()
    assert before <= row["created_at"] <= before + dt.timedelta(seconds=5)
    assert row["expires_at"] - row["created_at"] == dt.timedelta(hours=2)


# --- bulk, DELETE


def test_a_bulk_request_replays(api: TestApp, engine: sa.Engine) -> None:
    product_id = product(engine)
    body = {"orders": [order_body(product_id)["order"], order_body(product_id, 2)["order"]]}
    first = post(api, body, status=200, url=BULK)
    again = post(api, body, status=200, url=BULK)
    assert again.headers[REPLAYED] == "true"
    assert again.json == first.json
    assert order_count(engine) == 2


def test_a_delete_replays(api: TestApp, engine: sa.Engine) -> None:
    order_id = post(api, order_body(product(engine)), key=None).json["order"]["id"]
    url = f"{URL}/{order_id}?force=true"
    first = api.delete(url, headers={"Idempotency-Key": KEY}, status=200)
    assert order_count(engine) == 0
    again = api.delete(url, headers={"Idempotency-Key": KEY}, status=200)
    assert again.headers[REPLAYED] == "true"
    assert again.json == first.json
    # without the key the order is gone
    assert api.delete(url, status=404).json["errors"][0]["code"] != ""


# --- two at once


@pytest.mark.usefixtures("no_ping")
def test_two_identical_requests_at_once_make_one_order(
    app: TestApp,
    api: TestApp,
    admin: Credentials,
    engine: sa.Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both requests claim the key at the same moment (a rendezvous in front of the claim), and
    the one that wins holds its transaction open a while after the claim: the other waits for it
    (PostgreSQL: on the claimed row; SQLite: for the write lock) and replays its response."""
    create_webhook(api)
    body = order_body(product(engine))
    claim = idempotency_writes_sql.claim
    meet = threading.Barrier(2, timeout=2.0)
    met: list[bool] = []

    def slow_claim(*args: Any, **kwargs: Any) -> Any:
        try:
            meet.wait()
            met.append(True)
        except threading.BrokenBarrierError:  # SQLite: the other is waiting for the lock
            pass
        row_id = claim(*args, **kwargs)
        if row_id is not None:
            threading.Event().wait(0.3)  # the winner is still running when the other claims
        return row_id

    monkeypatch.setattr(idempotency_writes_sql, "claim", slow_claim)
    clients = [authorised(TestApp(app.app), admin) for _ in range(2)]
    responses = together(*(lambda client=client: post(client, body) for client in clients))
    assert [r.status_int for r in responses] == [201, 201]
    assert sorted(r.headers.get(REPLAYED, "") for r in responses) == ["", "true"]
    assert responses[0].json == responses[1].json
    assert (order_count(engine), delivery_count(engine), stored_keys(engine)) == (1, 1, 1)
    if engine.dialect.name == "postgresql":
        assert met == [True, True]  # both were at the claim together


def test_a_key_held_past_the_lock_timeout_is_409(
    build_app: Callable[..., TestApp],
    admin: Credentials,
    engine: sa.Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL: a repeat that waits on the first request's claim longer than
    ``shopsvc.db_lock_timeout`` is 409 ``shop_api_idempotency_key_in_use`` with Retry-After.
    (SQLite: the repeat waits for the write lock and gets 503 ``shop_api_busy``, like any
    writer.)"""
    app = build_app(**{"shopsvc.db_lock_timeout": "0.3", "shopsvc.auth.cache_keys": "false"})
    body = order_body(product(engine))
    claim = idempotency_writes_sql.claim
    claimed = threading.Event()
    release = threading.Event()

    def holding_claim(*args: Any, **kwargs: Any) -> Any:
        row_id = claim(*args, **kwargs)
        if row_id is not None:
            claimed.set()
            release.wait(JOIN)
        return row_id

    monkeypatch.setattr(idempotency_writes_sql, "claim", holding_claim)
    first_client, second_client = (authorised(TestApp(app.app), admin) for _ in range(2))
    results: list[Any] = []
    first = threading.Thread(target=lambda: results.append(post(first_client, body)))
    first.start()
    try:
        assert claimed.wait(JOIN)
        second = second_client.post_json(URL, body, headers={"Idempotency-Key": KEY}, status="*")
    finally:
        release.set()
        first.join(JOIN)
    assert results[0].status_int == 201
    if engine.dialect.name == "postgresql":
        assert error(second) == (
            409,
            "shop_api_idempotency_key_in_use",
            "A request with this Idempotency-Key is still running; try again in a moment.",
        )
    else:
        assert error(second)[:2] == (503, "shop_api_busy")
    assert second.headers["Retry-After"] == "1"
    # once the first has finished, the repeat replays
    assert post(second_client, body).headers[REPLAYED] == "true"
    assert order_count(engine) == 1


# --- pruning


def test_the_worker_prunes_expired_keys(
    api: TestApp, engine: sa.Engine, make_app: Callable[..., TestApp]
) -> None:
    product_id = product(engine)
    post(api, order_body(product_id), key="old")
    post(api, order_body(product_id), key="new")
    with engine.begin() as conn:
        conn.execute(
            sa.update(idempotency_keys)
            .where(idempotency_keys.c.idempotency_key == "old")
            .values(expires_at=dt.datetime(2000, 1, 1))
        )
    Deliverer(engine, api.app.registry.shop).prune()
    with engine.connect() as conn:
        left = conn.execute(sa.select(idempotency_keys.c.idempotency_key)).scalars().all()
    assert left == ["new"]


def test_the_cli_prunes_expired_keys(
    api: TestApp,
    engine: sa.Engine,
    database_url: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    product_id = product(engine)
    for key in ("a", "b", "c"):
        post(api, order_body(product_id), key=key)
    with engine.begin() as conn:
        conn.execute(
            sa.update(idempotency_keys)
            .where(idempotency_keys.c.idempotency_key != "c")
            .values(expires_at=dt.datetime(2000, 1, 1))
        )
    ini = tmp_path / "prune.ini"
    ini.write_text(f"[app:main]\nuse = egg:shopsvc\nsqlalchemy.url = {database_url}\n")
    capsys.readouterr()
    assert run([ini, "prune-idempotency"]) == 0
    assert lines(capsys) == ([{"pruned": 2}], "")
    assert stored_keys(engine) == 1
    assert run([ini, "prune-idempotency"]) == 0
    assert lines(capsys) == ([{"pruned": 0}], "")


# --- hostile header values

HEADER_VALUES = st.one_of(
    st.text(st.characters(min_codepoint=0, max_codepoint=0xFF), max_size=300),
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=250, max_size=260),
    st.text(st.characters(codec="utf-8"), max_size=20),
)


@hostile_settings(max_examples=40)
@given(value=HEADER_VALUES)
def test_random_header_values_never_give_a_5xx(api: TestApp, value: str) -> None:
    response = with_key(api, value, "post_json", URL, params={"order": {}}, status="*")
    assert response.status_int in (201, 400), (value, response.status_int, response.body)
    if response.status_int == 400:
        assert error(response) == INVALID


# --- the OpenAPI document


def test_the_document_declares_the_header_on_every_write(app: TestApp) -> None:
    document = app.get("/shop-api/v3/openapi.json").json
    writes = {
        (path, method): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in ("post", "put", "patch", "delete")
    }
    assert ("/orders", "post") in writes and ("/orders/bulk", "post") in writes
    for (path, method), operation in writes.items():
        [header] = [p for p in operation["parameters"] if p["in"] == "header"]
        assert header["name"] == "Idempotency-Key", (path, method)
        assert header["schema"] == {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "pattern": "^[!-~]+$",
        }
        responses = operation["responses"]
        assert "shop_api_invalid_idempotency_key" in responses["400"]["x-error-codes"]
        assert responses["409"]["x-error-codes"] == ["shop_api_idempotency_key_in_use"]
        assert responses["422"]["x-error-codes"][-1] == "shop_api_idempotency_key_mismatch"
    for item in document["paths"].values():
        for method in ("get", "head"):
            parameters = item.get(method, {}).get("parameters", [])
            assert all(p["in"] != "header" for p in parameters)
