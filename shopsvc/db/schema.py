"""The schema's migrations (Alembic): migrate to head, the current and the head revision.

Alembic is imported only to migrate: the revision a database is at is read from Alembic's
``alembic_version`` table directly, and the latest one from the migration scripts' ``revision``
and ``down_revision`` lines, so that starting on a schema already at its latest migration (every
``shopsvc`` command, every ``pserve`` but a release's first) loads neither Alembic nor the
scripts. Each migration applied is one INFO line of ``shopsvc.db.schema`` (its file's name);
Alembic's own INFO lines (its plugins, its context, each script's docstring) are kept out of the
log unless the ``alembic`` logger is given a level of its own in the ini.
"""

from __future__ import annotations

import contextlib
import logging
import pathlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, column, inspect, select, table

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig

MIGRATIONS = str(pathlib.Path(__file__).parent.parent / "migrations")
#: Alembic's record of the revision a database is at.
VERSION_TABLE = "alembic_version"

log = logging.getLogger(__name__)

_DECLARED = re.compile(r"^(revision|down_revision)\s*=\s*[\"']([^\"']+)[\"']\s*$", re.MULTILINE)


def _alembic_config(connection: Connection) -> AlembicConfig:
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", MIGRATIONS)
    config.attributes["connection"] = connection
    config.attributes["on_version_apply"] = [_applied]
    return config


def _applied(*, step: Any, **_: Any) -> None:
    """Alembic's ``on_version_apply``: one line per migration (``migrations/env.py``)."""
    script = step.up_revision if step.is_upgrade else None
    name = pathlib.Path(script.path).stem if script is not None and script.path else None
    if step.is_upgrade:
        log.info("schema migrated to %s", name or step.up_revision_id)
    else:
        log.info("schema migrated down from %s", step.up_revision_id)


@contextlib.contextmanager
def _alembic_quiet() -> Iterator[None]:
    """Alembic's INFO lines held back while it runs, unless its logger has a level of its own."""
    alembic_log = logging.getLogger("alembic")
    if alembic_log.level != logging.NOTSET:
        yield
        return
    alembic_log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        alembic_log.setLevel(logging.NOTSET)


class MigrationError(Exception):
    """A migration that cannot run (Alembic's ``CommandError``: e.g. a database at a revision
    these scripts do not know)."""


def migrate(engine: Engine) -> str:
    """Bring the schema to the latest migration; return the revision reached."""
    head = head_revision()
    if head is not None and current_revision(engine) == head:
        return head
    with _alembic_quiet(), engine.begin() as connection:
        from alembic import command
        from alembic.util import CommandError

        try:
            command.upgrade(_alembic_config(connection), "head")
        except CommandError as exc:
            raise MigrationError(str(exc)) from exc
    return current_revision(engine) or ""


def revisions(engine: Engine) -> set[str]:
    """The revisions the database's schema is at (empty when it was never migrated)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table(VERSION_TABLE):
            return set()
        versions = table(VERSION_TABLE, column("version_num"))
        return set(conn.execute(select(versions.c.version_num)).scalars())


def current_revision(engine: Engine) -> str | None:
    """The revision the schema is at (None when never migrated; the revisions joined by ``,``
    should a database be at several)."""
    return ",".join(sorted(revisions(engine))) or None


def head_revision() -> str | None:
    """The latest migration's revision: the one no script names as its ``down_revision``, read
    from the scripts' text; Alembic's reading of them when that is not one revision."""
    declared: set[str] = set()
    revised: set[str] = set()
    scripts = sorted(pathlib.Path(MIGRATIONS, "versions").glob("*.py"))
    for script in scripts:
        found = dict(_DECLARED.findall(script.read_text(encoding="utf-8")))
        if "revision" not in found:
            break
        declared.add(found["revision"])
        if "down_revision" in found:
            revised.add(found["down_revision"])
    else:
        heads = declared - revised
        if len(declared) == len(scripts) and len(heads) == 1:
            return heads.pop()
    from alembic.script import ScriptDirectory

    return ScriptDirectory(MIGRATIONS).get_current_head()
