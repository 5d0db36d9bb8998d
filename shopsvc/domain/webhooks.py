"""Webhook rules that are not about topics (decisions.md §3): statuses, the default name, the
generated secret."""

from __future__ import annotations

import datetime as dt
import secrets
import string

STATUSES = ("active", "paused", "disabled")
#: The `status` a webhook list accepts: a status, or every one.
LIST_STATUSES = (*STATUSES, "all")
# Letters, digits and the symbols of the original's password generator (both "special" sets).
SECRET_ALPHABET = string.ascii_letters + string.digits + "!@#$%^&*()-_ []{}<>~`+=,.;:/?|"
SECRET_LENGTH = 50


def default_name(now: dt.datetime) -> str:
    """``Webhook created on Jan 17, 2015 @ 11:45 AM`` for a webhook created at ``now`` (UTC)."""
    return f"Webhook created on {now:%b %d, %Y @ %I:%M %p}"


def new_secret() -> str:
    """A random secret of 50 characters, for a webhook created without one."""
    return "".join(secrets.choice(SECRET_ALPHABET) for _ in range(SECRET_LENGTH))
