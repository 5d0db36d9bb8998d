"""The integer write fields of every family (:data:`INT_FIELDS`): where each goes in a body,
and the name the 400 must give it when its value is beyond the column."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class IntField:
    """An integer write field: where it goes in a body, and the name the 400 must give it.
    ``positive``: only values above the column are refused (the spec skips non-positive ones)."""

    method: str
    path: str
    field: str  # as the error message names it (``{line}``: an id of the suite's world)
    build: Callable[[Any], dict[str, Any]]
    positive: bool = False
    bulk: bool = False


def _term(envelope: str, name: str) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {envelope: {"name": "Numbers", name: value}}


def _product(**extra: Any) -> Callable[[Any], dict[str, Any]]:
    def build(value: Any) -> dict[str, Any]:
        fields = {key: (value if item is VALUE else item) for key, item in extra.items()}
        return {"product": {"title": "Numbers", **_fill(fields, value)}}

    return build


class _Value:
    """Where the generated number goes in a template (see :func:`_fill`)."""


VALUE = _Value()


def _fill(template: Any, value: Any) -> Any:
    if template is VALUE:
        return value
    if isinstance(template, dict):
        return {key: _fill(item, value) for key, item in template.items()}
    if isinstance(template, list):
        return [_fill(item, value) for item in template]
    return template


def _template(envelope: str, template: dict[str, Any]) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {envelope: _fill(template, value)}


VARIABLE = {"title": "Numbers", "type": "variable"}

INT_FIELDS: tuple[IntField, ...] = (
    IntField(
        "POST",
        "/products/categories",
        "product_category.parent",
        _term("product_category", "parent"),
    ),
    IntField(
        "PUT",
        "/products/categories/{category}",
        "product_category.parent",
        _term("product_category", "parent"),
    ),
    IntField(
        "POST", "/products/categories", "product_category.image", _term("product_category", "image")
    ),
    IntField(
        "PUT",
        "/products/categories/{category}",
        "product_category.image",
        _term("product_category", "image"),
    ),
    IntField(
        "POST",
        "/products/shipping_classes",
        "product_shipping_class.parent",
        _term("product_shipping_class", "parent"),
    ),
    IntField(
        "PUT",
        "/products/shipping_classes/{shipping_class}",
        "product_shipping_class.parent",
        _term("product_shipping_class", "parent"),
    ),
    IntField(
        "POST",
        "/products/attributes/{attribute}/terms",
        "product_attribute_term.menu_order",
        _term("product_attribute_term", "menu_order"),
    ),
    IntField(
        "PUT",
        "/products/attributes/{attribute}/terms/{term}",
        "product_attribute_term.menu_order",
        _term("product_attribute_term", "menu_order"),
    ),
    IntField("POST", "/taxes", "tax.priority", _template("tax", {"priority": VALUE})),
    IntField("POST", "/taxes", "tax.order", _template("tax", {"order": VALUE})),
    IntField("PUT", "/taxes/{tax}", "tax.priority", _template("tax", {"priority": VALUE})),
    IntField("PUT", "/taxes/{tax}", "tax.order", _template("tax", {"order": VALUE})),
    IntField(
        "POST", "/taxes/bulk", "tax.order", lambda value: {"taxes": [{"order": value}]}, bulk=True
    ),
    IntField(
        "POST",
        "/taxes/bulk",
        "tax.priority",
        lambda value: {"taxes": [{"id": "{tax}", "priority": value}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/taxes/bulk",
        "tax.id",
        lambda value: {"taxes": [{"id": value}]},
        positive=True,
        bulk=True,
    ),
    *(
        IntField(method, path, f"product.{name}", _product(**{name: VALUE}))
        for method, path in (("POST", "/products"), ("PUT", "/products/{product}"))
        for name in (
            "menu_order",
            "parent_id",
            "stock_quantity",
            "inventory_delta",
            "download_limit",
            "download_expiry",
        )
    ),
    IntField("POST", "/products", "product.images[0].id", _product(images=[{"id": VALUE}])),
    IntField(
        "POST",
        "/products",
        "product.attributes[0].position",
        _product(attributes=[{"name": "Size", "options": ["S"], "position": VALUE}]),
    ),
    IntField("POST", "/products", "product.categories[0]", _product(categories=[VALUE])),
    IntField("PUT", "/products/{product}", "product.tags[0]", _product(tags=[VALUE])),
    IntField(
        "POST", "/products", "product.upsell_ids[0]", _product(upsell_ids=[VALUE]), positive=True
    ),
    IntField(
        "PUT",
        "/products/{product}",
        "product.cross_sell_ids[0]",
        _product(cross_sell_ids=[VALUE]),
        positive=True,
    ),
    IntField(
        "POST",
        "/products",
        "product.variations[0].id",
        _template("product", {**VARIABLE, "variations": [{"id": VALUE}]}),
    ),
    IntField(
        "PUT",
        "/products/{variable}",
        "product.variations[0].stock_quantity",
        _template("product", {"variations": [{"stock_quantity": VALUE}]}),
    ),
    IntField(
        "PUT",
        "/products/{variable}",
        "product.variations[0].download_expiry",
        _template("product", {"variations": [{"download_expiry": VALUE}]}),
    ),
    IntField(
        "POST",
        "/products",
        "product.variations[0].image[0].id",
        _template("product", {**VARIABLE, "variations": [{"image": [{"id": VALUE}]}]}),
    ),
    IntField(
        "PUT",
        "/products/{variation}",
        "product.stock_quantity",
        _template("product", {"stock_quantity": VALUE}),
    ),
    IntField(
        "PUT",
        "/products/{variation}",
        "product.image[0].id",
        _template("product", {"image": [{"id": VALUE}]}),
    ),
    IntField(
        "POST",
        "/products/bulk",
        "product.menu_order",
        lambda value: {"products": [{"title": "Numbers", "menu_order": value}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/products/bulk",
        "product.stock_quantity",
        lambda value: {"products": [{"id": "{product}", "stock_quantity": value}]},
        bulk=True,
    ),
    *(
        IntField(method, path, "order.customer_id", _template("order", {"customer_id": VALUE}))
        for method, path in (("POST", "/orders"), ("PUT", "/orders/{order}"))
    ),
    IntField(
        "POST",
        "/orders",
        "order.line_items[0].product_id",
        _template("order", {"line_items": [{"product_id": VALUE, "quantity": 1}]}),
    ),
    IntField(
        "POST",
        "/orders",
        "order.line_items[1].quantity",
        _template(
            "order",
            {
                "line_items": [
                    {"product_id": "{product}", "quantity": 1},
                    {"product_id": "{product}", "quantity": VALUE},
                ]
            },
        ),
    ),
    IntField(
        "PATCH",
        "/orders/{order}",
        "order.line_items[0].quantity",
        _template("order", {"line_items": [{"id": "{line}", "quantity": VALUE}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.line_items[0].id",
        _template("order", {"line_items": [{"id": VALUE, "product_id": "{product}"}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.shipping_lines[0].id",
        _template("order", {"shipping_lines": [{"id": VALUE, "total": "1"}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.fee_lines[0].id",
        _template("order", {"fee_lines": [{"id": VALUE, "title": "Fee"}]}),
    ),
    IntField(
        "PUT",
        "/orders/{order}",
        "order.coupon_lines[0].id",
        _template("order", {"coupon_lines": [{"id": VALUE, "code": "C"}]}),
    ),
    IntField(
        "POST",
        "/orders/bulk",
        "order.customer_id",
        lambda value: {"orders": [{"customer_id": value}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/orders/bulk",
        "order.line_items[0].id",
        lambda value: {"orders": [{"id": "{order}", "line_items": [{"id": value}]}]},
        bulk=True,
    ),
    IntField(
        "POST",
        "/orders/{order}/refunds",
        "order_refund.line_items.{line}.qty",
        _template("order_refund", {"amount": "0.01", "line_items": {"<line>": {"qty": VALUE}}}),
    ),
)
