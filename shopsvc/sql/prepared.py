"""Hot statements compiled once per dialect and run straight on the driver's cursor.

``conn.execute(statement)`` pays, on every call, for the statement's cache key, the compiled
cache lookup, an execution context and a result object: about as much as the database itself
takes for the few small statements of a single-record GET. A :class:`Prepared` statement does
that work once per dialect — the SQL string, the defaults of its bound parameters, their bind
processors and positions, the result columns' names and processors — and then runs with the
driver's ``execute`` and ``fetchall``, giving the same Python values as ``conn.execute`` would
(SQLite's text timestamps and money parsed by the same processors).

On PostgreSQL the statement runs on a psycopg ``RawCursor`` with its placeholders rewritten once to
PostgreSQL's own ``$1``, ``$2``…: a plain cursor parses the query for ``%(name)s`` placeholders on
every execution, and caches that parse only for statements under 4 KB (psycopg's
``MAX_CACHED_STATEMENT_LENGTH``) — the bundles and the family statement are longer, and their parse
was about a tenth of a product GET's Python time.

It still goes through SQLAlchemy's ``before_cursor_execute``/``after_cursor_execute`` events, so
the slow statement log and every statement count see it, and driver errors are raised wrapped
as SQLAlchemy's (``sqlalchemy.exc.DBAPIError`` subclasses), as ``conn.execute`` raises them.
A statement that needs what this path does not do (an expanding ``IN``) and a connection that is
not in a transaction (the first statement of an autobegin) run through ``conn.execute``.

On SQLite, ``rows(…, one_row=True)`` runs the statement as one row holding its rows as JSON
(``sql.json_rows``, which says when): a GIL hand-off per statement, not per row. The cursor
events see that form.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from psycopg import RawCursor
from psycopg.types.numeric import Int4
from sqlalchemy import Connection, exc
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import Executable

from shopsvc.sql import json_rows
from shopsvc.sql.tables import Id

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Plan:
    """A statement as one dialect runs it."""

    sql: str
    defaults: dict[str, Any]
    binds: tuple[tuple[str, Processor], ...]  # each parameter once: its name, bind processor
    names: tuple[str, ...]  # the parameters in the driver's order (a name may repeat)
    fixed: frozenset[str]  # constant IN lists rendered into ``sql``: not to be bound again
    positional: bool
    #: PostgreSQL (psycopg): the statement for a ``RawCursor`` (``$n`` placeholders, id lists
    #: padded); None elsewhere.
    native: Native | None
    keys: tuple[str, ...]
    types: tuple[Any, ...]
    #: The result columns' processors, known from the first execution's cursor description
    #: (a driver's type codes choose them, e.g. psycopg's numeric): (position, processor) of
    #: the columns that have one.
    processors: list[tuple[tuple[int, Processor], ...]] = field(default_factory=list)
    #: SQLite: ``sql`` as one row holding its rows (``sql.json_rows``).
    one_row_sql: str | None = None


class _Context:
    """What the engine's cursor events read of an execution context (the slow statement log
    times a statement on it and reads its parameters' shape)."""

    compiled = None
    compiled_parameters = None


