"""Users, API keys, OAuth nonces, webhooks, tax classes and tax rates.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

from shopsvc.sql.tables import Money

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("login", sa.String(60), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("first_name", sa.String(100), nullable=False, server_default=""),
        sa.Column("last_name", sa.String(100), nullable=False, server_default=""),
        sa.Column("role", sa.String(20), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint("login", name="uq_users_login"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_api_keys_user_id_users"),
            nullable=False,
        ),
        sa.Column("description", sa.String(200), nullable=False, server_default=""),
        sa.Column("permissions", sa.String(10), nullable=False),
        sa.Column("consumer_key_hash", sa.String(64), nullable=False),
        sa.Column("consumer_secret", sa.String(43), nullable=False),
        sa.Column("truncated_key", sa.String(7), nullable=False),
        sa.Column("last_access", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("consumer_key_hash", name="uq_api_keys_consumer_key_hash"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "oauth_nonces",
        sa.Column(
            "key_id",
            sa.Integer,
            sa.ForeignKey(
                "api_keys.id", ondelete="CASCADE", name="fk_oauth_nonces_key_id_api_keys"
            ),
            primary_key=True,
        ),
        sa.Column("nonce", sa.String(255), primary_key=True),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_oauth_nonces_expires_at", "oauth_nonces", ["expires_at"])
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("topic", sa.String(200), nullable=False),
        sa.Column("delivery_url", sa.Text, nullable=False),
        sa.Column("secret", sa.Text, nullable=False),
        sa.Column("api_version", sa.String(20), nullable=False),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_webhooks_user_id_users"),
            nullable=True,
        ),
        sa.Column("failure_count", sa.Integer, nullable=False, server_default="0"),
        *_timestamps(),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_webhooks_created_at", "webhooks", ["created_at", "id"])
    op.create_index("ix_webhooks_status", "webhooks", ["status"])
    op.create_table(
        "tax_classes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("slug", sa.String(200), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.UniqueConstraint("slug", name="uq_tax_classes_slug"),
        sa.UniqueConstraint("name", name="uq_tax_classes_name"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "tax_rates",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("country", sa.String(2), nullable=False, server_default=""),
        sa.Column("state", sa.String(200), nullable=False, server_default=""),
        sa.Column("rate", Money(12, 4), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("priority", sa.Integer, nullable=False),
        sa.Column("compound", sa.Boolean, nullable=False),
        sa.Column("shipping", sa.Boolean, nullable=False),
        sa.Column("rate_order", sa.Integer, nullable=False),
        sa.Column(
            "tax_class_id",
            sa.Integer,
            sa.ForeignKey(
                "tax_classes.id", ondelete="CASCADE", name="fk_tax_rates_tax_class_id_tax_classes"
            ),
            nullable=True,
        ),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_tax_rates_order", "tax_rates", ["rate_order", "id"])
    op.create_index("ix_tax_rates_class", "tax_rates", ["tax_class_id", "rate_order"])
    op.create_index("ix_tax_rates_location", "tax_rates", ["country", "state"])
    op.create_table(
        "tax_rate_locations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "tax_rate_id",
            sa.Integer,
            sa.ForeignKey(
                "tax_rates.id",
                ondelete="CASCADE",
                name="fk_tax_rate_locations_tax_rate_id_tax_rates",
            ),
            nullable=False,
        ),
        sa.Column("location_type", sa.String(8), nullable=False),
        sa.Column("code", sa.String(200), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_tax_rate_locations_rate", "tax_rate_locations", ["tax_rate_id", "location_type", "id"]
    )


def downgrade() -> None:
    for table in (
        "tax_rate_locations",
        "tax_rates",
        "tax_classes",
        "webhooks",
        "oauth_nonces",
        "api_keys",
        "users",
    ):
        op.drop_table(table)
