"""Tax rates and tax classes: ``/taxes``, ``/taxes/count``, ``/taxes/<id>``, ``/taxes/bulk``,
``/taxes/classes``, ``/taxes/classes/count`` and ``/taxes/classes/<slug>``.

Checks run in the spec's order: envelope, capability (``manage_shop``), existence, then the type
and shape of the fields. ``/taxes/bulk`` runs set-based (:class:`RateBatch`: the same checks,
every rate written at once) unless its elements depend on one another; then each element is a
:class:`RateBatch` of its own, written before the next is planned. The rate list pages like
every list but is always ordered by ``order`` then id; the class list is unpaginated, the
built-in ``standard`` class first. Loading and capabilities: ``loaders.taxes.TAX_RATES`` and
``TAX_CLASSES``; the writes: ``writers.taxes``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.errors import ApiError
from shopsvc.loaders.taxes import STANDARD_TAX_CLASS, TAX_CLASSES, TAX_RATES
from shopsvc.records.taxes import tax_class_record, tax_record, tax_record_by_id
from shopsvc.sql import taxes as taxes_sql
from shopsvc.validation import taxes as validation
from shopsvc.validation.types import MAX_INT, MIN_INT, check_int, range_problem, require_object
from shopsvc.views import READ
from shopsvc.web import rendering
from shopsvc.web.bulk import Sequential, error_item, run_bulk
from shopsvc.web.listing import ListParams, parse_list_params
from shopsvc.web.resources import (
    TaxClass,
    TaxClasses,
    TaxClassesCount,
    Taxes,
    TaxesBulk,
    TaxesCount,
    TaxRate,
)
from shopsvc.writers import taxes as tax_writes

EDIT = {"request_method": ("POST", "PUT", "PATCH")}


def _list_params(request: Request) -> ListParams:
    """The common list parameters; rates are always listed by ``order``, then id."""
    return parse_list_params(request.query, request.filters, request.shop, fixed_order="order")


def _class_filter(request: Request) -> str | None:
    value = request.query.get("class")
    if value is None or value.strip() == "":
        value = request.filters.get("tax_rate_class")
    return validation.class_filter(value)


# --- the operations, shared by the single routes and the bulk route


def _create(request: Request, data: Any) -> dict[str, Any]:
    """Create a rate from the ``tax`` envelope's value (the capability is already checked)."""
    clean = validation.clean_create(require_object(data, "tax"))
    rate_id = tax_writes.create_rate(request.write_context, clean)
    return tax_record_by_id(request.record_context, rate_id)


def _edit(request: Request, current: dict[str, Any], data: Any) -> dict[str, Any]:
    """Edit the loaded rate ``current`` from the ``tax`` envelope's value."""
    clean = validation.clean_rate(require_object(data, "tax"))
    tax_writes.edit_rate(request.write_context, current, clean)
    return tax_record_by_id(request.record_context, current["id"])


# --- rates


@view_config(context=Taxes, **READ)
def list_taxes(context: Taxes, request: Request) -> Response:
    TAX_RATES.require(request, "read")
    params = _list_params(request)
    rows, total = taxes_sql.page_rates(request.db, params, _class_filter(request))
    ctx = request.record_context
    records = [tax_record(ctx, row) for row in rows]
    return rendering.listing(request, "taxes", records, total, params.page, params.limit)


@view_config(context=TaxesCount, **READ)
def count_taxes(context: TaxesCount, request: Request) -> Response:
    TAX_RATES.require(request, "count")
    params = _list_params(request)
    return rendering.count(
        request, taxes_sql.count_rates(request.db, params, _class_filter(request))
    )


@view_config(context=Taxes, request_method="POST")
def create_tax(context: Taxes, request: Request) -> Response:
    data = request.envelope(
        "tax", "shop_api_missing_tax_data", "No tax data specified to create tax"
    )
    TAX_RATES.require(request, "create")
    return rendering.single(request, "tax", _create(request, data), status=201)


@view_config(context=TaxRate, **READ)
def get_tax(context: TaxRate, request: Request) -> Response:
    row = TAX_RATES.load(request, context.id, "read")
    return rendering.single(request, "tax", tax_record(request.record_context, row))


@view_config(context=TaxRate, **EDIT)
def edit_tax(context: TaxRate, request: Request) -> Response:
    data = request.envelope("tax", "shop_api_missing_tax_data", "No tax data specified to edit tax")
    current = TAX_RATES.load(request, context.id, "edit")
    return rendering.single(request, "tax", _edit(request, current, data))


@view_config(context=TaxRate, request_method="DELETE")
def delete_tax(context: TaxRate, request: Request) -> Response:
    TAX_RATES.load(request, context.id, "delete")
    tax_writes.delete_rate(request.write_context, context.id)
    return rendering.message(request, "Deleted tax")


