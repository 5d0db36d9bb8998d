"""shopsvc: a JSON-over-HTTP shop administration API speaking the legacy v3 shop API protocol.

The WSGI application factory is :func:`shopsvc.app.main` (``paste.app_factory`` ``shopsvc:main``).
It is loaded lazily, so that the layers that work without a request (``records``, ``writers``,
``domain``, ``sql``) can be imported by the CLI and the delivery worker without Pyramid.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("main", "first_key_hint"):
        from shopsvc import app

        return getattr(app, name)
    raise AttributeError(f"module 'shopsvc' has no attribute {name!r}")
