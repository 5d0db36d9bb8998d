"""What several query modules share: a write that a unique index may refuse, the slugs a new
slug must avoid, a column SQLite's planner must not pick an index for, and the JSON stored in
text columns read back.

The rule that picks a free slug (``base``, ``base-2``, …) is pure and lives in
``shopsvc.domain.catalog.unique_slug``; this module only reads the slugs it must avoid.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, Literal, TypeVar

import orjson
from sqlalchemy import (
    ARRAY,
    Column,
    ColumnElement,
    Connection,
    Insert,
    Integer,
    Select,
    String,
    Table,
    Text,
    bindparam,
    column,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import TypeEngine

from shopsvc.errors import invalid_param
from shopsvc.sql.tables import Money

T = TypeVar("T")


@functools.cache
def money_columns(table: Table) -> dict[str, tuple[int, Decimal]]:
    """The money columns of ``table``: name → (scale, the first amount it cannot hold)."""
    return {
        column.name: (
            column.type.scale,
            Decimal(10) ** (column.type.impl.precision - column.type.scale),
        )
        for column in table.c
        if isinstance(column.type, Money)
    }


def check_amounts(table: Table, rows: Iterable[Mapping[str, Any]], envelope: str) -> None:
    """400 ``shop_api_invalid_param`` naming the envelope when an amount *computed* from input
    that fit (a price × a quantity, a sum of lines, a sum of taxes) is beyond what its money
    column holds — PostgreSQL would refuse it with a 500, SQLite would store it."""
    money = money_columns(table)
    for row in rows:
        for name, value in row.items():
            if value is None or name not in money:
                continue
            scale, ceiling = money[name]
            if type(value) is Decimal and value.is_finite() and value.copy_abs() <= ceiling - 1:
                continue  # rounding to the scale cannot reach the ceiling
            try:  # as the column will store it: rounded to its scale
                stored = Decimal(value).quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP)
            except InvalidOperation:  # more digits than any context holds
                stored = ceiling
            if abs(stored) >= ceiling:
                raise invalid_param(
                    envelope,
                    f"its {name} would be {value}, beyond the largest amount the shop "
                    f"stores ({ceiling - Decimal(1).scaleb(-scale)})",
                )


def in_savepoint(conn: Connection, write: Callable[[], T]) -> T | Literal[False]:
    """``write()`` in a savepoint: its result, or False when a constraint (a unique index, most
    often: a concurrent request took the value) refused it — only the savepoint is rolled back,
    the request's transaction goes on."""
    try:
        with conn.begin_nested():
            return write()
    except IntegrityError:
        return False


def slugs_like(
    conn: Connection,
    slug: Column[Any],
    base: str,
    *where: ColumnElement[bool],
    exclude: int | None = None,
) -> set[str]:
    """The values of the ``slug`` column that are ``base`` or start with ``base-`` (the rows
    ``where`` selects, without the row ``exclude`` by id): what a slug made from ``base`` must
    avoid."""
    table = slug.table
    query = select(slug).where(
        *where, or_(slug == base, slug.startswith(base + "-", autoescape=True))
    )
    if exclude is not None:
        query = query.where(table.c.id != exclude)
    return {found for (found,) in conn.execute(query)}


def listen_statement(channel: str) -> str:
    """``LISTEN`` on one of the package's notification channels (``shopsvc_…``: identifiers,
    written as they are)."""
    return f"LISTEN {channel}"


class _Unindexed(ColumnElement[Any]):
    inherit_cache = True

    def __init__(self, column: ColumnElement[Any]) -> None:
        self.column = column
        self.type = column.type

    @property
    def _from_objects(self) -> list[Any]:  # type: ignore[override]
        return self.column._from_objects

    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]


@compiles(_Unindexed)
def _unindexed_default(element: _Unindexed, compiler: Any, **kw: Any) -> str:
    return compiler.process(element.column, **kw)


@compiles(_Unindexed, "sqlite")
def _unindexed_sqlite(element: _Unindexed, compiler: Any, **kw: Any) -> str:
    return f"+{compiler.process(element.column, **kw)}"


def unindexed(column: ColumnElement[Any]) -> ColumnElement[Any]:
    """``column``, which SQLite's query planner must not drive the query by: rendered ``+column``
    there (the unary plus is SQLite's documented way to disqualify a term from index use), as is
    elsewhere. For a condition on a column of few distinct values (``type``) next to a selective
    one (``parent_id IN (…)``): without statistics SQLite guesses the few-values index is the
    narrower and walks, say, every variable product of the catalogue."""
    return _Unindexed(column)


#: The values that :func:`stored_json` need not look into.
_PLAIN = frozenset({str, int, bool, type(None)})


def _floatless(value: Any) -> bool:
    """No float anywhere in ``value`` (a decoded document)."""
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list:
        items = value
    else:
        return kind is not float
    return all(type(item) in _PLAIN or _floatless(item) for item in items)


