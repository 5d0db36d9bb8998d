"""The ``shopsvc`` command: ``shopsvc CONFIG_URI COMMAND [options]`` (decisions.md §1).

Every command that creates something prints the record as one line of JSON on stdout (``list-keys``
one line per key); bad arguments (an unknown user or role, say), an unreadable ini, a bad setting
or an unreachable database print one line on stderr and exit with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from shopsvc.auth.keys import PERMISSIONS
from shopsvc.cli.errors import SetupError, UsageError
from shopsvc.domain.roles import ROLES

if TYPE_CHECKING:
    import datetime as dt

    from sqlalchemy import Connection, Engine

    from shopsvc.metrics.registry import Metrics
    from shopsvc.settings import Settings

    Command = Callable[[Engine, Settings, argparse.Namespace], "Record | list[Record]"]

# Each command imports what it uses when it runs: ``--help`` loads neither SQLAlchemy nor
# Alembic, Pyramid or the delivery worker (``bench/cli_start.py`` times it).

Record = dict[str, Any]


def _timestamp(value: dt.datetime | None) -> str | None:
    from shopsvc.domain.timestamps import format_timestamp

    return format_timestamp(value) if value is not None else None


def cmd_migrate(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    from shopsvc.auth.keys import first_key_hint
    from shopsvc.cli.config import migrate
    from shopsvc.sql import auth as auth_sql

    revision = migrate(engine)
    with engine.connect() as conn:
        if not auth_sql.key_count(conn):
            print(first_key_hint(args.config_uri), file=sys.stderr)
    return {"revision": revision}


def cmd_create_user(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    if not args.login.strip():
        raise UsageError("--login must not be empty")
    if "@" not in args.email:
        raise UsageError(f"--email {args.email!r} is not an email address")
    from sqlalchemy.exc import IntegrityError

    from shopsvc.sql import auth as auth_sql
    from shopsvc.sql import auth_writes as auth_writes_sql
    from shopsvc.sql.tables import utc_now

    values = {
        "login": args.login.strip(),
        "email": args.email.strip(),
        "role": args.role,
        "first_name": args.first_name,
        "last_name": args.last_name,
    }
    try:
        with engine.begin() as conn:
            if auth_sql.user_by_login(conn, values["login"]) is not None:
                raise UsageError(f"a user with login {values['login']!r} already exists")
            if auth_sql.user_by_email(conn, values["email"]) is not None:
                raise UsageError(f"a user with email {values['email']!r} already exists")
            user = auth_writes_sql.create_user(conn, values, utc_now())
            if user["role"] == "customer":
                _customer_created(conn, settings, user["id"])
    except IntegrityError:  # created meanwhile by another process
        raise UsageError(
            f"a user with login {values['login']!r} or email {values['email']!r} already exists"
        ) from None
    return {
        "id": user["id"],
        "login": user["login"],
        "email": user["email"],
        "role": user["role"],
        "first_name": user["first_name"],
        "last_name": user["last_name"],
    }


def _customer_created(conn: Connection, settings: Settings, user_id: int) -> None:
    """``customer.created`` (and its hooks) for a new customer, in the transaction creating it."""
    from shopsvc.domain.events import EventSet
    from shopsvc.sql import deliveries as deliveries_sql

    events = EventSet()
    events.record("customer", user_id, "created", ["shop_created_customer", "shop_new_customer"])
    source = settings.public_url or "http://localhost"
    deliveries_sql.enqueue(conn, events.fired(), source, deliveries_sql.now_precise())


def cmd_create_key(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    from shopsvc.auth.keys import issue_key
    from shopsvc.sql import auth as auth_sql
    from shopsvc.sql import auth_writes as auth_writes_sql
    from shopsvc.sql.tables import utc_now

    with engine.begin() as conn:
        user = auth_sql.user_by_login(conn, args.user)
        if user is None:
            raise UsageError(f"no user with login {args.user!r}")
        key = issue_key(user["id"], args.permissions, args.description)
        key_id = auth_writes_sql.create_key(conn, key.row, utc_now())
    return {
        "key_id": key_id,
        "user_id": user["id"],
        "consumer_key": key.consumer_key,
        "consumer_secret": key.consumer_secret,
        "permissions": args.permissions,
    }


def cmd_list_keys(engine: Engine, settings: Settings, args: argparse.Namespace) -> list[Record]:
    """Every key (or one user's), oldest first; never the secret nor the key itself."""
    from shopsvc.sql import auth as auth_sql

    with engine.connect() as conn:
        user_id = None
        if args.user is not None:
            user = auth_sql.user_by_login(conn, args.user)
            if user is None:
                raise UsageError(f"no user with login {args.user!r}")
            user_id = user["id"]
        keys = auth_sql.list_keys(conn, user_id)
    return [
        {
            "key_id": key["key_id"],
            "user_id": key["user_id"],
            "login": key["login"],
            "description": key["description"],
            "permissions": key["permissions"],
            "truncated_key": key["truncated_key"],
            "last_access": _timestamp(key["last_access"]),
            "created_at": _timestamp(key["created_at"]),
        }
        for key in keys
    ]


def cmd_revoke_key(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    from shopsvc.sql import auth_writes as auth_writes_sql

    with engine.begin() as conn:
        if not auth_writes_sql.delete_key(conn, args.key_id):
            raise UsageError(f"no key with id {args.key_id}")
    return {"key_id": args.key_id, "revoked": True}


def cmd_add_review(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    """Add a review to a product (approved unless ``--pending``); prints the review record."""
    rating = args.rating.strip()
    if not (rating.isascii() and rating.isdigit() and 1 <= int(rating) <= 5):
        raise UsageError(f"--rating {args.rating!r} is not a whole number from 1 to 5")
    if not args.reviewer_name.strip():
        raise UsageError("--reviewer-name must not be empty")
    if "@" not in args.reviewer_email:
        raise UsageError(f"--reviewer-email {args.reviewer_email!r} is not an email address")
    from shopsvc.sql import products as products_sql
    from shopsvc.sql import review_writes as review_writes_sql
    from shopsvc.sql import reviews as reviews_sql
    from shopsvc.sql.tables import utc_now

    now = utc_now()
    with engine.begin() as conn:
        product = products_sql.product_kind(conn, args.product)
        if product is None:
            raise UsageError(f"no product with id {args.product}")
        if product["type"] == "variation":
            raise UsageError(f"{args.product} is a variation; review its product instead")
        values = {
            "product_id": args.product,
            "rating": int(rating),
            "reviewer_name": args.reviewer_name.strip(),
            "reviewer_email": args.reviewer_email.strip(),
            "review": args.review,
            "verified": args.verified,
            "approved": not args.pending,
        }
        review = reviews_sql.get(conn, review_writes_sql.insert(conn, values, now))
    assert review is not None
    return {
        "id": review["id"],
        "product_id": review["product_id"],
        "created_at": _timestamp(review["created_at"]),
        "review": review["review"],
        "rating": str(review["rating"]),
        "reviewer_name": review["reviewer_name"],
        "reviewer_email": review["reviewer_email"],
        "verified": bool(review["verified"]),
        "approved": bool(review["approved"]),
    }


def _serve_metrics(engine: Engine, args: argparse.Namespace) -> tuple[Metrics, Any]:
    """The worker's metrics (docs/metrics.md) served on ``--metrics-address:--metrics-port``."""
    if not 0 < args.metrics_port < 65536:
        raise UsageError("--metrics-port must be a port number (1 to 65535)")
    from shopsvc.metrics.registry import Metrics

    metrics = Metrics()
    metrics.watch_engine(engine)
    try:
        server = metrics.serve(args.metrics_port, args.metrics_address)
    except (OSError, ValueError) as exc:  # in use, not an address of this machine
        reason = getattr(exc, "strerror", None) or exc
        raise UsageError(
            f"--metrics-port: cannot listen on {args.metrics_address} port "
            f"{args.metrics_port}: {reason}"
        ) from None
    logging.getLogger("shopsvc").info(
        "metrics on http://%s:%s/metrics", args.metrics_address, args.metrics_port
    )
    return metrics, server


def cmd_worker(engine: Engine, settings: Settings, args: argparse.Namespace) -> list[Record]:
    """Deliver queued webhook events: one pass with ``--once`` (prints what it did), else until
    SIGTERM or SIGINT (the sends under way finish first). ``--metrics-port``: the worker's
    metrics over HTTP meanwhile."""
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    from shopsvc.delivery.worker import Deliverer

    metrics, server = None, None
    if args.metrics_port is not None:
        metrics, server = _serve_metrics(engine, args)
    try:
        deliverer = Deliverer(engine, settings, concurrency=args.concurrency, metrics=metrics)
        if args.once:
            return [deliverer.run_once().as_dict()]

        def stop(signum: int, _frame: object) -> None:
            logging.getLogger("shopsvc").info("%s: stopping", signal.Signals(signum).name)
            deliverer.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        deliverer.run()
        return []
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()


def cmd_deliveries(engine: Engine, settings: Settings, args: argparse.Namespace) -> list[Record]:
    """The attempt log, newest first."""
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    from shopsvc.sql import deliveries as deliveries_sql

    with engine.connect() as conn:
        rows = deliveries_sql.attempts(
            conn, webhook_id=args.webhook, failed=args.failed, limit=args.limit
        )
    return [
        {
            "delivery_id": row["delivery_id"],
            "webhook_id": row["webhook_id"],
            "topic": row["topic"],
            "resource_id": row["resource_id"],
            "attempt": row["attempt"],
            "status": row["status"],
            "error": row["error"],
            "duration_ms": row["duration_ms"],
            "at": _timestamp(row["at"]),
        }
        for row in rows
    ]


def cmd_redeliver(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    """Queue a delivery again, due now (same ``-Delivery-ID``, a new round of attempts): a
    finished one, or a pending one waiting for a retry. One already due with no attempt in its
    round is left as it is; one being sent right now is refused."""
    from shopsvc.db.engine import write_transaction
    from shopsvc.sql import deliveries as deliveries_sql

    with write_transaction(engine) as conn:
        row = deliveries_sql.get_by_delivery_id(conn, args.delivery_id.strip().lower())
        if row is None:
            raise UsageError(f"no delivery with id {args.delivery_id!r}")
        if row["webhook_status"] != "active":
            raise UsageError(
                f"webhook {row['webhook_id']} is {row['webhook_status']}: set its status to "
                "active first (PUT /webhooks/<id>)"
            )
        now = deliveries_sql.now_precise()
        # pending, due, no attempt in its round yet: what a redeliver would make of it
        as_requeued = (
            row["state"] == deliveries_sql.PENDING
            and row["due_at"] <= now
            and row["attempts"] == row["round_start"]
        )
        if not as_requeued and not deliveries_sql.requeue(conn, row["id"], now):
            raise UsageError(
                f"delivery {row['delivery_id']} is being sent right now; run redeliver"
                " again once the attempt is over (see deliveries)"
            )
    return {
        "delivery_id": row["delivery_id"],
        "webhook_id": row["webhook_id"],
        "topic": row["topic"],
        "resource_id": row["resource_id"],
        "state": deliveries_sql.PENDING,
    }


def cmd_prune_idempotency(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    """Delete the stored responses of the Idempotency-Keys that have expired (the worker does it
    too, with its other pruning)."""
    from shopsvc.db.engine import write_transaction
    from shopsvc.sql import deliveries as deliveries_sql
    from shopsvc.sql import idempotency_writes as idempotency_writes_sql

    with write_transaction(engine) as conn:
        pruned = idempotency_writes_sql.prune(conn, deliveries_sql.now_precise())
    return {"pruned": pruned}


def cmd_seed(engine: Engine, settings: Settings, args: argparse.Namespace) -> Record:
    """Fill the database with realistic demo data (``shopsvc.cli.demo``); prints the counts."""
    from shopsvc.cli.demo import run as seed  # tqdm and the generator only for this command

    options = seed.SeedOptions(
        products=args.products,
        orders=args.orders,
        customers=args.customers,
        seed_value=args.seed_value,
        progress=not args.no_progress,
        jobs=args.jobs,
    )
    try:
        return seed.run(engine, settings, options)
    except seed.SeedError as exc:
        raise UsageError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shopsvc",
        description="Administer a shopsvc installation.",
        epilog="Example: shopsvc development.ini create-user --login admin "
        "--email admin@example.com --role administrator",
    )
    parser.add_argument("config_uri", help="the ini file, e.g. development.ini")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sub = commands.add_parser("migrate", help="bring the schema to the latest migration")
    sub.set_defaults(run=cmd_migrate)

    sub = commands.add_parser("create-user", help="create a user")
    sub.add_argument("--login", required=True)
    sub.add_argument("--email", required=True)
    sub.add_argument("--role", required=True, choices=sorted(ROLES))
    sub.add_argument("--first-name", default="")
    sub.add_argument("--last-name", default="")
    sub.set_defaults(run=cmd_create_user)

    sub = commands.add_parser("create-key", help="create a consumer key for a user")
    sub.add_argument("--user", required=True, help="the user's login")
    sub.add_argument("--permissions", required=True, choices=PERMISSIONS)
    sub.add_argument("--description", default="")
    sub.set_defaults(run=cmd_create_key)

    sub = commands.add_parser(
        "list-keys", help="list the consumer keys, one JSON line each (never their secrets)"
    )
    sub.add_argument("--user", help="only this user's keys (the user's login)")
    sub.set_defaults(run=cmd_list_keys)

    sub = commands.add_parser("revoke-key", help="delete a consumer key")
    sub.add_argument("--key-id", required=True, type=int, help="the key_id of list-keys")
    sub.set_defaults(run=cmd_revoke_key)

    sub = commands.add_parser("add-review", help="add a review to a product")
    sub.add_argument("--product", required=True, type=int, help="the product's id")
    sub.add_argument("--rating", required=True, help="1 to 5")
    sub.add_argument("--reviewer-name", required=True)
    sub.add_argument("--reviewer-email", required=True)
    sub.add_argument("--review", required=True, help="the text of the review")
    sub.add_argument("--pending", action="store_true", help="not approved (not listed)")
    sub.add_argument("--verified", action="store_true", help="a verified owner's review")
    sub.set_defaults(run=cmd_add_review)

    sub = commands.add_parser(
        "worker", help="deliver queued webhook events (until SIGTERM, or one pass)"
    )
    sub.add_argument("--once", action="store_true", help="one pass over what is due now, then exit")
    sub.add_argument(
        "--concurrency", type=int, help="senders in parallel (shopsvc.webhooks.concurrency)"
    )
    sub.add_argument(
        "--metrics-port", type=int, help="serve the worker's metrics over HTTP on this port"
    )
    sub.add_argument(
        "--metrics-address",
        default="127.0.0.1",
        help="the address --metrics-port listens on (127.0.0.1)",
    )
    sub.set_defaults(run=cmd_worker)

    sub = commands.add_parser(
        "deliveries", help="the webhook delivery attempts, newest first, one JSON line each"
    )
    sub.add_argument("--webhook", type=int, help="only this webhook's")
    sub.add_argument("--failed", action="store_true", help="only failed attempts")
    sub.add_argument("--limit", type=int, default=100, help="at most this many (100)")
    sub.set_defaults(run=cmd_deliveries)

    sub = commands.add_parser("redeliver", help="make a delivery due now (a new round of attempts)")
    sub.add_argument("delivery_id", help="the delivery_id of `deliveries`")
    sub.set_defaults(run=cmd_redeliver)

    sub = commands.add_parser(
        "prune-idempotency",
        help="delete the expired responses of Idempotency-Keys (shopsvc.idempotency_hours)",
    )
    sub.set_defaults(run=cmd_prune_idempotency)

    sub = commands.add_parser("seed", help="fill the database with realistic demo data")
    sub.add_argument("--products", type=int, default=20, help="products to add (20)")
    sub.add_argument("--orders", type=int, default=30, help="orders to add (30)")
    sub.add_argument("--customers", type=int, default=5, help="customers to add (5)")
    sub.add_argument("--seed-value", type=int, default=1, help="the pseudo-random seed (1)")
    sub.add_argument("--jobs", type=int, help="PostgreSQL: processes writing (the CPUs, <= 4)")
    sub.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    sub.set_defaults(run=cmd_seed)

    _add_dba_commands(commands)
    _add_media_commands(commands)
    return parser


def _later(module: str, name: str) -> Command:
    """The command ``name`` of ``shopsvc.cli.<module>``, imported when it runs (the DBA's
    commands load the named queries; the media commands the storage)."""

    def run(engine: Engine, settings: Settings, args: argparse.Namespace) -> Any:
        command: Command = getattr(importlib.import_module(f"shopsvc.cli.{module}"), name)
        return command(engine, settings, args)

    return run


def _add_dba_commands(commands: Any) -> None:
    """``sql`` and ``explain`` (``shopsvc.cli.dba``)."""
    filter_help = (
        "a parameter of the query, key=value (repeatable; `sql NAME` lists the keys), "
        "e.g. --filter status=processing --filter page=5000"
    )
    sub = commands.add_parser(
        "sql", help="list the named SQL queries, or print one as the database compiles it"
    )
    sub.add_argument("name", nargs="?", metavar="NAME", help="a named query (none: list them)")
    sub.add_argument("--filter", action="append", metavar="KEY=VALUE", help=filter_help)
    sub.set_defaults(run=_later("dba", "cmd_sql"))

    sub = commands.add_parser("explain", help="the database's plan of a named SQL query")
    sub.add_argument("name", metavar="NAME", help="a named query (see `sql`)")
    sub.add_argument(
        "--analyze",
        action="store_true",
        help="run it too (PostgreSQL: EXPLAIN (ANALYZE, BUFFERS)); rolled back",
    )
    sub.add_argument("--filter", action="append", metavar="KEY=VALUE", help=filter_help)
    sub.set_defaults(run=_later("dba", "cmd_explain"))


#: ``media prune`` leaves alone what is younger than this (seconds): it may belong to a request
#: still under way.
MEDIA_GRACE = 3600


def _add_media_commands(commands: Any) -> None:
    """``media prune`` and ``media push`` (``shopsvc.cli.media``)."""
    media = commands.add_parser("media", help="the media storage: prune orphans, push media_dir")
    actions = media.add_subparsers(dest="media_command", required=True, metavar="ACTION")

    sub = actions.add_parser("prune", help="remove stored images no record uses (either storage)")
    sub.add_argument(
        "--older-than",
        type=int,
        default=MEDIA_GRACE,
        metavar="SECONDS",
        help=f"only images stored at least this long ago ({MEDIA_GRACE})",
    )
    sub.add_argument("--dry-run", action="store_true", help="report, remove nothing")
    sub.set_defaults(run=_later("media", "cmd_prune"))

    sub = actions.add_parser("push", help="copy media_dir into the bucket (media_storage = s3)")
    sub.add_argument("--dry-run", action="store_true", help="report, copy nothing")
    sub.set_defaults(run=_later("media", "cmd_push"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from sqlalchemy.exc import InterfaceError, OperationalError

    from shopsvc.cli import config

    try:
        settings = config.parse_settings(*config.read_ini(args.config_uri))
        engine = config.open_database(settings)
    except SetupError as exc:
        print(f"shopsvc: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command != "migrate":
            if settings.auto_migrate:
                config.migrate(engine)
            config.require_schema(engine, args.config_uri)
        run: Command = args.run
        result = run(engine, settings, args)
    except UsageError as exc:  # a migration that cannot run too
        print(f"shopsvc {args.command}: {exc}", file=sys.stderr)
        return 2
    except (OperationalError, InterfaceError) as exc:  # the database went away, a lock wait
        message = config.one_line(exc.orig)
        print(f"shopsvc {args.command}: database error: {message}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    for record in result if isinstance(result, list) else [result]:
        print(json.dumps(record, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
