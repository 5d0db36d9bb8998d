"""Users, consumer keys and OAuth nonces: reads (a key by its consumer-key hash, a user by
login or email, the keys), and the channel that tells the key caches of a change. The writes are
in ``sql.auth_writes``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    BindParameter,
    Connection,
    Select,
    bindparam,
    func,
    select,
)

from shopsvc.sql.prepared import Prepared
from shopsvc.sql.tables import api_keys, users

#: The channel on which the triggers of migration 0008 tell of a change to a key or its user
#: (``shopsvc.auth.key_cache``): the key's hash, ``user:<id>``, or ``*``.
KEYS_CHANNEL = "shopsvc_keys"


def notify_keys(conn: Connection, payload: str) -> None:
    """Send ``payload`` on :data:`KEYS_CHANNEL` (delivered when ``conn`` commits)."""
    conn.execute(select(func.pg_notify(KEYS_CHANNEL, payload)))


# last_access is written at most once a minute per key, so reads do not all become writes.
LAST_ACCESS_RESOLUTION = dt.timedelta(minutes=1)


def find_key_query(key_hash: str | BindParameter[str]) -> Select[Any]:
    """The key with this consumer-key hash, with its user's login and role."""
    return (
        select(
            api_keys.c.id.label("key_id"),
            api_keys.c.user_id,
            api_keys.c.permissions,
            api_keys.c.consumer_secret,
            api_keys.c.last_access,
            users.c.login,
            users.c.role,
        )
        .select_from(api_keys.outerjoin(users, users.c.id == api_keys.c.user_id))
        .where(api_keys.c.consumer_key_hash == key_hash)
    )


def find_key(conn: Connection, key_hash: str) -> dict[str, Any] | None:
    """The key with this consumer-key hash, with its user's login and role (None if the user
    is gone)."""
    rows = _FIND_KEY.mappings(conn, {"key_hash": key_hash})
    return rows[0] if rows else None


#: Every authenticated request runs it: built and compiled once.
_FIND_KEY = Prepared(find_key_query(bindparam("key_hash")))


def needs_touch(last_access: dt.datetime | None, now: dt.datetime) -> bool:
    """True when ``last_access`` is unset or older than its resolution."""
    return last_access is None or now - last_access >= LAST_ACCESS_RESOLUTION


def user_by_login(conn: Connection, login: str) -> dict[str, Any] | None:
    row = conn.execute(select(users).where(users.c.login == login)).mappings().first()
    return dict(row) if row else None


def user_by_email(conn: Connection, email: str) -> dict[str, Any] | None:
    """The user with this email address, compared case-insensitively."""
    query = select(users).where(func.lower(users.c.email) == email.lower())
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


def key_count(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(api_keys)).scalar_one())


def list_keys(conn: Connection, user_id: int | None = None) -> list[dict[str, Any]]:
    """Every consumer key (or one user's), oldest first, with its user's login: ``key_id``,
    ``user_id``, ``login``, ``description``, ``permissions``, ``truncated_key``, ``last_access``,
    ``created_at``. Neither the secret nor the key's hash is read."""
    query = (
        select(
            api_keys.c.id.label("key_id"),
            api_keys.c.user_id,
            users.c.login,
            api_keys.c.description,
            api_keys.c.permissions,
            api_keys.c.truncated_key,
            api_keys.c.last_access,
            api_keys.c.created_at,
        )
        .select_from(api_keys.outerjoin(users, users.c.id == api_keys.c.user_id))
        .order_by(api_keys.c.id)
    )
    if user_id is not None:
        query = query.where(api_keys.c.user_id == user_id)
    return [dict(row) for row in conn.execute(query).mappings()]