class RateBatch:
    """``/taxes/bulk`` set-based (a :class:`shopsvc.web.bulk.Batch`), with the checks of ``handle``
    in :func:`bulk_taxes`, in the same order.

    ``prepare`` loads every rate the elements target (with their locations) and every class
    they name, one statement each (the locations a second one); ``write`` is
    ``writers.taxes.write_rates`` of all the plans; ``records`` one list load of the rates.
    Rates depend on one another in two ways only, and then the bulk runs one by one
    (:class:`Sequential`): an element edits a rate an earlier element edits (its changes and
    its record follow that edit), or an id that does not exist yet after an earlier element
    creates a rate (perhaps that rate's id, known once written)."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.ctx = request.write_context
        #: The targeted rates that exist, by id, as loaded before any write.
        self.current: dict[int, dict[str, Any]] = {}
        #: Class ids by slug, of the slugs looked up (a slug missing here does not exist).
        self.classes: dict[str, int] = {}
        self.looked_up: set[str] = set()
        #: The rates that planned edits target, and whether a create is planned.
        self.edited: set[int] = set()
        self.creates = False

    def prepare(self, elements: Sequence[Any]) -> None:
        ids: set[int] = set()
        slugs: set[str] = set()
        for element in elements:
            if not isinstance(element, dict):
                continue
            rate_id = validation.bulk_rate_id(element.get("id"))
            if rate_id and range_problem(rate_id, MIN_INT, MAX_INT) is None:
                ids.add(rate_id)
            slug = validation.class_slug_hint(element)
            if slug:
                slugs.add(slug)
        rows = taxes_sql.get_rates(self.ctx.conn, sorted(ids)) if ids else []
        self.current = {row["id"]: row for row in rows}
        self.classes = taxes_sql.class_ids(self.ctx.conn, slugs)
        self.looked_up = slugs

    def _class_id(self, slug: str) -> int | None:
        if slug not in self.looked_up:  # not foreseen by ``prepare``: looked up now
            found = taxes_sql.class_id(self.ctx.conn, slug)
            if found is not None:
                self.classes[slug] = found
            self.looked_up.add(slug)
        return self.classes.get(slug)

    def _loaded(self, conn: Any, rate_id: int) -> dict[str, Any] | None:
        """The rate as the element planned now would find it (``TAX_RATES.find``'s fetch)."""
        if rate_id in self.edited:
            raise Sequential
        found = self.current.get(rate_id)
        if found is None and self.creates and rate_id > 0:
            raise Sequential
        return found

    def plan(self, element: dict[str, Any]) -> tax_writes.RatePlan:
        rate_id = validation.bulk_rate_id(element.get("id"))
        if rate_id:
            TAX_RATES.require(self.request, "edit")
            rate_id = check_int(rate_id, "tax.id")
            current = TAX_RATES.find(self.ctx.conn, rate_id, fetch=self._loaded)
            plan = tax_writes.plan_edit(current, validation.clean_rate(element), self._class_id)
            self.edited.add(rate_id)
            return plan
        TAX_RATES.require(self.request, "create")
        plan = tax_writes.plan_create(validation.clean_create(element), self._class_id)
        self.creates = True
        return plan

    def write(self, plans: Sequence[tax_writes.RatePlan]) -> list[int]:
        return tax_writes.write_rates(self.ctx, plans)

    def records(self, ids: Sequence[int]) -> list[dict[str, Any]]:
        rows = {row["id"]: row for row in taxes_sql.get_rates(self.ctx.conn, ids)}
        ctx = self.request.record_context
        results = []
        for rate_id in ids:
            try:
                row = TAX_RATES.find(self.ctx.conn, rate_id, fetch=lambda conn, i: rows.get(i))
            except ApiError as exc:
                # an edit that changed nothing of a rate a concurrent request deleted since it
                # was loaded: the 404 one by one gives too
                results.append(error_item({"id": rate_id}, exc))
                continue
            results.append(tax_record(ctx, row))
        return results


def _batch_of_one(request: Request, element: dict[str, Any]) -> dict[str, Any]:
    """One element of a ``/taxes/bulk`` run one by one: a :class:`RateBatch` of that element
    alone (its plan is made and written as in a set-based run, after the earlier elements'
    writes)."""
    batch = RateBatch(request)
    batch.prepare([element])
    plan = batch.plan(element)
    return batch.records(batch.write([plan]))[0]


@view_config(context=TaxesBulk, **EDIT)
def bulk_taxes(context: TaxesBulk, request: Request) -> Response:
    return run_bulk(
        request, "taxes", lambda element: _batch_of_one(request, element), batch=RateBatch(request)
    )


# --- classes


@view_config(context=TaxClasses, **READ)
def list_tax_classes(context: TaxClasses, request: Request) -> Response:
    TAX_CLASSES.require(request, "read")
    ctx = request.record_context
    rows = [STANDARD_TAX_CLASS, *taxes_sql.list_classes(request.db)]
    records = [tax_class_record(ctx, row) for row in rows]
    return rendering.listing(request, "tax_classes", records, len(records))


@view_config(context=TaxClassesCount, **READ)
def count_tax_classes(context: TaxClassesCount, request: Request) -> Response:
    TAX_CLASSES.require(request, "count")
    return rendering.count(request, taxes_sql.count_classes(request.db) + 1)


@view_config(context=TaxClasses, request_method="POST")
def create_tax_class(context: TaxClasses, request: Request) -> Response:
    data = request.envelope(
        "tax_class",
        "shop_api_missing_tax_class_data",
        "No tax_class data specified to create tax_class",
    )
    TAX_CLASSES.require(request, "create")
    name = validation.clean_class_name(require_object(data, "tax_class"))
    record = tax_class_record(
        request.record_context, tax_writes.create_class(request.write_context, name)
    )
    return rendering.single(request, "tax_class", record, status=201)


@view_config(context=TaxClass, request_method="DELETE")
def delete_tax_class(context: TaxClass, request: Request) -> Response:
    TAX_CLASSES.require(request, "delete")
    tax_writes.delete_class(request.write_context, context.slug)
    return rendering.message(request, "Deleted tax_class")
