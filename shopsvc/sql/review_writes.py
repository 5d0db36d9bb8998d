"""Writes of product reviews: adding one (the ``add-review`` command)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from shopsvc.sql.tables import reviews


def insert(conn: Connection, values: dict[str, Any], now: dt.datetime) -> int:
    """A new review from ``product_id``, ``reviewer_name``, ``reviewer_email``, ``review`` and
    optionally ``rating``, ``verified``, ``approved``; its id."""
    statement = sa.insert(reviews).values(**{"created_at": now, **values}).returning(reviews.c.id)
    return int(conn.execute(statement).scalar_one())
