"""Turning results into responses: JSON, envelopes, `fields`, timestamps, decimals, paging headers.

One place decides each format (design.md): timestamps are ``YYYY-MM-DDTHH:MM:SSZ`` in UTC
(``domain/timestamps.py``), money and rates are strings with fixed decimals rounded half up
(``domain/money.py``), list responses carry the pagination headers.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

from pyramid.request import Request
from pyramid.response import Response

# The formats themselves are pure and live in domain/ (records use them without Pyramid); the
# views find them here too.
from shopsvc.domain import json_body
from shopsvc.domain.money import format_decimal as format_decimal
from shopsvc.domain.timestamps import format_timestamp as format_timestamp
from shopsvc.errors import ApiError
from shopsvc.web.resources import canonical_path

CONTENT_TYPE = "application/json; charset=UTF-8"


def error_response(request: Request, error: ApiError) -> Response:
    """The one error body: ``{"errors": [{"code", "message"}]}`` with the error's status and
    headers."""
    response = render_json(request, {"errors": [error.as_item()]}, status=error.status)
    response.headers.update(error.headers)
    return response


def render_json(request: Request, body: object, status: int = 200) -> Response:
    # Given a header list, webob only adds Content-Length: no default Content-Type to replace
    response = Response(body=json_body.encode(body), status=status, headerlist=[])
    response.headerlist.append(("Content-Type", CONTENT_TYPE))
    return response


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def http_date(value: dt.datetime) -> str:
    """``Tue, 02 Jan 2024 03:04:05 GMT``: what webob's ``last_modified`` setter writes for
    ``value`` (its fields as they are, whatever its zone), without the time tuple, the epoch
    seconds and ``email.utils`` it goes through."""
    return (
        f"{_DAYS[value.weekday()]}, {value.day:02d} {_MONTHS[value.month - 1]} {value.year:04d}"
        f" {value.hour:02d}:{value.minute:02d}:{value.second:02d} GMT"
    )


# --- the ``fields`` filter


def parse_fields(spec: str | None) -> dict[str, set[str] | None] | None:
    """``"a,b,c.d,c.e"`` → ``{"a": None, "b": None, "c": {"d", "e"}}``; ``None`` when absent."""
    if not spec:
        return None
    wanted: dict[str, set[str] | None] = {}
    for entry in spec.split(","):
        entry = entry.strip()
        if not entry:
            continue
        parent, _, child = entry.partition(".")
        child = child.split(".", 1)[0]
        if not child:
            wanted[parent] = None
        elif parent not in wanted or wanted[parent] is not None:
            children = wanted.setdefault(parent, set())
            assert children is not None
            children.add(child)
    return wanted


def _keep_children(value: Any, children: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k in children}
    if isinstance(value, list) and all(isinstance(item, dict) for item in value):
        return [{k: v for k, v in item.items() if k in children} for item in value]
    return value


def filter_fields(record: Mapping[str, Any], wanted: dict[str, set[str] | None] | None) -> Any:
    """Keep the named top-level keys; ``parent.child`` keeps only the named children."""
    if wanted is None:
        return record
    kept: dict[str, Any] = {}
    for key, value in record.items():
        if key not in wanted:
            continue
        children = wanted[key]
        if children is None:
            kept[key] = value
        elif isinstance(value, (dict, list)):
            kept[key] = _keep_children(value, children)
    return kept


def shaped(request: Request, record: Mapping[str, Any]) -> Any:
    """``record`` filtered by the request's ``fields`` (GET and HEAD only)."""
    if request.method not in ("GET", "HEAD"):
        return record
    return filter_fields(record, parse_fields(request.query.get("fields")))


def _updated_at(record: Mapping[str, Any]) -> dt.datetime | None:
    """A record's ``updated_at`` (``YYYY-MM-DDTHH:MM:SSZ`` or a datetime) as an aware datetime."""
    value = record.get("updated_at")
    if isinstance(value, str):
        if len(value) != 20 or not value.endswith("Z"):
            return None
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, dt.datetime):
        return None
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value


def created_url(request: Request, record: Mapping[str, Any]) -> str:
    """The absolute URL of ``record``, just created in the collection the request addressed
    (``request.context``): ``{public_url}{api_root}/orders/7/notes/12``. A tax class is named
    by its slug (the URL its DELETE takes), every other record by its id."""
    container = request.context
    item = type(container).item
    key = item.record_key if item is not None else "id"
    root = request.shop.api_root.rstrip("/")
    name = quote(str(record[key]), safe="")
    return f"{request.public_url}{root}{canonical_path(container)}/{name}"


def single(
    request: Request, envelope: str, record: Mapping[str, Any], status: int = 200
) -> Response:
    """A single record; ``Last-Modified`` from its ``updated_at`` when it has one (whatever
    ``fields`` keeps); a 201 Created carries ``Location``, the new record's URL
    (:func:`created_url`)."""
    response = render_json(request, {envelope: shaped(request, record)}, status=status)
    updated_at = _updated_at(record)
    if updated_at is not None:
        response.headers["Last-Modified"] = http_date(updated_at)
    if status == 201:
        response.headers["Location"] = created_url(request, record)
    return response


def message(request: Request, text: str, status: int = 200) -> Response:
    return render_json(request, {"message": text}, status=status)


def count(request: Request, value: Any) -> Response:
    return render_json(request, {"count": value})


# --- lists and their pagination headers


def _link_url(request: Request, page: int) -> str:
    params = [
        (key, value)
        for key, value in request.query.items()
        if key != "page" and key != "consumer_secret" and not key.startswith("oauth_")
    ]
    params.append(("page", str(page)))
    return f"{request.public_url}{request.path}?{urlencode(params)}"


def page_headers(request: Request, response: Response, total: int, page: int, limit: int) -> None:
    """``{prefix}-Total``, ``{prefix}-TotalPages`` and one ``Link`` line per rel."""
    settings = request.shop
    total_pages = math.ceil(total / limit) if total else 0
    response.headers[settings.header("Total")] = str(total)
    response.headers[settings.header("TotalPages")] = str(total_pages)
    if total_pages == 0:
        return
    links: list[tuple[int, str]] = []
    if page > 1:
        links += [(1, "first"), (page - 1, "prev")]
    if page < total_pages:
        links.append((page + 1, "next"))
    if page != total_pages:
        links.append((total_pages, "last"))
    for target, rel in links:
        response.headers.add("Link", f'<{_link_url(request, target)}>; rel="{rel}"')


def listing(
    request: Request,
    envelope: str,
    records: Iterable[Mapping[str, Any]],
    total: int,
    page: int = 1,
    limit: int | None = None,
) -> Response:
    """A list response; ``limit=None`` marks an unpaginated list (all items, one page)."""
    wanted = parse_fields(request.query.get("fields"))
    items = [filter_fields(record, wanted) for record in records]
    response = render_json(request, {envelope: items})
    page_headers(request, response, total, page if limit else 1, limit or max(total, 1))
    return response
