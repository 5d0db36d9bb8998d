"""The write bodies: what goes inside each envelope, as JSON Schema components.

Derived from the Colander schemas of ``shopsvc.validation`` wherever a family validates with
Colander (tax rates and classes, attributes, terms, orders, the flat fields of products and
variations, the optional webhook fields), with the enums and bounds of the domain rules and
writers that check a field afterwards (``shopsvc.domain``). What is validated by hand (product
arrays, order notes and refunds, the webhook topic and URL) is declared here, with the field
names taken from the constants the validation uses where there are any.
"""

from __future__ import annotations

from typing import Any

from shopsvc.domain import catalog, stock, topics
from shopsvc.domain import webhooks as webhook_rules
from shopsvc.loaders.terms import TERM_FAMILIES, TermFamily
from shopsvc.openapi.records import component_name
from shopsvc.openapi.schema import BOOLEAN_NOTE, Schema, object_schema, refine
from shopsvc.validation import attributes, orders, products, taxes, terms, webhooks
from shopsvc.validation.types import MAX_INT

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
BOOLEAN: Schema = {"type": "boolean", "description": BOOLEAN_NOTE}
AMOUNT: Schema = {"type": ["string", "number"], "description": "A decimal amount."}
ID: Schema = {"type": "integer", "minimum": 0, "maximum": MAX_INT}
TOPIC_PATTERN = (
    rf"^(({'|'.join(topics.RESOURCES)})\.({'|'.join(topics.EVENTS)})"
    rf"|action\.{topics.ACTION_NAME.pattern})$"
)


