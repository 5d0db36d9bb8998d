"""The loaders of orders and of their notes and refunds."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection

from shopsvc.errors import ApiError
from shopsvc.loaders.base import Loader, Row
from shopsvc.sql import order_notes as order_notes_sql
from shopsvc.sql import order_refunds as order_refunds_sql
from shopsvc.sql import orders as orders_sql


def order_id_is_invalid() -> ApiError:
    """The spec's 400 for an order that cannot be edited or refunded because its id names no
    order (the edit route's "order not found", the refund route's order id 0)."""
    return ApiError("shop_api_invalid_order_id", "Order ID is invalid", 400)


#: Orders (decisions.md §7 "Capabilities"; reference orders.md §11): id 0 → 404
#: ``shop_api_invalid_order_id``, missing → 404 ``shop_api_no_order_found``, then the action's
#: capability. Orders have their own table, so no id is ever of the wrong kind.
ORDERS = Loader(
    "order",
    fetch=orders_sql.get_order_row,
    capabilities={
        "read": "read_private_shop_orders",
        "edit": "edit_shop_orders",
        "delete": "delete_shop_orders",
        "create": "publish_shop_orders",
        "count": "read_private_shop_orders",
    },
    invalid_id=lambda order_id: ApiError(
        "shop_api_invalid_order_id", "Invalid shop_order ID.", 404
    ),
    denials={
        "create": (
            "shop_api_user_cannot_create_order",
            "You do not have permission to create orders.",
        ),
        "count": (
            "shop_api_user_cannot_read_orders_count",
            "You do not have permission to read the orders count.",
        ),
    },
)

#: The capabilities of order notes and refunds (decisions.md §7 "Capabilities"). Read, edit
#: and delete are checked by ``ORDERS.load(request, order_id, action)`` first (the order's own
#: 401 codes); create by these loaders' ``require(request, "create")``, before the order id.
_ORDER_CHILD_CAPABILITIES = {
    "read": "read_private_shop_orders",
    "edit": "edit_shop_orders",
    "delete": "delete_shop_orders",
    "create": "publish_shop_orders",
}


def _child_of_order(
    fetch: Callable[[Connection, int], Row | None], code: str, message: str
) -> Callable[[Connection, int, int], Row | None]:
    """``fetch`` of a note or refund that must belong to the order on the route (the scope):
    one of another order is a 400 (decisions.md §6), not a 404."""

    def fetch_in_order(conn: Connection, record_id: int, order_id: int) -> Row | None:
        row = fetch(conn, record_id)
        if row is not None and row["order_id"] != order_id:
            raise ApiError(code, message, 400)
        return row

    return fetch_in_order


#: Order notes, within their order (``load(request, note_id, action, scope=order_id)``, after
#: ``ORDERS.load``): id 0 → 400, missing → 404, of another order → 400 (reference orders.md §6).
ORDER_NOTES = Loader(
    "order_note",
    fetch=_child_of_order(
        lambda conn, note_id: order_notes_sql.get(conn, note_id),
        "shop_api_invalid_order_note_id",
        "The order note ID provided is not associated with the order",
    ),
    capabilities=_ORDER_CHILD_CAPABILITIES,
    invalid_id=lambda note_id: ApiError(
        "shop_api_invalid_order_note_id", "Invalid order note ID", 400
    ),
    not_found=lambda note_id: ApiError(
        "shop_api_invalid_order_note_id",
        "An order note with the provided ID could not be found",
        404,
    ),
    denials={
        "create": (
            "shop_api_user_cannot_create_order_note",
            "You do not have permission to create order notes",
        ),
    },
    order=("id", "record"),
)

#: Order refunds, within their order, like notes (reference orders.md §7, decisions.md §6).
ORDER_REFUNDS = Loader(
    "order_refund",
    fetch=_child_of_order(
        lambda conn, refund_id: order_refunds_sql.get(conn, refund_id),
        "shop_api_invalid_order_refund_id",
        "The order refund ID provided is not associated with the order.",
    ),
    capabilities=_ORDER_CHILD_CAPABILITIES,
    invalid_id=lambda refund_id: ApiError(
        "shop_api_invalid_order_refund_id", "Invalid order refund ID.", 400
    ),
    not_found=lambda refund_id: ApiError(
        "shop_api_invalid_order_refund_id",
        "An order refund with the provided ID could not be found.",
        404,
    ),
    denials={
        "create": (
            "shop_api_user_cannot_create_order_refund",
            "You do not have permission to create order refunds",
        ),
    },
    order=("id", "record"),
)
