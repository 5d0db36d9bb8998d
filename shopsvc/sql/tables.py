"""Every table of the service and its indexes. The migrations build exactly this schema."""

from __future__ import annotations

import datetime as dt
import functools
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    literal_column,
    text,
)
from sqlalchemy.types import TypeDecorator, TypeEngine

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata = MetaData(naming_convention=NAMING)


#: PostgreSQL's type code (the ``pg_type`` OID) of NUMERIC, which psycopg loads as ``Decimal``.
_PG_NUMERIC = 1700


@functools.lru_cache(maxsize=8192)
def _decimal_of_text(text: str) -> Decimal:
    """``Decimal(text)``, remembered: SQLite hands every money value over as text, and the same
    few thousand amounts come back on every page (a ``Decimal`` is immutable, so one object may
    stand for all the equal texts)."""
    return Decimal(text)


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

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        """None for a NUMERIC column on PostgreSQL: psycopg loads it as a ``Decimal`` already
        (as SQLAlchemy's own numeric type knows), and :meth:`process_result_value` would only
        copy each money value of every row read -- some 40 000 for a page of 1000 orders. Any
        other column (SQLite's text, a float expression) is converted as ``TypeDecorator``
        chains the impl's processor and :meth:`process_result_value`."""
        if dialect.name == "postgresql" and coltype == _PG_NUMERIC:
            return None
        if dialect.name == "sqlite":
            # The impl (text) has no processor of its own: the value goes straight to
            # :func:`_money_of_stored`, one call instead of TypeDecorator's two per value.
            return _money_of_stored
        return super().result_processor(dialect, coltype)

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        return _money_of_stored(value)


def _money_of_stored(value: Any) -> Decimal | None:
    """A stored money value as a ``Decimal``: SQLite's text (or a REAL, e.g. a ``sum()``), any
    other driver's number."""
    if value is None:
        return None
    return _decimal_of_text(value) if type(value) is str else Decimal(value)


class Id(TypeDecorator[int]):
    """An INTEGER id. A parameter beyond the column's range (a client may put any digit string
    in a path or ``filter[in]``) binds as :attr:`NONE`, which matches no row, instead of
    failing."""

    impl = Integer
    cache_ok = True
    MAX = 2**31 - 1
    #: An id no row has (ids start at 1): what an id out of range binds as, and what pads a
    #: list of ids (``sql.prepared.Native``).
    NONE = -1

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if isinstance(value, int) and not -self.MAX <= value <= self.MAX:
            return self.NONE
        return value


