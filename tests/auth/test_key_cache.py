"""``shopsvc.auth.key_cache``: on PostgreSQL a process keeps the keys it verified and hears of their
changes by ``NOTIFY`` (migration 0008); on SQLite, or with ``shopsvc.auth.cache_keys = false``,
every request reads its key."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.auth import key_cache as keycache
from shopsvc.auth.key_cache import KeyCache
from shopsvc.db.engine import make_engine
from shopsvc.sql import auth as auth_sql
from shopsvc.sql import auth_writes as auth_writes_sql
from shopsvc.sql.common import listen_statement
from shopsvc.sql.tables import api_keys, users
from shopsvc.testing.databases import scratch_postgres
from tests.helpers.api import ROOT, Credentials, authorised
from tests.helpers.databases import POSTGRES_ENV, migration
from tests.helpers.sql import statements

AUTH = "shop_api_authentication_error"


def key_statements(client: TestApp, path: str = f"{ROOT}/webhooks") -> list[str]:
    """The statements on ``api_keys`` that one GET of ``path`` runs (it must succeed)."""
    with statements(client, "api_keys") as seen:
        client.get(path, status=200)
    return seen


def auth_error(response: Any) -> tuple[int, str, str]:
    (error,) = response.json["errors"]
    return response.status_int, error["code"], error["message"]


@pytest.fixture
def cache(app: TestApp) -> KeyCache:
    found: KeyCache | None = app.app.registry.key_cache
    if found is None:
        pytest.skip("this database has no key cache: every request reads its key")
    assert found.settle(), "the key cache's listener did not start"
    return found


# --- where there is no cache


def test_sqlite_reads_the_key_on_every_request(app: TestApp, admin: Credentials) -> None:
    if app.app.registry.engine.dialect.name != "sqlite":
        pytest.skip("a database with notifications keeps its keys")
    assert app.app.registry.key_cache is None
    client = authorised(app, admin)
    key_statements(client)  # the first request also writes last_access
    for _ in range(2):
        (lookup,) = key_statements(client)
        assert lookup.startswith("SELECT api_keys.id AS key_id")


def test_the_setting_turns_the_cache_off(
    build_app: Callable[..., TestApp], make_key: Callable[..., Credentials]
) -> None:
    app = build_app(**{"shopsvc.auth.cache_keys": "false"})
    assert app.app.registry.key_cache is None
    client = authorised(app, make_key())
    key_statements(client)
    (lookup,) = key_statements(client)
    assert lookup.startswith("SELECT api_keys.id AS key_id")


# --- PostgreSQL: a key read once, then answered from memory


def test_a_key_is_read_once(app: TestApp, cache: KeyCache, admin: Credentials) -> None:
    client = authorised(app, admin)
    first = key_statements(client)
    # its lookup, and the first access written (in a write transaction of its own)
    assert [s.split()[0] for s in first] == ["SELECT", "UPDATE"]
    assert key_statements(client) == []
    assert key_statements(client, f"{ROOT}/products") == []


def test_last_access_written_once_a_minute_keeps_the_entry(
    app: TestApp, cache: KeyCache, admin: Credentials, engine: sa.Engine
) -> None:
    client = authorised(app, admin)
    key_statements(client)
    # the UPDATE of last_access notified nothing: the entry stays, and says it was written
    assert cache.settle()
    assert key_statements(client) == []
    with engine.connect() as conn:
        stored = conn.execute(sa.select(api_keys.c.last_access)).scalar_one()
    assert stored is not None


@pytest.mark.parametrize(
    "deleted",
    [
        lambda conn, who: auth_writes_sql.delete_key(conn, who.key_id),  # revoke-key
        lambda conn, who: conn.execute(sa.delete(users).where(users.c.id == who.user_id)),
    ],
    ids=["key revoked", "user deleted (its keys with it)"],
)
def test_a_deleted_key_is_refused(
    app: TestApp,
    cache: KeyCache,
    admin: Credentials,
    engine: sa.Engine,
    deleted: Callable[[sa.Connection, Credentials], Any],
) -> None:
    client = authorised(app, admin)
    key_statements(client)
    with engine.begin() as conn:
        deleted(conn, admin)
    assert cache.settle()
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert auth_error(response) == (401, AUTH, "Consumer key is invalid.")


@pytest.mark.parametrize(
    ("column", "value", "method", "message"),
    [
        ("permissions", "read", "POST", "The API key provided does not have write permissions."),
        ("permissions", "write", "GET", "The API key provided does not have read permissions."),
        ("consumer_secret", "cs_changed", "GET", "Consumer secret is invalid."),
        ("consumer_key_hash", "0" * 64, "GET", "Consumer key is invalid."),
    ],
)
def test_a_changed_key_is_read_again(
    app: TestApp,
    cache: KeyCache,
    admin: Credentials,
    engine: sa.Engine,
    column: str,
    value: str,
    method: str,
    message: str,
) -> None:
    client = authorised(app, admin)
    key_statements(client)
    with engine.begin() as conn:
        conn.execute(sa.update(api_keys).values({column: value}))
    assert cache.settle()
    response = client.request(f"{ROOT}/webhooks", method=method, expect_errors=True)
    assert auth_error(response) == (401, AUTH, message)


def test_a_changed_user_is_read_again(
    app: TestApp,
    cache: KeyCache,
    make_key: Callable[..., Credentials],
    engine: sa.Engine,
) -> None:
    count = f"{ROOT}/products/count"
    manager = make_key("shop_manager")
    client = authorised(app, manager)
    other = authorised(app, make_key("shop_manager"))
    key_statements(client, count)
    key_statements(other, count)
    with engine.begin() as conn:
        conn.execute(sa.update(users).where(users.c.id == manager.user_id).values(role="customer"))
    assert cache.settle()
    response = client.get(count, status=401)
    assert auth_error(response) == (
        401,
        "shop_api_user_cannot_read_products_count",
        "You do not have permission to read the products count.",
    )
    # the other user's key stayed in the cache
    assert key_statements(other, count) == []


def test_a_lost_listener_drops_the_keys_and_listens_again(
    app: TestApp, cache: KeyCache, admin: Credentials, engine: sa.Engine
) -> None:
    client = authorised(app, admin)
    key_statements(client)
    with engine.begin() as conn:
        ended = (
            conn.execute(
                sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND query = :listen"
                ),
                {"listen": listen_statement(auth_sql.KEYS_CHANNEL)},
            )
            .scalars()
            .all()
        )
        assert ended and all(ended)  # this app's listener and other apps' of the session
        # revoked while nobody listens: no notification reaches the process
        assert auth_writes_sql.delete_key(conn, admin.key_id)
    deadline = time.monotonic() + 10
    while cache.listening and time.monotonic() < deadline:
        time.sleep(0.01)
    # until it listens again, every lookup reads the database
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert auth_error(response) == (401, AUTH, "Consumer key is invalid.")
    assert cache.settle(timeout=10)
    response = client.get(f"{ROOT}/webhooks", status=401)
    assert auth_error(response) == (401, AUTH, "Consumer key is invalid.")


def test_disposing_the_engine_stops_the_listener(
    build_app: Callable[..., TestApp], make_key: Callable[..., Credentials]
) -> None:
    app = build_app()
    found: KeyCache | None = app.app.registry.key_cache
    if found is None:
        pytest.skip("this database has no key cache: every request reads its key")
    client = authorised(app, make_key())
    key_statements(client)
    assert found.settle()
    listener = found._listener
    assert listener is not None and listener.alive()
    app.app.registry.engine.dispose()
    assert not listener.alive() and not found.listening
    # used again, it reads the key and starts listening anew
    assert key_statements(client)[0].startswith("SELECT api_keys.id")
    assert found.settle()


# --- the rules that keep a stale row out (no database: a cache told it listens)


@pytest.fixture
def bare_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[KeyCache]:
    found = KeyCache(sa.create_engine("sqlite://"))
    monkeypatch.setattr(found, "_start", lambda: None)
    found.set_listening(True)
    yield found
    found.engine.dispose()


def fake_rows(monkeypatch: pytest.MonkeyPatch, during: Callable[[], None] = lambda: None) -> list:
    """``find_key`` answers a row for any hash (its user 7), running ``during`` while it
    reads; the hashes it was asked for."""
    asked: list[str] = []

    def find_key(conn: Any, key_hash: str) -> dict[str, Any]:
        asked.append(key_hash)
        during()
        return {"key_id": len(asked), "user_id": 7 if key_hash != "other" else 8}

    monkeypatch.setattr(auth_sql, "find_key", find_key)
    return asked


def test_a_row_read_while_a_change_arrived_is_not_kept(
    bare_cache: KeyCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = fake_rows(monkeypatch, during=lambda: bare_cache.changed("unrelated"))
    bare_cache.find(None, "h")
    bare_cache.find(None, "h")
    assert asked == ["h", "h"]


def test_missing_keys_are_not_kept(bare_cache: KeyCache, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(auth_sql, "find_key", lambda conn, key_hash: asked.append(key_hash))
    assert bare_cache.find(None, "h") is None
    assert bare_cache.find(None, "h") is None
    assert asked == ["h", "h"]


def test_what_each_notification_drops(
    bare_cache: KeyCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = fake_rows(monkeypatch)
    for key_hash in ("a", "b", "other"):
        bare_cache.find(None, key_hash)
    bare_cache.changed("a")  # one key
    for key_hash in ("a", "b", "other"):
        bare_cache.find(None, key_hash)
    assert asked[3:] == ["a"]
    bare_cache.changed("user:7")  # that user's keys
    for key_hash in ("a", "b", "other"):
        bare_cache.find(None, key_hash)
    assert asked[4:] == ["a", "b"]
    bare_cache.changed("*")  # all
    for key_hash in ("a", "b", "other"):
        bare_cache.find(None, key_hash)
    assert asked[6:] == ["a", "b", "other"]


def test_an_entry_is_read_again_after_its_age(
    bare_cache: KeyCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = fake_rows(monkeypatch)
    now = [1000.0]
    monkeypatch.setattr(keycache.time, "monotonic", lambda: now[0])
    bare_cache.find(None, "h")
    now[0] += keycache.MAX_AGE - 1
    bare_cache.find(None, "h")
    now[0] += 2
    bare_cache.find(None, "h")
    assert asked == ["h", "h"]


def test_nothing_is_kept_while_nobody_listens(
    bare_cache: KeyCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = fake_rows(monkeypatch)
    bare_cache.find(None, "h")
    bare_cache.set_listening(False)
    bare_cache.find(None, "h")
    bare_cache.find(None, "h")
    bare_cache.set_listening(True)  # listening anew starts from nothing
    bare_cache.find(None, "h")
    bare_cache.find(None, "h")
    assert asked == ["h", "h", "h", "h"]


def test_touched_updates_last_access_only(
    bare_cache: KeyCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_rows(monkeypatch)
    row = bare_cache.find(None, "h")
    bare_cache.touched("h", "now")
    again = bare_cache.find(None, "h")
    assert again == {**row, "last_access": "now"}
    assert "last_access" not in row  # the shared row was not changed


def test_a_forked_child_starts_afresh(
    bare_cache: KeyCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = fake_rows(monkeypatch)
    bare_cache.find(None, "h")
    keycache._after_fork_in_child()  # what os.fork runs in the child
    assert not bare_cache.listening and bare_cache._listener is None
    bare_cache.find(None, "h")
    assert asked == ["h", "h"]


def _key_triggers(conn: sa.Connection) -> list[str]:
    return sorted(
        conn.exec_driver_sql(
            "SELECT tgname FROM pg_trigger WHERE tgrelid IN ('api_keys'::regclass, "
            "'users'::regclass) AND NOT tgisinternal UNION ALL SELECT proname FROM pg_proc "
            "WHERE proname IN ('api_keys_changed', 'users_changed', 'keys_truncated')"
        ).scalars()
    )


def test_the_migration_adds_the_triggers_and_the_downgrade_removes_them(
    database_url: str,
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite has no notifications: 0008 changes nothing there")
    with scratch_postgres(os.environ[POSTGRES_ENV], "shopsvc_test") as url:
        engine = make_engine(url)
        try:
            with engine.begin() as conn:
                migration(conn, "upgrade", "head")
                assert _key_triggers(conn) == [
                    "api_keys_changed",
                    "api_keys_changed",
                    "api_keys_truncated",
                    "keys_truncated",
                    "users_changed",
                    "users_changed",
                    "users_truncated",
                ]
                migration(conn, "downgrade", "0007")
                assert _key_triggers(conn) == []
                migration(conn, "upgrade", "head")
                assert len(_key_triggers(conn)) == 7
        finally:
            engine.dispose()
