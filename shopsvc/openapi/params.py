"""The query parameters of lists, counts and reads (decisions.md §2, §7;
``shopsvc.web.listing``)."""

from __future__ import annotations

from collections.abc import Iterable

from shopsvc.openapi.operations import Param
from shopsvc.web.listing import MAX_QUERY_INT

QUERY_INT = "Read by its leading digits; empty or 0 means the default."
STRING = {"type": "string"}
TIMESTAMP = {"type": "string", "description": "RFC 3339; a date alone is midnight UTC."}
IDS = {"type": "string", "description": "A comma-separated list of ids.", "pattern": r"^[0-9, ]*$"}
TRUE_ONLY = {
    "type": "string",
    "enum": ["true"],
    "description": "Only the string true switches it on.",
}

FIELDS = Param(
    "fields",
    STRING,
    "Comma-separated top-level fields to return; parent.child keeps only those children.",
)
PAGE = Param("page", {"type": "integer", "minimum": 1, "maximum": MAX_QUERY_INT}, QUERY_INT)
FORCE = Param(
    "force", STRING, "A boolean spelling of true deletes permanently; anything else trashes."
)


def filters(orderby: Iterable[str] | None = ()) -> tuple[Param, ...]:
    """The common ``filter[...]`` parameters; ``orderby`` the accepted ``filter[orderby]``
    spellings (None: the list has a fixed order and reads neither ``order`` nor ``orderby``)."""
    found = [
        Param(
            "filter[limit]",
            {"type": "integer", "minimum": -1},
            "Page size; -1 is the largest allowed (shopsvc.max_page_size). " + QUERY_INT,
        ),
        Param("filter[offset]", {"type": "integer", "minimum": 0}, "Replaces the skip of page."),
    ]
    if orderby is not None:
        choices = sorted(orderby)
        found += [
            Param(
                "filter[order]",
                {"type": "string", "enum": ["ASC", "DESC"]},
                "Case-insensitive; default DESC.",
            ),
            Param(
                "filter[orderby]",
                {"type": "string", "enum": choices},
                "Case-insensitive; ties are broken by id.",
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


def choice(name: str, values: Iterable[str], description: str = "") -> Param:
    return Param(name, {"type": "string", "enum": list(values)}, description)


def text(name: str, description: str = "") -> Param:
    return Param(name, STRING, description)


def flag(name: str, description: str = "") -> Param:
    return Param(name, TRUE_ONLY, description)
