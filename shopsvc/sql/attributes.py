"""Global product attributes (``attributes``; the slug is stored without ``pa_``): one
attribute, the list and a slug's owner. Rows come back as plain dicts ``{id, name, slug, type,
order_by, has_archives}``. The writes are in ``sql.attribute_writes``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Select, select

from shopsvc.sql.tables import (
    attributes,
)

_COLUMNS = (
    attributes.c.id,
    attributes.c.name,
    attributes.c.slug,
    attributes.c.type,
    attributes.c.order_by,
    attributes.c.has_archives,
)


def _dict(row: Any) -> dict[str, Any]:
    record = dict(row)
    record["has_archives"] = bool(record["has_archives"])
    return record


def get(conn: Connection, attribute_id: int) -> dict[str, Any] | None:
    row = conn.execute(select(*_COLUMNS).where(attributes.c.id == attribute_id)).mappings().first()
    return _dict(row) if row else None


def list_query() -> Select[Any]:
    """Every global attribute with a slug."""
    return select(*_COLUMNS).where(attributes.c.slug != "").order_by(attributes.c.id)


def list_all(conn: Connection) -> list[dict[str, Any]]:
    """Every attribute with a slug, by slug (then id)."""
    rows = [_dict(row) for row in conn.execute(list_query()).mappings()]
    # Sorted here, not by the database's collation, so every database gives the same order.
    return sorted(rows, key=lambda row: (row["slug"], row["id"]))


def slug_owner(conn: Connection, slug: str) -> int | None:
    found = conn.execute(select(attributes.c.id).where(attributes.c.slug == slug)).scalar()
    return None if found is None else int(found)
