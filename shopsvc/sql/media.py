"""``media`` rows: the stored images (``file`` is the path below ``shopsvc.media_dir``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, RowMapping, select, update
from sqlalchemy import insert as sa_insert

from shopsvc.sql.tables import media, utc_now


def insert(conn: Connection, values: dict[str, Any], now: dt.datetime | None = None) -> int:
    """A new row from ``file``, ``mime_type`` and optionally ``source_url``, ``title``, ``alt``;
    its id."""
    stamp = now or utc_now()
    statement = (
        sa_insert(media).values(**values, created_at=stamp, updated_at=stamp).returning(media.c.id)
    )
    return int(conn.execute(statement).scalar_one())


def get_many(conn: Connection, ids: Iterable[int]) -> dict[int, RowMapping]:
    """The rows of ``ids`` that exist, by id (one statement; none for an empty list)."""
    wanted = sorted({int(media_id) for media_id in ids})
    if not wanted:
        return {}
    rows = conn.execute(select(media).where(media.c.id.in_(wanted))).mappings()
    return {row["id"]: row for row in rows}


def get(conn: Connection, media_id: int) -> RowMapping | None:
    return get_many(conn, [media_id]).get(media_id)


def exists(conn: Connection, media_id: int) -> bool:
    statement = select(media.c.id).where(media.c.id == media_id)
    return conn.execute(statement).first() is not None


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
