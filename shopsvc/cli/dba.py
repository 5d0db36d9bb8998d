"""The DBA's commands: ``shopsvc CONFIG sql [NAME]`` and ``shopsvc CONFIG explain NAME``.

Both work on the named queries of ``shopsvc.sql.named_queries``, built by the functions the service
runs. ``sql`` prints a query as the configured database compiles it (parameters as the driver's
placeholders, never values); ``explain`` asks the database for its plan: ``EXPLAIN`` (with
``--analyze``: ``EXPLAIN (ANALYZE, BUFFERS)``) on PostgreSQL, ``EXPLAIN QUERY PLAN`` on SQLite
(which has no ``ANALYZE``: ``--analyze`` runs the statement and prints its row count and time).
Whatever runs does so in a transaction that is rolled back, so explaining a write writes
nothing. ``docs/sql.md`` is the guide.
"""

from __future__ import annotations

import argparse
import difflib
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ClauseElement, Connection, Dialect, Engine, Executable
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

from shopsvc.cli.errors import UsageError
from shopsvc.settings import Settings
from shopsvc.sql import named_queries


class Explain(Executable, ClauseElement):
    """``EXPLAIN <statement>`` as the dialect spells it, the statement's parameters bound as
    they are when the service runs it."""

    inherit_cache = False

    def __init__(self, statement: Executable, analyze: bool = False) -> None:
        self.statement = statement
        self.analyze = analyze


def _explained(compiler: SQLCompiler, head: str, element: Explain, **kw: Any) -> str:
    text = head + compiler.process(element.statement, **kw)
    # The statement is not run as an INSERT/UPDATE/DELETE (no inserted key, no rowcount): its
    # result is the plan's rows.
    compiler.isinsert = compiler.isupdate = compiler.isdelete = False
    compiler._result_columns = []
    return text


@compiles(Explain, "postgresql")
def _explain_postgresql(element: Explain, compiler: SQLCompiler, **kw: Any) -> str:
    head = "EXPLAIN (ANALYZE, BUFFERS) " if element.analyze else "EXPLAIN "
    return _explained(compiler, head, element, **kw)


@compiles(Explain, "sqlite")
def _explain_sqlite(element: Explain, compiler: SQLCompiler, **kw: Any) -> str:
    return _explained(compiler, "EXPLAIN QUERY PLAN ", element, **kw)


@compiles(Explain)
def _explain_other(element: Explain, compiler: SQLCompiler, **kw: Any) -> str:
    return _explained(compiler, "EXPLAIN ", element, **kw)


# --- building


def parse_filters(pairs: Sequence[str] | None) -> dict[str, str]:
    """``["status=processing", "filter[page]=5000"]`` → ``{"status": "processing", "page":
    "5000"}`` (the API's ``filter[key]`` spelling is accepted too)."""
    found: dict[str, str] = {}
    for pair in pairs or ():
        key, sign, value = pair.partition("=")
        key = key.strip()
        if key.startswith("filter[") and key.endswith("]"):
            key = key[7:-1]
        if not sign or not key:
            raise UsageError(f"--filter {pair!r} is not key=value")
        found[key] = value
    return found


def named_query(name: str) -> named_queries.NamedQuery:
    try:
        return named_queries.get(name)
    except KeyError:
        close = difflib.get_close_matches(name, list(named_queries.QUERIES), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"no named query {name!r} (`sql` lists them){hint}") from None


def build(
    name: str, filters: dict[str, str], dialect: str = "postgresql"
) -> tuple[named_queries.NamedQuery, named_queries.Built]:
    query = named_query(name)
    try:
        return query, query.build(filters, dialect)
    except named_queries.FilterError as exc:
        raise UsageError(str(exc)) from None


def compiled_sql(built: named_queries.Built, dialect: Dialect) -> str:
    """The statement as ``dialect`` compiles it for the service: bind placeholders (one per
    element of an ``IN`` list), no values."""
    keys = list(built.parameters) if built.parameters is not None else None
    compiled = built.statement.compile(
        dialect=dialect,
        column_keys=keys,
        for_executemany=built.parameters is not None,
        compile_kwargs={"render_postcompile": True},
    )
    return "\n".join(line.rstrip() for line in str(compiled).strip().splitlines())


def plan(conn: Connection, built: named_queries.Built, analyze: bool = False) -> list[str]:
    """The database's plan of the statement, one line per row (indented as a tree on SQLite),
    in a transaction that is rolled back."""
    sqlite = conn.dialect.name == "sqlite"
    transaction = conn.begin()
    try:
        rows = conn.execute(Explain(built.statement, analyze), built.parameters or {}).all()
        lines = _sqlite_tree(rows) if sqlite else [str(row[0]) for row in rows]
        if sqlite and analyze:
            lines.append(_sqlite_run(conn, built))
        return lines
    finally:
        transaction.rollback()


def _sqlite_tree(rows: Sequence[Any]) -> list[str]:
    """``EXPLAIN QUERY PLAN`` rows ``(id, parent, _, detail)`` as the sqlite3 shell draws them."""
    children: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for node_id, parent, _unused, detail in rows:
        if node_id != parent:
            children[parent].append((node_id, str(detail)))
    lines = ["QUERY PLAN"]

    def draw(parent: int, indent: str) -> None:
        nodes = children.get(parent, [])
        for number, (node_id, detail) in enumerate(nodes):
            last = number == len(nodes) - 1
            lines.append(f"{indent}{'`--' if last else '|--'}{detail}")
            draw(node_id, indent + ("   " if last else "|  "))

    draw(0, "")
    return lines


def _sqlite_run(conn: Connection, built: named_queries.Built) -> str:
    started = time.perf_counter()
    result = conn.execute(built.statement, built.parameters or {})
    count = len(result.all()) if result.returns_rows else max(result.rowcount, 0)
    elapsed = (time.perf_counter() - started) * 1000
    return f"(SQLite has no EXPLAIN ANALYZE: run once, {count} rows in {elapsed:.2f} ms)"


# --- the commands


def cmd_sql(engine: Engine, settings: Settings, args: argparse.Namespace) -> list[Any]:
    """Without NAME one line per named query (``name — description``); with NAME its SQL as the
    configured database compiles it."""
    if args.name is None:
        if args.filter:
            raise UsageError("--filter needs a NAME")
        for query in named_queries.QUERIES.values():
            print(f"{query.name} — {query.description}")
        return []
    query, built = build(args.name, parse_filters(args.filter), engine.dialect.name)
    keys = ", ".join(query.filter_keys()) or "none"
    print(f"-- {query.name}: {query.description}")
    print(f"-- filters: {keys}")
    print(compiled_sql(built, engine.dialect) + ";")
    return []


def cmd_explain(engine: Engine, settings: Settings, args: argparse.Namespace) -> list[Any]:
    """The plan of a named query with the ``--filter`` parameters."""
    _query, built = build(args.name, parse_filters(args.filter), engine.dialect.name)
    try:
        with engine.connect() as conn:
            lines = plan(conn, built, analyze=args.analyze)
    except DBAPIError as exc:
        if exc.connection_invalidated:
            raise
        message = " ".join(str(exc.orig).split())
        raise UsageError(f"the database refused {args.name}: {message}") from None
    for line in lines:
        print(line)
    return []
