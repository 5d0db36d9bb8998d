"""Order notes through HTTP (reference orders.md §6; decisions.md §6, §7): every route, code,
message, status and order of checks, on both databases."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import order_notes, orders
from tests.helpers.api import ROOT, assert_error, check_index, check_unpaginated, stamp
from tests.helpers.orders import ALL_BUT, T0, add_order
from tests.helpers.sql import insert, one_row, select_all


def add_note(engine: sa.Engine, order_id: int, note: str = "n", **values: Any) -> int:
    row = {"order_id": order_id, "note": note, "created_at": T0}
    return insert(engine, order_notes, **(row | values))


def notes_url(order_id: int) -> str:
    return f"{ROOT}/orders/{order_id}/notes"


def note_url(order_id: int, note_id: int | str) -> str:
    return f"{ROOT}/orders/{order_id}/notes/{note_id}"


@pytest.fixture
def order(engine: sa.Engine) -> int:
    return add_order(engine)


# --- create


def test_create_returns_201_and_the_record(api: TestApp, engine: sa.Engine, order: int) -> None:
    response = api.post_json(notes_url(order), {"order_note": {"note": "Hello"}}, status=201)
    [row] = select_all(engine, order_notes)
    created = stamp(row["created_at"])
    assert response.json == {
        "order_note": {
            "id": row["id"],
            "created_at": created,
            "note": "Hello",
            "customer_note": False,
        }
    }
    assert row["order_id"] == order and row["system"] is False


def test_create_allows_an_empty_note(api: TestApp, order: int) -> None:
    record = api.post_json(notes_url(order), {"order_note": {"note": ""}}, status=201).json
    assert record["order_note"]["note"] == ""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        ("true", True),
        (1, True),
        ("yes", True),
        ("no", False),
        (None, False),
    ],
)
def test_create_customer_note_takes_the_boolean_spellings(
    api: TestApp, order: int, value: Any, expected: bool
) -> None:
    body = {"order_note": {"note": "x", "customer_note": value}}
    record = api.post_json(notes_url(order), body, status=201).json["order_note"]
    assert record["customer_note"] is expected


def test_create_a_number_note_is_text(api: TestApp, order: int) -> None:
    record = api.post_json(notes_url(order), {"order_note": {"note": 12}}, status=201).json
    assert record["order_note"]["note"] == "12"


@pytest.mark.parametrize("body", [{}, {"order_note": None}, {"other": {}}, []])
def test_create_without_envelope(api: TestApp, order: int, body: Any) -> None:
    response = api.post_json(notes_url(order), body, status=400)
    assert_error(
        response,
        400,
        "shop_api_missing_order_note_data",
        "No order_note data specified to create order_note",
    )


def test_create_without_body(api: TestApp, order: int) -> None:
    response = api.post(notes_url(order), "", status=400)
    assert_error(response, 400, "shop_api_missing_order_note_data")


def test_create_invalid_json(api: TestApp, order: int) -> None:
    response = api.post(notes_url(order), "{", content_type="application/json", status=400)
    assert_error(response, 400, "shop_api_invalid_json")


@pytest.mark.parametrize("data", [{}, {"note": None}, {"customer_note": True}])
def test_create_without_note(api: TestApp, order: int, data: dict[str, Any]) -> None:
    response = api.post_json(notes_url(order), {"order_note": data}, status=400)
    assert_error(response, 400, "shop_api_invalid_order_note", "Order note is required")


@pytest.mark.parametrize("note", [["a"], {"a": 1}, True])
def test_create_note_of_wrong_type(api: TestApp, order: int, note: Any) -> None:
    response = api.post_json(notes_url(order), {"order_note": {"note": note}}, status=400)
    assert_error(
        response,
        400,
        "shop_api_invalid_param",
        "Invalid parameter order_note.note: must be a string.",
    )


def test_create_envelope_not_an_object(api: TestApp, order: int) -> None:
    response = api.post_json(notes_url(order), {"order_note": "x"}, status=400)
    assert_error(response, 400, "shop_api_invalid_param")


def test_create_capability_before_order(
    customer_api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine
) -> None:
    message = "You do not have permission to create order notes"
    for order_id in (0, 999):
        response = customer_api.post_json(notes_url(order_id), {"order_note": {}}, status=401)
        assert_error(response, 401, "shop_api_user_cannot_create_order_note", message)
    # The envelope comes first.
    response = customer_api.post_json(notes_url(0), {}, status=400)
    assert_error(response, 400, "shop_api_missing_order_note_data")
    clerk = role_api(*ALL_BUT["create"])
    order = add_order(engine)
    response = clerk.post_json(notes_url(order), {"order_note": {"note": "x"}}, status=401)
    assert_error(response, 401, "shop_api_user_cannot_create_order_note", message)
    assert select_all(engine, order_notes) == []


def test_create_checks_the_order_for_edit(
    api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine
) -> None:
    response = api.post_json(notes_url(0), {"order_note": {}}, status=404)
    assert_error(response, 404, "shop_api_invalid_order_id", "Invalid shop_order ID.")
    response = api.post_json(notes_url(77), {"order_note": {}}, status=404)
    assert_error(response, 404, "shop_api_no_order_found", "No order found with the ID equal to 77")
    order = add_order(engine)
    clerk = role_api(*ALL_BUT["edit"])
    response = clerk.post_json(notes_url(order), {"order_note": {"note": "x"}}, status=401)
    assert_error(
        response,
        401,
        "shop_api_user_cannot_edit_order",
        "You do not have permission to edit this order.",
    )


def test_create_on_a_trashed_order(api: TestApp, engine: sa.Engine) -> None:
    order = add_order(engine, status="trash", status_before_trash="pending")
    api.post_json(notes_url(order), {"order_note": {"note": "x"}}, status=201)


# --- list


def test_list_is_newest_first_and_unpaginated(api: TestApp, engine: sa.Engine, order: int) -> None:
    other = add_order(engine)
    first = add_note(engine, order, "first", created_at=T0)
    second = add_note(engine, order, "second", created_at=T0 + dt.timedelta(seconds=5))
    third = add_note(engine, order, "third", created_at=T0, customer_note=True, system=True)
    add_note(engine, other, "elsewhere")
    response = api.get(notes_url(order), {"page": 2, "filter[limit]": 1})
    assert response.json == {
        "order_notes": [
            {
                "id": second,
                "created_at": "2024-03-01T12:00:05Z",
                "note": "second",
                "customer_note": False,
            },
            {
                "id": third,
                "created_at": "2024-03-01T12:00:00Z",
                "note": "third",
                "customer_note": True,
            },
            {
                "id": first,
                "created_at": "2024-03-01T12:00:00Z",
                "note": "first",
                "customer_note": False,
            },
        ]
    }
    check_unpaginated(response, 3)


def test_list_empty(api: TestApp, order: int) -> None:
    response = api.get(notes_url(order))
    assert response.json == {"order_notes": []}
    check_unpaginated(response, 0)


def test_list_fields(api: TestApp, engine: sa.Engine, order: int) -> None:
    note = add_note(engine, order, "a")
    response = api.get(notes_url(order), {"fields": "id,note"})
    assert response.json == {"order_notes": [{"id": note, "note": "a"}]}


def test_list_checks_the_order(
    api: TestApp, customer_api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine
) -> None:
    assert_error(api.get(notes_url(0), status=404), 404, "shop_api_invalid_order_id")
    assert_error(api.get(notes_url(5), status=404), 404, "shop_api_no_order_found")
    order = add_order(engine)
    for caller in (customer_api, role_api(*ALL_BUT["read"])):
        response = caller.get(notes_url(order), status=401)
        assert_error(
            response,
            401,
            "shop_api_user_cannot_read_order",
            "You do not have permission to read this order.",
        )


# --- get


def test_get(api: TestApp, engine: sa.Engine, order: int) -> None:
    note = add_note(engine, order, "Paid", customer_note=True)
    response = api.get(note_url(order, note))
    assert response.json == {
        "order_note": {
            "id": note,
            "created_at": "2024-03-01T12:00:00Z",
            "note": "Paid",
            "customer_note": True,
        }
    }
    assert api.get(note_url(order, note), {"fields": "note"}).json == {
        "order_note": {"note": "Paid"}
    }


def test_get_head(api: TestApp, engine: sa.Engine, order: int) -> None:
    note = add_note(engine, order)
    response = api.head(note_url(order, note))
    assert response.status_int == 200 and response.body == b""


def test_get_id_checks(api: TestApp, engine: sa.Engine, order: int) -> None:
    other = add_order(engine)
    foreign = add_note(engine, other)
    response = api.get(note_url(order, 0), status=400)
    assert_error(response, 400, "shop_api_invalid_order_note_id", "Invalid order note ID")
    response = api.get(note_url(order, "000"), status=400)
    assert_error(response, 400, "shop_api_invalid_order_note_id", "Invalid order note ID")
    response = api.get(note_url(order, 999), status=404)
    assert_error(
        response,
        404,
        "shop_api_invalid_order_note_id",
        "An order note with the provided ID could not be found",
    )
    response = api.get(note_url(order, 99999999999999999999999), status=404)
    assert_error(response, 404, "shop_api_invalid_order_note_id")
    response = api.get(note_url(order, foreign), status=400)
    assert_error(
        response,
        400,
        "shop_api_invalid_order_note_id",
        "The order note ID provided is not associated with the order",
    )


def test_get_order_checked_before_note(
    api: TestApp, customer_api: TestApp, engine: sa.Engine, order: int
) -> None:
    assert_error(api.get(note_url(0, 0), status=404), 404, "shop_api_invalid_order_id")
    assert_error(api.get(note_url(99, 0), status=404), 404, "shop_api_no_order_found")
    response = customer_api.get(note_url(order, 0), status=401)
    assert_error(response, 401, "shop_api_user_cannot_read_order")


def test_non_numeric_note_id_is_no_route(api: TestApp, order: int) -> None:
    assert_error(api.get(note_url(order, "abc"), status=404), 404, "shop_api_no_route")


# --- edit


@pytest.mark.parametrize("method", ["put_json", "patch_json", "post_json"])
def test_edit(api: TestApp, engine: sa.Engine, order: int, method: str) -> None:
    note = add_note(engine, order, "old")
    body = {"order_note": {"note": "new", "customer_note": True}}
    response = getattr(api, method)(note_url(order, note), body, status=200)
    assert response.json == {
        "order_note": {
            "id": note,
            "created_at": "2024-03-01T12:00:00Z",
            "note": "new",
            "customer_note": True,
        }
    }
    assert one_row(engine, order_notes, note)["note"] == "new"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), ("true", True), (0, False), ("NO", False), (None, True)],
)
def test_edit_customer_note(
    api: TestApp, engine: sa.Engine, order: int, value: Any, expected: bool
) -> None:
    note = add_note(engine, order, "keep", customer_note=True)
    body = {"order_note": {"customer_note": value}}
    record = api.put_json(note_url(order, note), body).json["order_note"]
    assert record == {
        "id": note,
        "created_at": "2024-03-01T12:00:00Z",
        "note": "keep",
        "customer_note": expected,
    }


def test_edit_empty_object_changes_nothing(api: TestApp, engine: sa.Engine, order: int) -> None:
    note = add_note(engine, order, "same", customer_note=True)
    record = api.put_json(note_url(order, note), {"order_note": {"x": 1}}).json["order_note"]
    assert record["note"] == "same" and record["customer_note"] is True


def test_edit_to_empty_note(api: TestApp, engine: sa.Engine, order: int) -> None:
    note = add_note(engine, order, "text")
    assert (
        api.put_json(note_url(order, note), {"order_note": {"note": ""}}).json["order_note"]["note"]
        == ""
    )


def test_edit_without_envelope_comes_first(
    api: TestApp, customer_api: TestApp, engine: sa.Engine, order: int
) -> None:
    message = "No order_note data specified to edit order_note"
    for caller, url in ((api, note_url(order, 5)), (customer_api, note_url(0, 0))):
        response = caller.put_json(url, {"note": "x"}, status=400)
        assert_error(response, 400, "shop_api_missing_order_note_data", message)


def test_edit_checks(
    api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine, order: int
) -> None:
    other = add_order(engine)
    foreign = add_note(engine, other)
    note = add_note(engine, order)
    body = {"order_note": {"note": "x"}}
    assert_error(
        api.put_json(note_url(0, note), body, status=404), 404, "shop_api_invalid_order_id"
    )
    assert_error(api.put_json(note_url(99, note), body, status=404), 404, "shop_api_no_order_found")
    clerk = role_api(*ALL_BUT["edit"])
    response = clerk.put_json(note_url(order, 0), body, status=401)
    assert_error(response, 401, "shop_api_user_cannot_edit_order")
    response = api.put_json(note_url(order, 0), body, status=400)
    assert_error(response, 400, "shop_api_invalid_order_note_id", "Invalid order note ID")
    response = api.put_json(note_url(order, 999), body, status=404)
    assert_error(
        response,
        404,
        "shop_api_invalid_order_note_id",
        "An order note with the provided ID could not be found",
    )
    response = api.put_json(note_url(order, foreign), body, status=400)
    assert_error(
        response,
        400,
        "shop_api_invalid_order_note_id",
        "The order note ID provided is not associated with the order",
    )
    assert one_row(engine, order_notes, foreign)["note"] == "n"
    # Types are checked after the ids.
    response = api.put_json(note_url(order, note), {"order_note": {"note": []}}, status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    response = api.put_json(note_url(order, note), {"order_note": 3}, status=400)
    assert_error(response, 400, "shop_api_invalid_param")


# --- delete


def test_delete(api: TestApp, engine: sa.Engine, order: int) -> None:
    note = add_note(engine, order)
    keep = add_note(engine, order)
    response = api.delete(note_url(order, note))
    assert response.status_int == 200
    assert response.json == {"message": "Permanently deleted order note"}
    assert [row["id"] for row in select_all(engine, order_notes)] == [keep]
    response = api.delete(note_url(order, note), status=404)
    assert_error(response, 404, "shop_api_invalid_order_note_id")


def test_delete_checks(
    api: TestApp, role_api: Callable[..., TestApp], engine: sa.Engine, order: int
) -> None:
    other = add_order(engine)
    foreign = add_note(engine, other)
    note = add_note(engine, order)
    assert_error(api.delete(note_url(0, note), status=404), 404, "shop_api_invalid_order_id")
    assert_error(api.delete(note_url(99, note), status=404), 404, "shop_api_no_order_found")
    # The delete capability of the order, not the edit one.
    clerk = role_api(*ALL_BUT["delete"])
    response = clerk.delete(note_url(order, note), status=401)
    assert_error(
        response,
        401,
        "shop_api_user_cannot_delete_order",
        "You do not have permission to delete this order.",
    )
    role_api("delete_shop_orders").delete(note_url(order, note), status=200)
    response = api.delete(note_url(order, 0), status=400)
    assert_error(response, 400, "shop_api_invalid_order_note_id", "Invalid order note ID")
    response = api.delete(note_url(order, foreign), status=400)
    assert_error(
        response,
        400,
        "shop_api_invalid_order_note_id",
        "The order note ID provided is not associated with the order",
    )
    assert [row["id"] for row in select_all(engine, order_notes)] == [foreign]


def test_deleting_the_order_deletes_its_notes(api: TestApp, engine: sa.Engine, order: int) -> None:
    add_note(engine, order)
    with engine.begin() as conn:
        conn.execute(sa.delete(orders).where(orders.c.id == order))
    assert select_all(engine, order_notes) == []


def test_only_capabilities_of_the_action_are_needed(
    role_api: Callable[..., TestApp], engine: sa.Engine, order: int
) -> None:
    note = add_note(engine, order)
    reader = role_api("read_private_shop_orders")
    assert reader.get(notes_url(order)).json["order_notes"][0]["id"] == note
    reader.get(note_url(order, note), status=200)
    creator = role_api("publish_shop_orders", "edit_shop_orders")
    creator.post_json(notes_url(order), {"order_note": {"note": "x"}}, status=201)
    role_api("edit_shop_orders").put_json(note_url(order, note), {"order_note": {"note": "y"}})


def test_index_lists_the_routes(api: TestApp) -> None:
    check_index(api, "/orders/<order_id>/notes", "/orders/<order_id>/notes/<id>")
