"""The four item arrays of an order write: create, update and delete of line items, shipping
lines, fees and coupons (reference orders.md §9, §4 step 7; decisions.md §6, §7 "Line items").

Checks run in the reference's order for each element, elements in array order, arrays in the
order ``line_items``, ``shipping_lines``, ``fee_lines``, ``coupon_lines``. An update or delete
must name an item of this order and of that array's type, else 400 ``shop_invalid_item_id``.
Taxes are not computed here: the totals recalculation that follows does that.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol

from shopsvc.domain import catalog, pricing, tax
from shopsvc.domain.tax import Address, TaxRate
from shopsvc.domain.totals import price_excluding_tax, scale_line_amounts
from shopsvc.errors import ApiError
from shopsvc.sql import order_lookups as order_lookups_sql
from shopsvc.sql import order_writes as sql
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.validation.orders import ARRAYS, ItemInput
from shopsvc.writers.context import WriteContext
from shopsvc.writers.order_totals import tax_rates

Row = dict[str, Any]
_ZERO = Decimal(0)


def _error(code: str, message: str) -> ApiError:
    return ApiError(code, message, 400)


def invalid_item_id() -> ApiError:
    return _error("shop_invalid_item_id", "Order item ID provided is not associated with order.")


class Catalog(Protocol):
    """What a new line reads of the catalogue: the database (:class:`StoredCatalog`), or what a
    set-based bulk loaded for all its elements at once (``writers.order_batch``)."""

    def sku_owner(self, sku: str) -> int | None:
        """The product or variation not in the trash whose SKU is ``sku`` (case-insensitive)."""
        ...

    def product(self, product_id: int) -> Row | None:
        """A product or variation (any status), as ``sql.order_lookups.get_product`` reads it."""
        ...

    def variations(self, parent_id: int) -> list[tuple[int, dict[str, str]]]:
        """The variations of ``parent_id`` not in the trash, by menu order then id, with their
        attribute values."""
        ...

    def rates(self) -> list[TaxRate]:
        """Every stored tax rate."""
        ...


class StoredCatalog:
    """:class:`Catalog` read from the database, one statement per question."""

    def __init__(self, ctx: WriteContext) -> None:
        self.ctx = ctx

    def sku_owner(self, sku: str) -> int | None:
        return product_lookups_sql.get_sku_owner(self.ctx.conn, sku)

    def product(self, product_id: int) -> Row | None:
        return order_lookups_sql.get_product(self.ctx.conn, product_id)

    def variations(self, parent_id: int) -> list[tuple[int, dict[str, str]]]:
        return order_lookups_sql.variations_with_values(self.ctx.conn, parent_id)

    def rates(self) -> list[TaxRate]:
        return tax_rates(self.ctx)


def write_items(ctx: WriteContext, order_id: int, array: str, elements: list[ItemInput]) -> None:
    """Create, update or delete the items of one array, in array order."""
    kind = ARRAYS[array]
    for element in elements:
        if element.id is None:
            _CREATE[kind](ctx, order_id, element.values)
            continue
        item = order_lookups_sql.get_item(ctx.conn, element.id)
        if item is None or item["order_id"] != order_id or item["item_type"] != kind:
            raise invalid_item_id()
        if element.delete:
            sql.delete_items(ctx.conn, [item["id"]])
        else:
            _UPDATE[kind](ctx, item, element.values)


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


def _create_line(ctx: WriteContext, order_id: int, values: Row) -> None:
    item, meta = new_line(ctx, StoredCatalog(ctx), values)
    item_id = sql.insert_item(ctx.conn, {"order_id": order_id, **item})
    sql.insert_item_meta(ctx.conn, item_id, meta)


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


def _update_line(ctx: WriteContext, item: Row, values: Row) -> None:
    sql.update_item(ctx.conn, item["id"], line_changes(StoredCatalog(ctx), item, values))


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


def _create_shipping(ctx: WriteContext, order_id: int, values: Row) -> None:
    sql.insert_item(ctx.conn, {"order_id": order_id, **new_shipping(values)})


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


def _update_shipping(ctx: WriteContext, item: Row, values: Row) -> None:
    sql.update_item(ctx.conn, item["id"], shipping_changes(values))


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


def _create_fee(ctx: WriteContext, order_id: int, values: Row) -> None:
    sql.insert_item(ctx.conn, {"order_id": order_id, **new_fee(values)})


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


def _update_fee(ctx: WriteContext, item: Row, values: Row) -> None:
    sql.update_item(ctx.conn, item["id"], fee_changes(values))


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


def _create_coupon(ctx: WriteContext, order_id: int, values: Row) -> None:
    sql.insert_item(ctx.conn, {"order_id": order_id, **new_coupon(values)})


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


def _update_coupon(ctx: WriteContext, item: Row, values: Row) -> None:
    sql.update_item(ctx.conn, item["id"], coupon_changes(values))


def coupon_changes(values: Row) -> Row:
    """The checks and changed columns of an edit of a coupon line."""
    _check_coupon_amount(values)
    changes: Row = {}
    if values.get("code"):
        changes["name"] = values["code"]
    if "amount" in values:
        changes["total"] = changes["subtotal"] = values["amount"]
    return changes


_CREATE = {
    "line_item": _create_line,
    "shipping": _create_shipping,
    "fee": _create_fee,
    "coupon": _create_coupon,
}
_UPDATE = {
    "line_item": _update_line,
    "shipping": _update_shipping,
    "fee": _update_fee,
    "coupon": _update_coupon,
}
