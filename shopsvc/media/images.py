"""Images downloaded from a URL (product and category ``src``), stored in the media storage
(``shopsvc.media_storage``: below ``shopsvc.media_dir``, or in an S3 bucket) and linked at
``shopsvc.media_url`` (decisions.md §1, §5 and §7 "Images"); the local files served by the app.

A download goes through :mod:`shopsvc.outbound.client` with a 10 s budget (connection, redirects and
body together), reads at most ``max_image_bytes``, follows at most 3 redirects — each target checked
against private addresses like the first — and keeps only bytes that *are* a JPEG, PNG, GIF or WebP
image (the Content-Type header is never trusted). Downloads and stores happen before the request's
transaction begins; what a rolled-back write stored is removed again (``shopsvc.media.uploads``).
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from pyramid.request import Request

from shopsvc.errors import ApiError
from shopsvc.media.storage import StorageError, new_name
from shopsvc.media.uploads import Uploads, uploads_of
from shopsvc.outbound import client as outbound
from shopsvc.outbound.client import OutboundError
from shopsvc.sql import media_writes as media_writes_sql

log = logging.getLogger(__name__)

TIMEOUT = 10.0  # seconds, for the whole download
MAX_REDIRECTS = 3
STORE_ERROR = "shop_api_cannot_upload_product_image"
PLACEHOLDER = "placeholder.png"
PLACEHOLDER_FILE = Path(__file__).parent / "static" / PLACEHOLDER


@dataclass(frozen=True)
class ImageKind:
    mime_type: str
    extension: str


JPEG = ImageKind("image/jpeg", "jpg")
PNG = ImageKind("image/png", "png")
GIF = ImageKind("image/gif", "gif")
WEBP = ImageKind("image/webp", "webp")

# What a served file's extension says it is (the extensions ``download_image`` writes, plus .jpeg).
CONTENT_TYPES = {"jpg": JPEG.mime_type, "jpeg": JPEG.mime_type, "png": PNG.mime_type}
CONTENT_TYPES |= {"gif": GIF.mime_type, "webp": WEBP.mime_type}


class DownloadError(Exception):
    """A fetch or content failure; ``reason`` completes "Error getting remote image <url>: …"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- content


def sniff(data: bytes) -> ImageKind | None:
    """The image kind the leading bytes announce, or None."""
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith((b"GIF87a", b"GIF89a")):
        return GIF
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return WEBP
    return None


def title_from_url(url: str) -> str:
    """The file name of the URL's path without its extension: ``…/red%20shoe.jpg?x=1`` → ``red
    shoe``."""
    name = PurePosixPath(unquote(urlsplit(url).path)).name
    return PurePosixPath(name).stem if name else ""


# --- fetching


def _reason(error: OutboundError, max_bytes: int) -> str:
    """The failure in the words of an image download (an error status wins over its body)."""
    if error.status is not None and not 200 <= error.status < 300:
        return f"the server answered HTTP {error.status}"
    if error.kind == "timeout":
        return "the download timed out"
    if error.kind == "too_large":
        return f"the image is larger than {max_bytes} bytes"
    if error.kind == "read":
        return "the connection failed while reading the image"
    return error.reason


def fetch_image(
    url: str, allow_private: bool, max_bytes: int, timeout: float | None = None
) -> tuple[bytes, ImageKind]:
    """The bytes and kind of the image at ``url`` (through :mod:`shopsvc.outbound.client`: private
    targets per hop, redirects, deadline, size cap); ``DownloadError`` on any failure."""
    try:
        response = outbound.send(
            "GET",
            url,
            allow_private=allow_private,
            max_redirects=MAX_REDIRECTS,
            timeout=TIMEOUT if timeout is None else timeout,
            max_bytes=max_bytes,
            headers={"Accept": "image/*"},
        )
    except OutboundError as exc:
        raise DownloadError(_reason(exc, max_bytes)) from None
    if not 200 <= response.status < 300:
        raise DownloadError(f"the server answered HTTP {response.status}")
    data = response.body
    if not data:
        raise DownloadError("the file is empty")
    kind = sniff(data)
    if kind is None:
        raise DownloadError("the file is not a JPEG, PNG, GIF or WebP image")
    return data, kind


# --- storing


def _fetch(request: Request, url: str, error_code: str) -> tuple[bytes, ImageKind]:
    """The image at ``url``; a fetch or content failure is the 400 ``error_code``."""
    shop = request.shop
    try:
        return fetch_image(url, shop.allow_private_targets, shop.max_image_bytes)
    except DownloadError as exc:
        raise ApiError(
            error_code, f"Error getting remote image {url}: {exc.reason}.", 400
        ) from None


