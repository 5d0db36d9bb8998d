"""The writes of orders: the order row, its items and item meta, and what the writers read to
price and tax them (products by id or SKU, a variable product's variations, every tax rate)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from shopsvc.sql.common import check_amounts
from shopsvc.sql.tables import (
    order_item_meta,
    order_items,
    orders,
    products,
    tax_classes,
    variation_attributes,
)

Row = dict[str, Any]


# --- orders


def insert_order(conn: Connection, values: Row) -> int:
    check_amounts(orders, [values], "order")
    return int(conn.execute(insert(orders).values(**values).returning(orders.c.id)).scalar_one())


def update_order(conn: Connection, order_id: int, values: Row) -> None:
    if values:
        check_amounts(orders, [values], "order")
        conn.execute(update(orders).where(orders.c.id == order_id).values(**values))


def get_order(conn: Connection, order_id: int) -> Row | None:
    row = conn.execute(select(orders).where(orders.c.id == order_id)).mappings().first()
    return dict(row) if row else None


# --- items


def insert_item(conn: Connection, values: Row) -> int:
    check_amounts(order_items, [values], "order")
    statement = insert(order_items).values(**values).returning(order_items.c.id)
    return int(conn.execute(statement).scalar_one())


def update_item(conn: Connection, item_id: int, values: Row) -> None:
    if values:
        check_amounts(order_items, [values], "order")
        conn.execute(update(order_items).where(order_items.c.id == item_id).values(**values))


def delete_items(conn: Connection, item_ids: Iterable[int]) -> None:
    ids = list(item_ids)
    if ids:
        conn.execute(delete(order_item_meta).where(order_item_meta.c.item_id.in_(ids)))
        conn.execute(delete(order_items).where(order_items.c.id.in_(ids)))


def get_item(conn: Connection, item_id: int) -> Row | None:
    row = conn.execute(select(order_items).where(order_items.c.id == item_id)).mappings().first()
    return dict(row) if row else None


def get_items(conn: Connection, order_id: int) -> list[Row]:
    """Every item of the order, by id."""
    query = select(order_items).where(order_items.c.order_id == order_id).order_by(order_items.c.id)
    return [dict(row) for row in conn.execute(query).mappings()]


def insert_item_meta(conn: Connection, item_id: int, entries: Iterable[tuple[str, str]]) -> None:
    rows = [{"item_id": item_id, "meta_key": k, "meta_value": v} for k, v in entries]
    if rows:
        conn.execute(insert(order_item_meta), rows)


# --- products


#: What a line item needs of a product or variation.
LINE_PRODUCT_COLUMNS = (
    products.c.id,
    products.c.parent_id,
    products.c.type,
    products.c.status,
    products.c.title,
    products.c.sku,
    products.c.regular_price,
    products.c.sale_price,
    products.c.sale_from,
    products.c.sale_to,
    products.c.tax_status,
    products.c.tax_class,
    products.c.virtual,
    products.c.downloadable,
)


def get_product(conn: Connection, product_id: int) -> Row | None:
    """What a line item needs of a product or variation, or None."""
    query = select(*LINE_PRODUCT_COLUMNS).where(products.c.id == product_id)
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


def get_products(conn: Connection, product_ids: Iterable[int]) -> dict[int, Row]:
    ids = sorted(set(product_ids))
    if not ids:
        return {}
    query = select(*LINE_PRODUCT_COLUMNS).where(products.c.id.in_(ids))
    return {row["id"]: dict(row) for row in conn.execute(query).mappings()}


def variations_with_values(conn: Connection, parent_id: int) -> list[tuple[int, dict[str, str]]]:
    """The variations of ``parent_id`` not in the trash, by menu order then id, each with its
    attribute values (key → value)."""
    query = (
        select(products.c.id)
        .where(
            products.c.parent_id == parent_id,
            products.c.type == "variation",
            products.c.status != "trash",
        )
        .order_by(products.c.menu_order, products.c.id)
    )
    ids = [int(i) for i in conn.execute(query).scalars()]
    values: dict[int, dict[str, str]] = {i: {} for i in ids}
    if ids:
        rows = conn.execute(
            select(
                variation_attributes.c.variation_id,
                variation_attributes.c.attribute_key,
                variation_attributes.c.value,
            ).where(variation_attributes.c.variation_id.in_(ids))
        )
        for variation_id, key, value in rows:
            values[variation_id][key] = value
    return [(i, values[i]) for i in ids]


# --- taxes


def tax_class_slugs(conn: Connection) -> tuple[str, ...]:
    """The store's class slugs (standard excluded) in the store's order: by name, then id."""
    query = select(tax_classes.c.slug).order_by(tax_classes.c.name, tax_classes.c.id)
    return tuple(conn.execute(query).scalars())
