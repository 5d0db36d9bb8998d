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
from shopsvc.domain import orders as order_rules
from shopsvc.domain import webhooks as webhook_rules
from shopsvc.loaders.terms import TERM_FAMILIES, TermFamily
from shopsvc.openapi.params import _any_case
from shopsvc.openapi.records import component_name
from shopsvc.openapi.schema import (
    BOOLEAN as LOOSE_BOOLEAN,
)
from shopsvc.openapi.schema import (
    DECIMAL,
    MONEY,
    NO_NUL,
    NON_NEGATIVE_AMOUNT,
    TEXT,
    Schema,
    integer,
    nullable,
    object_schema,
    refine,
)
from shopsvc.validation import attributes, orders, products, taxes, terms, webhooks
from shopsvc.validation.types import MAX_INT, MIN_INT

#: The fields validated by hand read their values as the Colander types do (``types.as_text``,
#: ``types.int_field``, ``types.parse_loose_bool``, ``types.truthy``).
STRING: Schema = nullable(TEXT)
INTEGER: Schema = nullable(integer(MIN_INT, MAX_INT))
BOOLEAN: Schema = nullable(LOOSE_BOOLEAN)
TRUTHY: Schema = {"description": "Any value, coerced by truthiness."}
AMOUNT: Schema = {**DECIMAL, "description": "A decimal amount."}
ID: Schema = nullable(integer(MIN_INT, MAX_INT, "An id (0 or less: none)."))
#: A name that must not be blank: some character besides spaces, tabs and line breaks (which
#: the text cleaning trims, ``domain.catalog.plain_text``, ``domain.tax.clean_text``) before any
#: ``<`` (from which a tag, closed or not, is stripped).
NAME: Schema = {
    "type": ["string", "number"],
    "pattern": r"^[\t\n\r\x0b ]*[^\x00<\t\n\r\x0b ][^\x00]*$",
    "description": "Not blank (and not starting with a tag).",
}
#: An amount that must not be negative (a refund line's, ``writers.order_refunds``; a coupon's
#: or a shipping line's, ``writers.order_items``): an order amount from 0; null is none.
REFUND_AMOUNT: Schema = {
    "anyOf": [
        {"type": "number", "minimum": 0, "exclusiveMaximum": 10**12},
        {
            "type": "string",
            "pattern": r"^\s*(?:\+?0*(?:[0-9]{1,12}(?:\.[0-9]*)?|\.[0-9]+)"
            r"|-(?:0+(?:\.0*)?|\.0+))\s*$",
        },
        {"type": "null"},
    ]
}


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


#: What an edit's ``_given`` test reads as "not given" (the field is left as it is).
NOT_GIVEN: Schema = {
    "anyOf": [
        {"type": "null"},
        {"type": "string", "enum": ["", "0"]},
        {"type": "integer", "enum": [0]},
        {"type": "boolean", "enum": [False]},
        {"type": "array", "maxItems": 0},
        {"type": "object", "maxProperties": 0},
    ]
}


def _topic_pattern() -> str:
    resources = "|".join(_any_case(name) for name in topics.RESOURCES)
    events = "|".join(_any_case(name) for name in topics.EVENTS)
    action = f"{_any_case('action')}\\.{_any_case('shop')}_[A-Za-z0-9_]+"
    return f"^\\s*(?:(?:{resources})\\.(?:{events})|{action})\\s*$"


def _webhook(create: bool) -> Schema:
    extras = object_schema(webhooks._Extras(), ("name", "secret") if create else None)
    topic = {
        "type": "string",
        "pattern": _topic_pattern(),
        "maxLength": topics.MAX_LENGTH,
        "examples": ["order.created"],
        "description": "resource.event or action.shop_…, in any case.",
    }
    url = {
        "type": "string",
        "pattern": r"^\s*https?://\S+\s*$",
        "description": webhooks.URL_MESSAGE,
    }
    if not create:
        topic = {"anyOf": [topic, NOT_GIVEN], "description": "Empty values change nothing."}
        url = {"anyOf": [url, NOT_GIVEN], "description": "Empty values change nothing."}
    fields = {"topic": topic, "delivery_url": url, **extras["properties"]}
    schema = obj(fields, ("topic", "delivery_url") if create else ())
    if not create:
        schema = refine(schema, {"status": {"enum": list(webhook_rules.STATUSES)}})
    return schema


# --- taxes


