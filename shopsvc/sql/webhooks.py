"""Webhook records."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, Connection, select

from shopsvc.sql import paging
from shopsvc.sql.paging import Listable, ListFilters
from shopsvc.sql.tables import webhooks

LISTABLE = Listable.dated(webhooks, {"name": webhooks.c.name}, search=(webhooks.c.name,))
_COLUMNS = (
    webhooks.c.id,
    webhooks.c.name,
    webhooks.c.status,
    webhooks.c.topic,
    webhooks.c.delivery_url,
    webhooks.c.created_at,
    webhooks.c.updated_at,
)


def _status_terms(status: str | None) -> list[ColumnElement[bool]]:
    return [] if status is None else [webhooks.c.status == status]


def get(conn: Connection, webhook_id: int) -> dict[str, Any] | None:
    row = conn.execute(select(*_COLUMNS).where(webhooks.c.id == webhook_id)).mappings().first()
    return dict(row) if row else None


def page(
    conn: Connection, params: ListFilters, status: str | None
) -> tuple[list[dict[str, Any]], int]:
    return paging.fetch_page(conn, select(*_COLUMNS), LISTABLE, params, _status_terms(status))


def count(conn: Connection, params: ListFilters, status: str | None) -> int:
    terms = [*_status_terms(status), *paging.common_filters(LISTABLE, params)]
    return paging.count(conn, select(webhooks.c.id), terms)


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