def obj(properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


# --- webhooks


def _webhook(create: bool) -> Schema:
    extras = object_schema(webhooks._Extras(), ("name", "secret") if create else None)
    fields = {
        "topic": {**STRING, "pattern": TOPIC_PATTERN, "examples": ["order.created"]},
        "delivery_url": {**STRING, "format": "uri", "description": webhooks.URL_MESSAGE},
        **extras["properties"],
    }
    schema = obj(fields, ("topic", "delivery_url") if create else ())
    if not create:
        schema = refine(schema, {"status": {"enum": list(webhook_rules.STATUSES)}})
    return schema


# --- taxes


def _tax() -> Schema:
    return object_schema(taxes.RATE_SCHEMA)


def _tax_class() -> Schema:
    return {**object_schema(taxes._TaxClass()), "required": ["name"]}


# --- the product catalogue

IMAGE = obj(
    {
        "id": ID,
        "src": {**STRING, "format": "uri"},
        "position": INTEGER,
        "alt": STRING,
        "title": STRING,
    }
)
OPTION = obj({"name": STRING, "slug": STRING, "option": STRING})
DOWNLOAD = obj({"id": STRING, "name": STRING, "file": STRING, "url": STRING})
DIMENSIONS = obj({name: AMOUNT for name in products.DIMENSIONS})
ATTRIBUTE = obj(
    {
        "name": STRING,
        "slug": STRING,
        "position": INTEGER,
        "visible": BOOLEAN,
        "variation": BOOLEAN,
        "options": {"type": ["array", "string"], "items": STRING},
    },
    ("name",),
)
BACKORDERS: Schema = {
    "type": ["boolean", "string"],
    "description": f"A boolean or one of {', '.join(stock.BACKORDERS)}.",
}


def _product_enums() -> dict[str, Schema]:
    return {
        "status": {"enum": list(catalog.WRITABLE_STATUSES)},
        "catalog_visibility": {"enum": list(catalog.CATALOG_VISIBILITIES)},
        "tax_status": {"enum": list(catalog.TAX_STATUSES)},
        "backorders": BACKORDERS,
    }


def _variation() -> Schema:
    flat = object_schema(products.VARIATION_SCHEMA)
    flat = refine(flat, {"backorders": BACKORDERS})
    arrays = {
        "id": ID,
        "visible": BOOLEAN,
        "image": array(IMAGE),
        "attributes": array(OPTION),
        "downloads": array(DOWNLOAD),
        "dimensions": DIMENSIONS,
    }
    return obj({**flat["properties"], **arrays})


def _product() -> Schema:
    flat = refine(object_schema(products.PRODUCT_SCHEMA), _product_enums())
    declared = {
        "type": {**STRING, "enum": list(catalog.PRODUCT_TYPES)},
        "images": {**array(IMAGE), "description": "A non-array value clears the images."},
        "attributes": array(ATTRIBUTE),
        "default_attributes": array(OPTION),
        "downloads": array(DOWNLOAD),
        "dimensions": DIMENSIONS,
        "upsell_ids": array(INTEGER),
        "cross_sell_ids": array(INTEGER),
        "categories": array(INTEGER),
        "tags": array(INTEGER),
        "variations": array(ref("VariationWrite")),
    }
    return obj({**flat["properties"], **declared})


def _product_create() -> Schema:
    return {**_product(), "required": ["title"]}


def _attribute(create: bool) -> Schema:
    schema = refine(
        object_schema(attributes._Attribute()),
        {
            "type": {"enum": list(catalog.ATTRIBUTE_TYPES)},
            "order_by": {"enum": list(catalog.ATTRIBUTE_ORDER_BY)},
            "slug": {"maxLength": catalog.SLUG_MAX_LENGTH},
        },
    )
    return {**schema, "required": ["name"]} if create else schema


def term_write(family: TermFamily) -> Schema:
    fields = frozenset(("name", "slug", *family.fields))
    return object_schema(terms._schema(fields))


def term_schema_name(family: TermFamily) -> str:
    return component_name(family.singular) + "Write"


# --- orders

DELETE_NOTE = "With an id, a null {key} deletes the item."
#: The key documented, for each item array, as the one whose null (with an ``id``) deletes the
#: element (the validation reads any of ``orders.DELETE_KEYS`` in every array).
DELETING = {
    "line_items": "product_id",
    "shipping_lines": "method_id",
    "fee_lines": "title",
    "coupon_lines": "code",
}


def deleting(schema: Schema, key: str) -> Schema:
    """A field whose null (with an ``id``) deletes the item (orders.DELETE_KEYS)."""
    assert key in orders.DELETE_KEYS, key
    return {**schema, "type": [schema["type"], "null"], "description": DELETE_NOTE.format(key=key)}


def _elements(order: Schema, array: str, fields: dict[str, Schema]) -> Schema:
    """``order`` with keywords added to some properties of the elements of ``array``."""
    items = order["properties"][array]
    return refine(order, {array: {"items": refine(items["items"], fields)}})


def _order() -> Schema:
    """The edit schema (create reads the same fields and ignores the elements' ``id``), with
    what the writer checks afterwards: an existing customer or product, a known currency, a
    quantity above 0."""
    order = refine(
        object_schema(orders.EDIT_SCHEMA),
        {
            "status_note": {"description": "Edit only: recorded with a status change."},
            "note": {"description": "The customer note."},
            "customer_id": {"minimum": 0, "description": "An existing customer; 0 is a guest."},
            "currency": {"description": "A known currency code, such as USD."},
        },
    )
    order = _elements(
        order,
        "line_items",
        {
            "id": {"description": "Edit only: the item to change (absent: a new item)."},
            "product_id": {"minimum": 0},
            "quantity": {"description": "Above 0."},
        },
    )
    for array, key in DELETING.items():
        field = order["properties"][array]["items"]["properties"][key]
        order = _elements(order, array, {key: deleting(field, key)})
    return order


def _order_note() -> Schema:
    return obj({"note": {**STRING, "description": "Required on create."}, "customer_note": BOOLEAN})


def _order_refund() -> Schema:
    refund_line = obj(
        {
            "qty": {**INTEGER, "minimum": 0},
            "refund_total": AMOUNT,
            "refund_tax": {"type": "object", "additionalProperties": AMOUNT},
        }
    )
    return obj(
        {
            "amount": {**AMOUNT, "description": "Above 0; required on create."},
            "reason": STRING,
            "line_items": {
                "type": "object",
                "additionalProperties": refund_line,
                "description": "Keyed by order item id.",
            },
            "restock_items": {"type": "boolean", "description": "Coerced by truthiness."},
        }
    )


def request_schemas() -> dict[str, Schema]:
    """Every write body component, by name."""
    found: dict[str, Any] = {
        "WebhookCreate": _webhook(create=True),
        "WebhookEdit": _webhook(create=False),
        "TaxWrite": _tax(),
        "TaxClassCreate": _tax_class(),
        "ProductWrite": _product(),
        "ProductCreate": _product_create(),
        "VariationWrite": _variation(),
        "ProductAttributeCreate": _attribute(create=True),
        "ProductAttributeEdit": _attribute(create=False),
        "OrderWrite": _order(),
        "OrderNoteWrite": _order_note(),
        "OrderRefundWrite": _order_refund(),
    }
    for family in TERM_FAMILIES:
        found[term_schema_name(family)] = term_write(family)
    return found
