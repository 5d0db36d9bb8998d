"""Fixtures: the real app factory over SQLite and (when SHOPSVC_TEST_POSTGRES_URL is set)
PostgreSQL; each test starts from an empty database."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from webtest import TestApp

from shopsvc import main
from shopsvc.db.engine import make_engine
from shopsvc.db.schema import migrate
from shopsvc.sql.tables import metadata
from shopsvc.testing.databases import scratch_postgres, user_with_key
from tests.helpers.api import LEGACY_SETTINGS, ROOT, Credentials, authorised, errors
from tests.helpers.server import ImageHandler, LocalServer

# Test modules import what they share from tests.helpers; these names stay importable from here
# for the modules that still import them from conftest.
__all__ = ["ROOT", "Credentials", "authorised", "errors"]

POSTGRES_ENV = "SHOPSVC_TEST_POSTGRES_URL"


def _postgres_database() -> Iterator[str]:
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        if os.environ.get("SHOPSVC_REQUIRE_POSTGRES"):
            pytest.fail(f"{POSTGRES_ENV} is not set but SHOPSVC_REQUIRE_POSTGRES is")
        pytest.skip(f"{POSTGRES_ENV} is not set")
    with scratch_postgres(base, "shopsvc_test") as url:
        # The scratch database is thrown away: its commits need not wait for the disk. Nothing
        # a test can observe changes (only what a crash of the server would keep).
        database = make_url(url).database
        admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'ALTER DATABASE "{database}" SET synchronous_commit = off')
        admin.dispose()
        yield url


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("db") / "shopsvc.sqlite"
        yield f"sqlite:///{path}"
    else:
        yield from _postgres_database()


@pytest.fixture(scope="session")
def engine(database_url: str) -> Iterator[sa.Engine]:
    engine = make_engine(database_url)
    migrate(engine)
    yield engine
    engine.dispose()


def _sqlite_without_fsync(dbapi_connection: Any, _record: Any) -> None:
    """The test databases are thrown away: SQLite need not wait for the disk on each commit
    (what a test can observe does not change, only what a power cut would keep)."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.execute("PRAGMA synchronous = OFF")


def pytest_configure(config: pytest.Config) -> None:
    # every engine of the run: the fixtures', the apps' and the CLI's
    sa.event.listen(sa.Engine, "connect", _sqlite_without_fsync)


BASE_SETTINGS = {
    "shopsvc.auth.allow_basic_over_http": "true",
    "shopsvc.outbound.allow_private_targets": "true",
}


@pytest.fixture(scope="session")
def make_app(
    engine: sa.Engine, database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., TestApp]]:
    """A TestApp over the real app factory with extra ini settings (the schema is migrated)."""
    media = tmp_path_factory.mktemp("media")
    made: list[TestApp] = []

    def build(**settings: str) -> TestApp:
        merged = {
            "sqlalchemy.url": database_url,
            "shopsvc.media_dir": str(media),
            **BASE_SETTINGS,
            **settings,
        }
        made.append(TestApp(main({"__file__": "test.ini"}, **merged)))
        return made[-1]

    yield build
    for built in made:  # before the database goes: the key caches' listeners stop
        built.app.registry.engine.dispose()


@pytest.fixture
def build_app(make_app: Callable[..., TestApp]) -> Iterator[Callable[..., TestApp]]:
    """``make_app`` for one test: the apps' engines are disposed afterwards (no leaked
    connections)."""
    made: list[TestApp] = []

    def build(**settings: str) -> TestApp:
        made.append(make_app(**settings))
        return made[-1]

    yield build
    for built in made:
        deliverer = getattr(built.app.registry, "deliverer", None)
        if deliverer is not None:  # shopsvc.webhooks.deliver_in_process: stop its thread
            deliverer.stop()
            deliverer.join()
        built.app.registry.engine.dispose()


@pytest.fixture
def no_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """Creating a webhook pings its delivery URL; tests that need no network patch it out."""
    monkeypatch.setattr("shopsvc.views.webhooks.ping", lambda *a, **k: None)


@pytest.fixture(scope="session")
def app(make_app: Callable[..., TestApp]) -> TestApp:
    return make_app()


@pytest.fixture(scope="session")
def legacy_app(make_app: Callable[..., TestApp]) -> Iterator[TestApp]:
    """The app with the legacy clients' settings (``LEGACY_SETTINGS``)."""
    app = make_app(**LEGACY_SETTINGS)
    yield app
    app.app.registry.engine.dispose()


_RESET_SQL: dict[sa.Engine, str] = {}


def _reset_sql(engine: sa.Engine) -> str:
    """One script that empties every table and restarts the ids (DELETE is several times faster
    than TRUNCATE on the small tables of a test)."""
    if engine not in _RESET_SQL:
        tables = [table.name for table in reversed(metadata.sorted_tables)]
        # after the orders, whose delete triggers update it (0007): emptied first, it would
        # be left with negative counts
        tables = [name for name in tables if name != "order_counts"] + ["order_counts"]
        statements = [f"DELETE FROM {table}" for table in tables]
        with engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                sequences = conn.exec_driver_sql(
                    "SELECT pg_get_serial_sequence(table_name, 'id') FROM "
                    "information_schema.columns WHERE column_name = 'id' "
                    "AND table_schema = current_schema()"
                ).scalars()
                statements += [f"ALTER SEQUENCE {seq} RESTART" for seq in sequences if seq]
            else:
                statements.append("DELETE FROM sqlite_sequence")
        _RESET_SQL[engine] = "; ".join(statements)
    return _RESET_SQL[engine]


def _reset(engine: sa.Engine) -> None:
    script = _reset_sql(engine)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(script)
        else:
            for statement in script.split("; "):
                conn.exec_driver_sql(statement)


@pytest.fixture(autouse=True)
def clean_database(request: pytest.FixtureRequest) -> Iterator[None]:
    if "engine" not in request.fixturenames:
        yield
        return
    engine: sa.Engine = request.getfixturevalue("engine")
    _reset(engine)
    yield


@pytest.fixture
def make_key(engine: sa.Engine) -> Callable[..., Credentials]:
    """Create a user of ``role`` with a key of ``permissions``; returns its credentials."""
    counter = iter(range(1, 1000))

    def create(role: str = "administrator", permissions: str = "read_write") -> Credentials:
        return Credentials(*user_with_key(engine, f"{role}{next(counter)}", role, permissions))

    return create


@pytest.fixture
def admin(make_key: Callable[..., Credentials]) -> Credentials:
    return make_key("administrator", "read_write")


@pytest.fixture
def api(app: TestApp, admin: Credentials) -> TestApp:
    """The app, called as an administrator (Basic auth over plain HTTP, allowed in tests)."""
    return authorised(app, admin)


@pytest.fixture
def customer_api(app: TestApp, make_key: Callable[..., Credentials]) -> TestApp:
    """The app, called by a user whose role holds no capability."""
    return authorised(app, make_key("customer", "read_write"))


@pytest.fixture(scope="session")
def image_host() -> Iterator[str]:
    """The base URL of a local HTTP server serving the images of ``tests.helpers.server.IMAGES``
    (and a PNG under ``/img/``)."""
    with LocalServer(ImageHandler) as server:
        yield server.url
