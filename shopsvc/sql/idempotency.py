"""The reads of the idempotency keys (``shopsvc.web.idempotency``): the row a repeated request
finds, before its transaction (a live one) or at its claim (the writes: ``idempotency_writes``)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Connection, RowMapping, select

from shopsvc.sql.tables import idempotency_keys


def get_key(
    conn: Connection, key_id: int, key: str, live_at: dt.datetime | None = None
) -> RowMapping | None:
    """The row of consumer key ``key_id``'s ``key`` (its fingerprint and stored response), or
    None; with ``live_at``, only a row that has not expired then (an expired key is new)."""
    live = () if live_at is None else (idempotency_keys.c.expires_at > live_at,)
    return (
        conn.execute(
            select(
                idempotency_keys.c.fingerprint,
                idempotency_keys.c.status,
                idempotency_keys.c.headers,
                idempotency_keys.c.body,
                idempotency_keys.c.expires_at,
            ).where(
                idempotency_keys.c.key_id == key_id,
                idempotency_keys.c.idempotency_key == key,
                *live,
            )
        )
        .mappings()
        .first()
    )
