"""Writes of webhook records."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from shopsvc.sql.tables import webhooks


def insert(conn: Connection, values: dict[str, Any], now: dt.datetime) -> int:
    statement = (
        sa.insert(webhooks)
        .values(**values, created_at=now, updated_at=now)
        .returning(webhooks.c.id)
    )
    return int(conn.execute(statement).scalar_one())


def update(conn: Connection, webhook_id: int, values: dict[str, Any], now: dt.datetime) -> None:
    conn.execute(
        sa.update(webhooks).where(webhooks.c.id == webhook_id).values(**values, updated_at=now)
    )


def delete(conn: Connection, webhook_id: int) -> bool:
    return conn.execute(sa.delete(webhooks).where(webhooks.c.id == webhook_id)).rowcount > 0
