"""What every command but ``--help`` needs before it runs: the ini's logging and settings, the
database (one connection tried), and the schema at its latest migration.

Imported by ``main`` once the arguments are parsed: SQLAlchemy and PasteDeploy load here, Alembic
only when the schema needs a migration (``shopsvc.db.schema``), Pyramid never (the ini is read
with plaster, as ``pyramid.paster`` reads it).
"""

from __future__ import annotations

import configparser
import logging
import os

import plaster
import plaster_pastedeploy
from plaster.exceptions import PlasterError
from sqlalchemy import Engine
from sqlalchemy.exc import ArgumentError, DBAPIError

from shopsvc.cli.errors import SetupError, UsageError
from shopsvc.db import schema
from shopsvc.db.engine import make_engine, shown_url
from shopsvc.settings import Settings, SettingsError, env_name, load_settings

#: The loggers whose INFO lines a command keeps off stderr: it prints its result, not the
#: migration steps.
QUIET_LOGGERS = ("alembic", "shopsvc.db.schema")


#: The URI schemes ``plaster_pastedeploy`` registers its loader for (``development.ini`` is
#: ``file+ini``).
PASTEDEPLOY_SCHEMES = frozenset(
    {"file+ini", "egg", "pastedeploy", "pastedeploy+ini", "pastedeploy+egg"}
)


def one_line(message: object) -> str:
    return " ".join(str(message).split())


def read_ini(config_uri: str) -> tuple[dict[str, str], str | None]:
    """The ``[app:main]`` settings and the ini's folder, after setting up the ini's logging
    (the migrations' INFO lines silenced, :data:`QUIET_LOGGERS`).

    What ``pyramid.paster``'s ``setup_logging`` and ``get_appsettings`` do, with the loader
    plaster picks for an ini (``plaster_pastedeploy``, as ``pserve`` reads it) taken directly:
    neither Pyramid imported nor the entry points of every installed distribution read to find
    it (another kind of URI is left to plaster)."""
    try:
        uri = plaster.parse_uri(config_uri)
        if uri.scheme in PASTEDEPLOY_SCHEMES:
            loader = plaster_pastedeploy.Loader(uri)
        else:
            loader = plaster.get_loader(uri, protocols=["wsgi"])
        loader.setup_logging({})
        settings = loader.get_wsgi_app_settings()
    except KeyError as exc:  # logging.config.fileConfig: a missing section or key
        raise SetupError(f"cannot read {config_uri}: missing {exc.args[0]!r}") from None
    except (
        OSError,
        LookupError,
        ValueError,
        ImportError,
        configparser.Error,
        PlasterError,
    ) as exc:
        raise SetupError(f"cannot read {config_uri}: {one_line(exc)}") from None
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    return dict(settings), getattr(settings, "global_conf", {}).get("here")


def parse_settings(app_settings: dict[str, str], here: str | None) -> Settings:
    try:
        return load_settings(app_settings, here=here)
    except SettingsError as exc:
        message = one_line(exc)
        variable = env_name(message.partition(":")[0])
        origin = f" (from the environment variable {variable})" if variable in os.environ else ""
        raise SetupError(f"bad setting: {message}{origin}") from None


def open_database(settings: Settings) -> Engine:
    """An engine whose database answers (one connection is tried now)."""
    url = settings.database_url
    if not url:
        raise SetupError("no database: set sqlalchemy.url in the ini or SHOPSVC_DATABASE_URL")
    try:
        engine = make_engine(
            url, lock_timeout=settings.db_lock_timeout, slow_sql_ms=settings.slow_sql_ms
        )
    except (ArgumentError, ImportError) as exc:
        raise SetupError(f"cannot use the database URL {shown_url(url)}: {one_line(exc)}") from None
    try:
        with engine.connect():
            pass
    except DBAPIError as exc:
        engine.dispose()
        raise SetupError(
            f"cannot connect to the database {shown_url(url)}: {one_line(exc.orig)}"
        ) from None
    return engine


def migrate(engine: Engine) -> str:
    """The schema brought to its latest migration (the revision reached); a migration that
    cannot run is a :class:`UsageError`."""
    try:
        return schema.migrate(engine)
    except schema.MigrationError as exc:
        raise UsageError(one_line(exc)) from None


def require_schema(engine: Engine, config_uri: str) -> None:
    """A command other than ``migrate`` needs the latest schema: say so rather than fail on a
    missing table."""
    current, head = schema.current_revision(engine), schema.head_revision()
    if current != head:
        raise UsageError(
            f"the database schema is at revision {current or 'none'}, not {head}; "
            f"run `shopsvc {config_uri} migrate` first"
        )
