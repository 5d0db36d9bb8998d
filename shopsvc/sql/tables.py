"""Every table of the service and its indexes. The migrations build exactly this schema."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    Text,
)
from sqlalchemy.types import TypeDecorator, TypeEngine

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata = MetaData(naming_convention=NAMING)


class Money(TypeDecorator[Decimal]):
    """An exact decimal: NUMERIC on PostgreSQL, text on SQLite (whose NUMERIC is a float)."""

    impl = Numeric
    cache_ok = True

    def __init__(self, precision: int = 18, scale: int = 6) -> None:
        super().__init__(precision=precision, scale=scale, asdecimal=True)
        self.scale = scale

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(String(40))
        return dialect.type_descriptor(Numeric(self.impl.precision, self.scale, asdecimal=True))

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        value = Decimal(value)
        return str(value) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        return None if value is None else Decimal(value)


class Id(TypeDecorator[int]):
    """An INTEGER id. A parameter beyond the column's range (a client may put any digit string
    in a path or ``filter[in]``) binds as -1, which matches no row, instead of failing."""

    impl = Integer
    cache_ok = True
    MAX = 2**31 - 1

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if isinstance(value, int) and not -self.MAX <= value <= self.MAX:
            return -1
        return value


def _timestamps() -> list[Column[Any]]:
    return [
        Column("created_at", DateTime(), nullable=False),
        Column("updated_at", DateTime(), nullable=False),
    ]


users = Table(
    "users",
    metadata,
    Column("id", Id, primary_key=True),
    Column("login", String(60), nullable=False, unique=True),
    Column("email", String(254), nullable=False),
    Column("first_name", String(100), nullable=False, server_default=""),
    Column("last_name", String(100), nullable=False, server_default=""),
    Column("role", String(20), nullable=False),
    *_timestamps(),
    sqlite_autoincrement=True,
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", Id, primary_key=True),
    Column("user_id", Id, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("description", String(200), nullable=False, server_default=""),
    Column("permissions", String(10), nullable=False),
    Column("consumer_key_hash", String(64), nullable=False, unique=True),
    Column("consumer_secret", String(43), nullable=False),
    Column("truncated_key", String(7), nullable=False),
    Column("last_access", DateTime(), nullable=True),
    Column("created_at", DateTime(), nullable=False),
    sqlite_autoincrement=True,
)

oauth_nonces = Table(
    "oauth_nonces",
    metadata,
    Column("key_id", Id, ForeignKey("api_keys.id", ondelete="CASCADE"), primary_key=True),
    Column("nonce", String(255), primary_key=True),
    Column("expires_at", BigInteger, nullable=False),
    Index("ix_oauth_nonces_expires_at", "expires_at"),
)

webhooks = Table(
    "webhooks",
    metadata,
    Column("id", Id, primary_key=True),
    Column("name", Text, nullable=False),
    Column("status", String(20), nullable=False),
    Column("topic", String(200), nullable=False),
    Column("delivery_url", Text, nullable=False),
    Column("secret", Text, nullable=False),
    Column("api_version", String(20), nullable=False),
    Column("user_id", Id, ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    Column("failure_count", Integer, nullable=False, server_default="0"),
    *_timestamps(),
    Index("ix_webhooks_created_at", "created_at", "id"),
    Index("ix_webhooks_status", "status"),
    sqlite_autoincrement=True,
)

tax_classes = Table(
    "tax_classes",
    metadata,
    Column("id", Id, primary_key=True),
    Column("slug", String(200), nullable=False, unique=True),
    Column("name", String(200), nullable=False, unique=True),
    sqlite_autoincrement=True,
)

tax_rates = Table(
    "tax_rates",
    metadata,
    Column("id", Id, primary_key=True),
    Column("country", String(2), nullable=False, server_default=""),
    Column("state", String(200), nullable=False, server_default=""),
    Column("rate", Money(12, 4), nullable=False),
    Column("name", String(200), nullable=False),
    Column("priority", Integer, nullable=False),
    Column("compound", Boolean, nullable=False),
    Column("shipping", Boolean, nullable=False),
    Column("rate_order", Integer, nullable=False),
    # NULL is the built-in ``standard`` class; deleting a class deletes its rates.
    Column(
        "tax_class_id", Id, ForeignKey("tax_classes.id", ondelete="CASCADE"), nullable=True
    ),
    Index("ix_tax_rates_order", "rate_order", "id"),
    Index("ix_tax_rates_class", "tax_class_id", "rate_order"),
    Index("ix_tax_rates_location", "country", "state"),
    sqlite_autoincrement=True,
)

tax_rate_locations = Table(
    "tax_rate_locations",
    metadata,
    Column("id", Id, primary_key=True),
    Column(
        "tax_rate_id",
        Id,
        ForeignKey("tax_rates.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("location_type", String(8), nullable=False),  # 'postcode' or 'city'
    Column("code", String(200), nullable=False),
    Index("ix_tax_rate_locations_rate", "tax_rate_id", "location_type", "id"),
    sqlite_autoincrement=True,
)
