"""What an order write costs in statements (issue 25), counted on the engine the app uses, every
statement the request sends (authentication, transaction control, the record and the webhook
lookup included), on both databases: a create with five lines, shipping, a fee, a coupon and
taxes, paid (so its status changes and its stock and sales move) runs at most 15; an edit that
changes the status and moves the stock at most 12; a bulk of 100 such creates about as many as
one, since every table is written once whatever the number of elements."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import Credentials, authorised
from tests.helpers.order_writes import BULK, URL, rate
from tests.helpers.orders import OrderFactory
from tests.helpers.sql import statements

ADDRESS = {
    "first_name": "Ann",
    "last_name": "Martin",
    "address_1": "1 Main Street",
    "city": "Beverly Hills",
    "postcode": "90210",
    "country": "US",
    "state": "CA",
}
CREATE_LIMIT = 15
EDIT_LIMIT = 12


class Shop:
    def __init__(self, api: TestApp, app: TestApp, products: list[int], customer: int) -> None:
        self.api, self.app, self.products, self.customer = api, app, products, customer

    def order(self, **fields: Any) -> dict[str, Any]:
        return {
            "customer_id": self.customer,
            "billing_address": {**ADDRESS, "email": "ann@example.com"},
            "shipping_address": ADDRESS,
            "payment_details": {"method_id": "bacs", "method_title": "Bank", "paid": True},
            "line_items": [{"product_id": p, "quantity": 2} for p in self.products],
            "shipping_lines": [{"method_id": "flat", "method_title": "Flat", "total": "5"}],
            "fee_lines": [
                {"title": "Wrap", "total": "3", "taxable": True, "tax_class": "standard"}
            ],
            "coupon_lines": [{"code": "SAVE5", "amount": "5"}],
            **fields,
        }

    def counted(self, send: Callable[[], Any]) -> tuple[Any, list[str]]:
        with statements(self.app) as seen:
            answer = send()
        return answer, seen


@pytest.fixture
def shop(build_app: Callable[..., TestApp], admin: Credentials, engine: sa.Engine) -> Shop:
    catalog = CatalogFactory(engine)
    products = [
        catalog.product(f"P{n}", regular_price=f"{5 + n}.50", manage_stock=True, stock_quantity=99)
        for n in range(5)
    ]
    rate(engine, "10", country="US")
    customer = OrderFactory(engine).customer()
    app = build_app()
    api = authorised(app, admin)
    api.get(URL)  # warm up: authentication's first write (last_access), caches
    return Shop(api, app, products, customer)


def test_a_create_with_five_lines_runs_at_most_15_statements(shop: Shop) -> None:
    shop.api.post_json(URL, {"order": shop.order()}, status=201)  # warm up
    response, seen = shop.counted(
        lambda: shop.api.post_json(URL, {"order": shop.order()}, status=201)
    )
    order = response.json["order"]
    assert order["status"] == "processing"
    assert len(order["line_items"]) == 5
    assert [len(order[k]) for k in ("shipping_lines", "fee_lines", "coupon_lines")] == [1, 1, 1]
    assert order["tax_lines"] and order["total_tax"] != "0.00"
    assert len(seen) <= CREATE_LIMIT, "\n".join(seen)
    # every table written once: one insert per table, one update of the products
    inserts = [sql.split()[2] for sql in seen if sql.startswith("INSERT")]
    assert sorted(inserts) == sorted(set(inserts)), inserts
    assert sum(sql.startswith("UPDATE products") for sql in seen) == 1


def test_an_edit_that_moves_stock_runs_at_most_12_statements(shop: Shop) -> None:
    created = [
        shop.api.post_json(URL, {"order": shop.order(payment_details=None)}, status=201)
        for _ in range(2)
    ]
    assert {r.json["order"]["status"] for r in created} == {"pending"}
    first, second = (r.json["order"]["id"] for r in created)
    shop.api.put_json(f"{URL}/{first}", {"order": {"status": "processing"}}, status=200)
    response, seen = shop.counted(
        lambda: shop.api.put_json(
            f"{URL}/{second}", {"order": {"status": "processing", "note": "n"}}, status=200
        )
    )
    assert response.json["order"]["status"] == "processing"
    assert len(seen) <= EDIT_LIMIT, "\n".join(seen)
    assert sum(sql.startswith("UPDATE products") for sql in seen) == 1


def test_a_bulk_of_100_creates_runs_about_as_many_statements_as_one(shop: Shop) -> None:
    """Guests' orders (the orders of one customer each show that customer's orders count as it
    was after its element: they run one at a time, each a batch of one)."""
    guest = shop.order(customer_id=0)
    shop.api.post_json(URL, {"order": guest}, status=201)
    _, one = shop.counted(lambda: shop.api.post_json(URL, {"order": guest}, status=201))
    response, hundred = shop.counted(lambda: shop.api.post_json(BULK, {"orders": [guest] * 100}))
    assert all("error" not in order for order in response.json["orders"])
    assert len(response.json["orders"]) == 100
    # the bulk's savepoint and the records' list load besides one create's statements
    assert len(hundred) <= len(one) + 4, "\n".join(hundred)


WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.mark.parametrize(
    ("method", "fields", "code"),
    [
        (
            "post",
            {"line_items": [{"product_id": 10**6, "quantity": 1}]},
            "shop_api_invalid_product",
        ),
        ("post", {"payment_details": {"method_id": "bacs"}}, "shop_invalid_payment_details"),
        ("post", {"currency": "XYZ"}, "shop_invalid_order_currency"),
        ("post", {"coupon_lines": [{"code": "C", "amount": "-1"}]}, "shop_invalid_coupon_total"),
        ("put", {"currency": "XYZ"}, "shop_invalid_order_currency"),
        ("put", {"fee_lines": [{"id": 10**6, "total": "1"}]}, "shop_invalid_item_id"),
        ("put", {"status": "nope"}, "shop_api_invalid_order_status"),
    ],
)
def test_a_failing_write_sends_no_write_statement(
    shop: Shop, method: str, fields: dict[str, Any], code: str
) -> None:
    """Every check runs before the first write: a request that fails at its last step (after
    the addresses, the items, the totals and the status were planned) writes nothing at all."""
    order = shop.api.post_json(URL, {"order": shop.order(payment_details=None)}, status=201)
    url = URL if method == "post" else f"{URL}/{order.json['order']['id']}"
    body = {"order": {**shop.order(status="completed"), **fields}}
    if method == "put":
        body["order"].pop("line_items")
    send = getattr(shop.api, f"{method}_json")
    response, seen = shop.counted(lambda: send(url, body, status=400))
    assert response.json["errors"][0]["code"] == code
    assert [sql for sql in seen if sql.startswith(WRITES)] == []
