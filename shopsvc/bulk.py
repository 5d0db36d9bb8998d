"""The one bulk mechanism (``/taxes/bulk``, and later products and orders).

Envelope first, then the ``bulk_limit`` check (413 before anything is written), then each element
in its own SAVEPOINT with the same checks as a single create or edit: a failing element becomes
``{"id": <id or 0>, "error": {"code", "message"}}`` in input order and never undoes the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyramid.request import Request
from pyramid.response import Response

from shopsvc.db import savepoint
from shopsvc.errors import ApiError
from shopsvc.validation.types import parse_int, require_array

Element = dict[str, Any]


def element_id(element: Any) -> int:
    """The element's id for its error item: a positive integer id, else 0."""
    value = parse_int(element.get("id")) if isinstance(element, dict) else None
    return value if value and value > 0 else 0


def error_item(element: Any, error: ApiError) -> dict[str, Any]:
    return {"id": element_id(element), "error": error.as_item()}


def run_bulk(
    request: Request,
    plural: str,
    handle: Callable[[Element], dict[str, Any]],
    on_error: Callable[[Any, ApiError], dict[str, Any]] = error_item,
    before: Callable[[list[Any]], None] | None = None,
) -> Response:
    """Run ``handle`` on every element of the ``plural`` envelope; ``{plural: [...]}``, 200.

    ``before`` sees the elements once the size is checked, before the first one runs (product
    writes download their images there, outside the transaction)."""
    items = request.envelope(
        plural,
        f"shop_api_missing_{plural}_data",
        f"No {plural} data specified to create/edit {plural}",
    )
    items = require_array(items, plural)
    limit = request.shop.bulk_limit
    if len(items) > limit:
        raise ApiError(
            f"shop_api_{plural}_request_entity_too_large",
            f"Unable to accept more than {limit} items for this request.",
            413,
        )
    if before is not None:
        before(items)
    results: list[dict[str, Any]] = []
    for element in items:
        try:
            with savepoint(request):
                if not isinstance(element, dict):
                    raise ApiError(
                        "shop_api_invalid_param",
                        f"Invalid parameter {plural}[{len(results)}]: must be a JSON object.",
                    )
                results.append(handle(element))
        except ApiError as exc:
            results.append(on_error(element, exc))
    return request.render_json({plural: results})
