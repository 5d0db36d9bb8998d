"""Global product attributes: ``/products/attributes`` and ``/products/attributes/<id>``.

Every operation needs ``manage_product_terms``. Checks run in the reference's order: get — id 0
(400), capability, existence (404); create — envelope, capability, then the fields
(``validation.attributes``); edit — envelope, capability, id 0 / existence, the fields, then a
slug that belongs to another attribute (400 ``shop_api_cannot_edit_product_attribute``);
delete — capability, id 0 / existence, then the delete (the attribute's terms go too). The
slug is shown with the ``pa_`` prefix and stored without it; it is unique by a unique index as
well as by the checks.
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc import rendering
from shopsvc.domain.catalog import check_attribute_slug
from shopsvc.errors import ApiError
from shopsvc.resources import Attribute, Attributes
from shopsvc.sql import attributes as attributes_sql
from shopsvc.validation.attributes import (
    attribute_not_found,
    clean_attribute,
    invalid_attribute_id,
)

CAPABILITY = "manage_product_terms"
ENVELOPE = "product_attribute"
READ = {"request_method": ("GET", "HEAD")}
EDIT = {"request_method": ("POST", "PUT", "PATCH")}
PREFIX = "pa_"


def attribute_record(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "slug": PREFIX + row["slug"],
        "type": row["type"],
        "order_by": row["order_by"],
        "has_archives": bool(row["has_archives"]),
    }


def _require(request: Request, action: str) -> None:
    noun = "attributes" if action == "read" else "attribute"
    request.require(
        CAPABILITY,
        f"shop_api_user_cannot_{action}_product_{noun}",
        f"You do not have permission to {action} product attributes",
    )


def _envelope(request: Request, action: str) -> Any:
    return request.envelope(
        ENVELOPE,
        "shop_api_missing_product_attribute_data",
        f"No {ENVELOPE} data specified to {action} {ENVELOPE}",
    )


def _load(request: Request, attribute_id: int) -> dict[str, Any]:
    if attribute_id == 0:
        raise invalid_attribute_id()
    row = attributes_sql.get(request.db, attribute_id)
    if row is None:
        raise attribute_not_found()
    return row


def _single(request: Request, attribute_id: int, status: int = 200) -> Response:
    row = attributes_sql.get(request.db, attribute_id)
    assert row is not None
    return rendering.single(request, ENVELOPE, attribute_record(row), status=status)


@view_config(context=Attributes, **READ)
def list_attributes(context: Attributes, request: Request) -> Response:
    _require(request, "read")
    records = [attribute_record(row) for row in attributes_sql.list_all(request.db)]
    return rendering.listing(request, "product_attributes", records, len(records))


@view_config(context=Attribute, **READ)
def get_attribute(context: Attribute, request: Request) -> Response:
    if context.id == 0:
        raise invalid_attribute_id()
    _require(request, "read")
    return rendering.single(request, ENVELOPE, attribute_record(_load(request, context.id)))


@view_config(context=Attributes, request_method="POST")
def create_attribute(context: Attributes, request: Request) -> Response:
    data = _envelope(request, "create")
    _require(request, "create")

    def taken(slug: str) -> bool:
        return attributes_sql.slug_owner(request.db, slug) is not None

    values = clean_attribute(data, None, taken)
    attribute_id = attributes_sql.insert_attribute(request.db, values)
    if attribute_id is None:  # a concurrent request took the slug
        error = check_attribute_slug(values["slug"], {values["slug"]})
        assert error is not None
        raise error
    return _single(request, attribute_id, status=201)


@view_config(context=Attribute, **EDIT)
def edit_attribute(context: Attribute, request: Request) -> Response:
    data = _envelope(request, "edit")
    _require(request, "edit")
    current = _load(request, context.id)
    values = clean_attribute(data, current, None)
    owner = attributes_sql.slug_owner(request.db, values["slug"])
    changes = {key: value for key, value in values.items() if value != current[key]}
    moved_onto_another = owner is not None and owner != context.id
    if moved_onto_another or not attributes_sql.update_attribute(request.db, context.id, changes):
        raise ApiError(
            "shop_api_cannot_edit_product_attribute", "Could not edit the attribute", 400
        )
    return _single(request, context.id)


@view_config(context=Attribute, request_method="DELETE")
def delete_attribute(context: Attribute, request: Request) -> Response:
    _require(request, "delete")
    _load(request, context.id)
    if not attributes_sql.delete_attribute(request.db, context.id):
        raise ApiError(
            "shop_api_cannot_delete_product_attribute", "Could not delete the attribute", 401
        )
    return rendering.message(request, "Deleted product_attribute")
