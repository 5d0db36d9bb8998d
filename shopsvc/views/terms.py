"""The four term-like families, one implementation: ``/products/categories``, ``/products/tags``,
``/products/shipping_classes`` and ``/products/attributes/<attribute_id>/terms`` (each with
``/<id>``).

A :class:`Family` describes what differs: envelope names, codes and messages, which extra fields
it has, where its rows live and how its list is ordered. Every operation needs
``manage_product_terms``. Checks run in the reference's order (decisions.md §5 where it
differs):

* list — capability, the attribute (terms);
* get — id 0 (400), capability, the attribute (terms), existence (404);
* create — envelope, capability, the attribute (terms), field types, the name (terms), the
  parent, the image, then the name and slug rules (``…cannot_create…``);
* edit — envelope, capability, the attribute (terms), id 0 / existence, field types, the image,
  then the name, parent and slug rules (``…cannot_edit…``; a category parent that does not
  exist is ``shop_api_invalid_product_category_parent``, as on create: the spec's "``parent``
  must be an existing category" covers both);
* delete — capability, the attribute (terms), id 0 / existence, then the delete.

Lists are unpaginated; ``count`` is the number of published products using a term.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from shopsvc import rendering
from shopsvc.domain.catalog import slugify_name, sort_terms, unique_slug
from shopsvc.errors import ApiError
from shopsvc.media import download_image, media_url
from shopsvc.resources import (
    Attribute,
    AttributeTerm,
    AttributeTerms,
    Categories,
    Category,
    Item,
    Resource,
    ShippingClass,
    ShippingClasses,
    Tag,
    Tags,
)
from shopsvc.sql import attributes as attributes_sql
from shopsvc.sql import media as media_sql
from shopsvc.sql import terms as terms_sql
from shopsvc.sql.terms import Scope, Store
from shopsvc.validation.attributes import attribute_not_found
from shopsvc.validation.terms import MAX_SLUG, ImageRef, clean_term

CAPABILITY = "manage_product_terms"
#: Output fields beyond ``id, name, slug`` and before ``count``, in output order.
OUTPUT_EXTRAS = ("parent", "description", "display", "image")
NAME_REQUIRED = "A name is required for this term."
#: Room kept for a ``-N`` suffix when a generated slug is made unique.
SLUG_BASE_LENGTH = MAX_SLUG - 10
CREATE_DEFAULTS: dict[str, Any] = {
    "name": "",
    "slug": "",
    "description": "",
    "parent": 0,
    "display": "",
    "menu_order": 0,
}


@dataclass(frozen=True)
class Family:
    """What one term-like family is called, where it lives and how it differs."""

    singular: str  # the envelope, e.g. ``product_category``
    plural: str  # the list envelope, e.g. ``product_categories``
    label: str  # ``product category``, in messages
    labels: str  # ``product categories``
    short: str  # ``category``, in "Could not edit the category"
    container: type[Resource]
    item: type[Item]
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

    # --- errors

    def invalid_id(self) -> ApiError:
        return ApiError(f"shop_api_invalid_{self.singular}_id", f"Invalid {self.label} ID", 400)

    def not_found(self) -> ApiError:
        return ApiError(
            f"shop_api_invalid_{self.singular}_id",
            f"A {self.label} with the provided ID could not be found",
            404,
        )

    def require(self, request: Request, action: str) -> None:
        noun = self.plural if action == "read" or self.write_codes_plural else self.singular
        labels = self.delete_label if action == "delete" and self.delete_label else self.labels
        request.require(
            CAPABILITY,
            f"shop_api_user_cannot_{action}_{noun}",
            f"You do not have permission to {action} {labels}",
        )

    def envelope(self, request: Request, action: str) -> Any:
        code = f"shop_api_missing_{self.singular}_data"
        if action == "edit":
            code = self.edit_missing_code or f"shop_api_missing_{self.singular}"
        return request.envelope(
            self.singular, code, f"No {self.singular} data specified to {action} {self.singular}"
        )

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


CATEGORIES = Family(
    "product_category",
    "product_categories",
    "product category",
    "product categories",
    "category",
    Categories,
    Category,
    terms_sql.TAXONOMY,
    ("description", "parent", "display", "image"),
    taxonomy="product_cat",
    order="menu_order",
    delete_label="product category",
    edit_failed_code="shop_api_cannot_edit_product_catgory",
    edit_parent_code=True,
)
TAGS = Family(
    "product_tag",
    "product_tags",
    "product tag",
    "product tags",
    "tag",
    Tags,
    Tag,
    terms_sql.TAXONOMY,
    ("description",),
    taxonomy="product_tag",
    delete_label="product tag",
)
SHIPPING_CLASSES = Family(
    "product_shipping_class",
    "product_shipping_classes",
    "product shipping class",
    "product shipping classes",
    "shipping class",
    ShippingClasses,
    ShippingClass,
    terms_sql.SHIPPING,
    ("description", "parent"),
    taxonomy="product_shipping_class",
)
ATTRIBUTE_TERMS = Family(
    "product_attribute_term",
    "product_attribute_terms",
    "product attribute term",
    "product attribute terms",
    "attribute term",
    AttributeTerms,
    AttributeTerm,
    terms_sql.ATTRIBUTE,
    ("menu_order",),
    write_codes_plural=True,
    edit_missing_code="shop_api_missing_product_attribute_term_data",
    edit_failure_detail=True,
    name_required_code="shop_api_missing_product_attribute_term_name",
)
FAMILIES = (CATEGORIES, TAGS, SHIPPING_CLASSES, ATTRIBUTE_TERMS)


# --- shared steps


def _scope(family: Family, request: Request, context: Resource) -> tuple[Scope, str]:
    """The family's terms (for attribute terms: of the route's attribute, 404 when unknown) and
    the order of its list."""
    if family.taxonomy:
        return Scope(family.store, family.taxonomy), family.order
    node = context.find(Attribute)
    assert isinstance(node, Attribute)
    attribute = attributes_sql.get(request.db, node.id)
    if attribute is None:
        raise attribute_not_found()
    return Scope(family.store, attribute["id"]), attribute["order_by"]


def _check_id(family: Family, term_id: int) -> None:
    if term_id == 0:
        raise family.invalid_id()


def _load(family: Family, request: Request, scope: Scope, term_id: int) -> dict[str, Any]:
    _check_id(family, term_id)
    row = terms_sql.get(request.db, scope, term_id)
    if row is None:
        raise family.not_found()
    return row


def term_record(family: Family, request: Request, row: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {"id": row["id"], "name": row["name"], "slug": row["slug"]}
    for field in OUTPUT_EXTRAS:
        if field not in family.fields:
            continue
        if field == "display":
            record[field] = row["display"] or "default"
        elif field == "image":
            record[field] = media_url(request, row["image_file"]) if row["image_file"] else ""
        else:
            record[field] = row[field]
    record["count"] = row["count"]
    return record


def _image_id(request: Request, image: ImageRef) -> int | None:
    """The media id of a written ``image``: an existing image attachment, a downloaded URL, or
    None (no image: ``""``, 0, or an id that is not a stored image)."""
    if image.url:
        return download_image(request, image.url, "shop_api_product_category_image_upload_error")
    row = media_sql.get(request.db, image.attachment_id) if image.attachment_id > 0 else None
    if row is None or not str(row["mime_type"]).startswith("image/"):
        return None
    return int(row["id"])


def _free_slug(request: Request, scope: Scope, name: str, exclude: int | None = None) -> str:
    """A slug generated from ``name``, made unique in the scope with ``-2``, ``-3``, …"""
    base = slugify_name(name)[:SLUG_BASE_LENGTH].rstrip("-")
    if not base:
        return ""
    return unique_slug(base, terms_sql.slugs_like(request.db, scope, base, exclude))


def _duplicate_name(family: Family) -> str:
    if "parent" in family.fields:
        return "A term with the name provided already exists with this parent."
    return "A term with the name provided already exists in this taxonomy."


def _slug_in_use(slug: str) -> str:
    return f'The slug "{slug}" is already in use by another term.'


def _conflict(
    family: Family,
    request: Request,
    scope: Scope,
    values: dict[str, Any],
    current: dict[str, Any] | None,
) -> str | None:
    """Why ``values`` (name, slug, parent) cannot be written, or None. On edit (``current``
    given) the name and the slug are checked only when they change."""
    db = request.db
    term_id = None if current is None else current["id"]
    if not values["name"]:
        return NAME_REQUIRED
    parent = values.get("parent", 0)
    if (
        current is None or (values["name"], parent) != (current["name"], current["parent"])
    ) and terms_sql.sibling_named(db, scope, values["name"], parent, term_id):
        return _duplicate_name(family)
    if values["slug"] and (current is None or values["slug"] != current["slug"]):
        owner = terms_sql.slug_owner(db, scope, values["slug"])
        if owner is not None and owner != term_id:
            return _slug_in_use(values["slug"])
    return None


def _parent_allowed(request: Request, scope: Scope, term_id: int, parent: int) -> bool:
    """Whether the term may move under ``parent`` (0: the top): an existing term of the scope
    that is neither the term itself nor one of its descendants."""
    if not parent:
        return True
    if not terms_sql.exists(request.db, scope, parent):
        return False
    tree = terms_sql.parents(request.db, scope)
    seen: set[int] = set()
    while parent and parent not in seen:
        if parent == term_id:
            return False
        seen.add(parent)
        parent = tree.get(parent, 0)
    return True


def _write(
    family: Family,
    request: Request,
    scope: Scope,
    values: dict[str, Any],
    term_id: int | None,
    generated: bool,
) -> int:
    """Insert (``term_id`` None) or update a term whose name and slug rules already passed.

    A unique index may still refuse the slug when a concurrent request took it: a generated
    slug is then made unique again, a given one is the family's ``cannot`` error. An empty
    generated slug (a name with nothing to slugify) becomes the term's id, as the original does.
    """
    action = "create" if term_id is None else "edit"
    for _attempt in range(3):
        from_id = not values["slug"]
        if from_id:  # a placeholder no slug can collide with, replaced below
            values = {**values, "slug": f"-{uuid.uuid4().hex}"}
        if term_id is None:
            written = terms_sql.insert_term(request.db, scope, values)
        elif terms_sql.update_term(request.db, scope, term_id, values):
            written = term_id
        else:
            written = None
        if written is not None:
            if from_id:
                base = str(written)
                taken = terms_sql.slugs_like(request.db, scope, base, written)
                terms_sql.update_term(
                    request.db, scope, written, {"slug": unique_slug(base, taken)}
                )
            return written
        if not generated:
            break
        values = {**values, "slug": _free_slug(request, scope, values["name"], term_id)}
    raise family.cannot(action, _slug_in_use(values["slug"]))


def _stored_display(value: str) -> str:
    """``default`` is stored as ``""`` (and shown as ``default``)."""
    return "" if value == "default" else value


# --- the operations


def list_terms(family: Family, context: Resource, request: Request) -> Response:
    family.require(request, "read")
    scope, order = _scope(family, request, context)
    rows = sort_terms(terms_sql.list_all(request.db, scope), order)
    records = [term_record(family, request, row) for row in rows]
    return rendering.listing(request, family.plural, records, len(records))


def get_term(family: Family, context: Item, request: Request) -> Response:
    _check_id(family, context.id)
    family.require(request, "read")
    scope, _order = _scope(family, request, context)
    row = _load(family, request, scope, context.id)
    return rendering.single(request, family.singular, term_record(family, request, row))


def create_term(family: Family, context: Resource, request: Request) -> Response:
    data = family.envelope(request, "create")
    family.require(request, "create")
    scope, _order = _scope(family, request, context)
    given = clean_term(data, family.singular, ("name", "slug", *family.fields))
    if family.name_required_code and not given.get("name"):
        raise ApiError(family.name_required_code, "Missing parameter name", 400)
    values = CREATE_DEFAULTS | given
    values["display"] = _stored_display(values["display"])
    if values["parent"] and not terms_sql.exists(request.db, scope, values["parent"]):
        raise family.invalid_parent()
    if "image" in given:
        values["image_id"] = _image_id(request, values.pop("image"))
    problem = _conflict(family, request, scope, values, None)
    if problem is not None:
        raise family.cannot("create", problem)
    generated = not values["slug"]
    if generated:
        values["slug"] = _free_slug(request, scope, values["name"])
    term_id = _write(family, request, scope, values, None, generated)
    row = terms_sql.get(request.db, scope, term_id)
    assert row is not None
    record = term_record(family, request, row)
    return rendering.single(request, family.singular, record, status=201)


def edit_term(family: Family, context: Item, request: Request) -> Response:
    data = family.envelope(request, "edit")
    family.require(request, "edit")
    scope, _order = _scope(family, request, context)
    current = _load(family, request, scope, context.id)
    term_id = current["id"]
    given = clean_term(data, family.singular, ("name", "slug", *family.fields))
    if "image" in given:
        given["image_id"] = _image_id(request, given.pop("image"))
    display = given.pop("display", "")
    if display:  # updated only when non-empty
        given["display"] = _stored_display(display)
    values = {"name": current["name"], "slug": current["slug"], "parent": current["parent"]}
    values |= given
    if values["parent"] != current["parent"]:
        if (
            family.edit_parent_code
            and values["parent"]
            and not terms_sql.exists(request.db, scope, values["parent"])
        ):
            raise family.invalid_parent()
        if not _parent_allowed(request, scope, term_id, values["parent"]):
            raise family.cannot("edit", "Parent term does not exist or would create a loop.")
    generated = "slug" in given and not given["slug"]
    if generated:
        values["slug"] = _free_slug(request, scope, values["name"], term_id)
    problem = _conflict(family, request, scope, values, current)
    if problem is not None:
        raise family.cannot("edit", problem)
    _write(family, request, scope, values, term_id, generated)
    row = terms_sql.get(request.db, scope, term_id)
    assert row is not None
    return rendering.single(request, family.singular, term_record(family, request, row))


def delete_term(family: Family, context: Item, request: Request) -> Response:
    family.require(request, "delete")
    scope, _order = _scope(family, request, context)
    _load(family, request, scope, context.id)
    if not terms_sql.delete_term(request.db, scope, context.id):
        raise family.cannot_delete()
    return rendering.message(request, f"Deleted {family.singular}")


# --- registration

READ = ("GET", "HEAD")
EDIT = ("POST", "PUT", "PATCH")
OperationView = Callable[[Family, Any, Request], Response]


def _bind(operation: OperationView, family: Family) -> Callable[[Any, Request], Response]:
    def view(context: Any, request: Request) -> Response:
        return operation(family, context, request)

    view.__name__ = f"{operation.__name__}_{family.singular}"
    return view


def includeme(config: Configurator) -> None:
    for family in FAMILIES:
        routes: list[tuple[OperationView, type[Resource], Any]] = [
            (list_terms, family.container, READ),
            (create_term, family.container, "POST"),
            (get_term, family.item, READ),
            (edit_term, family.item, EDIT),
            (delete_term, family.item, "DELETE"),
        ]
        for operation, context, methods in routes:
            config.add_view(_bind(operation, family), context=context, request_method=methods)