def _tax() -> Schema:
    country = {
        "anyOf": [
            {"type": "string", "maxLength": taxes.MAX_COUNTRY, "pattern": NO_NUL},
            # a number is written as text, which must fit too: -9 to 99 (an enum, not an
            # integer range, which would admit 56.0, written "56.0")
            {"enum": list(range(-9, 100))},
            {"type": "null"},
        ],
        "description": "A country code (upper-cased); * or empty is any country.",
    }
    limited = {**TEXT, "maxLength": taxes.MAX_TEXT}
    return refine(
        object_schema(taxes.RATE_SCHEMA),
        {
            "country": country,
            "state": nullable(limited),
            "name": nullable(limited),
            # domain.tax.normalise_priority keeps the absolute value, which must fit a column
            "priority": nullable(integer(-MAX_INT, MAX_INT, "Its absolute value is kept.")),
        },
    )


def _tax_class() -> Schema:
    return {**refine(object_schema(taxes._TaxClass()), {"name": NAME}), "required": ["name"]}


# --- the product catalogue

IMAGE = obj(
    {
        "id": {
            "anyOf": [*ID["anyOf"], {"type": "string", "enum": [""]}],
            "description": 'An attachment id; 0, "" or null: none.',
        },
        "src": {**STRING, "description": "The URL of an image to download (any text)."},
        # any value: "" or a number 0 makes the image the featured one, anything else not
        "position": {"description": '"" or 0 makes it the featured image.'},
        "alt": STRING,
        "title": STRING,
    }
)
OPTION_ELEMENT = obj({"name": STRING, "slug": STRING, "option": STRING})
DOWNLOAD = {
    "anyOf": [
        obj({"id": STRING, "name": STRING, "file": STRING, "url": STRING}),
        {
            **obj({"file": {"enum": [None, ""]}, "url": {"enum": [None, ""]}}),
            "description": "Without a file nor a URL the element is skipped, whatever it holds.",
        },
    ]
}
DIMENSIONS = obj({name: nullable(NON_NEGATIVE_AMOUNT) for name in products.DIMENSIONS})
#: An id of an id list (``products.clean_id_list``): a number or a digit string.
LISTED_ID: Schema = integer(MIN_INT, MAX_INT, "An id.")
#: An upsell or cross-sell id: 0 or less is skipped, whatever its size.
LINKED_ID: Schema = integer(None, MAX_INT, "A product id (0 or less is skipped).")


def named(element: Schema, blank: tuple[Any, ...] = (None,)) -> Schema:
    """An element of an array that skips the elements without a ``name`` (``validation.products.
    _named_elements``): ``element`` with its name, or any object whose name is one of
    ``blank``."""
    given = {**element, "required": ["name"]}
    given = refine(given, {"name": TEXT})
    skipped = {
        **obj({"name": {"enum": list(blank)}}),
        "description": "Without a name the element is skipped, whatever it holds.",
    }
    return {"anyOf": [given, skipped]}


ATTRIBUTE = named(
    obj(
        {
            "name": STRING,
            "slug": STRING,
            # its absolute value is kept, which the INTEGER column must hold; "" is 0
            "position": {
                "anyOf": [
                    *nullable(integer(-MAX_INT, MAX_INT))["anyOf"],
                    {"type": "string", "enum": [""]},
                ]
            },
            "visible": TRUTHY,
            "variation": TRUTHY,
            "options": {"type": ["array", "string", "number"], "items": STRING},
        }
    ),
    blank=(None, ""),  # a name that is blank once cleaned is skipped too
)
OPTION = named(OPTION_ELEMENT)
#: Never refused (``domain.stock.parse_backorders``, reference §6): any value is read, so the
#: schema names no type.
BACKORDERS: Schema = {
    "description": (
        f"A boolean or one of {', '.join(stock.BACKORDERS)}. Any value is accepted: `notify` is "
        'notify, a true spelling (true, 1, "1", "true", "yes", any case) is yes, '
        "anything else no."
    ),
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
        "images": {
            "anyOf": [
                array(IMAGE),
                {"type": ["string", "number", "boolean"], "pattern": NO_NUL},
                {"type": "object", "additionalProperties": ref(STORABLE_NAME)},
            ],
            "description": "A non-array value clears the images.",
        },
        "attributes": array(ATTRIBUTE),
        "default_attributes": array(OPTION),
        "downloads": array(DOWNLOAD),
        "dimensions": DIMENSIONS,
        "upsell_ids": array(LINKED_ID),
        "cross_sell_ids": array(LINKED_ID),
        "categories": array(LISTED_ID),
        "tags": array(LISTED_ID),
        "variations": {
            "type": "array",
            "items": {"anyOf": [ref("VariationWrite"), ref(STORABLE_NAME)]},
            "description": "Read only when the product is variable (the type given, or the "
            "stored one on edit); for another type the elements are ignored.",
        },
    }
    return obj({**flat["properties"], **declared})


