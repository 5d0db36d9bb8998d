"""``shopsvc.db.engine.defer_begin``: on PostgreSQL a read request's queries run outside a
transaction block (no ``BEGIN``/``COMMIT`` round trips) until a statement may write, which begins
the transaction the request then ends as always; the pooled connection goes back to transaction
mode for whoever takes it next."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from psycopg.pq import TransactionStatus
from webtest import TestApp

from shopsvc.db import engine as db
from tests.helpers.api import ROOT


@pytest.mark.parametrize(
    ("statement", "reads"),
    [
        ("SELECT 1", True),
        ("  select id FROM products WHERE id = %(id)s", True),
        ("WITH RECURSIVE walk(n) AS (SELECT 1) SELECT n FROM walk", True),
        ("SELECT products.updated_at, deleted_count FROM products", True),
        ("SELECT id FROM orders WHERE id = 1 FOR UPDATE", False),
        ("SELECT id FROM orders FOR NO KEY UPDATE SKIP LOCKED", False),
        ("SELECT id FROM orders FOR SHARE", False),
        ("SELECT id FROM orders FOR KEY SHARE", False),
        ("WITH moved AS (DELETE FROM t RETURNING id) SELECT id FROM moved", False),
        ("WITH made AS (INSERT INTO t VALUES (1) RETURNING id) SELECT id FROM made", False),
        ("SELECT nextval(pg_get_serial_sequence('orders', 'id'))", False),
        ("SELECT pg_advisory_xact_lock(1)", False),
        ("SELECT pg_notify(%(pg_notify_1)s, %(pg_notify_2)s) AS pg_notify_3", False),
        ("SELECT set_config('lock_timeout', '1s', true)", False),
        ("UPDATE api_keys SET last_access = now()", False),
        ("SAVEPOINT sa_savepoint_1", False),
        ("CREATE TEMP TABLE t (x int)", False),
        ("", False),
    ],
)
def test_which_statements_read_only(statement: str, reads: bool) -> None:
    assert db.reads_only(statement) is reads


@pytest.fixture
def pg_engine(api: TestApp) -> sa.Engine:
    engine: sa.Engine = api.app.registry.engine
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite begins every transaction itself (an explicit BEGIN)")
    return engine


@pytest.fixture
def statuses(pg_engine: sa.Engine) -> Iterator[list[tuple[str, TransactionStatus]]]:
    """(first word, the driver's transaction status after it) of every statement the app's
    engine runs while the test does."""
    seen: list[tuple[str, TransactionStatus]] = []

    def after(conn: sa.Connection, _cursor: Any, statement: str, *_: Any) -> None:
        driver = conn.connection.driver_connection
        seen.append((statement.split(None, 1)[0].upper(), driver.info.transaction_status))

    sa.event.listen(pg_engine, "after_cursor_execute", after)
    yield seen
    sa.event.remove(pg_engine, "after_cursor_execute", after)


def _create_tax(api: TestApp) -> int:
    response = api.post_json(f"{ROOT}/taxes", {"tax": {"country": "US", "rate": "5"}}, status=201)
    return int(response.json["tax"]["id"])


def test_a_read_runs_outside_a_transaction_block(
    api: TestApp, statuses: list[tuple[str, TransactionStatus]]
) -> None:
    tax_id = _create_tax(api)
    api.get(f"{ROOT}/taxes/{tax_id}", status=200)  # last_access written once a minute: now done
    del statuses[:]
    assert api.get(f"{ROOT}/taxes/{tax_id}", status=200).json["tax"]["id"] == tax_id
    assert api.head(f"{ROOT}/taxes/{tax_id}", status=200)
    assert statuses
    assert {status for _, status in statuses} == {TransactionStatus.IDLE}


def test_a_write_runs_in_its_transaction(
    api: TestApp, statuses: list[tuple[str, TransactionStatus]]
) -> None:
    _create_tax(api)
    assert statuses
    assert {status for _, status in statuses} == {TransactionStatus.INTRANS}


def test_the_pooled_connections_go_back_to_transaction_mode(
    api: TestApp, pg_engine: sa.Engine
) -> None:
    tax_id = _create_tax(api)
    for _ in range(3):
        api.get(f"{ROOT}/taxes/{tax_id}", status=200)
    pooled = pg_engine.pool.checkedin()
    assert pooled >= 1
    connections = [pg_engine.connect() for _ in range(pooled)]
    try:
        for conn in connections:
            assert conn.connection.driver_connection.autocommit is False
            conn.execute(sa.text("SELECT 1"))
            assert conn.connection.driver_connection.info.transaction_status == (
                TransactionStatus.INTRANS
            )
    finally:
        for conn in connections:
            conn.close()


def test_the_first_statement_that_may_write_begins_the_transaction(
    pg_engine: sa.Engine, statuses: list[tuple[str, TransactionStatus]]
) -> None:
    """Everything from that statement on is one transaction, which a rollback undoes."""
    with pg_engine.connect() as conn:
        db.defer_begin(conn)
        conn.begin()
        assert conn.execute(sa.text("SELECT 1")).scalar_one() == 1
        conn.execute(sa.text("CREATE TEMP TABLE deferred_begin_probe (x int)"))
        conn.execute(sa.text("INSERT INTO deferred_begin_probe VALUES (1)"))
        conn.rollback()
        conn.begin()
        gone = conn.execute(sa.text("SELECT to_regclass('pg_temp.deferred_begin_probe')"))
        assert gone.scalar_one() is None
        conn.rollback()
    assert statuses == [
        ("SELECT", TransactionStatus.IDLE),
        ("CREATE", TransactionStatus.INTRANS),
        ("INSERT", TransactionStatus.INTRANS),
        ("SELECT", TransactionStatus.INTRANS),
    ]
