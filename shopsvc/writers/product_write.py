"""The write of planned products (``shopsvc.writers.product_batch``): after every check of
every plan passed, each table is written once — the global attribute terms the attribute lists
create, the new rows (in the order and with the ids one-by-one inserts give), the edited rows
(one executemany), then each child table in one statement — and the webhook events recorded in
the order the checks planned them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from shopsvc.errors import Sequential
from shopsvc.sql import media_writes as media_writes_sql
from shopsvc.sql import product_batch as sql
from shopsvc.writers.context import WriteContext
from shopsvc.writers.product_plan import AttributeRow, NewMedia, NewTerm, Plan, media_id

Row = dict[str, Any]


class TermTaken(Sequential):
    """A concurrent request created one of the attribute terms first (nothing is written yet):
    a single write plans again (and finds it); a bulk runs one element at a time."""


def write_plans(
    ctx: WriteContext,
    plans: Sequence[Plan],
    slots: Sequence[Plan | None],
    new_terms: Sequence[NewTerm],
    new_media: Sequence[NewMedia],
    last_id: int | None,
) -> None:
    """Write ``plans`` (and their variations). ``slots`` are the new rows in the one-by-one
    inserts' order (None: a create that failed after its insert, whose id it took);
    ``new_terms`` the attribute terms to create, ``new_media`` the downloaded images' media
    rows (their ids then replace them in the rows and galleries); ``last_id`` (SQLite, when new
    variations name a new parent) the id the new rows follow."""
    _insert_terms(ctx, new_terms)
    family = [member for plan in plans for member in plan.family()]
    if new_media:
        ids = media_writes_sql.insert_many(ctx.conn, [new.values for new in new_media])
        for new, new_id in zip(new_media, ids, strict=True):
            new.id = new_id
        for plan in family:
            plan.row["image_id"] = media_id(plan.row["image_id"])
            if plan.gallery is not None:
                plan.gallery = [media_id(m) for m in plan.gallery]
    _insert(ctx, slots, last_id)
    edits = [plan for plan in family if not plan.create]
    changed = sorted({name for plan in edits for name in plan.changed})
    if changed:
        sql.update_products(
            ctx.conn, [{"id": p.product_id} | {n: p.row[n] for n in changed} for p in edits]
        )
    _write_children(ctx, family)
    for plan in plans:
        for member, event, hooks in plan.events:
            ctx.events.record("product", member.product_id, event, hooks)


def _insert_terms(ctx: WriteContext, new: Sequence[NewTerm]) -> None:
    """The global attribute terms the attribute lists create, first: a concurrent request may
    have created one meanwhile, and then nothing is written yet when the writers that retry
    take over."""
    if not new:
        return
    ids = sql.insert_attribute_terms(
        ctx.conn, [{"attribute_id": t.attribute_id, "name": t.name, "slug": t.slug} for t in new]
    )
    if ids is None:
        raise TermTaken("a concurrent request created an attribute term")
    for term, term_id in zip(new, ids, strict=True):
        term.id = term_id


def _insert(ctx: WriteContext, slots: Sequence[Plan | None], last_id: int | None) -> None:
    """The new rows, in the one-by-one inserts' order (their ids too)."""
    conn = ctx.conn
    kept = [slot for slot in slots if slot is not None]
    if not any(isinstance(slot.row["parent_id"], Plan) for slot in kept):
        new_ids = iter(sql.insert_products(conn, [_insertable(s) for s in slots]))
        for slot in kept:
            slot.row["id"] = next(new_ids)
        return
    # new variations name their new parent (a single create: no slot failed)
    if last_id is not None:  # SQLite: the ids are known, one statement
        for offset, slot in enumerate(kept, 1):
            slot.row["id"] = last_id + offset
        for slot in kept:
            _resolve_parent(slot)
        sql.insert_products_with_ids(conn, [dict(slot.row) for slot in kept])
        return
    first = [slot for slot in kept if not isinstance(slot.row["parent_id"], Plan)]
    then = [slot for slot in kept if isinstance(slot.row["parent_id"], Plan)]
    for group in (first, then):
        for slot in group:
            _resolve_parent(slot)
        ids = sql.insert_products(conn, [_insertable(slot) for slot in group])
        for slot, product_id in zip(group, ids, strict=True):
            slot.row["id"] = product_id


def _resolve_parent(slot: Plan) -> None:
    parent = slot.row["parent_id"]
    if isinstance(parent, Plan):
        slot.row["parent_id"] = parent.product_id


def _write_children(ctx: WriteContext, family: list[Plan]) -> None:
    """Each child table in one statement (or none): terms, galleries, attributes, downloads,
    variation values; then the media texts."""
    conn = ctx.conn
    cleared: dict[str, list[int]] = {}
    links: list[tuple[int, int]] = []
    galleries: list[int] = []
    images: list[tuple[int, int, int]] = []
    for plan in family:
        for taxonomy, ids in plan.terms.items():
            if not plan.create:
                cleared.setdefault(taxonomy, []).append(plan.product_id)
            links.extend((plan.product_id, term_id) for term_id in ids)
        if plan.gallery is not None:
            if not plan.create:
                galleries.append(plan.product_id)
            images.extend((plan.product_id, n, m) for n, m in enumerate(plan.gallery))
    sql.replace_terms(conn, cleared, links)
    sql.replace_galleries(conn, galleries, images)
    with_attributes = [plan for plan in family if plan.attributes is not None]
    if with_attributes:
        sql.replace_attributes(
            conn,
            [plan.product_id for plan in with_attributes if not plan.create],
            [
                _attribute_values(plan.product_id, row)
                for plan in with_attributes
                for row in plan.attributes or ()
            ],
            [
                (plan.product_id, _term_id(term))
                for plan in with_attributes
                for term in dict.fromkeys(t for row in plan.attributes or () for t in row.term_ids)
            ],
        )
    with_downloads = [plan for plan in family if plan.downloads is not None]
    if with_downloads:
        sql.replace_downloads(
            conn,
            [plan.product_id for plan in with_downloads if not plan.create],
            [(p.product_id, *item) for p in with_downloads for item in p.downloads or ()],
        )
    with_values = [plan for plan in family if plan.values is not None]
    if with_values:
        sql.replace_variation_values(
            conn,
            [plan.product_id for plan in with_values if not plan.create],
            [
                (plan.product_id, key, value)
                for plan in with_values
                for key, value in (plan.values or {}).items()
            ],
        )
    for plan in family:
        for named, title, alt in plan.media_texts:
            media_writes_sql.update_text(conn, named, title=title, alt=alt)


def _insertable(slot: Plan | None) -> Row | None:
    if slot is None:
        return None
    return {name: value for name, value in slot.row.items() if name != "id"}


def _term_id(term: Any) -> int:
    return int(term.id) if isinstance(term, NewTerm) else int(term)


def _attribute_values(product_id: int, row: AttributeRow) -> Row:
    return {
        "product_id": product_id,
        "attribute_id": row.attribute_id,
        "name": row.name,
        "position": row.position,
        "visible": row.visible,
        "is_variation": row.variation,
        "options": json.dumps(row.options, ensure_ascii=False),
    }
