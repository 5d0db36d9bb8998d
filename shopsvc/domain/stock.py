"""Pure stock rules: stock status from quantity, backorders and threshold; the stock flags of
the product resource; variable products' status from their variations; the per-type rules.

Where the rules come from:

* ``/work/shared/reference/products.md`` §2 (``in_stock``, ``backorders_allowed``,
  ``backordered``, "final" column), §6 "Stock" and §8 (variations, the parent's status synced
  from the children);
* ``/work/shared/spec/shop-api.md`` "Stock rules": grouped products never manage stock, external
  products are always in stock and never manage stock, a variable product's stock status
  derives from its variations;
* ``/work/shared/spec/decisions.md`` §2 (boolean spellings) and §7 (store setting
  ``out_of_stock_threshold``, default 0).

A stock-managed product's status always follows its quantity (the final core re-derives it on
every save), so an explicit ``in_stock`` is overridden by the quantity.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "BACKORDERS",
    "STOCK_STATUSES",
    "StockState",
    "backordered",
    "backorders_allowed",
    "in_stock",
    "manages_stock",
    "parse_backorders",
    "resolve_stock",
    "status_from_in_stock",
    "stock_status",
    "variable_parent_status",
    "variable_stock_status",
    "variation_stock",
]

INSTOCK = "instock"
OUTOFSTOCK = "outofstock"
ONBACKORDER = "onbackorder"

#: Stored ``stock_status`` values.
STOCK_STATUSES = (INSTOCK, OUTOFSTOCK, ONBACKORDER)
#: Stored ``backorders`` values.
BACKORDERS = ("no", "yes", "notify")

# The boolean "true" spellings of decisions.md §2 (any case).
_TRUE_WORDS = frozenset({"true", "1", "yes"})


def _check_status(status: str) -> str:
    if status not in STOCK_STATUSES:
        raise ValueError(f"stock status {status!r} is not one of " + ", ".join(STOCK_STATUSES))
    return status


def parse_backorders(value: object) -> str:
    """The ``backorders`` write field: ``"notify"`` → ``notify``; a §2 *true* spelling
    (``true``, ``1``, ``"1"``, ``"true"``, ``"yes"``, any case) → ``yes``; anything else →
    ``no``. Never refuses (reference §6)."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "notify":
            return "notify"
        return "yes" if word in _TRUE_WORDS else "no"
    if value is True:
        return "yes"
    if isinstance(value, int) and not isinstance(value, bool) and value == 1:
        return "yes"
    return "no"


def backorders_allowed(backorders: str) -> bool:
    """``backorders_allowed``: the setting is ``yes`` or ``notify``."""
    return backorders in ("yes", "notify")


def status_from_in_stock(flag: bool) -> str:
    """The status an ``in_stock`` write field asks for: true → instock, false → outofstock."""
    return INSTOCK if flag else OUTOFSTOCK


def stock_status(
    manage_stock: bool,
    quantity: int | None,
    backorders: str,
    threshold: int,
    requested_status: str | None,
) -> str:
    """The stock status to store for a simple product or a variation.

    Managing stock: a quantity at or below the out-of-stock ``threshold`` gives ``outofstock``
    when backorders are ``no`` and ``onbackorder`` otherwise; above it, ``instock``. An unset
    quantity counts as 0. Not managing: ``requested_status`` (from ``in_stock``, else the stored
    status), ``instock`` when ``None``. An unknown requested status raises ``ValueError``.
    """
    if manage_stock:
        if (quantity or 0) > threshold:
            return INSTOCK
        return OUTOFSTOCK if backorders == "no" else ONBACKORDER
    return INSTOCK if requested_status is None else _check_status(requested_status)


def in_stock(status: str) -> bool:
    """``in_stock`` (final): anything but ``outofstock``, so ``onbackorder`` is in stock."""
    return status != OUTOFSTOCK


def backordered(status: str, manage_stock: bool, backorders: str, quantity: int | None) -> bool:
    """``backordered`` (final): the status is ``onbackorder``, or stock is managed, backorders
    are allowed and the quantity is below zero."""
    if status == ONBACKORDER:
        return True
    return manage_stock and backorders_allowed(backorders) and quantity is not None and quantity < 0


