"""The media storage's upkeep: removing stored images no ``media`` row names (``media prune``),
copying a local ``media_dir`` into an object store (``media push``), and the placeholder image an
object store must hold (uploaded when the app starts, and by ``media push``).

Both commands report what they did as a dict (the CLI prints it as one line of JSON).
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from shopsvc.media.images import PLACEHOLDER, PLACEHOLDER_FILE, PNG, content_type
from shopsvc.media.storage import (
    IMMUTABLE,
    PLACEHOLDER_CACHE,
    STORED_NAME,
    LocalStorage,
    Storage,
    StorageError,
)
from shopsvc.sql import media_files as media_files_sql

log = logging.getLogger(__name__)

#: Names looked up in the database per statement.
PRUNE_BATCH = 500


def placeholder_bytes(media_dir: str) -> bytes:
    """The placeholder: ``media_dir/placeholder.png`` when the operator put one there, else the
    packaged one."""
    own = Path(media_dir, PLACEHOLDER)
    return (own if own.is_file() else PLACEHOLDER_FILE).read_bytes()


def _put_placeholder(storage: Storage, media_dir: str) -> None:
    storage.put(PLACEHOLDER, placeholder_bytes(media_dir), PNG.mime_type, PLACEHOLDER_CACHE)


def ensure_placeholder(storage: Storage, media_dir: str) -> bool:
    """Upload the placeholder to an object store that has none; True when it was uploaded. A
    store that cannot be reached is logged, not raised: ``/readyz`` reports it."""
    if storage.kind == "local":
        return False  # served by the app (the packaged one when media_dir has none)
    try:
        storage.check()  # one quick try: an unreachable store does not hold up the start
        if storage.exists(PLACEHOLDER):
            return False
        _put_placeholder(storage, media_dir)
    except StorageError as exc:
        log.warning(
            "the placeholder image could not be checked in %s (%s: %s): "
            "`shopsvc CONFIG media push` uploads it",
            storage.describe(),
            exc.reason,
            exc.__cause__ or exc.name,
        )
        return False
    log.info("uploaded the placeholder image to %s", storage.describe())
    return True


def prune(engine: Engine, storage: Storage, older_than: float, dry_run: bool) -> dict[str, Any]:
    """Remove the stored images (names this service gives: ``YYYY/MM/<hex>.<ext>``) that no
    ``media`` row names and that are older than ``older_than`` seconds (a younger one may belong
    to a request still under way: stored before its transaction, named by it at its commit)."""
    storage.check()
    cutoff = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=older_than)
    candidates = {
        item.name: item.size
        for item in storage.list()
        if STORED_NAME.fullmatch(item.name) and item.modified <= cutoff
    }
    names = sorted(candidates)
    orphans: list[str] = []
    with engine.connect() as conn:
        for start in range(0, len(names), PRUNE_BATCH):
            batch = names[start : start + PRUNE_BATCH]
            named = media_files_sql.named_files(conn, batch)
            orphans += [name for name in batch if name not in named]
    if orphans and not dry_run:
        storage.delete(orphans)
    return {
        "storage": storage.kind,
        "location": storage.describe(),
        "dry_run": dry_run,
        "checked": len(names),
        "removed": orphans,
        "bytes_removed": sum(candidates[name] for name in orphans),
    }


def push(media_dir: str, storage: Storage, dry_run: bool) -> dict[str, Any]:
    """Copy the images below ``media_dir`` into the object store (each with its content type
    and ``Cache-Control``), those it does not hold yet; and the placeholder (the operator's own
    in ``media_dir``, else the packaged one), replacing the store's."""
    storage.check()
    local = LocalStorage(media_dir)
    copied = skipped = size = 0
    for item in sorted(local.list(), key=lambda item: item.name):
        kind = content_type(item.name)
        if kind is None or item.name == PLACEHOLDER or _hidden(item.name):
            continue
        if storage.exists(item.name):
            skipped += 1
            continue
        if not dry_run:
            cache = IMMUTABLE if STORED_NAME.fullmatch(item.name) else PLACEHOLDER_CACHE
            storage.put(item.name, local.path(item.name).read_bytes(), kind, cache)
        copied += 1
        size += item.size
    if not dry_run:
        _put_placeholder(storage, media_dir)
    return {
        "storage": storage.kind,
        "location": storage.describe(),
        "source": local.describe(),
        "dry_run": dry_run,
        "copied": copied,
        "skipped": skipped,
        "bytes_copied": size,
        "placeholder": not dry_run,
    }


def _hidden(name: str) -> bool:
    return any(part.startswith(".") for part in name.split("/"))
