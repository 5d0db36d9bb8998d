"""The one bulk mechanism (``/taxes/bulk``, ``/products/bulk``, ``/orders/bulk``).

Envelope first, then the ``bulk_limit`` check (413 before anything is written), then the elements,
with the same checks as a single create or edit: a failing element becomes
``{"id": <id or 0>, "error": {"code", "message"}}`` in input order and never undoes the others.

Two ways to run the elements, with the same outcome:

* **set-based** (a family that passes a :class:`Batch`): every element is *planned* first (its
  checks, with reads only; a failing element gets its error item and nothing of it is written),
  then the plans that passed are *written* together in one SAVEPOINT (multi-row inserts, one
  statement per table), and their records are loaded together (one list load). A planner that
  meets what it cannot write set-based with the outcome of one-by-one writes (e.g. two elements
  on the same record) raises :class:`Sequential`, and so may the writer; a database refusal of
  the set-based write (a concurrent request took a unique SKU) also ends the attempt. Then the
  savepoint is rolled back and the bulk runs the other way;
* **one by one**: each element in its own SAVEPOINT through ``handle``, exactly as a single write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import sqlalchemy as sa
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.db.request import savepoint
from shopsvc.errors import ApiError, Sequential
from shopsvc.validation.types import parse_int, require_array

Element = dict[str, Any]
# ``Sequential`` (a Batch's "run this bulk one element at a time") is defined with the errors, where
# writers, which never import Pyramid, can raise it; ``shopsvc.web.bulk.Sequential`` is that class.


def element_id(element: Any) -> int:
    """The element's id for its error item: a positive integer id, else 0."""
    value = parse_int(element.get("id")) if isinstance(element, dict) else None
    return value if value and value > 0 else 0


def error_item(element: Any, error: ApiError) -> dict[str, Any]:
    return {"id": element_id(element), "error": error.as_item()}


class Batch(Protocol):
    """A family's set-based bulk writer (see the module docstring).

    ``prepare`` sees every element (as sent: not necessarily objects) once, before the first
    plan, to load what the plans will read in a constant number of statements. ``plan`` runs
    once per element, in input order, before anything is written: it makes the element's
    checks (raising its :class:`ApiError`) and returns what ``write`` needs; it may read but
    never write, and it must see earlier elements' planned effects where a one-by-one run would
    (or raise :class:`Sequential`). ``write`` writes all plans and returns their record ids, in
    plan order. ``records`` loads those records, in the order of the ids given, in a constant
    number of statements."""

    def prepare(self, elements: Sequence[Any]) -> None: ...

    def plan(self, element: Element) -> Any: ...

    def write(self, plans: Sequence[Any]) -> list[int]: ...

    def records(self, ids: Sequence[int]) -> list[dict[str, Any]]: ...


def not_an_object(plural: str, index: int) -> ApiError:
    return ApiError(
        "shop_api_invalid_param", f"Invalid parameter {plural}[{index}]: must be a JSON object."
    )


def _set_based(
    request: Request,
    plural: str,
    items: list[Any],
    batch: Batch,
    on_error: Callable[[Any, ApiError], dict[str, Any]],
) -> list[dict[str, Any]] | None:
    """The results of a set-based run, or None when the bulk must run one by one (nothing of
    this attempt is then left written)."""
    results: list[dict[str, Any] | None] = [None] * len(items)
    planned: list[tuple[int, Any]] = []
    try:
        batch.prepare(items)
        for index, element in enumerate(items):
            try:
                if not isinstance(element, dict):
                    raise not_an_object(plural, index)
                planned.append((index, batch.plan(element)))
            except ApiError as exc:
                results[index] = on_error(element, exc)
        if planned:
            with savepoint(request):
                ids = batch.write([plan for _, plan in planned])
            for (index, _), record in zip(planned, batch.records(ids), strict=True):
                results[index] = record
    except (Sequential, sa.exc.IntegrityError):
        return None
    return [result for result in results if result is not None]


def run_bulk(
    request: Request,
    plural: str,
    handle: Callable[[Element], dict[str, Any]],
    on_error: Callable[[Any, ApiError], dict[str, Any]] = error_item,
    before: Callable[[list[Any]], None] | None = None,
    batch: Batch | None = None,
) -> Response:
    """Run the elements of the ``plural`` envelope (set-based through ``batch`` when given and
    possible, else ``handle`` on each); ``{plural: [...]}``, 200.

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
    if batch is not None:
        done = _set_based(request, plural, items, batch, on_error)
        if done is not None:
            return request.render_json({plural: done})
    results: list[dict[str, Any]] = []
    for element in items:
        try:
            with savepoint(request):
                if not isinstance(element, dict):
                    raise not_an_object(plural, len(results))
                results.append(handle(element))
        except ApiError as exc:
            results.append(on_error(element, exc))
    return request.render_json({plural: results})
