"""Log formats: one JSON object per line in production, one human line in development.

Both name the request being served: the access tween (``web/access.py``) puts the request's id in
:data:`REQUEST_ID` for as long as the request runs, and the record factory that
:func:`install_record_factory` puts in place copies it onto every record made meanwhile (an
unhandled error in ``views/errors.py``, a busy database), as ``record.request_id``. The access line
passes its other fields as ``extra=`` (:data:`ACCESS_FIELDS`); :class:`JsonFormatter` writes every
such field as a key of its own.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

#: The id of the request the current thread serves (None outside a request).
REQUEST_ID: ContextVar[str | None] = ContextVar("shopsvc_request_id", default=None)

#: The ``extra=`` fields of a ``shopsvc.access`` record.
ACCESS_FIELDS = (
    "request_id",
    "method",
    "path",
    "status",
    "duration_ms",
    "response_bytes",
    "client_ip",
    "key_id",
)

#: The attributes every ``LogRecord`` has: anything else on a record came from ``extra=``.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "taskName",
}


def _with_request_id(factory: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def make_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        request_id = REQUEST_ID.get()
        if request_id is not None:
            record.request_id = request_id
        return record

    make_record.shopsvc_request_id = True  # type: ignore[attr-defined]
    return make_record


def install_record_factory() -> None:
    """Every log record made while a request is served carries its id (once per process; the
    factory in place is wrapped, not replaced)."""
    factory = logging.getLogRecordFactory()
    if not getattr(factory, "shopsvc_request_id", False):
        logging.setLogRecordFactory(_with_request_id(factory))


def _request_id(record: logging.LogRecord) -> str | None:
    given = getattr(record, "request_id", None)
    return given if given is not None else REQUEST_ID.get()


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", "request_id"?, <extra fields>…, "exception"?}``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = _request_id(record)
        if request_id is not None:
            entry["request_id"] = request_id
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A plain ``logging.Formatter`` whose format may name ``%(request_id)s`` (``-`` outside a
    request) and ``%(request_tag)s`` (`` [<id>]`` inside a request, empty outside):
    development.ini's one-line human format."""

    def format(self, record: logging.LogRecord) -> str:
        request_id = _request_id(record)
        shown = logging.makeLogRecord(record.__dict__)  # other handlers see the record unchanged
        shown.request_id = request_id or "-"
        shown.request_tag = f" [{request_id}]" if request_id else ""
        text = super().format(shown)
        record.exc_text = shown.exc_text  # formatted once, as logging.Formatter caches it
        return text
