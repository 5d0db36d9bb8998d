"""What the harness checks on each answer: the error JSON of a 4xx (and of a failed bulk
element), and that nothing was written (:func:`snapshot`: every row of the data tables, the row
count of the authentication tables)."""

from __future__ import annotations

import json
import re
from typing import Any

import sqlalchemy as sa
from webtest.response import TestResponse

from shopsvc.sql.tables import metadata

#: A code of the spec (``shop_…``) or of the API (``shop_api_…``), or one of the original's core
#: data-validation codes that the reference gives without a prefix (products.md §5; the spec's
#: "data validation failures … carry their own code"; docs/compat.md "Products").
DATA_LAYER_CODES = frozenset({"product_invalid_catalog_visibility", "product_invalid_tax_status"})

ERROR_CODE = re.compile(r"shop_(api_)?[a-z_]+|" + "|".join(sorted(DATA_LAYER_CODES)))

#: Tables whose rows change as a side effect of authenticating (a key's ``last_access``, OAuth
#: nonces): only their row counts are compared.
COUNTED_ONLY = ("users", "api_keys", "oauth_nonces")


def _row_text(table: sa.Table) -> str:
    """SQL for one row of ``table`` as text (portable: SQLite and PostgreSQL)."""
    cells = (f"COALESCE(CAST({column.name} AS TEXT), '<null>')" for column in table.columns)
    return " || '|' || ".join(cells)


def _snapshot_sql() -> str:
    """One statement (one round trip) listing every row of every data table as text, and the
    row count of the others."""
    parts = []
    for table in metadata.sorted_tables:
        if table.name in COUNTED_ONLY:
            parts.append(f"SELECT '{table.name}', CAST(count(*) AS TEXT) FROM {table.name}")
        else:
            parts.append(f"SELECT '{table.name}', {_row_text(table)} FROM {table.name}")
    return " UNION ALL ".join(parts)


SNAPSHOT_SQL = _snapshot_sql()


def snapshot(engine: sa.Engine) -> list[tuple[str, str]]:
    """Every row of the data tables (as text, sorted), and the row count of the others."""
    with engine.connect() as conn:
        return sorted(tuple(row) for row in conn.exec_driver_sql(SNAPSHOT_SQL))


def check_error_body(response: TestResponse, context: str) -> None:
    """``{"errors": [{"code": "shop_…", "message": "…"}, …]}``."""
    assert response.content_type == "application/json", context
    payload = json.loads(response.body)
    assert isinstance(payload, dict) and list(payload) == ["errors"], context
    items = payload["errors"]
    assert isinstance(items, list) and items, context
    for item in items:
        assert isinstance(item, dict) and set(item) == {"code", "message"}, context
        assert isinstance(item["code"], str) and ERROR_CODE.fullmatch(item["code"]), context
        assert isinstance(item["message"], str) and item["message"], context


def check_error_item(item: Any, context: str) -> None:
    """A failed bulk element: ``{"id", "error": {"code", "message"}}`` (products add ``sku``)."""
    assert isinstance(item, dict), context
    error = item["error"]
    assert set(error) == {"code", "message"}, context
    assert ERROR_CODE.fullmatch(error["code"]), context
