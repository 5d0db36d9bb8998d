"""The one JSON encoder of what the service sends: API responses and webhook bodies.

Compact, UTF-8 (no ``\\u`` escapes for non-ASCII), decimals as their string, datetimes in the API's
timestamp format (``domain/timestamps.py``). Built on ``orjson``, several times faster than the
standard library's encoder on the large lists the API returns.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import orjson

from shopsvc.domain.timestamps import format_timestamp

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def _default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        return format_timestamp(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def encode(body: object) -> bytes:
    """``body`` as compact UTF-8 JSON bytes."""
    return orjson.dumps(body, default=_default, option=_OPTIONS)
