"""The images of a product deleted for good: with an object store (``shopsvc.media_storage =
s3``) their ``media`` rows go in the delete's transaction (those no other product, variation,
gallery or category uses) and their objects once it has committed — never before, so a delete
that rolls back loses no image. The ``local`` storage keeps rows and files, as it always has.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from pyramid.request import Request

from shopsvc.media.backend import storage_of
from shopsvc.media.storage import Storage, StorageError
from shopsvc.sql import media_file_writes as media_file_writes_sql
from shopsvc.sql import media_files as media_files_sql

log = logging.getLogger(__name__)


def _remove_after_commit(storage: Storage, files: list[str]) -> None:
    try:
        storage.delete(files)
    except StorageError as exc:
        log.warning(
            "%d images of a deleted product were left in %s (%s): "
            "`shopsvc CONFIG media prune` removes them",
            len(files),
            storage.describe(),
            exc.reason,
        )


@contextmanager
def product_images_removed(request: Request, product_id: int, force: bool) -> Iterator[None]:
    """Around a product's delete: when ``force`` (for good) and the storage removes images with
    their products, the images the product and its variations showed are removed too."""
    storage = storage_of(request.registry)
    if not (force and storage.removes_with_products):
        yield
        return
    media_ids = media_files_sql.product_media_ids(request.db, product_id)
    yield
    files = media_file_writes_sql.delete_unused(request.db, media_ids)
    if files:
        request.after_commit(lambda: _remove_after_commit(storage, files))