def _store(uploads: Uploads, url: str, data: bytes, kind: ImageKind) -> str:
    """Store ``data`` under a new name (content type and a year's ``Cache-Control``); the name.
    A failure is the 400 ``shop_api_cannot_upload_product_image``; after one, the request tries
    the storage no more (a bulk does not wait on an unreachable store once per image)."""
    if uploads.store_failure is None:
        name = new_name(kind.extension)
        try:
            uploads.storage.put(name, data, kind.mime_type)
            return name
        except StorageError as exc:
            where = uploads.storage.describe()
            log.error("cannot store image from %s in %s: %s", url, where, exc.reason)
            uploads.store_failure = exc.reason
    message = f"Error storing image {url}: {uploads.store_failure}."
    raise ApiError(STORE_ERROR, message, 400)


def prefetch_images(request: Request, urls: Iterable[str], error_code: str) -> None:
    """Download the images at ``urls`` now and store one copy per occurrence of each URL, before
    the request's transaction begins, so that no request holds the database's write lock while
    it waits on the network (the image host or the object store).

    Each URL's copies (or its failure) wait for :func:`download_image`, which the writes call at
    the point where the image belongs — failures surface there, in the order of checks the spec
    gives. Copies no write keeps are removed when the request ends (``shopsvc.media.uploads``)."""
    if "shopsvc.connection" in request.environ:
        log.warning("images prefetched inside an open transaction")
    uploads = uploads_of(request)
    for url, count in Counter(urls).items():
        if url in uploads.pools:
            continue
        pool = uploads.pool(url)
        try:
            data, kind = _fetch(request, url, error_code)
            pool.mime_type = kind.mime_type
            for _ in range(count):
                pool.names.append(_store(uploads, url, data, kind))
        except ApiError as exc:
            pool.error = exc


def download_image(request: Request, url: str, error_code: str) -> int:
    """The image at ``url`` as a new ``media`` row of the request's transaction; its id
    (:func:`reserve_image`, then the row inserted)."""
    return media_writes_sql.insert(request.db, reserve_image(request, url, error_code))


def reserve_image(request: Request, url: str, error_code: str) -> dict[str, Any]:
    """A stored copy of the image at ``url`` held for a write of this request: the ``media``
    row that stores it (``file``, ``source_url``, ``mime_type``, ``title``), for the write to
    insert — the product planner takes every image it needs before its first write.

    The stored copy comes from :func:`prefetch_images` (a URL nobody prefetched is downloaded and
    stored now, inside the transaction). Fetch and content failures → 400 ``error_code``;
    failure to store it → 400 ``shop_api_cannot_upload_product_image``. If the request (or the
    bulk element's savepoint) rolls back, a prefetched copy goes back to its pool and one stored
    now is removed: nothing the transaction wrote is left referenced.
    """
    uploads = uploads_of(request)
    taken = uploads.take(url)
    if taken is not None:
        name, mime_type = taken
        request.on_rollback(functools.partial(uploads.give_back, url, name))
    else:
        log.warning("image %s downloaded inside the request's transaction", url)
        data, kind = _fetch(request, url, error_code)
        name, mime_type = _store(uploads, url, data, kind), kind.mime_type
        request.on_rollback(functools.partial(uploads.discard, name))
    return {
        "file": name,
        "source_url": url,
        "mime_type": mime_type,
        "title": title_from_url(url),
    }


# --- URLs and serving


def media_url(request: Request, file: str) -> str:
    """The public URL of a stored file (``file`` as in ``media.file``): below ``media_url``,
    itself below the request's public URL unless it is absolute (an object store, a CDN)."""
    base = request.shop.media_url
    prefix = base if "://" in base else f"{request.public_url}{base}"
    return f"{prefix}/{quote(file)}"


def placeholder_url(request: Request) -> str:
    return media_url(request, PLACEHOLDER)


def _safe_parts(parts: Sequence[str]) -> bool:
    return bool(parts) and all(
        part and not part.startswith(".") and "\\" not in part and "\x00" not in part
        for part in parts
    )


def find_file(media_dir: str, parts: Sequence[str]) -> Path | None:
    """The servable file at ``parts`` below ``media_dir`` (the packaged placeholder when the
    directory has no ``placeholder.png``), or None: no hidden segments, no escaping the directory
    (``..`` or symbolic links), image extensions only."""
    if not _safe_parts(parts) or content_type(parts[-1]) is None:
        return None
    root = Path(media_dir).resolve()
    path = root.joinpath(*parts).resolve()
    if path.is_relative_to(root) and path.is_file():
        return path
    if tuple(parts) == (PLACEHOLDER,):
        return PLACEHOLDER_FILE
    return None


def content_type(name: str) -> str | None:
    """The image content type of a file name's extension, or None."""
    return CONTENT_TYPES.get(PurePosixPath(name).suffix.lower().lstrip("."))
