"""The fixtures every test may use: the database (SQLite, and PostgreSQL when
``SHOPSVC_TEST_POSTGRES_URL`` is set; each test starts from an empty one), the real app factory,
credentials and the clients that send them, the local image host. What they are built from is in
``tests/helpers/`` (the databases in ``tests.helpers.databases``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc import main
from shopsvc.db.engine import make_engine
from shopsvc.db.schema import migrate
from shopsvc.testing.databases import user_with_key
from tests.helpers.api import LEGACY_SETTINGS, Credentials, authorised
from tests.helpers.databases import postgres_database, reset, sqlite_without_fsync
from tests.helpers.legacy_client import LegacyClient
from tests.helpers.server import ImageHandler, LocalServer


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("db") / "shopsvc.sqlite"
        yield f"sqlite:///{path}"
    else:
        yield from postgres_database()


@pytest.fixture(scope="session")
def engine(database_url: str) -> Iterator[sa.Engine]:
    engine = make_engine(database_url)
    migrate(engine)
    yield engine
    engine.dispose()


def pytest_configure(config: pytest.Config) -> None:
    # every engine of the run: the fixtures', the apps' and the CLI's
    sa.event.listen(sa.Engine, "connect", sqlite_without_fsync)


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


@pytest.fixture
def legacy_client(legacy_app: TestApp, make_key: Callable[..., Credentials]) -> LegacyClient:
    """The real PyPI ``woocommerce`` client, called by a shop manager, against ``legacy_app``."""
    key = make_key("shop_manager", "read_write")
    return LegacyClient(legacy_app, key.consumer_key, key.consumer_secret)


@pytest.fixture(autouse=True)
def clean_database(request: pytest.FixtureRequest) -> Iterator[None]:
    if "engine" not in request.fixturenames:
        yield
        return
    engine: sa.Engine = request.getfixturevalue("engine")
    reset(engine)
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
