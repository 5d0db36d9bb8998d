"""A product's attribute list (reference §2.3, §5): global attributes by slug, with their terms
(created when missing), and custom attributes by name."""

from __future__ import annotations

from typing import Any

from shopsvc.domain import catalog
from shopsvc.errors import ApiError
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.sql import product_writes as sql
from shopsvc.validation.products import MAX_SLUG_BASE, AttributeInput
from shopsvc.writers.attribute_options import find_term
from shopsvc.writers.context import WriteContext


def write_attributes(ctx: WriteContext, product_id: int, items: list[AttributeInput]) -> None:
    """Replace the product's attributes: a ``slug`` naming a registered attribute makes a global
    attribute (options are term names; missing terms are created; dropped when no option
    remains), otherwise a custom one (needs ``options``). Sorted by position."""
    registered = product_lookups_sql.get_global_attributes(
        ctx.conn, [i.slug for i in items if i.slug]
    )
    terms_by_attribute: dict[int, list[dict[str, Any]]] = {}
    for term in product_lookups_sql.get_attribute_terms(
        ctx.conn, [a["id"] for a in registered.values()]
    ):
        terms_by_attribute.setdefault(term["attribute_id"], []).append(term)
    chosen: dict[str, sql.AttributeRow] = {}
    for item in items:
        attribute = registered.get(item.slug) if item.slug else None
        if attribute is not None:
            known = terms_by_attribute.setdefault(attribute["id"], [])
            term_ids = [
                _term_id(ctx, attribute["id"], option, known) for option in item.options or ()
            ]
            if not term_ids:
                continue
            chosen[f"pa:{attribute['slug']}"] = sql.AttributeRow(
                attribute_id=attribute["id"],
                name=attribute["name"],
                position=item.position,
                visible=item.visible,
                variation=item.variation,
                term_ids=list(dict.fromkeys(term_ids)),
            )
        elif item.options is not None:
            chosen[catalog.clean_attribute_slug(item.name) or item.name] = sql.AttributeRow(
                attribute_id=None,
                name=item.name,
                position=item.position,
                visible=item.visible,
                variation=item.variation,
                options=list(item.options),
            )
    rows = sorted(chosen.values(), key=lambda row: row.position)
    sql.update_attributes(ctx.conn, product_id, rows)


def _term_id(ctx: WriteContext, attribute_id: int, option: str, known: list[dict[str, Any]]) -> int:
    """The term of the attribute named ``option`` (by name, then slug), created if missing. A
    concurrent request may create the same term first: then it is looked up again."""
    for _ in range(3):
        found = find_term(option, known)
        if found is not None:
            return int(found)
        base = (catalog.slugify_name(option) or "term")[:MAX_SLUG_BASE]
        unique = catalog.unique_slug(
            base, product_lookups_sql.get_term_slugs_like(ctx.conn, attribute_id, base)
        )
        term_id = sql.insert_attribute_term(ctx.conn, attribute_id, option, unique)
        if term_id is not None:
            known.append({"id": term_id, "name": option, "slug": unique})
            return term_id
        known[:] = product_lookups_sql.get_attribute_terms(ctx.conn, [attribute_id])
    raise ApiError(  # pragma: no cover - three lost races in a row
        "shop_api_cannot_create_product", f'Could not create the term "{option}".', 400
    )
