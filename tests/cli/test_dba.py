"""The DBA's view (docs/sql.md), on both databases: every named query of
``shopsvc.sql.named_queries`` compiles and EXPLAINs, the ``sql`` and ``explain`` commands, the slow
statement log (request id and parameter shapes, never values), and the migrations building the
indexes of ``tables.py``."""

from __future__ import annotations

import logging
import pathlib
import warnings
from collections.abc import Callable, Sequence

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from webtest import TestApp

from shopsvc.cli import dba
from shopsvc.db.engine import parameter_shape
from shopsvc.settings import load_settings
from shopsvc.sql import named_queries, products
from shopsvc.sql.paging import ListFilters
from shopsvc.sql.tables import metadata
from tests.helpers.api import ROOT, Credentials, authorised
from tests.helpers.cli import run as run_script

SECRET_SKU = "SKU-NOT-IN-ANY-LOG-7731"
SECRET_WORD = "zebrawordnotlogged"


@pytest.fixture
def ini(tmp_path: pathlib.Path, database_url: str, engine: sa.Engine) -> pathlib.Path:
    """An ini over the test database (migrated by the ``engine`` fixture)."""
    path = tmp_path / "test.ini"
    path.write_text(f"[app:main]\nuse = egg:shopsvc\nsqlalchemy.url = {database_url}\n")
    return path


