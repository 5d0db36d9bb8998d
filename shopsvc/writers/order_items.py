"""One element of an order's item arrays: the checks of a new line item, shipping line, fee or
coupon and its columns, or of an edit of one and its changed columns (reference orders.md §9, §4
step 7; decisions.md §6, §7 "Line items"), in the reference's order of checks; pure but for what
a new line reads of the catalogue (:class:`Catalog`). ``writers.order_arrays`` applies them to an
order's plan. Taxes are not computed here: the totals recalculation that follows does that.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol

from shopsvc.domain import catalog, pricing, tax
from shopsvc.domain.tax import Address, TaxRate
from shopsvc.domain.totals import price_excluding_tax, scale_line_amounts
from shopsvc.errors import ApiError
from shopsvc.writers.context import WriteContext

Row = dict[str, Any]
_ZERO = Decimal(0)


def _error(code: str, message: str) -> ApiError:
    return ApiError(code, message, 400)


def invalid_item_id() -> ApiError:
    return _error("shop_invalid_item_id", "Order item ID provided is not associated with order.")


class Catalog(Protocol):
    """What a line reads of the catalogue: what the planner (``writers.order_batch``) loaded for
    all its elements at once, before the first plan."""

    def sku_owner(self, sku: str) -> int | None:
        """The product or variation not in the trash whose SKU is ``sku`` (case-insensitive)."""
        ...

    def product(self, product_id: int) -> Row | None:
        """A product or variation (any status), with the columns of
        ``sql.order_lookups.PRODUCT_COLUMNS``."""
        ...

    def variations(self, parent_id: int) -> list[tuple[int, dict[str, str]]]:
        """The variations of ``parent_id`` not in the trash, by menu order then id, with their
        attribute values."""
        ...

    def rates(self) -> list[TaxRate]:
        """Every stored tax rate."""
        ...


# --- line items


def _resolve_product(catalog: Catalog, values: Row, item: Row | None) -> Row:
    """Checks 1-5 of reference §9.1: the product (or variation) the line sells."""
    if "product_id" not in values and "sku" not in values:
        raise _error("shop_api_invalid_product_id", "Product ID or SKU is required")
    if item is not None and (
        "product_id" not in values
        or values["product_id"] not in (item["product_id"], item["variation_id"])
    ):
        raise _error(
            "shop_api_invalid_product_id", "Product ID provided does not match this line item"
        )
    if "product_id" in values:
        product_id = values["product_id"]
    else:
        product_id = catalog.sku_owner(values["sku"]) if values["sku"] else None
    product = catalog.product(product_id) if product_id else None
    variations = values.get("variations")
    if variations:
        if any(not str(key).strip() or not value.strip() for key, value in variations.items()):
            raise _error("shop_api_invalid_product_variation", "The product variation is invalid")
        if item is None:
            product = _match_variation(catalog, product, variations)
    if product is None:
        raise _error("shop_api_invalid_product", "Product is invalid.")
    return product


def _attribute_key(key: str) -> str:
    key = key.strip()
    if key.lower().startswith("attribute_"):
        key = key[len("attribute_") :]
    return catalog.clean_attribute_slug(key)


def _match_variation(catalog: Catalog, product: Row | None, wanted: dict[str, str]) -> Row | None:
    """The first variation of ``product`` whose attributes match every given pair (keys without
    ``attribute_``/``pa_``, values case-insensitively; an empty stored value matches anything);
    None when none does (decisions.md §7: then the product is invalid)."""
    if product is None:
        return None
    pairs = {_attribute_key(key): value.strip().lower() for key, value in wanted.items()}
    for variation_id, stored in catalog.variations(product["id"]):
        values = {key: value.lower() for key, value in stored.items()}
        if all(key in values and values[key] in ("", value) for key, value in pairs.items()):
            return catalog.product(variation_id)
    return None


def _check_quantity(values: Row, create: bool) -> None:
    """Checks 6-7 of reference §9.1."""
    if "quantity" in values and values["quantity"] <= 0:
        raise _error(
            "shop_api_invalid_product_quantity", "Product quantity must be a positive float."
        )
    if create and "quantity" not in values:
        raise _error("shop_api_invalid_product_quantity", "Product quantity is required.")


def _tax_source(catalog: Catalog, product: Row) -> Row:
    """The row whose tax status and class a line uses: a variation's parent for ``parent``."""
    if product["type"] == "variation" and product["parent_id"]:
        parent = catalog.product(product["parent_id"])
        if parent is not None:
            tax_class = product["tax_class"]
            if tax_class == "parent":
                tax_class = parent["tax_class"]
            return {**product, "tax_class": tax_class, "tax_status": parent["tax_status"]}
    return product


def _class(tax_class: str) -> str:
    return "" if tax_class in ("standard", "parent") else tax_class


def _default_price(ctx: WriteContext, catalog: Catalog, product: Row, tax_class: str) -> Decimal:
    """The product's active price ex tax (reference §9.1, §10.4 (a))."""
    price = pricing.active_price(
        product["regular_price"],
        product["sale_price"],
        product["sale_from"],
        product["sale_to"],
        ctx.now,
    )
    price = price or _ZERO
    if ctx.settings.prices_include_tax and ctx.settings.calc_taxes:
        base = Address(
            ctx.settings.store_country,
            ctx.settings.store_state,
            ctx.settings.store_postcode,
            ctx.settings.store_city,
        )
        rates = tax.find_rates(catalog.rates(), base, tax_class)
        price = price_excluding_tax(price, rates)
    return price


