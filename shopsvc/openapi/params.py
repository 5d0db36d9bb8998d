"""The query parameters of lists, counts and reads (decisions.md §2, §7;
``shopsvc.web.listing``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from shopsvc.openapi.operations import Param
from shopsvc.openapi.schema import DATE, TIME, Schema, at_most
from shopsvc.web.listing import MAX_QUERY_INT

#: Query values go through the same checks (decisions.md §7, ``web.transaction``): no NUL.
NO_NUL = r"^[^\x00]*$"
STRING = {"type": "string", "pattern": NO_NUL}
#: The numbers a query integer may name (``web.listing.query_int``): up to MAX_QUERY_INT, any
#: leading zeros.
BOUNDED_DIGITS = f"0*(?:{at_most(MAX_QUERY_INT)})"
#: After its leading digits a query integer may hold anything (``"100?"`` is 100).
TAIL = r"(?:[^0-9\x00][^\x00]*)?"
QUERY_INT = (
    "Read by its leading digits (after any white space; `12abc` is 12); empty or 0 means the "
    "default."
)


def query_integer(minimum: int = 0, digits: str = BOUNDED_DIGITS, extra: str = "") -> Schema:
    """A query integer as the server reads it (``web.listing.query_int``): a number, or any
    string that starts (after white space) with ``digits``, or nothing."""
    number: Schema = {"type": "integer", "minimum": minimum}
    if digits == BOUNDED_DIGITS:
        number["maximum"] = MAX_QUERY_INT
    alternatives = "|".join(filter(None, (extra, f"{digits}{TAIL}")))
    text = {"type": "string", "pattern": f"^\\s*(?:{alternatives})?$"}
    return {"anyOf": [number, text]}


TIMESTAMP = {
    "type": "string",
    "pattern": f"^\\s*(?:{DATE}(?:[T ]{TIME})?)?\\s*$",
    "description": (
        "An RFC 3339 date-time (`T` or a space between date and time; seconds, fraction and "
        "offset optional; no offset is UTC), or a date alone (midnight UTC); empty is no "
        "filter. Years 0002 to 9998."
    ),
}
IDS = {
    "type": "string",
    "description": "A comma-separated list of ids (white space and empty items ignored).",
    "pattern": f"^\\s*(?:(?:{BOUNDED_DIGITS})?\\s*,\\s*)*(?:{BOUNDED_DIGITS})?\\s*$",
}
#: A filter that only the exact string ``true`` switches on; any other value is accepted and
#: leaves it off.
TRUE_ONLY = {
    **STRING,
    "description": "`true` switches it on; any other value leaves it off.",
    "examples": ["true"],
}

FIELDS = Param(
    "fields",
    STRING,
    "Comma-separated top-level fields to return; parent.child keeps only those children.",
)
PAGE = Param("page", query_integer(), QUERY_INT)
FORCE = Param(
    "force", STRING, "A boolean spelling of true deletes permanently; anything else trashes."
)


def query_id(name: str, description: str = "") -> Param:
    """An id in the query read as a query integer (``filter[customer_id]``); 0 is none."""
    return Param(name, query_integer(), " ".join(filter(None, (description, QUERY_INT))))


def filters(orderby: Iterable[str] | None = ()) -> tuple[Param, ...]:
    """The common ``filter[...]`` parameters; ``orderby`` the accepted ``filter[orderby]``
    spellings (None: the list has a fixed order and reads neither ``order`` nor ``orderby``)."""
    found = [
        Param(
            "filter[limit]",
            query_integer(-1, "[0-9]+", "-1(?![0-9])[^\\x00]*"),
            "Page size; -1 is the largest allowed (shopsvc.max_page_size), and so is any "
            "larger number. " + QUERY_INT,
        ),
        Param("filter[offset]", query_integer(), "Replaces the skip of page. " + QUERY_INT),
    ]
    if orderby is not None:
        choices = sorted(orderby)
        found += [
            Param(
                "filter[order]",
                words(["ASC", "DESC"], blank=BLANK_EMPTY),
                "ASC or DESC, in any case, white space around ignored; empty is DESC.",
            ),
            Param(
                "filter[orderby]",
                words(choices, blank=BLANK_SPACE),
                f"One of {', '.join(choices)}, in any case, white space around ignored; "
                "empty is the default order. Ties are broken by id.",
            ),
        ]
    found += [
        Param("filter[in]", IDS),
        Param("filter[not_in]", IDS),
        *(
            Param(f"filter[{when}_at_{end}]", TIMESTAMP)
            for when in ("created", "updated")
            for end in ("min", "max")
        ),
        Param("filter[q]", STRING, "Search text."),
    ]
    return tuple(found)


def paged(orderby: Iterable[str] | None = ()) -> tuple[Param, ...]:
    """``fields``, ``page`` and the filters of a paginated list."""
    return (FIELDS, PAGE, *filters(orderby))


def counted(orderby: Iterable[str] | None = ()) -> tuple[Param, ...]:
    """The filters of a count (the list's, without ``fields`` and ``page``)."""
    return filters(orderby)


#: What a blank value of a word parameter is: only the empty string (white space alone is
#: refused), or empty and white space alike (stripped first).
BLANK_EMPTY, BLANK_SPACE = "", "\\s*"


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


def words(values: Iterable[str], blank: str) -> Schema:
    """One of ``values`` compared case-insensitively with white space around ignored (how the
    views read ``filter[order]``, ``filter[orderby]``, a webhook list's ``status``), or a blank
    value (``blank``) for the default."""
    listed = "|".join(_any_case(value) for value in values)
    return {
        "type": "string",
        "pattern": f"^(?:{blank}|\\s*(?:{listed})\\s*)$",
        "examples": list(values)[:1],
    }


def choice(name: str, values: Iterable[str], description: str = "") -> Param:
    """A word parameter (:func:`words`) whose empty value is the default."""
    return Param(name, words(values, BLANK_EMPTY), description)


def text(name: str, description: str = "") -> Param:
    return Param(name, STRING, description)


def flag(name: str, description: str = "") -> Param:
    return Param(name, TRUE_ONLY, description)
