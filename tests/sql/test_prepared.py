"""``shopsvc.sql.prepared``: a statement run on the driver's cursor gives what ``conn.execute``
gives (types included), goes through the engine's cursor events, and raises SQLAlchemy's
errors; on both databases."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from psycopg.types.numeric import Int4

from shopsvc.sql import orders as orders_sql
from shopsvc.sql import prepared
from shopsvc.sql import product_data as product_data_sql
from shopsvc.sql.bundle import Bundle, ids_in
from shopsvc.sql.prepared import PADDED_IDS_MAX, Native, Prepared, native_sql
from shopsvc.sql.tables import orders, products
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.sql import add_product, statements


def _seed(engine: sa.Engine) -> dict[str, Any]:
    with engine.begin() as conn:
        factory = CatalogFactory(conn)
        shirt = factory.product("Shirt", type="variable", sku="S-1", regular_price="12.50")
        factory.variation(shirt, regular_price="10.00", sku="S-1-a")
        mug = factory.product("Mug", sku="M-1", regular_price="4.99", featured=True)
        when = dt.datetime(2026, 1, 2, 3, 4, 5)
        conn.execute(sa.update(products).where(products.c.id == mug).values(created_at=when))
    return {"shirt": shirt, "mug": mug, "when": when}


def _both(engine: sa.Engine, statement: Any, params: dict[str, Any]) -> tuple[Any, Any]:
    with engine.connect() as conn, conn.begin():
        expected = [dict(row) for row in conn.execute(statement, params).mappings()]
        prepared = Prepared(statement)
        got = prepared.mappings(conn, params)
        again = prepared.mappings(conn, params)  # the plan, reused
    assert again == got
    return expected, got


def test_same_rows_and_types_as_execute(engine: sa.Engine) -> None:
    seeded = _seed(engine)
    statement = sa.select(products).where(ids_in(products.c.id, "ids")).order_by(products.c.id)
    expected, got = _both(engine, statement, {"ids": [seeded["shirt"], seeded["mug"], 10**12]})
    assert got == expected
    assert len(got) == 2
    mug = got[1]
    assert mug["created_at"] == seeded["when"]
    assert isinstance(mug["created_at"], dt.datetime)
    assert mug["featured"] is True
    prices = [row["regular_price"] for row in got]
    assert all(price is None or isinstance(price, Decimal) for price in prices)
    assert Decimal("4.99") in prices


def test_constant_in_lists_and_named_parameters(engine: sa.Engine) -> None:
    seeded = _seed(engine)
    statement = (
        sa.select(products.c.id, products.c.type)
        .where(products.c.type.in_(("variable", "grouped")))
        .where(products.c.id >= sa.bindparam("low"))
    )
    expected, got = _both(engine, statement, {"low": 0})
    assert got == expected == [{"id": seeded["shirt"], "type": "variable"}]
    with engine.connect() as conn, conn.begin():
        # a constant IN list rendered into the SQL is not bound again: the slow path takes it
        fallback = Prepared(statement).mappings(conn, {"low": 0, "type_1": ["simple"]})
    assert [row["type"] for row in fallback] == ["simple"]


def test_bundles_and_the_record_loaders_read_the_same(engine: sa.Engine) -> None:
    seeded = _seed(engine)
    bundle = Bundle(
        {
            "rows": sa.select(products.c.id, products.c.created_at).where(
                ids_in(products.c.id, "ids")
            ),
            "kids": sa.select(products.c.id, products.c.regular_price)
            .where(ids_in(products.c.parent_id, "ids"))
            .order_by(products.c.id),
        }
    )
    ids = [seeded["shirt"], seeded["mug"]]
    with engine.connect() as conn, conn.begin():
        expected = bundle.split(conn.execute(bundle.statement, {"ids": ids}))
        got = bundle.run(conn, {"ids": ids})
        rows = product_data_sql.load_product_rows(conn, ids)
        executed = [
            dict(row) for row in conn.execute(product_data_sql.family_query(ids)).mappings()
        ]
    assert got == expected
    assert sorted(rows, key=lambda row: row["id"]) == sorted(executed, key=lambda r: r["id"])


def test_cursor_events_see_the_statement(engine: sa.Engine) -> None:
    _seed(engine)
    prepared = Prepared(sa.select(orders.c.id).where(orders.c.id == sa.bindparam("id")))
    with statements(engine) as seen, engine.connect() as conn, conn.begin():
        assert prepared.rows(conn, {"id": 1}) == []
    assert [sql for sql in seen if "FROM orders" in sql] == [
        " ".join(prepared._plan(engine.dialect).sql.split())  # type: ignore[union-attr]
    ]


def test_outside_a_transaction_it_runs_through_execute(engine: sa.Engine) -> None:
    seeded = _seed(engine)
    prepared = Prepared(sa.select(products.c.sku).where(products.c.id == sa.bindparam("id")))
    with engine.connect() as conn:
        assert [tuple(row) for row in prepared.rows(conn, {"id": seeded["mug"]})] == [("M-1",)]
        conn.rollback()


def test_driver_errors_are_raised_as_sqlalchemy_errors(engine: sa.Engine) -> None:
    broken = Prepared(sa.select(sa.text("no_such_column")).select_from(orders))
    with engine.connect() as conn, conn.begin(), pytest.raises(sa.exc.DBAPIError):
        broken.rows(conn)


def test_an_order_read_by_its_prepared_statement(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        order_id = conn.execute(
            sa.insert(orders)
            .values(
                order_key="wc_order_x",
                status="pending",
                currency="EUR",
                created_at=dt.datetime(2026, 5, 6, 7, 8, 9),
                updated_at=dt.datetime(2026, 5, 6, 7, 8, 9),
            )
            .returning(orders.c.id)
        ).scalar_one()
    with engine.connect() as conn, conn.begin():
        row = orders_sql.get_order_row(conn, order_id)
        expected = dict(conn.execute(orders_sql.order_row_query(order_id)).mappings().one())
    assert row == expected
    assert row is not None and row["status"] == "pending"


def test_native_placeholders_number_each_name_once_and_keep_literal_percents() -> None:
    sql, names = native_sql(
        "SELECT %(a)s::INTEGER, 'x%%y', %(b_1)s, %(a)s WHERE t LIKE '%%%%(a)s' OR %%(a)s"
    )
    assert sql == "SELECT $1::INTEGER, 'x%y', $2, $1 WHERE t LIKE '%%(a)s' OR %(a)s"
    assert names == ("a", "b_1")


def test_a_long_statement_with_a_repeated_parameter_and_a_literal_percent(
    engine: sa.Engine,
) -> None:
    """Longer than psycopg's 4 KB parse cache, a parameter used twice, a ``%`` in a literal:
    the same rows as ``conn.execute`` (on PostgreSQL through a ``RawCursor``)."""
    seeded = _seed(engine)
    padding = " AND ".join(f"products.id != {-n}" for n in range(1, 400))
    statement = (
        sa.select(products.c.id, products.c.sku)
        .where(sa.text(padding))
        .where(products.c.sku.like("%-1"))
        .where(products.c.id >= sa.bindparam("low"))
        .where(sa.or_(products.c.id == sa.bindparam("low"), products.c.id > sa.bindparam("low")))
        .order_by(products.c.id)
    )
    with engine.connect() as conn:
        compiled = str(statement.compile(dialect=conn.dialect))
    assert len(compiled) > 4096
    expected, got = _both(engine, statement, {"low": 0})
    assert (
        got
        == expected
        == [
            {"id": seeded["shirt"], "sku": "S-1"},
            {"id": seeded["mug"], "sku": "M-1"},
        ]
    )
    cursors: list[str] = []
    with engine.connect() as conn, conn.begin():
        sa.event.listen(
            conn, "before_cursor_execute", lambda *args: cursors.append(type(args[1]).__name__)
        )
        Prepared(statement).rows(conn, {"low": 0})
    assert cursors == (["RawCursor"] if engine.dialect.name == "postgresql" else ["Cursor"])


def test_id_lists_bind_as_one_parameter_of_any_length(engine: sa.Engine) -> None:
    seeded = _seed(engine)
    statement = sa.select(products.c.id).where(ids_in(products.c.id, "ids"))
    many = [*range(-5000, 0), seeded["mug"], 2**63, -(2**63)]
    for ids, found in (
        ([], []),
        (many, [seeded["mug"]]),
        ([str(seeded["shirt"])], [seeded["shirt"]]),
    ):
        expected, got = _both(engine, statement, {"ids": ids})
        assert [row["id"] for row in got] == [row["id"] for row in expected] == found


def test_sqlite_begins_run_on_the_driver_and_are_seen_by_the_cursor_events(
    engine: sa.Engine,
) -> None:
    """SQLite's explicit ``BEGIN``/``BEGIN IMMEDIATE`` (``db.make_engine``) go through
    ``prepared.run_bare``: still seen by the cursor events, and the transaction is real."""
    if engine.dialect.name != "sqlite":
        pytest.skip("only SQLite is sent an explicit BEGIN")
    seeded = _seed(engine)
    with statements(engine) as seen, engine.connect() as conn:
        with conn.begin():
            assert conn.connection.driver_connection.in_transaction
        conn.info["write"] = True
        with pytest.raises(RuntimeError), conn.begin():
            conn.execute(
                sa.update(products).where(products.c.id == seeded["mug"]).values(sku="M-2")
            )
            raise RuntimeError("rolled back")
    assert [sql for sql in seen if sql.startswith("BEGIN")] == ["BEGIN", "BEGIN IMMEDIATE"]
    with engine.connect() as conn:
        assert "write" not in conn.info  # forgotten when the connection went back to the pool
        assert (
            conn.execute(sa.select(products.c.sku).where(products.c.id == seeded["mug"])).scalar()
            == "M-1"
        )


# --- PostgreSQL: short id lists bound as padded scalars (``Native``)


def test_native_pads_id_lists_to_a_power_of_two_of_int4_scalars() -> None:
    native = Native(
        "SELECT a FROM t WHERE t.id = ANY(%(ids)s::INTEGER[]) AND t.k = %(k)s "
        "AND t.p = ANY(%(ids)s::INTEGER[]) AND t.q = ANY(%(more)s::INTEGER[]) "
        "AND t.r = ANY(%(shared)s::INTEGER[]) AND cardinality(%(shared)s) > 0 AND t.s LIKE 'a%%'"
    )
    assert native.lists == {"ids", "more"}  # ``shared`` is also read as an array
    bound = {"ids": [7, 8, 9], "k": "x", "more": [], "shared": [1, 2]}
    sql, values = native.call(bound)
    four = "ARRAY[$1, $2, $3, $4]::INTEGER[]"
    assert sql == (
        f"SELECT a FROM t WHERE t.id = ANY({four}) AND t.k = $5 AND t.p = ANY({four}) "
        "AND t.q = ANY(ARRAY[$6, $7, $8, $9]::INTEGER[]) AND t.r = ANY($10::INTEGER[]) "
        "AND cardinality($10) > 0 AND t.s LIKE 'a%'"
    )
    assert values == [7, 8, 9, -1, "x", -1, -1, -1, -1, [1, 2]]
    assert [type(v) for v in values[:4]] == [Int4] * 4  # one parameter type whatever the id
    assert native.call(bound)[0] is sql  # each form made once
    for longest, size in ((0, 1), (1, 1), (2, 2), (3, 4), (5, 8), (PADDED_IDS_MAX, PADDED_IDS_MAX)):
        sql, values = native.call({**bound, "ids": list(range(1, longest + 1))})
        numbers = {int(n) for n in re.findall(r"\$(\d+)", sql)}
        assert numbers == set(range(1, 2 * size + 3)) and len(values) == 2 * size + 2
        assert values[:size] == [*range(1, longest + 1), *[-1] * (size - longest)]
    longer = {**bound, "ids": list(range(PADDED_IDS_MAX + 1))}
    assert native.call(longer) == native_sql_call(native, longer)


def native_sql_call(native: Native, bound: dict[str, Any]) -> tuple[str, list[Any]]:
    """A list longer than ``PADDED_IDS_MAX``: every list one array, as :func:`native_sql`."""
    sql, names = native_sql(native._pyformat)
    return sql, [bound[name] for name in names]


def test_padded_id_lists_give_the_rows_of_the_array(engine: sa.Engine) -> None:
    seeded = _seed(engine)
    statement = (
        sa.select(products.c.id)
        .where(sa.or_(ids_in(products.c.id, "ids"), ids_in(products.c.parent_id, "parents")))
        .order_by(products.c.id)
    )
    with engine.connect() as conn:
        everything = sorted(conn.execute(sa.select(products.c.id)).scalars())
    for ids in ([], [seeded["mug"]], everything, [-1, 0, 2**40, seeded["mug"]]):
        for filler in (0, 3, PADDED_IDS_MAX - len(ids), PADDED_IDS_MAX + 1):
            asked = [*range(10**6, 10**6 + filler), *ids]  # ids no product has, then ``ids``
            params = {"ids": asked, "parents": [seeded["shirt"]]}
            expected, got = _both(engine, statement, params)
            assert got == expected
            assert {row["id"] for row in got} >= {i for i in ids if i in everything}


def test_postgresql_keeps_a_generic_plan_for_a_single_product(engine: sa.Engine) -> None:
    """What the padding is for: a single product's statements planned once, not each time."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite plans no statement ahead")
    seeded = _seed(engine)
    with engine.connect() as conn, conn.begin():
        for _ in range(15):
            product_data_sql.load_products(conn, [seeded["shirt"]])
        plans = conn.execute(
            sa.text(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                "WHERE statement LIKE '%ARRAY[$1%'"
            )
        ).all()
    assert len(plans) == 2  # the family rows, the child tables
    assert all(generic >= 5 and custom <= 5 for generic, custom in plans), plans


