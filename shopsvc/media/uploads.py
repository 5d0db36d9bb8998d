"""The images one request stores, and their clean-up when the request ends.

Images are downloaded and stored *before* the request's transaction begins (no request holds the
database's write lock while it waits on the network, be it the image host or the object store):
one stored copy per element that will use the URL, kept in a pool until a write takes one. A
write rolled back (the request, or a bulk element's savepoint) gives its copy back to the pool, so
the next try takes it again; when the request ends — after its commit or its rollback — every
copy no write kept is removed. A copy stored later, inside the transaction (a URL nobody
prefetched), is removed if its write rolls back: at once from a local directory, when the request
ends from an object store (never a network call inside the transaction).

Should the removal fail (the store went away meanwhile, the process died), what remains is
referenced by no ``media`` row: ``shopsvc CONFIG media prune`` removes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from pyramid.request import Request

from shopsvc.errors import ApiError
from shopsvc.media.backend import storage_of
from shopsvc.media.storage import Storage

log = logging.getLogger(__name__)

ENVIRON_KEY = "shopsvc.uploads"


@dataclass
class Pool:
    """The copies of one URL's image stored before the transaction, not yet taken by a write
    (``error``: why the URL could not be fetched or stored; its copies are removed at the end)."""

    mime_type: str = ""
    names: list[str] = field(default_factory=list)
    error: ApiError | None = None


class Uploads:
    """The stored images of one request (see the module docstring)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.pools: dict[str, Pool] = {}
        self.doomed: list[str] = []
        #: Why the storage refused a store of this request (then it is not tried again).
        self.store_failure: str | None = None

    def pool(self, url: str) -> Pool:
        """The pool of ``url`` (a new, empty one the first time)."""
        return self.pools.setdefault(url, Pool())

    def take(self, url: str) -> tuple[str, str] | None:
        """A stored copy of ``url``'s image for one write: ``(name, mime type)``; the failure of
        its prefetch is raised; None when nothing was prefetched for ``url`` (or every copy is
        taken)."""
        pool = self.pools.get(url)
        if pool is None:
            return None
        if pool.error is not None:
            raise pool.error
        if not pool.names:
            return None
        return pool.names.pop(0), pool.mime_type

    def give_back(self, url: str, name: str) -> None:
        """The write that took ``name`` was rolled back: the copy is free again."""
        self.pool(url).names.insert(0, name)

    def discard(self, name: str) -> None:
        """A copy stored inside the transaction whose write was rolled back: removed at once from
        a local directory, else when the request ends."""
        if self.storage.kind == "local":
            self.storage.delete([name])
        else:
            self.doomed.append(name)

    def finish(self) -> None:
        """The request has ended: remove every copy no write kept."""
        names = self.doomed + [name for pool in self.pools.values() for name in pool.names]
        self.doomed = []
        for pool in self.pools.values():
            pool.names = []
        if not names:
            return
        try:
            self.storage.delete(names)
        except Exception as exc:  # a clean-up must never turn a response into an error
            log.warning(
                "%d stored images no record uses were left in %s (%s): "
                "`shopsvc CONFIG media prune` removes them",
                len(names),
                self.storage.describe(),
                exc,
            )


def uploads_of(request: Request) -> Uploads:
    """The request's :class:`Uploads` (made on first use; it cleans up when the request ends)."""
    uploads: Uploads | None = request.environ.get(ENVIRON_KEY)
    if uploads is None:
        uploads = request.environ[ENVIRON_KEY] = Uploads(storage_of(request.registry))
        request.add_finished_callback(lambda _request: uploads.finish())
    return uploads
