"""The schema's migrations (Alembic): migrate to head, the current and the head revision."""

from __future__ import annotations

import pathlib

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

MIGRATIONS = str(pathlib.Path(__file__).parent.parent / "migrations")


def _alembic_config(connection: Connection) -> AlembicConfig:
    config = AlembicConfig()
    config.set_main_option("script_location", MIGRATIONS)
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine) -> str:
    """Bring the schema to the latest migration; return the revision reached."""
    with engine.begin() as connection:
        command.upgrade(_alembic_config(connection), "head")
    return current_revision(engine) or ""


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    return ScriptDirectory(MIGRATIONS).get_current_head()
