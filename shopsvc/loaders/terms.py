"""The loaders of attributes and of the term families (categories, tags, shipping classes,
attribute terms): a term is checked in its scope (the attribute it belongs to)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sqlalchemy import Connection

from shopsvc.errors import ApiError
from shopsvc.loaders.base import Loader, Row
from shopsvc.sql import attributes as attributes_sql
from shopsvc.sql import terms as terms_sql
from shopsvc.sql.terms import Scope, Store
from shopsvc.validation.attributes import attribute_not_found, invalid_attribute_id

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
