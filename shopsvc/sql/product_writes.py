"""Writes of one product at a time outside a create or edit (which ``sql.product_batch``
writes, for one product or many): the trash, deleting a product, stock and sales.

Everything runs on the caller's connection and transaction (``shopsvc.writers``). Names follow
one verb set: ``insert_…``, ``update_…`` and ``delete_…``.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Connection, delete, update

from shopsvc.sql.tables import products


def update_to_trash(conn: Connection, product_id: int, now: dt.datetime) -> bool:
    """Move a product (and, for a variable product, its variations) to the trash, keeping each
    one's status in ``status_before_trash``; True when the product was moved."""
    moved = conn.execute(
        update(products)
        .where(products.c.id == product_id, products.c.status != "trash")
        .values(status_before_trash=products.c.status, status="trash", updated_at=now)
    ).rowcount
    if moved:
        conn.execute(
            update(products)
            .where(
                products.c.parent_id == product_id,
                products.c.type == "variation",
                products.c.status != "trash",
            )
            .values(status_before_trash=products.c.status, status="trash", updated_at=now)
        )
    return moved > 0


def delete_product(conn: Connection, product_id: int) -> bool:
    """Delete a product for good: its variations are deleted, other children detached (their
    ``parent_id`` cleared); child rows (gallery, terms, attributes, downloads, reviews) go by
    cascade. True when the product existed."""
    conn.execute(
        delete(products).where(products.c.parent_id == product_id, products.c.type == "variation")
    )
    conn.execute(update(products).where(products.c.parent_id == product_id).values(parent_id=None))
    return conn.execute(delete(products).where(products.c.id == product_id)).rowcount > 0


# --- stock and sales


def update_stock(conn: Connection, product_id: int, quantity: int, status: str) -> None:
    """Store a stock-managed product's new quantity and the status it gives."""
    conn.execute(
        update(products)
        .where(products.c.id == product_id)
        .values(stock_quantity=quantity, stock_status=status)
    )


def update_stock_status(conn: Connection, product_id: int, status: str) -> None:
    conn.execute(update(products).where(products.c.id == product_id).values(stock_status=status))
