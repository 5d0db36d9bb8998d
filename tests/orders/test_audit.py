"""Fixes of the orders audit against the spec and decisions.md (each on both databases)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from tests.helpers.api import ROOT, error
from tests.helpers.order_writes import URL, create, fails, product

NOTES = "{url}/{order}/notes"


def _notes_url(order_id: int) -> str:
    return NOTES.format(url=URL, order=order_id)


# --- quantities are integers: JSON numbers and digit strings (decisions.md §2)


def test_quantity_digit_string(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine, "Thing", "10")
    order = create(api, line_items=[{"product_id": thing, "quantity": "3"}])
    line = order["line_items"][0]
    assert (line["quantity"], line["total"], order["total_line_items_quantity"]) == (
        3,
        "30.00",
        3,
    )
    edited = api.put_json(
        f"{URL}/{order['id']}",
        {"order": {"line_items": [{"id": line["id"], "product_id": thing, "quantity": " 2 "}]}},
    ).json["order"]
    assert (edited["line_items"][0]["quantity"], edited["line_items"][0]["total"]) == (2, "20.00")


@pytest.mark.parametrize("value", ["0", "-1"])
def test_quantity_digit_string_not_positive(api: TestApp, engine: sa.Engine, value: str) -> None:
    thing = product(engine, "Thing", "10")
    body = {"order": {"line_items": [{"product_id": thing, "quantity": value}]}}
    assert fails(api, body) == (
        400,
        "shop_api_invalid_product_quantity",
        "Product quantity must be a positive float.",
    )


@pytest.mark.parametrize("value", ["2.5", "two", "", True])
def test_quantity_not_an_integer(api: TestApp, engine: sa.Engine, value: Any) -> None:
    thing = product(engine, "Thing", "10")
    body = {"order": {"line_items": [{"product_id": thing, "quantity": value}]}}
    assert fails(api, body)[:2] == (400, "shop_api_invalid_param")


# --- payment_details.paid takes the §2 boolean spellings


@pytest.mark.parametrize("value", [True, "true", "YES", 1, "1"])
def test_paid_on_create(api: TestApp, engine: sa.Engine, value: Any) -> None:
    thing = product(engine, "Thing", "10")
    payment = {"method_id": "bacs", "method_title": "Bank", "paid": value}
    order = create(api, line_items=[{"product_id": thing, "quantity": 1}], payment_details=payment)
    assert (order["status"], order["payment_details"]["paid"]) == ("processing", True)


@pytest.mark.parametrize("value", [False, "false", "no", 0, "0", None])
def test_not_paid_on_create(api: TestApp, value: Any) -> None:
    payment = {"method_id": "bacs", "method_title": "Bank", "paid": value}
    order = create(api, payment_details=payment)
    assert (order["status"], order["payment_details"]["paid"]) == ("pending", False)


def test_paid_on_edit(api: TestApp, engine: sa.Engine) -> None:
    thing = product(engine, "Thing", "10")
    order = create(api, line_items=[{"product_id": thing, "quantity": 1}])
    body = {"order": {"payment_details": {"paid": "yes"}}}
    edited = api.put_json(f"{URL}/{order['id']}", body).json["order"]
    assert (edited["status"], edited["payment_details"]["paid"]) == ("processing", True)


@pytest.mark.parametrize("value", ["maybe", 2, [], {}])
def test_paid_not_a_boolean(api: TestApp, value: Any) -> None:
    payment = {"method_id": "bacs", "method_title": "Bank", "paid": value}
    code, message = fails(api, {"order": {"payment_details": payment}})[1:]
    assert code == "shop_api_invalid_param" and "payment_details.paid" in message


# --- order_note.customer_note takes the §2 boolean spellings


@pytest.mark.parametrize(
    ("value", "expected"), [("yes", True), ("1", True), (1, True), ("No", False), (0, False)]
)
def test_customer_note_spellings(api: TestApp, value: Any, expected: bool) -> None:
    order = create(api)
    body = {"order_note": {"note": "x", "customer_note": value}}
    created = api.post_json(_notes_url(order["id"]), body, status=201).json["order_note"]
    assert created["customer_note"] is expected
    edit = {"order_note": {"customer_note": not expected}}
    url = f"{_notes_url(order['id'])}/{created['id']}"
    assert api.put_json(url, edit).json["order_note"]["customer_note"] is (not expected)


@pytest.mark.parametrize("value", ["maybe", 2, [], {}])
def test_customer_note_not_a_boolean(api: TestApp, value: Any) -> None:
    order = create(api)
    body = {"order_note": {"note": "x", "customer_note": value}}
    response = api.post_json(_notes_url(order["id"]), body, status=400)
    assert error(response)[1] == "shop_api_invalid_param"
    note = api.post_json(_notes_url(order["id"]), {"order_note": {"note": "y"}}, status=201)
    url = f"{_notes_url(order['id'])}/{note.json['order_note']['id']}"
    response = api.put_json(url, {"order_note": {"customer_note": value}}, status=400)
    assert error(response)[1] == "shop_api_invalid_param"


def test_customer_note_capability_before_shape(api: TestApp, customer_api: TestApp) -> None:
    """A caller without the capability sees the 401, whatever the field types."""
    order = create(api)
    body = {"order_note": {"note": "x", "customer_note": "maybe"}}
    response = customer_api.post_json(_notes_url(order["id"]), body, status=401)
    assert error(response)[1] == "shop_api_user_cannot_create_order_note"


def test_root_lists_order_routes(app: TestApp) -> None:
    routes = app.get(ROOT).json["store"]["routes"]
    single = ["HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"]
    assert routes["/orders"]["supports"] == ["HEAD", "GET", "POST"]
    assert routes["/orders/<id>"]["supports"] == single
    assert routes["/orders/count"]["supports"] == ["HEAD", "GET"]
    assert routes["/orders/statuses"]["supports"] == ["HEAD", "GET"]
    assert routes["/orders/bulk"]["supports"] == ["POST", "PUT", "PATCH"]
    assert routes["/orders/<order_id>/notes"]["supports"] == ["HEAD", "GET", "POST"]
    assert routes["/orders/<order_id>/notes/<id>"]["supports"] == single
    assert routes["/orders/<order_id>/refunds"]["supports"] == ["HEAD", "GET", "POST"]
    assert routes["/orders/<order_id>/refunds/<id>"]["supports"] == single
    assert routes["/products/<id>/orders"]["supports"] == ["HEAD", "GET"]


# --- a customer id that names no user is the spec's 400, negative ones too


@pytest.mark.parametrize("value", [-1, "-7", 999])
def test_customer_id_that_names_no_user(api: TestApp, value: Any) -> None:
    invalid = (400, "shop_api_invalid_customer_id", "Customer ID is invalid.")
    assert fails(api, {"order": {"customer_id": value}}) == invalid
    order = create(api)
    url = f"{URL}/{order['id']}"
    assert fails(api, {"order": {"customer_id": value}}, url=url, method="put") == invalid


def test_customer_id_not_an_integer(api: TestApp) -> None:
    assert fails(api, {"order": {"customer_id": "abc"}})[:2] == (400, "shop_api_invalid_param")
