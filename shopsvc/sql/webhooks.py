"""Webhook records: one webhook, a page of them and their count. The writes are in
``sql.webhook_writes``; the deliveries' outbox is ``sql.deliveries``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, select

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


def get_query(webhook_id: int) -> Select[Any]:
    """One webhook (without its secret)."""
    return select(*_COLUMNS).where(webhooks.c.id == webhook_id)


def get(conn: Connection, webhook_id: int) -> dict[str, Any] | None:
    row = conn.execute(get_query(webhook_id)).mappings().first()
    return dict(row) if row else None


def page_query(params: ListFilters, status: str | None) -> Select[Any]:
    """One page of webhooks (of a status, ``None``: any), ordered as ``params`` says."""
    return paging.page_query(select(*_COLUMNS), LISTABLE, params, _status_terms(status))


def count_query(params: ListFilters, status: str | None) -> Select[Any]:
    """The number of webhooks of the list (its total, ``/webhooks/count``)."""
    return paging.total_query(select(webhooks.c.id), LISTABLE, params, _status_terms(status))


def page(
    conn: Connection, params: ListFilters, status: str | None
) -> tuple[list[dict[str, Any]], int]:
    query, total = page_query(params, status), count_query(params, status)
    return paging.run_page(conn, query, total, params)


def count(conn: Connection, params: ListFilters, status: str | None) -> int:
    return int(conn.execute(count_query(params, status)).scalar_one())
