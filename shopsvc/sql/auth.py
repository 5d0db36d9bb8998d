"""Users, consumer keys and OAuth nonces."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from sqlalchemy import (
    BindParameter,
    Connection,
    Delete,
    Select,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from shopsvc.sql.prepared import Prepared
from shopsvc.sql.tables import api_keys, oauth_nonces, users

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


def touch_key(
    conn: Connection, key_id: int, last_access: dt.datetime | None, now: dt.datetime
) -> bool:
    """Write ``last_access`` when it :func:`needs_touch`; whether it did."""
    if not needs_touch(last_access, now):
        return False
    conn.execute(update(api_keys).where(api_keys.c.id == key_id).values(last_access=now))
    return True


def use_nonce(conn: Connection, key_id: int, nonce: str, expires_at: int, now: int) -> bool:
    """Record ``nonce`` for the key; False when it was already used and has not expired.

    The (key, nonce) primary key makes the check race-free: of two concurrent requests with the
    same nonce exactly one inserts. The nonce is stored as its SHA-256 digest, so a client's nonce
    of any length fits the column."""
    purge_nonces(conn, now)
    digest = hashlib.sha256(nonce.encode("utf-8")).hexdigest()
    try:
        with conn.begin_nested():
            conn.execute(
                insert(oauth_nonces).values(key_id=key_id, nonce=digest, expires_at=expires_at)
            )
    except IntegrityError:
        return False
    return True


def purge_nonces_query(now: int) -> Delete:
    """The expired OAuth nonces (every request signed with OAuth purges them)."""
    return delete(oauth_nonces).where(oauth_nonces.c.expires_at < now)


def purge_nonces(conn: Connection, now: int) -> None:
    conn.execute(purge_nonces_query(now))


def user_by_login(conn: Connection, login: str) -> dict[str, Any] | None:
    row = conn.execute(select(users).where(users.c.login == login)).mappings().first()
    return dict(row) if row else None


def user_by_email(conn: Connection, email: str) -> dict[str, Any] | None:
    """The user with this email address, compared case-insensitively."""
    query = select(users).where(func.lower(users.c.email) == email.lower())
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


def create_user(conn: Connection, values: dict[str, Any], now: dt.datetime) -> dict[str, Any]:
    """Insert a user; raises IntegrityError when the login or the email is taken."""
    row = (
        conn.execute(
            insert(users).values(**values, created_at=now, updated_at=now).returning(users)
        )
        .mappings()
        .one()
    )
    return dict(row)


def create_key(conn: Connection, values: dict[str, Any], now: dt.datetime) -> int:
    result = conn.execute(
        insert(api_keys).values(**values, created_at=now).returning(api_keys.c.id)
    )
    return int(result.scalar_one())


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


def delete_key(conn: Connection, key_id: int) -> bool:
    """Delete a consumer key (its nonces go with it); False when there is no such key."""
    result = conn.execute(delete(api_keys).where(api_keys.c.id == key_id))
    return bool(result.rowcount)
