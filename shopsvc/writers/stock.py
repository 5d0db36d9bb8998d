"""The stock columns a save writes, and a variable product's status from its variations
(reference §6 "Stock", §8; the spec's stock rules — the rules themselves are
``shopsvc.domain.stock``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shopsvc.domain import stock
from shopsvc.domain.events import stock_hook
from shopsvc.errors import invalid_param
from shopsvc.settings import Settings
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.sql import product_writes as product_writes_sql
from shopsvc.validation.types import MAX_INT, MIN_INT
from shopsvc.writers.context import WriteContext

Row = dict[str, Any]


def _stored(row: Row) -> stock.StockState:
    return stock.StockState(
        bool(row["manage_stock"]), row["stock_quantity"], row["backorders"], row["stock_status"]
    )


def _inputs(row: Row, clean: dict[str, Any], field: str) -> stock.StockState:
    """The stock after this request's fields, before the rules: managing, quantity (set, or
    moved by ``inventory_delta``, when managing), backorders, the status asked for."""
    manage = bool(clean.get("managing_stock", row["manage_stock"]))
    backorders = clean.get("backorders", row["backorders"]) or "no"
    quantity = row["stock_quantity"]
    if manage:
        if "stock_quantity" in clean:
            quantity = clean["stock_quantity"]
        elif "inventory_delta" in clean:
            quantity = (quantity or 0) + clean["inventory_delta"]
            if not MIN_INT <= quantity <= MAX_INT:
                raise invalid_param(f"{field}.inventory_delta", "the quantity is out of range")
    requested = row["stock_status"]
    if "in_stock" in clean:
        requested = stock.status_from_in_stock(clean["in_stock"])
    return stock.StockState(manage, quantity, backorders, requested)


def variations_status(ctx: WriteContext, product_id: int, parent: stock.StockState) -> str:
    """The status of the variable product ``product_id`` whose stock is ``parent``, from its
    live variations."""
    return stock.variable_parent_status(
        [_stored(v) for v in product_lookups_sql.get_variation_stock(ctx.conn, product_id)],
        parent,
        store_manages=ctx.settings.manage_stock,
        threshold=ctx.settings.out_of_stock_threshold,
    )


def planned_stock(
    settings: Settings,
    row: Row,
    clean: dict[str, Any],
    field: str,
    variations: list[Row] | None = None,
) -> tuple[dict[str, Any], bool]:
    """The stock columns of a product or variation after a save, for the planner: with
    store-wide management off only the status (a variable product's from ``variations``, its
    published and private variations' rows as the write leaves them; an external product's
    ``instock``); otherwise :func:`shopsvc.domain.stock.resolve_stock` (a variation that does
    not manage its stock has backorders ``no``). ``(columns, whether a managed quantity moved)``
    (the planner records ``stock_hook``)."""
    given = _inputs(row, clean, field)
    status = given.status
    if row["type"] == "variable":
        if variations is None:
            raise ValueError("a variable product's stock status follows its variations")
        status = stock.variable_parent_status(
            [_stored(v) for v in variations],
            given,
            store_manages=settings.manage_stock,
            threshold=settings.out_of_stock_threshold,
        )
    return stock_columns(settings, row, given, status)


def synced_status(settings: Settings, parent: Row, variations: list[Row]) -> str:
    """:func:`sync_variable_parent`'s status of the variable product ``parent`` (its stored
    row) without a read: from ``variations``, its published and private variations' rows as
    the write leaves them."""
    return stock.variable_parent_status(
        [_stored(v) for v in variations],
        _stored(parent),
        store_manages=settings.manage_stock,
        threshold=settings.out_of_stock_threshold,
    )


def stock_columns(
    settings: Settings, row: Row, given: stock.StockState, status: str
) -> tuple[dict[str, Any], bool]:
    """The stock columns of ``row`` (as stored) for the stock ``given`` by a request and the
    status it asks for; and whether a managed quantity moved (which raises ``stock_hook``)."""
    kind = row["type"]
    if not settings.manage_stock:
        return {"stock_status": "instock" if kind == "external" else status}, False
    backorders = given.backorders if given.manage_stock or kind != "variation" else "no"
    state = stock.resolve_stock(
        kind,
        manage_stock=given.manage_stock,
        quantity=given.quantity,
        backorders=backorders,
        threshold=settings.out_of_stock_threshold,
        requested_status=status,
    )
    moved = bool(state.manage_stock and state.quantity != row.get("stock_quantity"))
    changes = {
        "manage_stock": state.manage_stock,
        "stock_quantity": state.quantity,
        "backorders": state.backorders,
        "stock_status": state.status,
    }
    return changes, moved


def sync_variable_parent(ctx: WriteContext, parent_id: int | None) -> None:
    """After a variation changed or left, its variable parent's status follows the variations
    that remain."""
    if not parent_id:
        return
    parent = product_lookups_sql.get_stock_row(ctx.conn, parent_id)
    if parent is None or parent["type"] != "variable":
        return
    status = variations_status(ctx, parent_id, _stored(parent))
    if status != parent["stock_status"]:
        product_writes_sql.update_stock_status(ctx.conn, parent_id, status)


def stock_source(
    product_id: int, stock_row: Callable[[int], dict[str, Any] | None]
) -> dict[str, Any] | None:
    """The stock row (``stock_row`` reads one) that a sale of ``product_id`` moves: its own when
    it manages its stock, else (a variation) its parent's when that manages it; None when no
    stock is managed there (grouped and external products never hold stock)."""
    row = stock_row(product_id)
    if row is not None and not row["manage_stock"] and row["type"] == "variation":
        row = stock_row(row["parent_id"]) if row["parent_id"] else None
    if row is None or not row["manage_stock"] or row["type"] in ("grouped", "external"):
        return None
    return row


def stock_moved(row: dict[str, Any], delta: int, threshold: int) -> tuple[int, int, str]:
    """``(old quantity, new quantity, new stock status)`` of the stock row ``row`` moved by
    ``delta`` (clamped to the column's range)."""
    old = row["stock_quantity"] or 0
    new = max(MIN_INT, min(MAX_INT, old + delta))
    state = stock.resolve_stock(
        row["type"],
        manage_stock=True,
        quantity=new,
        backorders=row["backorders"] or "no",
        threshold=threshold,
        requested_status=row["stock_status"],
        child_statuses=None,
    )
    return old, new, state.status


def move_stock(ctx: WriteContext, product_id: int, delta: int) -> tuple[int, int, int] | None:
    """Add ``delta`` to the stock that ``product_id`` sells from — its own when it manages its
    stock, else (a variation) its managing parent's — and store the status that follows
    (decisions.md §7 "Orders: status, stock, payment"). ``(id of the product whose stock moved,
    old quantity, new quantity)``, or None when no stock is managed (store-wide management off,
    an unmanaged product, a product that no longer exists)."""
    if not ctx.settings.manage_stock:
        return None
    row = stock_source(
        product_id, lambda i: product_lookups_sql.get_stock_row(ctx.conn, i, lock=True)
    )
    if row is None:
        return None
    old, new, status = stock_moved(row, delta, ctx.settings.out_of_stock_threshold)
    product_writes_sql.update_stock(ctx.conn, row["id"], new, status)
    if new != old:
        ctx.events.record("product", row["id"], None, [stock_hook(row["type"] == "variation")])
    # A variable parent's status follows its variations (which may sell from its stock).
    sync_variable_parent(ctx, row["parent_id"] if row["type"] == "variation" else row["id"])
    return row["id"], old, new
