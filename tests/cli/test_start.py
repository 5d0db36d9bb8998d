"""What the ``shopsvc`` command loads (issue 26, item 1): ``--help`` nothing heavy, a command on a
schema at its latest migration neither Alembic nor Pyramid nor the delivery worker. Each runs in
a fresh interpreter, as the console script does (``bench/cli_start.py`` times them)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory

from shopsvc.db.schema import MIGRATIONS, current_revision, head_revision
from shopsvc.sql.tables import api_keys
from shopsvc.testing.databases import user_with_key

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent.parent
#: The packages no command loads unless it uses them (``shopsvc.app``: the Pyramid app).
HEAVY = ("alembic", "pyramid", "webob", "sqlalchemy", "shopsvc.app", "shopsvc.delivery.worker")

#: Runs the console script's ``main`` with the arguments given, then prints (on stderr, after
#: whatever the command printed) which of the heavy modules it imported.
SCRIPT = f"""
import json, sys
from shopsvc.cli.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code or 0
loaded = sorted(
    name for name in {HEAVY!r}
    if any(module == name or module.startswith(name + ".") for module in sys.modules)
)
print("LOADED " + json.dumps(loaded), file=sys.stderr)
sys.exit(status)
"""


def _run(*args: str) -> tuple[int, str, list[str]]:
    """Exit status, stdout and the heavy modules loaded by ``shopsvc ARGS`` in a new process."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT_DIR)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, env=environ
    )
    loaded = result.stderr.rpartition("LOADED ")[2]
    return result.returncode, result.stdout, json.loads(loaded)


def _ini(folder: pathlib.Path, url: str, auto_migrate: str) -> pathlib.Path:
    ini = folder / "shop.ini"
    ini.write_text(
        "[app:main]\nuse = egg:shopsvc\n"
        f"sqlalchemy.url = {url.replace('%', '%%')}\n"
        f"shopsvc.auto_migrate = {auto_migrate}\n"
    )
    return ini


def test_help_loads_nothing_heavy(tmp_path: pathlib.Path) -> None:
    status, out, loaded = _run(str(tmp_path / "shop.ini"), "--help")
    assert status == 0
    assert out.startswith("usage: shopsvc [-h] config_uri COMMAND")
    assert "create-key" in out and "explain" in out and "media" in out
    assert loaded == []


def test_a_subcommand_help_loads_nothing_heavy(tmp_path: pathlib.Path) -> None:
    status, out, loaded = _run(str(tmp_path / "shop.ini"), "media", "prune", "--help")
    assert status == 0
    assert "--older-than SECONDS" in out
    assert loaded == []


def test_create_key_on_a_current_schema_loads_neither_alembic_nor_pyramid(
    engine: sa.Engine, database_url: str, tmp_path: pathlib.Path
) -> None:
    user_with_key(engine, "ann", "administrator", "read")
    for auto_migrate in ("true", "false"):
        ini = _ini(tmp_path, database_url, auto_migrate)
        status, out, loaded = _run(
            str(ini), "create-key", "--user", "ann", "--permissions", "write"
        )
        assert status == 0
        record = json.loads(out)
        assert record["permissions"] == "write"
        with engine.connect() as conn:
            stored = conn.execute(
                sa.select(api_keys.c.permissions).where(api_keys.c.id == record["key_id"])
            ).scalar_one()
        assert stored == "write"
        assert loaded == ["sqlalchemy"]


def test_a_schema_behind_is_migrated_with_alembic(tmp_path: pathlib.Path) -> None:
    ini = _ini(tmp_path, f"sqlite:///{tmp_path / 'fresh.sqlite'}", "true")
    status, out, loaded = _run(str(ini), "list-keys")
    assert (status, out) == (0, "")
    assert loaded == ["alembic", "sqlalchemy"]
    fresh = sa.create_engine(f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    assert current_revision(fresh) == head_revision()
    fresh.dispose()


def test_the_head_revision_is_alembics() -> None:
    # read from the scripts' text without Alembic: the same answer as Alembic's own reading
    assert head_revision() == ScriptDirectory(MIGRATIONS).get_current_head()


def test_a_script_the_text_reading_misses_is_left_to_alembic(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, migrations, ignore=shutil.ignore_patterns("__pycache__"))
    (migrations / "versions" / "0999_annotated.py").write_text(
        '"""A revision declared with annotations."""\n\n'
        'revision: str = "0999"\n'
        f'down_revision: str | None = "{head_revision()}"\n\n\n'
        "def upgrade() -> None:\n    pass\n"
    )
    monkeypatch.setattr("shopsvc.db.schema.MIGRATIONS", str(migrations))
    assert head_revision() == "0999"
