"""Tax rate and tax class writes (reference core.md §9.3, §9.6), after the view's checks and the
validation (``shopsvc.validation.taxes``); the rate writes serve ``/taxes/bulk`` too."""

from __future__ import annotations

from typing import Any

from shopsvc.domain.tax import tax_class_slug
from shopsvc.errors import ApiError, invalid_param
from shopsvc.families import STANDARD_TAX_CLASS
from shopsvc.sql import taxes as taxes_sql
from shopsvc.validation.taxes import MAX_TEXT
from shopsvc.writers.context import WriteContext

#: The columns of a rate a write sets (each a validated field of the same name; ``rate_order``
#: is the record's ``order``).
COLUMNS = ("country", "state", "rate", "name", "priority", "compound", "shipping", "rate_order")


def _class_id(ctx: WriteContext, slug: str) -> int | None:
    """The id of the class ``slug`` (None for the standard class ``""``); 400 when unknown."""
    if slug == "":
        return None
    found = taxes_sql.class_id(ctx.conn, slug)
    if found is None:
        raise ApiError("shop_api_invalid_tax_class", f'Tax class "{slug}" does not exist.', 400)
    return found


def create_rate(ctx: WriteContext, clean: dict[str, Any]) -> int:
    """Insert a rate and its locations from the validated fields; its id."""
    values = {column: clean[column] for column in COLUMNS}
    values["tax_class_id"] = _class_id(ctx, clean["class_slug"])
    locations = {kind: clean[kind] for kind in taxes_sql.LOCATION_KINDS}
    return taxes_sql.insert_rate(ctx.conn, values, locations)


def _stored(column: str) -> str:
    """The key of a column's current value in a loaded rate."""
    return "order" if column == "rate_order" else column


def edit_rate(ctx: WriteContext, current: dict[str, Any], clean: dict[str, Any]) -> None:
    """Write the validated fields of the rate ``current`` whose values differ."""
    rate_id = current["id"]
    changes = {
        column: clean[column]
        for column in COLUMNS
        if column in clean and clean[column] != current[_stored(column)]
    }
    if "class_slug" in clean:
        class_id = _class_id(ctx, clean["class_slug"])
        if class_id != current["tax_class_id"]:
            changes["tax_class_id"] = class_id
    taxes_sql.update_rate(ctx.conn, rate_id, changes)
    for kind, stored in taxes_sql.LOCATION_KINDS.items():
        if kind in clean and clean[kind] != current[stored]:
            taxes_sql.replace_locations(ctx.conn, rate_id, kind, clean[kind])


def delete_rate(ctx: WriteContext, rate_id: int) -> None:
    """Delete the rate; 401 ``shop_api_cannot_delete_tax`` when nothing was deleted."""
    if not taxes_sql.delete_rate(ctx.conn, rate_id):
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
    if not taxes_sql.insert_class(ctx.conn, slug, name):
        # A unique index refused it: a concurrent request created the same name or slug.
        raise _class_conflict(ctx, name, slug) or _slug_exists()
    return {"slug": slug, "name": name}


def delete_class(ctx: WriteContext, slug: str) -> None:
    """Delete the class named by ``slug`` (as given on the route) with its rates; 401
    ``shop_api_cannot_delete_tax_class`` for the built-in class or a class that does not
    exist."""
    slug = tax_class_slug(slug)
    if slug in ("", STANDARD_TAX_CLASS["slug"]) or not taxes_sql.delete_class(ctx.conn, slug):
        raise ApiError("shop_api_cannot_delete_tax_class", "Could not delete the tax class.", 401)
