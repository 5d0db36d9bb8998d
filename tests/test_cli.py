"""The ``shopsvc CONFIG_URI COMMAND`` console script (decisions.md §1): each command that creates
something prints it as one line of JSON; bad arguments exit with status 2 and a message.

These run once, on a temporary SQLite file (the ``engine`` fixture is not used)."""

from __future__ import annotations

import datetime as dt
import json
import pathlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc import main as app_main
from shopsvc.cli import main
from shopsvc.db import head_revision
from shopsvc.security import hash_consumer_key
from shopsvc.sql.tables import api_keys, users
from tests.catalog_factory import CatalogFactory

ROOT = "/shop-api/v3"


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


def run(argv: Sequence[str]) -> int:
    """The exit status the console script would have (argparse exits by SystemExit)."""
    try:
        return main(list(argv))
    except SystemExit as exit:
        return int(exit.code or 0)


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


def _engine(ini: pathlib.Path) -> sa.Engine:
    return sa.create_engine(f"sqlite:///{ini.parent / 'shop.sqlite'}")


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
