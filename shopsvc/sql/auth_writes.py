"""Writes of users, consumer keys and OAuth nonces: a key's last access, a nonce used (and
the expired ones purged), a new user or key, a key deleted.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from sqlalchemy import (
    Connection,
    Delete,
    delete,
    insert,
    update,
)
from sqlalchemy.exc import IntegrityError

from shopsvc.sql.auth import needs_touch
from shopsvc.sql.tables import api_keys, oauth_nonces, users


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


def delete_key(conn: Connection, key_id: int) -> bool:
    """Delete a consumer key (its nonces go with it); False when there is no such key."""
    result = conn.execute(delete(api_keys).where(api_keys.c.id == key_id))
    return bool(result.rowcount)
