"""The ``shopsvc`` command: ``shopsvc CONFIG_URI COMMAND [options]`` (decisions.md §1).

Every command that creates something prints the record as one line of JSON on stdout; bad
arguments (an unknown user or role, say) print a message on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from pyramid.paster import get_appsettings, setup_logging
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from shopsvc.db import current_revision, head_revision, make_engine, migrate
from shopsvc.security import PERMISSIONS, ROLES, issue_key
from shopsvc.settings import Settings, load_settings
from shopsvc.sql import auth as auth_sql
from shopsvc.sql import products as products_sql
from shopsvc.sql import reviews as reviews_sql
from shopsvc.sql.tables import utc_now


class UsageError(Exception):
    """A command's arguments cannot be carried out (exit status 2)."""


def cmd_migrate(engine: Engine, settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    return {"revision": migrate(engine)}


def cmd_create_user(engine: Engine, settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    if not args.login.strip():
        raise UsageError("--login must not be empty")
    if "@" not in args.email:
        raise UsageError(f"--email {args.email!r} is not an email address")
    values = {
        "login": args.login.strip(),
        "email": args.email.strip(),
        "role": args.role,
        "first_name": args.first_name,
        "last_name": args.last_name,
    }
    try:
        with engine.begin() as conn:
            user = auth_sql.create_user(conn, values, utc_now())
    except IntegrityError:
        raise UsageError(f"a user with login {args.login!r} already exists") from None
    return {
        "id": user["id"],
        "login": user["login"],
        "email": user["email"],
        "role": user["role"],
        "first_name": user["first_name"],
        "last_name": user["last_name"],
    }


def cmd_create_key(engine: Engine, settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    with engine.begin() as conn:
        user = auth_sql.user_by_login(conn, args.user)
        if user is None:
            raise UsageError(f"no user with login {args.user!r}")
        key = issue_key(user["id"], args.permissions, args.description)
        key_id = auth_sql.create_key(conn, key.row, utc_now())
    return {
        "key_id": key_id,
        "user_id": user["id"],
        "consumer_key": key.consumer_key,
        "consumer_secret": key.consumer_secret,
        "permissions": args.permissions,
    }


def cmd_add_review(engine: Engine, settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    """Add a review to a product (approved unless ``--pending``); prints the review record."""
    rating = args.rating.strip()
    if not (rating.isascii() and rating.isdigit() and 1 <= int(rating) <= 5):
        raise UsageError(f"--rating {args.rating!r} is not a whole number from 1 to 5")
    if not args.reviewer_name.strip():
        raise UsageError("--reviewer-name must not be empty")
    if "@" not in args.reviewer_email:
        raise UsageError(f"--reviewer-email {args.reviewer_email!r} is not an email address")
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
        review = reviews_sql.get(conn, reviews_sql.create(conn, values, now))
    assert review is not None
    return {
        "id": review["id"],
        "product_id": review["product_id"],
        "created_at": review["created_at"].strftime("%Y-%m-%dT%H:%M:%SZ"),
        "review": review["review"],
        "rating": str(review["rating"]),
        "reviewer_name": review["reviewer_name"],
        "reviewer_email": review["reviewer_email"],
        "verified": bool(review["verified"]),
        "approved": bool(review["approved"]),
    }


def _require_schema(engine: Engine, config_uri: str) -> None:
    """A command other than ``migrate`` needs the latest schema: say so rather than fail on a
    missing table."""
    current, head = current_revision(engine), head_revision()
    if current != head:
        raise UsageError(
            f"the database schema is at revision {current or 'none'}, not {head}; "
            f"run `shopsvc {config_uri} migrate` first"
        )


Command = Callable[[Engine, Settings, argparse.Namespace], dict[str, Any]]


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

    sub = commands.add_parser("add-review", help="add a review to a product")
    sub.add_argument("--product", required=True, type=int, help="the product's id")
    sub.add_argument("--rating", required=True, help="1 to 5")
    sub.add_argument("--reviewer-name", required=True)
    sub.add_argument("--reviewer-email", required=True)
    sub.add_argument("--review", required=True, help="the text of the review")
    sub.add_argument("--pending", action="store_true", help="not approved (not listed)")
    sub.add_argument("--verified", action="store_true", help="a verified owner's review")
    sub.set_defaults(run=cmd_add_review)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        setup_logging(args.config_uri)
        app_settings = get_appsettings(args.config_uri)
    except (FileNotFoundError, LookupError, ValueError) as exc:
        print(f"shopsvc: cannot read {args.config_uri}: {exc}", file=sys.stderr)
        return 2
    settings = load_settings(app_settings, here=app_settings.get("here"))
    engine = make_engine(settings.database_url)
    try:
        if args.command != "migrate":
            if settings.auto_migrate:
                migrate(engine)
            _require_schema(engine, args.config_uri)
        run: Command = args.run
        result = run(engine, settings, args)
    except UsageError as exc:
        print(f"shopsvc {args.command}: {exc}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
