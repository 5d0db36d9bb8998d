"""The refusals that a request the document allows may still get, because of what the store
holds or of the outside world — not of the request's shape, which the schemas describe.

The legacy API answers them with 400 (a duplicate SKU, a customer id that names no customer, a
note id of another order, an image URL that cannot be downloaded), where a newer API would use
404, 409 or 422. Each error response of the document lists those of its codes in
``x-state-dependent-codes``, and the ``shop_api_invalid_param`` of a field that names a stored
record by its slug in ``x-state-dependent-fields``; a client (or a checker such as
schemathesis, docs/openapi.md) can tell them from a malformed request.
"""

from __future__ import annotations

from shopsvc.loaders.terms import TERM_FAMILIES
from shopsvc.media.images import STORE_ERROR
from shopsvc.writers.images import IMAGE_ERROR
from shopsvc.writers.terms import CATEGORY_IMAGE_ERROR

#: Codes that name a record that must exist (or must not), or a download from elsewhere.
STATE_DEPENDENT_CODES = frozenset(
    {
        # uniqueness
        "shop_api_product_sku_already_exists",
        "shop_api_tax_class_exists",
        "shop_api_tax_class_slug_exists",
        "shop_api_cannot_edit_product_attribute",
        "shop_api_cannot_create_product_attribute",
        # the slug made from the name: too long, a reserved term
        "shop_api_invalid_product_attribute_slug_too_long",
        "shop_api_invalid_product_attribute_slug_reserved_name",
        "shop_api_invalid_product_attribute_slug_already_exists",
        # an amount beyond what is left to refund ("Invalid refund amount.")
        "shop_api_invalid_order_refund",
        # a record named by id or slug that does not exist, or belongs elsewhere
        "shop_api_invalid_customer_id",
        "shop_api_invalid_order_id",  # an order edit's id that names no order
        "shop_api_invalid_tax_class",
        "shop_api_invalid_product_id",
        "shop_api_invalid_product_variation",
        "shop_api_invalid_product",
        "shop_invalid_item_id",
        "shop_invalid_shipping_item",
        "shop_invalid_fee_item",
        "shop_invalid_coupon_coupon",
        "shop_api_invalid_order_note_id",
        "shop_api_invalid_order_refund_id",
        "shop_api_invalid_webhook_delivery_id",
        # the outside world: an image to download, a delivery URL's addresses
        IMAGE_ERROR,
        STORE_ERROR,
        CATEGORY_IMAGE_ERROR,
        "shop_api_invalid_webhook_delivery_url",
        # terms: a name or slug taken by a sibling, a parent that is no term
        *(
            code
            for family in TERM_FAMILIES
            for code in (
                family.cannot("create", "").code,
                family.cannot("edit", "").code,
                family.invalid_parent().code,
            )
        ),
    }
)
#: Fields whose ``shop_api_invalid_param`` says that no stored record has the slug or id given
#: (``images[].id`` an attachment), or that the stock a delta moves leaves its column's range.
STATE_DEPENDENT_FIELDS = (
    "tax_class",
    "shipping_class",
    "categories",
    "tags",
    "upsell_ids",
    "cross_sell_ids",
    "images[].id",
    "inventory_delta",
    "parent_id",
    # a product's variations are read only when it is variable, which an edit leaves to the
    # stored type: an element the document lets through as "any object" may then be refused
    "variations[]",
)


def state_dependent(codes: list[str]) -> list[str]:
    """Those of ``codes`` that depend on the store's state."""
    return [code for code in codes if code in STATE_DEPENDENT_CODES]
