"""The documentation page: Swagger UI from the ``swagger-ui-py`` package's static files (found
without importing the package), and the HTML that loads them and the OpenAPI document."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

#: The files of the page, by name, with their content types.
DOCS_FILES = {
    "swagger-ui.css": "text/css",
    "index.css": "text/css",
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "favicon-32x32.png": "image/png",
    "favicon-16x16.png": "image/png",
}
FILE_MAX_AGE = 24 * 3600
PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="{docs}/swagger-ui.css">
<link rel="stylesheet" href="{docs}/index.css">
<link rel="icon" type="image/png" href="{docs}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{docs}/swagger-ui-bundle.js"></script>
<script src="{docs}/swagger-ui-standalone-preset.js"></script>
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
