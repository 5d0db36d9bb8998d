"""The loaders of tax rates and tax classes."""

from __future__ import annotations

from shopsvc.errors import ApiError
from shopsvc.loaders.base import Loader
from shopsvc.sql import taxes as taxes_sql


def _tax_rate_not_found(rate_id: int) -> ApiError:
    return ApiError(
        "shop_api_invalid_tax_id", "A tax rate with the provided ID could not be found.", 404
    )


#: Tax rates: ``manage_shop``, then existence (id 0 is not found like any other id).
TAX_RATES = Loader(
    "tax",
    # Looked up when called, so that the module's function may be replaced (tests do).
    fetch=lambda conn, rate_id: taxes_sql.get_rate(conn, rate_id),
    capabilities=dict.fromkeys(("read", "count", "create", "edit", "delete"), "manage_shop"),
    not_found=_tax_rate_not_found,
    denials={
        "read": ("shop_api_user_cannot_read_tax", "You do not have permission to read tax rate."),
        "count": (
            "shop_api_user_cannot_read_taxes_count",
            "You do not have permission to read the taxes count.",
        ),
        "create": (
            "shop_api_user_cannot_create_tax",
            "You do not have permission to create tax rates.",
        ),
        "edit": ("shop_api_user_cannot_edit_tax", "You do not have permission to edit tax rates."),
        "delete": (
            "shop_api_user_cannot_delete_tax",
            "You do not have permission to delete tax rates.",
        ),
    },
    order=("capability", "record"),
)

#: The built-in tax class: never stored (its rates have no class), first in the class list, and
#: its name and slug are taken for every new class.
STANDARD_TAX_CLASS = {"slug": "standard", "name": "Standard rate"}

#: Tax classes: named by slug, never loaded by id; only their capability checks.
TAX_CLASSES = Loader(
    "tax_class",
    capabilities=dict.fromkeys(("read", "count", "create", "delete"), "manage_shop"),
    denials={
        "read": (
            "shop_api_user_cannot_read_tax_classes",
            "You do not have permission to read tax classes.",
        ),
        "count": (
            "shop_api_user_cannot_read_tax_classes_count",
            "You do not have permission to read the tax classes count.",
        ),
        "create": (
            "shop_api_user_cannot_create_tax_class",
            "You do not have permission to create tax classes.",
        ),
        "delete": (
            "shop_api_user_cannot_delete_tax_class",
            "You do not have permission to delete tax classes.",
        ),
    },
)