def utc_now() -> dt.datetime:
    """The current time as timestamps are stored: UTC, naive, whole seconds (so inclusive date
    filters compare exactly with what the API shows)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


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
# One user per email address, case-insensitively (migration 0003).
Index("uq_users_email", func.lower(users.c.email), unique=True)

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
    Index("ix_webhooks_status_topic", "status", "topic"),
    sqlite_autoincrement=True,
)

# The outbox: one row per event per subscribed webhook, written in the transaction of the change
# (decisions.md §3). ``state``: pending (due at ``due_at``; claimed by a worker while
# ``claimed_until`` is in the future), delivered, failed, cancelled or dropped.
webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", Id, primary_key=True),
    Column("delivery_id", String(36), nullable=False, unique=True),
    Column("webhook_id", Id, ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    Column("topic", String(200), nullable=False),
    Column("resource", String(20), nullable=False),
    Column("resource_id", Id, nullable=False),
    Column("state", String(10), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("round_start", Integer, nullable=False, server_default="0"),
    Column("due_at", DateTime(), nullable=False),
    Column("claim_token", String(32), nullable=True),
    Column("claimed_until", DateTime(), nullable=True),
    Column("last_attempt_at", DateTime(), nullable=True),
    Column("source_url", Text, nullable=False),
    *_timestamps(),
    Index("ix_webhook_deliveries_due", "state", "due_at", "id"),
    Index("ix_webhook_deliveries_resource", "webhook_id", "resource", "resource_id", "state"),
    sqlite_autoincrement=True,
)

# The attempt log operators read with ``shopsvc CONFIG deliveries`` (kept ``webhooks.log_days``).
webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    Column("id", Id, primary_key=True),
    Column("delivery_id", String(36), nullable=False),
    Column("webhook_id", Id, nullable=False),
    Column("topic", String(200), nullable=False),
    Column("resource_id", Id, nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("status", Integer, nullable=True),
    Column("error", Text, nullable=True),
    Column("duration_ms", Integer, nullable=False),
    Column("at", DateTime(), nullable=False),
    Index("ix_webhook_attempts_at", "at"),
    Index("ix_webhook_attempts_webhook_id", "webhook_id", "id"),
    Index("ix_webhook_attempts_delivery_id", "delivery_id"),
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
    Column("tax_class_id", Id, ForeignKey("tax_classes.id", ondelete="CASCADE"), nullable=True),
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


# --- the product catalogue

media = Table(
    "media",
    metadata,
    Column("id", Id, primary_key=True),
    Column("file", String(300), nullable=False),  # path below shopsvc.media_dir
    Column("source_url", Text, nullable=False, server_default=""),
    Column("mime_type", String(50), nullable=False),
    Column("title", Text, nullable=False, server_default=""),
    Column("alt", Text, nullable=False, server_default=""),
    *_timestamps(),
    sqlite_autoincrement=True,
)

shipping_fk = ForeignKey("terms.id", ondelete="SET NULL")

products = Table(
    "products",
    metadata,
    Column("id", Id, primary_key=True),
    # a variation's variable product, or a grouped product's child's group
    Column("parent_id", Id, ForeignKey("products.id", ondelete="SET NULL"), nullable=True),
    Column("type", String(20), nullable=False),
    Column("status", String(20), nullable=False),
    Column("status_before_trash", String(20), nullable=True),
    Column("title", Text, nullable=False),
    Column("slug", String(200), nullable=False),
    Column("description", Text, nullable=False, server_default=""),
    Column("short_description", Text, nullable=False, server_default=""),
    Column("purchase_note", Text, nullable=False, server_default=""),
    Column("menu_order", Integer, nullable=False, server_default="0"),
    Column("catalog_visibility", String(10), nullable=False, server_default="visible"),
    Column("sku", String(200), nullable=True),
    Column("regular_price", Money(18, 6), nullable=True),
    Column("sale_price", Money(18, 6), nullable=True),
    Column("sale_from", DateTime(), nullable=True),
    Column("sale_to", DateTime(), nullable=True),
    Column("tax_status", String(10), nullable=False, server_default="taxable"),
    Column("tax_class", String(200), nullable=False, server_default=""),
    Column("virtual", Boolean, nullable=False, server_default="0"),
    Column("downloadable", Boolean, nullable=False, server_default="0"),
    Column("featured", Boolean, nullable=False, server_default="0"),
    Column("sold_individually", Boolean, nullable=False, server_default="0"),
    Column("reviews_allowed", Boolean, nullable=False, server_default="1"),
    Column("manage_stock", Boolean, nullable=False, server_default="0"),
    Column("stock_quantity", Integer, nullable=True),
    Column("stock_status", String(12), nullable=False, server_default="instock"),
    Column("backorders", String(6), nullable=False, server_default="no"),
    Column("weight", Money(18, 6), nullable=True),
    Column("length", Money(18, 6), nullable=True),
    Column("width", Money(18, 6), nullable=True),
    Column("height", Money(18, 6), nullable=True),
    Column("shipping_class_id", Id, shipping_fk, nullable=True),
    Column("product_url", Text, nullable=False, server_default=""),
    Column("button_text", Text, nullable=False, server_default=""),
    Column("download_limit", Integer, nullable=False, server_default="-1"),
    Column("download_expiry", Integer, nullable=False, server_default="-1"),
    Column("total_sales", Integer, nullable=False, server_default="0"),
    Column("upsell_ids", Text, nullable=False, server_default="[]"),  # JSON arrays of ids
    Column("cross_sell_ids", Text, nullable=False, server_default="[]"),
    Column("default_attributes", Text, nullable=False, server_default="[]"),  # JSON
    Column("image_id", Id, ForeignKey("media.id", ondelete="SET NULL"), nullable=True),
    *_timestamps(),
    Index("ix_products_listing", "type", "status", "created_at", "id"),
    Index("ix_products_parent", "parent_id", "menu_order", "id"),
    Index("ix_products_slug", "slug"),
    Index("ix_products_shipping_class", "shipping_class_id"),
    sqlite_autoincrement=True,
)
# SKUs are unique, case-insensitively, among products and variations that are not in the trash.
_LIVE_SKU = text("sku IS NOT NULL AND status <> 'trash'")
Index(
    "uq_products_sku",
    func.lower(products.c.sku),
    unique=True,
    postgresql_where=_LIVE_SKU,
    sqlite_where=_LIVE_SKU,
)
#: The product lists' rows (every list but a ``filter[sku]`` one leaves variations out): the
#: list's terms spell it as here (a literal, so that SQLite too uses the partial indexes).
LISTED_PRODUCT = products.c.type != literal_column("'variation'")
_LISTED = text("type <> 'variation'")
# The default product list (status, newest first) and its count, index-only.
Index(
    "ix_products_listed",
    products.c.status,
    products.c.created_at,
    products.c.id,
    postgresql_where=_LISTED,
    sqlite_where=_LISTED,
)
#: What ``filter[q]`` searches, lower-cased: each word must occur in it (a word has no space,
#: so it never matches across two of the columns). ``ix_products_search`` indexes the same
#: expression.
PRODUCT_SEARCH_TEXT = func.lower(
    products.c.title
    + literal_column("' '")
    + products.c.description
    + literal_column("' '")
    + products.c.short_description
)
# PostgreSQL: the trigrams (``pg_trgm``) of ``PRODUCT_SEARCH_TEXT`` serve ``LIKE '%word%'``;
# SQLite has no such index (its search reads the rows of the list's index).
Index(
    "ix_products_search",
    text("lower(title || ' ' || description || ' ' || short_description) gin_trgm_ops"),
    _table=products,
    postgresql_using="gin",
).ddl_if(dialect="postgresql")

product_gallery = Table(
    "product_gallery",
    metadata,
    Column("product_id", Id, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("media_id", Id, ForeignKey("media.id", ondelete="CASCADE"), nullable=False),
)

# Categories (product_cat), tags (product_tag) and shipping classes (product_shipping_class).
terms = Table(
    "terms",
    metadata,
    Column("id", Id, primary_key=True),
    Column("taxonomy", String(30), nullable=False),
    Column("name", String(200), nullable=False),
    Column("slug", String(200), nullable=False),
    Column("description", Text, nullable=False, server_default=""),
    Column("parent_id", Id, nullable=False, server_default="0"),
    Column("display", String(20), nullable=False, server_default=""),
    Column("image_id", Id, ForeignKey("media.id", ondelete="SET NULL"), nullable=True),
    Column("menu_order", Integer, nullable=False, server_default="0"),
    UniqueConstraint("taxonomy", "slug", name="uq_terms_taxonomy_slug"),
    Index("ix_terms_taxonomy_name", "taxonomy", "name"),
    sqlite_autoincrement=True,
)

# Sibling terms have distinct names, case-insensitively.
Index(
    "uq_terms_sibling_name",
    terms.c.taxonomy,
    terms.c.parent_id,
    func.lower(terms.c.name),
    unique=True,
)

product_terms = Table(
    "product_terms",
    metadata,
    Column("product_id", Id, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column("term_id", Id, ForeignKey("terms.id", ondelete="CASCADE"), primary_key=True),
    Index("ix_product_terms_term", "term_id", "product_id"),
)

attributes = Table(
    "attributes",
    metadata,
    Column("id", Id, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("slug", String(28), nullable=False),
    Column("type", String(20), nullable=False),
    Column("order_by", String(20), nullable=False),
    Column("has_archives", Boolean, nullable=False),
    UniqueConstraint("slug", name="uq_attributes_slug"),
    sqlite_autoincrement=True,
)

attribute_terms = Table(
    "attribute_terms",
    metadata,
    Column("id", Id, primary_key=True),
    Column("attribute_id", Id, ForeignKey("attributes.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("slug", String(200), nullable=False),
    Column("description", Text, nullable=False, server_default=""),
    Column("menu_order", Integer, nullable=False, server_default="0"),
    UniqueConstraint("attribute_id", "slug", name="uq_attribute_terms_attribute_id"),
    sqlite_autoincrement=True,
)

Index(
    "uq_attribute_terms_name",
    attribute_terms.c.attribute_id,
    func.lower(attribute_terms.c.name),
    unique=True,
)

# The attributes of a product: global (attribute_id set, options in product_attribute_terms)
# or custom (attribute_id NULL, name and options stored here).
product_attributes = Table(
    "product_attributes",
    metadata,
    Column("id", Id, primary_key=True),
    Column("product_id", Id, ForeignKey("products.id", ondelete="CASCADE"), nullable=False),
    Column("attribute_id", Id, ForeignKey("attributes.id", ondelete="CASCADE"), nullable=True),
    Column("name", String(200), nullable=False),
    Column("position", Integer, nullable=False, server_default="0"),
    Column("visible", Boolean, nullable=False, server_default="0"),
    Column("is_variation", Boolean, nullable=False, server_default="0"),
    Column("options", Text, nullable=False, server_default="[]"),  # JSON, custom attributes
    Index("ix_product_attributes_product", "product_id", "position", "id"),
    sqlite_autoincrement=True,
)

product_attribute_terms = Table(
    "product_attribute_terms",
    metadata,
    Column("product_id", Id, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "attribute_term_id",
        Id,
        ForeignKey("attribute_terms.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Index("ix_product_attribute_terms_term", "attribute_term_id"),
)

# A variation's attribute values: key = global attribute slug or custom attribute's sanitised name.
variation_attributes = Table(
    "variation_attributes",
    metadata,
    Column("variation_id", Id, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column("attribute_key", String(200), primary_key=True),
    Column("value", Text, nullable=False),
)

downloads = Table(
    "downloads",
    metadata,
    Column("id", Id, primary_key=True),
    Column("product_id", Id, ForeignKey("products.id", ondelete="CASCADE"), nullable=False),
    Column("download_key", String(64), nullable=False),
    Column("name", Text, nullable=False),
    Column("file", Text, nullable=False),
    Column("position", Integer, nullable=False),
    Index("ix_downloads_product", "product_id", "position"),
    sqlite_autoincrement=True,
)

reviews = Table(
    "reviews",
    metadata,
    Column("id", Id, primary_key=True),
    Column("product_id", Id, ForeignKey("products.id", ondelete="CASCADE"), nullable=False),
    Column("reviewer_name", String(200), nullable=False),
    Column("reviewer_email", String(254), nullable=False),
    Column("review", Text, nullable=False),
    Column("rating", Integer, nullable=True),
    Column("verified", Boolean, nullable=False, server_default="0"),
    Column("approved", Boolean, nullable=False, server_default="1"),
    Column("created_at", DateTime(), nullable=False),
    Index("ix_reviews_product", "product_id", "approved", "created_at"),
    sqlite_autoincrement=True,
)


# --- orders and customers (migration 0004)

# A customer's profile: the billing and shipping addresses an order copies to it (JSON objects of
# the address keys that were ever given). A customer is a user with the ``customer`` role.
customer_profiles = Table(
    "customer_profiles",
    metadata,
    Column("user_id", Id, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("billing", Text, nullable=False, server_default="{}"),
    Column("shipping", Text, nullable=False, server_default="{}"),
    Column("updated_at", DateTime(), nullable=False),
)

BILLING_FIELDS = (
    "first_name",
    "last_name",
    "company",
    "address_1",
    "address_2",
    "city",
    "state",
    "postcode",
    "country",
    "email",
    "phone",
)
SHIPPING_FIELDS = BILLING_FIELDS[:9]


def _address_columns(prefix: str, fields: tuple[str, ...]) -> list[Column[Any]]:
    return [Column(f"{prefix}_{name}", Text, nullable=False, server_default="") for name in fields]


orders = Table(
    "orders",
    metadata,
    Column("id", Id, primary_key=True),
    Column("order_key", String(40), nullable=False),
    Column("status", String(20), nullable=False),
    Column("status_before_trash", String(20), nullable=True),
    Column("currency", String(3), nullable=False),
    Column("prices_include_tax", Boolean, nullable=False, server_default="0"),
    # The customer's user id (0: a guest); kept when the user is deleted (the record then shows
    # the guest block built from the order).
    Column("customer_id", Integer, nullable=False, server_default="0"),
    Column("customer_note", Text, nullable=False, server_default=""),
    Column("customer_ip", String(100), nullable=False, server_default=""),
    Column("customer_user_agent", Text, nullable=False, server_default=""),
    Column("payment_method", Text, nullable=False, server_default=""),
    Column("payment_method_title", Text, nullable=False, server_default=""),
    Column("transaction_id", Text, nullable=False, server_default=""),
    Column("date_paid", DateTime(), nullable=True),
    Column("date_completed", DateTime(), nullable=True),
    *_address_columns("billing", BILLING_FIELDS),
    *_address_columns("shipping", SHIPPING_FIELDS),
    Column("discount_total", Money(), nullable=False, server_default="0"),
    Column("discount_tax", Money(), nullable=False, server_default="0"),
    Column("shipping_total", Money(), nullable=False, server_default="0"),
    Column("shipping_tax", Money(), nullable=False, server_default="0"),
    Column("cart_tax", Money(), nullable=False, server_default="0"),
    Column("total_tax", Money(), nullable=False, server_default="0"),
    Column("total", Money(), nullable=False, server_default="0"),
    # Stock is reduced once (processing/completed/on-hold) and restored on cancelled/pending;
    # total_sales rises once.
    Column("stock_reduced", Boolean, nullable=False, server_default="0"),
    Column("sales_recorded", Boolean, nullable=False, server_default="0"),
    Column("order_meta", Text, nullable=False, server_default="{}"),
    *_timestamps(),
    Index("ix_orders_status_created", "status", "created_at", "id"),
    Index("ix_orders_created", "created_at", "id"),
    Index("ix_orders_updated", "updated_at", "id"),
    Index("ix_orders_customer", "customer_id", "created_at", "id"),
    # the narrowest index of every order: counting them by status reads only it
    Index("ix_orders_status", "status"),
    sqlite_autoincrement=True,
)
#: The trashed orders; spelled as here in the queries (a literal, so that both databases use
#: the partial index).
TRASHED_ORDER = orders.c.status == literal_column("'trash'")
_TRASHED = text("status = 'trash'")
# The trashed orders' ids (0007): a product's orders are counted by subtracting the trashed
# ones, looked up in this small index instead of each order's row.
Index("ix_orders_trashed", orders.c.id, postgresql_where=_TRASHED, sqlite_where=_TRASHED)

# The number of orders per status and UTC calendar day of ``created_at`` (0007), kept by
# triggers on ``orders`` in the transaction of every write (docs/sql.md "Order counts"): the
# order counts that filter by status and ``created_at`` alone add up days instead of reading
# every order. ``day`` is ``CAST(created_at AS date)`` on PostgreSQL, the first 10 characters of
# the stored text on SQLite (``YYYY-MM-DD``); a row that falls to 0 stays.
order_counts = Table(
    "order_counts",
    metadata,
    Column("status", String(20), primary_key=True),
    Column("day", Date(), primary_key=True),
    Column("n", Integer, nullable=False),
)

# Every item of every order in one table (item ids share one sequence, as the original's do):
# ``line_item`` (product, quantity, amounts, taxes), ``shipping`` (method), ``fee``, ``coupon``
# (name = code, total = amount) and ``tax`` (one per rate id: rate code and label, compound,
# tax_total and shipping_tax_total). ``taxes`` is JSON ``{"total": {rate id: amount},
# "subtotal": {…}}``.
order_items = Table(
    "order_items",
    metadata,
    Column("id", Id, primary_key=True),
    Column("order_id", Id, ForeignKey("orders.id", ondelete="CASCADE"), nullable=False),
    Column("item_type", String(20), nullable=False),
    Column("name", Text, nullable=False, server_default=""),
    Column("product_id", Integer, nullable=True),
    Column("variation_id", Integer, nullable=True),
    Column("quantity", Integer, nullable=False, server_default="0"),
    Column("tax_class", String(200), nullable=False, server_default=""),
    Column("taxable", Boolean, nullable=False, server_default="0"),
    Column("method_id", Text, nullable=False, server_default=""),
    Column("subtotal", Money(), nullable=False, server_default="0"),
    Column("subtotal_tax", Money(), nullable=False, server_default="0"),
    Column("total", Money(), nullable=False, server_default="0"),
    Column("total_tax", Money(), nullable=False, server_default="0"),
    Column("taxes", Text, nullable=False, server_default="{}"),
    Column("rate_id", Integer, nullable=True),
    Column("rate_code", String(200), nullable=False, server_default=""),
    Column("compound", Boolean, nullable=False, server_default="0"),
    Column("tax_total", Money(), nullable=False, server_default="0"),
    Column("shipping_tax_total", Money(), nullable=False, server_default="0"),
    Index("ix_order_items_order", "order_id", "item_type", "id"),
    sqlite_autoincrement=True,
)
#: The line items (the only items with a product); spelled as here in the queries (a literal,
#: so that SQLite too uses the partial indexes).
LINE_ITEM = order_items.c.item_type == literal_column("'line_item'")
_LINES = text("item_type = 'line_item'")
# The orders of a product or variation, index-only (``/products/<id>/orders``). Partial on
# PostgreSQL only: SQLite's planner preferred a partial index to ``ix_order_items_order`` for
# an order's line items (a scan of every line item: an order's children 0.2 -> 0.8 ms).
Index(
    "ix_order_items_product",
    order_items.c.product_id,
    order_items.c.order_id,
    postgresql_where=_LINES,
)
Index(
    "ix_order_items_variation",
    order_items.c.variation_id,
    order_items.c.order_id,
    postgresql_where=_LINES,
)

# Line item meta in insertion order (variation attributes, ``Backordered``, ``_reduced_stock``…).
order_item_meta = Table(
    "order_item_meta",
    metadata,
    Column("id", Id, primary_key=True),
    Column("item_id", Id, ForeignKey("order_items.id", ondelete="CASCADE"), nullable=False),
    Column("meta_key", String(255), nullable=False),
    Column("meta_value", Text, nullable=False),
    Index("ix_order_item_meta_item", "item_id", "id"),
    sqlite_autoincrement=True,
)

order_notes = Table(
    "order_notes",
    metadata,
    Column("id", Id, primary_key=True),
    Column("order_id", Id, ForeignKey("orders.id", ondelete="CASCADE"), nullable=False),
    Column("note", Text, nullable=False),
    Column("customer_note", Boolean, nullable=False, server_default="0"),
    # True for the notes the service writes itself (status changes, stock, refunds).
    Column("system", Boolean, nullable=False, server_default="0"),
    Column("created_at", DateTime(), nullable=False),
    Index("ix_order_notes_order", "order_id", "created_at", "id"),
    sqlite_autoincrement=True,
)

order_refunds = Table(
    "order_refunds",
    metadata,
    Column("id", Id, primary_key=True),
    Column("order_id", Id, ForeignKey("orders.id", ondelete="CASCADE"), nullable=False),
    Column("amount", Money(), nullable=False),
    Column("reason", Text, nullable=False, server_default=""),
    Column("user_id", Integer, nullable=True),
    Column("created_at", DateTime(), nullable=False),
    Index("ix_order_refunds_order", "order_id", "created_at", "id"),
    sqlite_autoincrement=True,
)

# The items a refund gives back: negative copies of order items, linked to the original.
refund_items = Table(
    "refund_items",
    metadata,
    Column("id", Id, primary_key=True),
    Column("refund_id", Id, ForeignKey("order_refunds.id", ondelete="CASCADE"), nullable=False),
    Column("refunded_item_id", Integer, nullable=False),
    Column("item_type", String(20), nullable=False),
    Column("name", Text, nullable=False, server_default=""),
    Column("product_id", Integer, nullable=True),
    Column("variation_id", Integer, nullable=True),
    Column("quantity", Integer, nullable=False, server_default="0"),
    Column("tax_class", String(200), nullable=False, server_default=""),
    Column("subtotal", Money(), nullable=False, server_default="0"),
    Column("subtotal_tax", Money(), nullable=False, server_default="0"),
    Column("total", Money(), nullable=False, server_default="0"),
    Column("total_tax", Money(), nullable=False, server_default="0"),
    Column("taxes", Text, nullable=False, server_default="{}"),
    Index("ix_refund_items_refund", "refund_id", "id"),
    sqlite_autoincrement=True,
)

# The responses of writes sent with an ``Idempotency-Key`` (``shopsvc.web.idempotency``), one row
# per key and consumer key: claimed (``status`` NULL) at the start of the request's transaction
# and given the response at its end, in the same transaction; a committed row always holds one.
# Pruned once ``expires_at`` (``shopsvc.idempotency_hours`` after the first request) has passed.
idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("id", Id, primary_key=True),
    Column("key_id", Integer, nullable=False),
    Column("idempotency_key", String(255), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("status", Integer, nullable=True),
    Column("headers", Text, nullable=True),
    Column("body", LargeBinary, nullable=True),
    Column("created_at", DateTime(), nullable=False),
    Column("expires_at", DateTime(), nullable=False),
    UniqueConstraint("key_id", "idempotency_key", name="uq_idempotency_keys_key"),
    Index("ix_idempotency_keys_expires_at", "expires_at"),
    sqlite_autoincrement=True,
)
