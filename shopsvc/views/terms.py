"""The four term-like families, one implementation: ``/products/categories``, ``/products/tags``,
``/products/shipping_classes`` and ``/products/attributes/<attribute_id>/terms`` (each with
``/<id>``).

What differs between the families (envelopes, codes, fields, where the rows live) is their
:class:`~shopsvc.loaders.terms.TermFamily`; loading and capabilities are its ``loader``; the writes
are ``shopsvc.writers.terms``; the records ``shopsvc.records.terms``. Every operation needs
``manage_product_terms``. Checks run in the reference's order (decisions.md §5 where it
differs):

* list — capability, the attribute (terms);
* get — id 0 (400), capability, the attribute (terms), existence (404);
* create — envelope, capability, the attribute (terms), field types, then the writer's rules;
* edit — envelope, capability, the attribute (terms), id 0 / existence, field types, then the
  writer's rules;
* delete — capability, the attribute (terms), id 0 / existence, then the delete.

A category's image URL is downloaded once the capability is checked and before the transaction
begins. Lists are unpaginated; ``count`` is the number of published products using a term.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.domain.catalog import sort_terms
from shopsvc.loaders.terms import ATTRIBUTE_TERMS, CATEGORIES, SHIPPING_CLASSES, TAGS, TermFamily
from shopsvc.media.images import prefetch_images
from shopsvc.records.terms import term_record, term_record_by_id
from shopsvc.sql import terms as terms_sql
from shopsvc.validation.terms import NUMERIC, clean_term
from shopsvc.web import rendering
from shopsvc.web.resources import (
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
from shopsvc.writers import terms as term_writes

#: Each family with its list (container) and item resources.
ROUTES: tuple[tuple[TermFamily, type[Resource], type[Item]], ...] = (
    (CATEGORIES, Categories, Category),
    (TAGS, Tags, Tag),
    (SHIPPING_CLASSES, ShippingClasses, ShippingClass),
    (ATTRIBUTE_TERMS, AttributeTerms, AttributeTerm),
)


def _attribute_id(family: TermFamily, context: Resource) -> int | None:
    """The attribute on the route of an attribute term (None for the other families)."""
    if family.taxonomy:
        return None
    node = context.find(Attribute)
    assert isinstance(node, Attribute)
    return node.id


def _envelope(family: TermFamily, request: Request, action: str) -> Any:
    return request.envelope(family.singular, *family.missing(action))


def _prefetch_image(family: TermFamily, request: Request, data: Any) -> None:
    """Download a category's ``image`` URL before the transaction begins (the capability is
    already checked); a malformed value is left for the validation to report."""
    if "image" not in family.fields or not isinstance(data, dict):
        return
    image = data.get("image")
    if isinstance(image, str) and image.strip() and not NUMERIC.fullmatch(image):
        prefetch_images(request, [image.strip()], term_writes.CATEGORY_IMAGE_ERROR)


def _clean(family: TermFamily, data: Any) -> dict[str, Any]:
    return clean_term(data, family.singular, ("name", "slug", *family.fields))


# --- the operations


def list_terms(family: TermFamily, context: Resource, request: Request) -> Response:
    family.loader.require(request, "read")
    scope, order = family.open(request.db, _attribute_id(family, context))
    ctx = request.record_context
    rows = sort_terms(terms_sql.list_all(request.db, scope), order)
    records = [term_record(ctx, family, row) for row in rows]
    return rendering.listing(request, family.plural, records, len(records))


def get_term(family: TermFamily, context: Item, request: Request) -> Response:
    scope = family.scope(_attribute_id(family, context))
    row = family.loader.load(request, context.id, "read", scope)
    record = term_record(request.record_context, family, row)
    return rendering.single(request, family.singular, record)


def create_term(family: TermFamily, context: Resource, request: Request) -> Response:
    data = _envelope(family, request, "create")
    family.loader.require(request, "create")
    _prefetch_image(family, request, data)
    scope, _order = family.open(request.db, _attribute_id(family, context))
    term_id = term_writes.create_term(request.write_context, family, scope, _clean(family, data))
    record = term_record_by_id(request.record_context, family, scope, term_id)
    return rendering.single(request, family.singular, record, status=201)


def edit_term(family: TermFamily, context: Item, request: Request) -> Response:
    data = _envelope(family, request, "edit")
    family.loader.require(request, "edit")
    _prefetch_image(family, request, data)
    scope = family.scope(_attribute_id(family, context))
    # The loader checks the capability again in its place (cheap), then the attribute and id.
    current = family.loader.load(request, context.id, "edit", scope)
    term_writes.edit_term(request.write_context, family, scope, current, _clean(family, data))
    record = term_record_by_id(request.record_context, family, scope, context.id)
    return rendering.single(request, family.singular, record)


def delete_term(family: TermFamily, context: Item, request: Request) -> Response:
    scope = family.scope(_attribute_id(family, context))
    family.loader.load(request, context.id, "delete", scope)
    term_writes.delete_term(request.write_context, family, scope, context.id)
    return rendering.message(request, f"Deleted {family.singular}")


# --- registration

READ = ("GET", "HEAD")
EDIT = ("POST", "PUT", "PATCH")
OperationView = Callable[[TermFamily, Any, Request], Response]


def _bind(operation: OperationView, family: TermFamily) -> Callable[[Any, Request], Response]:
    def view(context: Any, request: Request) -> Response:
        return operation(family, context, request)

    view.__name__ = f"{operation.__name__}_{family.singular}"
    return view


def includeme(config: Configurator) -> None:
    for family, container, item in ROUTES:
        routes: list[tuple[OperationView, type[Resource], Any]] = [
            (list_terms, container, READ),
            (create_term, container, "POST"),
            (get_term, item, READ),
            (edit_term, item, EDIT),
            (delete_term, item, "DELETE"),
        ]
        for operation, context, methods in routes:
            config.add_view(_bind(operation, family), context=context, request_method=methods)