#: Any JSON value without a NUL character in a string or a key: what a product body may hold
#: beyond its declared fields (unknown fields are ignored, but ``validation.products``
#: refuses a NUL anywhere in the body).
STORABLE_NAME = "Storable"
STORABLE: Schema = {
    # no "type", so one schema says it for each type (pattern: a string; items: an array;
    # propertyNames and additionalProperties: an object) without a union
    "pattern": NO_NUL,
    "items": ref(STORABLE_NAME),
    "propertyNames": {"pattern": NO_NUL},
    "additionalProperties": ref(STORABLE_NAME),
    "description": "Any JSON value without a NUL character in a string or a key.",
}


def storable(schema: Any) -> Any:
    """``schema`` with every object it declares closed to NUL characters in undeclared keys and
    values, and every field it declares nullable (recursively, in the objects and arrays it
    declares)."""
    if isinstance(schema, list):
        return [storable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    found = {key: storable(value) for key, value in schema.items()}
    if isinstance(schema.get("properties"), dict):
        # a null field is an absent one (``validation.products._present``)
        found["properties"] = {
            name: nullable(storable(value)) for name, value in schema["properties"].items()
        }
    if "properties" in schema:
        found.setdefault("propertyNames", {"pattern": NO_NUL})
        found.setdefault("additionalProperties", ref(STORABLE_NAME))
    return found


def _product_create() -> Schema:
    return {**refine(storable(_product()), {"title": NAME}), "required": ["title"]}


def _attribute(create: bool) -> Schema:
    schema = refine(
        object_schema(attributes._Attribute()),
        {
            "type": {"enum": list(catalog.ATTRIBUTE_TYPES)},
            "order_by": {"enum": list(catalog.ATTRIBUTE_ORDER_BY)},
            "slug": {"maxLength": catalog.SLUG_MAX_LENGTH},
        },
    )
    if create:
        return {**refine(schema, {"name": NAME}), "required": ["name"]}
    return refine(schema, {"name": nullable(NAME)})


def term_write(family: TermFamily, create: bool = False) -> Schema:
    """A term's body: on create ``name`` is required; given, it is never blank."""
    fields = frozenset(("name", "slug", *family.fields))
    schema = object_schema(terms._schema(fields))
    short = {
        # a number is written as text, which must fit too: whole numbers of up to 19 digits
        "anyOf": [
            {"type": "string", "maxLength": terms.MAX_DISPLAY, "pattern": NO_NUL},
            # a number is written as text, which must fit too; an integer range cannot say
            # that (it admits 56.0, and no bound is both written short and followed by a long
            # one), so small whole numbers are listed
            {"enum": list(range(-9, 100))},
            {"type": "null"},
        ],
        "description": f"Plain text of at most {terms.MAX_DISPLAY} characters (a number, as "
        "its text).",
    }
    limits = {"slug": {"maxLength": terms.MAX_SLUG}, "display": short}
    schema = refine(
        schema,
        {
            # at most MAX_NAME characters once cleaned (white space and tags go first)
            "name": NAME,
            **{field: extra for field, extra in limits.items() if field in schema["properties"]},
        },
    )
    if create:
        return {**schema, "required": ["name"]}
    return refine(schema, {"name": nullable(NAME)})


def term_schema_name(family: TermFamily, create: bool = False) -> str:
    return component_name(family.singular) + ("Create" if create else "Write")


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
    return {**nullable(schema), "description": DELETE_NOTE.format(key=key)}


def _elements(order: Schema, array: str, fields: dict[str, Schema]) -> Schema:
    """``order`` with keywords added to some properties of the elements of ``array``."""
    items = order["properties"][array]
    return refine(order, {array: {"items": refine(items["items"], fields)}})


def _order() -> Schema:
    """The edit schema (create reads the same fields and ignores the elements' ``id``), with
    what the writer checks afterwards: an existing customer or product, a known currency, a
    quantity above 0."""
    order_customer = nullable(integer(-MAX_INT, MAX_INT))
    order = refine(
        object_schema(orders.EDIT_SCHEMA),
        {
            "status": {
                "anyOf": [
                    {
                        "type": "string",
                        "pattern": f"^\\s*(?:{'|'.join(order_rules.LABELS)})?\\s*$",
                    },
                    {"type": "null"},
                ],
                "description": "An order status (white space around ignored); empty or "
                "absent: pending on create, unchanged on edit.",
                "examples": ["processing"],
            },
            "status_note": {"description": "Edit only: recorded with a status change."},
            "note": {"description": "The customer note."},
            "customer_id": {
                "anyOf": [*order_customer["anyOf"], {"type": "string", "enum": [""]}],
                "description": 'An existing customer; 0 (or "") is a guest.',
            },
            "currency": {
                "anyOf": [{"enum": sorted(order_rules.currencies())}, {"type": "null"}],
                "description": "A known currency code, such as USD (upper case).",
            },
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
    for array, field in (("coupon_lines", "amount"), ("shipping_lines", "total")):
        order = _elements(order, array, {field: REFUND_AMOUNT})  # not negative
    for array, key in DELETING.items():
        field = order["properties"][array]["items"]["properties"][key]
        order = _elements(order, array, {key: deleting(field, key)})
    return order


def _order_create() -> Schema:
    """A new order: ``payment_details``, when given, names its method (id and title); the
    items' ``id`` is ignored."""
    order = _order()
    ignored = {"description": "Ignored on create."}
    for array in orders.ARRAYS:
        items = order["properties"][array]["items"]
        items = {**items, "properties": {**items["properties"], "id": ignored}}
        order = refine(order, {array: {"items": items}})
    payment = order["properties"]["payment_details"]
    named = {**TEXT, "minLength": 1}
    payment = {
        **refine(payment, {"method_id": named, "method_title": named}),
        "required": ["method_id", "method_title"],
    }
    return refine(order, {"payment_details": payment})


def _order_note(create: bool = False) -> Schema:
    """``note`` (text, required on create; null on edit changes nothing), ``customer_note``."""
    if create:
        return obj({"note": TEXT, "customer_note": BOOLEAN}, ("note",))
    return obj({"note": STRING, "customer_note": BOOLEAN})


#: A refund's amount on create: above 0 (decisions.md §7), a number or a decimal string.
POSITIVE_AMOUNT: Schema = {
    "anyOf": [
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10**12},
        {
            "type": "string",
            "pattern": r"^\s*\+?0*(?:[1-9][0-9]{0,11}(?:\.[0-9]*)?|0?\.[0-9]*[1-9][0-9]*)\s*$",
        },
    ],
    "description": "Above 0, at most what is left to refund.",
}


def _order_refund(create: bool = False) -> Schema:
    """A refund: ``amount`` required and above 0 on create; on edit 0 or less changes nothing."""
    refund_line = obj(
        {
            "qty": {**INTEGER, "minimum": 0},
            "refund_total": REFUND_AMOUNT,
            "refund_tax": {
                "anyOf": [
                    {"type": "object", "additionalProperties": REFUND_AMOUNT},
                    {"type": ["array", "string", "number", "boolean", "null"]},
                ],
                "description": "By tax rate id; anything but an object is no tax refund.",
            },
        }
    )
    if not create:  # an edit changes the reason and the amount only
        ignored = {"description": "Ignored on edit."}
        fields = {"amount": nullable(MONEY), "reason": STRING}
        return obj({**fields, "line_items": ignored, "restock_items": ignored})
    return obj(
        {
            "amount": POSITIVE_AMOUNT,
            "reason": STRING,
            "line_items": {
                "type": "object",
                "additionalProperties": {
                    "anyOf": [refund_line, {"description": "Ignored when its key names no item."}]
                },
                "description": "Keyed by order item id; an entry whose key names no item of "
                "the order is ignored, whatever it holds.",
            },
            "restock_items": TRUTHY,
        },
        ("amount",),
    )


def request_schemas() -> dict[str, Schema]:
    """Every write body component, by name."""
    found: dict[str, Any] = {
        "WebhookCreate": _webhook(create=True),
        "WebhookEdit": _webhook(create=False),
        "TaxWrite": _tax(),
        "TaxClassCreate": _tax_class(),
        "ProductWrite": storable(_product()),
        "ProductCreate": _product_create(),
        "VariationWrite": storable(_variation()),
        STORABLE_NAME: STORABLE,
        "ProductAttributeCreate": _attribute(create=True),
        "ProductAttributeEdit": _attribute(create=False),
        "OrderWrite": _order(),
        "OrderCreate": _order_create(),
        "OrderNoteCreate": _order_note(create=True),
        "OrderNoteWrite": _order_note(),
        "OrderRefundCreate": _order_refund(create=True),
        "OrderRefundWrite": _order_refund(),
    }
    for family in TERM_FAMILIES:
        found[term_schema_name(family)] = term_write(family)
        found[term_schema_name(family, create=True)] = term_write(family, create=True)
    return found
