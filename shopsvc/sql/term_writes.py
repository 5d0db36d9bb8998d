"""Writes of term-like records (``sql.terms``; a ``Scope`` says which family and which
taxonomy or attribute): insert and update in a savepoint (a unique index refusing them is
reported, not raised), and delete, which moves the term's children up to its parent and takes it
off the products.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import (
    Connection,
    func,
    select,
)

from shopsvc.sql import common
from shopsvc.sql.tables import (
    products,
)
from shopsvc.sql.terms import Scope, column_name


def _values(scope: Scope, values: dict[str, Any]) -> dict[str, Any]:
    """Field values by column name, keeping only the columns the store has."""
    return {column_name(k): v for k, v in values.items() if scope.store.has(k)}


def insert(conn: Connection, scope: Scope, values: dict[str, Any]) -> int | None:
    """Insert a term in a savepoint; its id, or None when a unique index refused it."""
    table = scope.table
    row = {**_values(scope, values), scope.store.scope_column.name: scope.value}
    statement = sa.insert(table).values(**row).returning(table.c.id)
    found = common.in_savepoint(conn, lambda: int(conn.execute(statement).scalar_one()))
    return None if found is False else found


def update(conn: Connection, scope: Scope, term_id: int, values: dict[str, Any]) -> bool:
    """Update a term in a savepoint; False when a unique index refused it."""
    changes = _values(scope, values)
    if not changes:
        return True
    table = scope.table
    statement = sa.update(table).where(scope.where(), table.c.id == term_id).values(**changes)
    return common.in_savepoint(conn, lambda: conn.execute(statement)) is not False


def delete(conn: Connection, scope: Scope, term_id: int) -> bool:
    """Delete a term: its children move up to its parent and products stop using it. False when
    no row was deleted, or when a child cannot move up (a sibling there has its name: sibling
    names are unique), and then nothing changed."""
    table = scope.table
    store = scope.store
    if store.has("parent"):
        parent = select(table.c.parent_id).where(table.c.id == term_id).scalar_subquery()
        moved = sa.update(table).where(scope.where(), table.c.parent_id == term_id)
        moved = moved.values(parent_id=func.coalesce(parent, 0))
        if common.in_savepoint(conn, lambda: conn.execute(moved)) is False:
            return False
    if store.usage_product is None:
        conn.execute(
            sa.update(products).where(store.usage_term == term_id).values({store.usage_term: None})
        )
    else:
        conn.execute(sa.delete(store.usage_product.table).where(store.usage_term == term_id))
    result = conn.execute(sa.delete(table).where(scope.where(), table.c.id == term_id))
    return result.rowcount > 0
