"""``DELETE /orders/<id>``: trash (202, status kept for a restore, repeatable), force (200,
items, meta, notes and refunds gone), the capability 401 and the id 404s."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import (
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    refund_items,
)
from tests.helpers.api import authorised, error
from tests.helpers.orders import INVALID_ID, URL, OrderFactory, not_found
from tests.helpers.sql import count_rows, insert, one_row


def test_trash(api: TestApp, engine: sa.Engine, factory: OrderFactory) -> None:
    order_id = factory.full_order(status="on-hold")
    response = api.delete(f"{URL}/{order_id}", status=202)
    assert response.json == {"message": "Deleted order"}
    row = one_row(engine, orders, order_id)
    assert (row["status"], row["status_before_trash"]) == ("trash", "on-hold")
    assert row["updated_at"] > row["created_at"]
    assert api.get(URL).json == {"orders": []}
    assert [o["id"] for o in api.get(URL, params={"status": "trash"}).json["orders"]] == [order_id]
    record = api.get(f"{URL}/{order_id}").json["order"]
    assert record["status"] == "trash" and len(record["line_items"]) == 2
    # trashed again: 202, nothing changes (the status to restore stays on-hold)
    again = api.delete(f"{URL}/{order_id}", status=202)
    assert again.json == {"message": "Deleted order"}
    assert one_row(engine, orders, order_id) == row


@pytest.mark.parametrize("value", ["no", "0", "", "tru", "on"])
def test_force_needs_a_true_spelling(api: TestApp, factory: OrderFactory, value: str) -> None:
    order_id = factory.order()
    api.delete(f"{URL}/{order_id}?force={value}", status=202)


@pytest.mark.parametrize("value", ["true", "TRUE"])
def test_force_deletes_for_good(
    api: TestApp, engine: sa.Engine, factory: OrderFactory, value: str
) -> None:
    order_id = factory.full_order()
    other = factory.full_order()
    now = dt.datetime(2024, 5, 1)
    insert(engine, order_notes, order_id=order_id, note="n", created_at=now)
    refund = insert(engine, order_refunds, order_id=order_id, amount="1", created_at=now)
    insert(engine, refund_items, refund_id=refund, refunded_item_id=1, item_type="line_item")
    response = api.delete(f"{URL}/{order_id}?force={value}", status=200)
    assert response.json == {"message": "Permanently deleted order"}
    assert count_rows(engine, orders) == 1
    assert count_rows(engine, order_notes) == 0
    assert count_rows(engine, order_refunds) == 0
    assert count_rows(engine, refund_items) == 0
    remaining = sa.select(order_items).where(order_items.c.order_id == other).subquery()
    assert count_rows(engine, order_items) == count_rows(engine, remaining) == 6
    assert count_rows(engine, order_item_meta) == 3
    assert error(api.get(f"{URL}/{order_id}", status=404)) == not_found(order_id)


def test_force_spellings(api: TestApp, factory: OrderFactory) -> None:
    """decisions §7: ``force`` is permanent for any §2 true spelling."""
    for spelling in ("1", "yes", "True"):
        order_id = factory.order()
        api.delete(f"{URL}/{order_id}?force={spelling}", status=200)


def test_delete_a_trashed_order_for_good(api: TestApp, factory: OrderFactory) -> None:
    order_id = factory.order(status="trash", status_before_trash="pending")
    api.delete(f"{URL}/{order_id}?force=true", status=200)


def test_errors(app: TestApp, api: TestApp, make_key: Any, factory: OrderFactory) -> None:
    order_id = factory.order()
    assert error(api.delete(f"{URL}/0", status=404)) == INVALID_ID
    assert error(api.delete(f"{URL}/{order_id + 7}", status=404)) == not_found(order_id + 7)
    manager_read_only = authorised(app, make_key("shop_manager", "read"))
    assert manager_read_only.delete(f"{URL}/{order_id}", status=401).status_int == 401
    customer = authorised(app, make_key("customer", "read_write"))
    assert error(customer.delete(f"{URL}/{order_id}", status=401)) == (
        401,
        "shop_api_user_cannot_delete_order",
        "You do not have permission to delete this order.",
    )
    assert api.get(f"{URL}/{order_id}").json["order"]["status"] == "pending"
