"""``sql.common.stored_json`` reads stored JSON text exactly as ``json.loads`` does (it takes
``orjson`` where that gives the same value)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shopsvc.sql.common import stored_json

#: JSON values of every kind, integers far beyond 64 bits and non-ASCII text included.
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)


def _same(left: Any, right: Any) -> bool:
    """Equal, and of the same types all the way down (``1 == 1.0`` does not count)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, float) and math.isnan(left):
        return math.isnan(right)
    return bool(left == right)


@given(VALUES, st.booleans())
def test_any_stored_document_reads_as_json_reads_it(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert _same(stored_json(text), json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        "[18446744073709551616]",  # orjson: a float
        '{"deep": [{"n": 100000000000000000000000}, [1.5]]}',
        "[-9223372036854775809]",
        '{"n": 123456789012345678901234567890}',
        "[9223372036854775807, -9223372036854775808, 18446744073709551615]",
        "[NaN, Infinity, -Infinity]",  # orjson refuses them
        "[1e400]",
        '["\\ud800"]',  # a lone surrogate
        '{"a": 1, "a": 2}',
        ' \t\n["padded"]\r\n',
        "[]",
        "{}",
        '"text"',
    ],
)
def test_the_edges_of_orjson(text: str) -> None:
    assert _same(stored_json(text), json.loads(text))


@pytest.mark.parametrize("text", ["", "[1,]", "[01]", "\ufeff[1]", '["a\x01"]', "[1] x", "nul"])
def test_invalid_text_raises_jsons_error(text: str) -> None:
    with pytest.raises(ValueError) as raised:
        stored_json(text)
    with pytest.raises(ValueError) as expected:
        json.loads(text)
    assert type(raised.value) is type(expected.value)
    assert str(raised.value) == str(expected.value)
