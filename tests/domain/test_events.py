"""The pure rules of webhook events: merging one request's events, topics, bodies, signatures and
the retry schedule."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from shopsvc.domain import events
from shopsvc.domain.events import Event, EventSet


def test_one_event_per_record_the_stronger_wins_and_hooks_add_up() -> None:
    found = EventSet()
    found.record("order", 7, None, ["shop_order_status_processing"])
    found.record("order", 7, "created", ["shop_new_order"])
    found.record("order", 7, "updated", ["shop_update_order", "shop_new_order"])
    found.record("product", 7, "updated")
    assert list(found) == [
        Event(
            "order",
            7,
            "created",
            ["shop_order_status_processing", "shop_new_order", "shop_update_order"],
        ),
        Event("product", 7, "updated", []),
    ]


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("updated", "restored", "restored"),
        ("restored", "updated", "restored"),
        ("updated", "deleted", "deleted"),
        ("deleted", "created", "created"),
        (None, "updated", "updated"),
        ("updated", None, "updated"),
    ],
)
def test_the_order_of_strength(first: str | None, second: str | None, kept: str) -> None:
    found = EventSet()
    found.record("product", 1, first)
    found.record("product", 1, second)
    assert [event.event for event in found] == [kept]


def test_a_failed_savepoint_forgets_its_events_and_keeps_the_earlier_ones() -> None:
    found = EventSet()
    found.record("order", 1, "updated", ["shop_update_order"])
    with pytest.raises(ValueError), found.savepoint():
        found.record("order", 1, None, ["shop_payment_complete"])
        found.record("order", 2, "created")
        raise ValueError
    assert list(found) == [Event("order", 1, "updated", ["shop_update_order"])]
    with found.savepoint():
        found.record("order", 2, "created")
    assert [event.resource_id for event in found] == [1, 2]


def test_only_delivered_resources_are_recorded() -> None:
    with pytest.raises(ValueError):
        EventSet().record("coupon", 1, "created")


def test_fired_topics() -> None:
    found = EventSet()
    found.record("order", 3, "created", ["shop_new_order"])
    found.record("product", 4, None, ["shop_product_set_stock"])
    assert found.fired() == [
        ("order.created", "order", 3),
        ("action.shop_new_order", "order", 3),
        ("action.shop_product_set_stock", "product", 4),
    ]


def test_hook_names_are_valid_action_topics() -> None:
    assert events.status_change_hooks("on-hold", "processing") == [
        "shop_order_status_processing",
        "shop_order_status_on_hold_to_processing",
        "shop_order_status_changed",
    ]
    assert events.product_hook("new", True) == "shop_new_product_variation"
    assert events.stock_hook(False) == "shop_product_set_stock"


def test_bodies() -> None:
    assert events.body_of("order.deleted", 5, None) == {"id": 5}
    assert events.body_of("action.shop_new_order", 5, None) == {
        "action": "shop_new_order",
        "arg": 5,
    }
    assert events.body_of("product.updated", 5, {"id": 5}) == {"product": {"id": 5}}
    assert not events.needs_record("order.deleted")
    assert not events.needs_record("action.shop_update_order")
    assert events.needs_record("customer.created")
    assert events.encode_body({"order": {"title": "Café"}}) == '{"order":{"title":"Café"}}'.encode()


def test_signature_is_base64_hmac_sha256_of_the_body() -> None:
    body = b'{"id":1}'
    expected = base64.b64encode(hmac.new(b"s3cr\xc3\xa9t", body, hashlib.sha256).digest())
    assert events.signature(body, "s3cré" + "t") == expected.decode()


def test_retry_schedule_doubles_the_unit() -> None:
    assert [events.retry_delay(n, 60) for n in range(6)] == [0, 60, 120, 240, 480, 960]
    assert events.retry_delay(3, 0) == 0


@pytest.mark.parametrize(
    ("status", "success"),
    [
        (200, True),
        (204, True),
        (299, True),
        (300, False),
        (301, False),
        (302, False),
        (199, False),
        (500, False),
        (None, False),
    ],
)
def test_success_is_any_2xx(status: int | None, success: bool) -> None:
    assert events.is_success(status) is success
