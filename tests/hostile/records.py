"""Plausible values by kind of field, the :class:`Shape` of an object's write fields, and the
records drawn from a shape: mostly plausible, with one field and up to ``hostile`` more made
hostile."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.hostile.values import choice, hostile_for, hostile_values, unknown_keys

NAME = st.one_of(
    choice("Hostile", "Red", "a b", "Ünïcødé", "Size 10"), st.text(min_size=1, max_size=12)
)

TEXT = st.one_of(NAME, choice("", "<b>bold</b>\n\nnext"))

SLUG = choice("hostile", "red-2", "", "Ünï Slug")

SMALL_INT = st.one_of(st.integers(-3, 40), choice("3", " 4 ", "+5"))

BOOL = choice(True, False, "yes", "no", "1", "0", 1, 0, "TRUE")

AMOUNT = choice("10", "9.99", 5, 0, "", "0.000001", 12.5, " 7 ")

DATE = choice("2030-01-01", "2030-01-01T10:00:00Z", "2020-02-29 10:00:00+02:00", "")

#: Private IP literals (never fetched: the suite's app refuses private targets) and other
#: schemes: no generated URL reaches the network.
URL = choice(
    "http://127.0.0.1:9/hook",
    "https://10.0.0.1/x.png",
    "http://[::1]:9/image.png",
    "ftp://127.0.0.1/x.png",
    "file:///etc/passwd",
    "data:image/png;base64,iVBORw0KGgo=",
    "javascript:alert(1)",
    "http://",
)


@dataclass(frozen=True)
class Shape:
    """The write fields of one kind of object: a plausible value strategy per field."""

    fields: Mapping[str, st.SearchStrategy[Any]]
    required: Mapping[str, st.SearchStrategy[Any]] | None = None


@st.composite
def records(
    draw: st.DrawFn, shape: Shape, hostile: int = 2, nested: bool = False
) -> dict[str, Any]:
    """An object of ``shape``: its required fields and some others plausible, then one field
    chosen evenly among all of them given a hostile value (for a ``nested`` element, only
    sometimes: the array around it may be what is hostile), and up to ``hostile`` more fields
    (or unknown keys) too."""
    record: dict[str, Any] = {}
    for name, strategy in (shape.required or {}).items():
        record[name] = draw(strategy)
    names = sorted(shape.fields)
    if names:
        for name in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
            record[name] = draw(shape.fields[name])
    every = [*names, *(shape.required or {})]
    if not nested or draw(st.booleans()):
        focus = draw(st.sampled_from(every))
        record[focus] = draw(hostile_for(focus))
    targets = st.one_of(st.sampled_from(every), unknown_keys())
    for name in draw(st.lists(targets, max_size=hostile, unique=True)):
        record[name] = draw(hostile_for(name))
    return record


def record_lists(shape: Shape, max_size: int = 2) -> st.SearchStrategy[Any]:
    """An array of nested elements of ``shape`` (``images``, ``attributes``, …), or a hostile
    value instead of the array."""
    elements = records(shape, hostile=1, nested=True)
    return st.one_of(st.lists(elements, max_size=max_size), hostile_values)


def gentle(shape: Shape) -> st.SearchStrategy[dict[str, Any]]:
    """A nested element of ``shape`` with at most one hostile field (half the time)."""
    return records(shape, hostile=0, nested=True)
