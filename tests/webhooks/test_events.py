"""Webhook events through HTTP (decisions.md §3 and §7 "Webhook delivery", docs/webhooks.md
"What fires what"): which changes queue which deliveries in ``webhook_deliveries``, at most one
event per record per request, bulk elements, failed requests, merging of pending deliveries,
inactive webhooks, and ``customer.created`` from the CLI — on both databases.

Each test arranges its records first (through the API or straight into the database, before any
webhook exists, so nothing is queued), then subscribes a webhook to every topic that could fire
(:data:`TOPICS`, plus the status hooks under test), acts, and compares the whole outbox with
exactly the deliveries expected."""

from __future__ import annotations

import datetime as dt
import json
import pathlib
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.cli.main import main as cli_main
from shopsvc.sql.tables import webhook_deliveries
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import error
from tests.helpers.deliveries import (
    Queued,
    actions,
    check_fresh,
    queued,
    rows,
    set_status,
    subscribe,
)
from tests.helpers.order_writes import BULK as ORDERS_BULK
from tests.helpers.order_writes import URL as ORDERS
from tests.helpers.order_writes import create as create_order
from tests.helpers.order_writes import edit as edit_order
from tests.helpers.order_writes import order_row, stock_of
from tests.helpers.products import URL as PRODUCTS
from tests.helpers.products import create as create_product
from tests.helpers.products import edit as edit_product
from tests.helpers.products import row as product_row
from tests.helpers.sql import update

pytestmark = pytest.mark.usefixtures("no_ping")

RESOURCE_TOPICS = tuple(
    f"{resource}.{event}"
    for resource in ("order", "product", "customer")
    for event in ("created", "updated", "deleted", "restored")
)
#: Every hook name the service raises, but the per-status ones.
ACTION_NAMES = (
    "shop_new_product",
    "shop_update_product",
    "shop_new_product_variation",
    "shop_update_product_variation",
    "shop_product_set_stock",
    "shop_variation_set_stock",
    "shop_new_order",
    "shop_update_order",
    "shop_trash_order",
    "shop_order_status_changed",
    "shop_payment_complete",
    "shop_refund_created",
    "shop_order_refunded",
    "shop_refund_deleted",
    "shop_created_customer",
    "shop_new_customer",
)
TOPICS = RESOURCE_TOPICS + tuple(f"action.{name}" for name in ACTION_NAMES)
PAYMENT = {"method_id": "bacs", "method_title": "Bank", "paid": True}
SIZES = [{"name": "Size", "options": ["S", "M", "L"], "variation": True, "visible": True}]


def status_topics(*moves: tuple[str, str]) -> tuple[str, ...]:
    """The ``action.`` topics of the status hooks of each ``(old, new)`` move."""
    topics: list[str] = []
    for old, new in moves:
        topics += [
            f"action.shop_order_status_{new.replace('-', '_')}",
            f"action.shop_order_status_{old.replace('-', '_')}_to_{new.replace('-', '_')}",
        ]
    return tuple(dict.fromkeys(topics))


def watch(api: TestApp, *extra: str) -> dict[str, int]:
    """A webhook on every topic of :data:`TOPICS` and on ``extra``; their ids by topic."""
    return subscribe(api, *TOPICS, *extra)


def moved(order_id: int, old: str, new: str) -> list[Queued]:
    """The status hooks of order ``order_id`` moving from ``old`` to ``new``."""
    old_, new_ = old.replace("-", "_"), new.replace("-", "_")
    return actions(
        "order",
        order_id,
        f"shop_order_status_{new_}",
        f"shop_order_status_{old_}_to_{new_}",
        "shop_order_status_changed",
    )


def topic(resource: str, event: str, resource_id: int) -> list[Queued]:
    return [(f"{resource}.{event}", resource, resource_id)]


def stocked(engine: sa.Engine, title: str = "Thing", quantity: int = 10, **columns: Any) -> int:
    """A simple product of price 10 managing its stock, straight into the database."""
    return CatalogFactory(engine).product(
        title, regular_price="10", manage_stock=True, stock_quantity=quantity, **columns
    )