def stored_json(text: str) -> Any:
    """``json.loads(text)``, by ``orjson`` where that gives the same value (a fraction of the
    cost on the short documents of text columns: options, meta, addresses). ``orjson`` differs
    in two ways only: it reads an integer beyond 64 bits as a float, so a document with a float
    in it is read again by ``json``; and it refuses what ``json`` reads (``NaN``, lone
    surrogates…), so ``json`` reads what it refuses (an invalid text raises ``json``'s
    ``ValueError``)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
    return value if _floatless(value) else json.loads(text)


#: The ordinal column of :func:`arrays_insert`'s rows (no table has a column of this name).
_GIVEN_ORDER = "given_order"


@functools.cache
def arrays_insert(table: Table, columns: tuple[str, ...], returning: bool = False) -> Insert:
    """PostgreSQL: ``INSERT INTO table (columns)`` of rows bound as one array per column
    (:func:`arrays_params`), unnested side by side and inserted in the arrays' order; one
    statement and one execution whatever their number, where psycopg runs a list of rows as one
    execution each. ``returning``: the new ids come back (in no order; a serial id numbers the
    rows in the order they are inserted, so sorted they follow the arrays).

    A bounded text column (``VARCHAR(n)``) is unnested as unbounded text: an explicit cast to
    ``VARCHAR(n)`` would cut a longer value short without a word, where the INSERT refuses it
    as a row of values does."""
    types = {name: _unbounded(table.c[name].type) for name in columns}
    given = (
        func.unnest(*(bindparam(name, type_=ARRAY(types[name])) for name in columns))
        .table_valued(
            *(column(name, types[name]) for name in columns),
            with_ordinality=_GIVEN_ORDER,
        )
        .render_derived()
    )
    rows = select(*(given.c[name] for name in columns)).order_by(given.c[_GIVEN_ORDER])
    return _inserted(table, columns, rows, returning)


def _inserted(
    table: Table, columns: Sequence[str], rows: Select[Any] | None, returning: bool
) -> Insert:
    """``INSERT INTO table`` of ``rows`` (a SELECT of ``columns``; None: values bound as
    rows), the new ids returned when ``returning``."""
    statement = insert(table)
    if rows is not None:
        statement = statement.from_select([table.c[name] for name in columns], rows)
    return statement.returning(table.c.id) if returning else statement


def _unbounded(type_: TypeEngine[Any]) -> TypeEngine[Any]:
    return Text() if type(type_) is String and type_.length is not None else type_


def arrays_params(
    columns: Sequence[str], rows: Sequence[Mapping[str, Any]]
) -> dict[str, list[Any]]:
    """The parameters of :func:`arrays_insert` for ``rows`` (values by column name)."""
    return {name: [row[name] for row in rows] for name in columns}


@functools.cache
def _json_insert(table: Table, columns: tuple[str, ...], returning: bool) -> Insert:
    """SQLite: ``INSERT INTO table (columns)`` of the rows of ``rows``, one JSON array of
    arrays (their values as the columns' types bind them), read by ``json_each`` in their
    order; ``returning``: the new ids come back (in no order)."""
    given = func.json_each(bindparam("rows", type_=Text)).table_valued(
        column("value", Text), column("key", Integer)
    )
    values = select(*(func.json_extract(given.c.value, f"$[{i}]") for i in range(len(columns))))
    return _inserted(table, columns, values.order_by(given.c.key), returning)


#: Bind processors are the dialect's: SQLite's, for :func:`bulk_insert`'s JSON.
_SQLITE = sqlite.dialect()


def bulk_insert(
    dialect: str, table: Table, rows: Sequence[Mapping[str, Any]], returning: bool = False
) -> tuple[Insert, Any]:
    """The statement and parameters inserting ``rows`` (values by column name, the same
    columns in each; at least one) in their order, in one statement and one execution;
    ``returning``: the new ids come back, in no order, but both databases number the rows of
    one INSERT in the order they are inserted (a serial id; SQLite's AUTOINCREMENT: each one
    above every id the table ever had), so sorted they follow ``rows``.

    * PostgreSQL: :func:`arrays_insert`, one array per column (psycopg runs a list of rows as
      one execution per row);
    * SQLite: one JSON array of the rows, each value as its column's type binds it (money and
      times as their stored text), read back by ``json_each`` (400 tax locations: 0.4 ms,
      where ``sqlite3``'s ``executemany`` stepped the statement once per row in 1.0 ms). A
      value JSON cannot write (a string that is no valid Unicode) goes the ``executemany``
      way, which refuses it as it always did."""
    columns = tuple(rows[0])
    if dialect == "postgresql":
        return arrays_insert(table, columns, returning), arrays_params(columns, rows)
    processors = [table.c[name].type._cached_bind_processor(_SQLITE) for name in columns]
    try:
        text = orjson.dumps(
            [
                [
                    row[name] if process is None else process(row[name])
                    for name, process in zip(columns, processors, strict=True)
                ]
                for row in rows
            ]
        )
    except TypeError:
        return _inserted(table, columns, None, returning), list(rows)
    return _json_insert(table, columns, returning), {"rows": text.decode()}


def insert_all(conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (values by column name, the same columns in each) in their order, in
    one statement (:func:`bulk_insert`)."""
    if rows:
        conn.execute(*bulk_insert(conn.dialect.name, table, rows))
