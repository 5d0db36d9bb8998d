"""Rows straight into and out of the database (SQLAlchemy Core), and the SQL-statement capture."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import products
from shopsvc.testing.rows import insert_row, insert_rows


def insert(engine: sa.Engine, table: sa.Table, **values: Any) -> int:
    """Insert one row; its id."""
    return insert_row(engine, table, values)


def insert_many(engine: sa.Engine, table: sa.Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert rows of a table without an id of its own (links)."""
    insert_rows(engine, table, rows)


def update(engine: sa.Engine, table: sa.Table, row_id: int, **values: Any) -> None:
    with engine.begin() as conn:
        conn.execute(sa.update(table).where(table.c.id == row_id).values(**values))


def one_row(engine: sa.Engine, table: sa.Table, row_id: int) -> dict[str, Any]:
    """The row ``row_id`` of ``table`` (it must exist)."""
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(table).where(table.c.id == row_id)).mappings().one())


def select_all(engine: sa.Engine, table: sa.Table) -> list[dict[str, Any]]:
    """Every row of ``table``, by id where it has one."""
    with engine.connect() as conn:
        query = sa.select(table)
        if "id" in table.c:
            query = query.order_by(table.c.id)
        return [dict(r) for r in conn.execute(query).mappings()]


def count_rows(engine: sa.Engine, query: Any = products) -> int:
    """How many rows ``query`` (a table or a select) has."""
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(query)).scalar_one())


def add_product(engine: sa.Engine, status: str = "publish", **values: Any) -> int:
    """A minimal product row; its id."""
    now = dt.datetime(2024, 1, 1)
    row = {"type": "simple", "status": status, "title": "P", "slug": "p"}
    return insert(engine, products, **(row | {"created_at": now, "updated_at": now} | values))


@contextmanager
def statements(target: TestApp | sa.Engine, *words: str) -> Iterator[list[str]]:
    """The SQL statements run inside the block on ``target`` (an engine, or a TestApp's app
    engine), white space folded; only those that mention one of ``words`` when any are given."""
    engine = target.app.registry.engine if isinstance(target, TestApp) else target
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not words or any(word in statement for word in words):
            seen.append(" ".join(statement.split()))

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


#: Statements that only frame transactions (SQLite's explicit BEGIN, savepoints).
CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "END")


def queries(seen: list[str]) -> list[str]:
    """The statements of ``seen`` that are not transaction control."""
    return [sql for sql in seen if sql.split(None, 1)[0].upper() not in CONTROL]
