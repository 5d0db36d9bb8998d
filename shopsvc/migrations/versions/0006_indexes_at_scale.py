"""Indexes for a million orders (issue 10, goal 3; docs/sql.md "The seeded million-order
database"): order counts by status index-only on the narrowest index (``ix_orders_status``);
the default product list and its count index-only (``ix_products_listed``, partial: no
variations); the orders of a product index-only (``ix_order_items_product`` and
``ix_order_items_variation`` become ``(product_id | variation_id, order_id)``, over the line
items only on PostgreSQL); on PostgreSQL, ``filter[q]`` by trigrams (``ix_products_search``, a GIN
index of the ``pg_trgm`` extension, which this creates when missing: a database owner may, the
extension being trusted).

The indexes are built in the migration's transaction (``shopsvc.db.schema.migrate`` runs every
migration in one): writes to ``orders``, ``order_items`` and ``products`` wait while it runs,
26 s on the seeded million-order database (docs/sql.md). A shop that cannot wait
builds them beforehand with ``CREATE INDEX CONCURRENTLY`` under the same names and definitions,
then drops its own and migrates (or runs this while the shop is idle).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

LINES = sa.text("item_type = 'line_item'")
LISTED = sa.text("type <> 'variation'")
SEARCH = (
    "CREATE INDEX ix_products_search ON products USING gin "
    "(lower(title || ' ' || description || ' ' || short_description) gin_trgm_ops)"
)


def upgrade() -> None:
    for column in ("product", "variation"):
        op.drop_index(f"ix_order_items_{column}", table_name="order_items")
        op.create_index(
            f"ix_order_items_{column}",
            "order_items",
            [f"{column}_id", "order_id"],
            postgresql_where=LINES,  # not on SQLite: see tables.py
        )
    op.create_index("ix_orders_status", "orders", ["status"])
    op.create_index(
        "ix_products_listed",
        "products",
        ["status", "created_at", "id"],
        postgresql_where=LISTED,
        sqlite_where=LISTED,
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        op.execute(SEARCH)


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        op.drop_index("ix_products_search", table_name="products")
    op.drop_index("ix_products_listed", table_name="products")
    op.drop_index("ix_orders_status", table_name="orders")
    for column in ("product", "variation"):
        op.drop_index(f"ix_order_items_{column}", table_name="order_items")
        op.create_index(f"ix_order_items_{column}", "order_items", [f"{column}_id"])
