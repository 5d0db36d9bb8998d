"""The products' loader."""

from __future__ import annotations

from shopsvc.loaders.base import Loader
from shopsvc.sql import products as products_sql

#: Products and variations (decisions.md §7: read / edit / delete capabilities).
PRODUCTS = Loader(
    "product",
    fetch=products_sql.product_kind,
    capabilities={
        "read": "read_private_products",
        "edit": "edit_products",
        "delete": "delete_products",
        "create": "publish_products",
        "count": "read_private_products",
    },
    denials={
        "create": (
            "shop_api_user_cannot_create_product",
            "You do not have permission to create products.",
        ),
        "count": (
            "shop_api_user_cannot_read_products_count",
            "You do not have permission to read the products count.",
        ),
    },
)
