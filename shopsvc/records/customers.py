"""The customer record: the ``customer`` block of an order with a registered customer, and the
body of a ``customer.*`` webhook delivery (decisions.md §7 "Orders: records")."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from shopsvc.domain.money import format_decimal
from shopsvc.domain.timestamps import format_timestamp
from shopsvc.records.context import RecordContext
from shopsvc.sql import order_data as order_data_sql
from shopsvc.sql.order_data import CustomerData
from shopsvc.sql.tables import BILLING_FIELDS, SHIPPING_FIELDS

Row = dict[str, Any]
GRAVATAR = "https://secure.gravatar.com/avatar/"
#: The query of every avatar URL (size 96, the "mystery man" default, rating G).
_AVATAR_QUERY = urlencode({"s": 96, "d": "mm", "r": "g"})


def _profile_address(values: dict[str, Any], fields: Sequence[str]) -> dict[str, str]:
    return {name: str(values.get(name) or "") for name in fields}


def avatar_url(email: str) -> str:
    """The Gravatar URL of an email address, as WordPress' ``get_avatar_url`` builds it."""
    digest = hashlib.md5(email.strip().lower().encode("utf-8"), usedforsecurity=False)
    return f"{GRAVATAR}{digest.hexdigest()}?{_AVATAR_QUERY}"


def customer_block(customer: CustomerData) -> Row:
    user = customer.user
    return {
        "id": user["id"],
        "created_at": format_timestamp(user["created_at"]),
        "last_update": format_timestamp(customer.last_update),
        "email": user["email"],
        "first_name": user["first_name"],
        "last_name": user["last_name"],
        "username": user["login"],
        "role": user["role"],
        "last_order_id": customer.last_order_id,
        "last_order_date": (
            format_timestamp(customer.last_order_date)
            if customer.last_order_date is not None
            else None
        ),
        "orders_count": customer.orders_count,
        "total_spent": format_decimal(customer.total_spent, 2),
        "avatar_url": avatar_url(user["email"]),
        "billing_address": _profile_address(customer.billing, BILLING_FIELDS),
        "shipping_address": _profile_address(customer.shipping, SHIPPING_FIELDS),
    }


def customer_record(context: RecordContext, user_id: int) -> Row | None:
    """The record of the user ``user_id`` (addresses from the profile, order statistics), or
    None when there is no such user."""
    customer = order_data_sql.load_customers(context.conn, [user_id]).get(user_id)
    return customer_block(customer) if customer is not None else None
