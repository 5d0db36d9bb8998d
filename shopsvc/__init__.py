"""shopsvc: a JSON-over-HTTP shop administration API speaking the legacy v3 shop API protocol."""

from __future__ import annotations

import logging
import os
from typing import Any

from pyramid.config import Configurator
from pyramid.router import Router
from sqlalchemy import Engine

from shopsvc.db import make_engine, migrate
from shopsvc.resources import Root
from shopsvc.settings import load_settings
from shopsvc.sql.auth import key_count

log = logging.getLogger(__name__)


def _hint_first_key(engine: Engine, config_uri: str) -> None:
    """On a fresh installation, say how to make the first administrator and API key."""
    with engine.connect() as conn:
        if key_count(conn):
            return
    ini = os.path.basename(config_uri)
    log.warning(
        "No API key exists yet. Create an administrator and a key with:\n"
        "  shopsvc %s create-user --login admin --email admin@example.com --role administrator\n"
        "  shopsvc %s create-key --user admin --permissions read_write",
        ini,
        ini,
    )


def main(global_config: dict[str, Any] | None, **settings: Any) -> Router:
    """The WSGI application (``paste.app_factory``)."""
    shop = load_settings(settings, here=(global_config or {}).get("here"))
    engine = make_engine(shop.database_url)
    if shop.auto_migrate:
        migrate(engine)
        _hint_first_key(engine, (global_config or {}).get("__file__", "development.ini"))
    config = Configurator(settings=settings, root_factory=Root)
    config.registry.shop = shop
    config.registry.engine = engine
    config.registry.config_uri = (global_config or {}).get("__file__", "CONFIG.ini")
    config.include("shopsvc.db")
    config.include("shopsvc.rendering")
    config.include("shopsvc.protocol")
    config.include("shopsvc.security")
    config.include("shopsvc.views")
    return config.make_wsgi_app()
