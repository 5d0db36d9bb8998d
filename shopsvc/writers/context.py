"""What a writer needs, instead of the request."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Connection

from shopsvc.domain.events import EventSet
from shopsvc.settings import Settings

#: ``download(url, error_code)``: store the image at ``url`` as a new media row; its id.
Download = Callable[[str, str], int]
#: ``take_image(url, error_code)``: the image at ``url`` taken for one write (its failure raised
#: now); the returned call stores it as a new media row, once every check has passed; its id.
TakeImage = Callable[[str, str], Callable[[], int]]


def _no_downloads(url: str, error_code: str) -> int:
    raise RuntimeError(f"this write cannot download images ({url})")


def _no_takes(url: str, error_code: str) -> Callable[[], int]:
    raise RuntimeError(f"this write cannot download images ({url})")


@dataclass(frozen=True)
class WriteContext:
    """The inputs of every write: the connection (and its transaction), the shop's settings, the
    time of the write as stored (UTC, naive, whole seconds: ``sql.tables.utc_now``) and how to
    download an image (a view passes ``shopsvc.media.download_image`` bound to its request, which
    deletes the file again when the transaction rolls back), and the webhook events of the
    changes (flushed into the outbox in the same transaction: the request's, or the caller's).
    ``take_image`` is ``download`` in two halves (``shopsvc.media.images.take_image``): the
    image's check now, its media row's write once the write's other checks have passed."""

    conn: Connection
    settings: Settings
    now: dt.datetime
    download: Download = _no_downloads
    take_image: TakeImage = _no_takes
    events: EventSet = field(default_factory=EventSet)