def variable_stock_status(child_statuses: Iterable[str]) -> str:
    """A variable product's status from its variations': ``instock`` if any is in stock, else
    ``onbackorder`` if any is on backorder, else ``outofstock`` (also when there are none)."""
    statuses = set(child_statuses)
    if INSTOCK in statuses:
        return INSTOCK
    if ONBACKORDER in statuses:
        return ONBACKORDER
    return OUTOFSTOCK


def manages_stock(product_type: str, manage_stock: bool) -> bool:
    """Whether a product of this type manages stock: grouped and external never do."""
    if product_type in ("grouped", "external"):
        return False
    return manage_stock


@dataclass(frozen=True)
class StockState:
    """The stock columns of one product: what :func:`resolve_stock` says to store."""

    manage_stock: bool
    quantity: int | None
    backorders: str
    status: str


def resolve_stock(
    product_type: str,
    *,
    manage_stock: bool,
    quantity: int | None,
    backorders: str,
    threshold: int,
    requested_status: str | None,
    child_statuses: Iterable[str] | None = None,
) -> StockState:
    """The stock columns to store after a save, with store-wide stock management on
    (reference §6 "Stock"; the spec's stock rules). Inputs are the effective values (sent,
    else stored; ``requested_status`` from ``in_stock``, else the stored status).

    * ``grouped``: not managed, backorders ``no``, no quantity, the requested status;
    * ``external``: not managed, backorders ``no``, no quantity, always ``instock``;
    * ``variable``: the status derives from ``child_statuses`` (:func:`variable_stock_status`;
      the requested status is kept when ``child_statuses`` is ``None``, i.e. unknown);
      quantity only when managed;
    * ``simple`` and ``variation``: :func:`stock_status`; no quantity when not managed.

    With store-wide management off, callers store only the requested status (variable: the
    children's) and leave the other columns alone.
    """
    if backorders not in BACKORDERS:
        raise ValueError(f"backorders {backorders!r} is not one of " + ", ".join(BACKORDERS))
    if product_type == "external":
        return StockState(False, None, "no", INSTOCK)
    if product_type == "grouped":
        status = INSTOCK if requested_status is None else _check_status(requested_status)
        return StockState(False, None, "no", status)
    kept_quantity = (quantity or 0) if manage_stock else None
    if product_type == "variable":
        if child_statuses is not None:
            status = variable_stock_status(child_statuses)
        else:
            status = INSTOCK if requested_status is None else _check_status(requested_status)
        return StockState(manage_stock, kept_quantity, backorders, status)
    status = stock_status(manage_stock, quantity, backorders, threshold, requested_status)
    return StockState(manage_stock, kept_quantity, backorders, status)


def variation_stock(
    variation: StockState,
    parent: StockState | None,
    *,
    store_manages: bool,
    threshold: int,
) -> StockState:
    """A variation's effective stock: what its record shows and what its parent's status counts
    (reference §8). ``variation`` and ``parent`` hold the stored columns; ``parent`` is None for a
    variation without one, and its ``manage_stock`` says whether it manages stock at all (see
    :func:`manages_stock`).

    With store-wide management on, a variation that manages its stock has its own; one that does
    not, while its parent does, has the parent's quantity and backorders and the status they give
    (the parent's own status sums up all its variations, so it is not used). Otherwise the
    variation is not managed and keeps its stored status.
    """
    if store_manages and variation.manage_stock:
        return variation
    if store_manages and parent is not None and parent.manage_stock:
        status = stock_status(True, parent.quantity, parent.backorders, threshold, None)
        return StockState(True, parent.quantity, parent.backorders, status)
    return StockState(False, variation.quantity, variation.backorders, variation.status)


def variable_parent_status(
    variations: Iterable[StockState],
    parent: StockState,
    *,
    store_manages: bool,
    threshold: int,
) -> str:
    """A variable product's stock status from its live (published or private) variations'
    stored columns and its own (:func:`variation_stock` for each, then
    :func:`variable_stock_status`)."""
    return variable_stock_status(
        variation_stock(v, parent, store_manages=store_manages, threshold=threshold).status
        for v in variations
    )