def test_a_postgresql_connection_keeps_its_cursor_for_small_results(engine: sa.Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's cursors are made per statement (no loaders to look up)")
    ids = [add_product(engine, title=f"p{n}") for n in range(prepared.KEPT_CURSOR_ROWS + 1)]
    one = Prepared(sa.select(products.c.id).where(products.c.id == sa.bindparam("id")))
    many = Prepared(sa.select(products.c.id).where(ids_in(products.c.id, "ids")))
    failing = Prepared(sa.select(sa.cast(sa.bindparam("text", sa.String), sa.Integer)))
    with engine.connect() as conn, conn.begin():
        info = conn.connection.info
        assert [row[0] for row in one.rows(conn, {"id": ids[0]})] == [ids[0]]
        kept = info[prepared._RAW_CURSOR]
        assert [row[0] for row in one.rows(conn, {"id": ids[1]})] == [ids[1]]
        assert info[prepared._RAW_CURSOR] is kept and not kept.closed
        # a page of rows: its cursor goes, with the result it holds
        assert len(many.rows(conn, {"ids": ids})) == len(ids)
        assert kept.closed and prepared._RAW_CURSOR not in info
        one.rows(conn, {"id": ids[2]})
        again = info[prepared._RAW_CURSOR]
        # a failed statement's cursor goes too
        with pytest.raises(sa.exc.DataError), conn.begin_nested():
            failing.rows(conn, {"text": "not a number"})
        assert again.closed and prepared._RAW_CURSOR not in info
        assert [row[0] for row in one.rows(conn, {"id": ids[3]})] == [ids[3]]
    # a new driver connection under the same pool record gets a cursor of its own
    with engine.connect() as conn:
        conn.begin()
        one.rows(conn, {"id": ids[0]})
        stale = conn.connection.info[prepared._RAW_CURSOR]
        conn.invalidate()
    with engine.connect() as conn, conn.begin():
        one.rows(conn, {"id": ids[0]})
        assert conn.connection.info.get(prepared._RAW_CURSOR) is not stale
