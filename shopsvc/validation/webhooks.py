"""Write fields of a webhook: ``topic``, ``delivery_url``, ``name``, ``secret``, ``status``.

The spec's own checks come first and in its order (topic, then delivery URL); the remaining
fields are type-checked afterwards. On edit a field is applied only when it is non-empty.
"""

from __future__ import annotations

import re
from typing import Any

import colander

from shopsvc.domain.topics import Topic, parse_topic
from shopsvc.domain.urls import is_http_url
from shopsvc.domain.webhooks import STATUSES
from shopsvc.errors import ApiError
from shopsvc.validation.types import Text, deserialize, optional

CONTROL = re.compile(r"[\x00-\x1f\x7f]")
URL_MESSAGE = "Webhook delivery URL must be a valid URL starting with http:// or https://"


class _Extras(colander.MappingSchema):
    name = optional(Text())
    secret = optional(Text())
    status = optional(Text())


def _given(value: Any) -> bool:
    """The legacy "non-empty" test for optional webhook fields."""
    return value not in (None, "", 0, False, [], {}, "0")


def _topic(value: Any, message: str) -> Topic:
    topic = parse_topic(value) if isinstance(value, str) else None
    if topic is None:
        raise ApiError("shop_api_invalid_webhook_topic", message, 400)
    return topic


def _delivery_url(value: Any) -> str:
    """A valid ``http://`` or ``https://`` URL; control characters (a NUL, which PostgreSQL
    cannot store, among them) make it invalid, as PHP's URL validator says."""
    if (
        not isinstance(value, str)
        or CONTROL.search(value.strip())
        or not is_http_url(value.strip())
    ):
        raise ApiError("shop_api_invalid_webhook_delivery_url", URL_MESSAGE, 400)
    return value.strip()


def clean_create(data: dict[str, Any]) -> dict[str, Any]:
    """``{topic: Topic, delivery_url, name?, secret?}`` for a new webhook."""
    topic = _topic(data.get("topic"), "Webhook topic is required and must be valid.")
    delivery_url = _delivery_url(data.get("delivery_url"))
    extras = deserialize(_Extras(), data, "webhook")
    clean = {"topic": topic, "delivery_url": delivery_url}
    for field in ("name", "secret"):
        if _given(extras.get(field)):
            clean[field] = extras[field]
    return clean


def clean_edit(data: dict[str, Any]) -> dict[str, Any]:
    """The non-empty fields of an edit, checked: topic, delivery_url, secret, status, name."""
    clean: dict[str, Any] = {}
    if _given(data.get("topic")):
        clean["topic"] = _topic(data["topic"], "Webhook topic must be valid.")
    if _given(data.get("delivery_url")):
        clean["delivery_url"] = _delivery_url(data["delivery_url"])
    extras = deserialize(_Extras(), data, "webhook")
    if _given(extras.get("status")):
        status = extras["status"].strip().lower()
        if status not in STATUSES:
            raise ApiError(
                "shop_api_invalid_webhook_status",
                f"Webhook status must be one of {', '.join(STATUSES)}.",
                400,
            )
        clean["status"] = status
    for field in ("name", "secret"):
        if _given(extras.get(field)):
            clean[field] = extras[field]
    return clean
