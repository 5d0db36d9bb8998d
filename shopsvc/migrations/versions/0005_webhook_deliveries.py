"""Webhook events: the outbox of deliveries and the log of their attempts.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("delivery_id", sa.String(length=36), nullable=False),
        sa.Column("webhook_id", sa.Integer(), nullable=False),
        sa.Column("topic", sa.String(length=200), nullable=False),
        sa.Column("resource", sa.String(length=20), nullable=False),
        sa.Column("resource_id", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("round_start", sa.Integer(), server_default="0", nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=False),
        sa.Column("claim_token", sa.String(length=32), nullable=True),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
        sa.Column("last_attempt_at", sa.DateTime(), nullable=True),
        sa.Column("source_url", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_deliveries_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
        sa.UniqueConstraint("delivery_id", name=op.f("uq_webhook_deliveries_delivery_id")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_webhook_deliveries_due", "webhook_deliveries", ["state", "due_at", "id"])
    op.create_index(
        "ix_webhook_deliveries_resource",
        "webhook_deliveries",
        ["webhook_id", "resource", "resource_id", "state"],
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("delivery_id", sa.String(length=36), nullable=False),
        sa.Column("webhook_id", sa.Integer(), nullable=False),
        sa.Column("topic", sa.String(length=200), nullable=False),
        sa.Column("resource_id", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_attempts")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_webhook_attempts_at", "webhook_attempts", ["at"])
    op.create_index("ix_webhook_attempts_webhook_id", "webhook_attempts", ["webhook_id", "id"])
    op.create_index("ix_webhook_attempts_delivery_id", "webhook_attempts", ["delivery_id"])
    # Active webhooks are looked up by topic on every write that raises an event.
    op.create_index("ix_webhooks_status_topic", "webhooks", ["status", "topic"])


def downgrade() -> None:
    op.drop_index("ix_webhooks_status_topic", table_name="webhooks")
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_deliveries")
