"""Every write route of every family (:data:`FAMILIES`: its methods, envelope and shape), and
:func:`write_cases`, one hostile request to one of them."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from tests.hostile.bodies import RAW_BODIES, body_bytes
from tests.hostile.order_shapes import (
    BULK_ORDER,
    DEEP_BULK_ORDER,
    DEEP_ORDER,
    DEEP_ORDER_EDIT,
    DEEP_REFUND,
    ORDER,
    ORDER_EDIT,
    ORDER_NOTE,
    ORDER_REFUND,
)
from tests.hostile.records import Shape, records
from tests.hostile.shapes import (
    ATTRIBUTE,
    BULK_PRODUCT,
    BULK_TAX,
    CATEGORY,
    PRODUCT,
    SHIPPING_CLASS,
    TAG,
    TAX,
    TAX_CLASS,
    TERM,
    VARIABLE_PRODUCT,
    VARIATION,
    WEBHOOK,
)
from tests.hostile.values import hostile_values, unknown_keys


@dataclass(frozen=True)
class Route:
    """A write route: methods, a path template (``{category}`` … are ids of the suite's
    records, see ``tests/hostile/world.py``) and its envelope; ``bulk`` routes take an array."""

    methods: tuple[str, ...]
    path: str
    envelope: str
    shape: Shape
    bulk: bool = False
    #: When given, half the records are drawn from this shape instead, with no hostile field
    #: but the one chosen only sometimes (as for a nested element), so that more requests pass
    #: the shape checks and reach the writer's rules.
    deep: Shape | None = None


CREATE = ("POST",)

EDIT = ("PUT", "PATCH", "POST")

BULK = ("POST", "PUT", "PATCH")

FAMILIES: dict[str, tuple[Route, ...]] = {
    "webhooks": (
        Route(CREATE, "/webhooks", "webhook", WEBHOOK),
        Route(EDIT, "/webhooks/{webhook}", "webhook", WEBHOOK),
    ),
    "taxes": (
        Route(CREATE, "/taxes", "tax", TAX),
        Route(EDIT, "/taxes/{tax}", "tax", TAX),
        Route(BULK, "/taxes/bulk", "taxes", BULK_TAX, bulk=True),
    ),
    "tax_classes": (Route(CREATE, "/taxes/classes", "tax_class", TAX_CLASS),),
    "categories": (
        Route(CREATE, "/products/categories", "product_category", CATEGORY),
        Route(EDIT, "/products/categories/{category}", "product_category", CATEGORY),
    ),
    "tags": (
        Route(CREATE, "/products/tags", "product_tag", TAG),
        Route(EDIT, "/products/tags/{tag}", "product_tag", TAG),
    ),
    "shipping_classes": (
        Route(CREATE, "/products/shipping_classes", "product_shipping_class", SHIPPING_CLASS),
        Route(
            EDIT,
            "/products/shipping_classes/{shipping_class}",
            "product_shipping_class",
            SHIPPING_CLASS,
        ),
    ),
    "attributes": (
        Route(CREATE, "/products/attributes", "product_attribute", ATTRIBUTE),
        Route(EDIT, "/products/attributes/{attribute}", "product_attribute", ATTRIBUTE),
    ),
    "attribute_terms": (
        Route(CREATE, "/products/attributes/{attribute}/terms", "product_attribute_term", TERM),
        Route(
            EDIT,
            "/products/attributes/{attribute}/terms/{term}",
            "product_attribute_term",
            TERM,
        ),
    ),
    "products": (
        Route(CREATE, "/products", "product", PRODUCT),
        Route(EDIT, "/products/{product}", "product", PRODUCT),
        Route(EDIT, "/products/{variable}", "product", PRODUCT),
    ),
    "variations": (
        Route(CREATE, "/products", "product", VARIABLE_PRODUCT),
        Route(EDIT, "/products/{variable}", "product", VARIABLE_PRODUCT),
        Route(EDIT, "/products/{variation}", "product", VARIATION),
    ),
    "products_bulk": (Route(BULK, "/products/bulk", "products", BULK_PRODUCT, bulk=True),),
    "orders": (
        Route(CREATE, "/orders", "order", ORDER, deep=DEEP_ORDER),
        Route(EDIT, "/orders/{order}", "order", ORDER_EDIT, deep=DEEP_ORDER_EDIT),
    ),
    "orders_bulk": (
        Route(BULK, "/orders/bulk", "orders", BULK_ORDER, bulk=True, deep=DEEP_BULK_ORDER),
    ),
    "order_notes": (
        Route(CREATE, "/orders/{order}/notes", "order_note", ORDER_NOTE),
        Route(EDIT, "/orders/{order}/notes/{note}", "order_note", ORDER_NOTE),
    ),
    "order_refunds": (
        Route(CREATE, "/orders/{order}/refunds", "order_refund", ORDER_REFUND, deep=DEEP_REFUND),
        Route(
            EDIT, "/orders/{order}/refunds/{refund}", "order_refund", ORDER_REFUND, deep=DEEP_REFUND
        ),
    ),
}


@dataclass(frozen=True)
class Case:
    method: str
    path: str  # a template: ``str.format`` it with the suite's record ids
    body: bytes
    bulk: bool = False


@st.composite
def write_cases(draw: st.DrawFn, family: str) -> Case:
    """One request to one of ``family``'s write routes: usually a record of plausible and
    hostile fields under the envelope; sometimes a hostile envelope or a body that is not
    JSON."""
    route = draw(st.sampled_from(FAMILIES[family]))
    method = draw(st.sampled_from(route.methods))
    element = records(route.shape)
    if route.deep is not None:
        element = st.one_of(element, records(route.deep, hostile=0, nested=True))
    payload = (
        st.lists(st.one_of(element, element, hostile_values), max_size=3) if route.bulk else element
    )
    body = draw(
        st.one_of(
            payload.map(lambda value: {route.envelope: value}),
            payload.map(lambda value: {route.envelope: value}),
            payload.map(lambda value: {route.envelope: value}),
            payload.map(lambda value: {route.envelope: value}),
            hostile_values.map(lambda value: {route.envelope: value}),
            st.dictionaries(unknown_keys(), hostile_values, max_size=2),
            st.sampled_from(RAW_BODIES),
        )
    )
    return Case(method, route.path, body_bytes(body), route.bulk)
