"""Webhook topics: which are valid, and the resource, event and internal hooks each one names
(decisions.md §3 and §7 "Webhook delivery")."""

from __future__ import annotations

import re
from dataclasses import dataclass

RESOURCES = ("coupon", "customer", "order", "product")
EVENTS = ("created", "updated", "deleted", "restored")
ACTION_NAME = re.compile(r"shop_[a-z0-9_]+")
#: Length of the stored topic (``webhooks.topic``).
MAX_LENGTH = 200
FORBIDDEN_ACTIONS = frozenset(
    {
        "shop_login_credentials",
        "shop_product_csv_importer_check_import_file_path",
        "shop_webhook_should_deliver",
    }
)

_HOOKS: dict[str, tuple[str, ...]] = {
    "coupon.created": ("shop_process_shop_coupon_meta", "shop_new_coupon"),
    "coupon.updated": ("shop_process_shop_coupon_meta", "shop_update_coupon"),
    "customer.created": ("user_register", "shop_created_customer", "shop_new_customer"),
    "customer.updated": ("profile_update", "shop_update_customer"),
    "customer.deleted": ("delete_user",),
    "order.created": ("shop_process_shop_order_meta", "shop_new_order"),
    "order.updated": ("shop_process_shop_order_meta", "shop_update_order"),
    "product.created": (
        "shop_process_product_meta",
        "shop_new_product",
        "shop_new_product_variation",
    ),
    "product.updated": (
        "shop_process_product_meta",
        "shop_update_product",
        "shop_update_product_variation",
    ),
}
_EVENT_HOOKS: dict[str, tuple[str, ...]] = {
    "deleted": ("trash_post",),
    "restored": ("untrashed_post",),
}


@dataclass(frozen=True)
class Topic:
    name: str
    resource: str
    event: str
    hooks: tuple[str, ...]


def parse_topic(text: str) -> Topic | None:
    """The topic named by ``text`` (checked lower-cased), or None when it is not valid (also
    when it is longer than the ``MAX_LENGTH`` characters a topic is stored in)."""
    name = text.strip().lower()
    if len(name) > MAX_LENGTH:
        return None
    resource, dot, event = name.partition(".")
    if not dot:
        return None
    if resource == "action":
        if not ACTION_NAME.fullmatch(event) or event in FORBIDDEN_ACTIONS:
            return None
        return Topic(name, resource, event, (event,))
    if resource not in RESOURCES or event not in EVENTS:
        return None
    hooks = _HOOKS.get(name) or _EVENT_HOOKS[event]
    return Topic(name, resource, event, hooks)
