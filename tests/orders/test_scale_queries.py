"""The order queries rewritten for a million orders (docs/sql.md, "The seeded million-order
database") answer what the simple forms answered, on both databases."""

from __future__ import annotations

import datetime as dt
import random

import sqlalchemy as sa

from shopsvc.sql import orders as orders_sql
from shopsvc.sql.paging import ListFilters
from shopsvc.sql.tables import order_items, orders
from tests.helpers.orders import OrderFactory

STATUSES = [*orders_sql.LISTED_STATUSES, orders_sql.TRASH]


def test_counts_by_status_and_the_orders_of_a_product(engine: sa.Engine) -> None:
    """``/orders/count?status=any`` (one count per status) with every filter it reads, and the
    orders of a product (a page's ``OR`` and a count's union of the line indexes), against the
    rows counted in Python."""
    factory = OrderFactory(engine)
    rng = random.Random(11)
    customer = factory.customer()
    product, variation, other = 9_000_001, 9_000_002, 9_000_003
    made = []
    for n in range(60):
        status = rng.choice(STATUSES)
        order_id = factory.order(status=status, customer_id=customer if n % 3 == 0 else 0)
        for _ in range(rng.randint(0, 3)):
            if rng.random() < 0.5:
                factory.line(order_id, product_id=product, variation_id=variation)
            else:
                factory.line(order_id, product_id=rng.choice([product, other]))
        if rng.random() < 0.3:  # an item other than a line naming the product does not count
            factory._item(order_id, "fee", {"name": "Odd fee", "product_id": product})
        made.append(order_id)
    with engine.connect() as conn:
        rows = {
            row.id: row
            for row in conn.execute(sa.select(orders).where(orders.c.id.in_(made))).all()
        }
        lines = conn.execute(
            sa.select(
                order_items.c.order_id, order_items.c.product_id, order_items.c.variation_id
            ).where(order_items.c.order_id.in_(made), order_items.c.item_type == "line_item")
        ).all()
        middle = sorted(row.created_at for row in rows.values())[len(rows) // 2]
        within = ListFilters(ids_in=tuple(made), created_min=middle - dt.timedelta(minutes=10))
        by_customer = orders_sql.OrderFilters(customer_id=customer)
        for params, filters, keep in [
            (ListFilters(ids_in=tuple(made)), orders_sql.OrderFilters(), lambda r: True),
            (within, orders_sql.OrderFilters(), lambda r: r.created_at >= within.created_min),
            (ListFilters(ids_in=tuple(made)), by_customer, lambda r: r.customer_id == customer),
        ]:
            counts = orders_sql.count_by_status(conn, params, filters)
            assert list(counts) == list(orders_sql.LISTED_STATUSES)
            for status in orders_sql.LISTED_STATUSES:
                expected = sum(1 for r in rows.values() if r.status == status and keep(r))
                assert counts[status] == expected, status
        for wanted in (product, variation, other):
            having = {
                line.order_id for line in lines if wanted in (line.product_id, line.variation_id)
            }
            listed = sorted(
                (o for o in having if rows[o].status != orders_sql.TRASH),
                key=lambda o: (rows[o].created_at, o),
                reverse=True,
            )
            params = ListFilters(limit=100, ids_in=tuple(made))
            filters = orders_sql.OrderFilters(product_id=wanted)
            ids, total = orders_sql.page_order_ids(conn, params, filters)
            assert ids == listed
            assert total == len(listed) == orders_sql.count_orders(conn, params, filters)
            assert orders_sql.order_ids_with_product(conn, wanted) == sorted(having)
            # pages of 7 put together are the list, whatever the plan chose for each
            paged = []
            for page in range(1, len(listed) // 7 + 2):
                step = ListFilters(limit=7, offset=(page - 1) * 7, ids_in=tuple(made))
                paged += orders_sql.page_order_ids(conn, step, filters)[0]
            assert paged == listed
