"""Writes of global product attributes. The slug is unique (a unique index): an insert that
collides returns None, a slug change False, instead of raising (``sql.common.in_savepoint``), so
the caller can answer with the spec's 400.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection, select

from shopsvc.sql.common import in_savepoint
from shopsvc.sql.tables import (
    attribute_terms,
    attributes,
    product_attributes,
    products,
    variation_attributes,
)


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
