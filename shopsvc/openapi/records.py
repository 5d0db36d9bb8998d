"""The records the API answers with, as JSON Schema components.

Records are built by plain functions (``shopsvc.records``) whose shape no schema describes, so
their fields are declared here, after the spec's field tables and decisions.md. Every listed
field is required unless it appears only under a filter (``filter[meta]``, ``filter[expand]``)
or for some records only (a registered customer's block). ``tests/test_openapi.py`` checks real
records of every family against these declarations (no field missing, none undeclared), so they
cannot drift from the record builders unnoticed.
"""

from __future__ import annotations

from shopsvc.loaders.terms import TERM_FAMILIES, TermFamily
from shopsvc.openapi.schema import Schema
from shopsvc.records.terms import EXTRAS
from shopsvc.sql.tables import BILLING_FIELDS, SHIPPING_FIELDS

STR: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
BOOL: Schema = {"type": "boolean"}
TIME: Schema = {"type": "string", "description": "UTC, YYYY-MM-DDTHH:MM:SSZ."}
MONEY: Schema = {"type": "string", "description": "A decimal string with fixed decimals."}
OBJECT: Schema = {"type": "object"}


def nullable(schema: Schema) -> Schema:
    return {**schema, "type": [schema["type"], "null"]}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def record(fields: dict[str, Schema], optional: tuple[str, ...] = ()) -> Schema:
    """An object of ``fields``, all required but the ``optional`` ones."""
    return {
        "type": "object",
        "properties": fields,
        "required": [name for name in fields if name not in optional],
    }


def _fields(*names: str, schema: Schema = STR) -> dict[str, Schema]:
    return dict.fromkeys(names, schema)


WEBHOOK = record(
    {
        "id": INT,
        "name": STR,
        "status": STR,
        "topic": STR,
        "resource": STR,
        "event": STR,
        "hooks": array(STR),
        "delivery_url": STR,
        "created_at": TIME,
        "updated_at": TIME,
    }
)
TAX = record(
    {
        "id": INT,
        **_fields("country", "state", "postcode", "city", "rate", "name"),
        "priority": INT,
        "compound": BOOL,
        "shipping": BOOL,
        "order": INT,
        "class": STR,
    }
)
TAX_CLASS = record(_fields("slug", "name"))

# --- orders

ADDRESS = record(_fields(*BILLING_FIELDS))
SHIPPING_ADDRESS = record(_fields(*SHIPPING_FIELDS))
META = record({"key": STR, "value": STR, "label": STR})
LINE_ITEM = record(
    {
        "id": INT,
        **_fields("subtotal", "subtotal_tax", "total", "total_tax", "price", schema=MONEY),
        "quantity": INT,
        "tax_class": STR,
        "name": STR,
        "product_id": INT,
        "sku": nullable(STR),
        "meta": array(META),
        "product_data": ref("Product"),
    },
    optional=("product_data",),
)
TAX_LINE = record(
    {
        "id": INT,
        "rate_id": INT,
        "code": STR,
        "title": STR,
        "total": MONEY,
        "compound": BOOL,
        "rate_data": ref("Tax"),
    },
    optional=("rate_data",),
)
CUSTOMER = record(
    {
        "id": INT,
        "created_at": TIME,
        "last_update": TIME,
        **_fields("email", "first_name", "last_name", "username", "role"),
        "last_order_id": nullable(INT),
        "last_order_date": nullable(STR),
        "orders_count": INT,
        "total_spent": MONEY,
        "avatar_url": STR,
        "billing_address": ADDRESS,
        "shipping_address": SHIPPING_ADDRESS,
    },
    optional=(
        "created_at",
        "last_update",
        "username",
        "role",
        "last_order_id",
        "last_order_date",
        "orders_count",
        "total_spent",
        "avatar_url",
    ),
)
ORDER = record(
    {
        "id": INT,
        "order_number": STR,
        "order_key": STR,
        "created_at": TIME,
        "updated_at": TIME,
        "completed_at": TIME,
        "status": STR,
        "currency": STR,
        "total": MONEY,
        "subtotal": MONEY,
        "total_line_items_quantity": INT,
        **_fields(
            "total_tax",
            "total_shipping",
            "cart_tax",
            "shipping_tax",
            "total_discount",
            schema=MONEY,
        ),
        "shipping_methods": STR,
        "payment_details": record({"method_id": STR, "method_title": STR, "paid": BOOL}),
        "billing_address": ADDRESS,
        "shipping_address": SHIPPING_ADDRESS,
        **_fields("note", "customer_ip", "customer_user_agent"),
        "customer_id": INT,
        "view_order_url": STR,
        "line_items": array(LINE_ITEM),
        "shipping_lines": array(
            record({"id": INT, "method_id": STR, "method_title": STR, "total": MONEY})
        ),
        "tax_lines": array(TAX_LINE),
        "fee_lines": array(
            record({"id": INT, "title": STR, "tax_class": STR, "total": MONEY, "total_tax": MONEY})
        ),
        "coupon_lines": array(
            record(
                {"id": INT, "code": STR, "amount": MONEY, "coupon_data": OBJECT},
                optional=("coupon_data",),
            )
        ),
        "customer": CUSTOMER,
        "order_meta": OBJECT,
    },
    optional=("order_meta",),
)
ORDER_NOTE = record({"id": INT, "created_at": TIME, "note": STR, "customer_note": BOOL})
ORDER_REFUND = record(
    {
        "id": INT,
        "created_at": TIME,
        "amount": MONEY,
        "reason": STR,
        "line_items": array(
            {
                **LINE_ITEM,
                "properties": {
                    **{k: v for k, v in LINE_ITEM["properties"].items() if k != "product_data"},
                    "refunded_item_id": INT,
                },
                "required": [*LINE_ITEM["required"], "refunded_item_id"],
            }
        ),
    }
)

