"""Images downloaded from a URL (product and category ``src``), stored below ``shopsvc.media_dir``
and served at ``shopsvc.media_url`` (decisions.md §1, §5 and §7 "Images").

A download has a 10 s budget (connection, redirects and body together), reads at most
``max_image_bytes``, follows at most 3 redirects — each target checked against private addresses
like the first — and keeps only bytes that *are* a JPEG, PNG, GIF or WebP image (the Content-Type
header is never trusted). The stored file is deleted again if the request's transaction rolls back.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import os
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote, urljoin, urlsplit

import requests
import urllib3
from pyramid.request import Request

from shopsvc.delivery.outbound import USER_AGENT, target_allowed
from shopsvc.domain.urls import is_http_url
from shopsvc.errors import ApiError
from shopsvc.sql import media as media_sql

log = logging.getLogger(__name__)

TIMEOUT = 10.0  # seconds, for the whole download
MAX_REDIRECTS = 3
CHUNK_SIZE = 64 * 1024
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
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


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise DownloadError("the download timed out")
    return left


def _check_target(url: str, allow_private: bool, redirected: bool) -> None:
    if not is_http_url(url):
        raise DownloadError("redirected to an invalid URL" if redirected else "invalid URL")
    if not target_allowed(url, allow_private):
        where = "redirected to" if redirected else "the URL points to"
        raise DownloadError(f"{where} a private or reserved network address, which is not allowed")


def _get(url: str, deadline: float) -> requests.Response:
    try:
        return requests.get(
            url,
            headers={"User-Agent": USER_AGENT, "Accept": "image/*"},
            timeout=_remaining(deadline),
            stream=True,
            allow_redirects=False,
        )
    except requests.Timeout:
        raise DownloadError("the download timed out") from None
    except requests.RequestException as exc:
        log.info("image download from %s failed: %s", url, exc)
        raise DownloadError("the connection failed") from None


def _open(url: str, allow_private: bool, deadline: float) -> requests.Response:
    """The final response after at most ``MAX_REDIRECTS`` redirects, each target re-checked."""
    current = url
    for hop in range(MAX_REDIRECTS + 1):
        _check_target(current, allow_private, redirected=hop > 0)
        response = _get(current, deadline)
        location = response.headers.get("Location")
        if response.status_code not in REDIRECT_STATUSES or not location:
            return response
        response.close()
        current = urljoin(current, location.strip())
    raise DownloadError(f"more than {MAX_REDIRECTS} redirects")


def _declared_length(response: requests.Response) -> int | None:
    try:
        return int(response.headers.get("Content-Length", ""))
    except ValueError:
        return None


def _chunks(response: requests.Response, deadline: float) -> Iterator[bytes]:
    """The decoded body, read as it arrives so the deadline is checked between reads (a server
    dripping bytes cannot stretch the download much beyond it)."""
    raw = response.raw
    read = getattr(raw, "read1", None) or raw.read  # read1: urllib3 >= 2
    while True:
        _remaining(deadline)
        chunk = read(CHUNK_SIZE, decode_content=True)
        if not chunk:
            return
        yield chunk


def _read_body(response: requests.Response, max_bytes: int, deadline: float) -> bytes:
    too_large = DownloadError(f"the image is larger than {max_bytes} bytes")
    declared = _declared_length(response)
    if declared is not None and declared > max_bytes:
        raise too_large
    body = bytearray()
    try:
        for chunk in _chunks(response, deadline):
            body += chunk
            if len(body) > max_bytes:
                raise too_large
    except (urllib3.exceptions.TimeoutError, TimeoutError):
        raise DownloadError("the download timed out") from None
    except (urllib3.exceptions.HTTPError, requests.RequestException, OSError) as exc:
        log.info("image download from %s failed while reading: %s", response.url, exc)
        raise DownloadError("the connection failed while reading the image") from None
    return bytes(body)


def fetch_image(
    url: str, allow_private: bool, max_bytes: int, timeout: float | None = None
) -> tuple[bytes, ImageKind]:
    """The bytes and kind of the image at ``url``; ``DownloadError`` on any failure."""
    deadline = time.monotonic() + (TIMEOUT if timeout is None else timeout)
    response = _open(url, allow_private, deadline)
    with response:
        if not 200 <= response.status_code < 300:
            raise DownloadError(f"the server answered HTTP {response.status_code}")
        data = _read_body(response, max_bytes, deadline)
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


def download_image(request: Request, url: str, error_code: str) -> int:
    """Download the image at ``url`` into a new ``media`` row of the request's transaction; its id.

    Fetch and content failures → 400 ``error_code``; failure to store the file → 400
    ``shop_api_cannot_upload_product_image``. The file is deleted if the request rolls back.
    """
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
    request.on_rollback(functools.partial(delete_file, Path(shop.media_dir, relative)))
    values = {
        "file": relative,
        "source_url": url,
        "mime_type": kind.mime_type,
        "title": title_from_url(url),
    }
    return media_sql.insert(request.db, values)


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
