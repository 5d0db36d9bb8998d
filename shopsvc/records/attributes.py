"""The global attribute record (reference products.md §16): the slug is shown with the ``pa_``
prefix it is stored without."""

from __future__ import annotations

from typing import Any

from shopsvc.loaders.terms import ATTRIBUTES
from shopsvc.records.context import RecordContext

PREFIX = "pa_"


def attribute_record(context: RecordContext, row: dict[str, Any]) -> dict[str, Any]:
    """The record of an attribute row (``sql.attributes.get`` / ``list_all``)."""
    return {
        "id": row["id"],
        "name": row["name"],
        "slug": PREFIX + row["slug"],
        "type": row["type"],
        "order_by": row["order_by"],
        "has_archives": bool(row["has_archives"]),
    }


def attribute_record_by_id(context: RecordContext, attribute_id: int) -> dict[str, Any]:
    """The record of the attribute ``attribute_id``; 404 when there is none."""
    return attribute_record(context, ATTRIBUTES.find(context.conn, attribute_id))
