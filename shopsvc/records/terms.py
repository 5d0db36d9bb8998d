"""The records of the term-like families: categories, tags, shipping classes and attribute terms
(reference products.md §13–§15, §17): ``id, name, slug``, the family's own fields in a fixed
order, then ``count`` (published products using the term)."""

from __future__ import annotations

from typing import Any

from shopsvc.loaders.terms import TermFamily
from shopsvc.records.context import RecordContext
from shopsvc.sql.terms import Scope

#: Fields beyond ``id, name, slug`` and before ``count``, in output order (each family shows
#: those it has).
EXTRAS = ("parent", "description", "display", "image")


def term_record(context: RecordContext, family: TermFamily, row: dict[str, Any]) -> dict[str, Any]:
    """The record of a term row (``sql.terms.get`` / ``list_all``) of ``family``."""
    record: dict[str, Any] = {"id": row["id"], "name": row["name"], "slug": row["slug"]}
    for field in EXTRAS:
        if field not in family.fields:
            continue
        if field == "display":
            record[field] = row["display"] or "default"
        elif field == "image":
            record[field] = context.media_url(row["image_file"]) if row["image_file"] else ""
        else:
            record[field] = row[field]
    record["count"] = row["count"]
    return record


def term_record_by_id(
    context: RecordContext, family: TermFamily, scope: Scope, term_id: int
) -> dict[str, Any]:
    """The record of the term ``term_id`` of ``scope``; the family's 404 when there is none."""
    return term_record(context, family, family.loader.find(context.conn, term_id, scope))
