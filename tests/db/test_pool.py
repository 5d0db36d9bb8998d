"""``shopsvc.db``: a pooled PostgreSQL connection the server has dropped is replaced at checkout,
without a failed request and without a round trip on every checkout (``_check_alive``)."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.db import engine as db
from tests.helpers.api import ROOT, assert_error


@pytest.fixture(autouse=True)
def _postgresql_only(engine: sa.Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no server to drop a connection")


def _drop_the_app_connections(engine: sa.Engine) -> None:
    """Terminate every other backend of the test database (the app's pooled connections among
    them) and wait until they are gone."""
    others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    with engine.connect() as conn:
        conn.execute(sa.text(f"SELECT pg_terminate_backend(pid) {others}"))
        conn.commit()
        for _ in range(200):
            left = conn.execute(sa.text(f"SELECT count(*) {others}")).scalar_one()
            conn.commit()  # the activity view is read once per transaction
            if left == 0:
                return
            time.sleep(0.01)
    raise AssertionError("the terminated backends did not go")


def _warm(api: TestApp, times: int = 3) -> None:
    for _ in range(times):
        api.get(f"{ROOT}/taxes", status=200)


def test_terminated_connections_are_replaced_without_a_failed_request(
    api: TestApp, engine: sa.Engine
) -> None:
    _warm(api)
    app_engine = api.app.registry.engine
    assert app_engine.pool.checkedin() >= 1
    _drop_the_app_connections(engine)
    for _ in range(5):
        assert api.get(f"{ROOT}/taxes", status=200).json == {"taxes": []}


def test_a_connection_in_use_is_not_pinged(api: TestApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """No round trip at checkout: the statements a GET sends are its own; one idle for longer
    than :data:`db.PING_IDLE_SECONDS` is pinged, and handed out outside a transaction."""
    _warm(api)
    app_engine = api.app.registry.engine
    sent: list[str] = []
    with app_engine.connect() as conn:
        driver = conn.connection.driver_connection
        assert driver is not None
        traced = type(driver).execute

        def execute(self: object, query: object, *args: object, **kwargs: object) -> object:
            sent.append(str(query))
            return traced(self, query, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(type(driver), "execute", execute)
    api.get(f"{ROOT}/taxes", status=200)
    assert sent == []
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.0)
    api.get(f"{ROOT}/taxes", status=200)
    assert sent == ["SELECT 1"]


def test_a_silently_dropped_idle_connection_is_found_by_the_ping(
    api: TestApp, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection whose socket shows nothing (a firewall that dropped it without a word):
    after :data:`db.PING_IDLE_SECONDS` in the pool it is pinged, and replaced."""
    _warm(api)
    _drop_the_app_connections(engine)
    monkeypatch.setattr(db, "_has_input", lambda fd: False)
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.0)
    for _ in range(3):
        assert api.get(f"{ROOT}/taxes", status=200).json == {"taxes": []}


def test_without_the_ping_that_connection_fails_the_request(
    api: TestApp, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case above with the ping left out: what the ping is for. The request fails with the
    API's JSON error (its rollback on the lost connection does not escape), and the pool is
    renewed for the next."""
    _warm(api)
    _drop_the_app_connections(engine)
    monkeypatch.setattr(db, "_has_input", lambda fd: False)
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 3600.0)
    failed = api.get(f"{ROOT}/taxes", expect_errors=True)
    assert_error(failed, 500, "shop_api_internal_error", "An internal error occurred.")
    assert api.get(f"{ROOT}/taxes", status=200).json == {"taxes": []}
