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
#: answers, by the amount's text. Hashing a ``Decimal`` costs about a microsecond and every
#: amount read from the database is a new object, whose hash is worked out anew (a page of 1000
#: orders formats some 28 000); its ``str`` is made and hashed in a fifth of that, and is exact
#: (``Decimal(str(d))`` is ``d``, sign and exponent included), so the answer is the same.
_REMEMBERED = 8192


def _text(amount: Decimal | int | str) -> str:
    """The exact text of an amount (a float, which the signatures do not take, is converted as
    ``Decimal`` converts it: exactly, not as its shortest repr)."""
    if isinstance(amount, str):
        return amount
    if type(amount) is Decimal or type(amount) is int:
        return str(amount)
    return str(Decimal(amount))


@functools.lru_cache(maxsize=_REMEMBERED)
def _round_text(text: str, places: int) -> Decimal:
    exponent = _EXPONENTS.get(places) or Decimal(1).scaleb(-places)
    try:  # the default context's 28 digits hold every stored amount; wider ones take the slow way
        rounded = Decimal(text).quantize(exponent, rounding=ROUND_HALF_UP)
    except InvalidOperation:
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            rounded = Decimal(text).quantize(exponent, rounding=ROUND_HALF_UP)
    return rounded.copy_abs() if rounded.is_zero() else rounded


def round_money(amount: Decimal | int | str, places: int) -> Decimal:
    """``amount`` at exactly ``places`` decimals, rounded half away from zero (``1.005`` →
    ``1.01``, ``-1.005`` → ``-1.01``); a result of zero is never negative."""
    return _round_text(_text(amount), places)


@functools.lru_cache(maxsize=_REMEMBERED)
def _format_text(text: str, places: int) -> str:
    return f"{_round_text(text, places):f}"


def format_decimal(value: Decimal | int | str | None, places: int) -> str:
    """``value`` as a string with exactly ``places`` decimals (:func:`round_money`), never in
    exponent notation; ``None`` and ``""`` count as zero."""
    if type(value) is Decimal:  # the usual case, spared the comparison with "" (slow for one)
        return _format_text(str(value), places)
    return _format_text("0" if value is None or value == "" else _text(value), places)