class Prepared:
    """``statement``, to run many times with different bound values (see the module)."""

    __slots__ = ("_plans", "statement")

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._plans: dict[str, _Plan | None] = {}

    def _plan(self, dialect: Dialect) -> _Plan | None:
        try:
            return self._plans[dialect.name]
        except KeyError:
            pass
        compiled = self.statement.compile(dialect=dialect)
        constant = [*compiled.post_compile_params, *compiled.literal_execute_params]
        expanding = {compiled.bind_names[bind] for bind in constant}
        plan: _Plan | None = None
        if all(bind.value is not None for bind in constant):
            # IN lists of constants (``type IN ('variable', 'grouped')``) rendered once.
            defaults = compiled.construct_params(_check=False)
            state = compiled.construct_expanded_state(
                {key: 0 if value is None else value for key, value in defaults.items()}
            )
            defaults = {
                key: defaults.get(key, value) if key not in expanding else value
                for key, value in state.parameters.items()
            }
            processors = {**compiled._bind_processors, **state.processors}
            positional = dialect.positional
            names = list(state.positiontup or ()) if positional else list(state.parameters)
            types = tuple(column[3] for column in compiled._result_columns)
            plan = _Plan(
                sql=state.statement,
                defaults=defaults,
                binds=tuple((name, processors.get(name)) for name in dict.fromkeys(names)),
                names=tuple(names),
                fixed=frozenset(expanding),
                positional=bool(dialect.positional),
                native=Native(state.statement) if dialect.driver == "psycopg" else None,
                keys=tuple(column_key(column[0]) for column in compiled._result_columns),
                types=types,
                one_row_sql=json_rows.one_row_sql(state.statement, types)
                if dialect.name == "sqlite"
                else None,
            )
        self._plans[dialect.name] = plan
        return plan

    def rows(
        self, conn: Connection, params: Mapping[str, Any] | None = None, *, one_row: bool = False
    ) -> list[Any]:
        """The result rows, as sequences (SQLAlchemy rows when it ran through ``execute``);
        ``one_row``: on SQLite, read as one row of JSON (``sql.json_rows.for_records``)."""
        plan = self._plan(conn.dialect)
        if (
            plan is None
            or not conn.in_transaction()
            or (params and not plan.fixed.isdisjoint(params))
        ):
            return list(conn.execute(self.statement, dict(params or {})))
        values = plan.defaults if not params else {**plan.defaults, **params}
        bound = {
            name: values[name] if processor is None else processor(values[name])
            for name, processor in plan.binds
        }
        parameters: Any = bound
        if plan.positional:
            parameters = tuple(bound[name] for name in plan.names)
        found = None
        if one_row and plan.one_row_sql is not None and json_rows.ENABLED:
            one, _ = _run(conn, plan.one_row_sql, parameters, False)
            found = json_rows.rows_of(one)
            description = json_rows.description(len(plan.types))
        if found is None:
            native = None if plan.native is None else plan.native.call(bound)
            found, description = _run(conn, plan.sql, parameters, not plan.processors, native)
        if not plan.processors:
            chosen = (
                type_._cached_result_processor(conn.dialect, column[1])
                for type_, column in zip(plan.types, description or (), strict=True)
            )
            plan.processors.append(tuple((i, p) for i, p in enumerate(chosen) if p is not None))
        processors = plan.processors[0]
        if not processors:
            return found
        processed = []
        for row in found:
            values = list(row)
            for i, processor in processors:
                value = values[i]
                if value is not None:
                    values[i] = processor(value)
            processed.append(values)
        return processed

    def mappings(
        self, conn: Connection, params: Mapping[str, Any] | None = None, *, one_row: bool = False
    ) -> list[dict[str, Any]]:
        """The result rows as dicts keyed by column name (``one_row``: as :meth:`rows`)."""
        plan = self._plan(conn.dialect)
        rows = self.rows(conn, params, one_row=one_row)
        if plan is None or not conn.in_transaction():
            return [dict(row._mapping) for row in rows]
        keys = plan.keys
        # Each row a copy of one dict of the keys, its values then set: cheaper than building
        # each dict key by key (copying reuses the keys' table; no dict grows).
        template = dict.fromkeys(keys)
        found = []
        for row in rows:
            mapping = template.copy()
            mapping.update(zip(keys, row, strict=True))
            found.append(mapping)
        return found


def column_key(name: str) -> str:
    """A result column's name as a row dict's key: a plain interned ``str``. SQLAlchemy names
    columns with a ``str`` subclass (``quoted_name``), which every ``row["status"]`` would have
    to compare character by character with the literal; an interned ``str`` is the literal
    itself, found at once."""
    return sys.intern(str(name))


#: The longest id list bound as padded scalars (:class:`Native`); a longer one is one array.
#: A single record's lists are this short (an order: one id; a product: itself and up to seven
#: variations). Longer ones gain nothing: on a page of ten orders (16 ids) the generic plan
#: was no better than the array's plans, and the sixteen-fold binding made it slower.
PADDED_IDS_MAX = 8
#: What pads an id list: an id no row has (``tables.Id.NONE``), as ``int4``.
NO_ID = Int4(Id.NONE)


