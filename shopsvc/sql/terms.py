"""Term-like records: categories, tags and shipping classes (rows of ``terms``, one taxonomy each)
and the terms of a global attribute (rows of ``attribute_terms``, one attribute each).

One implementation serves the four families. A ``Store`` says where a family's rows live (table
and scoping column) and how products use them (for ``count``); a ``Scope`` is a store with the
value of its scoping column (a taxonomy name, or an attribute id). Rows come back as plain dicts
with every field a family may show: ``id, name, slug, parent, description, display, image_id,
image_file, menu_order, count`` (a store without a column gets its neutral value). ``count`` is the
number of *published* products using the term, computed by one grouped sub-query joined to the
list, never per row. The writes are in ``sql.term_writes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Connection,
    FromClause,
    Select,
    Table,
    func,
    literal_column,
    null,
    select,
)

from shopsvc.sql import common
from shopsvc.sql.tables import (
    attribute_terms,
    media,
    product_attribute_terms,
    product_terms,
    products,
    terms,
)

PUBLISHED = "publish"
#: The neutral value of a field a store has no column for.
NEUTRAL: dict[str, Any] = {
    "parent": 0,
    "description": "",
    "display": "",
    "image_id": None,
    "menu_order": 0,
}


@dataclass(frozen=True)
class Store:
    """Where a family's terms live and how products use them."""

    table: Table
    #: the column that scopes a family's rows (``taxonomy`` or ``attribute_id``)
    scope_column: Column[Any]
    #: the column naming the term in the table that links it to products
    usage_term: Column[Any]
    #: the product id column of that table; None when the term column is on ``products`` itself
    usage_product: Column[Any] | None

    def has(self, field: str) -> bool:
        return column_name(field) in self.table.c

    def usage(self) -> FromClause:
        if self.usage_product is None:
            return products
        return self.usage_product.table.join(products, products.c.id == self.usage_product)


def column_name(field: str) -> str:
    return "parent_id" if field == "parent" else field


TAXONOMY = Store(terms, terms.c.taxonomy, product_terms.c.term_id, product_terms.c.product_id)
SHIPPING = Store(terms, terms.c.taxonomy, products.c.shipping_class_id, None)
ATTRIBUTE = Store(
    attribute_terms,
    attribute_terms.c.attribute_id,
    product_attribute_terms.c.attribute_term_id,
    product_attribute_terms.c.product_id,
)


@dataclass(frozen=True)
class Scope:
    """The terms of one family: a store and the value of its scoping column."""

    store: Store
    value: str | int

    @property
    def table(self) -> Table:
        return self.store.table

    def where(self) -> ColumnElement[bool]:
        return self.store.scope_column == self.value

    def column(self, field: str) -> Column[Any]:
        return self.table.c[column_name(field)]


# --- reading


def _counts(scope: Scope, term_id: int | None) -> Any:
    """``(term_id, n)``: published products per term of the scope (or of one term)."""
    store = scope.store
    mine = (
        store.usage_term == term_id
        if term_id is not None
        else store.usage_term.in_(select(scope.table.c.id).where(scope.where()))
    )
    return (
        select(store.usage_term.label("term_id"), func.count().label("n"))
        .select_from(store.usage())
        .where(products.c.status == PUBLISHED, mine)
        .group_by(store.usage_term)
        .subquery("usage_counts")
    )


def _neutral(value: Any) -> Any:
    return null() if value is None else literal_column(repr(value))


def _select(scope: Scope, term_id: int | None = None) -> Select[Any]:
    table = scope.table
    has = scope.store.has
    counts = _counts(scope, term_id)
    columns: list[Any] = [table.c.id, table.c.name, table.c.slug]
    for field, neutral in NEUTRAL.items():
        columns.append((scope.column(field) if has(field) else _neutral(neutral)).label(field))
    source: FromClause = table
    if has("image_id"):
        source = table.outerjoin(media, media.c.id == table.c.image_id)
    columns.append((media.c.file if has("image_id") else null()).label("image_file"))
    columns.append(func.coalesce(counts.c.n, 0).label("count"))
    query = (
        select(*columns)
        .select_from(source.outerjoin(counts, counts.c.term_id == table.c.id))
        .where(scope.where())
    )
    return query if term_id is None else query.where(table.c.id == term_id)


def _dict(row: Any) -> dict[str, Any]:
    record = dict(row)
    record["count"] = int(record["count"])
    record["parent"] = int(record["parent"] or 0)
    record["menu_order"] = int(record["menu_order"] or 0)
    return record


def get(conn: Connection, scope: Scope, term_id: int) -> dict[str, Any] | None:
    row = conn.execute(_select(scope, term_id)).mappings().first()
    return _dict(row) if row else None


def list_query(scope: Scope) -> Select[Any]:
    """Every term of the scope with its count of published products, by id."""
    return _select(scope).order_by(scope.table.c.id)


def list_all(conn: Connection, scope: Scope) -> list[dict[str, Any]]:
    """Every term of the scope with its count, by id (the family orders them)."""
    return [_dict(row) for row in conn.execute(list_query(scope)).mappings()]


def exists(conn: Connection, scope: Scope, term_id: int) -> bool:
    table = scope.table
    query = select(table.c.id).where(scope.where(), table.c.id == term_id)
    return conn.execute(query).first() is not None


def parents(conn: Connection, scope: Scope) -> dict[int, int]:
    """Every term's parent id (0 for none), for walking up the tree."""
    table = scope.table
    query = select(table.c.id, table.c.parent_id).where(scope.where())
    return {int(term_id): int(parent or 0) for term_id, parent in conn.execute(query)}


def sibling_named(
    conn: Connection, scope: Scope, name: str, parent: int, exclude: int | None = None
) -> bool:
    """Whether another term of the scope under ``parent`` has ``name`` (case-insensitively)."""
    table = scope.table
    query = select(table.c.id).where(scope.where(), func.lower(table.c.name) == func.lower(name))
    if scope.store.has("parent"):
        query = query.where(table.c.parent_id == parent)
    if exclude is not None:
        query = query.where(table.c.id != exclude)
    return conn.execute(query.limit(1)).first() is not None


def slug_owner(conn: Connection, scope: Scope, slug: str) -> int | None:
    """The id of the term of the scope that has ``slug``."""
    table = scope.table
    found = conn.execute(select(table.c.id).where(scope.where(), table.c.slug == slug)).scalar()
    return None if found is None else int(found)


def slugs_like(conn: Connection, scope: Scope, base: str, exclude: int | None = None) -> set[str]:
    """The slugs of the scope that are ``base`` or ``base-…`` (for making a new one unique)."""
    return common.slugs_like(conn, scope.column("slug"), base, scope.where(), exclude=exclude)
