"""Write fields of a webhook: ``topic``, ``delivery_url``, ``name``, ``secret``, ``status``.

The spec's own checks come first and in its order (topic, then delivery URL); the remaining
fields are type-checked afterwards. On edit a field is applied only when it is non-empty.

With ``shopsvc.webhooks.refuse_private_delivery_urls = true`` (off by default: decisions.md
accepts one), a delivery URL the private-target policy refuses is an invalid delivery URL too
(:data:`PRIVATE_MESSAGE`). Whether it is one needs a name lookup, which the view makes before
the request's transaction begins (``shopsvc.delivery.targets``); it hands the URLs found refused
in as ``refused``, and the refusal is reported here, at the delivery URL's place in the order.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any

import colander

from shopsvc.domain.topics import Topic, parse_topic
from shopsvc.domain.urls import is_http_url
from shopsvc.domain.webhooks import STATUSES
from shopsvc.errors import ApiError
from shopsvc.validation.types import Text, deserialize, optional

CONTROL = re.compile(r"[\x00-\x1f\x7f]")
URL_MESSAGE = "Webhook delivery URL must be a valid URL starting with http:// or https://"
PRIVATE_MESSAGE = (
    "Webhook delivery URL points to a private or reserved network address; set"
    " shopsvc.outbound.allow_private_targets = true to allow it, or"
    " shopsvc.webhooks.refuse_private_delivery_urls = false to accept it (its deliveries fail)."
)


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


def delivery_url_candidate(data: Any) -> str | None:
    """The delivery URL of a webhook object when it is a valid one (what the policy is asked
    about before the transaction), else None."""
    value = data.get("delivery_url") if isinstance(data, dict) else None
    if not isinstance(value, str) or CONTROL.search(value.strip()):
        return None
    return value.strip() if is_http_url(value.strip()) else None


def _delivery_url(value: Any, refused: Container[str]) -> str:
    """A valid ``http://`` or ``https://`` URL; control characters (a NUL, which PostgreSQL
    cannot store, among them) make it invalid, as PHP's URL validator says. One of
    ``refused`` is invalid too: the private-target policy refuses it."""
    url = delivery_url_candidate({"delivery_url": value})
    if url is None:
        raise ApiError("shop_api_invalid_webhook_delivery_url", URL_MESSAGE, 400)
    if url in refused:
        raise ApiError("shop_api_invalid_webhook_delivery_url", PRIVATE_MESSAGE, 400)
    return url


def clean_create(data: dict[str, Any], refused: Container[str] = ()) -> dict[str, Any]:
    """``{topic: Topic, delivery_url, name?, secret?}`` for a new webhook; a delivery URL in
    ``refused`` is refused."""
    topic = _topic(data.get("topic"), "Webhook topic is required and must be valid.")
    delivery_url = _delivery_url(data.get("delivery_url"), refused)
    extras = deserialize(_Extras(), data, "webhook")
    clean = {"topic": topic, "delivery_url": delivery_url}
    for field in ("name", "secret"):
        if _given(extras.get(field)):
            clean[field] = extras[field]
    return clean


def clean_edit(data: dict[str, Any], refused: Container[str] = ()) -> dict[str, Any]:
    """The non-empty fields of an edit, checked: topic, delivery_url (not one of ``refused``),
    secret, status, name."""
    clean: dict[str, Any] = {}
    if _given(data.get("topic")):
        clean["topic"] = _topic(data["topic"], "Webhook topic must be valid.")
    if _given(data.get("delivery_url")):
        clean["delivery_url"] = _delivery_url(data["delivery_url"], refused)
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
