"""The application factory: ``main()`` only configures (the Pyramid scaffold's habit)."""

from __future__ import annotations

import configparser
import gc
import logging
import os
from typing import Any

import plaster
import plaster_pastedeploy
from plaster.exceptions import PlasterError
from pyramid.config import Configurator
from pyramid.router import Router

from shopsvc.auth.keys import first_key_hint
from shopsvc.db.engine import shown_url
from shopsvc.delivery.worker import start_in_process
from shopsvc.settings import load_settings
from shopsvc.sql.auth import key_count
from shopsvc.web.request import ShopRequest
from shopsvc.web.resources import Root

log = logging.getLogger("shopsvc")  # the hint reads as the service's own line


def _hint_first_key(app: Router) -> None:
    """On a fresh installation whose schema the app migrated itself, say how to get a key."""
    registry = app.registry
    if not registry.shop.auto_migrate:
        return  # the schema may not exist yet: `shopsvc CONFIG migrate` gives the hint then
    with registry.engine.connect() as conn:
        if key_count(conn):
            return
    log.warning("%s", first_key_hint(registry.config_uri))


def _keep_bodiless_answers_alive() -> None:
    """waitress keeps the connection of a 304 or a 204 open (``shopsvc.web.keep_alive``);
    imported here, not at the top: the CLI's commands load this module without serving."""
    from shopsvc.web.keep_alive import install

    install()


def _deliver_in_process(app: Router) -> None:
    """``shopsvc.webhooks.deliver_in_process``: a delivery thread inside this process, woken
    after every commit that queued deliveries (development: no second command to run)."""
    registry = app.registry
    if not registry.shop.webhooks_deliver_in_process:
        return
    deliverer = start_in_process(registry.engine, registry.shop, metrics=registry.metrics)
    registry.deliverer = deliverer
    registry.wake_deliveries = deliverer.wake


