"""One element's plan (``shopsvc.writers.order_batch``): the order as the element changes it,
what its plan adds (the rows it would insert, the key draws, the links of child rows to their
parents, the stored items it changes or deletes, its stock, sales and profile changes and its
webhook events), what is kept of a plan that passed, and a bulk element's order id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shopsvc.sql import order_batch as sql
from shopsvc.validation.types import int_field

Row = dict[str, Any]


@dataclass
class PlannedOrder:
    """An order as an element changes it: its row (a new one, or a copy of the loaded one) and
    its items as they will be stored (copies of the loaded ones by id, then the new ones)."""

    row: Row
    items: list[Row]

    @property
    def lines(self) -> list[Row]:
        """The line items (what status changes move stock and sales by)."""
        return [item for item in self.items if item["item_type"] == "line_item"]


@dataclass
class Scratch:
    """What one element's plan adds: the rows it would insert per table (in insert order), the
    key draws, the links of child rows to their parents, its stock, sales and profile changes and
    its webhook events. Kept when the plan passes; on failure only the ids and key draws it used
    count (as burnt)."""

    rows: dict[str, list[Row]] = field(default_factory=lambda: {t: [] for t in sql.TABLES})
    keys: list[Row] = field(default_factory=list)
    links: list[tuple[Row, str, Row]] = field(default_factory=list)
    stock: dict[int, Row] = field(default_factory=dict)
    sales: dict[int, int] = field(default_factory=dict)
    profiles: dict[int, dict[str, Any]] = field(default_factory=dict)
    events: list[tuple[str, Any, str | None, list[str]]] = field(default_factory=list)
    #: the stored items it changes, by id, and those it deletes
    updated_items: dict[int, Row] = field(default_factory=dict)
    deleted_items: list[int] = field(default_factory=list)

    def add(self, table: str, row: Row, parent: Row | None = None, fk: str = "") -> Row:
        self.rows[table].append(row)
        if parent is not None:
            self.links.append((row, fk, parent))
        return row


@dataclass
class Plan:
    """What is kept of a plan that passed: the order's row (its id set when it is written), its
    webhook events, and whether it edits an order (else it creates one)."""

    row: Row
    events: list[tuple[str, Any, str | None, list[str]]]
    edit: bool


def element_order_id(element: Row) -> int:
    """A bulk element's order id, its ``id`` field (0: a create)."""
    raw_id = element.get("id")
    return 0 if raw_id is None or raw_id == "" else int_field(raw_id, "order.id")
