"""shopsvc: a JSON-over-HTTP shop administration API speaking the legacy v3 shop API protocol.

The WSGI application factory is :func:`shopsvc.app.main` (``paste.app_factory`` ``shopsvc:main``).
It is loaded lazily, so that the layers that work without a request (``records``, ``writers``,
``domain``, ``sql``) can be imported by the CLI and the delivery worker without Pyramid, and so
that reading an ini's settings (PasteDeploy resolves ``use = egg:shopsvc`` to :func:`main`, as
the ``shopsvc`` command does) loads nothing of the app.
"""

from __future__ import annotations

from typing import Any


def main(global_config: dict[str, Any] | None, **settings: Any) -> Any:
    """The WSGI application: :func:`shopsvc.app.main`, imported when it is called."""
    from shopsvc import app

    return app.main(global_config, **settings)
