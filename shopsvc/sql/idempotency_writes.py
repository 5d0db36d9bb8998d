"""The writes of the idempotency keys (``shopsvc.web.idempotency``): a key claimed at the start
of a request's transaction, its response stored at the end, the expired ones pruned."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Connection, delete, update
from sqlalchemy.dialects import postgresql, sqlite

from shopsvc.sql.tables import idempotency_keys


def claim(
    conn: Connection,
    key_id: int,
    key: str,
    fingerprint: str,
    now: dt.datetime,
    expires_at: dt.datetime,
) -> int | None:
    """Claim consumer key ``key_id``'s ``key`` for this transaction: a new row, or the expired
    row of an earlier use taken over (an expired key is new). Returns the row's id, or None when
    a live row holds the key (the caller reads it: a replay or a mismatch).

    On PostgreSQL a row another transaction has claimed but not committed makes this statement
    wait for that transaction (the unique index): committed, the row is found live; rolled back,
    the key is claimed here. SQLite's writers never overlap (``BEGIN IMMEDIATE``)."""
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    statement = insert(idempotency_keys).values(
        key_id=key_id,
        idempotency_key=key,
        fingerprint=fingerprint,
        created_at=now,
        expires_at=expires_at,
    )
    statement = statement.on_conflict_do_update(
        index_elements=[idempotency_keys.c.key_id, idempotency_keys.c.idempotency_key],
        set_={
            "fingerprint": fingerprint,
            "status": None,
            "headers": None,
            "body": None,
            "created_at": now,
            "expires_at": expires_at,
        },
        where=idempotency_keys.c.expires_at <= now,
    ).returning(idempotency_keys.c.id)
    return conn.execute(statement).scalar()


def store_response(conn: Connection, row_id: int, status: int, headers: str, body: bytes) -> None:
    """Give the claimed row ``row_id`` its response (in the transaction that claimed it)."""
    conn.execute(
        update(idempotency_keys)
        .where(idempotency_keys.c.id == row_id)
        .values(status=status, headers=headers, body=body)
    )


def prune(conn: Connection, now: dt.datetime) -> int:
    """Delete the keys expired at ``now``; how many."""
    result = conn.execute(delete(idempotency_keys).where(idempotency_keys.c.expires_at <= now))
    return result.rowcount
