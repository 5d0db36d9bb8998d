"""Users as order customers, and the customer profiles orders copy their addresses to:
reads. The writes are in ``sql.customer_writes``.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select

from shopsvc.sql.tables import customer_profiles, users


def get_user(conn: Connection, user_id: int) -> dict[str, Any] | None:
    """The ``users`` row ``user_id`` (id, email, names, role), or None."""
    row = conn.execute(select(users).where(users.c.id == user_id)).mappings().first()
    return dict(row) if row else None


def user_exists(conn: Connection, user_id: int) -> bool:
    return conn.execute(select(users.c.id).where(users.c.id == user_id)).first() is not None


def get_profile(conn: Connection, user_id: int) -> dict[str, dict[str, str]] | None:
    """``{"billing": {...}, "shipping": {...}}`` of the user's profile, or None."""
    row = (
        conn.execute(select(customer_profiles).where(customer_profiles.c.user_id == user_id))
        .mappings()
        .first()
    )
    if row is None:
        return None
    return {"billing": json.loads(row["billing"]), "shipping": json.loads(row["shipping"])}
