"""Several child queries in one statement, and id lists bound as one parameter.

A record's children live in many tables (an order's items, their meta, the line products, the
customers…). :func:`bundle` sends their queries as ONE ``UNION ALL`` statement and
:func:`split` hands each query its rows back, as if it had run alone: same column names, same
Python values, same order.

Each part's columns go into typed *slots* shared by all parts (integers, texts, money, times,
booleans): a part fills the slots of its columns' kinds and leaves the others NULL, so the
values keep their own types on both databases (no cast to text and back) and SQLAlchemy's
result processing (SQLite's text timestamps and money) applies to them as it would to the part
alone. The leading column, the part's number, and *sort slots* after the values order the whole
result part by part: the n-th column of a part's own ``ORDER BY`` goes into the n-th sort slot of
its kind, the others stay NULL (equal to each other), and the statement's ``ORDER BY`` is the
part, then every sort slot, first by first. One sort of the result instead of a window function
per part: the product child tables' statement took 330 µs on SQLite with a ``row_number()``
window per ordered part, 275 µs so (``tests/test_bundle.py`` keeps each part's order). Building a
bundle costs milliseconds: build it once, its ids bound by name (:func:`ids_in`), and execute
it with them.

:func:`ids_in` is ``column IN (ids)`` with the ids bound as one parameter, whatever their
number: ``= ANY(:ids)`` (an array) on PostgreSQL, ``IN (SELECT value FROM json_each(:ids))``
on SQLite — so a bundle that repeats an id list in several parts neither multiplies its
parameters (SQLite allows 32 766) nor its cache entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson
from sqlalchemy import (
    Boolean,
    ColumnClause,
    ColumnElement,
    CompoundSelect,
    DateTime,
    Integer,
    Select,
    String,
    Text,
    bindparam,
    cast,
    literal_column,
    null,
    type_coerce,
    union_all,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import NullType, TypeDecorator, TypeEngine

from shopsvc.sql.prepared import Prepared, column_key
from shopsvc.sql.tables import Id, Money

# --- ids bound as one parameter

#: Ids, or the name of the parameter that will bind them.
Ids = Sequence[int] | str


class IdList(TypeDecorator[list[int]]):
    """A list of ids as one parameter: an INTEGER[] on PostgreSQL, a JSON array on SQLite."""

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(ARRAY(Integer))
        return dialect.type_descriptor(String())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        # as ``tables.Id``: an id beyond the column's range binds as one that matches no row
        ids = [i if -Id.MAX <= i <= Id.MAX else Id.NONE for i in map(int, value or ())]
        # text, not bytes: SQLite would read a BLOB as its binary JSONB
        return ids if dialect.name == "postgresql" else orjson.dumps(ids).decode()


class _IdsIn(ColumnElement[bool]):
    inherit_cache = True
    #: No boolean type: SQLite would compare the IN with 1.
    type = NullType()

    def __init__(self, column: ColumnElement[Any], ids: Ids) -> None:
        self.column = column
        if isinstance(ids, str):
            self.ids = bindparam(ids, type_=IdList())
        else:
            self.ids = bindparam(None, list(ids), type_=IdList())

    @property
    def _from_objects(self) -> list[Any]:  # type: ignore[override]
        return self.column._from_objects

    _traverse_internals = [
        ("column", InternalTraversal.dp_clauseelement),
        ("ids", InternalTraversal.dp_clauseelement),
    ]


@compiles(_IdsIn)
def _ids_in_sqlite(element: _IdsIn, compiler: Any, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    return f"{column} IN (SELECT value FROM json_each({compiler.process(element.ids, **kw)}))"


@compiles(_IdsIn, "postgresql")
def _ids_in_postgresql(element: _IdsIn, compiler: Any, **kw: Any) -> str:
    return f"{compiler.process(element.column, **kw)} = ANY({compiler.process(element.ids, **kw)})"


def ids_in(column: ColumnElement[Any], ids: Ids) -> ColumnElement[bool]:
    """``column IN (ids)``, the ids bound as one parameter (see the module's note); ``ids``
    a name binds them when the statement is executed (a statement built once)."""
    return _IdsIn(column, ids)


# --- one statement for several queries


def _sort_columns(query: Select[Any]) -> list[ColumnElement[Any]]:
    """The columns of ``query``'s ``ORDER BY``: plain ascending columns (a bundle's parts
    order by keys and positions); anything else is refused when the bundle is built."""
    columns = list(query._order_by_clauses)
    for column in columns:
        if not isinstance(column, ColumnClause):
            raise TypeError(f"a bundle part orders by plain columns only, not {column!r}")
    return columns


#: The slot kinds and their types.
SLOT_TYPES: dict[str, TypeEngine[Any]] = {
    "i": Integer(),
    "t": Text(),
    "m": Money(),
    "d": DateTime(),
    "b": Boolean(),
}


def _kind(type_: TypeEngine[Any]) -> str:
    if isinstance(type_, Money):
        return "m"
    base = type_.impl_instance if isinstance(type_, TypeDecorator) else type_
    for kind, cls in (("b", Boolean), ("d", DateTime), ("i", Integer), ("t", String)):
        if isinstance(base, cls):
            return kind
    raise TypeError(f"no bundle slot for a column of type {type_!r}")


class Bundle:
    """The ``UNION ALL`` of named parts (each a SELECT, its ``ORDER BY`` kept as the part's
    row order); :meth:`split` gives each part its rows as dicts."""

    def __init__(self, parts: Mapping[str, Select[Any]]) -> None:
        self.names = list(parts)
        self.columns: list[list[tuple[str, str]]] = []  # per part: (column name, slot label)
        layouts = []
        counts: dict[str, int] = dict.fromkeys(SLOT_TYPES, 0)
        for query in parts.values():
            used: dict[str, int] = dict.fromkeys(SLOT_TYPES, 0)
            layout = []
            for column in query.selected_columns:
                kind = _kind(column.type)
                used[kind] += 1
                layout.append((column, f"{kind}{used[kind]}"))
            layouts.append(layout)
            for kind, n in used.items():
                counts[kind] = max(counts[kind], n)
        self.slots = [f"{kind}{n}" for kind in SLOT_TYPES for n in range(1, counts[kind] + 1)]
        # per part, its ORDER BY as (sort slot, column): the n-th column in the n-th slot of its
        # kind; the sort slots, position by position
        orders = [
            [(f"{_kind(column.type)}o{n}", column) for n, column in enumerate(_sort_columns(q), 1)]
            for q in parts.values()
        ]
        sort_slots = sorted(
            {slot for order in orders for slot, _ in order},
            key=lambda slot: (int(slot[2:]), list(SLOT_TYPES).index(slot[0])),
        )
        branches = []
        for number, (query, layout, order) in enumerate(
            zip(parts.values(), layouts, orders, strict=True)
        ):
            self.columns.append([(column_key(column.key), slot) for column, slot in layout])
            filled = {slot: column for column, slot in layout}
            filled.update(order)
            values = [
                type_coerce(filled[slot], SLOT_TYPES[slot[0]]).label(slot)
                if slot in filled
                else cast(null(), SLOT_TYPES[slot[0]]).label(slot)
                for slot in [*self.slots, *sort_slots]
            ]
            branches.append(
                query.order_by(None).with_only_columns(
                    literal_column(str(number), Integer).label("part"),
                    *values,
                    maintain_column_froms=True,
                )
            )
        union = union_all(*branches)
        selected = union.selected_columns
        self.statement: CompoundSelect = union.order_by(
            selected.part, *(selected[slot] for slot in sort_slots)
        )
        self.prepared = Prepared(self.statement)
        index = {slot: i + 1 for i, slot in enumerate(self.slots)}
        self.builders = [
            row_builder([(name, index[slot]) for name, slot in columns]) for columns in self.columns
        ]

    def run(
        self, conn: Any, params: Mapping[str, Any], *, one_row: bool = False
    ) -> dict[str, list[dict[str, Any]]]:
        """Each part's rows, the statement executed with ``params`` (``one_row``: see
        ``Prepared.rows``)."""
        return self.split(self.prepared.rows(conn, params, one_row=one_row))

    def split(self, rows: Any) -> dict[str, list[dict[str, Any]]]:
        """Each part's rows (``conn.execute(bundle.statement)``), in the part's order."""
        found: dict[str, list[dict[str, Any]]] = {name: [] for name in self.names}
        parts = [
            (found[name].append, build)
            for name, build in zip(self.names, self.builders, strict=True)
        ]
        for row in rows:
            append, build = parts[row[0]]
            append(build(row))
        return found


#: Above this many columns, a dict display is built in chunks of 16 pairs, each merged into
#: the first: a copy of a dict of the keys, its values then set one by one, costs less.
DISPLAY_COLUMNS = 16


def row_builder(columns: Sequence[tuple[str, int]]) -> Callable[[Sequence[Any]], dict[str, Any]]:
    """``lambda row: {"name": row[2], …}``: a part's row as a dict of its ``(name, position)``
    columns, compiled once as one dict display, which Python builds at a third of the cost of a
    comprehension over the columns (a page of products splits tens of thousands of rows). The
    names are column keys (``repr`` writes them as string literals), the positions integers.

    A wide row (more than :data:`DISPLAY_COLUMNS`; the rows of
    ``sql.product_data.load_product_rows`` and ``sql.order_data.load_orders``) is a copy of a dict
    of its keys whose values are then set by position: three quarters of the cost of
    ``Prepared.mappings``' copy and ``update`` of the zipped keys and values."""
    if len(columns) <= DISPLAY_COLUMNS:
        display = ", ".join(f"{name!r}: row[{int(position)}]" for name, position in columns)
        return eval(f"lambda row: {{{display}}}", {})
    stores = "".join(f"    found[{name!r}] = row[{int(position)}]\n" for name, position in columns)
    source = f"def build(row):\n    found = keys.copy()\n{stores}    return found\n"
    namespace: dict[str, Any] = {"keys": dict.fromkeys(name for name, _ in columns)}
    exec(source, namespace)
    return namespace["build"]
