"""The media storage backend of an application: made from its settings
(``shopsvc.media_storage``) on first use and kept on its registry."""

from __future__ import annotations

import threading
from typing import Any

from shopsvc.media.storage import LocalStorage, Storage


def make_storage(settings: Any) -> Storage:
    """The backend ``settings`` (a ``shopsvc.settings.Settings``) configure."""
    if settings.media_storage == "s3":
        from shopsvc.media.s3 import S3Storage  # boto3 only when it is configured

        return S3Storage(
            bucket=settings.s3_bucket,
            prefix=settings.s3_prefix,
            endpoint_url=settings.s3_endpoint_url,
            region=settings.s3_region,
            addressing_style=settings.s3_addressing_style,
        )
    return LocalStorage(settings.media_dir)


_lock = threading.Lock()


def storage_of(registry: Any) -> Storage:
    """The storage backend of an application (made from ``registry.shop`` on first use, then
    kept on the registry: an S3 client is made once per process)."""
    storage: Storage | None = getattr(registry, "media_storage", None)
    if storage is None:
        with _lock:
            storage = getattr(registry, "media_storage", None)
            if storage is None:
                storage = registry.media_storage = make_storage(registry.shop)
    return storage
