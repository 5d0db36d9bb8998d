"""How a family loads one record by id in the spec's order of checks, and requires a capability
with the family's own error code — declared once per family, used by every route of it.

The shared record validation (decisions.md §7 "Capabilities"): id 0 → 404 ``…invalid_<x>_id``;
missing → 404 ``…no_<x>_found``; wrong kind → 404 ``…invalid_<x>``; then 401
``…user_cannot_{read,edit,delete}_<x>``. Families whose spec rows differ say so in their
declaration: the ``order`` of the checks (attributes and taxes check the capability before the
record, terms also check the attribute a term belongs to), the codes (terms answer 400 for id 0)
and the messages.

Nothing here imports Pyramid: a loader needs only a :class:`Caller` (a request is one), so the
writers may raise the families' errors too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from sqlalchemy import Connection

from shopsvc.errors import ApiError
from shopsvc.sql import attributes as attributes_sql
from shopsvc.sql import order_notes as order_notes_sql
from shopsvc.sql import order_refunds as order_refunds_sql
from shopsvc.sql import orders as orders_sql
from shopsvc.sql import products as products_sql
from shopsvc.sql import taxes as taxes_sql
from shopsvc.sql import terms as terms_sql
from shopsvc.sql import webhooks as webhooks_sql
from shopsvc.sql.terms import Scope, Store
from shopsvc.validation.attributes import attribute_not_found, invalid_attribute_id

Row = dict[str, Any]
#: One check of :meth:`Loader.load`: the id (``check_id``), the capability (``require``), the
#: scope the record lives in (``check_scope``: a term's attribute) and the record (``find``).
Step = Literal["id", "capability", "scope", "record"]


class Caller(Protocol):
    """What loading needs of a request: its connection and its capability check."""

    @property
    def db(self) -> Connection: ...

    def has_permission(self, permission: str, context: Any = None) -> Any: ...


def _invalid_id(noun: str) -> Callable[[int], ApiError]:
    return lambda record_id: ApiError(f"shop_api_invalid_{noun}_id", f"Invalid {noun} ID.", 404)


def _not_found(noun: str) -> Callable[[int], ApiError]:
    return lambda record_id: ApiError(
        f"shop_api_no_{noun}_found", f"No {noun} found with the ID equal to {record_id}", 404
    )


@dataclass(frozen=True)
class Loader:
    """One family's record loading and capability checks.

    ``capabilities`` maps each action (``read``, ``edit``, ``delete``, ``create``, …) to its
    capability. ``fetch(conn, id)`` reads the row (None when there is none); a family loaded
    within a scope is read with ``fetch(conn, id, scope)``, after ``check_scope(conn, scope)``
    raised the scope's own 404 if it does not exist. The error builders default to the shared
    record validation's codes for ``noun``; ``denials`` gives the code and message of an action
    whose 401 reads otherwise. A family without ``fetch`` only requires capabilities.
    """

    noun: str
    capabilities: Mapping[str, str]
    fetch: Callable[..., Row | None] | None = None
    invalid_id: Callable[[int], ApiError] | None = None
    not_found: Callable[[int], ApiError] | None = None
    denials: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: Why a row that exists is not of this family (a refund id on the orders route…), or None.
    wrong_kind: Callable[[Row], ApiError | None] = field(default=lambda row: None)
    #: Raises the 404 of a scope that does not exist (an attribute terms' attribute), or None.
    check_scope: Callable[[Connection, Any], object] | None = None
    #: The checks of :meth:`load`, in the spec's order…
    order: tuple[Step, ...] = ("id", "record", "capability")
    #: …and of the actions whose routes check in another order.
    orders: Mapping[str, tuple[Step, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for steps in (self.order, *self.orders.values()):
            if "record" not in steps or len(set(steps)) != len(steps):
                raise ValueError(f"{self.noun}: each order checks the record once: {steps}")

    def require(self, caller: Caller, action: str) -> None:
        """401 with the family's code unless the caller holds the action's capability."""
        if not caller.has_permission(self.capabilities[action]):
            code, message = self.denials.get(action) or (
                f"shop_api_user_cannot_{action}_{self.noun}",
                f"You do not have permission to {action} this {self.noun}.",
            )
            raise ApiError(code, message, 401)

    def check_id(self, record_id: int) -> None:
        if record_id <= 0:
            raise (self.invalid_id or _invalid_id(self.noun))(record_id)

    def find(
        self,
        conn: Connection,
        record_id: int,
        scope: Any = None,
        fetch: Callable[..., Row | None] | None = None,
    ) -> Row:
        """The row ``record_id`` (of ``scope``), or the family's 404 — no other check.
        ``fetch`` replaces the family's own (a route that loads more than the row)."""
        fetch = fetch or self.fetch
        if fetch is None:
            raise ValueError(f"{self.noun} records are not loaded by id")
        row = fetch(conn, record_id) if scope is None else fetch(conn, record_id, scope)
        if row is None:
            raise (self.not_found or _not_found(self.noun))(record_id)
        wrong = self.wrong_kind(row)
        if wrong is not None:
            raise wrong
        return row

    def load(
        self,
        caller: Caller,
        record_id: int,
        action: str,
        scope: Any = None,
        fetch: Callable[..., Row | None] | None = None,
    ) -> Row:
        """The record ``record_id`` (of ``scope``) for ``action``, every check in the family's
        order; ``fetch`` replaces the family's own (see :meth:`find`)."""
        if action not in self.capabilities:
            raise ValueError(f"unknown action {action!r} for {self.noun}")
        row: Row | None = None
        for step in self.orders.get(action, self.order):
            if step == "id":
                self.check_id(record_id)
            elif step == "capability":
                self.require(caller, action)
            elif step == "scope":
                if self.check_scope is not None:
                    self.check_scope(caller.db, scope)
            else:
                row = self.find(caller.db, record_id, scope, fetch)
        assert row is not None
        return row


