"""The one hand-kept table of the OpenAPI document: for each view (by its callable's name, as
registered), what it answers, which body it reads, which query it takes and which error codes it
can raise — the parts that no schema or registration says. Record shapes are in
``shopsvc.openapi.records``; bodies, paths, methods and parameters of paths come from the
Colander schemas and the registry. The entries of the catalogue and of the orders are in
``openapi_table_catalog.py`` and ``openapi_table_orders.py`` (a view module stays short).

Codes of loading and capability checks are asked of the families' loaders (``load``,
``require``); the others are the spec's (Errors) and the writers'. ``tests/test_openapi.py``
checks that every routed view has an entry here and that every code the source raises is named.
"""

from __future__ import annotations

from shopsvc.domain.webhooks import LIST_STATUSES
from shopsvc.loaders.taxes import TAX_CLASSES, TAX_RATES
from shopsvc.loaders.webhooks import WEBHOOKS
from shopsvc.openapi import params
from shopsvc.openapi.operations import ViewDoc, codes, load, merge, require
from shopsvc.openapi.page import DOCS_FILES
from shopsvc.openapi.table_catalog import catalog_docs
from shopsvc.openapi.table_orders import order_docs
from shopsvc.web.listing import WEBHOOK_ORDERBY

FIELDS = (params.FIELDS,)
STORE = {"$ref": "#/components/schemas/Store"}

# --- webhooks

WEBHOOK_STATUS = params.choice(
    "status", LIST_STATUSES, "In any case, white space around ignored; empty is all."
)
WEBHOOK_WRITE = codes(
    400, "shop_api_invalid_webhook_topic", "shop_api_invalid_webhook_delivery_url"
)
WEBHOOK_MISSING = codes(400, "shop_api_missing_webhook_data")
WEBHOOK_DELIVERY = codes(404, "shop_api_invalid_webhook_delivery_id") + codes(
    400, "shop_api_invalid_webhook_delivery_id"
)


def _webhooks() -> dict[str, ViewDoc]:
    one = {"envelope": "webhook", "record": "Webhook"}
    return {
        "list_webhooks": ViewDoc(
            "paged",
            "webhooks",
            "Webhook",
            query=(*params.paged(WEBHOOK_ORDERBY), WEBHOOK_STATUS),
            errors=require(WEBHOOKS, "list"),
        ),
        "count_webhooks": ViewDoc(
            "count",
            query=(*params.counted(WEBHOOK_ORDERBY), WEBHOOK_STATUS),
            errors=require(WEBHOOKS, "count"),
        ),
        "create_webhook": ViewDoc(
            "single",
            **one,
            request="WebhookCreate",
            statuses=(201,),
            errors=merge(WEBHOOK_MISSING, require(WEBHOOKS, "create"), WEBHOOK_WRITE),
        ),
        "get_webhook": ViewDoc("single", **one, query=FIELDS, errors=load(WEBHOOKS, "read")),
        "edit_webhook": ViewDoc(
            "single",
            **one,
            request="WebhookEdit",
            errors=merge(
                WEBHOOK_MISSING,
                load(WEBHOOKS, "edit"),
                WEBHOOK_WRITE,
                codes(400, "shop_api_invalid_webhook_status"),
            ),
        ),
        "delete_webhook": ViewDoc("message", errors=load(WEBHOOKS, "delete")),
        "list_deliveries": ViewDoc(
            "list",
            "webhook_deliveries",
            "WebhookDelivery",
            query=FIELDS,
            errors=load(WEBHOOKS, "read"),
        ),
        "get_delivery": ViewDoc(
            "single",
            "webhook_delivery",
            "WebhookDelivery",
            statuses=(),
            query=FIELDS,
            errors=merge(load(WEBHOOKS, "read"), WEBHOOK_DELIVERY),
        ),
    }


# --- taxes

TAX_CLASS_FILTER = (
    params.text("class", "standard selects the rates without a class; other values are slugs."),
    params.text("filter[tax_rate_class]", "Used when class is absent."),
)
TAX_WRITE = codes(400, "shop_api_invalid_tax_rate", "shop_api_invalid_tax_class")


