"""Writes of tax rates, their locations and tax classes.

Rates are written set-based (``writers.taxes.write_rates``, one rate or a whole bulk): the new
rates in one insert, the edits in one statement per set of changed columns, the replaced
locations in one delete and every location written in one insert. The same statements serve a
single write and a bulk, so the taxes have no ``tax_batch`` module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Delete,
    Update,
    and_,
    bindparam,
    delete,
    insert,
    or_,
    select,
    update,
)

from shopsvc.sql.bundle import ids_in
from shopsvc.sql.common import bulk_insert, in_savepoint, insert_all
from shopsvc.sql.tables import tax_classes, tax_rate_locations, tax_rates
from shopsvc.sql.taxes import class_id

# --- rates


def insert_rates(conn: Connection, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Insert the rates ``rows`` (values by column name, the same columns in each) in one
    statement (``sql.common.bulk_insert``: SQLAlchemy's own form on PostgreSQL, a ``VALUES``
    list with a parameter per value, cost psycopg a millisecond to parse for 100 rates); their
    new ids, sorted: in the order of ``rows``."""
    if not rows:
        return []
    statement, params = bulk_insert(conn.dialect.name, tax_rates, rows, returning=True)
    return sorted(int(i) for i in conn.execute(statement, params).scalars())


def rate_update(columns: Sequence[str]) -> Update:
    """The update of ``columns`` of one rate, executed with every rate that changes them: the
    rate's id binds ``rate_id``, each column's new value ``new_<column>``."""
    return (
        update(tax_rates)
        .where(tax_rates.c.id == bindparam("rate_id"))
        .values(
            {
                column: bindparam(f"new_{column}", type_=tax_rates.c[column].type)
                for column in columns
            }
        )
    )


def update_rates(conn: Connection, changes: Sequence[tuple[int, dict[str, Any]]]) -> None:
    """Write the changed columns of each rate (``(id, values by column name)``, in order): one
    statement for all the rates that change the same columns."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for rate_id, values in changes:
        if values:
            columns = tuple(sorted(values))
            row = {f"new_{column}": values[column] for column in columns}
            groups.setdefault(columns, []).append({"rate_id": rate_id, **row})
    for columns, rows in groups.items():
        conn.execute(rate_update(columns), rows)


def locations_delete(replaced: Mapping[str, Sequence[int]]) -> Delete:
    """The delete of the locations of each kind (``postcode``, ``city``) of the rates listed
    under it."""
    kind, rate = tax_rate_locations.c.location_type, tax_rate_locations.c.tax_rate_id
    return delete(tax_rate_locations).where(
        or_(*(and_(kind == name, ids_in(rate, ids)) for name, ids in replaced.items()))
    )


def write_locations(
    conn: Connection,
    replaced: Iterable[tuple[int, str]],
    rows: Sequence[tuple[int, str, str]],
) -> None:
    """Delete every location of the kinds ``replaced`` names (``(rate id, kind)``) in one
    statement, then insert ``rows`` (``(rate id, kind, code)``, stored in this order) in one."""
    by_kind: dict[str, list[int]] = {}
    for rate_id, kind in replaced:
        by_kind.setdefault(kind, []).append(rate_id)
    if by_kind:
        conn.execute(locations_delete(by_kind))
    insert_all(conn, tax_rate_locations, location_rows(rows))


def location_rows(rows: Sequence[tuple[int, str, str]]) -> list[dict[str, Any]]:
    """``(rate id, kind, code)`` as ``tax_rate_locations`` values."""
    return [
        {"tax_rate_id": rate_id, "location_type": kind, "code": code}
        for rate_id, kind, code in rows
    ]


def delete_rate(conn: Connection, rate_id: int) -> bool:
    """Delete the rate and its locations; False when no rate row was deleted."""
    conn.execute(delete(tax_rate_locations).where(tax_rate_locations.c.tax_rate_id == rate_id))
    return conn.execute(delete(tax_rates).where(tax_rates.c.id == rate_id)).rowcount > 0


# --- classes


def insert_class(conn: Connection, slug: str, name: str) -> bool:
    """Insert a class in a savepoint; False when a unique index refused it (a duplicate)."""
    statement = insert(tax_classes).values(slug=slug, name=name)
    return in_savepoint(conn, lambda: conn.execute(statement)) is not False


def delete_class(conn: Connection, slug: str) -> bool:
    """Delete the class with its rates and their locations; False when no class was deleted."""
    found = class_id(conn, slug)
    if found is None:
        return False
    rates = select(tax_rates.c.id).where(tax_rates.c.tax_class_id == found)
    conn.execute(delete(tax_rate_locations).where(tax_rate_locations.c.tax_rate_id.in_(rates)))
    conn.execute(delete(tax_rates).where(tax_rates.c.tax_class_id == found))
    return conn.execute(delete(tax_classes).where(tax_classes.c.id == found)).rowcount > 0
