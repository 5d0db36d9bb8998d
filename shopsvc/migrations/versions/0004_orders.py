"""Orders and customers: orders, their items (line, shipping, fee, coupon, tax) and item meta,
order notes, refunds and their items, customer profiles.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

from shopsvc.sql.tables import Money

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "orders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_key", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("status_before_trash", sa.String(length=20), nullable=True),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("prices_include_tax", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("customer_id", sa.Integer(), server_default="0", nullable=False),
        sa.Column("customer_note", sa.Text(), server_default="", nullable=False),
        sa.Column("customer_ip", sa.String(length=100), server_default="", nullable=False),
        sa.Column("customer_user_agent", sa.Text(), server_default="", nullable=False),
        sa.Column("payment_method", sa.Text(), server_default="", nullable=False),
        sa.Column("payment_method_title", sa.Text(), server_default="", nullable=False),
        sa.Column("transaction_id", sa.Text(), server_default="", nullable=False),
        sa.Column("date_paid", sa.DateTime(), nullable=True),
        sa.Column("date_completed", sa.DateTime(), nullable=True),
        sa.Column("billing_first_name", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_last_name", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_company", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_address_1", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_address_2", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_city", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_state", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_postcode", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_country", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_email", sa.Text(), server_default="", nullable=False),
        sa.Column("billing_phone", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_first_name", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_last_name", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_company", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_address_1", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_address_2", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_city", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_state", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_postcode", sa.Text(), server_default="", nullable=False),
        sa.Column("shipping_country", sa.Text(), server_default="", nullable=False),
        sa.Column("discount_total", Money(), server_default="0", nullable=False),
        sa.Column("discount_tax", Money(), server_default="0", nullable=False),
        sa.Column("shipping_total", Money(), server_default="0", nullable=False),
        sa.Column("shipping_tax", Money(), server_default="0", nullable=False),
        sa.Column("cart_tax", Money(), server_default="0", nullable=False),
        sa.Column("total_tax", Money(), server_default="0", nullable=False),
        sa.Column("total", Money(), server_default="0", nullable=False),
        sa.Column("stock_reduced", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("sales_recorded", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("order_meta", sa.Text(), server_default="{}", nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_orders")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_orders_created", "orders", ["created_at", "id"], unique=False)
    op.create_index(
        "ix_orders_customer", "orders", ["customer_id", "created_at", "id"], unique=False
    )
    op.create_index(
        "ix_orders_status_created", "orders", ["status", "created_at", "id"], unique=False
    )
    op.create_index("ix_orders_updated", "orders", ["updated_at", "id"], unique=False)
    op.create_table(
        "customer_profiles",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("billing", sa.Text(), server_default="{}", nullable=False),
        sa.Column("shipping", sa.Text(), server_default="{}", nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_customer_profiles_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_customer_profiles")),
    )
    op.create_table(
        "order_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("item_type", sa.String(length=20), nullable=False),
        sa.Column("name", sa.Text(), server_default="", nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=True),
        sa.Column("variation_id", sa.Integer(), nullable=True),
        sa.Column("quantity", sa.Integer(), server_default="0", nullable=False),
        sa.Column("tax_class", sa.String(length=200), server_default="", nullable=False),
        sa.Column("taxable", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("method_id", sa.Text(), server_default="", nullable=False),
        sa.Column("subtotal", Money(), server_default="0", nullable=False),
        sa.Column("subtotal_tax", Money(), server_default="0", nullable=False),
        sa.Column("total", Money(), server_default="0", nullable=False),
        sa.Column("total_tax", Money(), server_default="0", nullable=False),
        sa.Column("taxes", sa.Text(), server_default="{}", nullable=False),
        sa.Column("rate_id", sa.Integer(), nullable=True),
        sa.Column("rate_code", sa.String(length=200), server_default="", nullable=False),
        sa.Column("compound", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("tax_total", Money(), server_default="0", nullable=False),
        sa.Column("shipping_tax_total", Money(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["order_id"],
            ["orders.id"],
            name=op.f("fk_order_items_order_id_orders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_items")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_order_items_order", "order_items", ["order_id", "item_type", "id"], unique=False
    )
    op.create_index("ix_order_items_product", "order_items", ["product_id"], unique=False)
    op.create_index("ix_order_items_variation", "order_items", ["variation_id"], unique=False)
    op.create_table(
        "order_notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("customer_note", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("system", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["order_id"],
            ["orders.id"],
            name=op.f("fk_order_notes_order_id_orders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_notes")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_order_notes_order", "order_notes", ["order_id", "created_at", "id"], unique=False
    )
    op.create_table(
        "order_refunds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("amount", Money(), nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["order_id"],
            ["orders.id"],
            name=op.f("fk_order_refunds_order_id_orders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_refunds")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_order_refunds_order", "order_refunds", ["order_id", "created_at", "id"], unique=False
    )
    op.create_table(
        "order_item_meta",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("meta_key", sa.String(length=255), nullable=False),
        sa.Column("meta_value", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["order_items.id"],
            name=op.f("fk_order_item_meta_item_id_order_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_item_meta")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_order_item_meta_item", "order_item_meta", ["item_id", "id"], unique=False)
    op.create_table(
        "refund_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("refund_id", sa.Integer(), nullable=False),
        sa.Column("refunded_item_id", sa.Integer(), nullable=False),
        sa.Column("item_type", sa.String(length=20), nullable=False),
        sa.Column("name", sa.Text(), server_default="", nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=True),
        sa.Column("variation_id", sa.Integer(), nullable=True),
        sa.Column("quantity", sa.Integer(), server_default="0", nullable=False),
        sa.Column("tax_class", sa.String(length=200), server_default="", nullable=False),
        sa.Column("subtotal", Money(), server_default="0", nullable=False),
        sa.Column("subtotal_tax", Money(), server_default="0", nullable=False),
        sa.Column("total", Money(), server_default="0", nullable=False),
        sa.Column("total_tax", Money(), server_default="0", nullable=False),
        sa.Column("taxes", sa.Text(), server_default="{}", nullable=False),
        sa.ForeignKeyConstraint(
            ["refund_id"],
            ["order_refunds.id"],
            name=op.f("fk_refund_items_refund_id_order_refunds"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_refund_items")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_refund_items_refund", "refund_items", ["refund_id", "id"], unique=False)


def downgrade() -> None:

    op.drop_index("ix_refund_items_refund", table_name="refund_items")
    op.drop_table("refund_items")
    op.drop_index("ix_order_item_meta_item", table_name="order_item_meta")
    op.drop_table("order_item_meta")
    op.drop_index("ix_order_refunds_order", table_name="order_refunds")
    op.drop_table("order_refunds")
    op.drop_index("ix_order_notes_order", table_name="order_notes")
    op.drop_table("order_notes")
    op.drop_index("ix_order_items_variation", table_name="order_items")
    op.drop_index("ix_order_items_product", table_name="order_items")
    op.drop_index("ix_order_items_order", table_name="order_items")
    op.drop_table("order_items")
    op.drop_table("customer_profiles")
    op.drop_index("ix_orders_updated", table_name="orders")
    op.drop_index("ix_orders_status_created", table_name="orders")
    op.drop_index("ix_orders_customer", table_name="orders")
    op.drop_index("ix_orders_created", table_name="orders")
    op.drop_table("orders")
