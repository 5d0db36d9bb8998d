"""The webhooks' loader."""

from __future__ import annotations

from shopsvc.loaders.base import Loader
from shopsvc.sql import webhooks as webhooks_sql

#: Webhooks (decisions.md §7): id ≤ 0 → 404, existence → 404, then ``manage_shop``.
WEBHOOKS = Loader(
    "webhook",
    fetch=webhooks_sql.get,
    capabilities=dict.fromkeys(
        ("read", "edit", "delete", "list", "count", "create"), "manage_shop"
    ),
    denials={
        "list": (
            "shop_api_user_cannot_read_webhook",
            "You do not have permission to read webhooks.",
        ),
        "count": (
            "shop_api_user_cannot_read_webhooks_count",
            "You do not have permission to read the webhooks count.",
        ),
        "create": (
            "shop_api_user_cannot_create_webhooks",
            "You do not have permission to create webhooks.",
        ),
    },
)
