"""The media storage's commands: ``shopsvc CONFIG media prune`` and ``shopsvc CONFIG media push``.

``prune`` removes the stored images no ``media`` row names (left by a request that rolled back
while the store was unreachable, or by a process that died between storing an image and its
commit), in either storage; ``push`` copies an existing local ``media_dir`` into the bucket of
``shopsvc.media_storage = s3``, for an installation that moves. Each prints one line of JSON;
an unreachable store is one line on stderr and exit status 2, like every other failure.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from shopsvc.cli.errors import UsageError
from shopsvc.media import maintenance
from shopsvc.media.backend import make_storage
from shopsvc.media.storage import StorageError
from shopsvc.settings import Settings

Record = dict[str, Any]


def cmd_prune(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    if args.older_than < 0:
        raise UsageError("--older-than must not be negative")
    storage = make_storage(settings)
    try:
        return maintenance.prune(engine, storage, args.older_than, args.dry_run)
    except StorageError as exc:
        raise UsageError(f"{storage.describe()}: {exc.reason}") from None


def cmd_push(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    if settings.media_storage != "s3":
        raise UsageError(
            "push copies media_dir into an object store: set shopsvc.media_storage = s3 and "
            "shopsvc.s3.bucket first"
        )
    if not Path(settings.media_dir).is_dir():
        raise UsageError(f"shopsvc.media_dir {settings.media_dir} is not a directory: no files")
    storage = make_storage(settings)
    try:
        return maintenance.push(settings.media_dir, storage, args.dry_run)
    except StorageError as exc:
        raise UsageError(f"{storage.describe()}: {exc.reason}") from None
    except OSError as exc:
        path = exc.filename or settings.media_dir
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