# --- the families


#: Products and variations (decisions.md §7: read / edit / delete capabilities).
PRODUCTS = Loader(
    "product",
    fetch=products_sql.product_kind,
    capabilities={
        "read": "read_private_products",
        "edit": "edit_products",
        "delete": "delete_products",
        "create": "publish_products",
        "count": "read_private_products",
    },
    denials={
        "create": (
            "shop_api_user_cannot_create_product",
            "You do not have permission to create products.",
        ),
        "count": (
            "shop_api_user_cannot_read_products_count",
            "You do not have permission to read the products count.",
        ),
    },
)


def order_id_is_invalid() -> ApiError:
    """The spec's 400 for an order that cannot be edited or refunded because its id names no
    order (the edit route's "order not found", the refund route's order id 0)."""
    return ApiError("shop_api_invalid_order_id", "Order ID is invalid", 400)


#: Orders (decisions.md §7 "Capabilities"; reference orders.md §11): id 0 → 404
#: ``shop_api_invalid_order_id``, missing → 404 ``shop_api_no_order_found``, then the action's
#: capability. Orders have their own table, so no id is ever of the wrong kind.
ORDERS = Loader(
    "order",
    fetch=orders_sql.get,
    capabilities={
        "read": "read_private_shop_orders",
        "edit": "edit_shop_orders",
        "delete": "delete_shop_orders",
        "create": "publish_shop_orders",
        "count": "read_private_shop_orders",
    },
    invalid_id=lambda order_id: ApiError(
        "shop_api_invalid_order_id", "Invalid shop_order ID.", 404
    ),
    denials={
        "create": (
            "shop_api_user_cannot_create_order",
            "You do not have permission to create orders.",
        ),
        "count": (
            "shop_api_user_cannot_read_orders_count",
            "You do not have permission to read the orders count.",
        ),
    },
)

#: The capabilities of order notes and refunds (decisions.md §7 "Capabilities"). Read, edit
#: and delete are checked by ``ORDERS.load(request, order_id, action)`` first (the order's own
#: 401 codes); create by these loaders' ``require(request, "create")``, before the order id.
_ORDER_CHILD_CAPABILITIES = {
    "read": "read_private_shop_orders",
    "edit": "edit_shop_orders",
    "delete": "delete_shop_orders",
    "create": "publish_shop_orders",
}


def _child_of_order(
    fetch: Callable[[Connection, int], Row | None], code: str, message: str
) -> Callable[[Connection, int, int], Row | None]:
    """``fetch`` of a note or refund that must belong to the order on the route (the scope):
    one of another order is a 400 (decisions.md §6), not a 404."""

    def fetch_in_order(conn: Connection, record_id: int, order_id: int) -> Row | None:
        row = fetch(conn, record_id)
        if row is not None and row["order_id"] != order_id:
            raise ApiError(code, message, 400)
        return row

    return fetch_in_order


