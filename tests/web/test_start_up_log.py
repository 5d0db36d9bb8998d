"""What a start says (issue 26, item 2): the app factory logs the API root's and the
documentation's URLs and the database once; a migration is one line per script applied, without
Alembic's INFO lines; the webhook worker says it started, its senders and what wakes it."""

from __future__ import annotations

import logging
import pathlib
import threading
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from shopsvc import main
from shopsvc.app import server_url
from shopsvc.db.engine import make_engine, shown_url
from shopsvc.db.schema import MIGRATIONS
from shopsvc.delivery.worker import Deliverer
from shopsvc.settings import load_settings
from tests.helpers.databases import postgres_database

SERVER = """\
[DEFAULT]
http_port = 6543

[app:main]
use = egg:shopsvc

[server:main]
use = egg:waitress#main
host = {host}
get port = http_port
"""

API = "/shop-api/v3"


def _ini(folder: pathlib.Path, text: str) -> pathlib.Path:
    path = folder / "shop.ini"
    path.write_text(text)
    return path


def _messages(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == logger]


def _start(url: str, global_config: dict[str, str], **settings: str) -> None:
    app = main(global_config, **{"sqlalchemy.url": url, **settings})
    app.registry.engine.dispose()


def test_the_factory_says_where_the_api_and_the_database_are(
    engine: sa.Engine,
    database_url: str,
    tmp_path: pathlib.Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ini = _ini(tmp_path, SERVER.format(host="127.0.0.1"))
    caplog.set_level(logging.INFO)
    # pserve's global_config: the ini, its folder, and the values given (`http_port=6612`)
    _start(database_url, {"__file__": str(ini), "here": str(tmp_path), "http_port": "6612"})
    base = "http://127.0.0.1:6612"
    assert _messages(caplog, "shopsvc") == [
        f"API root {base}{API}, documentation {base}{API}/docs, "
        f"health {base}/healthz and {base}/readyz",
        f"database {shown_url(database_url)}",
    ]


def test_public_url_names_the_api_and_the_listening_address_follows(
    engine: sa.Engine,
    database_url: str,
    tmp_path: pathlib.Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ini = _ini(tmp_path, SERVER.format(host="0.0.0.0"))
    caplog.set_level(logging.INFO)
    settings = {"shopsvc.public_url": "https://shop.example.com", "shopsvc.api_root": "/wc-api/v3"}
    _start(database_url, {"__file__": str(ini), "here": str(tmp_path)}, **settings)
    api = "https://shop.example.com/wc-api/v3"
    assert _messages(caplog, "shopsvc")[0] == (
        f"API root {api}, documentation {api}/docs, health https://shop.example.com/healthz "
        "and https://shop.example.com/readyz; listening on http://127.0.0.1:6543"
    )


def test_without_an_ini_the_paths_are_said(
    engine: sa.Engine, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    _start(database_url, {})
    assert _messages(caplog, "shopsvc")[0] == (
        f"API root {API}, documentation {API}/docs, health /healthz and /readyz"
    )


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        ("host = 127.0.0.1\nport = 7000\n", "http://127.0.0.1:7000"),
        ("host = 0.0.0.0\nport = 7000\n", "http://127.0.0.1:7000"),
        ("port = 7000\n", "http://127.0.0.1:7000"),  # waitress's default host: every address
        ("", "http://127.0.0.1:8080"),  # and port
        ("listen = *:7001 127.0.0.1:7002\n", "http://127.0.0.1:7001"),
        ("listen = [::]:7003\n", "http://[::1]:7003"),
        ("listen = [::1]:7004\n", "http://[::1]:7004"),
        ("listen = 127.0.0.1\nport = 7005\n", "http://127.0.0.1:7005"),  # no port: `port`
        ("listen = [::1]\n", "http://[::1]:8080"),
        ("host = shop.internal\nport = 7000\nurl_scheme = https\n", "https://shop.internal:7000"),
        ("host = 127.0.0.1\nport = 7000\nurl_prefix = /shop/\n", "http://127.0.0.1:7000/shop"),
        ("unix_socket = /run/shop.sock\n", None),
        ("host = 127.0.0.1\nport = 0\n", None),  # the system's choice
    ],
)
def test_server_url(tmp_path: pathlib.Path, server: str, expected: str | None) -> None:
    ini = _ini(tmp_path, f"[server:main]\nuse = egg:waitress#main\n{server}")
    assert server_url({"__file__": str(ini), "here": str(tmp_path)}) == expected


def test_server_url_without_a_server_section_or_an_ini(tmp_path: pathlib.Path) -> None:
    ini = _ini(tmp_path, "[app:main]\nuse = egg:shopsvc\n")
    assert server_url({"__file__": str(ini)}) is None
    assert server_url({"__file__": str(tmp_path / "missing.ini")}) is None
    assert server_url({}) is None
    broken = tmp_path / "broken.ini"
    broken.write_text("[server:main]\nport = %(nowhere)s\n")
    assert server_url({"__file__": str(broken)}) is None


def test_shown_url_hides_the_password() -> None:
    assert shown_url("postgresql+psycopg://shop:secret@db.internal/shop") == (
        "postgresql+psycopg://shop:***@db.internal/shop"
    )
    assert shown_url("sqlite:////srv/shop/shopsvc.sqlite") == "sqlite:////srv/shop/shopsvc.sqlite"
    assert shown_url("not a url") == "(unparseable)"


# --- migrations


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_database(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Iterator[str]:
    """A database never migrated."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    else:
        yield from postgres_database()


def test_a_migration_is_one_line_per_script_and_alembic_is_quiet(
    fresh_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="alembic")  # restored afterwards
    caplog.set_level(logging.INFO, logger="shopsvc.db.schema")  # (a CLI test may raise it)
    caplog.set_level(logging.INFO)
    logging.getLogger("alembic").setLevel(logging.NOTSET)  # no level of its own, as in an ini
    _start(fresh_database, {}, **{"shopsvc.auto_migrate": "true"})
    scripts = sorted(path.stem for path in pathlib.Path(MIGRATIONS, "versions").glob("0*.py"))
    assert len(scripts) >= 9
    assert _messages(caplog, "shopsvc.db.schema") == [
        f"schema migrated to {script}" for script in scripts
    ]
    assert [r for r in caplog.records if r.name.startswith("alembic")] == []
    assert logging.getLogger("alembic").level == logging.NOTSET  # as it was
    caplog.clear()
    _start(fresh_database, {}, **{"shopsvc.auto_migrate": "true"})  # at its latest: silent
    assert _messages(caplog, "shopsvc.db.schema") == []


def test_alembic_speaks_when_its_logger_is_set(
    fresh_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    alembic_log = logging.getLogger("alembic")
    caplog.set_level(logging.INFO, logger="alembic")  # an ini's [logger_alembic] level = INFO
    _start(fresh_database, {}, **{"shopsvc.auto_migrate": "true"})
    assert any(r.name.startswith("alembic") for r in caplog.records)
    assert alembic_log.level == logging.INFO


# --- the webhook worker


def test_the_worker_says_it_started_its_senders_and_what_wakes_it(
    engine: sa.Engine, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="shopsvc.delivery.worker")
    worker_engine = make_engine(database_url)
    deliverer = Deliverer(worker_engine, load_settings({}), concurrency=3)
    started = threading.Event()
    thread = threading.Thread(target=lambda: (started.set(), deliverer.run()))
    thread.start()
    started.wait(5)
    deliverer.stop()
    thread.join(10)
    worker_engine.dispose()
    if database_url.startswith("postgresql"):
        wakes = "woken by NOTIFY on shopsvc_webhook_deliveries (LISTEN), else every 0.5 s"
    else:
        wakes = "looking for due deliveries every 0.5 s"
    assert _messages(caplog, "shopsvc.delivery.worker")[0] == (
        f"webhook worker started: 3 senders (at most 1 per webhook), {wakes}, "
        f"database {shown_url(database_url)}"
    )


def test_the_delivery_thread_of_pserve_says_so(
    engine: sa.Engine, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    app = main({}, **{"sqlalchemy.url": database_url, "shopsvc.webhooks.deliver_in_process": "1"})
    deliverer = app.registry.deliverer
    deliverer.stop()
    deliverer.join(10)
    app.registry.engine.dispose()
    [line] = _messages(caplog, "shopsvc.delivery.worker")
    assert line.startswith(
        "webhook delivery thread (shopsvc.webhooks.deliver_in_process) started: 4 senders (at "
        "most 2 per webhook), "
    )
