"""The OpenAPI table of the order views (``views/orders.py``, ``order_writes.py``,
``order_notes.py``, ``order_refunds.py``); see ``views/openapi_table.py``."""

from __future__ import annotations

from shopsvc.loaders.orders import ORDER_NOTES, ORDER_REFUNDS, ORDERS
from shopsvc.openapi import params
from shopsvc.openapi.operations import ViewDoc, codes, load, merge, not_found, require
from shopsvc.openapi.records import component_name
from shopsvc.records.orders import MAX_DP
from shopsvc.web.listing import COMMON_ORDERBY

FIELDS = (params.FIELDS,)

# --- orders

ORDER_SHAPE = (
    params.Param(
        "filter[dp]",
        params.query_integer(digits="[0-9]+"),
        f"Decimals of amounts, at most {MAX_DP} (a larger number is {MAX_DP}). " + params.QUERY_INT,
    ),
    params.flag("filter[all_item_meta]", "Also the line meta whose key starts with _."),
    params.flag("filter[meta]", "Adds order_meta."),
    params.text("filter[expand]", "Comma list of products, taxes, coupons."),
)
ORDER_FILTERS = (
    params.text("status", "A comma list of statuses; any (default) is all but trash."),
    params.text("filter[status]", "Used when status is absent."),
    params.query_id("filter[customer_id]"),
)
ORDER_LIST = (*params.paged(COMMON_ORDERBY), *ORDER_FILTERS, *ORDER_SHAPE)
ORDER_WRITE = merge(
    codes(
        400,
        "shop_api_invalid_customer_id",
        "shop_api_cannot_create_order",
        "shop_api_invalid_order_status",
        "shop_invalid_payment_details",
        "shop_invalid_order_currency",
        "shop_api_invalid_product_id",
        "shop_api_invalid_product_variation",
        "shop_api_invalid_product",
        "shop_api_invalid_product_quantity",
        "shop_invalid_item_id",
        "shop_invalid_shipping_total",
        "shop_invalid_shipping_item",
        "shop_invalid_fee_item",
        "shop_invalid_coupon_coupon",
        "shop_invalid_coupon_total",
    ),
)
ORDER_EDIT = merge(codes(400, "shop_api_invalid_order_id"), load(ORDERS, "edit"), ORDER_WRITE)
COUNT_BY_STATUS = {
    "type": "object",
    "properties": {
        "count": {
            "oneOf": [
                {"type": "integer"},
                {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                    "description": "With status=any: one count per status.",
                },
            ]
        }
    },
    "required": ["count"],
}
STATUSES = {
    "type": "object",
    "properties": {
        "order_statuses": {"type": "object", "additionalProperties": {"type": "string"}}
    },
    "required": ["order_statuses"],
}


def _orders() -> dict[str, ViewDoc]:
    one = {"envelope": "order", "record": "Order"}
    missing = codes(400, "shop_api_missing_order_data")
    return {
        "list_orders": ViewDoc("paged", "orders", "Order", query=ORDER_LIST),
        "count_orders": ViewDoc(
            "custom",
            body=COUNT_BY_STATUS,
            query=(*params.counted(COMMON_ORDERBY), *ORDER_FILTERS),
            errors=require(ORDERS, "count"),
        ),
        "list_statuses": ViewDoc("custom", body=STATUSES),
        "get_order": ViewDoc(
            "single", **one, query=(*FIELDS, *ORDER_SHAPE), errors=load(ORDERS, "read")
        ),
        "delete_order": ViewDoc(
            "message",
            statuses=(200, 202),
            query=(params.FORCE,),
            errors=merge(load(ORDERS, "delete"), codes(500, "shop_api_cannot_delete_order")),
        ),
        "create_order": ViewDoc(
            "single",
            **one,
            request="OrderCreate",
            statuses=(201,),
            errors=merge(missing, require(ORDERS, "create"), ORDER_WRITE),
        ),
        "edit_order": ViewDoc(
            "single", **one, request="OrderWrite", errors=merge(missing, ORDER_EDIT)
        ),
        "bulk_orders": ViewDoc(
            "bulk",
            "orders",
            "Order",
            request="OrderWrite",
            errors=merge(require(ORDERS, "create"), ORDER_EDIT),
        ),
    }


def _order_children() -> dict[str, ViewDoc]:
    """Notes and refunds: the order is loaded first, then the note or refund."""
    found: dict[str, ViewDoc] = {}
    for noun, loader, write_code in (
        ("note", ORDER_NOTES, "shop_api_invalid_order_note"),
        ("refund", ORDER_REFUNDS, "shop_api_invalid_order_refund"),
    ):
        singular = f"order_{noun}"
        one = {"envelope": singular, "record": component_name(singular)}
        request = component_name(singular) + "Write"
        missing = codes(400, f"shop_api_missing_{singular}_data")
        other_order = codes(400, f"shop_api_invalid_{singular}_id")
        invalid = codes(400, write_code)
        if noun == "note":
            create_checks = merge(require(loader, "create"), load(ORDERS, "edit"))
        else:  # the original validates only the order id (orders.md §7)
            create_checks = merge(
                require(loader, "create"),
                codes(400, "shop_api_invalid_order_id"),
                (not_found(ORDERS),),
            )
        found |= {
            f"list_{noun}s": ViewDoc(
                "list", f"{singular}s", one["record"], errors=load(ORDERS, "read")
            ),
            f"create_{noun}": ViewDoc(
                "single",
                **one,
                request=component_name(singular) + "Create",
                statuses=(201,),
                errors=merge(missing, create_checks, invalid),
            ),
            f"get_{noun}": ViewDoc(
                "single",
                **one,
                errors=merge(load(ORDERS, "read"), load(loader, "read"), other_order),
            ),
            f"edit_{noun}": ViewDoc(
                "single",
                **one,
                request=request,
                errors=merge(
                    missing, load(ORDERS, "edit"), load(loader, "edit"), other_order, invalid
                ),
            ),
            f"delete_{noun}": ViewDoc(
                "message",
                errors=merge(load(ORDERS, "delete"), load(loader, "delete"), other_order),
            ),
        }
    return found


def order_docs() -> dict[str, ViewDoc]:
    return {**_orders(), **_order_children()}
