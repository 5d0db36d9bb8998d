"""Pure order rules: statuses and their labels, currency codes, order keys, tax line merging.

Where the rules come from:

* statuses and labels: ``/work/shared/spec/decisions.md`` §6 (the reference's 3.x labels,
  ``/work/shared/reference/orders.md`` §2.3), in the order ``GET /orders/statuses`` and
  ``GET /orders/count?status=any`` list them; ``trash`` is the state a non-forced DELETE leaves
  (decisions §7 "Orders: records"), never one of the listed statuses;
* currencies: decisions §7 "Currencies" -- the reference's Appendix A plus the ISO 4217 codes
  Babel knows (``babel.numbers.list_currencies()``), case-sensitive (``usd`` is refused);
* ``order_key``: decisions §7 "Orders: records" (``shop_order_`` + 13 alphanumerics);
* tax lines: reference §1.4 -- the stored tax items (one per rate id) merged by rate code, in
  the order the codes first appear; ``id``, ``rate_id``, ``title`` and ``compound`` are the last
  item's with that code, ``total`` the sum of ``tax_total + shipping_tax_total`` over them;
  merged lines whose total is zero are left out (3.x "hide zero taxes");
* ``subtotal``: reference §1.1 #10 (3.x later) -- line subtotals rounded to the store decimals
  one by one unless ``tax_round_at_subtotal``, summed, the sum rounded.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from babel.numbers import list_currencies

from shopsvc.domain.money import round_money

__all__ = [
    "LABELS",
    "STATUSES",
    "TRASH",
    "MergedTaxLine",
    "TaxItem",
    "currencies",
    "is_known_currency",
    "is_status",
    "merge_tax_lines",
    "new_order_key",
    "order_subtotal",
]

#: The order statuses, in the order the API lists them, with their labels.
LABELS: dict[str, str] = {
    "pending": "Pending payment",
    "processing": "Processing",
    "on-hold": "On hold",
    "completed": "Completed",
    "cancelled": "Cancelled",
    "refunded": "Refunded",
    "failed": "Failed",
}
STATUSES: tuple[str, ...] = tuple(LABELS)

#: The status of a trashed order (not a listed status; ``status_before_trash`` keeps the old one).
TRASH = "trash"

ORDER_KEY_PREFIX = "shop_order_"
_KEY_ALPHABET = string.ascii_letters + string.digits
_KEY_LENGTH = 13

#: The reference's Appendix A (the 3.x list, 163 codes, some not ISO: BTC, PRB, IRT, GGP, ...).
_APPENDIX_A_TEXT = """
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTC BTN
BWP BYN BYR BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR
FJD FKP GBP GEL GGP GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS IMP INR IQD IRR IRT
ISK JEP JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA
MKD MMK MNT MOP MRO MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR
PLN PRB PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLL SOS SRD SSP STD SYP SZL THB
TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VEF VES VND VUV WST XAF XCD XOF XPF YER
ZAR ZMW
"""
_APPENDIX_A = frozenset(_APPENDIX_A_TEXT.split())


def is_status(value: str) -> bool:
    """Whether ``value`` is one of the seven order statuses (``trash`` is not)."""
    return value in LABELS


@cache
def status_note(old: str, new: str, prefix: str = "") -> str:
    """The private note of a status change (decisions.md §7): ``"<prefix> Order status changed
    from <Old label> to <New label>."``, the prefix (``status_note``) trimmed and left out when
    empty."""
    sentence = (
        f"Order status changed from {LABELS.get(old, old.capitalize())} "
        f"to {LABELS.get(new, new.capitalize())}."
    )
    prefix = prefix.strip()
    return f"{prefix} {sentence}" if prefix else sentence


def currencies() -> frozenset[str]:
    """Every accepted currency code: Appendix A plus Babel's ISO 4217 list (upper case)."""
    return _APPENDIX_A | frozenset(code for code in list_currencies() if code.isupper())


def is_known_currency(value: object) -> bool:
    """Whether ``value`` is an accepted currency code; case-sensitive (``"usd"`` is not)."""
    return isinstance(value, str) and value in currencies()


def new_order_key() -> str:
    """A new ``order_key``: ``shop_order_`` + 13 random letters and digits."""
    return ORDER_KEY_PREFIX + "".join(secrets.choice(_KEY_ALPHABET) for _ in range(_KEY_LENGTH))


@dataclass(slots=True)
class TaxItem:
    """A stored tax item of an order (one per rate id), as the merge needs it.

    Not frozen, nor is :class:`MergedTaxLine`: a page of 1000 orders makes a few thousand of
    each, and a frozen dataclass sets each field through ``object.__setattr__`` (its records'
    tax lines took half as long again); nothing changes them once made."""

    id: int
    rate_id: int
    code: str
    title: str
    compound: bool
    tax_total: Decimal
    shipping_tax_total: Decimal


@dataclass(slots=True)
class MergedTaxLine:
    """One ``tax_lines[]`` entry before formatting (reference §1.4)."""

    id: int
    rate_id: int
    code: str
    title: str
    total: Decimal
    compound: bool


def merge_tax_lines(items: Iterable[TaxItem]) -> list[MergedTaxLine]:
    """Merge tax items (given in item id order) by ``code``; zero totals are left out.

    Codes keep the order of their first item; ``id``, ``rate_id``, ``title`` and ``compound``
    come from the last item with that code; an empty title reads ``Tax``.
    """
    totals: dict[str, Decimal] = {}  # by code, in the order of the codes' first items
    last: dict[str, TaxItem] = {}
    for item in items:
        total = item.tax_total + item.shipping_tax_total
        previous = totals.get(item.code)
        totals[item.code] = total if previous is None else total + previous
        last[item.code] = item
    merged = []
    for code, total in totals.items():
        if total.is_zero():
            continue
        item = last[code]
        merged.append(
            MergedTaxLine(
                id=item.id,
                rate_id=item.rate_id,
                code=code,
                title=item.title or "Tax",
                total=total,
                compound=item.compound,
            )
        )
    return merged


def order_subtotal(
    line_subtotals: Iterable[Decimal], decimals: int, round_at_subtotal: bool
) -> Decimal:
    """An order's ``subtotal`` (reference §1.1 #10, 3.x later): the line subtotals, each rounded
    to the store ``decimals`` unless ``round_at_subtotal``, summed, the sum rounded."""
    if round_at_subtotal:
        total = sum(line_subtotals, Decimal(0))
    else:
        total = sum((round_money(amount, decimals) for amount in line_subtotals), Decimal(0))
    return round_money(total, decimals)