# --- the product catalogue

IMAGE = record(
    {
        "id": INT,
        "created_at": TIME,
        "updated_at": TIME,
        "src": STR,
        "title": STR,
        "alt": STR,
        "position": INT,
    }
)
DIMENSIONS = record(_fields("length", "width", "height", "unit"))
DOWNLOAD = record(_fields("id", "name", "file"))
PRODUCT_ATTRIBUTE = record(
    {
        "name": STR,
        "slug": STR,
        "position": INT,
        "visible": BOOL,
        "variation": BOOL,
        "options": array(STR),
    }
)
VARIATION_ATTRIBUTE = record(_fields("name", "slug", "option"))
STOCK = {
    "taxable": BOOL,
    "tax_status": STR,
    "tax_class": STR,
    "managing_stock": BOOL,
    "stock_quantity": nullable(INT),
    "in_stock": BOOL,
    "backorders_allowed": BOOL,
    "backordered": BOOL,
}
VARIATION = record(
    {
        "id": INT,
        "created_at": TIME,
        "updated_at": TIME,
        "downloadable": BOOL,
        "virtual": BOOL,
        "permalink": STR,
        "sku": STR,
        "price": STR,
        "regular_price": STR,
        "sale_price": nullable(STR),
        **STOCK,
        "stock_quantity": INT,
        "purchaseable": BOOL,
        "visible": BOOL,
        "on_sale": BOOL,
        "weight": nullable(STR),
        "dimensions": DIMENSIONS,
        "shipping_class": STR,
        "shipping_class_id": nullable(INT),
        "image": array(IMAGE),
        "attributes": array(VARIATION_ATTRIBUTE),
        "downloads": array(DOWNLOAD),
        "download_limit": INT,
        "download_expiry": INT,
    }
)
PRODUCT = record(
    {
        "title": STR,
        "id": INT,
        "created_at": TIME,
        "updated_at": TIME,
        "type": STR,
        "status": STR,
        "downloadable": BOOL,
        "virtual": BOOL,
        "permalink": STR,
        "sku": STR,
        "price": STR,
        "regular_price": STR,
        "sale_price": nullable(STR),
        "price_html": STR,
        **STOCK,
        "sold_individually": BOOL,
        "purchaseable": BOOL,
        "featured": BOOL,
        "visible": BOOL,
        "catalog_visibility": STR,
        "on_sale": BOOL,
        "product_url": STR,
        "button_text": STR,
        "weight": nullable(STR),
        "dimensions": DIMENSIONS,
        "shipping_required": BOOL,
        "shipping_taxable": BOOL,
        "shipping_class": STR,
        "shipping_class_id": nullable(INT),
        "description": STR,
        "short_description": STR,
        "reviews_allowed": BOOL,
        "average_rating": STR,
        "rating_count": INT,
        **_fields("related_ids", "upsell_ids", "cross_sell_ids", schema=array(INT)),
        "parent_id": INT,
        "categories": array(STR),
        "tags": array(STR),
        "images": array(IMAGE),
        "featured_src": STR,
        "attributes": {
            "type": "array",
            "items": {"anyOf": [PRODUCT_ATTRIBUTE, VARIATION_ATTRIBUTE]},
        },
        "downloads": array(DOWNLOAD),
        "download_limit": INT,
        "download_expiry": INT,
        "download_type": STR,
        "purchase_note": STR,
        "total_sales": INT,
        "variations": array(VARIATION),
        "parent": {"type": "object", "description": "The parent product of a variation, else {}."},
        "grouped_products": array(ref("Product")),
        "menu_order": INT,
        "product_meta": OBJECT,
    },
    optional=("product_meta",),
)
PRODUCT_REVIEW = record(
    {
        "id": INT,
        "created_at": TIME,
        "review": STR,
        "rating": STR,
        "reviewer_name": STR,
        "reviewer_email": STR,
        "verified": BOOL,
    }
)
PRODUCT_ATTRIBUTE_RECORD = record(
    {"id": INT, "name": STR, "slug": STR, "type": STR, "order_by": STR, "has_archives": BOOL}
)


#: The types of the fields a term record may carry beyond ``id``, ``name``, ``slug``, ``count``.
TERM_FIELD_TYPES: dict[str, Schema] = {
    "parent": INT,
    "description": STR,
    "display": STR,
    "image": STR,
}


def component_name(singular: str) -> str:
    """``product_attribute_term`` → ``ProductAttributeTerm``."""
    return "".join(part.capitalize() for part in singular.split("_"))


def term_record(family: TermFamily) -> Schema:
    """The record of a term family: the fields ``records.terms`` writes for it, in its order."""
    extras = {name: TERM_FIELD_TYPES[name] for name in EXTRAS if name in family.fields}
    return record({"id": INT, "name": STR, "slug": STR, **extras, "count": INT})


RECORDS: dict[str, Schema] = {
    "Webhook": WEBHOOK,
    "WebhookDelivery": {"type": "object", "description": "Deliveries are never listed."},
    "Tax": TAX,
    "TaxClass": TAX_CLASS,
    "Order": ORDER,
    "OrderNote": ORDER_NOTE,
    "OrderRefund": ORDER_REFUND,
    "Product": PRODUCT,
    "ProductReview": PRODUCT_REVIEW,
    "ProductAttribute": PRODUCT_ATTRIBUTE_RECORD,
    **{component_name(family.singular): term_record(family) for family in TERM_FAMILIES},
}
