"""The ``s3`` media storage: an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Cloudflare R2,
Garage…) through boto3.

Credentials come only from boto3's standard chain (the ``AWS_*`` environment variables, the shared
config and credentials files, an instance or container role): never from the ini. Objects are
stored at ``<prefix>/<name>`` with their content type and ``Cache-Control``; the service never
proxies them (``shopsvc.media_url`` is where clients fetch them: the bucket's public URL or a CDN).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Collection, Iterator
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)

from shopsvc.media.storage import IMMUTABLE, StorageError, StoredObject

log = logging.getLogger(__name__)

#: Seconds to connect and to wait for an answer, and tries per call (uploads and clean-ups).
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 30.0
MAX_ATTEMPTS = 3
#: ``/readyz`` asks once, briefly: a probe must answer quickly.
PROBE_TIMEOUT = 2.0
#: Keys per ``DeleteObjects`` call (S3's limit).
DELETE_BATCH = 1000
#: An answer to a HEAD has no body, hence no error code: what its status means.
HEAD_STATUS_CODES = {"301": "PermanentRedirect", "403": "AccessDenied", "404": "NotFound"}


def _failure(exc: Exception) -> StorageError:
    """A boto3 failure in the words of the service (the detail goes to the log)."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code") or "error")
        code = HEAD_STATUS_CODES.get(code, code)
        return StorageError(f"the media store refused the request ({code})", code)
    name = type(exc).__name__
    if isinstance(exc, EndpointConnectionError):
        return StorageError("the media store is unreachable", name)
    if isinstance(exc, ConnectTimeoutError | ReadTimeoutError):
        return StorageError("the media store did not answer in time", name)
    if isinstance(exc, NoCredentialsError):
        return StorageError("no credentials for the media store (boto3 found none)", name)
    return StorageError("the media store could not be used", name)


class S3Storage:
    """Objects in ``bucket`` below ``prefix`` (no prefix: the bucket's root)."""

    kind = "s3"
    removes_with_products = True

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        endpoint_url: str = "",
        region: str = "",
        addressing_style: str = "auto",
    ) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.endpoint_url = endpoint_url or None
        self.region = region or None
        self.addressing_style = addressing_style
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    # --- the clients

    def _config(self, probe: bool) -> Config:
        return Config(
            s3={"addressing_style": self.addressing_style},
            connect_timeout=PROBE_TIMEOUT if probe else CONNECT_TIMEOUT,
            read_timeout=PROBE_TIMEOUT if probe else READ_TIMEOUT,
            retries={"max_attempts": 1 if probe else MAX_ATTEMPTS, "mode": "standard"},
            # Checksums only where S3 requires them: several S3-compatible stores refuse the
            # newer default ones.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        )

    def _client(self, probe: bool = False) -> Any:
        """A boto3 client (made once; boto3's clients are safe to share between threads)."""
        kind = "probe" if probe else "main"
        client = self._clients.get(kind)
        if client is None:
            with self._lock:
                client = self._clients.get(kind)
                if client is None:
                    try:
                        client = boto3.session.Session().client(
                            "s3",
                            endpoint_url=self.endpoint_url,
                            region_name=self.region,
                            config=self._config(probe),
                        )
                    except (BotoCoreError, ValueError) as exc:
                        log.error("cannot make an S3 client: %s", exc)
                        raise StorageError("the media store cannot be used", "ClientSetup") from exc
                    self._clients[kind] = client
        return client

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    def _call(self, operation: str, **params: Any) -> Any:
        try:
            return getattr(self._client(), operation)(Bucket=self.bucket, **params)
        except (BotoCoreError, ClientError) as exc:
            log.warning("S3 %s on %s failed: %s", operation, self.describe(), exc)
            raise _failure(exc) from exc

    # --- the storage

    def put(self, name: str, data: bytes, content_type: str, cache: str = IMMUTABLE) -> None:
        self._call(
            "put_object",
            Key=self.key(name),
            Body=data,
            ContentType=content_type,
            CacheControl=cache,
        )

    def delete(self, names: Collection[str]) -> None:
        keys = [self.key(name) for name in names]
        for start in range(0, len(keys), DELETE_BATCH):
            batch = [{"Key": key} for key in keys[start : start + DELETE_BATCH]]
            answer = self._call("delete_objects", Delete={"Objects": batch, "Quiet": True})
            failed = answer.get("Errors") or []
            if failed:
                first = failed[0]
                log.warning("S3 could not delete %d objects, e.g. %s", len(failed), first)
                code = str(first.get("Code") or "error")
                raise StorageError(f"the media store refused to delete ({code})", code)

    def exists(self, name: str) -> bool:
        try:
            self._client().head_object(Bucket=self.bucket, Key=self.key(name))
        except ClientError as exc:
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if status == 404:
                return False
            raise _failure(exc) from exc
        except BotoCoreError as exc:
            raise _failure(exc) from exc
        return True

    def list(self) -> Iterator[StoredObject]:
        start = f"{self.prefix}/" if self.prefix else ""
        pages = self._client().get_paginator("list_objects_v2")
        try:
            for page in pages.paginate(Bucket=self.bucket, Prefix=start):
                for item in page.get("Contents", []):
                    modified = item["LastModified"].astimezone(dt.UTC)
                    yield StoredObject(item["Key"][len(start) :], int(item["Size"]), modified)
        except (BotoCoreError, ClientError) as exc:
            log.warning("S3 listing of %s failed: %s", self.describe(), exc)
            raise _failure(exc) from exc

    def check(self) -> None:
        try:
            self._client(probe=True).head_bucket(Bucket=self.bucket)
        except (BotoCoreError, ClientError) as exc:  # the caller logs it (with this cause)
            raise _failure(exc) from exc

    def describe(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"
