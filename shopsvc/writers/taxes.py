"""Tax rate and tax class writes (reference core.md §9.3, §9.6), after the view's checks and the
validation (``shopsvc.validation.taxes``).

Every rate write is planned (:func:`plan_create`, :func:`plan_edit`: the class check, what
changes) and then written with others (:func:`write_rates`, set-based): a single create or edit
is a write of one plan, ``/taxes/bulk`` one of all its plans (``views.taxes.RateBatch``), or, run
one by one, one write of each element's plan (a batch of one). Every check — the fields, the
class, the rate's existence — is in the plan, so a refused write writes nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from shopsvc.domain.tax import tax_class_slug
from shopsvc.errors import ApiError, invalid_param
from shopsvc.loaders.taxes import STANDARD_TAX_CLASS
from shopsvc.sql import tax_writes as tax_writes_sql
from shopsvc.sql import taxes as taxes_sql
from shopsvc.validation.taxes import MAX_TEXT
from shopsvc.writers.context import WriteContext

#: The columns of a rate a write sets (each a validated field of the same name; ``rate_order``
#: is the record's ``order``).
COLUMNS = ("country", "state", "rate", "name", "priority", "compound", "shipping", "rate_order")


#: ``lookup(slug)``: the id of the stored class ``slug``, None when there is none.
ClassLookup = Callable[[str], int | None]


@dataclass(frozen=True)
class RatePlan:
    """A checked rate write, before anything is written: ``rate_id`` is None for a new rate;
    ``values`` the columns to write (every column of a new rate, the changed ones of an edited
    rate); ``locations`` the location kinds (re)written, postcode first, with their codes."""

    rate_id: int | None
    values: dict[str, Any]
    locations: dict[str, list[str]]


def class_lookup(ctx: WriteContext) -> ClassLookup:
    """A class looked up when asked (one statement each): the single routes'."""
    return lambda slug: taxes_sql.class_id(ctx.conn, slug)


def _class_id(lookup: ClassLookup, slug: str) -> int | None:
    """The id of the class ``slug`` (None for the standard class ``""``); 400 when unknown."""
    if slug == "":
        return None
    found = lookup(slug)
    if found is None:
        raise ApiError("shop_api_invalid_tax_class", f'Tax class "{slug}" does not exist.', 400)
    return found


def plan_create(clean: dict[str, Any], lookup: ClassLookup) -> RatePlan:
    """The insert of a rate and its locations from the validated fields (``clean_create``)."""
    values = {column: clean[column] for column in COLUMNS}
    values["tax_class_id"] = _class_id(lookup, clean["class_slug"])
    return RatePlan(None, values, {kind: clean[kind] for kind in taxes_sql.LOCATION_KINDS})


def _stored(column: str) -> str:
    """The key of a column's current value in a loaded rate."""
    return "order" if column == "rate_order" else column


def plan_edit(current: dict[str, Any], clean: dict[str, Any], lookup: ClassLookup) -> RatePlan:
    """The write of the validated fields (``clean_rate``) of the loaded rate ``current`` whose
    values differ."""
    changes = {
        column: clean[column]
        for column in COLUMNS
        if column in clean and clean[column] != current[_stored(column)]
    }
    if "class_slug" in clean:
        class_id = _class_id(lookup, clean["class_slug"])
        if class_id != current["tax_class_id"]:
            changes["tax_class_id"] = class_id
    locations = {
        kind: clean[kind]
        for kind, stored in taxes_sql.LOCATION_KINDS.items()
        if kind in clean and clean[kind] != current[stored]
    }
    return RatePlan(current["id"], changes, locations)


def write_rates(ctx: WriteContext, plans: Sequence[RatePlan]) -> list[int]:
    """Write the plans, set-based: the new rates in one insert, the edited columns in one
    statement per set of columns, the replaced locations in one delete and every location
    written in one insert (rates and locations get their ids in plan order, as one plan after
    the other would give them). The rates' ids, in plan order."""
    created = iter(
        tax_writes_sql.insert_rates(
            ctx.conn, [plan.values for plan in plans if plan.rate_id is None]
        )
    )
    ids = [next(created) if plan.rate_id is None else plan.rate_id for plan in plans]
    edits = [(plan.rate_id, plan.values) for plan in plans if plan.rate_id is not None]
    tax_writes_sql.update_rates(ctx.conn, edits)
    replaced = [
        (plan.rate_id, kind)
        for plan in plans
        if plan.rate_id is not None
        for kind in plan.locations
    ]
    rows = [
        (rate_id, kind, code)
        for rate_id, plan in zip(ids, plans, strict=True)
        for kind, codes in plan.locations.items()
        for code in codes
    ]
    tax_writes_sql.write_locations(ctx.conn, replaced, rows)
    return ids


def create_rate(ctx: WriteContext, clean: dict[str, Any]) -> int:
    """Insert a rate and its locations from the validated fields; its id."""
    return write_rates(ctx, [plan_create(clean, class_lookup(ctx))])[0]


def edit_rate(ctx: WriteContext, current: dict[str, Any], clean: dict[str, Any]) -> None:
    """Write the validated fields of the rate ``current`` whose values differ."""
    write_rates(ctx, [plan_edit(current, clean, class_lookup(ctx))])


def delete_rate(ctx: WriteContext, rate_id: int) -> None:
    """Delete the rate; 401 ``shop_api_cannot_delete_tax`` when nothing was deleted."""
    if not tax_writes_sql.delete_rate(ctx.conn, rate_id):
        raise ApiError("shop_api_cannot_delete_tax", "Could not delete the tax rate.", 401)


def _slug_exists() -> ApiError:
    return ApiError("shop_api_tax_class_slug_exists", "Tax class slug already exists.", 401)


def _class_conflict(ctx: WriteContext, name: str, slug: str) -> ApiError | None:
    """The 401 for a new class whose name or slug is taken (the built-in class included)."""
    if name == STANDARD_TAX_CLASS["name"] or taxes_sql.class_name_exists(ctx.conn, name):
        return ApiError("shop_api_tax_class_exists", "Tax class already exists.", 401)
    if slug == STANDARD_TAX_CLASS["slug"] or taxes_sql.class_id(ctx.conn, slug) is not None:
        return _slug_exists()
    return None


def create_class(ctx: WriteContext, name: str) -> dict[str, Any]:
    """Insert the class named ``name`` (validated); its ``{slug, name}``. A name without a slug,
    or a name or slug taken (by the built-in class too) → 401."""
    slug = tax_class_slug(name)
    if not slug:
        raise ApiError("shop_api_tax_class_invalid_name", "Tax class requires a valid name.", 401)
    if len(slug) > MAX_TEXT:
        raise invalid_param("tax_class.name", f"its slug must be at most {MAX_TEXT} characters")
    conflict = _class_conflict(ctx, name, slug)
    if conflict is not None:
        raise conflict
    if not tax_writes_sql.insert_class(ctx.conn, slug, name):
        # A unique index refused it: a concurrent request created the same name or slug.
        raise _class_conflict(ctx, name, slug) or _slug_exists()
    return {"slug": slug, "name": name}


def delete_class(ctx: WriteContext, slug: str) -> None:
    """Delete the class named by ``slug`` (as given on the route) with its rates; 401
    ``shop_api_cannot_delete_tax_class`` for the built-in class or a class that does not
    exist."""
    slug = tax_class_slug(slug)
    if slug in ("", STANDARD_TAX_CLASS["slug"]) or not tax_writes_sql.delete_class(ctx.conn, slug):
        raise ApiError("shop_api_cannot_delete_tax_class", "Could not delete the tax class.", 401)
