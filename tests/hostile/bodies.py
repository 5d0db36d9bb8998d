"""Request bodies: :class:`Raw` and :func:`encode` write what ``json.dumps`` cannot (numbers
that overflow to infinity, ``1e309``, or have more digits than Python prints, 5000; nesting
deeper than Python's recursion limit; lone surrogates as ``\\ud800`` escapes), and
:data:`RAW_BODIES` are not JSON objects at all."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Raw:
    """JSON text spliced into a body as it is."""

    text: str


def encode(value: Any) -> str:
    """``value`` as JSON text; :class:`Raw` parts verbatim; strings ASCII-escaped (so a lone
    surrogate becomes ``\\ud800``)."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        items = (f"{json.dumps(str(key))}:{encode(item)}" for key, item in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(encode(item) for item in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("use Raw('1e309') for a number that overflows")
    return json.dumps(value)


def body_bytes(value: Any) -> bytes:
    """The request body: bytes as they are, anything else encoded as JSON."""
    if isinstance(value, bytes):
        return value
    return encode(value).encode("ascii")


def deep_array(depth: int) -> Raw:
    """``[[[…]]]``, ``depth`` levels."""
    return Raw("[" * depth + "]" * depth)


def deep_object(depth: int) -> Raw:
    """``{"a":{"a":…1}}``, ``depth`` levels."""
    return Raw('{"a":' * depth + "1" + "}" * depth)


#: More digits than Python converts (4300): only :class:`Raw` can send such a JSON number.
HUGE_DIGITS = 5000
#: A digit string beyond what Python converts, and one of 400 digits (beyond every column, within
#: what Python converts).
HUGE = "9" * HUGE_DIGITS
NINES = "9" * 400

#: Depths at and around the JSON nesting limit, and far beyond Python's recursion limit.
DEPTHS = (3, 32, 63, 64, 65, 200, 400, 1200, 5000)

#: Bodies that are not JSON at all, or not an object.
RAW_BODIES = (
    b"",
    b"   \n",
    b"{",
    b"{bad",
    b'{"a":}',
    b"\xff\xfe{}",
    b"\xef\xbb\xbf{}",
    b"\x00",
    b"null",
    b"[]",
    b'"x"',
    b"1e309",
    b'{"a": NaN}',
    b'{"a": Infinity}',
    b'{"a": 1} trailing',
    b'{"a": "\\ud800"}',
    b'{"a": "\\x"}',
)
