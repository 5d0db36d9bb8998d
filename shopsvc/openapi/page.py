"""The documentation page: Swagger UI from the ``swagger-ui-py`` package's static files (found
without importing the package), and the HTML that loads them and the OpenAPI document.

The files are read once and kept in memory with their compressed forms (gzip, brotli), made on
first use: the bundle is 1.5 MB as it is, 0.4 MB gzipped and 0.36 MB in brotli. The page links
each file with ``?v=`` and a digest of its bytes, so a link names one content forever and its
answer may be cached for a year; a new ``swagger-ui-py`` changes the digest and so the link.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import brotli

#: The files of the page, by name, with their content types.
DOCS_FILES = {
    "swagger-ui.css": "text/css",
    "index.css": "text/css",
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "favicon-32x32.png": "image/png",
    "favicon-16x16.png": "image/png",
}
#: Text files are sent compressed to a client that accepts it; the images are compressed already.
COMPRESSIBLE = ("text/",)
#: brotli's 11 takes 3.5 s on the bundle for 8 % less than 9 (0.15 s): made once, on first use.
BROTLI_QUALITY = 9
GZIP_LEVEL = 9
#: ``Cache-Control`` of a file asked for by its versioned link (``?v=`` its digest): never
#: revalidated; asked for otherwise, revalidated each time (with its ``ETag``, cheaply).
VERSIONED_CACHE = "public, max-age=31536000, immutable"
UNVERSIONED_CACHE = "public, no-cache"
PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="{css}">
<link rel="stylesheet" href="{index_css}">
<link rel="icon" type="image/png" href="{icon}" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{bundle}"></script>
<script src="{preset}"></script>
<script>
window.ui = SwaggerUIBundle({{
  url: {document},
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout"
}});
</script>
</body>
</html>
"""


@functools.cache
def swagger_ui_dir() -> Path:
    """The static files of the installed ``swagger-ui-py`` (found without importing it)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


@dataclass(frozen=True)
class Asset:
    """One file of the page, in memory: its bytes, type and digest (its version)."""

    name: str
    body: bytes
    content_type: str
    digest: str

    @property
    def compressible(self) -> bool:
        return self.content_type.startswith(COMPRESSIBLE)

    def link(self, docs: str) -> str:
        """The versioned URL of the file under ``docs`` (the page's own URL)."""
        return f"{docs}/{self.name}?v={self.digest}"


@functools.cache
def asset(name: str) -> Asset:
    """The file ``name`` of :data:`DOCS_FILES`, read once."""
    body = (swagger_ui_dir() / name).read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()[:12]).decode("ascii")
    return Asset(name, body, DOCS_FILES[name], digest)


@functools.cache
def encoded(name: str, coding: str) -> bytes:
    """The body of ``name`` in the content coding ``coding`` (``gzip``, ``br``), made once."""
    body = asset(name).body
    if coding == "gzip":
        return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    if coding == "br":
        return bytes(brotli.compress(body, quality=BROTLI_QUALITY))
    raise ValueError(f"unknown content coding {coding!r}")


def page_links(docs: str) -> dict[str, str]:
    """The versioned links of the page's files, by their place in :data:`PAGE`."""
    names = {
        "css": "swagger-ui.css",
        "index_css": "index.css",
        "icon": "favicon-32x32.png",
        "bundle": "swagger-ui-bundle.js",
        "preset": "swagger-ui-standalone-preset.js",
    }
    return {key: asset(name).link(docs) for key, name in names.items()}