def line(product_id: int, quantity: int = 1) -> list[dict[str, Any]]:
    return [{"product_id": product_id, "quantity": quantity}]


def variable(api: TestApp, variations: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return create_product(
        api, title="Tee", type="variable", attributes=SIZES, variations=variations, **fields
    )


def size(option: str) -> list[dict[str, str]]:
    return [{"name": "Size", "option": option}]


def refunds_url(order_id: int) -> str:
    return f"{ORDERS}/{order_id}/refunds"


# --- products


def test_product_create(api: TestApp, engine: sa.Engine) -> None:
    hooks = watch(api)
    plain = create_product(api, title="Plain", regular_price="3")["id"]
    managed = create_product(api, title="Kept", managing_stock=True, stock_quantity=5)["id"]
    assert queued(engine, hooks) == sorted(
        topic("product", "created", plain)
        + actions("product", plain, "shop_new_product")
        + topic("product", "created", managed)
        + actions("product", managed, "shop_new_product", "shop_product_set_stock")
    )


def test_product_edit(api: TestApp, engine: sa.Engine) -> None:
    renamed, restocked, same_stock = (stocked(engine, quantity=5) for _ in range(3))
    hooks = watch(api)
    edit_product(api, renamed, title="New title")
    edit_product(api, restocked, stock_quantity=7)
    edit_product(api, same_stock, stock_quantity=5, regular_price="11")
    assert product_row(engine, restocked)["stock_quantity"] == 7
    assert queued(engine, hooks) == sorted(
        topic("product", "updated", renamed)
        + actions("product", renamed, "shop_update_product")
        + topic("product", "updated", restocked)
        + actions("product", restocked, "shop_update_product", "shop_product_set_stock")
        + topic("product", "updated", same_stock)
        + actions("product", same_stock, "shop_update_product")
    )


def test_product_trash_restore_and_forced_delete(api: TestApp, engine: sa.Engine) -> None:
    trashed, in_trash, forced, forced_from_trash, restored = (
        create_product(api, title=f"P{n}")["id"] for n in range(5)
    )
    for product_id in (in_trash, forced_from_trash, restored):
        api.delete(f"{PRODUCTS}/{product_id}", status=202)
    hooks = watch(api)
    api.delete(f"{PRODUCTS}/{trashed}", status=202)
    api.delete(f"{PRODUCTS}/{in_trash}", status=202)  # already there: no change, no event
    api.delete(f"{PRODUCTS}/{forced}?force=true", status=200)
    api.delete(f"{PRODUCTS}/{forced_from_trash}?force=true", status=200)
    assert edit_product(api, restored, status="publish")["status"] == "publish"
    assert queued(engine, hooks) == sorted(
        topic("product", "deleted", trashed)
        + topic("product", "restored", restored)
        + actions("product", restored, "shop_update_product")
    )


def test_product_create_with_variations(api: TestApp, engine: sa.Engine) -> None:
    hooks = watch(api)
    product = variable(
        api,
        [
            {"regular_price": "1", "attributes": size("S")},
            {
                "regular_price": "2",
                "attributes": size("M"),
                "managing_stock": True,
                "stock_quantity": 4,
            },
        ],
    )
    parent = product["id"]
    small, medium = sorted(v["id"] for v in product["variations"])
    # one event for the parent: created wins over the variations' updated; the hooks add up
    assert queued(engine, hooks) == sorted(
        topic("product", "created", parent)
        + actions("product", parent, "shop_update_product", "shop_new_product")
        + topic("product", "created", small)
        + actions("product", small, "shop_new_product_variation")
        + topic("product", "created", medium)
        + actions("product", medium, "shop_new_product_variation", "shop_variation_set_stock")
    )


def test_product_put_with_variations_updates_the_parent_once(
    api: TestApp, engine: sa.Engine
) -> None:
    product = variable(
        api,
        [
            {"regular_price": "1", "attributes": size("S")},
            {"regular_price": "2", "attributes": size("M")},
        ],
    )
    parent = product["id"]
    small, medium = sorted(v["id"] for v in product["variations"])
    hooks = watch(api)
    record = edit_product(
        api,
        parent,
        title="Tee shirt",
        variations=[
            {"id": small, "regular_price": "5"},
            {"id": medium, "managing_stock": True, "stock_quantity": 2},
            {"regular_price": "3", "attributes": size("L")},
        ],
    )
    [large] = {v["id"] for v in record["variations"]} - {small, medium}
    assert queued(engine, hooks) == sorted(
        topic("product", "updated", parent)
        + actions("product", parent, "shop_update_product")
        + topic("product", "updated", small)
        + actions("product", small, "shop_update_product_variation")
        + topic("product", "updated", medium)
        + actions("product", medium, "shop_update_product_variation", "shop_variation_set_stock")
        + topic("product", "created", large)
        + actions("product", large, "shop_new_product_variation")
    )
    assert [row["topic"] for row in rows(engine)].count("product.updated") == 3


def test_variation_edit_trash_and_forced_delete(api: TestApp, engine: sa.Engine) -> None:
    product = variable(
        api,
        [
            {"regular_price": "1", "attributes": size("S")},
            {"regular_price": "2", "attributes": size("M")},
            {"regular_price": "3", "attributes": size("L")},
        ],
    )
    parent = product["id"]
    edited, trashed, forced = sorted(v["id"] for v in product["variations"])
    hooks = watch(api)
    edit_product(api, edited, managing_stock=True, stock_quantity=3)
    api.delete(f"{PRODUCTS}/{trashed}", status=202)
    api.delete(f"{PRODUCTS}/{forced}?force=true", status=200)
    assert queued(engine, hooks) == sorted(
        topic("product", "updated", edited)
        + actions("product", edited, "shop_update_product_variation", "shop_variation_set_stock")
        + topic("product", "updated", parent)
        + actions("product", parent, "shop_update_product")
        + topic("product", "deleted", trashed)
    )


def test_restoring_a_trashed_variation(api: TestApp, engine: sa.Engine) -> None:
    product = variable(api, [{"regular_price": "1", "attributes": size("S")}])
    parent = product["id"]
    [variation] = [v["id"] for v in product["variations"]]
    api.delete(f"{PRODUCTS}/{variation}", status=202)
    hooks = watch(api)
    edit_product(api, parent, variations=[{"id": variation, "visible": True}])
    assert product_row(engine, variation)["status"] == "publish"
    assert queued(engine, hooks) == sorted(
        topic("product", "restored", variation)
        + actions("product", variation, "shop_update_product_variation")
        + topic("product", "updated", parent)
        + actions("product", parent, "shop_update_product")
    )


# --- orders


def test_order_create_pending(api: TestApp, engine: sa.Engine) -> None:
    thing = stocked(engine)
    hooks = watch(api, *status_topics(("pending", "processing")))
    order = create_order(api, line_items=line(thing))["id"]
    assert stock_of(engine, thing) == 10
    assert queued(engine, hooks) == sorted(
        topic("order", "created", order) + actions("order", order, "shop_new_order")
    )


def test_order_create_with_status_and_payment_is_one_created_event(
    api: TestApp, engine: sa.Engine
) -> None:
    thing = stocked(engine)
    hooks = watch(api, *status_topics(("pending", "processing")))
    order = create_order(
        api, status="processing", line_items=line(thing, 2), payment_details=PAYMENT
    )
    assert order["status"] == "processing"
    assert stock_of(engine, thing) == 8
    order_id = order["id"]
    # already processing: the payment completes nothing (the original's valid statuses)
    assert queued(engine, hooks) == sorted(
        topic("order", "created", order_id)
        + actions("order", order_id, "shop_new_order")
        + moved(order_id, "pending", "processing")
        + actions("product", thing, "shop_product_set_stock")
    )
    assert [row["topic"] for row in rows(engine)].count("order.created") == 1


def test_order_create_paid_completes_the_payment(api: TestApp, engine: sa.Engine) -> None:
    thing = stocked(engine)
    hooks = watch(api, *status_topics(("pending", "processing")))
    order = create_order(api, line_items=line(thing), payment_details=PAYMENT)
    assert order["status"] == "processing"
    order_id = order["id"]
    assert queued(engine, hooks) == sorted(
        topic("order", "created", order_id)
        + actions("order", order_id, "shop_new_order", "shop_payment_complete")
        + moved(order_id, "pending", "processing")
        + actions("product", thing, "shop_product_set_stock")
    )


def test_order_of_a_variation_moves_its_stock(api: TestApp, engine: sa.Engine) -> None:
    factory = CatalogFactory(engine)
    parent = factory.product("Shirt", type="variable")
    blue = factory.variation(
        parent, {"color": "blue"}, regular_price="11", manage_stock=True, stock_quantity=6
    )
    hooks = watch(api, *status_topics(("pending", "on-hold")))
    order = create_order(
        api,
        status="on-hold",
        line_items=[{"product_id": parent, "variations": {"color": "blue"}, "quantity": 2}],
    )
    order_id = order["id"]
    assert order["line_items"][0]["product_id"] == blue
    assert stock_of(engine, blue) == 4
    assert queued(engine, hooks) == sorted(
        topic("order", "created", order_id)
        + actions("order", order_id, "shop_new_order")
        + moved(order_id, "pending", "on-hold")
        + actions("product", blue, "shop_variation_set_stock")
    )


def test_order_edit(api: TestApp, engine: sa.Engine) -> None:
    thing = stocked(engine)
    noted, same_status, completed, paid, cancelled = (
        create_order(api, line_items=line(thing))["id"] for _ in range(5)
    )
    edit_order(api, cancelled, status="processing")
    assert stock_of(engine, thing) == 9
    hooks = watch(
        api,
        *status_topics(
            ("pending", "completed"), ("pending", "processing"), ("processing", "cancelled")
        ),
    )
    edit_order(api, noted, note="Leave at the door")
    edit_order(api, same_status, status="pending")
    edit_order(api, completed, status="completed")
    assert edit_order(api, paid, payment_details=PAYMENT)["status"] == "processing"
    edit_order(api, cancelled, status="cancelled")
    assert stock_of(engine, thing) == 8  # -1 completed, -1 paid, +1 cancelled
    updated = ("shop_update_order",)
    assert queued(engine, hooks) == sorted(
        topic("order", "updated", noted)
        + actions("order", noted, *updated)
        + topic("order", "updated", same_status)
        + actions("order", same_status, *updated)
        + topic("order", "updated", completed)
        + actions("order", completed, *updated)
        + moved(completed, "pending", "completed")
        + topic("order", "updated", paid)
        + actions("order", paid, "shop_payment_complete", *updated)
        + moved(paid, "pending", "processing")
        + topic("order", "updated", cancelled)
        + actions("order", cancelled, *updated)
        + moved(cancelled, "processing", "cancelled")
        # three moves of one product in three requests: one pending delivery (merged)
        + actions("product", thing, "shop_product_set_stock")
    )


def test_order_trash_and_forced_delete(api: TestApp, engine: sa.Engine) -> None:
    trashed, in_trash, forced, forced_from_trash = (create_order(api)["id"] for _ in range(4))
    for order_id in (in_trash, forced_from_trash):
        api.delete(f"{ORDERS}/{order_id}", status=202)
    hooks = watch(api)
    assert api.delete(f"{ORDERS}/{trashed}", status=202).json == {"message": "Deleted order"}
    api.delete(f"{ORDERS}/{in_trash}", status=202)  # already there: no change, no event
    api.delete(f"{ORDERS}/{forced}?force=true", status=200)
    api.delete(f"{ORDERS}/{forced_from_trash}?force=true", status=200)
    assert order_row(engine, trashed)["status"] == "trash"
    assert queued(engine, hooks) == sorted(
        topic("order", "deleted", trashed) + actions("order", trashed, "shop_trash_order")
    )


def test_order_restore(api: TestApp, engine: sa.Engine) -> None:
    back, moved_on = (create_order(api, status="processing")["id"] for _ in range(2))
    for order_id in (back, moved_on):
        api.delete(f"{ORDERS}/{order_id}", status=202)
    hooks = watch(api, *status_topics(("processing", "completed"), ("trash", "processing")))
    assert edit_order(api, back, status="processing")["status"] == "processing"
    assert edit_order(api, moved_on, status="completed")["status"] == "completed"
    assert queued(engine, hooks) == sorted(
        topic("order", "restored", back)
        + actions("order", back, "shop_update_order")
        + topic("order", "restored", moved_on)
        + actions("order", moved_on, "shop_update_order")
        + moved(moved_on, "processing", "completed")
    )


def test_refunds(api: TestApp, engine: sa.Engine) -> None:
    thing = stocked(engine)
    created, edited, deleted, restocked = (
        create_order(api, status="processing", line_items=line(thing, 2))["id"] for _ in range(4)
    )
    assert stock_of(engine, thing) == 2
    refund = {"order_refund": {"amount": "5"}}
    edited_refund = api.post_json(refunds_url(edited), refund, status=201).json["order_refund"]
    deleted_refund = api.post_json(refunds_url(deleted), refund, status=201).json["order_refund"]
    [item] = api.get(f"{ORDERS}/{restocked}").json["order"]["line_items"]
    hooks = watch(api)
    api.post_json(refunds_url(created), refund, status=201)
    body = {"order_refund": {"reason": "Late"}}
    api.put_json(f"{refunds_url(edited)}/{edited_refund['id']}", body, status=200)
    api.delete(f"{refunds_url(deleted)}/{deleted_refund['id']}", status=200)
    restock = {
        "amount": "10",
        "line_items": {str(item["id"]): {"qty": 1, "refund_total": "10"}},
        "restock_items": True,
    }
    api.post_json(refunds_url(restocked), {"order_refund": restock}, status=201)
    assert stock_of(engine, thing) == 3
    assert queued(engine, hooks) == sorted(
        topic("order", "updated", created)
        + actions("order", created, "shop_refund_created", "shop_order_refunded")
        + topic("order", "updated", edited)
        + topic("order", "updated", deleted)
        + actions("order", deleted, "shop_refund_deleted")
        + topic("order", "updated", restocked)
        + actions("order", restocked, "shop_refund_created", "shop_order_refunded")
        + actions("product", thing, "shop_product_set_stock")
    )


def test_a_full_refund_fires_the_status_change(api: TestApp, engine: sa.Engine) -> None:
    """A refund of what is left moves the order to ``refunded`` (decisions.md §7): a status
    change, which raises the status hooks like any other."""
    thing = stocked(engine)
    order_id = create_order(api, status="processing", line_items=line(thing))["id"]
    hooks = watch(api, *status_topics(("processing", "refunded")))
    api.post_json(refunds_url(order_id), {"order_refund": {"amount": "10"}}, status=201)
    assert order_row(engine, order_id)["status"] == "refunded"
    assert queued(engine, hooks) == sorted(
        topic("order", "updated", order_id)
        + actions("order", order_id, "shop_refund_created", "shop_order_refunded")
        + moved(order_id, "processing", "refunded")
    )


def test_edit_to_refunded_refunds_the_rest(api: TestApp, engine: sa.Engine) -> None:
    thing = stocked(engine)
    order_id = create_order(api, status="processing", line_items=line(thing))["id"]
    hooks = watch(api, *status_topics(("processing", "refunded")))
    assert edit_order(api, order_id, status="refunded")["status"] == "refunded"
    assert queued(engine, hooks) == sorted(
        topic("order", "updated", order_id)
        + actions(
            "order",
            order_id,
            "shop_update_order",
            "shop_refund_created",
            "shop_order_refunded",
        )
        + moved(order_id, "processing", "refunded")
    )


def test_order_notes_fire_nothing(api: TestApp, engine: sa.Engine) -> None:
    order_id = create_order(api)["id"]
    hooks = watch(api)
    notes = f"{ORDERS}/{order_id}/notes"
    body = {"order_note": {"note": "Called the customer", "customer_note": True}}
    note = api.post_json(notes, body, status=201).json["order_note"]
    api.put_json(f"{notes}/{note['id']}", {"order_note": {"note": "Twice"}}, status=200)
    api.delete(f"{notes}/{note['id']}", status=200)
    assert queued(engine, hooks) == []


# --- who gets a delivery


def test_only_active_webhooks_get_deliveries(api: TestApp, engine: sa.Engine) -> None:
    hooks = subscribe(api, "order.created")
    paused = subscribe(api, "order.created")["order.created"]
    disabled = subscribe(api, "order.created")["order.created"]
    reactivated = subscribe(api, "order.created")["order.created"]
    set_status(api, paused, "paused")
    set_status(api, disabled, "disabled")
    set_status(api, reactivated, "paused")
    set_status(api, reactivated, "active")
    order_id = create_order(api)["id"]
    found = rows(engine)
    for row in found:
        check_fresh(row)
    assert sorted(
        (r["webhook_id"], r["topic"], r["resource"], r["resource_id"]) for r in found
    ) == [
        (hooks["order.created"], "order.created", "order", order_id),
        (reactivated, "order.created", "order", order_id),
    ]
    assert found[0]["delivery_id"] != found[1]["delivery_id"]


def test_topics_are_matched_exactly(api: TestApp, engine: sa.Engine) -> None:
    """A webhook on another topic of the same resource, or on a hook the change did not raise,
    gets nothing; a topic given in capitals is stored (and matched) lower-cased."""
    subscribe(api, "order.updated", "action.shop_update_order", "coupon.created")
    shouting = subscribe(api, "ORDER.Created")["ORDER.Created"]
    order_id = create_order(api)["id"]
    [row] = rows(engine)
    check_fresh(row)
    assert (row["webhook_id"], row["topic"], row["resource_id"]) == (
        shouting,
        "order.created",
        order_id,
    )


# --- bulk


def test_orders_bulk_fires_per_element(api: TestApp, engine: sa.Engine) -> None:
    thing = stocked(engine)
    edited = create_order(api)["id"]
    unpaid = create_order(api, line_items=line(thing))["id"]
    hooks = watch(api, *status_topics(("pending", "processing")))
    body = {
        "orders": [
            {"line_items": line(thing)},
            {"id": edited, "note": "edited"},
            # fails on its last line (an unknown product)
            {"status": "processing", "line_items": [*line(thing), *line(9999)]},
            # fails after the payment completed (status, stock and hooks recorded)
            {"id": unpaid, "payment_details": PAYMENT, "status": "nope"},
        ]
    }
    results = api.post_json(ORDERS_BULK, body, status=200).json["orders"]
    created = results[0]["id"]
    assert results[1]["id"] == edited
    assert results[2]["error"]["code"] == "shop_api_invalid_product"
    assert results[3]["error"]["code"] == "shop_api_invalid_order_status"
    assert order_row(engine, unpaid)["status"] == "pending"
    assert stock_of(engine, thing) == 10
    assert queued(engine, hooks) == sorted(
        topic("order", "created", created)
        + actions("order", created, "shop_new_order")
        + topic("order", "updated", edited)
        + actions("order", edited, "shop_update_order")
    )


def test_orders_bulk_merges_one_record_per_request(api: TestApp, engine: sa.Engine) -> None:
    order_id = create_order(api)["id"]
    hooks = watch(api, *status_topics(("pending", "on-hold"), ("on-hold", "completed")))
    body = {"orders": [{"id": order_id, "status": "on-hold"}, {"id": order_id, "note": "x"}]}
    api.post_json(ORDERS_BULK, body, status=200)
    body = {"orders": [{"id": order_id, "status": "completed"}]}
    api.put_json(ORDERS_BULK, body, status=200)
    # the second request's events merge into the first one's pending deliveries
    assert queued(engine, hooks) == sorted(
        topic("order", "updated", order_id)
        + actions("order", order_id, "shop_update_order")
        + moved(order_id, "pending", "on-hold")
        + actions(
            "order",
            order_id,
            "shop_order_status_completed",
            "shop_order_status_on_hold_to_completed",
        )
    )


def test_products_bulk_fires_per_element(api: TestApp, engine: sa.Engine) -> None:
    by_id = create_product(api, title="By id")["id"]
    by_sku = create_product(api, title="By SKU", sku="KNOWN")["id"]
    hooks = watch(api)
    body = {
        "products": [
            {"title": "New"},
            {"id": by_id, "regular_price": "4"},
            {"sku": "KNOWN", "managing_stock": True, "stock_quantity": 3},
            # fails on its second variation, after the first one was written
            {
                "title": "Broken",
                "type": "variable",
                "attributes": SIZES,
                "variations": [
                    {"regular_price": "1", "attributes": size("S")},
                    {"regular_price": "nope", "attributes": size("M")},
                ],
            },
            {"title": "Bad type", "type": "nope"},
        ]
    }
    results = api.post_json(f"{PRODUCTS}/bulk", body, status=200).json["products"]
    created = results[0]["id"]
    assert [r["id"] for r in results[1:3]] == [by_id, by_sku]
    assert "error" in results[3] and "error" in results[4]
    assert queued(engine, hooks) == sorted(
        topic("product", "created", created)
        + actions("product", created, "shop_new_product")
        + topic("product", "updated", by_id)
        + actions("product", by_id, "shop_update_product")
        + topic("product", "updated", by_sku)
        + actions("product", by_sku, "shop_update_product", "shop_product_set_stock")
    )


# --- a failed request queues nothing


def test_failed_requests_queue_nothing(
    api: TestApp, customer_api: TestApp, engine: sa.Engine
) -> None:
    thing = stocked(engine)
    unpaid = create_order(api, line_items=line(thing))["id"]
    product_id = create_product(api, title="Kept", sku="TAKEN")["id"]
    hooks = watch(api, *status_topics(("pending", "processing")))
    failures = [
        # after the payment completed, the status moved and the stock moved
        api.put_json(
            f"{ORDERS}/{unpaid}",
            {"order": {"payment_details": PAYMENT, "status": "nope"}},
            status=400,
        ),
        # an unknown product on its last line
        api.post_json(
            ORDERS,
            {"order": {"status": "processing", "line_items": [*line(thing), *line(9999)]}},
            status=400,
        ),
        api.post_json(refunds_url(unpaid), {"order_refund": {"amount": "99"}}, status=400),
        customer_api.put_json(f"{ORDERS}/{unpaid}", {"order": {"note": "x"}}, status=401),
        # after the first variation was written
        api.post_json(
            PRODUCTS,
            {
                "product": {
                    "title": "Tee",
                    "type": "variable",
                    "attributes": SIZES,
                    "variations": [
                        {"regular_price": "1", "attributes": size("S")},
                        {"regular_price": "nope", "attributes": size("M")},
                    ],
                }
            },
            status=400,
        ),
        api.put_json(
            f"{PRODUCTS}/{product_id}",
            {"product": {"title": "Renamed", "type": "nope"}},
            status=400,
        ),
        customer_api.delete(f"{PRODUCTS}/{product_id}", status=401),
        api.post_json(ORDERS_BULK, {"orders": {"not": "a list"}}, status=400),
    ]
    assert [error(response)[0] for response in failures] == [400, 400, 400, 401, 400, 400, 401, 400]
    assert order_row(engine, unpaid)["status"] == "pending"
    assert stock_of(engine, thing) == 10
    assert product_row(engine, product_id)["title"] == "Kept"
    assert queued(engine, hooks) == []
    # reads queue nothing either
    api.get(f"{ORDERS}/{unpaid}")
    api.get(PRODUCTS)
    assert queued(engine, hooks) == []


# --- merging pending deliveries


def test_two_edits_of_one_order_merge(api: TestApp, engine: sa.Engine) -> None:
    order_id, other = (create_order(api)["id"] for _ in range(2))
    hooks = subscribe(api, "order.updated", "order.created")
    second = subscribe(api, "order.updated")["order.updated"]
    edit_order(api, order_id, note="one")
    first_rows = rows(engine)
    edit_order(api, order_id, note="two")
    edit_order(api, other, note="three")
    found = rows(engine)
    for row in found:
        check_fresh(row)
    assert [(r["webhook_id"], r["topic"], r["resource_id"]) for r in found] == [
        (hooks["order.updated"], "order.updated", order_id),
        (second, "order.updated", order_id),
        (hooks["order.updated"], "order.updated", other),
        (second, "order.updated", other),
    ]
    # the merged deliveries are the first edit's rows, untouched
    assert found[:2] == first_rows


def test_merge_takes_only_pending_unclaimed_deliveries(api: TestApp, engine: sa.Engine) -> None:
    order_id = create_order(api)["id"]
    hooks = subscribe(api, "order.updated", "order.created")
    created = create_order(api)["id"]
    edit_order(api, created, note="after create")  # another topic: a delivery of its own
    edit_order(api, order_id, note="one")
    [first_created, first_edit, first] = rows(engine)
    assert (first_created["topic"], first_edit["topic"]) == ("order.created", "order.updated")
    assert first_edit["resource_id"] == created and first["resource_id"] == order_id

    # delivered: the next edit queues a new delivery
    update(engine, webhook_deliveries, first["id"], state="delivered", attempts=1)
    edit_order(api, order_id, note="two")
    *_, second = rows(engine)
    assert second["id"] > first["id"] and second["delivery_id"] != first["delivery_id"]

    # claimed by a worker (lease in the future): not merged into either
    lease = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(minutes=5)
    update(engine, webhook_deliveries, second["id"], claim_token="w" * 32, claimed_until=lease)
    edit_order(api, order_id, note="three")
    *_, third = rows(engine)
    assert third["id"] > second["id"]
    check_fresh(third)

    # a lease that ran out: the delivery takes the next event in
    expired = dt.datetime(2000, 1, 1)
    update(engine, webhook_deliveries, third["id"], claim_token="x" * 32, claimed_until=expired)
    edit_order(api, order_id, note="four")
    found = rows(engine)
    assert [r["id"] for r in found] == [
        first_created["id"],
        first_edit["id"],
        first["id"],
        second["id"],
        third["id"],
    ]
    assert all(r["webhook_id"] == hooks[r["topic"]] for r in found)


# --- customers, from the CLI


@pytest.fixture
def cli_ini(tmp_path: pathlib.Path, database_url: str) -> pathlib.Path:
    """An ini for the console script, on the test database."""
    path = tmp_path / "events.ini"
    url = database_url.replace("%", "%%")
    path.write_text(f"[app:main]\nuse = egg:shopsvc\nsqlalchemy.url = {url}\n")
    return path


def create_user(
    ini: pathlib.Path, capsys: pytest.CaptureFixture[str], login: str, role: str
) -> int:
    argv = [str(ini), "create-user", "--login", login, "--email", f"{login}@example.com"]
    capsys.readouterr()
    assert cli_main([*argv, "--role", role]) == 0
    [printed] = capsys.readouterr().out.splitlines()
    record = json.loads(printed)
    assert record["role"] == role
    return int(record["id"])


def test_create_user_of_a_customer_fires_customer_created(
    api: TestApp,
    engine: sa.Engine,
    cli_ini: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    hooks = watch(api)
    create_user(cli_ini, capsys, "boss", "administrator")
    create_user(cli_ini, capsys, "clerk", "shop_manager")
    assert queued(engine, hooks) == []
    customer = create_user(cli_ini, capsys, "bob", "customer")
    assert queued(engine, hooks, source_url="http://localhost") == sorted(
        topic("customer", "created", customer)
        + actions("customer", customer, "shop_created_customer", "shop_new_customer")
    )
