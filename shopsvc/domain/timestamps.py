"""The one timestamp format (design.md "Data"): stored in UTC, written ``YYYY-MM-DDTHH:MM:SSZ``.

Pure: records, rendering and the CLI format here without a request.
"""

from __future__ import annotations

import datetime as dt
import functools

__all__ = ["EPOCH", "TIMESTAMP_FORMAT", "format_timestamp"]

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
EPOCH = "1970-01-01T00:00:00Z"


@functools.lru_cache(maxsize=4096)
def format_timestamp(value: dt.datetime | None) -> str:
    """A stored UTC timestamp as ``2015-01-21T13:19:58Z`` (the epoch when unset); an aware
    value is converted to UTC first, a naive one is taken as UTC."""
    if value is None:
        return EPOCH
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    if type(value) is dt.datetime and value.year >= 1000:
        # The same text as the format below, several times faster (records format thousands of
        # timestamps per page); strftime writes a year below 1000 without its leading zeros.
        return value.isoformat(timespec="seconds") + "Z"
    return value.strftime(TIMESTAMP_FORMAT)
