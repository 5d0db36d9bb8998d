"""Order counts from ``order_counts`` (orders per status and UTC day of ``created_at``, kept by
the triggers of migration 0007; docs/sql.md "Order counts").

A count whose only filters are the status set and a ``created_at`` range adds up the counters
of the whole days inside the range and counts, in ``ix_orders_status_created`` /
``ix_orders_created``, the orders of the partial days at either end: exact, and as
transactional as the orders themselves (the counters change in the writes' transactions). The
range keeps the list filter's meaning exactly: ``created_at >= min`` and ``created_at <= max``
on the stored naive-UTC timestamps, ``min`` and ``max`` already converted to UTC by the
parser. ``shopsvc.sql.orders`` decides when a count may be answered here (:func:`answers`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from sqlalchemy import ColumnElement, CompoundSelect, Select, func, select, union_all

from shopsvc.sql.paging import ListFilters
from shopsvc.sql.tables import order_counts, orders

#: The trashed orders' status (``shopsvc.sql.orders`` takes it from here).
TRASH = "trash"
#: The list parameters that do not narrow the set counted (paging, ordering) and the two the
#: counters answer; any other one that differs from its default is a filter they cannot.
_NOT_NARROWING = frozenset({"page", "limit", "offset", "descending", "orderby"})
_COUNTED = frozenset({"created_min", "created_max"})
_NO_FILTER = ListFilters()


def only_created_range(params: ListFilters) -> bool:
    """True when ``params`` filter by ``created_at`` alone, if at all (no ``in``/``not_in``,
    ``updated_at_*``, ``q`` — nor any filter added to ``ListFilters`` later)."""
    return all(
        getattr(params, name) == getattr(_NO_FILTER, name)
        for name in (field.name for field in dataclasses.fields(ListFilters))
        if name not in _NOT_NARROWING | _COUNTED
    )


@dataclasses.dataclass(frozen=True)
class Piece:
    """A ``created_at`` range of orders counted in the orders: from ``low`` (inclusive, None:
    unbounded) to ``high`` (None: unbounded; inclusive when ``closed``)."""

    low: dt.datetime | None
    high: dt.datetime | None
    closed: bool


@dataclasses.dataclass(frozen=True)
class Split:
    """``[low, high]`` as whole days ``[first, end)`` read from the counters (None: no whole
    day; a bound None: unbounded) and at most two pieces read from the orders."""

    days: tuple[dt.date | None, dt.date | None] | None
    pieces: tuple[Piece, ...]


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time())


def split(low: dt.datetime | None, high: dt.datetime | None) -> Split:
    """The ``created_at`` range ``[low, high]`` (either bound None: unbounded) as whole days and
    the partial days at its ends. A range within one day (or empty: ``low > high``) is one
    piece, counted in the orders."""
    first: dt.date | None = None
    if low is not None:
        first = low.date()
        if low != _midnight(first):
            if first == dt.date.max:  # no day after it
                return Split(None, (Piece(low, high, True),))
            first += dt.timedelta(days=1)
    end = None if high is None else high.date()
    if first is not None and end is not None and first > end:
        return Split(None, (Piece(low, high, True),))
    pieces = []
    if low is not None and first is not None and low != _midnight(first):
        pieces.append(Piece(low, _midnight(first), False))
    if high is not None and end is not None:
        pieces.append(Piece(_midnight(end), high, True))
    whole = None if first is not None and first == end else (first, end)
    return Split(whole, tuple(pieces))


def status_term(column: ColumnElement[Any], statuses: tuple[str, ...] | None) -> Any:
    """Every status but trash (``statuses`` None), else the listed ones: the status filter of
    every order list and count, on ``orders.status`` or ``order_counts.status``."""
    return column != TRASH if statuses is None else column.in_(statuses)


def _day_terms(days: tuple[dt.date | None, dt.date | None]) -> list[ColumnElement[bool]]:
    first, end = days
    terms = []
    if first is not None:
        terms.append(order_counts.c.day >= first)
    if end is not None:
        terms.append(order_counts.c.day < end)
    return terms


def _piece_terms(piece: Piece) -> list[ColumnElement[bool]]:
    terms = []
    if piece.low is not None:
        terms.append(orders.c.created_at >= piece.low)
    if piece.high is not None:
        high = piece.high
        terms.append(orders.c.created_at <= high if piece.closed else orders.c.created_at < high)
    return terms


def total_query(params: ListFilters, statuses: tuple[str, ...] | None) -> Select[Any]:
    """The number of orders of ``statuses`` (None: all but trash) created within
    ``params.created_min``/``created_max``: the counters of the whole days plus an indexed
    count of each partial day, in one statement."""
    found = split(params.created_min, params.created_max)
    parts: list[Any] = []
    if found.days is not None:
        counted = select(func.coalesce(func.sum(order_counts.c.n), 0)).where(
            status_term(order_counts.c.status, statuses), *_day_terms(found.days)
        )
        parts.append(counted.scalar_subquery())
    for piece in found.pieces:
        scanned = select(func.count()).where(
            status_term(orders.c.status, statuses), *_piece_terms(piece)
        )
        parts.append(scanned.scalar_subquery())
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return select(total.label("count"))


def by_status_query(params: ListFilters, statuses: tuple[str, ...]) -> Select[Any]:
    """``(status, n)`` of each of ``statuses`` that has orders created within
    ``params.created_min``/``created_max`` (the counters and the partial days as
    :func:`total_query`), in one statement."""
    found = split(params.created_min, params.created_max)
    parts: list[Select[Any]] = []
    if found.days is not None:
        parts.append(
            select(order_counts.c.status, order_counts.c.n).where(
                order_counts.c.status.in_(statuses), *_day_terms(found.days)
            )
        )
    for piece in found.pieces:
        parts.append(
            select(orders.c.status, func.count().label("n"))
            .where(orders.c.status.in_(statuses), *_piece_terms(piece))
            .group_by(orders.c.status)
        )
    rows: Select[Any] | CompoundSelect = parts[0] if len(parts) == 1 else union_all(*parts)
    found_rows = rows.subquery("found")
    return select(found_rows.c.status, func.sum(found_rows.c.n).label("n")).group_by(
        found_rows.c.status
    )
