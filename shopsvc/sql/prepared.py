"""Hot statements compiled once per dialect and run straight on the driver's cursor.

``conn.execute(statement)`` pays, on every call, for the statement's cache key, the compiled
cache lookup, an execution context and a result object: about as much as the database itself
takes for the few small statements of a single-record GET. A :class:`Prepared` statement does
that work once per dialect — the SQL string, the defaults of its bound parameters, their bind
processors and positions, the result columns' names and processors — and then runs with the
driver's ``execute`` and ``fetchall``, giving the same Python values as ``conn.execute`` would
(SQLite's text timestamps and money parsed by the same processors).

It still goes through SQLAlchemy's ``before_cursor_execute``/``after_cursor_execute`` events, so
the slow statement log and every statement count see it, and driver errors are raised wrapped
as SQLAlchemy's (``sqlalchemy.exc.DBAPIError`` subclasses), as ``conn.execute`` raises them.
A statement that needs what this path does not do (an expanding ``IN``) and a connection that is
not in a transaction (the first statement of an autobegin) run through ``conn.execute``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, exc
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import Executable

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
    keys: tuple[str, ...]
    types: tuple[Any, ...]
    #: The result columns' processors, known from the first execution's cursor description
    #: (a driver's type codes choose them, e.g. psycopg's numeric): (position, processor) of
    #: the columns that have one.
    processors: list[tuple[tuple[int, Processor], ...]] = field(default_factory=list)


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
            plan = _Plan(
                sql=state.statement,
                defaults=defaults,
                binds=tuple((name, processors.get(name)) for name in dict.fromkeys(names)),
                names=tuple(names),
                fixed=frozenset(expanding),
                positional=bool(dialect.positional),
                keys=tuple(column_key(column[0]) for column in compiled._result_columns),
                types=tuple(column[3] for column in compiled._result_columns),
            )
        self._plans[dialect.name] = plan
        return plan

    def rows(self, conn: Connection, params: Mapping[str, Any] | None = None) -> list[Any]:
        """The result rows, as sequences (SQLAlchemy rows when it ran through ``execute``)."""
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
        found, description = _run(conn, plan.sql, parameters, not plan.processors)
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
        self, conn: Connection, params: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """The result rows as dicts keyed by column name."""
        plan = self._plan(conn.dialect)
        rows = self.rows(conn, params)
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


def _run(conn: Connection, sql: str, parameters: Any, describe: bool) -> tuple[list[Any], Any]:
    """The rows of ``sql`` run on the connection's driver cursor, between the engine's cursor
    events, and when ``describe`` is true the cursor's description (psycopg builds it anew,
    a ``Column`` per column, each time it is read: only the first execution of a plan needs
    it)."""
    dispatch = conn.dispatch
    context = _Context()
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        if dispatch.before_cursor_execute:
            for listener in dispatch.before_cursor_execute:
                listener(conn, cursor, sql, parameters, context, False)
        try:
            cursor.execute(sql, parameters)
            found = cursor.fetchall()
        except conn.dialect.loaded_dbapi.Error as error:
            raise exc.DBAPIError.instance(
                sql, parameters, error, conn.dialect.loaded_dbapi.Error, dialect=conn.dialect
            ) from error
        if dispatch.after_cursor_execute:
            for listener in dispatch.after_cursor_execute:
                listener(conn, cursor, sql, parameters, context, False)
        return found, cursor.description if describe else None
    finally:
        cursor.close()
