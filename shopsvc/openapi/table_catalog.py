"""The OpenAPI table of the catalogue views (``views/products.py``, ``product_writes.py``,
``attributes.py``, ``terms.py``); see ``views/openapi_table.py``."""

from __future__ import annotations

from shopsvc.loaders.products import PRODUCTS
from shopsvc.loaders.terms import ATTRIBUTES, TERM_FAMILIES, TermFamily
from shopsvc.media.images import STORE_ERROR
from shopsvc.openapi import params
from shopsvc.openapi.operations import Codes, ViewDoc, codes, error, load, merge, not_found, require
from shopsvc.openapi.records import component_name
from shopsvc.openapi.requests import term_schema_name
from shopsvc.openapi.table_orders import ORDER_LIST
from shopsvc.web.listing import PRODUCT_ORDERBY
from shopsvc.writers.images import IMAGE_ERROR
from shopsvc.writers.terms import CATEGORY_IMAGE_ERROR

FIELDS = (params.FIELDS,)

# --- products

PRODUCT_FILTERS = (
    params.text("type", "Comma-separated product types (else filter[type])."),
    params.text("filter[type]"),
    params.text("filter[post_status]", "A status, a comma list, or any; default publish."),
    params.text("filter[category]", "Category slugs, comma-separated (OR)."),
    params.text("filter[tag]", "Tag slugs, comma-separated (OR)."),
    params.text("filter[shipping_class]", "Shipping class slugs, comma-separated (OR)."),
    params.text("filter[sku]", "A SKU of a product or variation (exact)."),
)
PRODUCT_META = params.flag("filter[meta]", "Adds product_meta to each record.")
PRODUCT_WRITE = merge(
    codes(
        400,
        "shop_api_invalid_product_type",
        "product_invalid_catalog_visibility",
        "product_invalid_tax_status",
        "shop_api_cannot_create_product",
        "shop_api_product_sku_already_exists",
        IMAGE_ERROR,
        STORE_ERROR,
    ),
)


def _products() -> dict[str, ViewDoc]:
    one = {"envelope": "product", "record": "Product"}
    missing = codes(400, "shop_api_missing_product_data")
    orderby = PRODUCT_ORDERBY
    return {
        "list_products": ViewDoc(
            "paged",
            "products",
            "Product",
            query=(*params.paged(orderby), *PRODUCT_FILTERS, PRODUCT_META),
        ),
        "count_products": ViewDoc(
            "count",
            query=(*params.counted(orderby), *PRODUCT_FILTERS),
            errors=require(PRODUCTS, "count"),
        ),
        "get_product": ViewDoc(
            "single", **one, query=(*FIELDS, PRODUCT_META), errors=load(PRODUCTS, "read")
        ),
        "delete_product": ViewDoc(
            "message",
            statuses=(200, 202),
            query=(params.FORCE,),
            errors=merge(load(PRODUCTS, "delete"), codes(500, "shop_api_cannot_delete_product")),
        ),
        "list_reviews": ViewDoc(
            "list",
            "product_reviews",
            "ProductReview",
            query=FIELDS,
            errors=load(PRODUCTS, "read"),
        ),
        "list_product_orders": ViewDoc(
            "paged", "orders", "Order", query=ORDER_LIST, errors=load(PRODUCTS, "read")
        ),
        "create_product": ViewDoc(
            "single",
            **one,
            request="ProductCreate",
            statuses=(201,),
            errors=merge(
                missing,
                require(PRODUCTS, "create"),
                codes(400, "shop_api_missing_product_title"),
                PRODUCT_WRITE,
            ),
        ),
        "edit_product": ViewDoc(
            "single",
            **one,
            request="ProductWrite",
            errors=merge(missing, load(PRODUCTS, "edit"), PRODUCT_WRITE),
        ),
        "bulk_products": ViewDoc(
            "bulk",
            "products",
            "Product",
            request="ProductWrite",
            errors=merge(
                load(PRODUCTS, "edit"),
                require(PRODUCTS, "create"),
                codes(400, "shop_api_missing_product_title"),
                PRODUCT_WRITE,
            ),
        ),
    }


