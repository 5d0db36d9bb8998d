"""The traversal tree: Root ─► the API root (configured prefix) ─► containers ─► items.

Resources only hold identifiers and know their children; they do no I/O (the spec fixes the order
of checks, so loading a record is the view's job). Each class carries the route ``pattern`` that the
index lists; path segments match case-insensitively.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pyramid.request import Request

DIGITS = re.compile(r"[0-9]+")
#: What an id segment of more digits than any stored id can have stands for: a number beyond every
#: id column (so "not found"), without converting thousands of digits.
BEYOND_ANY_ID = 2**63 - 1
SLUG = re.compile(r"\w[\w\s-]*")


class Resource:
    pattern: ClassVar[str] = ""
    #: The field of an item's record that names it in its URL (``Location`` of a create).
    record_key: ClassVar[str] = "id"
    #: Whether the index lists the route (the documentation page and its files are not).
    listed: ClassVar[bool] = True
    named: ClassVar[dict[str, type[Resource]]] = {}
    item: ClassVar[type[Item] | None] = None

    def __init__(self, parent: Resource | None, name: str) -> None:
        self.__parent__ = parent
        self.__name__ = name

    def __getitem__(self, segment: str) -> Resource:
        child = self.named.get(segment.lower())
        if child is not None:
            return child(self, segment)
        if self.item is not None and self.item.accepts(segment):
            return self.item(self, segment)
        raise KeyError(segment)

    def find(self, kind: type[Resource]) -> Resource:
        """The nearest enclosing resource of ``kind`` (e.g. the webhook of a delivery)."""
        node: Resource | None = self
        while node is not None and not isinstance(node, kind):
            node = node.__parent__
        if node is None:
            raise LookupError(kind.__name__)
        return node


class Item(Resource):
    """A record addressed by a digit-string id."""

    @classmethod
    def accepts(cls, segment: str) -> bool:
        return DIGITS.fullmatch(segment) is not None

    @property
    def id(self) -> int:
        digits = self.__name__.lstrip("0")
        return int(digits or "0") if len(digits) <= 18 else BEYOND_ANY_ID


class LooseItem(Item):
    """An item whose route takes any segment: a non-numeric id is reported by the view as an
    invalid id (the spec's "zero or not a positive integer") rather than as no route."""

    @classmethod
    def accepts(cls, segment: str) -> bool:
        return True

    @property
    def id(self) -> int:
        return super().id if DIGITS.fullmatch(self.__name__) else 0


# --- webhooks


class WebhookDelivery(LooseItem):
    pattern = "/webhooks/<webhook_id>/deliveries/<id>"


class WebhookDeliveries(Resource):
    pattern = "/webhooks/<webhook_id>/deliveries"
    item = WebhookDelivery


class Webhook(LooseItem):
    pattern = "/webhooks/<id>"
    named = {"deliveries": WebhookDeliveries}


class WebhooksCount(Resource):
    pattern = "/webhooks/count"


class Webhooks(Resource):
    pattern = "/webhooks"
    named = {"count": WebhooksCount}
    item = Webhook


# --- taxes


class TaxClass(Resource):
    pattern = "/taxes/classes/<slug>"
    record_key = "slug"

    @classmethod
    def accepts(cls, segment: str) -> bool:
        return SLUG.fullmatch(segment) is not None

    @property
    def slug(self) -> str:
        return self.__name__


class TaxClassesCount(TaxClass):
    """``/taxes/classes/count`` is also the class slug ``count`` for DELETE."""

    pattern = "/taxes/classes/count"


class TaxClasses(Resource):
    pattern = "/taxes/classes"
    named = {"count": TaxClassesCount}
    item = TaxClass  # type: ignore[assignment]


class TaxRate(Item):
    pattern = "/taxes/<id>"


class TaxesCount(Resource):
    pattern = "/taxes/count"


class TaxesBulk(Resource):
    pattern = "/taxes/bulk"


class Taxes(Resource):
    pattern = "/taxes"
    named = {"count": TaxesCount, "classes": TaxClasses, "bulk": TaxesBulk}
    item = TaxRate


# --- the product catalogue


class Category(Item):
    pattern = "/products/categories/<id>"


class Categories(Resource):
    pattern = "/products/categories"
    item = Category


class Tag(Item):
    pattern = "/products/tags/<id>"


class Tags(Resource):
    pattern = "/products/tags"
    item = Tag


class ShippingClass(Item):
    pattern = "/products/shipping_classes/<id>"


class ShippingClasses(Resource):
    pattern = "/products/shipping_classes"
    item = ShippingClass


class AttributeTerm(Item):
    pattern = "/products/attributes/<attribute_id>/terms/<id>"


class AttributeTerms(Resource):
    pattern = "/products/attributes/<attribute_id>/terms"
    item = AttributeTerm


class Attribute(Item):
    pattern = "/products/attributes/<id>"
    named = {"terms": AttributeTerms}


class Attributes(Resource):
    pattern = "/products/attributes"
    item = Attribute


class ProductReviews(Resource):
    pattern = "/products/<id>/reviews"


class ProductOrders(Resource):
    pattern = "/products/<id>/orders"


class Product(Item):
    pattern = "/products/<id>"
    named = {"reviews": ProductReviews, "orders": ProductOrders}


class ProductsCount(Resource):
    pattern = "/products/count"


class ProductsBulk(Resource):
    pattern = "/products/bulk"


class Products(Resource):
    pattern = "/products"
    named = {
        "count": ProductsCount,
        "bulk": ProductsBulk,
        "categories": Categories,
        "tags": Tags,
        "shipping_classes": ShippingClasses,
        "attributes": Attributes,
    }
    item = Product


# --- orders


class OrderChild(Resource):
    """A resource below ``/orders/<order_id>`` (notes, refunds)."""

    @property
    def order_id(self) -> int:
        order = self.find(Order)
        assert isinstance(order, Order)
        return order.id


class OrderNote(Item, OrderChild):
    pattern = "/orders/<order_id>/notes/<id>"


class OrderNotes(OrderChild):
    pattern = "/orders/<order_id>/notes"
    item = OrderNote


class OrderRefund(Item, OrderChild):
    pattern = "/orders/<order_id>/refunds/<id>"


class OrderRefunds(OrderChild):
    pattern = "/orders/<order_id>/refunds"
    item = OrderRefund


class Order(Item):
    pattern = "/orders/<id>"
    named = {"notes": OrderNotes, "refunds": OrderRefunds}


class OrdersCount(Resource):
    pattern = "/orders/count"


class OrderStatuses(Resource):
    pattern = "/orders/statuses"


class OrdersBulk(Resource):
    pattern = "/orders/bulk"


class Orders(Resource):
    pattern = "/orders"
    named = {"count": OrdersCount, "statuses": OrderStatuses, "bulk": OrdersBulk}
    item = Order


# --- the OpenAPI document and its documentation page (served without authentication)


class OpenApiDocument(Resource):
    pattern = "/openapi.json"


class DocsFile(Resource):
    """One file of the documentation page (the view serves only the files it knows)."""

    pattern = "/docs/<file>"
    listed = False


class Docs(Resource):
    pattern = "/docs"
    listed = False

    def __getitem__(self, segment: str) -> Resource:
        return DocsFile(self, segment)


# --- roots


class ApiRoot(Resource):
    pattern = "/"
    named = {
        "webhooks": Webhooks,
        "taxes": Taxes,
        "products": Products,
        "orders": Orders,
        "openapi.json": OpenApiDocument,
        "docs": Docs,
    }


class PrefixSegment(Resource):
    """One segment of a multi-segment API root such as ``/shop-api/v3``."""

    def __init__(self, parent: Resource | None, name: str, remaining: tuple[str, ...]) -> None:
        super().__init__(parent, name)
        self.remaining = remaining

    def __getitem__(self, segment: str) -> Resource:
        if not self.remaining or segment.lower() != self.remaining[0]:
            raise KeyError(segment)
        if len(self.remaining) == 1:
            return ApiRoot(self, segment)
        return PrefixSegment(self, segment, self.remaining[1:])


class Root(PrefixSegment):
    def __init__(self, request: Request) -> None:
        super().__init__(None, "", request.shop.api_root_segments)


def canonical_path(resource: Resource) -> str:
    """The path of ``resource`` below the API root as the index spells it, whatever the request
    spelled: names lower-cased, ids as plain numbers (``/orders/7/notes`` for
    ``/ORDERS/007/Notes``)."""
    segments: list[str] = []
    node: Resource | None = resource
    while node is not None and not isinstance(node, ApiRoot):
        segments.append(str(node.id) if isinstance(node, Item) else node.__name__.lower())
        node = node.__parent__
    return "/" + "/".join(reversed(segments))