def new_line(ctx: WriteContext, catalog: Catalog, values: Row) -> tuple[Row, list[tuple[str, str]]]:
    """The checks of a new line item (reference §9.1) and its columns (but ``order_id``) and
    meta; the amounts' range is checked where the row is stored (``sql.common.check_amounts``)."""
    product = _resolve_product(catalog, values, None)
    _check_quantity(values, create=True)
    source = _tax_source(catalog, product)
    tax_class = _class(source["tax_class"])
    qty = int(values["quantity"])
    if "total" in values:
        total = values["total"]
        subtotal = total
    else:
        total = subtotal = _default_price(ctx, catalog, product, tax_class) * qty
    if "subtotal" in values:
        subtotal = values["subtotal"]
    is_variation = product["type"] == "variation"
    item = {
        "item_type": "line_item",
        "name": product["title"],
        "product_id": product["parent_id"] if is_variation else product["id"],
        "variation_id": product["id"] if is_variation else None,
        "quantity": qty,
        "tax_class": tax_class,
        "taxable": source["tax_status"] == "taxable",
        "subtotal": subtotal,
        "total": total,
        "subtotal_tax": values.get("subtotal_tax", _ZERO),
        "total_tax": values.get("total_tax", _ZERO),
    }
    meta = [
        (key[len("attribute_") :] if key.startswith("attribute_") else key, value)
        for key, value in (values.get("variations") or {}).items()
    ]
    return item, meta


def line_changes(catalog: Catalog, item: Row, values: Row) -> Row:
    """The checks of an edit of the line ``item`` (reference §9.1) and its changed columns."""
    _resolve_product(catalog, values, item)
    _check_quantity(values, create=False)
    changes: Row = {}
    subtotal, total = item["subtotal"], item["total"]
    if "quantity" in values:
        qty = int(values["quantity"])
        if (
            qty != item["quantity"]
            and item["quantity"] > 0
            and "total" not in values
            and "subtotal" not in values
        ):
            subtotal, total = scale_line_amounts(subtotal, total, item["quantity"], qty)
        changes["quantity"] = qty
    if "total" in values:
        total = values["total"]
        if "subtotal" not in values and subtotal < total:
            subtotal = total
    if "subtotal" in values:
        subtotal = values["subtotal"]
    changes.update(subtotal=subtotal, total=total)
    for key in ("subtotal_tax", "total_tax"):
        if key in values:
            changes[key] = values[key]
    return changes


# --- shipping lines


def _check_shipping_total(values: Row) -> None:
    if "total" in values and values["total"] < 0:
        raise _error("shop_invalid_shipping_total", "Shipping total must be a positive amount.")


def new_shipping(values: Row) -> Row:
    """The checks and columns (but ``order_id``) of a new shipping line."""
    _check_shipping_total(values)
    if "method_id" not in values:
        raise _error("shop_invalid_shipping_item", "Shipping method ID is required.")
    return {
        "item_type": "shipping",
        "method_id": values["method_id"],
        "name": values.get("method_title", ""),
        "total": values.get("total", _ZERO),
        "subtotal": values.get("total", _ZERO),
    }


def shipping_changes(values: Row) -> Row:
    """The checks and changed columns of an edit of a shipping line."""
    _check_shipping_total(values)
    changes: Row = {}
    if "method_id" in values:
        changes["method_id"] = values["method_id"]
    if "method_title" in values:
        changes["name"] = values["method_title"]
    if "total" in values:
        changes["total"] = changes["subtotal"] = values["total"]
    return changes


# --- fees


def new_fee(values: Row) -> Row:
    """The checks and columns (but ``order_id``) of a new fee line."""
    if "title" not in values:
        raise _error("shop_invalid_fee_item", "Fee title is required")
    taxable = bool(values.get("taxable", False))
    if taxable and "tax_class" not in values:
        raise _error("shop_invalid_fee_item", "Fee tax class is required when fee is taxable.")
    return {
        "item_type": "fee",
        "name": values["title"],
        "taxable": taxable,
        "tax_class": _class(values.get("tax_class", "")),
        "total": values.get("total", _ZERO),
        "subtotal": values.get("total", _ZERO),
    }


def fee_changes(values: Row) -> Row:
    """The changed columns of an edit of a fee line."""
    changes: Row = {}
    if "title" in values:
        changes["name"] = values["title"]
    if "tax_class" in values:
        changes["tax_class"] = _class(values["tax_class"])
    if "total" in values:
        changes["total"] = changes["subtotal"] = values["total"]
    return changes


# --- coupons


def _check_coupon_amount(values: Row) -> None:
    if "amount" in values and values["amount"] < 0:
        raise _error(
            "shop_invalid_coupon_total", "Coupon discount total must be a positive amount."
        )


def new_coupon(values: Row) -> Row:
    """The checks and columns (but ``order_id``) of a new coupon line."""
    _check_coupon_amount(values)
    if not values.get("code"):
        raise _error("shop_invalid_coupon_coupon", "Coupon code is required.")
    return {
        "item_type": "coupon",
        "name": values["code"],
        "total": values.get("amount", _ZERO),
        "subtotal": values.get("amount", _ZERO),
    }


def coupon_changes(values: Row) -> Row:
    """The checks and changed columns of an edit of a coupon line."""
    _check_coupon_amount(values)
    changes: Row = {}
    if values.get("code"):
        changes["name"] = values["code"]
    if "amount" in values:
        changes["total"] = changes["subtotal"] = values["amount"]
    return changes
