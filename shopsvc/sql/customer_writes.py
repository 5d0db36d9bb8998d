"""Writes of customer profiles: the addresses an order copies to its customer's profile."""

from __future__ import annotations

import datetime as dt
import json

from sqlalchemy import Connection, insert, update

from shopsvc.sql.customers import get_profile
from shopsvc.sql.tables import customer_profiles


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
