"""The customers phase: users of role ``customer`` signed up over the last two years, each with
a profile (billing and shipping address); and the customers an orders-only run sells to."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, Table

from shopsvc.cli.demo.batches import Batch, Row, batch_rng
from shopsvc.cli.demo.vocabulary import (
    COMPANIES,
    FIRST_NAMES,
    LAST_NAMES,
    PLACES,
    SPAN,
    STREETS,
    ascii_name,
    pick,
)
from shopsvc.sql import demo as sql
from shopsvc.sql.tables import SHIPPING_FIELDS, customer_profiles, users


@dataclass(frozen=True)
class Customer:
    """What an order copies of its customer."""

    id: int
    created_at: dt.datetime
    billing: dict[str, str]
    shipping: dict[str, str]
    email: str


def _address(rnd: Any, first: str, last: str) -> dict[str, str]:
    """A billing address at one of the ``PLACES`` (its email left empty)."""
    place = pick(rnd, PLACES)
    return {
        "first_name": first,
        "last_name": last,
        "company": pick(rnd, COMPANIES) if rnd() < 0.1 else "",
        "address_1": f"{1 + int(rnd() * 240)} {pick(rnd, STREETS)}",
        "address_2": f"Apt {1 + int(rnd() * 40)}" if rnd() < 0.2 else "",
        "city": place.city,
        "state": place.state,
        "postcode": place.postcode,
        "country": place.country,
        "email": "",
        "phone": f"{place.phone}{int(rnd() * 10000):04d}",
    }


USER_COLUMNS = ("id", "login", "email", "first_name", "last_name", "role")
USER_COLUMNS += ("created_at", "updated_at")
PROFILE_COLUMNS = ("user_id", "billing", "shipping", "updated_at")


@dataclass
class CustomerPhase:
    """Customers signed up over the two years; a batch's result is its ``Customer`` list."""

    key: str
    tag: str
    now: dt.datetime
    total: int
    size: int
    leading: Table = users

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch:
        rnd = batch_rng(self.key, index).random
        start = self.now - SPAN
        user_rows: list[Row] = []
        profile_rows: list[Row] = []
        made = []
        for offset, user_id in enumerate(ids):
            number = index * self.size + offset
            first, last = pick(rnd, FIRST_NAMES), pick(rnd, LAST_NAMES)
            login = f"{ascii_name(first)}.{ascii_name(last)}{number + 1}-{self.tag}"
            email = f"{login}@example.com"
            created = (start + SPAN * ((number + rnd()) / self.total)).replace(microsecond=0)
            billing = _address(rnd, first, last)
            billing["email"] = email
            shipping = {name: billing[name] for name in SHIPPING_FIELDS}
            user_rows.append((user_id, login, email, first, last, "customer", created, created))
            profile_rows.append((user_id, json.dumps(billing), json.dumps(shipping), created))
            made.append(Customer(user_id, created, billing, shipping, email))
        tables = [
            (users, USER_COLUMNS, user_rows),
            (customer_profiles, PROFILE_COLUMNS, profile_rows),
        ]
        return Batch(tables, len(user_rows), made)


def existing_customers(engine: Engine, limit: int) -> list[Customer]:
    """Up to ``limit`` customers already in the database (for a run that adds none)."""
    with engine.connect() as conn:
        rows = sql.existing_customers(conn, limit)
    return [
        Customer(row["id"], row["created_at"], row["billing"], row["shipping"], row["email"])
        for row in rows
    ]
