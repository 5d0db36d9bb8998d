"""Users as order customers, and the customer profiles orders copy their addresses to."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sqlalchemy import Connection, insert, select, update

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


def upsert_profile(
    conn: Connection,
    user_id: int,
    billing: dict[str, str],
    shipping: dict[str, str],
    now: dt.datetime,
) -> None:
    """Merge the given address keys into the user's profile (created when missing)."""
    current = get_profile(conn, user_id)
    if current is None:
        conn.execute(
            insert(customer_profiles).values(
                user_id=user_id,
                billing=json.dumps(billing),
                shipping=json.dumps(shipping),
                updated_at=now,
            )
        )
        return
    conn.execute(
        update(customer_profiles)
        .where(customer_profiles.c.user_id == user_id)
        .values(
            billing=json.dumps({**current["billing"], **billing}),
            shipping=json.dumps({**current["shipping"], **shipping}),
            updated_at=now,
        )
    )
