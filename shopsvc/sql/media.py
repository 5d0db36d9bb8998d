"""``media`` rows: the stored images (``file`` is the path below ``shopsvc.media_dir``):
reads. The writes are in ``sql.media_writes``.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, RowMapping, select

from shopsvc.sql.tables import media


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
