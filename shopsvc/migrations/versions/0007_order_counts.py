"""Order counts (issue 10, goal 3; docs/sql.md "Order counts"): the table ``order_counts``
(orders per status and UTC calendar day of ``created_at``), the triggers on ``orders`` that keep
it in the transaction of every write, its backfill; and ``ix_orders_trashed``, the ids of the
trashed orders (a product's orders are counted without reading each order's row).

The triggers see every writer: the service's single and bulk writes, trash, restore and
delete, ``seed``, a DBA's SQL.

* PostgreSQL: statement-level ``AFTER`` triggers with transition tables. Each adds up the
  statement's changes per ``(status, day)`` and applies them in one ``INSERT … ON CONFLICT DO
  UPDATE``, in ``(status, day)`` order (a bulk insert or a mass update writes each counter
  once; two statements lock their counters in the same order). The ``UPDATE`` trigger cannot
  name its columns (PostgreSQL refuses column lists with transition tables): it runs after
  every update of orders; one that moves no order to another status or day writes, and locks,
  nothing, for about 0.1 ms (docs/sql.md weighs it against a row-level trigger).
  ``TRUNCATE orders`` empties the counts.
* SQLite: row-level triggers, each an UPSERT (SQLite 3.24+); the ``UPDATE`` one only for a
  change of status or day. ``day`` is the first 10 characters of the stored text
  (``YYYY-MM-DD HH:MM:SS.ffffff``, SQLAlchemy's format), which orders the same way.

Rows that fall to 0 stay (at most one per status and day). The migration runs in one
transaction (``shopsvc.db.migrate``): creating the triggers locks ``orders`` against writes
until the backfill is committed, so no write is counted twice or missed (2.5 s on the seeded
million-order database).

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TRASHED = sa.text("status = 'trash'")

# PostgreSQL: (trigger, event, transition tables, the deltas of one statement per row).
_POSTGRES_DELTAS = {
    "insert": (
        "INSERT",
        "NEW TABLE AS new_orders",
        "SELECT status, CAST(created_at AS date) AS day, 1 AS delta FROM new_orders",
    ),
    "delete": (
        "DELETE",
        "OLD TABLE AS old_orders",
        "SELECT status, CAST(created_at AS date) AS day, -1 AS delta FROM old_orders",
    ),
    "update": (
        "UPDATE",
        "OLD TABLE AS old_orders NEW TABLE AS new_orders",
        "SELECT status, CAST(created_at AS date) AS day, -1 AS delta FROM old_orders "
        "UNION ALL SELECT status, CAST(created_at AS date), 1 FROM new_orders",
    ),
}
_POSTGRES_FUNCTION = """
CREATE FUNCTION order_counts_{name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO order_counts AS counted (status, day, n)
    SELECT status, day, sum(delta) FROM ({deltas}) AS deltas
    GROUP BY status, day
    HAVING sum(delta) <> 0
    ORDER BY status, day
    ON CONFLICT (status, day) DO UPDATE SET n = counted.n + EXCLUDED.n;
    RETURN NULL;
END
$$
"""
_POSTGRES_TRIGGER = (
    "CREATE TRIGGER order_counts_{name} AFTER {event} ON orders REFERENCING {tables} "
    "FOR EACH STATEMENT EXECUTE FUNCTION order_counts_{name}()"
)
_POSTGRES_TRUNCATE = [
    """
CREATE FUNCTION order_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM order_counts;
    RETURN NULL;
END
$$
""",
    "CREATE TRIGGER order_counts_truncate AFTER TRUNCATE ON orders "
    "FOR EACH STATEMENT EXECUTE FUNCTION order_counts_truncate()",
]
_POSTGRES_BACKFILL = (
    "INSERT INTO order_counts (status, day, n) "
    "SELECT status, CAST(created_at AS date), count(*) FROM orders GROUP BY 1, 2 ORDER BY 1, 2"
)

_SQLITE_DAY = "substr({row}.created_at, 1, 10)"
_SQLITE_ADD = (
    "INSERT INTO order_counts (status, day, n) VALUES ({row}.status, {day}, {delta}) "
    "ON CONFLICT (status, day) DO UPDATE SET n = n + excluded.n;"
)


def _sqlite_add(row: str, delta: int) -> str:
    return _SQLITE_ADD.format(row=row, day=_SQLITE_DAY.format(row=row), delta=delta)


_SQLITE_TRIGGERS = [
    f"CREATE TRIGGER order_counts_insert AFTER INSERT ON orders BEGIN {_sqlite_add('NEW', 1)} END",
    f"CREATE TRIGGER order_counts_delete AFTER DELETE ON orders BEGIN {_sqlite_add('OLD', -1)} END",
    "CREATE TRIGGER order_counts_update AFTER UPDATE OF status, created_at ON orders "
    f"WHEN OLD.status IS NOT NEW.status OR {_SQLITE_DAY.format(row='OLD')} IS NOT "
    f"{_SQLITE_DAY.format(row='NEW')} "
    f"BEGIN {_sqlite_add('OLD', -1)} {_sqlite_add('NEW', 1)} END",
]
_SQLITE_BACKFILL = (
    "INSERT INTO order_counts (status, day, n) "
    "SELECT status, substr(created_at, 1, 10), count(*) FROM orders GROUP BY 1, 2"
)


def upgrade() -> None:
    op.create_table(
        "order_counts",
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("status", "day", name="pk_order_counts"),
    )
    op.create_index(
        "ix_orders_trashed", "orders", ["id"], postgresql_where=TRASHED, sqlite_where=TRASHED
    )
    if op.get_bind().dialect.name == "postgresql":
        for name, (event, tables, deltas) in _POSTGRES_DELTAS.items():
            op.execute(_POSTGRES_FUNCTION.format(name=name, deltas=deltas))
            op.execute(_POSTGRES_TRIGGER.format(name=name, event=event, tables=tables))
        for statement in _POSTGRES_TRUNCATE:
            op.execute(statement)
        op.execute(_POSTGRES_BACKFILL)
    else:
        for statement in _SQLITE_TRIGGERS:
            op.execute(statement)
        op.execute(_SQLITE_BACKFILL)


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for name in ("insert", "delete", "update", *(("truncate",) if postgres else ())):
        op.execute(f"DROP TRIGGER order_counts_{name}" + (" ON orders" if postgres else ""))
        if postgres:
            op.execute(f"DROP FUNCTION order_counts_{name}()")
    op.drop_index("ix_orders_trashed", table_name="orders")
    op.drop_table("order_counts")
