"""What several query modules share: a write that a unique index may refuse, and the slugs a new
slug must avoid.

The rule that picks a free slug (``base``, ``base-2``, …) is pure and lives in
``shopsvc.domain.catalog.unique_slug``; this module only reads the slugs it must avoid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from sqlalchemy import Column, ColumnElement, Connection, or_, select
from sqlalchemy.exc import IntegrityError

T = TypeVar("T")


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
