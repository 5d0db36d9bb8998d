"""The ``shopsvc CONFIG_URI COMMAND`` console script (decisions.md §1): each command that creates
something prints it as one line of JSON; bad arguments exit with status 2 and a message.

These run once, on a temporary SQLite file (the ``engine`` fixture is not used)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import pathlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc import main as app_main
from shopsvc.auth.policy import hash_consumer_key
from shopsvc.db.schema import current_revision, head_revision
from shopsvc.sql.tables import api_keys, users
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import ROOT, TIMESTAMP
from tests.helpers.cli import lines, run
from tests.helpers.databases import migration

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def ini(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "test.ini"
    path.write_text(
        "[app:main]\n"
        "use = egg:shopsvc\n"
        "sqlalchemy.url = sqlite:///%(here)s/shop.sqlite\n"
        "shopsvc.auth.allow_basic_over_http = true\n"
    )
    return path


def output(capsys: pytest.CaptureFixture[str]) -> tuple[Any, str]:
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 1, captured.out
    return json.loads(lines[0]), captured.err


@pytest.fixture
def migrated(ini: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> pathlib.Path:
    assert run([str(ini), "migrate"]) == 0
    capsys.readouterr()
    return ini


def _engine_for(path: pathlib.Path) -> sa.Engine:
    return sa.create_engine(f"sqlite:///{path}")


def _engine(ini: pathlib.Path) -> sa.Engine:
    return _engine_for(ini.parent / "shop.sqlite")


def _app(ini: pathlib.Path) -> TestApp:
    """The app over the CLI's database (Basic auth allowed over plain HTTP)."""
    settings = {
        "sqlalchemy.url": f"sqlite:///{ini.parent / 'shop.sqlite'}",
        "shopsvc.auth.allow_basic_over_http": "true",
    }
    return TestApp(app_main({"__file__": str(ini)}, **settings))