def run_bare(conn: Connection, sql: str) -> None:
    """Run ``sql`` (no parameters, no rows: ``BEGIN``) on the connection's driver cursor
    between the engine's cursor events, without SQLAlchemy's execution context: what
    ``conn.exec_driver_sql(sql)`` does, at a fraction of its cost."""
    _run(conn, sql, (), False)


def native_sql(sql: str) -> tuple[str, tuple[str, ...]]:
    """``sql`` in psycopg's ``%(name)s`` style rewritten with PostgreSQL's ``$n`` placeholders
    (a name used twice keeps its number; ``%%`` is a literal ``%``), and the names in order."""
    native, layout = _numbered(sql, frozenset(), 0)
    return native, tuple(name for name, _ in layout)


#: Layout of a native form's parameters in ``$n`` order: ``(name, padded)``.
Layout = tuple[tuple[str, bool], ...]


def _numbered(pyformat: str, lists: frozenset[str], size: int) -> tuple[str, Layout]:
    """``pyformat`` with ``$n`` placeholders, the id lists ``lists`` (``= ANY(%(name)s::
    INTEGER[])``) each ``size`` scalars ``= ANY(ARRAY[$n, …]::INTEGER[])``; and its layout."""
    numbers: dict[str, str] = {}
    layout: list[tuple[str, bool]] = []
    taken = 0  # the ``$n`` numbers given so far

    def placeholder(name: str) -> str:
        nonlocal taken
        if name not in numbers:
            padded = name in lists
            count = size if padded else 1
            numbers[name] = ", ".join(f"${n}" for n in range(taken + 1, taken + 1 + count))
            layout.append((name, padded))
            taken += count
        return numbers[name]

    def substitute(match: re.Match[str]) -> str:
        listed, name = match.group(1, 2)
        if listed in lists:
            return f"= ANY(ARRAY[{placeholder(listed)}]::INTEGER[])"
        if listed is not None:
            return f"= ANY({placeholder(listed)}::INTEGER[])"
        return "%" if name is None else placeholder(name)

    return _NATIVE_PARTS.sub(substitute, pyformat), tuple(layout)


#: An id list as ``sql.bundle.ids_in`` binds it on PostgreSQL (one ``INTEGER[]`` parameter:
#: group 1), or one of psycopg's ``%(name)s`` placeholders (group 2), or a ``%%``.
_NATIVE_PARTS = re.compile(r"= ANY\(%\(([^)]+)\)s::INTEGER\[\]\)|%(?:\(([^)]+)\)s|%)")


class Native:
    """A statement as psycopg runs it on a ``RawCursor``: PostgreSQL's ``$n`` placeholders
    (:func:`native_sql`), and its id lists (``col = ANY(%(ids)s::INTEGER[])``, parameters used
    in no other way) bound as scalars.

    PostgreSQL plans a prepared statement anew for each execution's values (a *custom* plan)
    until a *generic* plan, made once for any values, is estimated no costlier. Of an array
    parameter a generic plan knows nothing, not even its length (it assumes ten elements), and
    on a small catalogue reads whole tables to hash-join ten ids: so the hot statements of a
    single record were planned on every execution, about half a millisecond each, several times
    their execution. Bound as ``= ANY(ARRAY[$3, $4, $5, $6])``, a list's length is part of the
    statement: the generic plan is the custom one and PostgreSQL keeps it (a product GET's
    family and child-table statements took 1.8 ms as the client times them, now 0.5). The
    lists of an execution are padded with :data:`NO_ID` to one length, the next power of two
    of the longest (so that a statement has a handful of forms: 1, 2, 4, 8 ids), and sent as
    ``int4`` whatever their values (psycopg would type each by its size, and a prepared
    statement is one per parameter types). A longer list (a page of records, a product of many
    variations) is bound as one array, as before."""

    __slots__ = ("_forms", "_pyformat", "lists", "names", "sql")

    def __init__(self, pyformat: str) -> None:
        self._pyformat = pyformat
        self.sql, self.names = native_sql(pyformat)
        parts = [match.group(1, 2) for match in _NATIVE_PARTS.finditer(pyformat)]
        elsewhere = {name for _, name in parts}
        #: The id lists padded: names used only as ``= ANY(%(name)s::INTEGER[])``.
        self.lists = frozenset(listed for listed, _ in parts if listed and listed not in elsewhere)
        self._forms: dict[int, tuple[str, Layout]] = {}

    def call(self, bound: Mapping[str, Any]) -> tuple[str, list[Any]]:
        """The SQL and the values to run with the bound parameters ``bound``."""
        if self.lists:
            longest = max([len(bound[name]) for name in self.lists])
            if longest <= PADDED_IDS_MAX:
                size = 1 << (max(longest, 1) - 1).bit_length()
                form = self._forms.get(size)
                if form is None:
                    form = self._forms[size] = _numbered(self._pyformat, self.lists, size)
                sql, layout = form
                values: list[Any] = []
                for name, padded in layout:
                    if padded:
                        ids = bound[name]
                        values += map(Int4, ids)
                        values += (NO_ID,) * (size - len(ids))
                    else:
                        values.append(bound[name])
                return sql, values
        return self.sql, [bound[name] for name in self.names]


