"""The test databases: a scratch PostgreSQL database when ``SHOPSVC_TEST_POSTGRES_URL`` names a
server, SQLite without fsync, emptying every table between tests, and one migration command run
on a connection."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command as alembic_command
from alembic.config import Config as AlembicConfig
from sqlalchemy.engine import make_url

from shopsvc.db.schema import MIGRATIONS
from shopsvc.sql.tables import metadata
from shopsvc.testing.databases import scratch_postgres

POSTGRES_ENV = "SHOPSVC_TEST_POSTGRES_URL"


def postgres_database() -> Iterator[str]:
    """A scratch database on the server of ``SHOPSVC_TEST_POSTGRES_URL``, dropped afterwards
    (the test is skipped when it is not set, or fails when ``SHOPSVC_REQUIRE_POSTGRES`` is)."""
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


def sqlite_without_fsync(dbapi_connection: Any, _record: Any) -> None:
    """The test databases are thrown away: SQLite need not wait for the disk on each commit
    (what a test can observe does not change, only what a power cut would keep)."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.execute("PRAGMA synchronous = OFF")


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


def reset(engine: sa.Engine) -> None:
    """Empty every table of ``engine``'s database and restart the ids."""
    script = _reset_sql(engine)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(script)
        else:
            for statement in script.split("; "):
                conn.exec_driver_sql(statement)


def migration(conn: sa.Connection, verb: str, revision: str) -> None:
    """Run Alembic's ``verb`` (``upgrade``, ``downgrade``) to ``revision`` on ``conn``."""
    config = AlembicConfig()
    config.set_main_option("script_location", MIGRATIONS)
    config.attributes["connection"] = conn
    getattr(alembic_command, verb)(config, revision)
