"""``GET /orders/<id>``: the full record (every field, in order), ``filter[dp]``,
``filter[all_item_meta]``, ``filter[meta]``, ``filter[expand]``, ``fields``, and the errors of
the shared record validation."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import orders, tax_rates
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import Credentials, authorised, error
from tests.helpers.orders import BASE_TIME, INVALID_ID, URL, OrderFactory, not_found
from tests.helpers.sql import insert, update

CUSTOMER_CREATED = dt.datetime(2023, 1, 2, 3, 4, 5)
PROFILE_UPDATED = dt.datetime(2023, 6, 7, 8, 9, 10)
BILLING = {
    "first_name": "Ann",
    "last_name": "Lee",
    "company": "ACME",
    "address_1": "1 Main St",
    "address_2": "Apt 2",
    "city": "San Francisco",
    "state": "CA",
    "postcode": "94103",
    "country": "US",
    "email": "",
    "phone": "555-0100",
}
SHIPPING = {
    "first_name": "Bob",
    "last_name": "Lee",
    "company": "",
    "address_1": "2 Side St",
    "address_2": "",
    "city": "Oakland",
    "state": "CA",
    "postcode": "94601",
    "country": "US",
}
PROFILE_BILLING = {"first_name": "Jane", "city": "Boston", "email": "jane.billing@example.com"}
PROFILE_SHIPPING = {"first_name": "Jane", "city": "Cambridge"}


def seed_full(engine: sa.Engine, factory: OrderFactory) -> dict[str, int]:
    """A processing order of a registered customer with every kind of item; the customer also
    has a completed order (later) and a trashed one."""
    catalog = CatalogFactory(engine)
    color = catalog.attribute("Color")
    red = catalog.attribute_term(color, "Red")
    shirt = catalog.product(
        "Shirt",
        type="variable",
        sku="SHIRT",
        attributes=[
            {"attribute_id": color, "terms": [red], "variation": True},
            {"name": "Gift Size", "options": ["S", "M"], "variation": True},
        ],
    )
    variation = catalog.variation(shirt, {"color": "red", "gift-size": "M"}, regular_price="12")
    mug = catalog.product("Mug", regular_price="3", sku="MUG")
    jane = factory.customer(
        "jane",
        email="jane@example.com",
        billing=PROFILE_BILLING,
        shipping=PROFILE_SHIPPING,
        created_at=CUSTOMER_CREATED,
        profile_updated_at=PROFILE_UPDATED,
    )
    order_id = factory.order(
        status="processing",
        customer_id=jane,
        billing=BILLING,
        shipping=SHIPPING,
        order_key="shop_order_AbCdEfGhIjKlM",
        currency="EUR",
        customer_note="Leave at the door",
        customer_ip="203.0.113.9",
        customer_user_agent="curl/8",
        payment_method="bacs",
        payment_method_title="Bank transfer",
        date_paid=BASE_TIME,
        total="33.55",
        total_tax="1.7",
        shipping_total="5",
        cart_tax="1.2",
        shipping_tax="0.5",
        discount_total="1",
        order_meta={"gift": "yes", "_internal": "no", "count": 3},
    )
    shirt_line = factory.line(
        order_id,
        product_id=shirt,
        variation_id=variation,
        name="Shirt - Red",
        quantity=3,
        subtotal="10",
        total="9",
        subtotal_tax="1",
        total_tax="0.9",
        meta=[
            ("pa_color", "red"),
            ("gift-size", "M"),
            ("_reduced_stock", "3"),
            ("empty", ""),
            ("Backordered", "1"),
        ],
    )
    mug_line = factory.line(
        order_id, product_id=mug, name="Mug", quantity=2, subtotal="3.335", tax_class="reduced-rate"
    )
    gone_line = factory.line(order_id, product_id=9999, name="Gone", quantity=1, subtotal="5")
    flat = factory.shipping(order_id, "flat_rate", "Flat Rate", "5")
    pickup = factory.shipping(order_id, "local_pickup", "Local Pickup", "0")
    fee = factory.fee(order_id, "Gift wrap", "1.005", "0.1")
    coupon = factory.coupon(order_id, "save1", "1")
    rate = insert(
        engine,
        tax_rates,
        country="US",
        state="CA",
        rate="7.25",
        name="CA Tax",
        priority=1,
        compound=False,
        shipping=True,
        rate_order=0,
    )
    tax_ca = factory.tax(
        order_id,
        rate_id=rate,
        code="US-CA-TAX-1",
        label="CA Tax",
        tax_total="0.9",
        shipping_tax_total="0.5",
    )
    factory.tax(order_id, rate_id=rate + 1, code="US-ZERO-1", label="Zero", tax_total="0")
    factory.tax(order_id, rate_id=rate + 2, code="US-CITY-2", label="City", tax_total="0.1")
    tax_city = factory.tax(
        order_id,
        rate_id=rate + 3,
        code="US-CITY-2",
        label="City Tax",
        tax_total="0.2",
        compound=True,
    )
    later = factory.order(status="completed", customer_id=jane, total="20")
    factory.order(status="trash", customer_id=jane, total="100", status_before_trash="completed")
    return {
        "order": order_id,
        "jane": jane,
        "shirt": shirt,
        "variation": variation,
        "mug": mug,
        "shirt_line": shirt_line,
        "mug_line": mug_line,
        "gone_line": gone_line,
        "flat": flat,
        "pickup": pickup,
        "fee": fee,
        "coupon": coupon,
        "rate": rate,
        "tax_ca": tax_ca,
        "tax_city": tax_city,
        "later": later,
    }


def expected_record(ids: dict[str, int]) -> dict[str, Any]:
    digest = hashlib.md5(b"jane@example.com").hexdigest()
    order_id = ids["order"]
    return {
        "id": order_id,
        "order_number": str(order_id),
        "order_key": "shop_order_AbCdEfGhIjKlM",
        "created_at": "2024-03-04T05:07:07Z",
        "updated_at": "2024-03-04T05:07:07Z",
        "completed_at": "1970-01-01T00:00:00Z",
        "status": "processing",
        "currency": "EUR",
        "total": "33.55",
        "subtotal": "18.34",
        "total_line_items_quantity": 6,
        "total_tax": "1.70",
        "total_shipping": "5.00",
        "cart_tax": "1.20",
        "shipping_tax": "0.50",
        "total_discount": "1.00",
        "shipping_methods": "Flat Rate, Local Pickup",
        "payment_details": {"method_id": "bacs", "method_title": "Bank transfer", "paid": True},
        "billing_address": {**BILLING, "email": "jane@example.com"},
        "shipping_address": SHIPPING,
        "note": "Leave at the door",
        "customer_ip": "203.0.113.9",
        "customer_user_agent": "curl/8",
        "customer_id": ids["jane"],
        "view_order_url": f"http://localhost/my-account/view-order/{order_id}/",
        "line_items": [
            {
                "id": ids["shirt_line"],
                "subtotal": "10.00",
                "subtotal_tax": "1.00",
                "total": "9.00",
                "total_tax": "0.90",
                "price": "3.00",
                "quantity": 3,
                "tax_class": "",
                "name": "Shirt - Red",
                "product_id": ids["variation"],
                "sku": "SHIRT",
                "meta": [
                    {"key": "pa_color", "value": "red", "label": "Color"},
                    {"key": "gift-size", "value": "M", "label": "Gift Size"},
                    {"key": "Backordered", "value": "1", "label": "Backordered"},
                ],
            },
            {
                "id": ids["mug_line"],
                "subtotal": "3.34",
                "subtotal_tax": "0.00",
                "total": "3.34",
                "total_tax": "0.00",
                "price": "1.67",
                "quantity": 2,
                "tax_class": "reduced-rate",
                "name": "Mug",
                "product_id": ids["mug"],
                "sku": "MUG",
                "meta": [],
            },
            {
                "id": ids["gone_line"],
                "subtotal": "5.00",
                "subtotal_tax": "0.00",
                "total": "5.00",
                "total_tax": "0.00",
                "price": "5.00",
                "quantity": 1,
                "tax_class": "",
                "name": "Gone",
                "product_id": 9999,
                "sku": None,
                "meta": [],
            },
        ],
        "shipping_lines": [
            {
                "id": ids["flat"],
                "method_id": "flat_rate",
                "method_title": "Flat Rate",
                "total": "5.00",
            },
            {
                "id": ids["pickup"],
                "method_id": "local_pickup",
                "method_title": "Local Pickup",
                "total": "0.00",
            },
        ],
        "tax_lines": [
            {
                "id": ids["tax_ca"],
                "rate_id": ids["rate"],
                "code": "US-CA-TAX-1",
                "title": "CA Tax",
                "total": "1.40",
                "compound": False,
            },
            {
                "id": ids["tax_city"],
                "rate_id": ids["rate"] + 3,
                "code": "US-CITY-2",
                "title": "City Tax",
                "total": "0.30",
                "compound": True,
            },
        ],
        "fee_lines": [
            {
                "id": ids["fee"],
                "title": "Gift wrap",
                "tax_class": "",
                "total": "1.01",
                "total_tax": "0.10",
            },
        ],
        "coupon_lines": [{"id": ids["coupon"], "code": "save1", "amount": "1.00"}],
        "customer": {
            "id": ids["jane"],
            "created_at": "2023-01-02T03:04:05Z",
            "last_update": "2023-06-07T08:09:10Z",
            "email": "jane@example.com",
            "first_name": "Jane",
            "last_name": "Doe",
            "username": "jane",
            "role": "customer",
            "last_order_id": ids["later"],
            "last_order_date": "2024-03-04T05:08:07Z",
            "orders_count": 2,
            "total_spent": "53.55",
            "avatar_url": f"https://secure.gravatar.com/avatar/{digest}?s=96&d=mm&r=g",
            "billing_address": {
                "first_name": "Jane",
                "last_name": "",
                "company": "",
                "address_1": "",
                "address_2": "",
                "city": "Boston",
                "state": "",
                "postcode": "",
                "country": "",
                "email": "jane.billing@example.com",
                "phone": "",
            },
            "shipping_address": {
                "first_name": "Jane",
                "last_name": "",
                "company": "",
                "address_1": "",
                "address_2": "",
                "city": "Cambridge",
                "state": "",
                "postcode": "",
                "country": "",
            },
        },
    }


def test_full_record_every_field_in_order(
    api: TestApp, engine: sa.Engine, factory: OrderFactory
) -> None:
    ids = seed_full(engine, factory)
    response = api.get(f"{URL}/{ids['order']}")
    assert response.status_int == 200
    record = response.json["order"]
    expected = expected_record(ids)
    assert record == expected
    assert list(record) == list(expected)
    assert list(record["customer"]) == list(expected["customer"])
    assert list(record["line_items"][0]) == list(expected["line_items"][0])
    assert list(record["tax_lines"][0]) == list(expected["tax_lines"][0])


def test_list_item_is_the_same_record(
    api: TestApp, engine: sa.Engine, factory: OrderFactory
) -> None:
    ids = seed_full(engine, factory)
    listed = api.get(URL, params={"filter[in]": str(ids["order"])}).json["orders"]
    assert listed == [expected_record(ids)]


def test_guest_order_and_deleted_customer_get_the_guest_block(
    api: TestApp, engine: sa.Engine, factory: OrderFactory
) -> None:
    billing = {"first_name": "Gus", "last_name": "Guest", "email": "gus@example.com"}
    guest = factory.order(billing=billing, shipping={"city": "Paris"}, date_completed=BASE_TIME)
    gone = factory.order(customer_id=4242, billing=billing)
    record = api.get(f"{URL}/{guest}").json["order"]
    assert record["customer_id"] == 0
    assert record["completed_at"] == "2024-03-04T05:06:07Z"
    assert record["payment_details"] == {"method_id": "", "method_title": "", "paid": False}
    assert record["customer"] == {
        "id": 0,
        "email": "gus@example.com",
        "first_name": "Gus",
        "last_name": "Guest",
        "billing_address": record["billing_address"],
        "shipping_address": record["shipping_address"],
    }
    assert record["shipping_address"]["city"] == "Paris"
    assert record["line_items"] == record["tax_lines"] == record["fee_lines"] == []
    assert record["shipping_methods"] == "" and record["subtotal"] == "0.00"
    deleted = api.get(f"{URL}/{gone}").json["order"]
    assert deleted["customer_id"] == 4242
    assert deleted["customer"]["id"] == 0
    assert deleted["customer"]["email"] == "gus@example.com"


def test_dp(api: TestApp, engine: sa.Engine, factory: OrderFactory) -> None:
    ids = seed_full(engine, factory)
    url = f"{URL}/{ids['order']}"
    four = api.get(url, params={"filter[dp]": "4"}).json["order"]
    assert four["total"] == "33.5500" and four["subtotal"] == "18.3400"
    assert four["line_items"][1]["price"] == "1.6675"
    assert four["line_items"][1]["subtotal"] == "3.3350"
    assert four["fee_lines"][0]["total"] == "1.0100"  # store decimals first
    assert four["customer"]["total_spent"] == "53.55"  # always 2
    zero = api.get(url, params={"filter[dp]": "0"}).json["order"]
    assert zero["total"] == "33.55"  # 0 → the default
    one = api.get(url, params={"filter[dp]": "1?"}).json["order"]
    assert one["total"] == "33.6" and one["tax_lines"][0]["total"] == "1.4"
    huge = api.get(url, params={"filter[dp]": "99999999999"}).json["order"]
    assert huge["total"] == "33.55" + "0" * 18
    bad = api.get(url, params={"filter[dp]": "x"}, status=400)
    assert error(bad)[1] == "shop_api_invalid_param"


def test_all_item_meta_and_meta_only_for_true(
    api: TestApp, engine: sa.Engine, factory: OrderFactory
) -> None:
    ids = seed_full(engine, factory)
    url = f"{URL}/{ids['order']}"
    for value in ("1", "TRUE", "yes"):
        record = api.get(url, params={"filter[all_item_meta]": value, "filter[meta]": value})
        assert len(record.json["order"]["line_items"][0]["meta"]) == 3
        assert "order_meta" not in record.json["order"]
    record = api.get(url, params={"filter[all_item_meta]": "true", "filter[meta]": "true"})
    order = record.json["order"]
    assert [m["key"] for m in order["line_items"][0]["meta"]] == [
        "pa_color",
        "gift-size",
        "_reduced_stock",
        "Backordered",
    ]
    assert order["order_meta"] == {"gift": "yes", "count": 3}
    assert list(order)[-2:] == ["customer", "order_meta"]
    empty = factory.order()
    assert api.get(f"{URL}/{empty}?filter[meta]=true").json["order"]["order_meta"] == {}


def test_expand(api: TestApp, engine: sa.Engine, factory: OrderFactory) -> None:
    ids = seed_full(engine, factory)
    url = f"{URL}/{ids['order']}"
    plain = api.get(url).json["order"]
    assert "product_data" not in plain["line_items"][0]
    assert "rate_data" not in plain["tax_lines"][0]
    record = api.get(url, params={"filter[expand]": "products,taxes,coupons"}).json["order"]
    variation = api.get(f"/shop-api/v3/products/{ids['variation']}").json["product"]
    mug = api.get(f"/shop-api/v3/products/{ids['mug']}").json["product"]
    rate = api.get(f"/shop-api/v3/taxes/{ids['rate']}").json["tax"]
    shirt_line, mug_line, gone_line = record["line_items"]
    assert shirt_line["product_data"] == variation
    assert list(shirt_line)[-1] == "product_data"
    assert mug_line["product_data"] == mug
    assert "product_data" not in gone_line
    assert record["tax_lines"][0]["rate_data"] == rate
    assert "rate_data" not in record["tax_lines"][1]  # that rate does not exist
    assert "coupon_data" not in record["coupon_lines"][0]  # no coupons are kept
    only_taxes = api.get(url, params={"filter[expand]": "taxes"}).json["order"]
    assert "product_data" not in only_taxes["line_items"][0]


def test_fields(api: TestApp, engine: sa.Engine, factory: OrderFactory) -> None:
    ids = seed_full(engine, factory)
    record = api.get(
        f"{URL}/{ids['order']}", params={"fields": "id,line_items.sku,customer.id"}
    ).json["order"]
    assert record == {
        "id": ids["order"],
        "line_items": [{"sku": "SHIRT"}, {"sku": "MUG"}, {"sku": None}],
        "customer": {"id": ids["jane"]},
    }


def test_round_at_subtotal(
    build_app: Any, admin: Credentials, engine: sa.Engine, factory: OrderFactory
) -> None:
    order_id = factory.order()
    factory.line(order_id, subtotal="1.005")
    factory.line(order_id, subtotal="1.005")
    default = authorised(build_app(), admin)
    assert default.get(f"{URL}/{order_id}").json["order"]["subtotal"] == "2.02"
    at_subtotal = authorised(build_app(**{"shopsvc.tax_round_at_subtotal": "true"}), admin)
    assert at_subtotal.get(f"{URL}/{order_id}").json["order"]["subtotal"] == "2.01"


def test_trashed_order_is_still_readable(api: TestApp, factory: OrderFactory, engine: Any) -> None:
    order_id = factory.order(status="processing")
    update(engine, orders, order_id, status="trash", status_before_trash="processing")
    assert api.get(f"{URL}/{order_id}").json["order"]["status"] == "trash"


def test_errors(app: TestApp, api: TestApp, make_key: Any, factory: OrderFactory) -> None:
    order_id = factory.order()
    assert error(api.get(f"{URL}/0", status=404)) == INVALID_ID
    assert error(api.get(f"{URL}/{order_id + 1}", status=404)) == not_found(order_id + 1)
    customer = authorised(app, make_key("customer", "read_write"))
    assert error(customer.get(f"{URL}/{order_id}", status=401)) == (
        401,
        "shop_api_user_cannot_read_order",
        "You do not have permission to read this order.",
    )
    # a customer still learns nothing more for a missing id than the shared validation says
    assert error(customer.get(f"{URL}/{order_id + 1}", status=404)) == not_found(order_id + 1)
    assert error(customer.get(f"{URL}/0", status=404)) == INVALID_ID


def test_head(api: TestApp, factory: OrderFactory) -> None:
    order_id = factory.order()
    response = api.head(f"{URL}/{order_id}")
    assert response.status_int == 200 and response.body == b""
