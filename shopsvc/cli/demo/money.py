"""Money in the demo data: amounts as integer millionths (micro-units, the money columns' scale),
their column text, the tax JSON of an item, and the rounding to cents of the integer totals."""

from __future__ import annotations

import functools
from decimal import ROUND_HALF_UP, Decimal

MICRO = 1_000_000  # money is handled as integer millionths (the money columns' scale)
CENT = 10_000
Taxed = tuple[tuple[int, int], ...]  # (rate id, tax in micro) of one item


@functools.lru_cache(maxsize=1 << 18)
def money_text(micro: int) -> str:
    """Millionths as the decimal text of a money column (6 decimals)."""
    if micro < 0:
        return "-" + money_text(-micro)
    units, rest = divmod(micro, MICRO)
    return f"{units}.{rest:06d}"


def to_micro(value: Decimal | str | int) -> int:
    """A decimal amount in millionths (half up)."""
    return int((Decimal(value) * MICRO).to_integral_value(ROUND_HALF_UP))


def from_micro(micro: int) -> Decimal:
    """Millionths as a ``Decimal`` of 6 decimals."""
    return Decimal(micro).scaleb(-6)


@functools.lru_cache(maxsize=1 << 16)
def taxes_json(total: Taxed, subtotal: Taxed) -> str:
    """As ``writers/order_totals.py`` stores it: ``{"total": {rate id: tax}, "subtotal": …}``."""
    first = ", ".join([f'"{rid}": "{money_text(m)}"' for rid, m in total])
    second = ", ".join([f'"{rid}": "{money_text(m)}"' for rid, m in subtotal])
    return f'{{"total": {{{first}}}, "subtotal": {{{second}}}}}'


def round_to_cent(micro: int) -> int:
    """One rate's tax on one item at 2 decimals, half up (the integer path's ``item_tax``; for
    an amount that is not negative)."""
    return (micro + CENT // 2) // CENT * CENT