def _taxes() -> dict[str, ViewDoc]:
    tax = {"envelope": "tax", "record": "Tax"}
    missing = codes(400, "shop_api_missing_tax_data")
    return {
        "list_taxes": ViewDoc(
            "paged",
            "taxes",
            "Tax",
            query=(*params.paged(None), *TAX_CLASS_FILTER),
            errors=require(TAX_RATES, "read"),
        ),
        "count_taxes": ViewDoc(
            "count",
            query=(*params.counted(None), *TAX_CLASS_FILTER),
            errors=require(TAX_RATES, "count"),
        ),
        "create_tax": ViewDoc(
            "single",
            **tax,
            request="TaxWrite",
            statuses=(201,),
            errors=merge(missing, require(TAX_RATES, "create"), TAX_WRITE),
        ),
        "get_tax": ViewDoc("single", **tax, query=FIELDS, errors=load(TAX_RATES, "read")),
        "edit_tax": ViewDoc(
            "single",
            **tax,
            request="TaxWrite",
            errors=merge(missing, load(TAX_RATES, "edit"), TAX_WRITE),
        ),
        "delete_tax": ViewDoc(
            "message",
            errors=merge(load(TAX_RATES, "delete"), codes(401, "shop_api_cannot_delete_tax")),
        ),
        "bulk_taxes": ViewDoc(
            "bulk",
            "taxes",
            "Tax",
            request="TaxWrite",
            errors=merge(require(TAX_RATES, "create"), require(TAX_RATES, "edit"), TAX_WRITE),
        ),
        "list_tax_classes": ViewDoc(
            "list", "tax_classes", "TaxClass", query=FIELDS, errors=require(TAX_CLASSES, "read")
        ),
        "count_tax_classes": ViewDoc("count", errors=require(TAX_CLASSES, "count")),
        "create_tax_class": ViewDoc(
            "single",
            "tax_class",
            "TaxClass",
            request="TaxClassCreate",
            statuses=(201,),
            errors=merge(
                codes(400, "shop_api_missing_tax_class_data"),
                require(TAX_CLASSES, "create"),
                codes(400, "shop_api_missing_tax_class_name"),
                codes(
                    401,
                    "shop_api_tax_class_exists",
                    "shop_api_tax_class_slug_exists",
                    "shop_api_tax_class_invalid_name",
                ),
            ),
        ),
        "delete_tax_class": ViewDoc(
            "message",
            errors=merge(
                require(TAX_CLASSES, "delete"), codes(401, "shop_api_cannot_delete_tax_class")
            ),
        ),
    }


# --- the index and the documentation

OPENAPI_DOCUMENT = {"type": "object", "description": "This OpenAPI 3.1 document."}
DOCS_VERSION = params.text(
    "v",
    "The file's version, as the page links it: with the current one the answer may be cached "
    "for a year (`Cache-Control: public, max-age=31536000, immutable`), else it is revalidated "
    "(`public, no-cache`).",
)


def _meta() -> dict[str, ViewDoc]:
    return {
        "index": ViewDoc("custom", body=STORE, public=True, tag="index"),
        "openapi_document": ViewDoc(
            "custom", body=OPENAPI_DOCUMENT, public=True, tag="documentation"
        ),
        "docs_page": ViewDoc(
            "custom",
            body={"type": "string"},
            content_types=("text/html",),
            public=True,
            tag="documentation",
        ),
        "docs_file": ViewDoc(
            "custom",
            body={"type": "string"},
            content_types=tuple(dict.fromkeys(DOCS_FILES.values())),
            query=(DOCS_VERSION,),
            errors=codes(404, "shop_api_no_route"),
            public=True,
            tag="documentation",
        ),
    }


def view_docs() -> dict[str, ViewDoc]:
    """Every view's entry, by the name of its callable."""
    return {
        **_webhooks(),
        **_taxes(),
        **catalog_docs(),
        **order_docs(),
        **_meta(),
    }
