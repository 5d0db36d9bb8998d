"""Global attribute writes (reference products.md §16), after the view's checks and the
validation (``shopsvc.validation.attributes``): the slug is unique by a unique index as well as
by the checks, so a concurrent request that takes it still gets the spec's 400."""

from __future__ import annotations

from typing import Any

from shopsvc.domain.catalog import check_attribute_slug
from shopsvc.errors import ApiError
from shopsvc.sql import attribute_writes as attribute_writes_sql
from shopsvc.sql import attributes as attributes_sql
from shopsvc.writers.context import WriteContext


def create_attribute(ctx: WriteContext, values: dict[str, Any]) -> int:
    """Insert the attribute; its id. A slug taken meanwhile → the "already in use" 400."""
    attribute_id = attribute_writes_sql.insert(ctx.conn, values)
    if attribute_id is None:
        error = check_attribute_slug(values["slug"], {values["slug"]})
        assert error is not None
        raise error
    return attribute_id


def edit_attribute(ctx: WriteContext, current: dict[str, Any], values: dict[str, Any]) -> None:
    """Write the values that differ from ``current``; a slug that belongs to another attribute
    → 400 ``shop_api_cannot_edit_product_attribute``."""
    owner = attributes_sql.slug_owner(ctx.conn, values["slug"])
    changes = {key: value for key, value in values.items() if value != current[key]}
    moved_onto_another = owner is not None and owner != current["id"]
    if moved_onto_another or not attribute_writes_sql.update(ctx.conn, current["id"], changes):
        raise ApiError(
            "shop_api_cannot_edit_product_attribute", "Could not edit the attribute", 400
        )


def delete_attribute(ctx: WriteContext, attribute_id: int) -> None:
    """Delete the attribute and its terms; 401 ``shop_api_cannot_delete_product_attribute`` when
    nothing was deleted."""
    if not attribute_writes_sql.delete(ctx.conn, attribute_id):
        raise ApiError(
            "shop_api_cannot_delete_product_attribute", "Could not delete the attribute", 401
        )
