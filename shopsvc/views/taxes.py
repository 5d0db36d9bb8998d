"""Tax rates and tax classes: ``/taxes``, ``/taxes/count``, ``/taxes/<id>``, ``/taxes/bulk``,
``/taxes/classes``, ``/taxes/classes/count`` and ``/taxes/classes/<slug>``.

Checks run in the spec's order: envelope, capability (``manage_shop``), existence, then the type
and shape of the fields. The rate list pages like every list but is always ordered by ``order``
then id; the class list is unpaginated, the built-in ``standard`` class first.
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc import rendering
from shopsvc.bulk import run_bulk
from shopsvc.domain.tax import format_rate, tax_class_slug
from shopsvc.errors import ApiError, invalid_param
from shopsvc.listing import ListParams, parse_list_params
from shopsvc.resources import (
    TaxClass,
    TaxClasses,
    TaxClassesCount,
    Taxes,
    TaxesBulk,
    TaxesCount,
    TaxRate,
)
from shopsvc.sql import taxes as taxes_sql
from shopsvc.validation import taxes as validation
from shopsvc.validation.types import parse_int, require_object

READ = {"request_method": ("GET", "HEAD")}
EDIT = {"request_method": ("POST", "PUT", "PATCH")}
STANDARD_CLASS = {"slug": "standard", "name": "Standard rate"}
# Column of each output field a rate edit may change.
COLUMNS = (
    "country",
    "state",
    "rate",
    "name",
    "priority",
    "compound",
    "shipping",
    "rate_order",
)


def _require(request: Request, action: str, what: str) -> None:
    request.require(
        "manage_shop",
        f"shop_api_user_cannot_{action}",
        f"You do not have permission to {what}.",
    )


def tax_record(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "country": row["country"],
        "state": row["state"],
        "postcode": ";".join(row["postcodes"]),
        "city": ";".join(row["cities"]),
        "rate": format_rate(row["rate"]),
        "name": row["name"],
        "priority": row["priority"],
        "compound": bool(row["compound"]),
        "shipping": bool(row["shipping"]),
        "order": row["order"],
        "class": row["class"] or "standard",
    }


def _load(request: Request, rate_id: int) -> dict[str, Any]:
    row = taxes_sql.get_rate(request.db, rate_id)
    if row is None:
        raise ApiError(
            "shop_api_invalid_tax_id", "A tax rate with the provided ID could not be found.", 404
        )
    return row


def _class_id(request: Request, slug: str) -> int | None:
    """The id of the class ``slug`` (None for the standard class ``""``); 400 when unknown."""
    if slug == "":
        return None
    found = taxes_sql.class_id(request.db, slug)
    if found is None:
        raise ApiError("shop_api_invalid_tax_class", f'Tax class "{slug}" does not exist.', 400)
    return found


def _list_params(request: Request) -> ListParams:
    """The common list parameters; rates are always listed by ``order``, then id."""
    return parse_list_params(request.query, request.filters, request.shop, fixed_order="order")


def _class_filter(request: Request) -> str | None:
    value = request.query.get("class")
    if value is None or value.strip() == "":
        value = request.filters.get("tax_rate_class")
    return validation.class_filter(value)


# --- the operations, shared by the single routes and the bulk route


def create_rate(request: Request, data: Any) -> dict[str, Any]:
    """Create a rate from the ``tax`` envelope's value (the capability is already checked)."""
    clean = validation.clean_create(require_object(data, "tax"))
    values = {column: clean[column] for column in COLUMNS}
    values["tax_class_id"] = _class_id(request, clean["class_slug"])
    locations = {kind: clean[kind] for kind in validation.LOCATION_FIELDS}
    rate_id = taxes_sql.create_rate(request.db, values, locations)
    row = taxes_sql.get_rate(request.db, rate_id)
    assert row is not None
    return tax_record(row)


def _stored(column: str) -> str:
    """The key of a column's current value in a loaded rate."""
    return "order" if column == "rate_order" else column


def edit_rate(request: Request, rate_id: int, data: Any) -> dict[str, Any]:
    """Edit a rate: existence, then the fields; only values that differ are written."""
    current = _load(request, rate_id)
    clean = validation.clean_rate(require_object(data, "tax"))
    changes = {
        column: clean[column]
        for column in COLUMNS
        if column in clean and clean[column] != current[_stored(column)]
    }
    if "class_slug" in clean:
        class_id = _class_id(request, clean["class_slug"])
        if class_id != current["tax_class_id"]:
            changes["tax_class_id"] = class_id
    taxes_sql.update_rate(request.db, rate_id, changes)
    for kind, stored in taxes_sql.LOCATION_KINDS.items():
        if kind in clean and clean[kind] != current[stored]:
            taxes_sql.replace_locations(request.db, rate_id, kind, clean[kind])
    row = taxes_sql.get_rate(request.db, rate_id)
    assert row is not None
    return tax_record(row)


# --- rates


@view_config(context=Taxes, **READ)
def list_taxes(context: Taxes, request: Request) -> Response:
    _require(request, "read_tax", "read tax rate")
    params = _list_params(request)
    rows, total = taxes_sql.page_rates(request.db, params, _class_filter(request))
    records = [tax_record(row) for row in rows]
    return rendering.listing(request, "taxes", records, total, params.page, params.limit)


