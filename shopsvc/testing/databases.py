"""Scratch databases and credentials for the tests and the benchmarks."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from shopsvc.auth.keys import issue_key
from shopsvc.sql import auth_writes as auth_writes_sql
from shopsvc.sql.tables import utc_now


@contextmanager
def scratch_postgres(server_url: str, prefix: str) -> Iterator[str]:
    """A new database ``<prefix>_<random>`` on the server of ``server_url`` (any database name
    in it), dropped afterwards; yields its psycopg 3 URL. No other database is touched."""
    server = make_url(server_url).set(drivername="postgresql+psycopg")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def user_with_key(
    engine: sa.Engine, login: str, role: str, permissions: str
) -> tuple[int, int, str, str]:
    """Create a user and a key for it: ``(user id, key id, consumer key, consumer secret)``."""
    now = utc_now()
    with engine.begin() as conn:
        user = auth_writes_sql.create_user(
            conn, {"login": login, "email": f"{login}@example.com", "role": role}, now
        )
        key = issue_key(user["id"], permissions)
        key_id = auth_writes_sql.create_key(conn, key.row, now)
    return user["id"], key_id, key.consumer_key, key.consumer_secret
