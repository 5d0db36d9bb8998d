"""Images downloaded from a URL (product and category ``src``), stored below ``shopsvc.media_dir``
and served at ``shopsvc.media_url`` (decisions.md §1, §5 and §7 "Images").

A download goes through :mod:`shopsvc.outbound.client` with a 10 s budget (connection, redirects and
body together), reads at most ``max_image_bytes``, follows at most 3 redirects — each target checked
against private addresses like the first — and keeps only bytes that *are* a JPEG, PNG, GIF or WebP
image (the Content-Type header is never trusted). The stored file is deleted again if the request's
transaction rolls back.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import os
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote, urlsplit

from pyramid.request import Request

from shopsvc.errors import ApiError
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


def store_file(media_dir: str, data: bytes, kind: ImageKind, today: dt.date) -> str:
    """Write ``data`` to ``media_dir/YYYY/MM/<uuid>.<ext>``; the path below ``media_dir`` (with
    ``/``). Raises OSError, leaving no partial file behind."""
    relative = f"{today:%Y}/{today:%m}/{uuid.uuid4().hex}.{kind.extension}"
    path = Path(media_dir, relative)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "xb") as handle:
            handle.write(data)
    except OSError:
        delete_file(path)
        raise
    return relative


def delete_file(path: str | os.PathLike[str]) -> None:
    """Remove a stored file; a file that is already gone is fine, other errors are logged."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        log.exception("could not delete %s", path)


@dataclass(frozen=True)
class _Prefetched:
    """A download made before the request's transaction began: its file below ``media_dir``
    (None after a failure, then ``error`` says why). Each write that uses it gets a copy, so a
    rolled-back bulk element never takes the file from the next one; the download itself is
    deleted when the request ends."""

    relative: str | None
    kind: ImageKind | None
    error: ApiError | None = None


def _fetch_and_store(request: Request, url: str, error_code: str) -> tuple[str, ImageKind]:
    """Download ``url`` and store it below ``media_dir``; the stored path and kind."""
    shop = request.shop
    try:
        data, kind = fetch_image(url, shop.allow_private_targets, shop.max_image_bytes)
    except DownloadError as exc:
        raise ApiError(
            error_code, f"Error getting remote image {url}: {exc.reason}.", 400
        ) from None
    today = dt.datetime.now(dt.UTC).date()
    try:
        relative = store_file(shop.media_dir, data, kind, today)
    except OSError as exc:
        log.error("cannot store image from %s in %s: %s", url, shop.media_dir, exc)
        reason = exc.strerror or "input/output error"
        raise ApiError(STORE_ERROR, f"Error storing image {url}: {reason}.", 400) from None
    return relative, kind


def prefetch_images(request: Request, urls: Iterable[str], error_code: str) -> None:
    """Download the images at ``urls`` now, before the request's transaction begins, so that no
    request holds the database's write lock while it waits on the network.

    Each download is stored (or its failure remembered) for :func:`download_image`, which the
    writes call at the point where the image belongs — failures surface there, in the order of
    checks the spec gives."""
    if "shopsvc.connection" in request.environ:
        log.warning("images prefetched inside an open transaction")
    cache: dict[str, _Prefetched] = request.environ.setdefault("shopsvc.prefetched", {})
    first = not cache
    for url in urls:
        if url in cache:
            continue
        try:
            relative, kind = _fetch_and_store(request, url, error_code)
        except ApiError as exc:
            cache[url] = _Prefetched(None, None, exc)
        else:
            cache[url] = _Prefetched(relative, kind)
    if first and cache:
        media_dir = request.shop.media_dir

        def discard_downloads() -> None:
            for entry in cache.values():
                if entry.relative is not None:
                    delete_file(Path(media_dir, entry.relative))

        request.after_commit(discard_downloads)
        request.on_rollback(discard_downloads)


def _copy(request: Request, entry: _Prefetched, url: str) -> tuple[str, ImageKind]:
    """A copy of a prefetched file for one use (or the failure of its download)."""
    if entry.error is not None:
        raise entry.error
    assert entry.relative is not None and entry.kind is not None
    shop = request.shop
    try:
        data = Path(shop.media_dir, entry.relative).read_bytes()
        relative = store_file(shop.media_dir, data, entry.kind, dt.datetime.now(dt.UTC).date())
    except OSError as exc:
        reason = exc.strerror or "input/output error"
        raise ApiError(STORE_ERROR, f"Error storing image {url}: {reason}.", 400) from None
    return relative, entry.kind


def download_image(request: Request, url: str, error_code: str) -> int:
    """The image at ``url`` as a new ``media`` row of the request's transaction; its id.

    The bytes come from :func:`prefetch_images` (a URL nobody prefetched is downloaded now).
    Fetch and content failures → 400 ``error_code``; failure to store the file → 400
    ``shop_api_cannot_upload_product_image``. The file is deleted if the request (or the bulk
    element's savepoint) rolls back.
    """
    entry = request.environ.get("shopsvc.prefetched", {}).get(url)
    if entry is not None:
        relative, kind = _copy(request, entry, url)
    else:
        log.warning("image %s downloaded inside the request's transaction", url)
        relative, kind = _fetch_and_store(request, url, error_code)
    request.on_rollback(functools.partial(delete_file, Path(request.shop.media_dir, relative)))
    values = {
        "file": relative,
        "source_url": url,
        "mime_type": kind.mime_type,
        "title": title_from_url(url),
    }
    return media_writes_sql.insert(request.db, values)


# --- URLs and serving


def media_url(request: Request, file: str) -> str:
    """The public URL of a stored file (``file`` as in ``media.file``)."""
    return f"{request.public_url}{request.shop.media_url}/{quote(file)}"


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
