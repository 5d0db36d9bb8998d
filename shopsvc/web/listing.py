"""Parsing the common list parameters: ``page`` and the ``filter[...]`` keys (decisions.md §2, §7).

The result is a plain ``ListParams`` that ``shopsvc.sql.paging`` turns into SQL. Bad values are a
400 ``shop_api_invalid_param`` naming the parameter; unknown filter keys are ignored.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from shopsvc.errors import invalid_param
from shopsvc.settings import Settings
from shopsvc.sql.paging import ListFilters

LEADING_DIGITS = re.compile(r"\s*([0-9]+)")
#: The largest query integer (``page``, ``filter[offset]``, ids): what an INTEGER column holds.
MAX_QUERY_INT = 2**31 - 1
_MAX_DIGITS = len(str(MAX_QUERY_INT))
NO_LIMIT = re.compile(r"\s*-1(?![0-9])")
UNENCODED_PLUS = re.compile(
    r"([T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?) ([0-9]{2}:?[0-9]{2})$"
)
# Common ``filter[orderby]`` spellings and the sort key each one means.
COMMON_ORDERBY = {
    "id": "id",
    "date": "created_at",
    "created_at": "created_at",
    "modified": "updated_at",
    "updated_at": "updated_at",
}
#: The families whose lists sort by more than the common keys.
PRODUCT_ORDERBY = {**COMMON_ORDERBY, "title": "title", "name": "title", "menu_order": "menu_order"}
WEBHOOK_ORDERBY = {**COMMON_ORDERBY, "title": "name", "name": "name"}


#: The common list parameters of a request (one definition, in the pager).
ListParams = ListFilters


def _bounded_int(digits: str, name: str, ceiling: int | None) -> int:
    """``digits`` as an int no larger than ``MAX_QUERY_INT`` (else a 400 naming ``name``), or
    ``ceiling`` when one is given and the number exceeds it (however many digits it has)."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS or int(digits) > MAX_QUERY_INT:
        if ceiling is not None:
            return ceiling
        raise invalid_param(name, f"must be at most {MAX_QUERY_INT}")
    number = int(digits)
    return number if ceiling is None else min(number, ceiling)


def query_int(value: str | None, name: str, default: int, ceiling: int | None = None) -> int:
    """A query integer by its leading digits (``"100?"`` → 100); empty or 0 → ``default``.

    Above ``MAX_QUERY_INT`` it is a 400, unless a ``ceiling`` caps it."""
    if value is None or value.strip() == "":
        return default
    match = LEADING_DIGITS.match(value)
    if match is None:
        raise invalid_param(name, f"{value!r} is not a positive integer")
    number = _bounded_int(match.group(1), name, ceiling)
    return number or default


def parse_limit(value: str | None, settings: Settings) -> int:
    """``filter[limit]``: ``-1`` (also read by its leading characters, like any query integer,
    so ``-1?`` counts) is ``max_page_size``; larger values are capped."""
    if value is not None and NO_LIMIT.match(value):
        return settings.max_page_size
    return query_int(value, "filter[limit]", settings.page_size, settings.max_page_size)


def parse_timestamp(value: str, name: str) -> dt.datetime:
    """RFC 3339 / ISO 8601 with its offset honoured (a date alone is midnight UTC) → naive UTC."""
    text = value.strip()
    # An unencoded "+" of an offset arrives as a space: "10:00:00 02:00" means "10:00:00+02:00".
    text = UNENCODED_PLUS.sub(r"\1+\2", text)
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        text += "T00:00:00"
    if not re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}", text):
        raise invalid_param(name, f"{value!r} is not an RFC 3339 date")
    try:
        moment = dt.datetime.fromisoformat(text.replace("z", "Z"))
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):  # OverflowError: the offset leaves years 1–9999
        raise invalid_param(name, f"{value!r} is not an RFC 3339 date") from None
    return moment


def parse_ids(value: str | None, name: str) -> tuple[int, ...] | None:
    if value is None or value.strip() == "":
        return None
    ids = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isascii() or not part.isdigit():
            raise invalid_param(name, f"{part[:40]!r} is not an id")
        ids.append(_bounded_int(part, name, None))
    return tuple(ids)


def _optional_timestamp(filters: Mapping[str, str], key: str) -> dt.datetime | None:
    value = filters.get(key)
    if value is None or value.strip() == "":
        return None
    return parse_timestamp(value, f"filter[{key}]")


def parse_list_params(
    query: Mapping[str, str],
    filters: Mapping[str, str],
    settings: Settings,
    orderby: Mapping[str, str] | None = None,
    default_orderby: str = "created_at",
    fixed_order: str | None = None,
) -> ListParams:
    """``page`` and the common filters; ``orderby`` maps accepted spellings to sort keys.

    A list with a ``fixed_order`` (a sort key) is always sorted by it, ascending: there
    ``filter[order]`` and ``filter[orderby]`` are not read."""
    if fixed_order is not None:
        filters = {k: v for k, v in filters.items() if k not in ("order", "orderby")}
        orderby, default_orderby = {}, fixed_order
    choices = dict(COMMON_ORDERBY if orderby is None else orderby)
    page = query_int(query.get("page", filters.get("page")), "page", 1)
    limit = parse_limit(filters.get("limit"), settings)
    offset = query_int(filters.get("offset"), "filter[offset]", 0)
    order = (filters.get("order") or ("ASC" if fixed_order else "DESC")).strip().upper()
    if order not in ("ASC", "DESC"):
        raise invalid_param("filter[order]", f"{filters.get('order')!r} is not ASC or DESC")
    sort_key = default_orderby
    requested = (filters.get("orderby") or "").strip()
    if requested:
        if requested.lower() not in choices:
            allowed = ", ".join(sorted(choices))
            raise invalid_param("filter[orderby]", f"{requested!r} is not one of {allowed}")
        sort_key = choices[requested.lower()]
    return ListParams(
        page=page,
        limit=limit,
        offset=offset if offset else (page - 1) * limit,
        descending=order == "DESC",
        orderby=sort_key,
        ids_in=parse_ids(filters.get("in"), "filter[in]"),
        ids_not_in=parse_ids(filters.get("not_in"), "filter[not_in]") or (),
        created_min=_optional_timestamp(filters, "created_at_min"),
        created_max=_optional_timestamp(filters, "created_at_max"),
        updated_min=_optional_timestamp(filters, "updated_at_min"),
        updated_max=_optional_timestamp(filters, "updated_at_max"),
        q=(filters.get("q") or "").strip(),
    )
