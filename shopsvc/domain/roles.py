"""Capabilities and the roles that hold them (decisions.md §1 and §7 "Capabilities")."""

from __future__ import annotations

CAPABILITIES = (
    "manage_shop",
    "read_private_shop_orders",
    "publish_shop_orders",
    "edit_shop_orders",
    "delete_shop_orders",
    "read_private_products",
    "publish_products",
    "edit_products",
    "delete_products",
    "manage_product_terms",
)
ROLES: dict[str, frozenset[str]] = {
    "administrator": frozenset(CAPABILITIES),
    "shop_manager": frozenset(CAPABILITIES),
    "customer": frozenset(),
}