#: Order notes, within their order (``load(request, note_id, action, scope=order_id)``, after
#: ``ORDERS.load``): id 0 → 400, missing → 404, of another order → 400 (reference orders.md §6).
ORDER_NOTES = Loader(
    "order_note",
    fetch=_child_of_order(
        lambda conn, note_id: order_notes_sql.get(conn, note_id),
        "shop_api_invalid_order_note_id",
        "The order note ID provided is not associated with the order",
    ),
    capabilities=_ORDER_CHILD_CAPABILITIES,
    invalid_id=lambda note_id: ApiError(
        "shop_api_invalid_order_note_id", "Invalid order note ID", 400
    ),
    not_found=lambda note_id: ApiError(
        "shop_api_invalid_order_note_id",
        "An order note with the provided ID could not be found",
        404,
    ),
    denials={
        "create": (
            "shop_api_user_cannot_create_order_note",
            "You do not have permission to create order notes",
        ),
    },
    order=("id", "record"),
)

#: Order refunds, within their order, like notes (reference orders.md §7, decisions.md §6).
ORDER_REFUNDS = Loader(
    "order_refund",
    fetch=_child_of_order(
        lambda conn, refund_id: order_refunds_sql.get(conn, refund_id),
        "shop_api_invalid_order_refund_id",
        "The order refund ID provided is not associated with the order.",
    ),
    capabilities=_ORDER_CHILD_CAPABILITIES,
    invalid_id=lambda refund_id: ApiError(
        "shop_api_invalid_order_refund_id", "Invalid order refund ID.", 400
    ),
    not_found=lambda refund_id: ApiError(
        "shop_api_invalid_order_refund_id",
        "An order refund with the provided ID could not be found.",
        404,
    ),
    denials={
        "create": (
            "shop_api_user_cannot_create_order_refund",
            "You do not have permission to create order refunds",
        ),
    },
    order=("id", "record"),
)

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

#: The capability of every attribute and term route.
MANAGE_TERMS = "manage_product_terms"
_TERM_ACTIONS = ("read", "create", "edit", "delete")


def _attribute_denial(action: str) -> tuple[str, str]:
    noun = "product_attributes" if action == "read" else "product_attribute"
    return (
        f"shop_api_user_cannot_{action}_{noun}",
        f"You do not have permission to {action} product attributes",
    )


#: Global attributes: get — id 0 (400), capability, existence; edit and delete — capability,
#: then id 0 and existence.
ATTRIBUTES = Loader(
    "product_attribute",
    fetch=attributes_sql.get,
    capabilities=dict.fromkeys(_TERM_ACTIONS, MANAGE_TERMS),
    invalid_id=lambda attribute_id: invalid_attribute_id(),
    not_found=lambda attribute_id: attribute_not_found(),
    denials={action: _attribute_denial(action) for action in _TERM_ACTIONS},
    order=("capability", "id", "record"),
    orders={"read": ("id", "capability", "record")},
)


# --- the term-like families


def _attribute_of(conn: Connection, scope: Scope) -> Row:
    """The attribute whose terms ``scope`` holds; 404 when there is none."""
    return ATTRIBUTES.find(conn, int(scope.value))


def _term_in_scope(conn: Connection, term_id: int, scope: Scope) -> Row | None:
    return terms_sql.get(conn, scope, term_id)


