"""Pure price rules: money formatting, sale windows, the active price and ``price_html``.

Where the rules come from (decisions.md wins over the reference where they differ):

* ``/work/shared/reference/products.md`` §2 (``price``, ``regular_price``, ``sale_price``,
  ``on_sale``), §2.1 (``price_html``, "final" column) and §6 "Prices" (sale dates, the active
  price);
* ``/work/shared/spec/decisions.md`` §5 (``<span class="amount">`` amounts, ``<del>``/``<ins>``,
  en-dash ranges) and §7 "Products" (sale dates are UTC, a date-only ``to`` means 23:59:59 that
  day, ``on_sale`` and ``price`` computed at read time, unset prices shown as ``""``, 2-decimal
  ``weight``).

Everything here is pure: ``Decimal`` for every amount, ``datetime`` for every instant (naive
values are taken as UTC), no I/O. Which prices are shown (including or excluding tax) is the
caller's choice: the amounts handed in are formatted as they are.
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

import nh3
from babel.numbers import get_currency_symbol

from shopsvc.domain.money import format_decimal, round_money

__all__ = [
    "CURRENCY_POSITIONS",
    "PRICE_KINDS",
    "MoneyFormat",
    "PricePoint",
    "active_price",
    "amount_html",
    "currency_symbol",
    "format_money",
    "format_optional",
    "format_price_string",
    "is_on_sale",
    "normalise_sale_dates",
    "parse_decimal_input",
    "parse_sale_date",
    "price_html",
    "price_point",
]

#: The store's ``currency_position`` values (configuration.md).
CURRENCY_POSITIONS = ("left", "right", "left_space", "right_space")

#: Product kinds ``price_html`` understands: the first three show their own price, the last two
#: a summary of their children's prices.
PRICE_KINDS = ("simple", "external", "variation", "variable", "grouped")

_OWN_PRICE_KINDS = frozenset({"simple", "external", "variation"})
_EN_DASH = "\u2013"
_FREE = "Free!"


# --------------------------------------------------------------------------------------------
# Money formatting
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def currency_symbol(code: str) -> str:
    """The symbol of an ISO 4217 currency as shown in US English (``USD`` → ``$``, ``EUR`` →
    ``€``, ``CAD`` → ``CA$``); an unknown code is its own symbol."""
    return get_currency_symbol(code, locale="en_US")


@dataclass(frozen=True)
class MoneyFormat:
    """The store's currency settings, as used for every formatted amount.

    ``position`` is one of :data:`CURRENCY_POSITIONS`; ``suffix`` is the store's "price display
    suffix" (HTML allowed, sanitised when rendered), appended to every non-empty ``price_html``.
    """

    currency: str = "USD"
    symbol: str = "$"
    position: str = "left"
    thousand_separator: str = ","
    decimal_separator: str = "."
    decimals: int = 2
    suffix: str = ""

    def __post_init__(self) -> None:
        if self.position not in CURRENCY_POSITIONS:
            raise ValueError(
                f"currency position {self.position!r} is not one of "
                + ", ".join(CURRENCY_POSITIONS)
            )
        if self.decimals < 0:
            raise ValueError("decimals must not be negative")

    @classmethod
    def for_currency(
        cls,
        currency: str,
        *,
        position: str = "left",
        thousand_separator: str = ",",
        decimal_separator: str = ".",
        decimals: int = 2,
        suffix: str = "",
    ) -> MoneyFormat:
        """A format whose symbol is looked up with :func:`currency_symbol`."""
        return cls(
            currency=currency,
            symbol=currency_symbol(currency),
            position=position,
            thousand_separator=thousand_separator,
            decimal_separator=decimal_separator,
            decimals=decimals,
            suffix=suffix,
        )


def _number(amount: Decimal, fmt: MoneyFormat) -> tuple[bool, str]:
    """(negative, the unsigned number with the store's separators)."""
    rounded = round_money(amount, fmt.decimals)
    negative = rounded < 0
    text = f"{rounded.copy_abs():f}"
    whole, _, fraction = text.partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    number = fmt.thousand_separator.join(groups)
    if fmt.decimals:
        number += fmt.decimal_separator + fraction
    return negative, number


def _place(symbol: str, number: str, position: str, space: str) -> str:
    if position == "left":
        return symbol + number
    if position == "right":
        return number + symbol
    if position == "left_space":
        return symbol + space + number
    return number + space + symbol


@functools.lru_cache(maxsize=4096)
def format_money(amount: Decimal, fmt: MoneyFormat) -> str:
    """Plain-text money, e.g. ``$1,234.50``, ``1.234,50 €`` (``right_space``). A negative
    amount carries its minus sign in front of everything (``-$5.00``)."""
    negative, number = _number(amount, fmt)
    return ("-" if negative else "") + _place(fmt.symbol, number, fmt.position, " ")


@functools.lru_cache(maxsize=4096)  # prices repeat across a page (the format is hashable)
def amount_html(amount: Decimal, fmt: MoneyFormat) -> str:
    """One amount as HTML: ``<span class="amount">$10.00</span>`` (decisions.md §5).

    The symbol and separators are HTML-escaped; the space of the ``*_space`` positions is
    ``&nbsp;``, as in the original, so that a price never wraps between symbol and number.
    """
    negative, number = _number(amount, fmt)
    text = _place(html.escape(fmt.symbol), html.escape(number), fmt.position, "&nbsp;")
    return f'<span class="amount">{"-" if negative else ""}{text}</span>'


def _suffix_html(fmt: MoneyFormat) -> str:
    if not fmt.suffix:
        return ""
    return f' <small class="shop-price-suffix">{nh3.clean(fmt.suffix)}</small>'


def format_price_string(value: Decimal | None, decimals: int) -> str:
    """The ``price`` / ``regular_price`` output: fixed decimals, ``""`` when unset."""
    if value is None:
        return ""
    return format_decimal(value, decimals)


def format_optional(value: Decimal | None, decimals: int) -> str | None:
    """Fixed decimals, or ``None`` (JSON null) when unset: ``sale_price``, ``weight``."""
    if value is None:
        return None
    return format_decimal(value, decimals)


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------

_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def parse_decimal_input(value: object, *, decimal_separator: str = ".") -> Decimal | None:
    """A price, weight or dimension from a write payload.

    ``""`` (or only whitespace) clears the value (``None``). JSON numbers and numeric strings
    (``"19.99"``, ``"10"``, ``" .5 "``, ``"-1"``) give their exact ``Decimal``, not rounded.
    When the store's decimal separator is not ``.`` it is accepted too (``"10,50"`` with ``,``).
    Anything else (booleans, null, lists, ``"abc"``, ``"1e3"``, ``"NaN"``, ``"1,234.50"``)
    raises ``ValueError``. The sign is not checked here.
    """
    if isinstance(value, bool) or value is None:
        raise ValueError("must be a number or a numeric string")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return Decimal(repr(value))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError("must be a finite number")
        return value
    if not isinstance(value, str):
        raise ValueError("must be a number or a numeric string")
    text = value.strip()
    if text == "":
        return None
    if decimal_separator and decimal_separator != "." and "." not in text:
        text = text.replace(decimal_separator, ".", 1)
    if not _DECIMAL_TEXT.fullmatch(text):
        raise ValueError(f"{value!r} is not a number")
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the pattern admits only valid text
        raise ValueError(f"{value!r} is not a number") from exc


# --------------------------------------------------------------------------------------------
# Sale dates and the active price
# --------------------------------------------------------------------------------------------

_DATE_ONLY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATE_TIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)"
    r"(Z|z|[+-]\d{2}:?\d{2})?"
)


