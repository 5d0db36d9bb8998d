"""Global product attributes: ``/products/attributes`` and ``/products/attributes/<id>``.

Every operation needs ``manage_product_terms``. Checks run in the reference's order: get — id 0
(400), capability, existence (404); create — envelope, capability, then the fields
(``validation.attributes``); edit — envelope, capability, id 0 / existence, the fields, then a
slug that belongs to another attribute (400 ``shop_api_cannot_edit_product_attribute``);
delete — capability, id 0 / existence, then the delete (the attribute's terms go too). Loading
and capabilities: ``loaders.terms.ATTRIBUTES``; the writes: ``writers.attributes``.
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.loaders.terms import ATTRIBUTES
from shopsvc.records.attributes import attribute_record, attribute_record_by_id
from shopsvc.sql import attributes as attributes_sql
from shopsvc.validation.attributes import clean_attribute
from shopsvc.views import READ
from shopsvc.web import rendering
from shopsvc.web.resources import Attribute, Attributes
from shopsvc.writers import attributes as attribute_writes

ENVELOPE = "product_attribute"
EDIT = {"request_method": ("POST", "PUT", "PATCH")}


def _envelope(request: Request, action: str) -> Any:
    return request.envelope(
        ENVELOPE,
        "shop_api_missing_product_attribute_data",
        f"No {ENVELOPE} data specified to {action} {ENVELOPE}",
    )


def _single(request: Request, attribute_id: int, status: int = 200) -> Response:
    record = attribute_record_by_id(request.record_context, attribute_id)
    return rendering.single(request, ENVELOPE, record, status=status)


@view_config(context=Attributes, **READ)
def list_attributes(context: Attributes, request: Request) -> Response:
    ATTRIBUTES.require(request, "read")
    ctx = request.record_context
    records = [attribute_record(ctx, row) for row in attributes_sql.list_all(request.db)]
    return rendering.listing(request, "product_attributes", records, len(records))


@view_config(context=Attribute, **READ)
def get_attribute(context: Attribute, request: Request) -> Response:
    row = ATTRIBUTES.load(request, context.id, "read")
    return rendering.single(request, ENVELOPE, attribute_record(request.record_context, row))


@view_config(context=Attributes, request_method="POST")
def create_attribute(context: Attributes, request: Request) -> Response:
    data = _envelope(request, "create")
    ATTRIBUTES.require(request, "create")

    def taken(slug: str) -> bool:
        return attributes_sql.slug_owner(request.db, slug) is not None

    values = clean_attribute(data, None, taken)
    attribute_id = attribute_writes.create_attribute(request.write_context, values)
    return _single(request, attribute_id, status=201)


@view_config(context=Attribute, **EDIT)
def edit_attribute(context: Attribute, request: Request) -> Response:
    data = _envelope(request, "edit")
    current = ATTRIBUTES.load(request, context.id, "edit")
    values = clean_attribute(data, current, None)
    attribute_writes.edit_attribute(request.write_context, current, values)
    return _single(request, context.id)


@view_config(context=Attribute, request_method="DELETE")
def delete_attribute(context: Attribute, request: Request) -> Response:
    ATTRIBUTES.load(request, context.id, "delete")
    attribute_writes.delete_attribute(request.write_context, context.id)
    return rendering.message(request, "Deleted product_attribute")
