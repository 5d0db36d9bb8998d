"""What the document says about one view: its body, its answer, its query and its error codes.

A :class:`ViewDoc` is declared per view (``shopsvc.openapi.table``); its error codes come
as :data:`Codes` — ``(status, code)`` pairs — built by the helpers below, which ask the families'
loaders for the codes they raise (``load``, ``require``) rather than repeating them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from shopsvc.errors import ApiError
from shopsvc.loaders.base import Loader
from shopsvc.openapi.schema import Schema

Codes = tuple[tuple[int, str], ...]
#: What the success body is: one record, a list (paginated or not), a count, a message, the
#: results of a bulk request, or a schema of its own (``ViewDoc.body``).
Answer = Literal["single", "paged", "list", "count", "message", "bulk", "custom"]


@dataclass(frozen=True)
class Param:
    """A query parameter."""

    name: str
    schema: Schema
    description: str = ""


@dataclass(frozen=True)
class ViewDoc:
    """The document's account of one view (all its methods)."""

    answer: Answer
    envelope: str = ""  # the key of the answer and of the request body
    record: str = ""  # the component of one record
    request: str = ""  # the component of the write body's envelope value ("" = no body)
    statuses: tuple[int, ...] = (200,)  # the success statuses
    query: tuple[Param, ...] = ()
    #: The error codes; of a bulk view, those its elements may report inside the 200 answer
    #: (the request's own errors — no envelope, too many elements — are derived).
    errors: Codes = ()
    body: Schema = field(default_factory=dict)  # the answer of a "custom" view
    content_types: tuple[str, ...] = ("application/json",)
    public: bool = False  # served without authentication
    tag: str = ""


class _Denied:
    """A caller holding no capability (to ask a loader which 401 it answers)."""

    db: Any = None

    def has_permission(self, permission: str, context: Any = None) -> bool:
        return False


def _raised(call: Any, *args: Any) -> tuple[int, str]:
    try:
        call(*args)
    except ApiError as error:
        return error.status, error.code
    raise AssertionError(f"{call} raised no ApiError")


def require(loader: Loader, action: str) -> Codes:
    """The 401 of ``loader.require(request, action)``."""
    return (_raised(loader.require, _Denied(), action),)


def not_found(loader: Loader) -> tuple[int, str]:
    """The 404 of a record ``loader`` does not find."""
    nothing = dataclasses.replace(loader, fetch=lambda *args: None)
    return _raised(nothing.find, None, 1)


def load(loader: Loader, action: str, scope: Loader | None = None) -> Codes:
    """The codes of ``loader.load(request, id, action)``, in its order of checks (``scope``: the
    loader of the record the family lives in, e.g. an attribute term's attribute)."""
    found: list[tuple[int, str]] = []
    for step in loader.orders.get(action, loader.order):
        if step == "id":
            found.append(_raised(loader.check_id, 0))
        elif step == "capability":
            found += require(loader, action)
        elif step == "scope" and scope is not None:
            found.append(not_found(scope))
        elif step == "record":
            found.append(not_found(loader))
    return tuple(found)


def codes(status: int, *names: str) -> Codes:
    return tuple((status, name) for name in names)


def error(raised: ApiError) -> Codes:
    """The code of an error that a family builds (``TermFamily.invalid_parent()`` …)."""
    return ((raised.status, raised.code),)


def merge(*groups: Codes) -> Codes:
    """The codes of every group, each once, in order."""
    return tuple(dict.fromkeys(pair for group in groups for pair in group))


def by_status(found: Codes) -> Mapping[int, list[str]]:
    grouped: dict[int, list[str]] = {}
    for status, code in found:
        grouped.setdefault(status, []).append(code)
    return dict(sorted(grouped.items()))