@dataclass(frozen=True)
class TermFamily:
    """What one term-like family (categories, tags, shipping classes, attribute terms) is
    called, where its rows live and how its codes differ (reference products.md §13–§17)."""

    singular: str  # the envelope, e.g. ``product_category``
    plural: str  # the list envelope, e.g. ``product_categories``
    label: str  # ``product category``, in messages
    labels: str  # ``product categories``
    short: str  # ``category``, in "Could not edit the category"
    store: Store
    fields: tuple[str, ...]  # write fields beyond ``name`` and ``slug``
    taxonomy: str = ""  # the ``terms.taxonomy``; "" for attribute terms (scoped by attribute)
    order: str = "name"  # the list order; attribute terms use their attribute's ``order_by``
    delete_label: str = ""  # the noun of the delete permission message (default: ``labels``)
    write_codes_plural: bool = False  # create/edit/delete permission codes name the plural
    edit_missing_code: str = ""  # default ``shop_api_missing_<singular>``
    edit_failed_code: str = ""  # default ``shop_api_cannot_edit_<singular>``
    edit_failure_detail: bool = False  # edit failures say why (else "Could not edit the …")
    name_required_code: str = ""  # a missing name has its own code (else cannot_create)
    edit_parent_code: bool = False  # an unknown parent on edit is ``…invalid_<x>_parent`` too

    @functools.cached_property
    def loader(self) -> Loader:
        """get — id 0 (400), capability, the attribute (attribute terms), existence (404);
        edit and delete — capability, the attribute, then id 0 and existence."""
        return Loader(
            self.singular,
            fetch=_term_in_scope,
            capabilities=dict.fromkeys(_TERM_ACTIONS, MANAGE_TERMS),
            invalid_id=lambda term_id: ApiError(
                f"shop_api_invalid_{self.singular}_id", f"Invalid {self.label} ID", 400
            ),
            not_found=lambda term_id: ApiError(
                f"shop_api_invalid_{self.singular}_id",
                f"A {self.label} with the provided ID could not be found",
                404,
            ),
            denials={action: self._denial(action) for action in _TERM_ACTIONS},
            check_scope=None if self.taxonomy else _attribute_of,
            order=("capability", "scope", "id", "record"),
            orders={"read": ("id", "capability", "scope", "record")},
        )

    def _denial(self, action: str) -> tuple[str, str]:
        noun = self.plural if action == "read" or self.write_codes_plural else self.singular
        labels = self.delete_label if action == "delete" and self.delete_label else self.labels
        return (
            f"shop_api_user_cannot_{action}_{noun}",
            f"You do not have permission to {action} {labels}",
        )

    def scope(self, attribute_id: int | None = None) -> Scope:
        """The family's terms; for attribute terms, those of ``attribute_id`` (whether it
        exists is the loader's ``scope`` check, or :meth:`open`'s)."""
        if self.taxonomy:
            return Scope(self.store, self.taxonomy)
        assert attribute_id is not None
        return Scope(self.store, attribute_id)

    def open(self, conn: Connection, attribute_id: int | None = None) -> tuple[Scope, str]:
        """The family's terms and the order of their list; for attribute terms, those of an
        attribute that exists (else its 404) in the attribute's ``order_by``."""
        scope = self.scope(attribute_id)
        if self.taxonomy:
            return scope, self.order
        return scope, _attribute_of(conn, scope)["order_by"]

    # --- errors

    def missing(self, action: str) -> tuple[str, str]:
        """The code and message of a body without the envelope."""
        code = f"shop_api_missing_{self.singular}_data"
        if action == "edit":
            code = self.edit_missing_code or f"shop_api_missing_{self.singular}"
        return code, f"No {self.singular} data specified to {action} {self.singular}"

    def cannot(self, action: str, detail: str) -> ApiError:
        code = f"shop_api_cannot_{action}_{self.singular}"
        if action == "edit":
            code = self.edit_failed_code or code
            if not self.edit_failure_detail:
                detail = f"Could not edit the {self.short}"
        return ApiError(code, detail, 400)

    def invalid_parent(self) -> ApiError:
        label = self.label[0].upper() + self.label[1:]
        return ApiError(
            f"shop_api_invalid_{self.singular}_parent", f"{label} parent is invalid", 400
        )

    def cannot_delete(self) -> ApiError:
        return ApiError(
            f"shop_api_cannot_delete_{self.singular}", f"Could not delete the {self.short}", 401
        )


CATEGORIES = TermFamily(
    "product_category",
    "product_categories",
    "product category",
    "product categories",
    "category",
    terms_sql.TAXONOMY,
    ("description", "parent", "display", "image"),
    taxonomy="product_cat",
    order="menu_order",
    delete_label="product category",
    edit_failed_code="shop_api_cannot_edit_product_catgory",
    edit_parent_code=True,
)
TAGS = TermFamily(
    "product_tag",
    "product_tags",
    "product tag",
    "product tags",
    "tag",
    terms_sql.TAXONOMY,
    ("description",),
    taxonomy="product_tag",
    delete_label="product tag",
)
SHIPPING_CLASSES = TermFamily(
    "product_shipping_class",
    "product_shipping_classes",
    "product shipping class",
    "product shipping classes",
    "shipping class",
    terms_sql.SHIPPING,
    ("description", "parent"),
    taxonomy="product_shipping_class",
)
ATTRIBUTE_TERMS = TermFamily(
    "product_attribute_term",
    "product_attribute_terms",
    "product attribute term",
    "product attribute terms",
    "attribute term",
    terms_sql.ATTRIBUTE,
    ("menu_order",),
    write_codes_plural=True,
    edit_missing_code="shop_api_missing_product_attribute_term_data",
    edit_failure_detail=True,
    name_required_code="shop_api_missing_product_attribute_term_name",
)
TERM_FAMILIES = (CATEGORIES, TAGS, SHIPPING_CLASSES, ATTRIBUTE_TERMS)