def test_migrate(ini: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([str(ini), "migrate"]) == 0
    record, _ = output(capsys)
    assert record == {"revision": head_revision()}
    assert (ini.parent / "shop.sqlite").exists()
    # running it again is harmless
    assert run([str(ini), "migrate"]) == 0
    assert output(capsys)[0] == {"revision": head_revision()}


def test_create_user(migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(migrated), "create-user", "--login", "ann", "--email", "ann@example.com"]
    assert run([*argv, "--role", "shop_manager", "--first-name", "Ann", "--last-name", "Lee"]) == 0
    record, _ = output(capsys)
    assert record == {
        "id": 1,
        "login": "ann",
        "email": "ann@example.com",
        "role": "shop_manager",
        "first_name": "Ann",
        "last_name": "Lee",
    }
    argv = [str(migrated), "create-user", "--login", "bob", "--email", "bob@example.com"]
    assert run([*argv, "--role", "customer"]) == 0
    record, _ = output(capsys)
    assert record == {
        "id": 2,
        "login": "bob",
        "email": "bob@example.com",
        "role": "customer",
        "first_name": "",
        "last_name": "",
    }
    engine = _engine(migrated)
    with engine.connect() as conn:
        rows = conn.execute(sa.select(users.c.login, users.c.role).order_by(users.c.id)).all()
    engine.dispose()
    assert [tuple(row) for row in rows] == [("ann", "shop_manager"), ("bob", "customer")]


def test_create_key_and_use_it(migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(migrated), "create-user", "--login", "admin", "--email", "a@example.com"]
    assert run([*argv, "--role", "administrator"]) == 0
    user, _ = output(capsys)
    argv = [str(migrated), "create-key", "--user", "admin", "--permissions", "read_write"]
    assert run([*argv, "--description", "For the shop app"]) == 0
    key, _ = output(capsys)
    assert list(key) == ["key_id", "user_id", "consumer_key", "consumer_secret", "permissions"]
    assert key["key_id"] == 1
    assert key["user_id"] == user["id"]
    assert key["permissions"] == "read_write"
    assert key["consumer_key"].startswith("ck_") and len(key["consumer_key"]) == 43
    assert key["consumer_secret"].startswith("cs_") and len(key["consumer_secret"]) == 43
    assert re.fullmatch(r"ck_[0-9a-f]{40}", key["consumer_key"])
    assert re.fullmatch(r"cs_[0-9a-f]{40}", key["consumer_secret"])
    engine = _engine(migrated)
    with engine.connect() as conn:
        row = conn.execute(sa.select(api_keys)).mappings().one()
    engine.dispose()
    assert row["consumer_key_hash"] == hash_consumer_key(key["consumer_key"])
    assert key["consumer_key"] not in [str(value) for value in row.values()]
    assert row["description"] == "For the shop app"
    assert row["permissions"] == "read_write"

    app = TestApp(
        app_main(
            {"__file__": str(migrated)},
            **{
                "sqlalchemy.url": f"sqlite:///{migrated.parent / 'shop.sqlite'}",
                "shopsvc.auth.allow_basic_over_http": "true",
            },
        )
    )
    try:
        app.authorization = ("Basic", (key["consumer_key"], key["consumer_secret"]))
        assert app.get(f"{ROOT}/webhooks/count", status=200).json == {"count": 0}
    finally:
        app.app.registry.engine.dispose()


@pytest.mark.parametrize("permissions", ["read", "write"])
def test_create_key_permissions(
    migrated: pathlib.Path, capsys: pytest.CaptureFixture[str], permissions: str
) -> None:
    argv = [str(migrated), "create-user", "--login", "c", "--email", "c@example.com"]
    assert run([*argv, "--role", "customer"]) == 0
    capsys.readouterr()
    assert run([str(migrated), "create-key", "--user", "c", "--permissions", permissions]) == 0
    assert output(capsys)[0]["permissions"] == permissions


def test_create_key_for_an_unknown_user(
    migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(migrated), "create-key", "--user", "nobody", "--permissions", "read"]
    assert run(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "nobody" in captured.err
    engine = _engine(migrated)
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(api_keys)).scalar_one() == 0
    engine.dispose()


@pytest.mark.parametrize(
    "argv",
    [
        ["create-user", "--login", "x", "--email", "x@example.com", "--role", "superuser"],
        ["create-user", "--login", "x", "--email", "x@example.com"],
        ["create-user", "--login", " ", "--email", "x@example.com", "--role", "customer"],
        ["create-user", "--login", "x", "--email", "not-an-email", "--role", "customer"],
        ["create-key", "--user", "x", "--permissions", "everything"],
        ["no-such-command"],
    ],
    ids=["bad-role", "no-role", "empty-login", "bad-email", "bad-permissions", "bad-command"],
)
def test_bad_arguments_exit_with_status_2(
    migrated: pathlib.Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert run([str(migrated), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip()
    engine = _engine(migrated)
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(users)).scalar_one() == 0
    engine.dispose()


def test_duplicate_login(migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(migrated), "create-user", "--login", "dup", "--email", "d@example.com"]
    assert run([*argv, "--role", "customer"]) == 0
    capsys.readouterr()
    assert run([*argv, "--role", "customer"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "dup" in captured.err


def test_missing_ini(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([str(tmp_path / "absent.ini"), "migrate"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "absent.ini" in captured.err


def test_database_url_from_the_environment(
    ini: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = tmp_path / "elsewhere.sqlite"
    monkeypatch.setenv("SHOPSVC_DATABASE_URL", f"sqlite:///{other}")
    assert run([str(ini), "migrate"]) == 0
    assert output(capsys)[0] == {"revision": head_revision()}
    assert other.exists()
    assert not (ini.parent / "shop.sqlite").exists()


# --- the add-review command


def review_args(product: int, *extra: str, rating: str = "4") -> list[str]:
    return [
        "add-review",
        "--product",
        str(product),
        "--rating",
        rating,
        "--reviewer-name",
        "Ann",
        "--reviewer-email",
        "ann@example.com",
        "--review",
        "Très bien.",
        *extra,
    ]


@pytest.fixture
def cli_product(migrated: pathlib.Path) -> Iterator[tuple[sa.Engine, int, int]]:
    engine = sa.create_engine(f"sqlite:///{migrated.parent / 'shop.sqlite'}")
    factory = CatalogFactory(engine)
    product = factory.product("Mug")
    variable = factory.product("Tee", type="variable")
    variation = factory.variation(variable, {})
    yield engine, product, variation
    engine.dispose()


def test_add_review(
    migrated: pathlib.Path,
    cli_product: tuple[sa.Engine, int, int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    engine, product, _ = cli_product
    assert run([str(migrated), *review_args(product, "--verified")]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    created = record.pop("created_at")
    assert dt.datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ")
    assert record == {
        "id": 1,
        "product_id": product,
        "review": "Très bien.",
        "rating": "4",
        "reviewer_name": "Ann",
        "reviewer_email": "ann@example.com",
        "verified": True,
        "approved": True,
    }
    assert run([str(migrated), *review_args(product, "--pending", rating="2")]) == 0
    pending = json.loads(capsys.readouterr().out)
    assert (pending["approved"], pending["verified"], pending["rating"]) == (False, False, "2")
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT id, approved FROM reviews ORDER BY id").all()
    assert [tuple(r) for r in rows] == [(1, 1), (2, 0)]


@pytest.mark.parametrize("rating", ["0", "6", "4.5", "five", "-1"])
def test_add_review_bad_rating(
    migrated: pathlib.Path,
    cli_product: tuple[sa.Engine, int, int],
    capsys: pytest.CaptureFixture[str],
    rating: str,
) -> None:
    _, product, _ = cli_product
    assert run([str(migrated), *review_args(product, rating=rating)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--rating" in captured.err


def test_add_review_unknown_product(
    migrated: pathlib.Path,
    cli_product: tuple[sa.Engine, int, int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    engine, product, variation = cli_product
    assert run([str(migrated), *review_args(product + 100)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err.strip()) == (
        "",
        f"shopsvc add-review: no product with id {product + 100}",
    )
    assert run([str(migrated), *review_args(variation)]) == 2
    assert "variation" in capsys.readouterr().err
    assert run([str(migrated), *review_args(0)[:2], "abc", *review_args(0)[3:]]) == 2
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM reviews").scalar_one() == 0


# --- users and keys: duplicate emails, list-keys, revoke-key


def create_user(
    ini: pathlib.Path, login: str, email: str, role: str = "administrator"
) -> list[str]:
    return [str(ini), "create-user", "--login", login, "--email", email, "--role", role]


def user_count(ini: pathlib.Path) -> int:
    engine = _engine(ini)
    with engine.connect() as conn:
        count = conn.execute(sa.select(sa.func.count()).select_from(users)).scalar_one()
    engine.dispose()
    return int(count)


def test_duplicate_email(migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(create_user(migrated, "ann", "Ann@Example.com")) == 0
    capsys.readouterr()
    assert run(create_user(migrated, "ann2", " ann@example.COM ")) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == (
        "shopsvc create-user: a user with email 'ann@example.COM' already exists"
    )
    assert user_count(migrated) == 1


def test_the_database_refuses_a_duplicate_email_too(migrated: pathlib.Path) -> None:
    engine = _engine(migrated)
    row = {"role": "customer", "created_at": dt.datetime(2024, 1, 1)}
    row["updated_at"] = row["created_at"]
    with engine.begin() as conn:
        conn.execute(sa.insert(users).values(login="a", email="x@example.com", **row))
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
        conn.execute(sa.insert(users).values(login="b", email="X@EXAMPLE.COM", **row))
    engine.dispose()


def make_key(ini: pathlib.Path, login: str, capsys: pytest.CaptureFixture[str], *extra: str) -> Any:
    argv = [str(ini), "create-key", "--user", login, "--permissions", "read_write", *extra]
    assert run(argv) == 0
    return output(capsys)[0]


def test_list_keys(migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([str(migrated), "list-keys"]) == 0
    assert lines(capsys) == ([], "")  # no key yet: nothing printed
    assert run(create_user(migrated, "ann", "ann@example.com")) == 0
    assert run(create_user(migrated, "bob", "bob@example.com", "customer")) == 0
    capsys.readouterr()
    first = make_key(migrated, "ann", capsys, "--description", "ERP")
    second = make_key(migrated, "bob", capsys)
    third = make_key(migrated, "ann", capsys)

    assert run([str(migrated), "list-keys"]) == 0
    records, err = lines(capsys)
    assert err == ""
    assert [r["key_id"] for r in records] == [first["key_id"], second["key_id"], third["key_id"]]
    record = records[0]
    created = record.pop("created_at")
    assert TIMESTAMP.fullmatch(created)
    assert record == {
        "key_id": first["key_id"],
        "user_id": 1,
        "login": "ann",
        "description": "ERP",
        "permissions": "read_write",
        "truncated_key": first["consumer_key"][-7:],
        "last_access": None,
    }
    printed = json.dumps(records)
    for key in (first, second, third):  # never a secret, a key or its hash
        assert key["consumer_secret"] not in printed
        assert key["consumer_key"] not in printed
        assert hash_consumer_key(key["consumer_key"]) not in printed
        assert key["consumer_secret"][3:] not in printed

    assert run([str(migrated), "list-keys", "--user", "bob"]) == 0
    records, _ = lines(capsys)
    assert [(r["key_id"], r["login"]) for r in records] == [(second["key_id"], "bob")]

    assert run([str(migrated), "list-keys", "--user", "nobody"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err.strip()) == (
        "",
        "shopsvc list-keys: no user with login 'nobody'",
    )


def test_list_keys_shows_the_last_access(
    migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(create_user(migrated, "ann", "ann@example.com")) == 0
    capsys.readouterr()
    key = make_key(migrated, "ann", capsys)
    app = _app(migrated)
    try:
        app.authorization = ("Basic", (key["consumer_key"], key["consumer_secret"]))
        app.get(f"{ROOT}/webhooks/count", status=200)
    finally:
        app.app.registry.engine.dispose()
    assert run([str(migrated), "list-keys"]) == 0
    [record], _ = lines(capsys)
    assert TIMESTAMP.fullmatch(record["last_access"])


def test_revoke_key(migrated: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(create_user(migrated, "ann", "ann@example.com")) == 0
    capsys.readouterr()
    kept = make_key(migrated, "ann", capsys)
    revoked = make_key(migrated, "ann", capsys)
    app = _app(migrated)
    try:
        app.authorization = ("Basic", (revoked["consumer_key"], revoked["consumer_secret"]))
        app.get(f"{ROOT}/webhooks/count", status=200)

        assert run([str(migrated), "revoke-key", "--key-id", str(revoked["key_id"])]) == 0
        assert output(capsys) == ({"key_id": revoked["key_id"], "revoked": True}, "")
        app.get(f"{ROOT}/webhooks/count", status=401)
        app.authorization = ("Basic", (kept["consumer_key"], kept["consumer_secret"]))
        app.get(f"{ROOT}/webhooks/count", status=200)
    finally:
        app.app.registry.engine.dispose()
    assert run([str(migrated), "list-keys"]) == 0
    assert [r["key_id"] for r in lines(capsys)[0]] == [kept["key_id"]]

    for key_id in (str(revoked["key_id"]), "999", "99999999999", "-1"):
        assert run([str(migrated), "revoke-key", "--key-id", key_id]) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err.strip()) == (
            "",
            f"shopsvc revoke-key: no key with id {key_id}",
        )
    assert run([str(migrated), "revoke-key", "--key-id", "abc"]) == 2
    assert run([str(migrated), "revoke-key"]) == 2


# --- one clear line, exit status 2, no traceback


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    return captured.err.strip()


def test_a_bad_setting(
    migrated: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOPSVC_PAGE_SIZE", "abc")
    assert run([str(migrated), "list-keys"]) == 2
    assert one_line_error(capsys) == (
        "shopsvc: bad setting: shopsvc.page_size: 'abc' is not an integer"
        " (from the environment variable SHOPSVC_PAGE_SIZE)"
    )
    monkeypatch.delenv("SHOPSVC_PAGE_SIZE")
    with migrated.open("a") as ini:
        ini.write("shopsvc.auto_migrate = maybe\n")
    assert run([str(migrated), "migrate"]) == 2
    assert one_line_error(capsys) == (
        "shopsvc: bad setting: shopsvc.auto_migrate: 'maybe' is not a boolean"
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:////nonexistent/folder/shop.sqlite", "unable to open database file"),
        ("postgresql://shop:secret@127.0.0.1:1/shop", "127.0.0.1"),
        ("nonsense", "Could not parse"),
    ],
    ids=["sqlite", "postgresql", "bad-url"],
)
def test_an_unreachable_database(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], url: str, expected: str
) -> None:
    ini = tmp_path / "test.ini"
    ini.write_text(f"[app:main]\nuse = egg:shopsvc\nsqlalchemy.url = {url}\n")
    for command in ("migrate", "list-keys"):
        assert run([str(ini), command]) == 2
        message = one_line_error(capsys)
        assert message.startswith("shopsvc: cannot ")
        assert expected in message
        assert "secret" not in message  # the password is not shown


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("garbage.ini", "not an ini file\n"),
        ("no-app.ini", "[server:main]\nuse = egg:waitress#main\n"),
        ("bad-interpolation.ini", "[app:main]\nuse = egg:shopsvc\nx = %(missing)s\n"),
        ("bad-logging.ini", "[app:main]\nuse = egg:shopsvc\n[loggers]\nkeys = root\n"),
        ("config.txt", "[app:main]\nuse = egg:shopsvc\n"),
    ],
)
def test_an_unusable_ini(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert run([str(path), "migrate"]) == 2
    assert one_line_error(capsys).startswith(f"shopsvc: cannot read {path}: ")


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Undo what ``logging.config.fileConfig`` does to the process (levels, handlers, loggers
    it disabled)."""
    root = logging.getLogger()
    saved_root = (root.level, list(root.handlers))
    loggers = {
        name: (logger.level, logger.disabled, list(logger.handlers), logger.propagate)
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    yield
    root.setLevel(saved_root[0])
    root.handlers[:] = saved_root[1]
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if not isinstance(logger, logging.Logger):
            continue
        level, disabled, handlers, propagate = loggers.get(name, (logging.NOTSET, False, [], True))
        logger.setLevel(level)
        logger.disabled = disabled
        logger.handlers[:] = handlers
        logger.propagate = propagate


@pytest.mark.usefixtures("restore_logging")
def test_alembic_info_lines_do_not_appear(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the development.ini logging: the root logger at INFO on stderr
    ini = tmp_path / "development.ini"
    logging_section = (ROOT_DIR / "development.ini").read_text().partition("# logging")[2]
    ini.write_text(
        "[app:main]\nuse = egg:shopsvc\nsqlalchemy.url = sqlite:///%(here)s/shop.sqlite\n"
        "###\n# logging" + logging_section
    )
    assert run([str(ini), "migrate"]) == 0
    record, err = output(capsys)
    assert record == {"revision": head_revision()}
    assert "alembic" not in err and "INFO" not in err
    assert err.startswith("No API key exists yet.")  # the first-run hint
    assert run(create_user(ini, "ann", "ann@example.com")) == 0
    assert "INFO" not in capsys.readouterr().err
    logging.getLogger("shopsvc.test").info("shown")  # the ini's logging is in force
    assert "INFO     [shopsvc.test] shown" in capsys.readouterr().err  # the full level name


# --- the first-run hint


def test_migrate_says_how_to_get_a_key(
    ini: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([str(ini), "migrate"]) == 0
    _, err = output(capsys)
    assert err.splitlines() == [
        "No API key exists yet. Create an administrator and a key with:",
        "  shopsvc test.ini create-user --login admin --email admin@example.com"
        " --role administrator",
        "  shopsvc test.ini create-key --user admin --permissions read_write",
    ]
    assert run(create_user(ini, "admin", "admin@example.com")) == 0
    capsys.readouterr()
    make_key(ini, "admin", capsys)
    assert run([str(ini), "migrate"]) == 0
    assert output(capsys)[1] == ""


def test_a_fresh_server_logs_the_hint(
    tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    settings = {"sqlalchemy.url": url, "shopsvc.auto_migrate": "true"}
    with caplog.at_level(logging.WARNING, logger="shopsvc"):
        app = app_main({"__file__": str(tmp_path / "shop.ini")}, **settings)
    app.registry.engine.dispose()
    [record] = [r for r in caplog.records if r.name == "shopsvc"]
    assert record.getMessage().splitlines()[1] == (
        "  shopsvc shop.ini create-user --login admin --email admin@example.com"
        " --role administrator"
    )
    ini = tmp_path / "shop.ini"
    ini.write_text(f"[app:main]\nuse = egg:shopsvc\nsqlalchemy.url = {url}\n")
    assert run(create_user(ini, "admin", "admin@example.com")) == 0
    capsys.readouterr()
    make_key(ini, "admin", capsys)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="shopsvc"):
        app = app_main({"__file__": str(ini)}, **settings)
    app.registry.engine.dispose()
    assert [r for r in caplog.records if r.name == "shopsvc"] == []
    # without auto_migrate the server neither migrates nor hints
    bare = app_main({}, **{"sqlalchemy.url": f"sqlite:///{tmp_path / 'bare.sqlite'}"})
    bare.registry.engine.dispose()
    assert [r for r in caplog.records if r.name == "shopsvc"] == []
    assert current_revision(_engine_for(tmp_path / "bare.sqlite")) is None


# --- migration 0003: one user per email


def test_migration_0003_refuses_duplicate_emails(
    ini: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = _engine(ini)
    with engine.begin() as conn:
        migration(conn, "upgrade", "0002")
        stamp = dt.datetime(2024, 1, 1)
        for login, email in [("a", "same@example.com"), ("b", "Same@Example.com"), ("c", "c@x")]:
            conn.execute(
                sa.insert(users).values(
                    login=login, email=email, role="customer", created_at=stamp, updated_at=stamp
                )
            )
    assert run([str(ini), "migrate"]) == 2
    message = one_line_error(capsys)
    assert message.startswith("shopsvc migrate: cannot make user emails unique")
    assert "same@example.com" in message
    assert current_revision(engine) == "0002"
    with engine.begin() as conn:
        conn.execute(sa.update(users).where(users.c.login == "b").values(email="b@example.com"))
    assert run([str(ini), "migrate"]) == 0
    assert output(capsys)[0] == {"revision": head_revision()}
    engine.dispose()
