"""One pager for every list: common filters, ordering with id as tie-break, count, limit/offset."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, Table, and_, func, or_, select


@dataclass(frozen=True)
class ListFilters:
    """The common list parameters: ``shopsvc.web.listing`` parses them from a request (as
    ``ListParams``), ``sql.named_queries`` from ``--filter`` pairs."""

    page: int = 1
    limit: int = 10
    offset: int = 0
    descending: bool = True
    orderby: str = "created_at"
    ids_in: tuple[int, ...] | None = None
    ids_not_in: tuple[int, ...] = ()
    created_min: dt.datetime | None = None
    created_max: dt.datetime | None = None
    updated_min: dt.datetime | None = None
    updated_max: dt.datetime | None = None
    q: str = ""


@dataclass(frozen=True)
class Listable:
    """How a resource's table answers the common filters."""

    id: ColumnElement[Any]
    sort_keys: Mapping[str, ColumnElement[Any]]
    created_at: ColumnElement[Any] | None = None
    updated_at: ColumnElement[Any] | None = None
    search: Sequence[ColumnElement[Any]] = ()

    @classmethod
    def dated(
        cls,
        table: Table,
        sort_keys: Mapping[str, ColumnElement[Any]] | None = None,
        search: Sequence[ColumnElement[Any]] = (),
    ) -> Listable:
        """A table with ``id``, ``created_at`` and ``updated_at``: sortable by those (plus
        ``sort_keys``) and filtered by its dates."""
        return cls(
            id=table.c.id,
            sort_keys={
                "id": table.c.id,
                "created_at": table.c.created_at,
                "updated_at": table.c.updated_at,
                **(sort_keys or {}),
            },
            created_at=table.c.created_at,
            updated_at=table.c.updated_at,
            search=search,
        )


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def common_filters(listable: Listable, params: ListFilters) -> list[ColumnElement[bool]]:
    """The WHERE terms of ``filter[in|not_in|created_at_*|updated_at_*|q]``."""
    terms: list[ColumnElement[bool]] = []
    if params.ids_in is not None:
        terms.append(listable.id.in_(params.ids_in))
    if params.ids_not_in:
        terms.append(listable.id.not_in(params.ids_not_in))
    bounds = (
        (listable.created_at, params.created_min, params.created_max),
        (listable.updated_at, params.updated_min, params.updated_max),
    )
    for column, low, high in bounds:
        if column is None:
            continue
        if low is not None:
            terms.append(column >= low)
        if high is not None:
            terms.append(column <= high)
    if params.q and listable.search:
        pattern = f"%{escape_like(params.q.lower())}%"
        terms.append(or_(*(func.lower(col).like(pattern, escape="\\") for col in listable.search)))
    return terms


def count_query(base: Select[Any], terms: Sequence[ColumnElement[bool]]) -> Select[Any]:
    """``SELECT count(*)`` of the rows of ``base`` that ``terms`` keep."""
    return select(func.count()).select_from(base.where(and_(True, *terms)).subquery())


def count(conn: Connection, base: Select[Any], terms: Sequence[ColumnElement[bool]]) -> int:
    return int(conn.execute(count_query(base, terms)).scalar_one())


def list_terms(
    listable: Listable, params: ListFilters, extra_terms: Sequence[ColumnElement[bool]] = ()
) -> list[ColumnElement[bool]]:
    """Every WHERE term of a list: the resource's own (``extra_terms``), then the common ones."""
    return [*extra_terms, *common_filters(listable, params)]


def total_query(
    base: Select[Any],
    listable: Listable,
    params: ListFilters,
    extra_terms: Sequence[ColumnElement[bool]] = (),
) -> Select[Any]:
    """The count of a list (its total: the pagination headers, ``…/count``)."""
    return count_query(base, list_terms(listable, params, extra_terms))


def page_query(
    base: Select[Any],
    listable: Listable,
    params: ListFilters,
    extra_terms: Sequence[ColumnElement[bool]] = (),
) -> Select[Any]:
    """One page of ``base``: the list's terms, its order with id as tie-break, limit, offset."""
    terms = list_terms(listable, params, extra_terms)
    sort = listable.sort_keys[params.orderby]
    direction = (lambda col: col.desc()) if params.descending else (lambda col: col.asc())
    order = [direction(sort)] if sort is not listable.id else []
    return (
        base.where(and_(True, *terms))
        .order_by(*order, direction(listable.id))
        .limit(params.limit)
        .offset(params.offset)
    )


def run_page(
    conn: Connection, query: Select[Any], total: Select[Any], params: ListFilters
) -> tuple[list[dict[str, Any]], int]:
    """The rows of ``query`` (as dicts) and the count of ``total``, in two statements (one when
    the page is past the end)."""
    found = int(conn.execute(total).scalar_one())
    if found == 0 or params.offset >= found:
        return [], found
    rows = conn.execute(query).mappings().all()
    return [dict(row) for row in rows], found


def fetch_page(
    conn: Connection,
    base: Select[Any],
    listable: Listable,
    params: ListFilters,
    extra_terms: Sequence[ColumnElement[bool]] = (),
) -> tuple[list[dict[str, Any]], int]:
    """One page of ``base`` (rows as dicts) and the total matching, in two statements."""
    return run_page(
        conn,
        page_query(base, listable, params, extra_terms),
        total_query(base, listable, params, extra_terms),
        params,
    )
