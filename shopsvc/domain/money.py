"""The one money-rounding rule (design.md "Data", decisions.md §7 "Tax arithmetic"): an amount
for output has a fixed number of decimals, rounded half away from zero, and is never ``-0``.

Pure: ``Decimal`` in, ``Decimal`` or ``str`` out. Prices (``domain/pricing.py``), tax and order
totals (``domain/tax.py``, ``domain/totals.py``), records and rendering all round here.
"""

from __future__ import annotations

import functools
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

__all__ = ["format_decimal", "round_money"]

_PRECISION = 60  # digits: enough that no amount or rate is ever rounded by the context
_EXPONENTS = {places: Decimal(1).scaleb(-places) for places in range(21)}


#: Amounts repeat (a price on every line and page): both functions remember their latest
#: answers. Equal amounts (``1.5``, ``1.50``) round alike, so either may answer for the other.
_REMEMBERED = 8192


@functools.lru_cache(maxsize=_REMEMBERED)
def round_money(amount: Decimal | int | str, places: int) -> Decimal:
    """``amount`` at exactly ``places`` decimals, rounded half away from zero (``1.005`` →
    ``1.01``, ``-1.005`` → ``-1.01``); a result of zero is never negative."""
    exponent = _EXPONENTS.get(places) or Decimal(1).scaleb(-places)
    try:  # the default context's 28 digits hold every stored amount; wider ones take the slow way
        rounded = Decimal(amount).quantize(exponent, rounding=ROUND_HALF_UP)
    except InvalidOperation:
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            rounded = Decimal(amount).quantize(exponent, rounding=ROUND_HALF_UP)
    return rounded.copy_abs() if rounded.is_zero() else rounded


@functools.lru_cache(maxsize=_REMEMBERED)
def format_decimal(value: Decimal | int | str | None, places: int) -> str:
    """``value`` as a string with exactly ``places`` decimals (:func:`round_money`), never in
    exponent notation; ``None`` and ``""`` count as zero."""
    amount = Decimal(0) if value is None or value == "" else value
    return f"{round_money(amount, places):f}"