@view_config(context=TaxesCount, **READ)
def count_taxes(context: TaxesCount, request: Request) -> Response:
    _require(request, "read_taxes_count", "read the taxes count")
    params = _list_params(request)
    return rendering.count(
        request, taxes_sql.count_rates(request.db, params, _class_filter(request))
    )


@view_config(context=Taxes, request_method="POST")
def create_tax(context: Taxes, request: Request) -> Response:
    data = request.envelope(
        "tax", "shop_api_missing_tax_data", "No tax data specified to create tax"
    )
    _require(request, "create_tax", "create tax rates")
    return rendering.single(request, "tax", create_rate(request, data), status=201)


@view_config(context=TaxRate, **READ)
def get_tax(context: TaxRate, request: Request) -> Response:
    _require(request, "read_tax", "read tax rate")
    return rendering.single(request, "tax", tax_record(_load(request, context.id)))


@view_config(context=TaxRate, **EDIT)
def edit_tax(context: TaxRate, request: Request) -> Response:
    data = request.envelope("tax", "shop_api_missing_tax_data", "No tax data specified to edit tax")
    _require(request, "edit_tax", "edit tax rates")
    return rendering.single(request, "tax", edit_rate(request, context.id, data))


@view_config(context=TaxRate, request_method="DELETE")
def delete_tax(context: TaxRate, request: Request) -> Response:
    _require(request, "delete_tax", "delete tax rates")
    _load(request, context.id)
    if not taxes_sql.delete_rate(request.db, context.id):
        raise ApiError("shop_api_cannot_delete_tax", "Could not delete the tax rate.", 401)
    return rendering.message(request, "Deleted tax")


@view_config(context=TaxesBulk, **EDIT)
def bulk_taxes(context: TaxesBulk, request: Request) -> Response:
    def handle(element: dict[str, Any]) -> dict[str, Any]:
        rate_id = parse_int(element.get("id")) or 0
        if rate_id:
            _require(request, "edit_tax", "edit tax rates")
            return edit_rate(request, rate_id, element)
        _require(request, "create_tax", "create tax rates")
        return create_rate(request, element)

    return run_bulk(request, "taxes", handle)


# --- classes


@view_config(context=TaxClasses, **READ)
def list_tax_classes(context: TaxClasses, request: Request) -> Response:
    _require(request, "read_tax_classes", "read tax classes")
    records = [STANDARD_CLASS, *taxes_sql.list_classes(request.db)]
    return rendering.listing(request, "tax_classes", records, len(records))


@view_config(context=TaxClassesCount, **READ)
def count_tax_classes(context: TaxClassesCount, request: Request) -> Response:
    _require(request, "read_tax_classes_count", "read the tax classes count")
    return rendering.count(request, taxes_sql.count_classes(request.db) + 1)


@view_config(context=TaxClasses, request_method="POST")
def create_tax_class(context: TaxClasses, request: Request) -> Response:
    data = request.envelope(
        "tax_class",
        "shop_api_missing_tax_class_data",
        "No tax_class data specified to create tax_class",
    )
    _require(request, "create_tax_class", "create tax classes")
    name = validation.clean_class_name(require_object(data, "tax_class"))
    slug = tax_class_slug(name)
    if not slug:
        raise ApiError("shop_api_tax_class_invalid_name", "Tax class requires a valid name.", 401)
    if len(slug) > validation.MAX_TEXT:
        raise invalid_param(
            "tax_class.name", f"its slug must be at most {validation.MAX_TEXT} characters"
        )
    conflict = _class_conflict(request, name, slug)
    if conflict is not None:
        raise conflict
    if not taxes_sql.create_class(request.db, slug, name):
        # A unique index refused it: a concurrent request created the same name or slug.
        raise _class_conflict(request, name, slug) or _slug_exists()
    return rendering.single(request, "tax_class", {"slug": slug, "name": name}, status=201)


def _slug_exists() -> ApiError:
    return ApiError("shop_api_tax_class_slug_exists", "Tax class slug already exists.", 401)


def _class_conflict(request: Request, name: str, slug: str) -> ApiError | None:
    """The 401 for a new class whose name or slug is taken (the built-in class included)."""
    if name == STANDARD_CLASS["name"] or taxes_sql.class_name_exists(request.db, name):
        return ApiError("shop_api_tax_class_exists", "Tax class already exists.", 401)
    if slug == STANDARD_CLASS["slug"] or taxes_sql.class_id(request.db, slug) is not None:
        return _slug_exists()
    return None


@view_config(context=TaxClass, request_method="DELETE")
def delete_tax_class(context: TaxClass, request: Request) -> Response:
    _require(request, "delete_tax_class", "delete tax classes")
    slug = tax_class_slug(context.slug)
    if slug in ("", STANDARD_CLASS["slug"]) or not taxes_sql.delete_class(request.db, slug):
        raise ApiError("shop_api_cannot_delete_tax_class", "Could not delete the tax class.", 401)
    return rendering.message(request, "Deleted tax_class")