def native_call(sql: str, parameters: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """``sql`` (psycopg's ``%(name)s`` style) and its named ``parameters`` as the service runs
    them on a ``RawCursor`` (:class:`Native`, made once per text): what a replay
    (``bench/floor.py``) sends."""
    return _native(sql).call(parameters)


@functools.lru_cache(maxsize=512)
def _native(sql: str) -> Native:
    return Native(sql)


def _run(
    conn: Connection,
    sql: str,
    parameters: Any,
    describe: bool,
    native: tuple[str, list[Any]] | None = None,
) -> tuple[list[Any], Any]:
    """The rows of ``sql`` run on the connection's driver cursor, between the engine's cursor
    events, and when ``describe`` is true the cursor's description (psycopg builds it anew,
    a ``Column`` per column, each time it is read: only the first execution of a plan needs
    it). With ``native`` (PostgreSQL) the same statement runs as that ``$n`` text and those
    values on a ``RawCursor``; the events still see ``sql`` and ``parameters``."""
    dispatch = conn.dispatch
    context = _Context()
    cursor = conn.connection.driver_connection.cursor() if native is None else _raw_cursor(conn)
    kept = False  # a failed statement's cursor is closed
    try:
        # Each read of ``dispatch.<event>`` builds a listener collection (the connection's and
        # the engine's, joined): read once per event.
        listeners = dispatch.before_cursor_execute
        if listeners:
            for listener in listeners:
                listener(conn, cursor, sql, parameters, context, False)
        try:
            if native is None:
                cursor.execute(sql, parameters)
            else:
                cursor.execute(*native)
            found = cursor.fetchall()
        except conn.dialect.loaded_dbapi.Error as error:
            raise exc.DBAPIError.instance(
                sql, parameters, error, conn.dialect.loaded_dbapi.Error, dialect=conn.dialect
            ) from error
        listeners = dispatch.after_cursor_execute
        if listeners:
            for listener in listeners:
                listener(conn, cursor, sql, parameters, context, False)
        kept = native is not None and len(found) <= KEPT_CURSOR_ROWS
        return found, cursor.description if describe else None
    finally:
        if not kept:
            cursor.close()
            if native is not None:
                conn.connection.info.pop(_RAW_CURSOR, None)


#: Where a pooled PostgreSQL connection keeps its ``RawCursor`` (its pool record's ``info``).
_RAW_CURSOR = "shopsvc.raw_cursor"
#: A cursor that fetched more rows than this is closed, not kept: it would hold their result
#: (a page of records: megabytes) until the connection's next statement.
KEPT_CURSOR_ROWS = 64


def _raw_cursor(conn: Connection) -> RawCursor[Any]:
    """The connection's ``RawCursor``, kept from one statement to the next: a new cursor
    looks up its loaders anew for each result's columns, about 15–20 µs of a single record's
    statement. It belongs to the driver connection it was made on (the pool record outlives
    a lost one); a statement that failed or fetched many rows closes it."""
    fairy = conn.connection
    driver = fairy.driver_connection
    cursor: RawCursor[Any] | None = fairy.info.get(_RAW_CURSOR)
    if cursor is None or cursor.closed or cursor.connection is not driver:
        cursor = fairy.info[_RAW_CURSOR] = RawCursor(driver)  # type: ignore[arg-type]
    return cursor
