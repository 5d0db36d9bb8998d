"""The product queries rewritten for a large catalogue (docs/sql.md, "The seeded million-order
database") answer what the simple forms answered, on both databases, at their boundaries."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
import sqlalchemy as sa

from shopsvc.cli.dba import Explain
from shopsvc.sql import product_data as product_data_sql
from shopsvc.sql import products as products_sql
from shopsvc.sql.paging import ListFilters
from shopsvc.sql.tables import product_terms, products
from shopsvc.testing.catalog import CatalogFactory


def _qualifies(row: sa.Row, hide_out_of_stock: bool) -> bool:
    return (
        row.status == "publish"
        and row.type != "variation"
        and row.catalog_visibility in products_sql.CATALOG_VISIBLE
        and not (hide_out_of_stock and row.stock_status == "outofstock")
    )


@pytest.mark.parametrize("hide_out_of_stock", [False, True])
def test_related_members_are_the_first_qualifying_ones_of_each_term(
    engine: sa.Engine, factory: CatalogFactory, hide_out_of_stock: bool
) -> None:
    """Per term, the ``RELATED_LIMIT + 1`` smallest ids of its published, catalog-visible
    (in-stock when hidden) non-variation members: terms with no, fewer, exactly as many and
    more members than that, the members that do not qualify interleaved. Each database's form
    of the query (``LATERAL``, PostgreSQL's; a correlated sub-query through ``json_each``,
    SQLite's) on its database."""
    form = engine.dialect.name
    rng = random.Random(7)
    limit = products_sql.RELATED_LIMIT + 1
    sizes = [0, 1, limit - 1, limit, limit + 1, 3 * limit]
    term_ids = [factory.category(f"Related size {n} {hide_out_of_stock}") for n in sizes]
    term_ids.append(factory.tag(f"Related tag {hide_out_of_stock}"))
    sizes.append(2 * limit)
    spoilers = [
        {"status": "draft"},
        {"status": "trash"},
        {"catalog_visibility": "hidden"},
        {"catalog_visibility": "search"},
        {"stock_status": "outofstock"},
        {"type": "variation"},
    ]
    for term_id, size in zip(term_ids, sizes, strict=True):
        for n in range(size):
            extra = rng.choice(spoilers) if rng.random() < 0.4 else {}
            catalog = rng.choice(["visible", "catalog"])
            columns = {"catalog_visibility": catalog, **extra}
            if rng.random() < 0.3:  # a member of two of the terms
                other = rng.choice(term_ids)
                factory.product(f"M {term_id} {n}", categories=[term_id, other], **columns)
            else:
                factory.product(f"M {term_id} {n}", categories=[term_id], **columns)
    with engine.connect() as conn:
        members = conn.execute(
            sa.select(product_terms.c.term_id, products)
            .join(products, products.c.id == product_terms.c.product_id)
            .where(product_terms.c.term_id.in_(term_ids))
        ).all()
        query = products_sql.related_query(term_ids, hide_out_of_stock, form)
        found = conn.execute(query).all()
    expected: dict[int, list[int]] = defaultdict(list)
    for row in members:
        if _qualifies(row, hide_out_of_stock):
            expected[row.term_id].append(row.id)
    wanted = sorted((t, p) for t, ids in expected.items() for p in sorted(ids)[:limit])
    ranked = [(row.term_id, row.product_id) for row in found]
    assert sorted(ranked) == wanted
    # the boundaries were there to be crossed
    assert any(len(ids) > limit for ids in expected.values())
    assert any(0 < len(ids) < limit for ids in expected.values())


def test_search_matches_a_word_in_any_searched_column_only(
    engine: sa.Engine, factory: CatalogFactory
) -> None:
    """``filter[q]``: every word in the title, the description or the short description
    (case-insensitively), each word anywhere."""
    made = {
        "title": factory.product("Zyqx Alpha Lamp"),
        "description": factory.product("Plain", description="a ZYQX beta thing"),
        "short": factory.product("Plain", short_description="zyqxgamma"),
        "across": factory.product("Lamp zyq", description="x delta"),
        "both": factory.product("Zyqx", description="omegaq"),
    }

    def search(q: str) -> set[int]:
        params = ListFilters(limit=100, q=q)
        filters = products_sql.ProductFilters(statuses=None)
        with engine.connect() as conn:
            return {row.id for row in conn.execute(products_sql.page_query(params, filters))}

    ours = set(made.values())
    assert search("zyqx") & ours == {
        made["title"],
        made["description"],
        made["short"],
        made["both"],
    }
    assert search("zyqx omegaq") & ours == {made["both"]}
    assert search("zyq x") & ours >= {made["across"]}  # two words, each somewhere
    assert search("lamp zyqx") & ours == {made["title"]}


def test_the_search_index_serves_filter_q(engine: sa.Engine, factory: CatalogFactory) -> None:
    """PostgreSQL: ``filter[q]``'s expression is the one ``ix_products_search`` indexes (were
    they to drift apart, the search would read every product)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("a PostgreSQL index (SQLite has no trigrams)")
    factory.product("Brass lamp", description="a lamp of brass")
    every_status = products_sql.ProductFilters(statuses=None)  # no condition for another index
    query = products_sql.count_query(ListFilters(q="brass lamp"), every_status)
    with engine.connect() as conn, conn.begin() as transaction:
        # on a few rows any plan is cheap: leave the planner no other way than this index
        # (the transaction is rolled back, the index dropped for its duration only)
        conn.exec_driver_sql("DROP INDEX ix_products_listed")
        for scan in ("seqscan", "indexscan", "indexonlyscan"):
            conn.exec_driver_sql(f"SET LOCAL enable_{scan} = off")
        plan = "\n".join(str(row[0]) for row in conn.execute(Explain(query)))
        transaction.rollback()
    assert "Bitmap Index Scan on ix_products_search" in plan, plan


def _sqlite_plan(engine: sa.Engine, statement: sa.Executable) -> str:
    with engine.connect() as conn:
        return "\n".join(str(row[-1]) for row in conn.execute(Explain(statement)))


def test_sqlite_walks_a_terms_members_by_its_index(engine: sa.Engine) -> None:
    """SQLite: the related ids' sub-query reads a term's members from
    ``ix_product_terms_term`` in id order, each product checked by its primary key, as a
    correlated sub-query (run per term, stopped by its ``LIMIT``), never a scan of the
    members or of the products."""
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's form of the query")
    plan = _sqlite_plan(engine, products_sql.related_query([1, 2], False, "sqlite"))
    assert "CORRELATED SCALAR SUBQUERY" in plan, plan
    assert "ix_product_terms_term (term_id=?)" in plan, plan
    assert "SEARCH products USING INTEGER PRIMARY KEY (rowid=?)" in plan, plan
    assert "SCAN member" not in plan and "SCAN products" not in plan, plan
    assert "USE TEMP B-TREE" not in plan, plan


def test_sqlite_finds_a_products_terms_by_the_product(engine: sa.Engine) -> None:
    """SQLite: the categories and tags whose members make ``related_ids`` are the product's
    ``product_terms`` rows, each term checked by its primary key, not every category and tag of
    the store walked by taxonomy and looked up among the product's terms."""
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's plan")
    plan = _sqlite_plan(engine, product_data_sql._listed_terms([1]))
    assert "product_terms USING COVERING INDEX sqlite_autoindex_product_terms_1 (product_id=?)" in (
        plan
    ), plan
    assert "SEARCH terms USING INTEGER PRIMARY KEY (rowid=?)" in plan, plan
    assert "uq_terms_sibling_name" not in plan, plan


def test_sqlite_finds_a_familys_rows_by_parent_not_by_type(engine: sa.Engine) -> None:
    """SQLite: the family rows find the children of the requested products and their parents
    through ``ix_products_parent``; without statistics SQLite had taken ``ix_products_listing``
    on ``type`` for the variable or grouped children and walked every such product."""
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's plan")
    plan = _sqlite_plan(engine, product_data_sql.family_query([1, 2]))
    assert "ix_products_listing" not in plan, plan
    assert "USING INDEX ix_products_parent (parent_id=?)" in plan, plan


def test_postgresql_checks_each_related_member_by_its_primary_key(engine: sa.Engine) -> None:
    """PostgreSQL: per term the members are read in id order (``ix_product_terms_term``) and
    each is checked by a lookup of its product (a sub-plan), so the walk stops after
    ``RELATED_LIMIT + 1`` that qualify; as a join the planner merge-joined the members with
    ``products`` read in id order from the first product."""
    if engine.dialect.name != "postgresql":
        pytest.skip("a LATERAL plan (SQLite walks the members itself)")
    with engine.connect() as conn:
        plan = "\n".join(
            str(row[0]) for row in conn.execute(Explain(products_sql.related_query([1, 2], False)))
        )
    assert "SubPlan" in plan, plan
    assert "Index Scan using pk_products on products" in plan, plan
    assert "Merge Join" not in plan and "Hash Join" not in plan, plan
