"""``sql.bundle.Bundle``: several queries in one ``UNION ALL``, each part's rows handed back in
the part's own ``ORDER BY`` (sort slots, not a window function per part)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from shopsvc.sql.bundle import Bundle, ids_in
from shopsvc.sql.tables import products
from tests.helpers.sql import add_product


def test_each_part_keeps_its_own_order(engine: sa.Engine) -> None:
    # inserted in an order that none of the parts' orders follows
    made = [
        add_product(engine, title=title, menu_order=menu_order)
        for title, menu_order in [("b", 2), ("a", 3), ("c", 1), ("a", 1), ("b", 3)]
    ]
    parts = {
        "by_title": sa.select(products.c.id, products.c.title)
        .where(ids_in(products.c.id, "ids"))
        .order_by(products.c.title, products.c.id),
        "unordered": sa.select(products.c.id).where(products.c.id == made[2]),
        "by_menu_order": sa.select(products.c.id, products.c.created_at)
        .where(ids_in(products.c.id, "ids"))
        .order_by(products.c.menu_order, products.c.title, products.c.id),
    }
    bundle = Bundle(parts)
    with engine.connect() as conn, conn.begin():
        got = bundle.run(conn, {"ids": made})
        alone = {
            name: [dict(row) for row in conn.execute(query, {"ids": made}).mappings()]
            for name, query in parts.items()
        }
    assert got == alone
    assert [row["title"] for row in got["by_title"]] == ["a", "a", "b", "b", "c"]
    expected = [made[3], made[2], made[0], made[1], made[4]]
    assert [row["id"] for row in got["by_menu_order"]] == expected


def test_only_plain_columns_order_a_part() -> None:
    query = sa.select(products.c.id).order_by(products.c.id.desc())
    with pytest.raises(TypeError, match="plain columns"):
        Bundle({"descending": query})
