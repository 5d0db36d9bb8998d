"""Writes of customer profiles: the addresses orders copy to their customers' profiles (the
merged profiles computed by the order planner, ``writers.order_batch``), one statement each for
the new and the existing profiles of any number of customers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, update

from shopsvc.sql.common import insert_all
from shopsvc.sql.tables import customer_profiles

Row = dict[str, Any]


def insert_profiles(conn: Connection, rows: Sequence[Row]) -> None:
    """New profiles: ``user_id``, ``billing``, ``shipping`` (JSON), ``updated_at``."""
    insert_all(conn, customer_profiles, rows)


def update_profiles(conn: Connection, rows: Sequence[Row]) -> None:
    """``billing``, ``shipping`` (JSON) and ``updated_at`` of existing profiles (by
    ``user_id``)."""
    if not rows:
        return
    statement = (
        update(customer_profiles)
        .where(customer_profiles.c.user_id == bindparam("_user_id"))
        .values(
            billing=bindparam("_billing"),
            shipping=bindparam("_shipping"),
            updated_at=bindparam("_updated_at"),
        )
    )
    conn.execute(statement, [{f"_{k}": v for k, v in row.items()} for row in rows])