# --- attributes and terms

ATTRIBUTE_WRITE = codes(
    400,
    "shop_api_missing_product_attribute_name",
    "shop_api_invalid_product_attribute_slug_too_long",
    "shop_api_invalid_product_attribute_slug_reserved_name",
    "shop_api_invalid_product_attribute_type",
    "shop_api_invalid_product_attribute_order_by",
)


def _attributes() -> dict[str, ViewDoc]:
    one = {"envelope": "product_attribute", "record": "ProductAttribute"}
    missing = codes(400, "shop_api_missing_product_attribute_data")
    return {
        "list_attributes": ViewDoc(
            "list", "product_attributes", "ProductAttribute", errors=require(ATTRIBUTES, "read")
        ),
        "get_attribute": ViewDoc("single", **one, errors=load(ATTRIBUTES, "read")),
        "create_attribute": ViewDoc(
            "single",
            **one,
            request="ProductAttributeCreate",
            statuses=(201,),
            errors=merge(
                missing,
                require(ATTRIBUTES, "create"),
                ATTRIBUTE_WRITE,
                codes(
                    400,
                    "shop_api_invalid_product_attribute_slug_already_exists",
                    "shop_api_cannot_create_product_attribute",
                ),
            ),
        ),
        "edit_attribute": ViewDoc(
            "single",
            **one,
            request="ProductAttributeEdit",
            errors=merge(
                missing,
                load(ATTRIBUTES, "edit"),
                ATTRIBUTE_WRITE,
                codes(400, "shop_api_cannot_edit_product_attribute"),
            ),
        ),
        "delete_attribute": ViewDoc(
            "message",
            errors=merge(
                load(ATTRIBUTES, "delete"), codes(401, "shop_api_cannot_delete_product_attribute")
            ),
        ),
    }


def _term_writes(family: TermFamily, action: str) -> Codes:
    found = error(family.cannot(action, ""))
    if family.name_required_code and action == "create":
        found += codes(400, family.name_required_code)
    if "parent" in family.fields and (action == "create" or family.edit_parent_code):
        found += error(family.invalid_parent())
    if "image" in family.fields:
        found += codes(400, CATEGORY_IMAGE_ERROR, STORE_ERROR)
    return found


def _terms() -> dict[str, ViewDoc]:
    found: dict[str, ViewDoc] = {}
    for family in TERM_FAMILIES:
        loader = family.loader
        scope = None if family.taxonomy else ATTRIBUTES
        one = {"envelope": family.singular, "record": component_name(family.singular)}
        request = term_schema_name(family)

        def missing(action: str, family: TermFamily = family) -> Codes:
            return codes(400, family.missing(action)[0])

        in_scope = (not_found(scope),) if scope is not None else ()
        found |= {
            f"list_terms_{family.singular}": ViewDoc(
                "list",
                family.plural,
                one["record"],
                query=FIELDS,
                errors=merge(require(loader, "read"), in_scope),
            ),
            f"create_term_{family.singular}": ViewDoc(
                "single",
                **one,
                request=term_schema_name(family, create=True),
                statuses=(201,),
                errors=merge(
                    missing("create"),
                    require(loader, "create"),
                    in_scope,
                    _term_writes(family, "create"),
                ),
            ),
            f"get_term_{family.singular}": ViewDoc(
                "single", **one, query=FIELDS, errors=load(loader, "read", scope)
            ),
            f"edit_term_{family.singular}": ViewDoc(
                "single",
                **one,
                request=request,
                errors=merge(
                    missing("edit"), load(loader, "edit", scope), _term_writes(family, "edit")
                ),
            ),
            f"delete_term_{family.singular}": ViewDoc(
                "message",
                errors=merge(load(loader, "delete", scope), error(family.cannot_delete())),
            ),
        }
    return found


def catalog_docs() -> dict[str, ViewDoc]:
    return {**_products(), **_attributes(), **_terms()}
