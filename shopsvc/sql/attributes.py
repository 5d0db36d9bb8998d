"""Global product attributes (``attributes``; the slug is stored without ``pa_``).

Rows come back as plain dicts ``{id, name, slug, type, order_by, has_archives}``. The slug is
unique (a unique index): an insert that collides returns None, a slug change False, instead of
raising (``sql.common.in_savepoint``), so the caller can answer with the spec's 400.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection, Select, select

from shopsvc.sql.common import in_savepoint
from shopsvc.sql.tables import (
    attribute_terms,
    attributes,
    product_attributes,
    products,
    variation_attributes,
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


def insert(conn: Connection, values: dict[str, Any]) -> int | None:
    """Insert an attribute in a savepoint; its id, or None when the slug is taken."""
    statement = sa.insert(attributes).values(**values).returning(attributes.c.id)
    found = in_savepoint(conn, lambda: int(conn.execute(statement).scalar_one()))
    return None if found is False else found


def update(conn: Connection, attribute_id: int, values: dict[str, Any]) -> bool:
    """Update an attribute in a savepoint; False when the new slug is taken.

    When the slug changes, the variations of products that use the attribute follow it (their
    attribute values are keyed by the slug).
    """
    if not values:
        return True

    def write() -> None:
        old_slug = conn.execute(
            select(attributes.c.slug).where(attributes.c.id == attribute_id)
        ).scalar()
        conn.execute(sa.update(attributes).where(attributes.c.id == attribute_id).values(**values))
        new_slug = values.get("slug", old_slug)
        if old_slug is not None and new_slug != old_slug:
            _rename_variation_keys(conn, attribute_id, old_slug, new_slug)

    return in_savepoint(conn, write) is not False


def _rename_variation_keys(conn: Connection, attribute_id: int, old: str, new: str) -> None:
    users = select(product_attributes.c.product_id).where(
        product_attributes.c.attribute_id == attribute_id
    )
    variations = select(products.c.id).where(products.c.parent_id.in_(users))
    conn.execute(
        sa.update(variation_attributes)
        .where(
            variation_attributes.c.attribute_key == old,
            variation_attributes.c.variation_id.in_(variations),
        )
        .values(attribute_key=new)
    )


def delete(conn: Connection, attribute_id: int) -> bool:
    """Delete an attribute with all its terms (products lose them); False when nothing was
    deleted."""
    conn.execute(sa.delete(attribute_terms).where(attribute_terms.c.attribute_id == attribute_id))
    result = conn.execute(sa.delete(attributes).where(attributes.c.id == attribute_id))
    return result.rowcount > 0
