"""The product catalogue: products and variations, media, terms, attributes, reviews.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

from shopsvc.sql.tables import Money

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "attributes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("slug", sa.String(length=28), nullable=False),
        sa.Column("type", sa.String(length=20), nullable=False),
        sa.Column("order_by", sa.String(length=20), nullable=False),
        sa.Column("has_archives", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attributes")),
        sa.UniqueConstraint("slug", name="uq_attributes_slug"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "media",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("file", sa.String(length=300), nullable=False),
        sa.Column("source_url", sa.Text(), server_default="", nullable=False),
        sa.Column("mime_type", sa.String(length=50), nullable=False),
        sa.Column("title", sa.Text(), server_default="", nullable=False),
        sa.Column("alt", sa.Text(), server_default="", nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_media")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "attribute_terms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("attribute_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("slug", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("menu_order", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["attribute_id"],
            ["attributes.id"],
            name=op.f("fk_attribute_terms_attribute_id_attributes"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attribute_terms")),
        sa.UniqueConstraint("attribute_id", "slug", name="uq_attribute_terms_attribute_id"),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "uq_attribute_terms_name",
        "attribute_terms",
        ["attribute_id", sa.text("lower(name)")],
        unique=True,
    )
    op.create_table(
        "terms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("taxonomy", sa.String(length=30), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("slug", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("parent_id", sa.Integer(), server_default="0", nullable=False),
        sa.Column("display", sa.String(length=20), server_default="", nullable=False),
        sa.Column("image_id", sa.Integer(), nullable=True),
        sa.Column("menu_order", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["image_id"], ["media.id"], name=op.f("fk_terms_image_id_media"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_terms")),
        sa.UniqueConstraint("taxonomy", "slug", name="uq_terms_taxonomy_slug"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_terms_taxonomy_name", "terms", ["taxonomy", "name"])
    op.create_index(
        "uq_terms_sibling_name",
        "terms",
        ["taxonomy", "parent_id", sa.text("lower(name)")],
        unique=True,
    )

    op.create_table(
        "products",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.Column("type", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("status_before_trash", sa.String(length=20), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("slug", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("short_description", sa.Text(), server_default="", nullable=False),
        sa.Column("purchase_note", sa.Text(), server_default="", nullable=False),
        sa.Column("menu_order", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "catalog_visibility", sa.String(length=10), server_default="visible", nullable=False
        ),
        sa.Column("sku", sa.String(length=200), nullable=True),
        sa.Column("regular_price", Money(18, 6), nullable=True),
        sa.Column("sale_price", Money(18, 6), nullable=True),
        sa.Column("sale_from", sa.DateTime(), nullable=True),
        sa.Column("sale_to", sa.DateTime(), nullable=True),
        sa.Column("tax_status", sa.String(length=10), server_default="taxable", nullable=False),
        sa.Column("tax_class", sa.String(length=200), server_default="", nullable=False),
        sa.Column("virtual", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("downloadable", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("featured", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("sold_individually", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("reviews_allowed", sa.Boolean(), server_default="1", nullable=False),
        sa.Column("manage_stock", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("stock_quantity", sa.Integer(), nullable=True),
        sa.Column("stock_status", sa.String(length=12), server_default="instock", nullable=False),
        sa.Column("backorders", sa.String(length=6), server_default="no", nullable=False),
        sa.Column("weight", Money(18, 6), nullable=True),
        sa.Column("length", Money(18, 6), nullable=True),
        sa.Column("width", Money(18, 6), nullable=True),
        sa.Column("height", Money(18, 6), nullable=True),
        sa.Column("shipping_class_id", sa.Integer(), nullable=True),
        sa.Column("product_url", sa.Text(), server_default="", nullable=False),
        sa.Column("button_text", sa.Text(), server_default="", nullable=False),
        sa.Column("download_limit", sa.Integer(), server_default="-1", nullable=False),
        sa.Column("download_expiry", sa.Integer(), server_default="-1", nullable=False),
        sa.Column("total_sales", sa.Integer(), server_default="0", nullable=False),
        sa.Column("upsell_ids", sa.Text(), server_default="[]", nullable=False),
        sa.Column("cross_sell_ids", sa.Text(), server_default="[]", nullable=False),
        sa.Column("default_attributes", sa.Text(), server_default="[]", nullable=False),
        sa.Column("image_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["image_id"], ["media.id"], name=op.f("fk_products_image_id_media"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"],
            ["products.id"],
            name=op.f("fk_products_parent_id_products"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["shipping_class_id"],
            ["terms.id"],
            name=op.f("fk_products_shipping_class_id_terms"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_products")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_products_listing", "products", ["type", "status", "created_at", "id"])
    op.create_index("ix_products_parent", "products", ["parent_id", "menu_order", "id"])
    op.create_index("ix_products_slug", "products", ["slug"])
    op.create_index("ix_products_shipping_class", "products", ["shipping_class_id"])
    live_sku = sa.text("sku IS NOT NULL AND status <> 'trash'")
    op.create_index(
        "uq_products_sku",
        "products",
        [sa.text("lower(sku)")],
        unique=True,
        postgresql_where=live_sku,
        sqlite_where=live_sku,
    )

    op.create_table(
        "downloads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("download_key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("file", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_downloads_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_downloads")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_downloads_product", "downloads", ["product_id", "position"])

    op.create_table(
        "product_attribute_terms",
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("attribute_term_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["attribute_term_id"],
            ["attribute_terms.id"],
            name=op.f("fk_product_attribute_terms_attribute_term_id_attribute_terms"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_product_attribute_terms_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "product_id", "attribute_term_id", name=op.f("pk_product_attribute_terms")
        ),
    )
    op.create_index(
        "ix_product_attribute_terms_term", "product_attribute_terms", ["attribute_term_id"]
    )

    op.create_table(
        "product_attributes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("attribute_id", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("position", sa.Integer(), server_default="0", nullable=False),
        sa.Column("visible", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("is_variation", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("options", sa.Text(), server_default="[]", nullable=False),
        sa.ForeignKeyConstraint(
            ["attribute_id"],
            ["attributes.id"],
            name=op.f("fk_product_attributes_attribute_id_attributes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_product_attributes_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_product_attributes")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_product_attributes_product", "product_attributes", ["product_id", "position", "id"]
    )

    op.create_table(
        "product_gallery",
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("media_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["media_id"],
            ["media.id"],
            name=op.f("fk_product_gallery_media_id_media"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_product_gallery_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("product_id", "position", name=op.f("pk_product_gallery")),
    )
    op.create_table(
        "product_terms",
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("term_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_product_terms_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["term_id"],
            ["terms.id"],
            name=op.f("fk_product_terms_term_id_terms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("product_id", "term_id", name=op.f("pk_product_terms")),
    )
    op.create_index("ix_product_terms_term", "product_terms", ["term_id", "product_id"])

    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("reviewer_name", sa.String(length=200), nullable=False),
        sa.Column("reviewer_email", sa.String(length=254), nullable=False),
        sa.Column("review", sa.Text(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("verified", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("approved", sa.Boolean(), server_default="1", nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_reviews_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reviews")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_reviews_product", "reviews", ["product_id", "approved", "created_at"])

    op.create_table(
        "variation_attributes",
        sa.Column("variation_id", sa.Integer(), nullable=False),
        sa.Column("attribute_key", sa.String(length=200), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["variation_id"],
            ["products.id"],
            name=op.f("fk_variation_attributes_variation_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "variation_id", "attribute_key", name=op.f("pk_variation_attributes")
        ),
    )


def downgrade() -> None:
    op.drop_table("variation_attributes")
    op.drop_index("ix_reviews_product", table_name="reviews")

    op.drop_table("reviews")
    op.drop_index("ix_product_terms_term", table_name="product_terms")

    op.drop_table("product_terms")
    op.drop_table("product_gallery")
    op.drop_index("ix_product_attributes_product", table_name="product_attributes")

    op.drop_table("product_attributes")
    op.drop_index("ix_product_attribute_terms_term", table_name="product_attribute_terms")

    op.drop_table("product_attribute_terms")
    op.drop_index("ix_downloads_product", table_name="downloads")

    op.drop_table("downloads")
    op.drop_index("uq_products_sku", table_name="products")
    op.drop_index("ix_products_shipping_class", table_name="products")
    op.drop_index("ix_products_slug", table_name="products")
    op.drop_index("ix_products_parent", table_name="products")
    op.drop_index("ix_products_listing", table_name="products")

    op.drop_table("products")
    op.drop_index("uq_terms_sibling_name", table_name="terms")
    op.drop_index("ix_terms_taxonomy_name", table_name="terms")

    op.drop_table("terms")
    op.drop_table("attribute_terms")
    op.drop_table("media")
    op.drop_table("attributes")
