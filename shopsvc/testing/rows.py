"""Rows straight into the database with SQLAlchemy Core, for the row factories of the tests and
the benchmarks. Each helper takes a ``bind``: an engine (the helper runs in a transaction of its
own) or a connection (it runs in the caller's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import sqlalchemy as sa

Bind = sa.Engine | sa.Connection


def writing(bind: Bind) -> AbstractContextManager[sa.Connection]:
    """A connection to write through: a new transaction of an engine, or the connection as is."""
    return nullcontext(bind) if isinstance(bind, sa.Connection) else bind.begin()


def reading(bind: Bind) -> AbstractContextManager[sa.Connection]:
    """A connection to read through: a new connection of an engine, or the connection as is."""
    return nullcontext(bind) if isinstance(bind, sa.Connection) else bind.connect()


def insert_row(bind: Bind, table: sa.Table, values: Mapping[str, Any]) -> int:
    """Insert one row of ``table``; its id."""
    statement = sa.insert(table).values(**values).returning(table.c.id)
    with writing(bind) as conn:
        return int(conn.execute(statement).scalar_one())


def insert_rows(bind: Bind, table: sa.Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` of ``table`` (none: nothing runs)."""
    if not rows:
        return
    with writing(bind) as conn:
        conn.execute(sa.insert(table), list(rows))


def execute(bind: Bind, statement: sa.Executable) -> None:
    """Run one statement that returns nothing."""
    with writing(bind) as conn:
        conn.execute(statement)


class RowFactory:
    """The base of the row factories: each of their methods inserts through :attr:`bind` and
    returns the new id."""

    def __init__(self, bind: Bind) -> None:
        self.bind = bind

    def _insert(self, table: sa.Table, values: Mapping[str, Any]) -> int:
        return insert_row(self.bind, table, values)

    def _insert_many(self, table: sa.Table, rows: Sequence[Mapping[str, Any]]) -> None:
        insert_rows(self.bind, table, rows)

    def _execute(self, statement: sa.Executable) -> None:
        execute(self.bind, statement)