#: The hosts that mean "every address of this machine", and the one a URL names instead.
_ANY_HOST = {"": "127.0.0.1", "*": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


def server_url(global_config: dict[str, Any]) -> str | None:
    """``http://host:port`` where the ini's ``[server:main]`` (waitress) listens, as ``pserve``
    reads it: with the values it was given (``pserve development.ini http_port=6544`` is in
    ``global_config``), waitress's ``listen`` (its first address) or ``host`` and ``port`` (and
    their defaults, ``0.0.0.0:8080``), ``url_scheme`` and ``url_prefix``; ``127.0.0.1`` for a
    server listening on every address. None without an ini, without such a section, for a
    Unix socket or port 0 (the port is the system's choice)."""
    path = global_config.get("__file__")
    if not path or not os.path.isfile(path):
        return None
    given = {k: str(v) for k, v in global_config.items() if k not in ("__file__", "here")}
    try:
        loader = plaster_pastedeploy.Loader(plaster.parse_uri(path))
        server = loader.get_settings("server:main", defaults=given)
    except (OSError, ValueError, LookupError, configparser.Error, PlasterError):
        return None
    if not server or server.get("unix_socket"):
        return None
    listen = (server.get("listen") or "").split()
    host, port = server.get("host", "0.0.0.0"), server.get("port", "8080")
    if listen:  # waitress's reading: `host:port`, `[v6]:port`, or a host on `port`
        host, _, listed_port = listen[0].rpartition(":")
        if not host or "]" in listed_port:
            host = listen[0]
        else:
            port = listed_port
    host = host.strip("[]")
    host = _ANY_HOST.get(host, host)
    if not port.isdigit() or int(port) == 0:
        return None
    if ":" in host:
        host = f"[{host}]"
    scheme = server.get("url_scheme", "http")
    prefix = "/" + server.get("url_prefix", "").strip("/")
    return f"{scheme}://{host}:{port}{prefix.rstrip('/')}"


def _say_where(app: Router, global_config: dict[str, Any]) -> None:
    """The API root's and the documentation's URLs and the database, logged once at start:
    under ``shopsvc.public_url`` when it is set, else where ``[server:main]`` listens
    (:func:`server_url`), else as paths."""
    shop = app.registry.shop
    listening = server_url(global_config)
    base = shop.public_url or listening or ""
    api = base + shop.api_root
    also = f"; listening on {listening}" if shop.public_url and listening else ""
    log.info(
        "API root %s, documentation %s/docs, health %s/healthz and %s/readyz%s",
        *(api, api, base, base, also),
    )
    log.info("database %s", shown_url(shop.database_url))


#: Seconds the app factory waits for the key cache's ``LISTEN`` (then goes on without).
KEY_LISTEN_WAIT = 2.0


def _listen_for_key_changes(app: Router) -> None:
    """PostgreSQL (``shopsvc.auth.cache_keys``): the key cache listens from the start, so that
    the first requests already keep their keys (``shopsvc.auth.key_cache``)."""
    cache = app.registry.key_cache
    if cache is not None and not cache.start(wait=KEY_LISTEN_WAIT):
        log.warning("key cache: not listening yet; requests read their keys meanwhile")


def main(global_config: dict[str, Any] | None, **settings: Any) -> Router:
    """The WSGI application (``paste.app_factory``): it only configures (and, once the app is
    built, gives the first-key hint and starts the in-process deliverer). The engine and the
    start-up migration live in ``shopsvc.db.request``'s ``includeme``."""
    global_config = global_config or {}
    config = Configurator(settings=settings, root_factory=Root, request_factory=ShopRequest)
    config.registry.shop = load_settings(settings, here=global_config.get("here"))
    config.registry.config_uri = global_config.get("__file__", "development.ini")
    config.include("shopsvc.db.request")
    config.include("shopsvc.web.tweens")
    config.include("shopsvc.auth.policy")
    config.include("shopsvc.views")
    config.include("shopsvc.views.health")
    config.include("shopsvc.views.home")  # GET /: where the API, its docs and the probes are
    config.include("shopsvc.web.metrics")  # registry.metrics (shopsvc.metrics = true)
    config.include("shopsvc.views.metrics")  # and GET /metrics
    app = config.make_wsgi_app()
    # Called here, not subscribed to ApplicationCreated: with any subscriber registered, Pyramid
    # notifies four events (NewRequest, BeforeTraversal, ContextFound, NewResponse) on every
    # request, each a lookup of the registry's subscribers.
    _say_where(app, global_config)
    _hint_first_key(app)
    _keep_bodiless_answers_alive()
    _deliver_in_process(app)
    _listen_for_key_changes(app)
    tune_gc(config.registry.shop.gc_threshold)
    return app


_heap_frozen = False
#: Net allocations between two collections of the collector's middle generation.
MIDDLE_GENERATION_EVERY = 500_000


def tune_gc(threshold: int) -> None:
    """Fewer garbage collections while a request builds its records (``shopsvc.gc_threshold``;
    0 leaves Python's settings): the collector's youngest generation is collected after
    ``threshold`` net allocations instead of 700, the middle one every
    :data:`MIDDLE_GENERATION_EVERY` net allocations (at least after each of those), the oldest
    100 times more rarely, and the objects alive once the first application is built (modules,
    configuration) are moved out of the collector's sight for good (``gc.freeze``), so that the
    full collections a large page triggers do not walk them.

    A page's records are alive until its body is written: each collection during the build
    walks them and frees nothing. With 100 000 (the default) a 1000-product page is walked
    about once instead of some twenty times (10 000): 10 to 15 % less CPU for such a page, 5 %
    for 1000 orders; the middle generation, where the cycles a page leaves behind wait, is
    collected as often as before."""
    global _heap_frozen
    if threshold <= 0:
        return
    gc.set_threshold(threshold, max(1, MIDDLE_GENERATION_EVERY // threshold), 100)
    if not _heap_frozen:
        _heap_frozen = True
        gc.freeze()
