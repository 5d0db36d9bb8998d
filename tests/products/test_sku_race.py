"""Two concurrent writes of one SKU: exactly one wins and the other gets the spec's 400.

The planner checks first (``writers.product_batch``) and the view turns the unique index
(``uq_products_sku``) refusing the write into the same 400. On SQLite writers serialise
(``BEGIN IMMEDIATE``), so the second request's check sees the first one's SKU; on PostgreSQL
both checks can pass and the index decides. The tests with the check switched off prove that
the index alone also gives a 400 (never a 500) and leaves nothing of the losing request behind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import attribute_terms, products
from shopsvc.writers.product_batch import ProductBatch
from tests.helpers.api import error
from tests.helpers.products import URL, seed_attribute
from tests.helpers.sql import count_rows, select_all

ROUNDS = 5


def _clients(app: TestApp, admin: Any, n: int = 2) -> list[TestApp]:
    clients = []
    for _ in range(n):
        client = TestApp(app.app)
        client.authorization = ("Basic", (admin.consumer_key, admin.consumer_secret))
        clients.append(client)
    return clients


def _race(clients: list[TestApp], send: Callable[[TestApp], Any]) -> list[Any]:
    """Run ``send`` with each client in its own thread, all released at once."""
    barrier = threading.Barrier(len(clients))
    responses: list[Any] = [None] * len(clients)
    failures: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            responses[index] = send(clients[index])
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    return responses


def _skus(engine: sa.Engine, sku: str) -> list[int]:
    with engine.connect() as conn:
        query = sa.select(products.c.id).where(sa.func.lower(products.c.sku) == sku.lower())
        return [int(i) for i in conn.execute(query).scalars()]


def _assert_one_winner(responses: list[Any]) -> None:
    statuses = sorted(r.status_int for r in responses)
    assert statuses[0] in (200, 201) and statuses[1] == 400, [r.json for r in responses]
    loser = next(r for r in responses if r.status_int == 400)
    assert error(loser) == (
        400,
        "shop_api_product_sku_already_exists",
        "The SKU already exists on another product.",
    )


def _post(sku: str, **fields: Any) -> Callable[[TestApp], Any]:
    def send(client: TestApp) -> Any:
        body = {"product": {"title": "Racer", "sku": sku, **fields}}
        return client.post_json(URL, body, status="*")

    return send


@pytest.fixture
def without_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the planner's SKU check off: only the unique index stands in the way."""
    monkeypatch.setattr(ProductBatch, "_sku_taken", lambda *args, **kwargs: False)


def test_concurrent_creates_with_one_sku(app: TestApp, admin: Any, engine: sa.Engine) -> None:
    clients = _clients(app, admin)
    for round_ in range(ROUNDS):
        sku = f"RACE-{round_}"
        responses = _race(clients, _post(sku if round_ % 2 else sku.lower()))
        _assert_one_winner(responses)
        assert len(_skus(engine, sku)) == 1
    assert count_rows(engine) == ROUNDS


def test_concurrent_creates_decided_by_the_index(
    app: TestApp, admin: Any, engine: sa.Engine, without_check: None
) -> None:
    clients = _clients(app, admin)
    for round_ in range(ROUNDS):
        sku = f"INDEX-{round_}"
        _assert_one_winner(_race(clients, _post(sku)))
        assert len(_skus(engine, sku)) == 1
    assert count_rows(engine) == ROUNDS  # the losers' rows are gone with their transactions


def test_concurrent_variation_skus_decided_by_the_index(
    app: TestApp, admin: Any, engine: sa.Engine, without_check: None
) -> None:
    clients = _clients(app, admin)
    send = _post("", type="variable", variations=[{"sku": "VAR-RACE", "regular_price": "1"}])
    _assert_one_winner(_race(clients, send))
    assert len(_skus(engine, "VAR-RACE")) == 1
    assert count_rows(engine) == 2  # one variable product and its variation


def test_concurrent_edits_to_one_sku(
    app: TestApp, admin: Any, engine: sa.Engine, without_check: None
) -> None:
    first, second = _clients(app, admin)
    ids = [
        first.post_json(URL, {"product": {"title": name}}, status=201).json["product"]["id"]
        for name in ("a", "b")
    ]

    def send(client: TestApp) -> Any:
        product_id = ids[0] if client is first else ids[1]
        return client.put_json(f"{URL}/{product_id}", {"product": {"sku": "EDIT-RACE"}}, status="*")

    _assert_one_winner(_race([first, second], send))
    assert len(_skus(engine, "EDIT-RACE")) == 1


def test_index_alone_refuses_a_sequential_duplicate(
    api: TestApp, engine: sa.Engine, without_check: None
) -> None:
    api.post_json(URL, {"product": {"title": "a", "sku": "SEQ"}}, status=201)
    response = api.post_json(URL, {"product": {"title": "b", "sku": "seq"}}, status=400)
    assert error(response)[1] == "shop_api_product_sku_already_exists"
    response = api.post_json(
        f"{URL}/bulk",
        {"products": [{"title": "c", "type": "variable", "variations": [{"sku": "SEQ"}]}]},
    )
    [item] = response.json["products"]
    assert item["error"]["code"] == "shop_api_product_sku_already_exists"
    assert count_rows(engine) == 1


def test_concurrent_creates_share_a_new_attribute_term(
    app: TestApp, admin: Any, engine: sa.Engine
) -> None:
    seed_attribute(engine, "Color", "color")
    clients = _clients(app, admin)
    attributes = [{"name": "Color", "slug": "color", "options": ["Teal"]}]

    def send(client: TestApp) -> Any:
        body = {"product": {"title": "Teal thing", "attributes": attributes}}
        return client.post_json(URL, body, status="*")

    responses = _race(clients, send)
    assert [r.status_int for r in responses] == [201, 201]
    assert [(t["name"], t["slug"]) for t in select_all(engine, attribute_terms)] == [
        ("Teal", "teal")
    ]
    for response in responses:
        assert response.json["product"]["attributes"][0]["options"] == ["Teal"]
