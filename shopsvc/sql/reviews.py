"""Product reviews: the approved reviews of a product, and one review. Adding one (the
``add-review`` command) is in ``sql.review_writes``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Select, select

from shopsvc.sql.tables import reviews

_COLUMNS = (
    reviews.c.id,
    reviews.c.product_id,
    reviews.c.created_at,
    reviews.c.review,
    reviews.c.rating,
    reviews.c.reviewer_name,
    reviews.c.reviewer_email,
    reviews.c.verified,
    reviews.c.approved,
)


def approved_query(product_id: int) -> Select[Any]:
    """The approved reviews of a product, oldest first (ties by id)."""
    return (
        select(*_COLUMNS)
        .where(reviews.c.product_id == product_id, reviews.c.approved.is_(True))
        .order_by(reviews.c.created_at, reviews.c.id)
    )


def approved(conn: Connection, product_id: int) -> list[dict[str, Any]]:
    """The approved reviews of a product, oldest first (ties by id)."""
    return [dict(row) for row in conn.execute(approved_query(product_id)).mappings()]


def get(conn: Connection, review_id: int) -> dict[str, Any] | None:
    row = conn.execute(select(*_COLUMNS).where(reviews.c.id == review_id)).mappings().first()
    return dict(row) if row else None
