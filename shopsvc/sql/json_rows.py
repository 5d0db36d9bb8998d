"""SQLite only: a record's statements read as ONE row each, all their rows in a JSON array.

Python's ``sqlite3`` releases the GIL around every ``sqlite3_step``, once per result row. Under
waitress's threads, all wanting the GIL, each release may hand it to another thread and take it
back later (futex calls, context switches). A statement wrapped as

    WITH _rows(c0, c1, …) AS (<statement>)
    SELECT json_group_array(json_array(c0, c1, …)) FROM _rows

is stepped twice whatever its row count; ``orjson`` turns its one value back into the rows,
and :class:`~shopsvc.sql.prepared.Prepared` applies the columns' result processors to them as
it does to the driver's rows (``Prepared.rows(…, one_row=True)``). :func:`for_records` decides
when: for the statements of a single record (a GET), not for a page's. Measured (docs/sql.md,
"Bundles"): served product GETs +14–19 % req/s, order GETs +2–10 %; a statement alone,
single-threaded, costs the same within ±11 %, and a page gains nothing single-threaded.
PostgreSQL's driver has no such per-row hand-off: nothing changes there.

The values are the driver's, exactly:

* INTEGER: SQLite writes them in full, ``orjson`` reads 64-bit integers exactly.
* TEXT: escaped by SQLite (control characters, NUL, quotes) and read back the same; a text
  that is not valid UTF-8 fails to decode at the fetch as it does unwrapped
  (``sqlite3.OperationalError``).
* NULL: ``null``, ``None``.
* REAL: SQLite's JSON would write 15 significant digits. A numeric column (money: a ``sum()``
  of money text, a customer's ``total_spent``, is a REAL on SQLite) is written, when it holds
  a REAL, as ``printf('%!.17g')`` embedded as a JSON number, which reads back as the same
  double. Integer, text, time and boolean columns hold no REAL in this schema.
* An infinite REAL (``Inf``) is no JSON: :func:`rows_of` refuses it and the caller runs the
  plain statement instead (no money sum can reach it).
* BLOB: ``json_array`` refuses them (an error); no column of the schema holds one.
* A wrapped statement must not select the value of a JSON function (``json_extract``, …):
  ``json_array`` would embed it as JSON instead of as its text.

Order: SQLite hands an aggregate the rows of a sub-query in the sub-query's order when the
sub-query has an ``ORDER BY`` (its query flattener never merges such a sub-query into an
aggregate query, and its "omit ORDER BY in a sub-query" optimisation keeps the ``ORDER BY``
when the outer query uses an aggregate other than ``count``/``min``/``max``); without one, in
the order the statement alone gives. SQLite documents no order for ``json_group_array``
before 3.44 (``json_group_array(… ORDER BY …)``); tests/test_json_rows.py checks it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import Numeric
from sqlalchemy.types import TypeDecorator, TypeEngine

#: Off only to compare both forms (tests, measurements).
ENABLED = True

#: The largest finite double.
_MAX_REAL = "1.7976931348623157e308"


def for_records(count: int) -> bool:
    """Whether the statements loading ``count`` records read their rows as one row.

    Only for one record: a GET's statements have tens of rows, each a GIL hand-off under
    waitress's threads, and read as one row they served 2–19 % more requests per second. A
    page's thousands of rows gain nothing single-threaded (SQLite building the JSON costs what
    ``sqlite3`` building the rows does), while its floor (``bench/floor.py`` replays the
    statements without reading them back) would fall by a fifth for these statements: the list
    benches' ratios would rise towards their 3x bound for no measured gain.
    """
    return count == 1


def _may_be_real(type_: TypeEngine[Any]) -> bool:
    base = type_.impl_instance if isinstance(type_, TypeDecorator) else type_
    return isinstance(base, Numeric)


def one_row_sql(sql: str, types: Sequence[TypeEngine[Any]]) -> str:
    """``sql`` (its result columns of ``types``) as one row holding its rows (see the module)."""
    names = [f"c{i}" for i in range(len(types))]
    # A finite REAL as 17 digits embedded as a JSON number; ``json()`` refuses ``Inf``, which is
    # left to SQLite's JSON (``Inf``: no JSON, so :func:`rows_of` gives up).
    values = [
        f"CASE WHEN typeof({name}) = 'real' AND abs({name}) <= {_MAX_REAL}"
        f" THEN json(printf('%!.17g', {name})) ELSE {name} END"
        if _may_be_real(type_)
        else name
        for name, type_ in zip(names, types, strict=True)
    ]
    return (
        f"WITH _rows({', '.join(names)}) AS ({sql})\n"
        f"SELECT json_group_array(json_array({', '.join(values)})) FROM _rows"
    )


def rows_of(found: list[Any]) -> list[Any] | None:
    """The rows held by the one row of a :func:`one_row_sql` statement; None when its JSON does
    not parse (an infinite REAL)."""
    try:
        return orjson.loads(found[0][0])  # type: ignore[no-any-return]
    except orjson.JSONDecodeError:
        return None


@functools.cache
def description(count: int) -> tuple[tuple[Any, ...], ...]:
    """What ``sqlite3`` describes of ``count`` result columns as far as result processing reads
    it: no type code (``sqlite3`` never gives one)."""
    return tuple((f"c{i}", None, None, None, None, None, None) for i in range(count))
