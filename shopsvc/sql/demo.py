"""The writes and reads of ``shopsvc CONFIG seed`` (the generator is ``shopsvc.cli.demo``): id
reservation, batched inserts, the shared catalogue it reuses, and what an appending run reads.

Ids are reserved before the rows that use them are generated, so that a batch's children can
name their parents without a statement per row and the generator may run ahead of the inserts:

* PostgreSQL: ``nextval`` of the table's sequence, as many times as rows (a sequence never hands
  a value out twice, so concurrent writers are safe; an interrupted run only leaves a gap);
* SQLite: the table's ``sqlite_sequence`` entry is moved past the block in a short write
  transaction; ``AUTOINCREMENT`` then never hands those ids out again.

Rows are inserted by ``COPY … FROM STDIN`` on PostgreSQL (psycopg's ``cursor.copy()``: for a
batch of 20 000 orders with their children, 190 000 rows, about 3 times as fast as SQLAlchemy's
multi-row ``executemany`` and with a tenth of its client CPU) and by the driver's own
``executemany`` on SQLite, each batch in one transaction of the caller's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    DateTime,
    Engine,
    Table,
    and_,
    bindparam,
    func,
    insert,
    or_,
    select,
    text,
    update,
)

from shopsvc.sql.common import slugs_like
from shopsvc.sql.tables import (
    attribute_terms,
    attributes,
    customer_profiles,
    products,
    tax_classes,
    tax_rate_locations,
    tax_rates,
    terms,
    users,
    variation_attributes,
)

Row = dict[str, Any]

#: ``unique_slug(base, taken)``: the slug a new row gets (``domain.catalog.unique_slug``).
SlugRule = Callable[[str, Collection[str]], str]


# --- ids


class IdReserver:
    """Blocks of new ids for the tables a run writes, each reserved in a short transaction of
    its own (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
        self._sequences: dict[str, str] = {}

    def reserve(self, table: Table, count: int) -> Sequence[int]:
        """``count`` new ids of ``table``, ascending (on PostgreSQL not always contiguous)."""
        if count <= 0:
            return []
        if self.postgres:
            return self._from_sequence(table, count)
        return self._from_sqlite_sequence(table, count)

    def _from_sequence(self, table: Table, count: int) -> list[int]:
        with self.engine.connect() as conn:
            sequence = self._sequences.get(table.name)
            if sequence is None:
                sequence = conn.execute(
                    text("SELECT pg_get_serial_sequence(:table, 'id')"), {"table": table.name}
                ).scalar_one()
                self._sequences[table.name] = sequence
            ids = conn.execute(
                text("SELECT nextval(CAST(:seq AS regclass)) FROM generate_series(1, :n)"),
                {"seq": sequence, "n": count},
            ).scalars()
            found = sorted(ids)
            conn.commit()
        return found

    def _from_sqlite_sequence(self, table: Table, count: int) -> range:
        with self.engine.connect() as conn:
            conn.info["write"] = True  # BEGIN IMMEDIATE: one reservation at a time
            try:
                with conn.begin():
                    stored = conn.execute(
                        text("SELECT seq FROM sqlite_sequence WHERE name = :table"),
                        {"table": table.name},
                    ).scalar()
                    highest = conn.execute(select(func.max(table.c.id))).scalar()
                    first = max(int(stored or 0), int(highest or 0)) + 1
                    last = first + count - 1
                    if stored is None:
                        conn.execute(
                            text("INSERT INTO sqlite_sequence (name, seq) VALUES (:table, :seq)"),
                            {"table": table.name, "seq": last},
                        )
                    else:
                        conn.execute(
                            text("UPDATE sqlite_sequence SET seq = :seq WHERE name = :table"),
                            {"table": table.name, "seq": last},
                        )
            finally:
                conn.info.pop("write", None)
        return range(first, last + 1)


# --- batched inserts


def _sqlite_converters(conn: Connection, table: Table, columns: Sequence[str]) -> list[Any]:
    """Per column, the SQLite bind processor of a timestamp column (stored as text in
    SQLAlchemy's format), else None: every other value is passed as the generator made it
    (text, integers, booleans, None; money as decimal text)."""
    dialect = conn.dialect
    found: list[Any] = []
    for name in columns:
        column_type = table.c[name].type
        if isinstance(column_type, DateTime):
            found.append(column_type.dialect_impl(dialect).bind_processor(dialect))
        else:
            found.append(None)
    return found


def insert_rows(
    conn: Connection, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Insert ``rows`` (tuples in the order of ``columns``) into ``table`` in the caller's
    transaction: ``COPY`` on PostgreSQL, one ``executemany`` on SQLite."""
    if not rows:
        return
    names = ", ".join(columns)
    if conn.dialect.name == "postgresql":
        driver = conn.connection.driver_connection
        assert driver is not None
        statement = f"COPY {table.name} ({names}) FROM STDIN"
        with driver.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)
        return
    converters = _sqlite_converters(conn, table, columns)
    if any(converters):
        pairs = [(index, fn) for index, fn in enumerate(converters) if fn is not None]
        converted: list[Sequence[Any]] = []
        for row in rows:
            values = list(row)
            for index, fn in pairs:
                if values[index] is not None:
                    values[index] = fn(values[index])
            converted.append(tuple(values))
        rows = converted
    marks = ", ".join("?" for _ in columns)
    conn.exec_driver_sql(f"INSERT INTO {table.name} ({names}) VALUES ({marks})", list(rows))


def add_total_sales(conn: Connection, sold: dict[int, int]) -> None:
    """Add ``sold`` (product id → units) to the products' ``total_sales``: one statement with
    two arrays on PostgreSQL, one ``executemany`` on SQLite."""
    if not sold:
        return
    if conn.dialect.name == "postgresql":
        conn.execute(
            text(
                "UPDATE products SET total_sales = products.total_sales + sold.units "
                "FROM unnest(CAST(:ids AS integer[]), CAST(:units AS integer[])) "
                "AS sold (id, units) WHERE products.id = sold.id"
            ),
            {"ids": list(sold), "units": list(sold.values())},
        )
        return
    statement = (
        update(products)
        .where(products.c.id == bindparam("pid"))
        .values(total_sales=products.c.total_sales + bindparam("units"))
    )
    conn.execute(statement, [{"pid": pid, "units": units} for pid, units in sold.items()])


def vacuum_analyze(conn: Connection, tables: Iterable[Table]) -> None:
    """PostgreSQL only, on a connection in autocommit (VACUUM runs outside a transaction):
    ``VACUUM (ANALYZE)`` of the tables a large run filled -- fresh planner statistics, and the
    visibility map set, without which an index-only scan (the order and product counts) also
    reads the rows of the table (9 s on the seeded million-order database, docs/sql.md)."""
    if conn.dialect.name == "postgresql":
        for table in tables:
            conn.exec_driver_sql(f"VACUUM (ANALYZE) {table.name}")


# --- the run tag


def tag_in_use(conn: Connection, tag: str) -> bool:
    """Whether some product SKU or slug already holds ``-<tag>-``, or some login ends with
    ``-<tag>`` (what a run's SKUs, slugs and logins are made of)."""
    marker = f"-{tag}-"
    product = select(products.c.id).where(
        or_(
            func.lower(products.c.sku).contains(marker, autoescape=True),
            products.c.slug.contains(marker, autoescape=True),
        )
    )
    user = select(users.c.id).where(users.c.login.endswith(f"-{tag}", autoescape=True))
    return (
        conn.execute(product.limit(1)).first() is not None
        or conn.execute(user.limit(1)).first() is not None
    )


# --- the shared catalogue: found by name or slug, created when missing


def find_or_create_term(
    conn: Connection,
    taxonomy: str,
    name: str,
    slug: str,
    parent_id: int = 0,
    description: str = "",
    *,
    unique_slug: SlugRule,
) -> int:
    """The term of ``taxonomy`` named ``name`` under ``parent_id`` (case-insensitively), else a
    new one, its slug ``unique_slug(slug, the slugs it must avoid)`` (the domain's rule)."""
    scope = and_(terms.c.taxonomy == taxonomy)
    by_name = select(terms.c.id).where(
        scope, terms.c.parent_id == parent_id, func.lower(terms.c.name) == name.lower()
    )
    found = conn.execute(by_name).scalar()
    if found is not None:
        return int(found)
    free = unique_slug(slug, slugs_like(conn, terms.c.slug, slug, scope))
    statement = (
        insert(terms)
        .values(
            taxonomy=taxonomy,
            name=name,
            slug=free,
            description=description,
            parent_id=parent_id,
            display="default" if taxonomy == "product_cat" else "",
        )
        .returning(terms.c.id)
    )
    return int(conn.execute(statement).scalar_one())


def find_or_create_attribute(conn: Connection, name: str, slug: str) -> int:
    """The global attribute ``slug`` (stored without ``pa_``), else a new select attribute."""
    found = conn.execute(select(attributes.c.id).where(attributes.c.slug == slug)).scalar()
    if found is not None:
        return int(found)
    statement = (
        insert(attributes)
        .values(name=name, slug=slug, type="select", order_by="menu_order", has_archives=False)
        .returning(attributes.c.id)
    )
    return int(conn.execute(statement).scalar_one())


def find_or_create_attribute_terms(
    conn: Connection,
    attribute_id: int,
    names: Sequence[tuple[str, str]],
    *,
    unique_slug: SlugRule,
) -> dict[str, tuple[int, str]]:
    """``name → (term id, slug)`` of the attribute's terms ``names`` (``(name, slug)`` pairs),
    those missing created (matched by name, case-insensitively; a new one's slug made free)."""
    rows = conn.execute(
        select(attribute_terms.c.id, attribute_terms.c.name, attribute_terms.c.slug).where(
            attribute_terms.c.attribute_id == attribute_id
        )
    ).all()
    by_name = {name.lower(): (int(term_id), slug) for term_id, name, slug in rows}
    slugs = {slug for _, _, slug in rows}
    found: dict[str, tuple[int, str]] = {}
    for order, (name, slug) in enumerate(names):
        existing = by_name.get(name.lower())
        if existing is None:
            free = unique_slug(slug, slugs)
            term_id = conn.execute(
                insert(attribute_terms)
                .values(attribute_id=attribute_id, name=name, slug=free, menu_order=order)
                .returning(attribute_terms.c.id)
            ).scalar_one()
            slugs.add(free)
            existing = (int(term_id), free)
        found[name] = existing
    return found


def find_or_create_tax_class(conn: Connection, name: str, slug: str) -> int:
    """The id of the tax class ``slug``, created when missing."""
    found = conn.execute(select(tax_classes.c.id).where(tax_classes.c.slug == slug)).scalar()
    if found is not None:
        return int(found)
    statement = insert(tax_classes).values(name=name, slug=slug).returning(tax_classes.c.id)
    return int(conn.execute(statement).scalar_one())


def tax_rate_count(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(tax_rates)).scalar_one())


def insert_tax_rate(conn: Connection, values: Row) -> None:
    conn.execute(insert(tax_rates).values(**values))


def tax_class_slugs(conn: Connection) -> tuple[str, ...]:
    """The store's class slugs (standard excluded) in the store's order: by name, then id."""
    query = select(tax_classes.c.slug).order_by(tax_classes.c.name, tax_classes.c.id)
    return tuple(conn.execute(query).scalars())


def all_tax_rates(conn: Connection) -> list[Row]:
    """Every tax rate with its class slug (``""``: standard), postcodes and cities, in the order
    the rates are matched in (``rate_order``, id)."""
    query = (
        select(tax_rates, func.coalesce(tax_classes.c.slug, "").label("class_slug"))
        .select_from(tax_rates.outerjoin(tax_classes))
        .order_by(tax_rates.c.rate_order, tax_rates.c.id)
    )
    rates = [dict(row) for row in conn.execute(query).mappings()]
    locations: dict[int, dict[str, list[str]]] = {}
    query_locations = select(tax_rate_locations).order_by(tax_rate_locations.c.id)
    for row in conn.execute(query_locations).mappings():
        kinds = locations.setdefault(row["tax_rate_id"], {"postcode": [], "city": []})
        kinds.setdefault(row["location_type"], []).append(row["code"])
    for rate in rates:
        kinds = locations.get(rate["id"], {})
        rate["postcodes"] = tuple(kinds.get("postcode", []))
        rate["cities"] = tuple(kinds.get("city", []))
    return rates


# --- what an appending run without new products or customers sells to


def existing_sellables(conn: Connection, limit: int) -> list[Row]:
    """Up to ``limit`` of the newest published simple products and published variations of
    published variable products with a price: ``product_id``, ``variation_id``, ``title``,
    ``price`` (the sale price when set, else the regular one), ``tax_class``, ``tax_status``
    (a variation's from its parent) and the variation's ``values`` (attribute key → value)."""
    parent = products.alias("parent")
    price = func.coalesce(products.c.sale_price, products.c.regular_price)
    own_class = products.c.tax_class
    query = (
        select(
            products.c.id,
            products.c.type,
            products.c.parent_id,
            products.c.title,
            price.label("price"),
            own_class.label("own_class"),
            parent.c.tax_class.label("parent_class"),
            func.coalesce(parent.c.tax_status, products.c.tax_status).label("tax_status"),
        )
        .select_from(products.outerjoin(parent, parent.c.id == products.c.parent_id))
        .where(
            products.c.status == "publish",
            price.is_not(None),
            or_(
                products.c.type == "simple",
                and_(
                    products.c.type == "variation",
                    parent.c.type == "variable",
                    parent.c.status == "publish",
                ),
            ),
        )
        .order_by(products.c.id.desc())
        .limit(limit)
    )
    rows = [dict(row) for row in conn.execute(query).mappings()]
    variation_ids = [row["id"] for row in rows if row["type"] == "variation"]
    values: dict[int, list[tuple[str, str]]] = {}
    for start in range(0, len(variation_ids), 5000):
        chunk = variation_ids[start : start + 5000]
        found = conn.execute(
            select(
                variation_attributes.c.variation_id,
                variation_attributes.c.attribute_key,
                variation_attributes.c.value,
                attributes.c.id.label("global_id"),
            )
            .select_from(
                variation_attributes.outerjoin(
                    attributes, attributes.c.slug == variation_attributes.c.attribute_key
                )
            )
            .where(variation_attributes.c.variation_id.in_(chunk))
            .order_by(variation_attributes.c.variation_id, variation_attributes.c.attribute_key)
        )
        for variation_id, key, value, global_id in found:
            if value:
                meta_key = f"pa_{key}" if global_id is not None else key
                values.setdefault(variation_id, []).append((meta_key, value))
    sellables = []
    for row in rows:
        is_variation = row["type"] == "variation"
        tax_class = row["own_class"] or ""
        if tax_class == "parent":
            tax_class = (row["parent_class"] or "") if is_variation else ""
        sellables.append(
            {
                "product_id": row["parent_id"] if is_variation else row["id"],
                "variation_id": row["id"] if is_variation else None,
                "title": row["title"],
                "price": row["price"],
                "tax_class": tax_class,
                "taxable": row["tax_status"] == "taxable",
                "meta": values.get(row["id"], []),
            }
        )
    return sellables


def existing_customers(conn: Connection, limit: int) -> list[Row]:
    """Up to ``limit`` of the newest customers: ``id``, ``email``, ``created_at`` and the
    ``billing`` / ``shipping`` addresses of their profile (``{}`` when they have none)."""
    query = (
        select(
            users.c.id,
            users.c.email,
            users.c.first_name,
            users.c.last_name,
            users.c.created_at,
            customer_profiles.c.billing,
            customer_profiles.c.shipping,
        )
        .select_from(users.outerjoin(customer_profiles))
        .where(users.c.role == "customer")
        .order_by(users.c.id.desc())
        .limit(limit)
    )
    found = []
    for row in conn.execute(query).mappings():
        found.append(
            {
                "id": row["id"],
                "email": row["email"],
                "first_name": row["first_name"],
                "last_name": row["last_name"],
                "created_at": row["created_at"],
                "billing": _json_object(row["billing"]),
                "shipping": _json_object(row["shipping"]),
            }
        )
    found.reverse()
    return found


def _json_object(value: str | None) -> dict[str, str]:
    try:
        loaded = json.loads(value or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
