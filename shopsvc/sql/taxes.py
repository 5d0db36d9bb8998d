"""Tax rates (with their postcode and city locations) and tax classes: reads.

A rate's class is ``tax_class_id``; NULL is the built-in ``standard`` class. Rates come back as
plain dicts with the class slug (``None`` for standard) and their locations as two lists,
``postcodes`` and ``cities``, in the order they were stored. A page of rates costs one count,
one select and one statement for the locations of the whole page. The writes are in
``sql.tax_writes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    func,
    select,
)

from shopsvc.sql import paging
from shopsvc.sql.paging import Listable, ListFilters
from shopsvc.sql.tables import tax_classes, tax_rate_locations, tax_rates

#: The class filter of the rate list: ``None`` (no filter), ``""`` (standard) or a class slug.
ClassFilter = str | None

LISTABLE = Listable(
    id=tax_rates.c.id,
    sort_keys={"order": tax_rates.c.rate_order, "id": tax_rates.c.id},
    search=(tax_rates.c.name,),
)
_RATE_COLUMNS = (
    tax_rates.c.id,
    tax_rates.c.country,
    tax_rates.c.state,
    tax_rates.c.rate,
    tax_rates.c.name,
    tax_rates.c.priority,
    tax_rates.c.compound,
    tax_rates.c.shipping,
    tax_rates.c.rate_order.label("order"),
    tax_rates.c.tax_class_id,
    tax_classes.c.slug.label("class"),
)
_RATES = tax_rates.outerjoin(tax_classes, tax_rates.c.tax_class_id == tax_classes.c.id)
LOCATION_KINDS = {"postcode": "postcodes", "city": "cities"}


def _rates() -> Select[Any]:
    return select(*_RATE_COLUMNS).select_from(_RATES)


def _class_terms(tax_class: ClassFilter) -> list[ColumnElement[bool]]:
    if tax_class is None:
        return []
    if tax_class == "":
        return [tax_rates.c.tax_class_id.is_(None)]
    return [tax_classes.c.slug == tax_class]


def locations_query(rate_ids: Sequence[int]) -> Select[Any]:
    """The postcode and city locations of these rates."""
    return (
        select(
            tax_rate_locations.c.tax_rate_id,
            tax_rate_locations.c.location_type,
            tax_rate_locations.c.code,
        )
        .where(tax_rate_locations.c.tax_rate_id.in_(rate_ids))
        .order_by(tax_rate_locations.c.tax_rate_id, tax_rate_locations.c.id)
    )


def _with_locations(conn: Connection, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with ``postcodes`` and ``cities`` lists, loaded in one statement."""
    if not rows:
        return list(rows)
    found = conn.execute(locations_query([row["id"] for row in rows]))
    return with_locations(rows, found)


def with_locations(
    rows: Sequence[dict[str, Any]], locations: Iterable[Sequence[Any]]
) -> list[dict[str, Any]]:
    """``rows`` with ``postcodes`` and ``cities`` lists from ``locations`` (``(rate id, kind,
    code)`` in stored order; those of other rates are ignored)."""
    by_id: dict[int, dict[str, Any]] = {}
    for row in rows:
        row["postcodes"], row["cities"] = [], []
        by_id[row["id"]] = row
    for rate_id, kind, code in locations:
        key = LOCATION_KINDS.get(kind)
        if key is not None and rate_id in by_id:
            by_id[rate_id][key].append(code)
    return list(rows)


# --- rates


def rate_query(rate_id: int) -> Select[Any]:
    """One rate with its class slug."""
    return _rates().where(tax_rates.c.id == rate_id)


def get_rate(conn: Connection, rate_id: int) -> dict[str, Any] | None:
    row = conn.execute(rate_query(rate_id)).mappings().first()
    return _with_locations(conn, [dict(row)])[0] if row else None


def rates_query(rate_ids: Sequence[int] | None = None) -> Select[Any]:
    """The rates ``rate_ids`` (every rate when None), by ``order`` then id."""
    query = _rates().order_by(tax_rates.c.rate_order, tax_rates.c.id)
    if rate_ids is not None:
        query = query.where(tax_rates.c.id.in_(sorted(set(rate_ids))))
    return query


def get_rates(conn: Connection, rate_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """The rates ``rate_ids`` that exist (every rate when None), by ``order`` then id, with
    their locations: two statements, whatever their number."""
    rows = [dict(row) for row in conn.execute(rates_query(rate_ids)).mappings()]
    return _with_locations(conn, rows)


def page_query(params: ListFilters, tax_class: ClassFilter) -> Select[Any]:
    """One page of rates of the class (``None``: any), ordered as ``params`` says."""
    return paging.page_query(_rates(), LISTABLE, params, _class_terms(tax_class))


def count_query(params: ListFilters, tax_class: ClassFilter) -> Select[Any]:
    """The number of rates of the list (its total, ``/taxes/count``)."""
    base = select(tax_rates.c.id).select_from(_RATES)
    return paging.total_query(base, LISTABLE, params, _class_terms(tax_class))


def page_rates(
    conn: Connection, params: ListFilters, tax_class: ClassFilter
) -> tuple[list[dict[str, Any]], int]:
    """One page of rates (ordered as ``params`` says) with their locations, and the total."""
    query, total = page_query(params, tax_class), count_query(params, tax_class)
    rows, found = paging.run_page(conn, query, total, params)
    return _with_locations(conn, rows), found


def count_rates(conn: Connection, params: ListFilters, tax_class: ClassFilter) -> int:
    return int(conn.execute(count_query(params, tax_class)).scalar_one())


# --- classes


def class_id(conn: Connection, slug: str) -> int | None:
    found = conn.execute(select(tax_classes.c.id).where(tax_classes.c.slug == slug)).scalar()
    return None if found is None else int(found)


def class_ids(conn: Connection, slugs: Iterable[str]) -> dict[str, int]:
    """The ids of the classes among ``slugs`` that exist, by slug: one statement."""
    wanted = sorted(set(slugs))
    if not wanted:
        return {}
    query = select(tax_classes.c.slug, tax_classes.c.id).where(tax_classes.c.slug.in_(wanted))
    return {slug: int(class_id) for slug, class_id in conn.execute(query)}


def class_name_exists(conn: Connection, name: str) -> bool:
    query = select(tax_classes.c.id).where(tax_classes.c.name == name)
    return conn.execute(query).first() is not None


def list_classes(conn: Connection) -> list[dict[str, Any]]:
    """Every stored class as ``{slug, name}``, by name (then id)."""
    query = select(tax_classes.c.slug, tax_classes.c.name).order_by(
        tax_classes.c.name, tax_classes.c.id
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def count_classes(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(tax_classes)).scalar_one())