def _utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def parse_sale_date(text: object, end_of_day: bool = False) -> datetime | None:
    """A ``sale_price_dates_from`` / ``_to`` value as an aware UTC datetime.

    ``None`` or ``""`` → ``None`` (no date). ``YYYY-MM-DD`` is 00:00:00 UTC that day, or
    23:59:59 with ``end_of_day`` (decisions.md §7: a date-only ``to``). ``YYYY-MM-DDTHH:MM[:SS]``
    (``T`` or a space, optional fraction) with ``Z`` or an offset is converted to UTC; without
    an offset it is UTC. Anything else (other types, other layouts, impossible dates) raises
    ``ValueError``.
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise ValueError("a date must be a string")
    value = text.strip()
    if value == "":
        return None
    if match := _DATE_ONLY.fullmatch(value):
        year, month, day = (int(part) for part in match.groups())
        moment = datetime(year, month, day, tzinfo=UTC)  # ValueError on an impossible date
        return moment.replace(hour=23, minute=59, second=59) if end_of_day else moment
    if match := _DATE_TIME.fullmatch(value):
        day_text, time_text, offset = match.groups()
        if offset in (None, "Z", "z"):
            offset = "+00:00"
        elif ":" not in offset:
            offset = f"{offset[:3]}:{offset[3:]}"
        return _utc(datetime.fromisoformat(f"{day_text}T{time_text}{offset}"))
    raise ValueError(f"{text!r} is not a date (YYYY-MM-DD or an ISO 8601 date and time)")


def normalise_sale_dates(
    from_: datetime | None, to: datetime | None, now: datetime
) -> tuple[datetime | None, datetime | None]:
    """The sale window to store, given the *effective* dates (sent ones, else the stored ones):
    when only ``to`` is set, ``from`` becomes ``now`` (reference §6, the spec's write table)."""
    if to is not None and from_ is None:
        from_ = now
    return from_, to


def is_on_sale(
    regular: Decimal | None,
    sale: Decimal | None,
    sale_from: datetime | None,
    sale_to: datetime | None,
    now: datetime,
) -> bool:
    """The final rule (reference §2 ``on_sale``): a sale price is set, the regular price is
    set and above it, and ``now`` lies within [from, to] (both ends inclusive, each only when
    set)."""
    if sale is None or regular is None or not regular > sale:
        return False
    current = _utc(now)
    if sale_from is not None and _utc(sale_from) > current:
        return False
    return not (sale_to is not None and _utc(sale_to) < current)


def active_price(
    regular: Decimal | None,
    sale: Decimal | None,
    sale_from: datetime | None,
    sale_to: datetime | None,
    now: datetime,
) -> Decimal | None:
    """The ``price``: the sale price while on sale, otherwise the regular price (``None`` when
    that is unset)."""
    return sale if is_on_sale(regular, sale, sale_from, sale_to, now) else regular


# --------------------------------------------------------------------------------------------
# price_html
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PricePoint:
    """What ``price_html`` needs to know about one product or variation: its active price, its
    regular price and whether it is on sale (see :func:`price_point`)."""

    price: Decimal | None
    regular: Decimal | None = None
    on_sale: bool = False


def price_point(
    regular: Decimal | None,
    sale: Decimal | None,
    sale_from: datetime | None,
    sale_to: datetime | None,
    now: datetime,
) -> PricePoint:
    """The :class:`PricePoint` of a product with these stored prices and sale window."""
    on_sale = is_on_sale(regular, sale, sale_from, sale_to, now)
    return PricePoint(price=sale if on_sale else regular, regular=regular, on_sale=on_sale)


def _sale_html(regular: Decimal, price: Decimal, fmt: MoneyFormat) -> str:
    return f"<del>{amount_html(regular, fmt)}</del> <ins>{amount_html(price, fmt)}</ins>"


def _range_html(low: Decimal, high: Decimal, fmt: MoneyFormat) -> str:
    return f"{amount_html(low, fmt)}{_EN_DASH}{amount_html(high, fmt)}"


def price_html(
    kind: str,
    fmt: MoneyFormat,
    point: PricePoint | None = None,
    children: Sequence[PricePoint] = (),
) -> str:
    """The ``price_html`` field (reference §2.1, "final"; decisions.md §5).

    * ``simple``, ``external``, ``variation`` use ``point``: ``""`` when it has no price;
      ``<del>{regular}</del> <ins>{price}</ins>`` when on sale; otherwise the price.
    * ``variable`` uses ``children`` (its *visible* variations; unpriced ones are ignored):
      ``{min}–{max}`` (en dash, no spaces) when the prices differ; else, when any child is on
      sale and all regular prices are equal, the del/ins pair; else the single price;
      ``""`` when no child has a price.
    * ``grouped`` uses ``children`` (its visible children): the ``{min}–{max}`` range or the
      single price; ``Free!`` when every price is 0 (the final original); ``""`` when none
      has a price.

    Every amount is an :func:`amount_html`; the store's suffix, when not empty, follows every
    non-empty result (except ``Free!``) as `` <small class="shop-price-suffix">…</small>``.
    An unknown ``kind`` raises ``ValueError``.
    """
    if kind in _OWN_PRICE_KINDS:
        if point is None or point.price is None:
            return ""
        if point.on_sale and point.regular is not None:
            body = _sale_html(point.regular, point.price, fmt)
        else:
            body = amount_html(point.price, fmt)
        return body + _suffix_html(fmt)
    if kind not in ("variable", "grouped"):
        raise ValueError(f"unknown product kind {kind!r}")
    priced = [child for child in children if child.price is not None]
    if not priced:
        return ""
    prices = [child.price for child in priced if child.price is not None]
    low, high = min(prices), max(prices)
    if kind == "grouped" and low == 0 and high == 0:
        return _FREE
    if low != high:
        body = _range_html(low, high, fmt)
    else:
        regulars = {child.regular for child in priced}
        regular = next(iter(regulars))
        if (
            kind == "variable"
            and len(regulars) == 1
            and regular is not None
            and any(child.on_sale for child in priced)
        ):
            body = _sale_html(regular, low, fmt)
        else:
            body = amount_html(low, fmt)
    return body + _suffix_html(fmt)
