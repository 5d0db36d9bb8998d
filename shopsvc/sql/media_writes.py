"""Writes of ``media`` rows: new stored images, and an image's title and alt text."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, update
from sqlalchemy import insert as sa_insert

from shopsvc.sql.media import exists
from shopsvc.sql.tables import media, utc_now


def insert(conn: Connection, values: dict[str, Any], now: dt.datetime | None = None) -> int:
    """A new row from ``file``, ``mime_type`` and optionally ``source_url``, ``title``, ``alt``;
    its id."""
    stamp = now or utc_now()
    statement = (
        sa_insert(media).values(**values, created_at=stamp, updated_at=stamp).returning(media.c.id)
    )
    return int(conn.execute(statement).scalar_one())


def insert_many(
    conn: Connection, rows: list[dict[str, Any]], now: dt.datetime | None = None
) -> list[int]:
    """:func:`insert` of each of ``rows`` (the same keys in each), in one statement; their ids,
    in order."""
    if not rows:
        return []
    stamp = now or utc_now()
    values = [{**row, "created_at": stamp, "updated_at": stamp} for row in rows]
    if conn.dialect.name == "postgresql":
        statement = sa_insert(media).returning(media.c.id, sort_by_parameter_order=True)
        return [int(i) for i in conn.execute(statement, values).scalars()]
    # SQLite numbers a multi-row VALUES in order; the RETURNING rows come in no promised order
    statement = sa_insert(media).returning(media.c.id)
    return sorted(int(i) for i in conn.execute(statement, values).scalars())


def update_text(
    conn: Connection,
    media_id: int,
    title: str | None = None,
    alt: str | None = None,
    now: dt.datetime | None = None,
) -> bool:
    """Set ``title`` and/or ``alt`` (None leaves a field as it is); True when the row exists."""
    values = {name: value for name, value in (("title", title), ("alt", alt)) if value is not None}
    if not values:
        return exists(conn, media_id)
    statement = (
        update(media).where(media.c.id == media_id).values(**values, updated_at=now or utc_now())
    )
    return conn.execute(statement).rowcount > 0
