"""Webhooks through HTTP: every route, field, default, state, check order and error code."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql.tables import webhooks
from tests.helpers.api import TIMESTAMP, authorised, errors
from tests.helpers.receivers import Receiver
from tests.helpers.sql import one_row
from tests.helpers.webhooks import URL
from tests.helpers.webhooks import create_webhook as create

DEFAULT_NAME = re.compile(r"Webhook created on [A-Z][a-z]{2} \d{2}, \d{4} @ \d{2}:\d{2} [AP]M")


def stored(engine: sa.Engine, webhook_id: int) -> dict[str, Any]:
    return one_row(engine, webhooks, webhook_id)


# --- create


def test_create_returns_the_record_with_defaults(api: Any, engine: sa.Engine) -> None:
    response = api.post_json(
        URL, {"webhook": {"topic": "Order.Created", "delivery_url": "http://127.0.0.1:9/x"}}
    )
    assert response.status_int == 201
    assert response.headers["Content-Type"] == "application/json; charset=UTF-8"
    webhook = response.json["webhook"]
    assert list(webhook) == [
        "id",
        "name",
        "status",
        "topic",
        "resource",
        "event",
        "hooks",
        "delivery_url",
        "created_at",
        "updated_at",
    ]
    assert webhook["id"] == 1
    assert DEFAULT_NAME.fullmatch(webhook["name"])
    assert webhook["status"] == "active"
    assert webhook["topic"] == "order.created"
    assert webhook["resource"] == "order"
    assert webhook["event"] == "created"
    assert webhook["hooks"] == ["shop_process_shop_order_meta", "shop_new_order"]
    assert webhook["delivery_url"] == "http://127.0.0.1:9/x"
    assert TIMESTAMP.fullmatch(webhook["created_at"])
    assert webhook["updated_at"] == webhook["created_at"]
    row = stored(engine, 1)
    assert len(row["secret"]) == 50
    assert row["api_version"] == "legacy_v3"


def test_create_keeps_name_and_secret_and_never_returns_the_secret(
    api: Any, engine: sa.Engine
) -> None:
    webhook = create(api, name="Orders to ERP", secret="s3cret", status="paused")
    assert webhook["name"] == "Orders to ERP"
    assert webhook["status"] == "active"
    assert "secret" not in webhook
    assert stored(engine, webhook["id"])["secret"] == "s3cret"
    assert "secret" not in api.get(f"{URL}/{webhook['id']}").json["webhook"]


def test_generated_secrets_differ(api: Any, engine: sa.Engine) -> None:
    first, second = create(api), create(api, secret="")
    assert stored(engine, first["id"])["secret"] != stored(engine, second["id"])["secret"]
    assert len(stored(engine, second["id"])["secret"]) == 50


@pytest.mark.parametrize(
    ("topic", "resource", "event", "hooks"),
    [
        (
            "order.updated",
            "order",
            "updated",
            ["shop_process_shop_order_meta", "shop_update_order"],
        ),
        ("order.deleted", "order", "deleted", ["trash_post"]),
        ("order.restored", "order", "restored", ["untrashed_post"]),
        (
            "product.created",
            "product",
            "created",
            ["shop_process_product_meta", "shop_new_product", "shop_new_product_variation"],
        ),
        (
            "product.updated",
            "product",
            "updated",
            ["shop_process_product_meta", "shop_update_product", "shop_update_product_variation"],
        ),
        (
            "coupon.created",
            "coupon",
            "created",
            ["shop_process_shop_coupon_meta", "shop_new_coupon"],
        ),
        (
            "coupon.updated",
            "coupon",
            "updated",
            ["shop_process_shop_coupon_meta", "shop_update_coupon"],
        ),
        (
            "customer.created",
            "customer",
            "created",
            ["user_register", "shop_created_customer", "shop_new_customer"],
        ),
        ("customer.updated", "customer", "updated", ["profile_update", "shop_update_customer"]),
        ("customer.deleted", "customer", "deleted", ["delete_user"]),
        ("PRODUCT.Deleted", "product", "deleted", ["trash_post"]),
        ("action.shop_order_exported", "action", "shop_order_exported", ["shop_order_exported"]),
    ],
)
def test_topics_and_their_hooks(
    api: Any, topic: str, resource: str, event: str, hooks: list[str]
) -> None:
    webhook = create(api, topic=topic)
    assert webhook["topic"] == topic.lower()
    assert (webhook["resource"], webhook["event"], webhook["hooks"]) == (resource, event, hooks)


@pytest.mark.parametrize(
    "topic",
    [
        "",
        "order",
        "order.",
        "order.paid",
        "refund.created",
        "action.foo",
        "action.shop_",
        "action.shop_Bad-Name",
        "action.shop_login_credentials",
        "action.shop_product_csv_importer_check_import_file_path",
        "action.shop_webhook_should_deliver",
        123,
        None,
    ],
)
def test_invalid_topic_on_create(api: Any, topic: Any) -> None:
    body = {"webhook": {"topic": topic, "delivery_url": "http://example.com/"}}
    response = api.post_json(URL, body, status=400)
    assert errors(response) == [
        {
            "code": "shop_api_invalid_webhook_topic",
            "message": "Webhook topic is required and must be valid.",
        }
    ]


@pytest.mark.parametrize(
    "url",
    [
        None,
        "",
        "example.com",
        "ftp://example.com/",
        "http://",
        "http://exa mple.com/",
        "https://:80/",
    ],
)
def test_invalid_delivery_url_on_create(api: Any, url: Any) -> None:
    body = {"webhook": {"topic": "order.created", "delivery_url": url}}
    response = api.post_json(URL, body, status=400)
    assert errors(response) == [
        {
            "code": "shop_api_invalid_webhook_delivery_url",
            "message": "Webhook delivery URL must be a valid URL starting with http:// or https://",
        }
    ]


def test_create_checks_run_in_the_spec_order(api: Any, customer_api: Any) -> None:
    # envelope before capability
    response = customer_api.post_json(URL, {"hook": {}}, status=400)
    assert errors(response)[0]["code"] == "shop_api_missing_webhook_data"
    assert errors(response)[0]["message"] == "No webhook data specified to create webhook."
    # capability before topic
    response = customer_api.post_json(URL, {"webhook": {"topic": "bad"}}, status=401)
    assert errors(response) == [
        {
            "code": "shop_api_user_cannot_create_webhooks",
            "message": "You do not have permission to create webhooks.",
        }
    ]
    # topic before delivery URL
    response = api.post_json(URL, {"webhook": {"topic": "bad", "delivery_url": "bad"}}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_webhook_topic"


@pytest.mark.parametrize("body", [b"", b"  ", b'{"webhook": null}', b"[]", b'"webhook"'])
def test_missing_envelope(api: Any, body: bytes) -> None:
    response = api.post(URL, body, content_type="application/json", status=400)
    assert errors(response)[0]["code"] == "shop_api_missing_webhook_data"


def test_envelope_that_is_not_an_object(api: Any) -> None:
    response = api.post_json(URL, {"webhook": ["order.created"]}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"


def test_wrong_type_of_name_is_an_invalid_param(api: Any) -> None:
    body = {"topic": "order.created", "delivery_url": "http://example.com/", "name": ["x"]}
    response = api.post_json(URL, {"webhook": body}, status=400)
    assert errors(response) == [
        {
            "code": "shop_api_invalid_param",
            "message": "Invalid parameter webhook.name: must be a string.",
        }
    ]
    assert api.get(URL + "/count").json == {"count": 0}


# --- the ping


def test_ping_is_sent_before_the_response(api: Any, receiver: Receiver) -> None:
    webhook = create(api, delivery_url=receiver.url)
    assert len(receiver.requests) == 1
    ping = receiver.requests[0]
    assert ping.path == "/hook"
    assert ping.body == f"webhook_id={webhook['id']}".encode()
    assert ping.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert ping.headers["User-Agent"] == "Shop/0.1.0 Hookshot (shopsvc)"


def test_no_ping_on_edit(api: Any, receiver: Receiver) -> None:
    webhook = create(api, delivery_url=receiver.url)
    api.put_json(f"{URL}/{webhook['id']}", {"webhook": {"name": "renamed"}})
    assert len(receiver.requests) == 1


def test_failing_receiver_still_gives_201(api: Any) -> None:
    with Receiver(default=500) as server:
        webhook = create(api, delivery_url=server.url)
        assert len(server.requests) == 1
        assert api.get(f"{URL}/{webhook['id']}").json["webhook"]["status"] == "active"


def test_private_targets_are_accepted_but_not_pinged(
    build_app: Any, admin: Any, receiver: Receiver
) -> None:
    strict = authorised(build_app(**{"shopsvc.outbound.allow_private_targets": "false"}), admin)
    webhook = create(strict, delivery_url=receiver.url)
    assert webhook["delivery_url"] == receiver.url
    assert receiver.requests == []


# --- read


def test_get_one(api: Any) -> None:
    webhook = create(api, name="one")
    assert api.get(f"{URL}/{webhook['id']}").json == {"webhook": webhook}


@pytest.mark.parametrize("segment", ["0", "00", "abc", "-1"])
def test_get_invalid_id(api: Any, segment: str) -> None:
    response = api.get(f"{URL}/{segment}", status=404)
    assert errors(response) == [
        {"code": "shop_api_invalid_webhook_id", "message": "Invalid webhook ID."}
    ]


def test_get_missing(api: Any, customer_api: Any) -> None:
    for client in (api, customer_api):  # existence is checked before the capability
        response = client.get(f"{URL}/42", status=404)
        assert errors(response) == [
            {
                "code": "shop_api_no_webhook_found",
                "message": "No webhook found with the ID equal to 42",
            }
        ]


def test_get_huge_id_is_not_found(api: Any) -> None:
    response = api.get(f"{URL}/99999999999999999999999", status=404)
    assert errors(response)[0]["code"] == "shop_api_no_webhook_found"


@pytest.mark.parametrize(
    ("method", "action"), [("get", "read"), ("put_json", "edit"), ("delete", "delete")]
)
def test_capability_on_single_routes(api: Any, customer_api: Any, method: str, action: str) -> None:
    webhook = create(api)
    args = ({"webhook": {"name": "x"}},) if method == "put_json" else ()
    response = getattr(customer_api, method)(f"{URL}/{webhook['id']}", *args, status=401)
    assert errors(response) == [
        {
            "code": f"shop_api_user_cannot_{action}_webhook",
            "message": f"You do not have permission to {action} this webhook.",
        }
    ]


# --- edit


def test_edit_applies_only_non_empty_fields(api: Any, engine: sa.Engine) -> None:
    webhook = create(api, name="before", secret="old")
    body = {"webhook": {"name": "", "topic": "", "delivery_url": "", "secret": "", "status": ""}}
    edited = api.put_json(f"{URL}/{webhook['id']}", body).json["webhook"]
    # every field is as before; updated_at records the edit (and may be the next second)
    assert edited == {**webhook, "updated_at": edited["updated_at"]}
    assert stored(engine, webhook["id"])["secret"] == "old"


def test_edit_changes_fields(api: Any, engine: sa.Engine) -> None:
    webhook = create(api)
    body = {
        "webhook": {
            "name": "after",
            "topic": "Product.Updated",
            "delivery_url": "https://erp.example.com/hooks",
            "secret": "new",
            "status": "paused",
        }
    }
    edited = api.put_json(f"{URL}/{webhook['id']}", body).json["webhook"]
    assert edited == {
        **webhook,
        "name": "after",
        "status": "paused",
        "topic": "product.updated",
        "resource": "product",
        "event": "updated",
        "hooks": [
            "shop_process_product_meta",
            "shop_update_product",
            "shop_update_product_variation",
        ],
        "delivery_url": "https://erp.example.com/hooks",
        "updated_at": edited["updated_at"],
    }
    assert stored(engine, webhook["id"])["secret"] == "new"


@pytest.mark.parametrize("method", ["post_json", "patch_json"])
def test_edit_by_post_and_patch(api: Any, method: str) -> None:
    webhook = create(api)
    edited = getattr(api, method)(f"{URL}/{webhook['id']}", {"webhook": {"status": "disabled"}})
    assert edited.status_int == 200
    assert edited.json["webhook"]["status"] == "disabled"


def test_edit_to_active_resets_the_failure_count(api: Any, engine: sa.Engine) -> None:
    webhook = create(api)
    with engine.begin() as conn:
        conn.execute(
            sa.update(webhooks).where(webhooks.c.id == webhook["id"]).values(failure_count=5)
        )
    api.put_json(f"{URL}/{webhook['id']}", {"webhook": {"status": "active"}})
    assert stored(engine, webhook["id"])["failure_count"] == 0


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("status", "archived", "shop_api_invalid_webhook_status"),
        ("topic", "order.paid", "shop_api_invalid_webhook_topic"),
        ("delivery_url", "mailto:x@example.com", "shop_api_invalid_webhook_delivery_url"),
        ("name", {"x": 1}, "shop_api_invalid_param"),
    ],
)
def test_edit_refuses_bad_values(api: Any, field: str, value: Any, code: str) -> None:
    webhook = create(api)
    response = api.put_json(f"{URL}/{webhook['id']}", {"webhook": {field: value}}, status=400)
    assert errors(response)[0]["code"] == code
    assert api.get(f"{URL}/{webhook['id']}").json["webhook"] == webhook


def test_edit_topic_message(api: Any) -> None:
    webhook = create(api)
    response = api.put_json(f"{URL}/{webhook['id']}", {"webhook": {"topic": "x"}}, status=400)
    assert errors(response)[0]["message"] == "Webhook topic must be valid."


def test_edit_checks_envelope_before_id(api: Any, customer_api: Any) -> None:
    response = api.put_json(f"{URL}/0", {"other": {}}, status=400)
    assert errors(response) == [
        {
            "code": "shop_api_missing_webhook_data",
            "message": "No webhook data specified to edit webhook.",
        }
    ]
    response = customer_api.put_json(f"{URL}/0", {"webhook": {}}, status=404)
    assert errors(response)[0]["code"] == "shop_api_invalid_webhook_id"
    response = customer_api.put_json(f"{URL}/7", {"webhook": {}}, status=404)
    assert errors(response)[0]["code"] == "shop_api_no_webhook_found"


# --- delete


def test_delete(api: Any) -> None:
    webhook = create(api)
    response = api.delete(f"{URL}/{webhook['id']}")
    assert response.status_int == 200
    assert response.json == {"message": "Permanently deleted webhook"}
    assert errors(api.get(f"{URL}/{webhook['id']}", status=404))[0]["code"] == (
        "shop_api_no_webhook_found"
    )


def test_delete_missing(api: Any) -> None:
    assert errors(api.delete(f"{URL}/5", status=404))[0]["code"] == "shop_api_no_webhook_found"
    assert errors(api.delete(f"{URL}/0", status=404))[0]["code"] == "shop_api_invalid_webhook_id"


# --- list and count


def test_list_newest_first_with_headers(api: Any) -> None:
    made = [create(api, name=f"hook {n}") for n in range(3)]
    response = api.get(URL)
    assert response.json == {"webhooks": list(reversed(made))}
    assert response.headers["X-Shop-Total"] == "3"
    assert response.headers["X-Shop-TotalPages"] == "1"
    assert "Link" not in response.headers


def test_list_and_count_by_status(api: Any) -> None:
    active = create(api)
    paused = create(api)
    api.put_json(f"{URL}/{paused['id']}", {"webhook": {"status": "paused"}})
    listed = api.get(URL, {"status": "paused"}).json["webhooks"]
    assert [w["id"] for w in listed] == [paused["id"]]
    assert [w["id"] for w in api.get(URL, {"status": "active"}).json["webhooks"]] == [active["id"]]
    assert len(api.get(URL, {"status": "all"}).json["webhooks"]) == 2
    assert api.get(URL + "/count").json == {"count": 2}
    assert api.get(URL + "/count", {"status": "paused"}).json == {"count": 1}
    assert api.get(URL + "/count", {"status": "disabled"}).json == {"count": 0}
    count = api.get(URL + "/count")
    assert "X-Shop-Total" not in count.headers


@pytest.mark.parametrize("route", ["", "/count"])
def test_list_status_outside_the_four_values(api: Any, route: str) -> None:
    response = api.get(URL + route, {"status": "publish"}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"


def test_list_and_count_filters(api: Any) -> None:
    create(api, name="Orders to ERP")
    create(api, name="Stock sync")
    assert [w["name"] for w in api.get(URL, {"filter[q]": "erp"}).json["webhooks"]] == [
        "Orders to ERP"
    ]
    assert api.get(URL + "/count", {"filter[q]": "SYNC"}).json == {"count": 1}
    ordered = api.get(URL, {"filter[orderby]": "title", "filter[order]": "asc"}).json["webhooks"]
    assert [w["name"] for w in ordered] == ["Orders to ERP", "Stock sync"]


def test_list_capability(customer_api: Any) -> None:
    assert (
        errors(customer_api.get(URL, status=401))[0]["code"] == "shop_api_user_cannot_read_webhook"
    )
    response = customer_api.get(URL + "/count", status=401)
    assert errors(response) == [
        {
            "code": "shop_api_user_cannot_read_webhooks_count",
            "message": "You do not have permission to read the webhooks count.",
        }
    ]


# --- deliveries (deprecated)


def test_deliveries_list_is_always_empty(api: Any) -> None:
    webhook = create(api)
    response = api.get(f"{URL}/{webhook['id']}/deliveries")
    assert response.json == {"webhook_deliveries": []}
    assert response.headers["X-Shop-Total"] == "0"
    assert response.headers["X-Shop-TotalPages"] == "0"
    assert errors(api.get(f"{URL}/9/deliveries", status=404))[0]["code"] == (
        "shop_api_no_webhook_found"
    )


def test_single_delivery_is_never_found(api: Any, customer_api: Any) -> None:
    webhook = create(api)
    base = f"{URL}/{webhook['id']}/deliveries"
    assert errors(api.get(f"{base}/0", status=404)) == [
        {"code": "shop_api_invalid_webhook_delivery_id", "message": "Invalid webhook delivery ID."}
    ]
    assert errors(api.get(f"{base}/abc", status=404))[0]["code"] == (
        "shop_api_invalid_webhook_delivery_id"
    )
    assert errors(api.get(f"{base}/3", status=400)) == [
        {"code": "shop_api_invalid_webhook_delivery_id", "message": "Invalid webhook delivery."}
    ]
    assert errors(customer_api.get(f"{base}/3", status=401))[0]["code"] == (
        "shop_api_user_cannot_read_webhook"
    )
