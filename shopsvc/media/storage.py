"""Where stored images live (``shopsvc.media_storage``): the interface every backend offers,
the local directory backend (``local``, below ``shopsvc.media_dir``) and the names stored images
get (the S3 backend is ``shopsvc.media.s3``; an application's is ``shopsvc.media.backend``).

Stored names are ``YYYY/MM/<32 hex digits>.<ext>``: each stored image gets a new, unique name
and is never rewritten, so caches may keep it for a year (:data:`IMMUTABLE`). Only names of that
form are ever removed by clean-ups (``media prune``): ``placeholder.png``, the demo data's
``seed/`` pictures or anything an operator put there stay.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import uuid
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

#: The ``Cache-Control`` of a stored image: its name is unique and its bytes never change.
IMMUTABLE = "public, max-age=31536000, immutable"
#: The placeholder's: the operator may replace it.
PLACEHOLDER_CACHE = "public, max-age=86400"
#: A name this service gives a stored image (the only names clean-ups remove).
STORED_NAME = re.compile(r"\d{4}/\d{2}/[0-9a-f]{32}\.(?:jpg|png|gif|webp)")


class StorageError(Exception):
    """The storage could not do what was asked. ``reason`` completes "Error storing image <url>:
    …" (it never holds credentials); ``name`` is the short kind of failure ``/readyz`` reports
    (an exception's class or the store's error code)."""

    def __init__(self, reason: str, name: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.name = name or "StorageError"


@dataclass(frozen=True)
class StoredObject:
    """One stored file: its name (as in ``media.file``), size and time of last change (UTC)."""

    name: str
    size: int
    modified: dt.datetime


class Storage(Protocol):
    """What the service needs of a storage backend. Names are relative (``2026/05/<hex>.png``);
    every method raises :class:`StorageError` on failure."""

    #: ``local`` or ``s3``: what ``shopsvc.media_storage`` says.
    kind: str
    #: True when a permanent product delete removes its images (rows and objects).
    removes_with_products: bool

    def put(self, name: str, data: bytes, content_type: str, cache: str = IMMUTABLE) -> None:
        """Store ``data`` under ``name`` (with its content type and ``Cache-Control``)."""
        ...

    def delete(self, names: Collection[str]) -> None:
        """Remove these names; a name already gone is fine."""
        ...

    def exists(self, name: str) -> bool: ...

    def list(self) -> Iterator[StoredObject]:
        """Every stored file, in no particular order."""
        ...

    def check(self) -> None:
        """Raise :class:`StorageError` unless the storage answers (``/readyz``)."""
        ...

    def describe(self) -> str:
        """Where the files are, for the CLI's reports (``/srv/media``, ``s3://bucket/prefix``)."""
        ...


def new_name(extension: str, today: dt.date | None = None) -> str:
    """A new stored name: ``YYYY/MM/<uuid4 hex>.<extension>``."""
    day = today or dt.datetime.now(dt.UTC).date()
    return f"{day:%Y}/{day:%m}/{uuid.uuid4().hex}.{extension}"


# --- the local directory


def delete_file(path: str | os.PathLike[str]) -> None:
    """Remove a stored file; a file that is already gone is fine, other errors are logged."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        log.exception("could not delete %s", path)


def _reason(error: OSError) -> str:
    return error.strerror or "input/output error"


class LocalStorage:
    """Files below ``root`` (``shopsvc.media_dir``), served by the app at ``media_url``."""

    kind = "local"
    removes_with_products = False

    def __init__(self, root: str) -> None:
        self.root = root

    def path(self, name: str) -> Path:
        return Path(self.root, name)

    def put(self, name: str, data: bytes, content_type: str, cache: str = IMMUTABLE) -> None:
        """Write a new file (never over an existing one), leaving no partial file behind."""
        path = self.path(name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "xb") as handle:
                handle.write(data)
        except OSError as exc:
            if not isinstance(exc, FileExistsError):
                delete_file(path)
            raise StorageError(_reason(exc), type(exc).__name__) from exc

    def delete(self, names: Collection[str]) -> None:
        for name in names:
            delete_file(self.path(name))

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def list(self) -> Iterator[StoredObject]:
        root = Path(self.root)
        if not root.is_dir():
            return
        for directory, _, files in os.walk(root):
            for file in files:
                path = Path(directory, file)
                try:
                    stat = path.lstat()
                except OSError:
                    continue  # removed meanwhile
                if path.is_symlink():
                    continue
                modified = dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC)
                yield StoredObject(path.relative_to(root).as_posix(), stat.st_size, modified)

    def check(self) -> None:
        """Nothing to reach: the directory is created on the first store."""

    def describe(self) -> str:
        return str(Path(self.root).resolve())
