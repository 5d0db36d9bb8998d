"""Orders straight into the database (the write routes are tested on their own): customers,
orders, their items of every type and item meta, with deterministic defaults.

Each new order is one minute later than the previous one (from ``BASE_TIME``), so the default
list order (newest first) is the reverse of the creation order.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

from shopsvc.sql.tables import (
    BILLING_FIELDS,
    SHIPPING_FIELDS,
    customer_profiles,
    order_counts,
    order_item_meta,
    order_items,
    orders,
    users,
)
from shopsvc.testing.rows import RowFactory, insert_row, reading
from tests.helpers.api import ROOT

URL = ROOT + "/orders"
BASE_TIME = dt.datetime(2024, 3, 4, 5, 6, 7)
INVALID_ID = (404, "shop_api_invalid_order_id", "Invalid shop_order ID.")
#: The capability each kind of request of the order routes (notes and refunds too) needs.
NEEDED = {
    "read": "read_private_shop_orders",
    "create": "publish_shop_orders",
    "edit": "edit_shop_orders",
    "delete": "delete_shop_orders",
}
#: Per kind of request, every order capability but the one it needs (for ``role_api``).
ALL_BUT = {
    action: tuple(cap for cap in NEEDED.values() if cap != needed)
    for action, needed in NEEDED.items()
}


#: When the minimal orders were made (and the notes and refunds the tests add to them).
T0 = dt.datetime(2024, 3, 1, 12, 0, 0)


def add_order(engine: sa.Engine, **values: Any) -> int:
    """A minimal order row (pending, 10.00 USD, made at :data:`T0`; ``values`` by column); its
    id."""
    row = {
        "order_key": "shop_order_abcdefghijklm",
        "status": "pending",
        "currency": "USD",
        "total": "10.00",
        "created_at": T0,
        "updated_at": T0,
    }
    return insert_row(engine, orders, row | values)


def not_found(order_id: int) -> tuple[int, str, str]:
    return 404, "shop_api_no_order_found", f"No order found with the ID equal to {order_id}"


def ids(response: Any) -> list[int]:
    """The ids of an order list response, in order."""
    return [order["id"] for order in response.json["orders"]]


def money(value: Decimal | str | int) -> Decimal:
    return Decimal(str(value))


Day = tuple[str, dt.date]


def kept_and_counted(bind: sa.Engine | sa.Connection) -> tuple[dict[Day, int], dict[Day, int]]:
    """``order_counts`` (its rows above 0) and the orders counted per status and UTC day of
    ``created_at`` in Python: equal when the triggers kept the counts (migration 0007)."""
    with reading(bind) as conn:
        kept = {(r.status, r.day): r.n for r in conn.execute(sa.select(order_counts)) if r.n}
        rows = conn.execute(sa.select(orders.c.status, orders.c.created_at))
        counted = Counter((status, created.date()) for status, created in rows)
    return kept, dict(counted)


class OrderFactory(RowFactory):
    """Build order rows. Each method runs in its own transaction (or in ``bind`` when it is a
    connection) and returns the new id."""

    def __init__(self, bind: sa.Engine | sa.Connection) -> None:
        super().__init__(bind)
        self.clock = BASE_TIME
        self.logins = 0

    # --- customers

    def customer(
        self,
        login: str | None = None,
        *,
        email: str | None = None,
        first_name: str = "Jane",
        last_name: str = "Doe",
        role: str = "customer",
        billing: Mapping[str, str] | None = None,
        shipping: Mapping[str, str] | None = None,
        created_at: dt.datetime = BASE_TIME,
        profile_updated_at: dt.datetime | None = None,
    ) -> int:
        """A user (with a profile when ``billing`` or ``shipping`` is given)."""
        self.logins += 1
        login = login or f"customer{self.logins}"
        user_id = self._insert(
            users,
            {
                "login": login,
                "email": email or f"{login}@example.com",
                "first_name": first_name,
                "last_name": last_name,
                "role": role,
                "created_at": created_at,
                "updated_at": created_at,
            },
        )
        if billing is not None or shipping is not None:
            self._execute(
                sa.insert(customer_profiles).values(
                    user_id=user_id,
                    billing=json.dumps(dict(billing or {})),
                    shipping=json.dumps(dict(shipping or {})),
                    updated_at=profile_updated_at or created_at,
                )
            )
        return user_id

    # --- orders

    def order(
        self,
        *,
        status: str = "pending",
        billing: Mapping[str, str] | None = None,
        shipping: Mapping[str, str] | None = None,
        created_at: dt.datetime | None = None,
        order_meta: Mapping[str, Any] | None = None,
        **values: Any,
    ) -> int:
        """An order row (totals as given, nothing computed); ``billing``/``shipping`` fill the
        address columns."""
        self.clock += dt.timedelta(minutes=1)
        created = created_at or self.clock
        row: dict[str, Any] = {
            "order_key": "shop_order_abcdefghijklm",
            "status": status,
            "currency": "USD",
            "created_at": created,
            "updated_at": created,
            "order_meta": json.dumps(dict(order_meta or {})),
        }
        for name in BILLING_FIELDS:
            row[f"billing_{name}"] = (billing or {}).get(name, "")
        for name in SHIPPING_FIELDS:
            row[f"shipping_{name}"] = (shipping or {}).get(name, "")
        row.update(values)
        return self._insert(orders, row)

    def _item(self, order_id: int, item_type: str, values: Mapping[str, Any]) -> int:
        return self._insert(order_items, {"order_id": order_id, "item_type": item_type, **values})

    def line(
        self,
        order_id: int,
        *,
        product_id: int | None = None,
        variation_id: int | None = None,
        name: str = "Item",
        quantity: int = 1,
        subtotal: Any = "10",
        total: Any = None,
        subtotal_tax: Any = "0",
        total_tax: Any = "0",
        tax_class: str = "",
        taxes: Mapping[str, Any] | None = None,
        meta: Iterable[tuple[str, str]] = (),
    ) -> int:
        item_id = self._item(
            order_id,
            "line_item",
            {
                "product_id": product_id,
                "variation_id": variation_id,
                "name": name,
                "quantity": quantity,
                "subtotal": money(subtotal),
                "total": money(subtotal if total is None else total),
                "subtotal_tax": money(subtotal_tax),
                "total_tax": money(total_tax),
                "tax_class": tax_class,
                "taxable": True,
                "taxes": json.dumps(dict(taxes or {})),
            },
        )
        for key, value in meta:
            self.meta(item_id, key, value)
        return item_id

    def meta(self, item_id: int, key: str, value: str) -> int:
        return self._insert(
            order_item_meta, {"item_id": item_id, "meta_key": key, "meta_value": value}
        )

    def shipping(
        self,
        order_id: int,
        method_id: str = "flat_rate",
        title: str = "Flat Rate",
        total: Any = "5",
    ) -> int:
        return self._item(
            order_id, "shipping", {"method_id": method_id, "name": title, "total": money(total)}
        )

    def fee(
        self,
        order_id: int,
        title: str = "Fee",
        total: Any = "1",
        total_tax: Any = "0",
        **values: Any,
    ) -> int:
        return self._item(
            order_id,
            "fee",
            {"name": title, "total": money(total), "total_tax": money(total_tax), **values},
        )

    def coupon(self, order_id: int, code: str = "save5", amount: Any = "5") -> int:
        return self._item(order_id, "coupon", {"name": code, "total": money(amount)})

    def tax(
        self,
        order_id: int,
        *,
        rate_id: int,
        code: str,
        label: str,
        tax_total: Any = "0",
        shipping_tax_total: Any = "0",
        compound: bool = False,
    ) -> int:
        return self._item(
            order_id,
            "tax",
            {
                "rate_id": rate_id,
                "rate_code": code,
                "name": label,
                "compound": compound,
                "tax_total": money(tax_total),
                "shipping_tax_total": money(shipping_tax_total),
            },
        )

    def full_order(
        self, *, customer_id: int = 0, product_id: int | None = None, **values: Any
    ) -> int:
        """An order with one item of every type (two lines with meta)."""
        order_id = self.order(
            customer_id=customer_id,
            billing={"first_name": "Ann", "last_name": "Lee", "email": "ann@example.com"},
            total=money("27.20"),
            **values,
        )
        self.line(order_id, product_id=product_id, meta=[("pa_color", "red"), ("_hidden", "x")])
        self.line(order_id, product_id=product_id, quantity=2, subtotal="6", meta=[("Size", "M")])
        self.shipping(order_id)
        self.fee(order_id)
        self.coupon(order_id)
        self.tax(order_id, rate_id=1, code="US-TAX-1", label="Tax", tax_total="1.2")
        return order_id
