"""A family's :class:`Loader`: load one record by id in the spec's order of checks, and require a
capability with the family's own error code — declared once per family (``loaders/<family>.py``),
used by every route of it.

The shared record validation (decisions.md §7 "Capabilities"): id 0 → 404 ``…invalid_<x>_id``;
missing → 404 ``…no_<x>_found``; wrong kind → 404 ``…invalid_<x>``; then 401
``…user_cannot_{read,edit,delete}_<x>``. Families whose spec rows differ say so in their
declaration: the ``order`` of the checks (attributes and taxes check the capability before the
record, terms also check the attribute a term belongs to), the codes (terms answer 400 for id 0)
and the messages.

Nothing here imports Pyramid: a loader needs only a :class:`Caller` (a request is one), so the
writers may raise the families' errors too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from sqlalchemy import Connection

from shopsvc.errors import ApiError

Row = dict[str, Any]
#: One check of :meth:`Loader.load`: the id (``check_id``), the capability (``require``), the
#: scope the record lives in (``check_scope``: a term's attribute) and the record (``find``).
Step = Literal["id", "capability", "scope", "record"]


class Caller(Protocol):
    """What loading needs of a request: its connection and its capability check."""

    @property
    def db(self) -> Connection: ...

    def has_permission(self, permission: str, context: Any = None) -> Any: ...


def _invalid_id(noun: str) -> Callable[[int], ApiError]:
    return lambda record_id: ApiError(f"shop_api_invalid_{noun}_id", f"Invalid {noun} ID.", 404)


def _not_found(noun: str) -> Callable[[int], ApiError]:
    return lambda record_id: ApiError(
        f"shop_api_no_{noun}_found", f"No {noun} found with the ID equal to {record_id}", 404
    )


@dataclass(frozen=True)
class Loader:
    """One family's record loading and capability checks.

    ``capabilities`` maps each action (``read``, ``edit``, ``delete``, ``create``, …) to its
    capability. ``fetch(conn, id)`` reads the row (None when there is none); a family loaded
    within a scope is read with ``fetch(conn, id, scope)``, after ``check_scope(conn, scope)``
    raised the scope's own 404 if it does not exist. The error builders default to the shared
    record validation's codes for ``noun``; ``denials`` gives the code and message of an action
    whose 401 reads otherwise. A family without ``fetch`` only requires capabilities.
    """

    noun: str
    capabilities: Mapping[str, str]
    fetch: Callable[..., Row | None] | None = None
    invalid_id: Callable[[int], ApiError] | None = None
    not_found: Callable[[int], ApiError] | None = None
    denials: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: Why a row that exists is not of this family (a refund id on the orders route…), or None.
    wrong_kind: Callable[[Row], ApiError | None] = field(default=lambda row: None)
    #: Raises the 404 of a scope that does not exist (an attribute terms' attribute), or None.
    check_scope: Callable[[Connection, Any], object] | None = None
    #: The checks of :meth:`load`, in the spec's order…
    order: tuple[Step, ...] = ("id", "record", "capability")
    #: …and of the actions whose routes check in another order.
    orders: Mapping[str, tuple[Step, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for steps in (self.order, *self.orders.values()):
            if "record" not in steps or len(set(steps)) != len(steps):
                raise ValueError(f"{self.noun}: each order checks the record once: {steps}")

    def require(self, caller: Caller, action: str) -> None:
        """401 with the family's code unless the caller holds the action's capability."""
        if not caller.has_permission(self.capabilities[action]):
            code, message = self.denials.get(action) or (
                f"shop_api_user_cannot_{action}_{self.noun}",
                f"You do not have permission to {action} this {self.noun}.",
            )
            raise ApiError(code, message, 401)

    def check_id(self, record_id: int) -> None:
        if record_id <= 0:
            raise (self.invalid_id or _invalid_id(self.noun))(record_id)

    def find(
        self,
        conn: Connection,
        record_id: int,
        scope: Any = None,
        fetch: Callable[..., Row | None] | None = None,
    ) -> Row:
        """The row ``record_id`` (of ``scope``), or the family's 404 — no other check.
        ``fetch`` replaces the family's own (a route that loads more than the row)."""
        fetch = fetch or self.fetch
        if fetch is None:
            raise ValueError(f"{self.noun} records are not loaded by id")
        row = fetch(conn, record_id) if scope is None else fetch(conn, record_id, scope)
        if row is None:
            raise (self.not_found or _not_found(self.noun))(record_id)
        wrong = self.wrong_kind(row)
        if wrong is not None:
            raise wrong
        return row

    def load(
        self,
        caller: Caller,
        record_id: int,
        action: str,
        scope: Any = None,
        fetch: Callable[..., Row | None] | None = None,
    ) -> Row:
        """The record ``record_id`` (of ``scope``) for ``action``, every check in the family's
        order; ``fetch`` replaces the family's own (see :meth:`find`)."""
        if action not in self.capabilities:
            raise ValueError(f"unknown action {action!r} for {self.noun}")
        row: Row | None = None
        for step in self.orders.get(action, self.order):
            if step == "id":
                self.check_id(record_id)
            elif step == "capability":
                self.require(caller, action)
            elif step == "scope":
                if self.check_scope is not None:
                    self.check_scope(caller.db, scope)
            else:
                row = self.find(caller.db, record_id, scope, fetch)
        assert row is not None
        return row
