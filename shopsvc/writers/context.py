"""What a writer needs, instead of the request."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from shopsvc.domain.events import EventSet
from shopsvc.settings import Settings

#: ``download(url, error_code)``: store the image at ``url`` as a new media row; its id.
Download = Callable[[str, str], int]
#: ``reserve(url, error_code)``: the media row (by column) of the image at ``url``, its stored
#: copy held for this write, for the write to insert (``shopsvc.media.images.reserve_image``).
Reserve = Callable[[str, str], dict[str, Any]]


def _no_downloads(url: str, error_code: str) -> Any:
    raise RuntimeError(f"this write cannot download images ({url})")


@dataclass(frozen=True)
class WriteContext:
    """The inputs of every write: the connection (and its transaction), the shop's settings, the
    time of the write as stored (UTC, naive, whole seconds: ``sql.tables.utc_now``) and how to
    download an image (a view passes ``shopsvc.media.download_image`` bound to its request, which
    deletes the file again when the transaction rolls back; ``reserve`` the same without the
    insert, for a planner that writes later), and the webhook events of the
    changes (flushed into the outbox in the same transaction: the request's, or the caller's)."""

    conn: Connection
    settings: Settings
    now: dt.datetime
    download: Download = _no_downloads
    reserve: Reserve = _no_downloads
    events: EventSet = field(default_factory=EventSet)
