"""The write fields of the products (and their images, attributes, downloads, variations), the
term families, the taxes and the webhooks (read off ``shopsvc/validation/*.py``)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.hostile.records import (
    AMOUNT,
    BOOL,
    DATE,
    NAME,
    SLUG,
    SMALL_INT,
    TEXT,
    URL,
    Shape,
    record_lists,
    records,
)
from tests.hostile.values import choice

IMAGE = Shape(
    {
        "id": choice(0, "", "0", 1, "1"),
        "src": URL,
        "position": choice(0, 1, "0", ""),
        "alt": TEXT,
        "title": TEXT,
    }
)

PRODUCT_ATTRIBUTE = Shape(
    {
        "slug": choice("pa_color", "color", "", "size"),
        "position": SMALL_INT,
        "visible": BOOL,
        "variation": BOOL,
        "options": st.one_of(
            choice(["Red", "Blue"], "Red | Blue", ["1", 2]), st.lists(NAME, max_size=2)
        ),
    },
    required={"name": choice("Color", "Size", "color", "", "pa_color")},
)

OPTION = Shape(
    {"slug": choice("pa_color", "color", "size"), "option": choice("red", "Red", "blue", "")},
    required={"name": choice("Color", "color", "Size")},
)

DOWNLOAD = Shape(
    {
        "id": choice("", "key-1", 5),
        "name": TEXT,
        "file": choice("https://10.0.0.1/file.zip", "file.zip", ""),
        "url": choice("https://10.0.0.1/other.zip", ""),
    }
)

DIMENSIONS = Shape({"length": AMOUNT, "width": AMOUNT, "height": AMOUNT})

ID_LIST = st.one_of(st.lists(SMALL_INT, max_size=3), choice([1, 2], ["1"], [0, -1]))

STOCK_AND_PRICE_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "sku": st.one_of(choice("", "SKU-1", "sku-1", "SKU-2"), NAME),
    "virtual": BOOL,
    "downloadable": BOOL,
    "managing_stock": BOOL,
    "in_stock": BOOL,
    "backorders": choice("no", "notify", "yes", True, False),
    "stock_quantity": SMALL_INT,
    "inventory_delta": SMALL_INT,
    "regular_price": AMOUNT,
    "sale_price": AMOUNT,
    "weight": AMOUNT,
    "sale_price_dates_from": DATE,
    "sale_price_dates_to": DATE,
    "download_limit": st.one_of(SMALL_INT, choice("", -1)),
    "download_expiry": st.one_of(SMALL_INT, choice("", -1)),
    "tax_class": choice("", "standard", "reduced-rate", "parent", "Reduced Rate"),
    "shipping_class": choice("", "heavy", "none"),
    "description": TEXT,
    "dimensions": records(DIMENSIONS, hostile=1, nested=True),
    "downloads": record_lists(DOWNLOAD),
}

VARIATION = Shape(
    {
        **STOCK_AND_PRICE_FIELDS,
        "visible": BOOL,
        "image": st.one_of(
            st.lists(records(IMAGE, hostile=1, nested=True), max_size=1), choice("", None)
        ),
        "attributes": record_lists(OPTION),
    }
)

PRODUCT = Shape(
    {
        **STOCK_AND_PRICE_FIELDS,
        "name": SLUG,
        "status": choice("publish", "draft", "pending", "private", "trash", "PUBLISH"),
        "short_description": TEXT,
        "enable_html_description": BOOL,
        "enable_html_short_description": BOOL,
        "catalog_visibility": choice("visible", "catalog", "search", "hidden"),
        "tax_status": choice("taxable", "shipping", "none", ""),
        "purchase_note": TEXT,
        "product_url": choice("https://10.0.0.1/p", ""),
        "button_text": TEXT,
        "featured": BOOL,
        "sold_individually": BOOL,
        "reviews_allowed": BOOL,
        "menu_order": SMALL_INT,
        "parent_id": choice(0, 1, 2, "3"),
        "images": record_lists(IMAGE),
        "attributes": record_lists(PRODUCT_ATTRIBUTE),
        "default_attributes": record_lists(OPTION),
        "default_attribute": record_lists(OPTION),
        "upsell_ids": ID_LIST,
        "cross_sell_ids": ID_LIST,
        "categories": ID_LIST,
        "tags": ID_LIST,
        "variations": record_lists(VARIATION),
    },
    required={
        "title": NAME,
        "type": choice("simple", "variable", "external", "grouped"),
    },
)

#: Variations are read only on variable products.
VARIABLE_PRODUCT = Shape(
    PRODUCT.fields,
    required={
        "title": NAME,
        "type": choice("variable"),
        "variations": st.lists(records(VARIATION, hostile=1, nested=True), min_size=1, max_size=2),
    },
)

BULK_PRODUCT = Shape(
    {**PRODUCT.fields, "id": choice(0, "", 1, 2, 3, "4")},
    required=PRODUCT.required,
)

WEBHOOK = Shape(
    {"name": TEXT, "secret": TEXT, "status": choice("active", "paused", "disabled", "ACTIVE")},
    required={
        "topic": choice("order.created", "product.updated", "action.shop_test", "Coupon.Deleted"),
        "delivery_url": URL,
    },
)

TAX = Shape(
    {
        "country": choice("GB", "us", "*", ""),
        "state": choice("CA", "*", ""),
        "rate": choice("20.0000", "5", 0, "", 7.25),
        "name": TEXT,
        "priority": SMALL_INT,
        "compound": BOOL,
        "shipping": BOOL,
        "order": SMALL_INT,
        "class": choice("", "standard", "reduced-rate", "Reduced Rate"),
        "postcode": choice("AB1;CD*;1000...2000", ["SW1A 1AA", "*"], ""),
        "city": choice("London; Paris", ["Berlin"], ""),
    }
)

BULK_TAX = Shape({**TAX.fields, "id": choice(0, "", 1, "1", 2)})

TAX_CLASS = Shape({}, required={"name": st.one_of(NAME, choice("Standard rate", "standard"))})

CATEGORY = Shape(
    {
        "slug": SLUG,
        "description": TEXT,
        "parent": choice(0, 1, "1", 2),
        "display": choice("default", "products", "subcategories", "both", ""),
        "image": st.one_of(choice(0, "", "0", 1, "1.0"), URL),
    },
    required={"name": NAME},
)

TAG = Shape({"slug": SLUG, "description": TEXT}, required={"name": NAME})

SHIPPING_CLASS = Shape(
    {"slug": SLUG, "description": TEXT, "parent": choice(0, 1, "1")}, required={"name": NAME}
)

ATTRIBUTE = Shape(
    {
        "slug": choice("color", "pa_size", "", "a" * 27, "type"),
        "type": choice("select", "text", "SELECT"),
        "order_by": choice("menu_order", "name", "name_num", "id"),
        "has_archives": BOOL,
    },
    required={"name": NAME},
)

TERM = Shape({"slug": SLUG, "menu_order": SMALL_INT}, required={"name": NAME})