def run(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The exit status of the console script with ``argv``, and what it printed."""
    status = run_script(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- the named queries


def test_the_named_queries_cover_what_a_dba_asks_about() -> None:
    for name in (
        "products.page",
        "products.count",
        "products.kind",
        "products.load.rows",
        "products.load.children",
        "products.orders",
        "orders.page",
        "orders.count",
        "orders.count.scan",
        "orders.count_by_status",
        "orders.count_by_status.scan",
        "products.orders.count",
        "products.orders.count.scan",
        "orders.load.items",
        "orders.load.item_meta",
        "taxes.page",
        "webhooks.page",
        "auth.find_key",
        "deliveries.claim",
        "deliveries.enqueue",
        "deliveries.attempts",
        "deliveries.log_attempt",
    ):
        assert name in named_queries.QUERIES
    for query in named_queries.QUERIES.values():
        assert query.description and "\n" not in query.description


def test_a_named_query_is_the_statement_the_service_runs() -> None:
    """``products.page`` is ``sql.products.page_query`` of the same parameters."""
    values = {"category": "shirts", "page": "3", "q": "red"}
    built = named_queries.get("products.page").build(values)
    page = ListFilters(page=3, offset=20, q="red")
    expected = products.page_query(page, products.ProductFilters(categories=("shirts",)))
    dialect = sa.create_engine("sqlite://").dialect
    same = dba.compiled_sql(named_queries.Built(expected), dialect)
    assert dba.compiled_sql(built, dialect) == same


def test_the_order_counts_show_what_the_service_runs() -> None:
    """``orders.count`` reads ``order_counts`` when filtered by status and ``created_at`` alone
    (and counts the orders for any other filter), ``.scan`` always counts the orders; a
    product's count looks the trashed orders up unless another filter is given."""
    dialect = sa.create_engine("sqlite://").dialect

    def sql(name: str, **values: str) -> str:
        return dba.compiled_sql(named_queries.get(name).build(values), dialect)

    dated = {"status": "completed", "created_at_min": "2025-01-01T10:00:00Z"}
    for name in ("orders.count", "orders.count_by_status"):
        assert "order_counts" in sql(name) and "order_counts" in sql(name, **dated)
        assert "order_counts" not in sql(name, customer_id="3")
        assert "order_counts" not in sql(name, q="ann")
        assert "order_counts" not in sql(f"{name}.scan")
    assert "'trash'" in sql("products.orders.count", id="5")
    assert "'trash'" not in sql("products.orders.count", id="5", status="completed")
    assert "'trash'" not in sql("products.orders.count.scan", id="5")


def test_every_named_query_compiles_and_explains(engine: sa.Engine) -> None:
    for query in named_queries.QUERIES.values():
        built = query.build(dialect=engine.dialect.name)
        sql = dba.compiled_sql(built, engine.dialect)
        assert sql.split()[0] in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH"), query.name
        with engine.connect() as conn:
            lines = dba.plan(conn, built)
            if isinstance(built.statement, sa.Select):
                assert lines, query.name
                lines = dba.plan(conn, built, analyze=True)
                assert lines, query.name


def test_filters_reach_the_statement(engine: sa.Engine) -> None:
    built = named_queries.get("orders.page").build(
        {"status": "processing,on-hold", "created_at_min": "2025-01-01", "page": "5000"}
    )
    sql = dba.compiled_sql(built, engine.dialect)
    assert "orders.status IN (" in sql
    assert "orders.created_at >=" in sql
    assert "processing" not in sql and "2025" not in sql  # placeholders, not values
    with pytest.raises(named_queries.FilterError, match="does not read colour"):
        named_queries.get("orders.page").build({"colour": "red"})
    with pytest.raises(named_queries.FilterError, match="orderby"):
        named_queries.get("products.page").build({"orderby": "price"})


# --- the commands


def test_sql_lists_every_named_query(ini: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run([str(ini), "sql"], capsys)
    assert status == 0, err
    lines = out.splitlines()
    assert [line.split(" — ")[0] for line in lines] == list(named_queries.QUERIES)
    assert all(" — " in line for line in lines)


def test_sql_prints_one_query_as_the_database_compiles_it(
    ini: pathlib.Path, capsys: pytest.CaptureFixture[str], engine: sa.Engine
) -> None:
    argv = [str(ini), "sql", "products.page", "--filter", f"sku={SECRET_SKU}"]
    status, out, err = run([*argv, "--filter", "filter[category]=shirts,hats"], capsys)
    assert status == 0, err
    assert out.startswith("-- products.page: ")
    assert "-- filters: " in out and "category" in out
    assert "lower(products.sku) =" in out
    assert SECRET_SKU not in out and "shirts" not in out
    placeholder = "%(" if engine.dialect.name == "postgresql" else "?"
    assert placeholder in out


def test_explain_orders_page_shows_a_plan(
    ini: pathlib.Path, capsys: pytest.CaptureFixture[str], engine: sa.Engine
) -> None:
    argv = [str(ini), "explain", "orders.page", "--filter", "status=processing"]
    status, out, err = run(argv, capsys)
    assert status == 0, err
    if engine.dialect.name == "sqlite":
        assert out.splitlines()[0] == "QUERY PLAN"
        assert "ix_orders_status_created" in out
    else:
        assert "Limit" in out.splitlines()[0]
        assert "Execution Time" not in out
    status, out, err = run([*argv, "--filter", "created_at_min=2025-01-01", "--analyze"], capsys)
    assert status == 0, err
    if engine.dialect.name == "sqlite":
        assert "run once, 0 rows" in out
    else:
        assert "Execution Time" in out and "Buffers" in out


def test_explain_of_a_write_writes_nothing(
    ini: pathlib.Path, capsys: pytest.CaptureFixture[str], engine: sa.Engine
) -> None:
    status, _out, err = run([str(ini), "explain", "deliveries.log_attempt", "--analyze"], capsys)
    assert status == 0, err
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM webhook_attempts")).scalar_one() == 0


def test_bad_names_and_filters_exit_2(
    ini: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run([str(ini), "explain", "orders.pages"], capsys)
    assert (status, out) == (2, "")
    assert "no named query 'orders.pages'" in err and "orders.page" in err
    status, out, err = run([str(ini), "sql", "orders.page", "--filter", "nope=1"], capsys)
    assert (status, out) == (2, "")
    assert "does not read nope" in err
    status, out, err = run([str(ini), "explain", "orders.page", "--filter", "status"], capsys)
    assert (status, out) == (2, "")
    assert "not key=value" in err
    status, out, err = run([str(ini), "explain", "orders.page", "--filter", "page=x"], capsys)
    assert (status, out) == (2, "")
    assert "page: 'x' is not an integer" in err


# --- the slow statement log


def test_slow_sql_ms_is_a_number_of_milliseconds() -> None:
    assert load_settings({}, environ={}).slow_sql_ms == 200
    assert load_settings({"shopsvc.slow_sql_ms": "0.001"}, environ={}).slow_sql_ms == 0.001
    assert load_settings({}, environ={"SHOPSVC_SLOW_SQL_MS": "0"}).slow_sql_ms == 0


def _slow_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "shopsvc.sql.slow"]


def test_slow_statements_are_logged_with_the_request_id_and_no_values(
    build_app: Callable[..., TestApp],
    make_key: Callable[..., Credentials],
    caplog: pytest.LogCaptureFixture,
) -> None:
    api = authorised(build_app(**{"shopsvc.slow_sql_ms": "0.001"}), make_key())
    body = {"product": {"title": f"A {SECRET_WORD} shirt", "sku": SECRET_SKU}}
    api.post_json(f"{ROOT}/products", body, status=201)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="shopsvc.sql.slow"):
        query = f"filter[sku]={SECRET_SKU}&filter[q]={SECRET_WORD}"
        response = api.get(f"{ROOT}/products?{query}", headers={"X-Request-Id": "dba-slow-1"})
    assert len(response.json["products"]) == 1
    records = _slow_records(caplog)
    assert records
    page = [r for r in records if "lower(products.sku)" in r.statement]  # type: ignore[attr-defined]
    assert page, [r.getMessage() for r in records]
    for record in page:
        assert record.levelno == logging.WARNING
        assert record.request_id == "dba-slow-1"  # type: ignore[attr-defined]
        assert record.duration_ms >= 0  # type: ignore[attr-defined]
        shape = record.parameters  # type: ignore[attr-defined]
        assert isinstance(shape, dict) and shape
        assert "str" in shape.values()  # the SKU and the search words: their type only
        assert "list[1]" in shape.values()  # status IN ('publish'): its length only
    # the records' child tables: one statement (a bundle), its first part the gallery; on
    # SQLite the related ids' recursive walk comes first, as the statement's WITH clause
    starts = ("product_gallery", "WITH RECURSIVE walk")
    loaded = [r for r in records if any(s in r.statement for s in starts)]  # type: ignore[attr-defined]
    assert loaded and all(r.request_id == "dba-slow-1" for r in loaded)  # type: ignore[attr-defined]
    for record in records:
        text = record.getMessage() + repr(vars(record))
        assert SECRET_SKU.lower() not in text.lower()
        assert SECRET_WORD not in text
        assert len(record.statement) <= 501  # type: ignore[attr-defined]


def test_no_slow_log_when_off(
    build_app: Callable[..., TestApp],
    make_key: Callable[..., Credentials],
    caplog: pytest.LogCaptureFixture,
) -> None:
    api = authorised(build_app(**{"shopsvc.slow_sql_ms": "0"}), make_key())
    with caplog.at_level(logging.WARNING, logger="shopsvc.sql.slow"):
        api.get(f"{ROOT}/products")
    assert _slow_records(caplog) == []


def test_parameter_shapes_name_types_never_values() -> None:
    class Context:
        compiled = object()
        compiled_parameters = [{"id_1": [1, 2, 3], "name": "secret", "at": None}]

    assert parameter_shape(Context(), None) == {"id_1": "list[3]", "name": "str", "at": "None"}
    assert parameter_shape(None, ("secret", 4)) == ["str", "int"]
    assert parameter_shape(None, [{"a": "x"}, {"a": "y"}], executemany=True) == {
        "rows": 2,
        "row": {"a": "str"},
    }


# --- the schema


def test_the_migrations_build_the_indexes_of_tables_py(engine: sa.Engine) -> None:
    """A new index goes in ``tables.py`` and in a migration (docs/sql.md): the migrated schema
    and the metadata do not differ, and every index of the metadata exists by name."""
    with engine.connect() as conn, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLite cannot reflect expression indexes
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        if engine.dialect.name == "sqlite":
            found = conn.execute(sa.text("SELECT name FROM sqlite_master WHERE type = 'index'"))
        else:
            found = conn.execute(
                sa.text("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
            )
        names = set(found.scalars())
    declared = {
        index.name
        for table in metadata.tables.values()
        for index in table.indexes
        # an index made for one database only (``Index.ddl_if``: PostgreSQL's trigrams)
        if index._ddl_if is None or index._ddl_if.dialect in (None, engine.dialect.name)
    }
    assert declared - names == set()
