"""Pure tax engine: cleaning rate input, matching rates to an address, computing taxes.

Where the rules come from (decisions.md wins over the reference where they differ):

* ``/work/shared/reference/core.md`` §9.3 -- normalisation of a rate on save (country, state,
  rate, name, priority) and the cleaning of its postcode / city lists;
* core.md §9.7 -- matching rates to an address (the 3.x ``WC_Tax::find_rates`` rules: postcode
  wildcards and ``low...high`` ranges, the location rule, one rate per priority);
* core.md §9.8 -- tax arithmetic (3.x ``calc_tax``: compound taxes on top of everything before
  them, inclusive prices unwound compound-first);
* ``/work/shared/spec/decisions.md`` §4 and §7 "Tax arithmetic" -- the tie-break order within a
  priority, 6-decimal rounding of tax amounts (half up, half down when prices include tax) and
  "half away from zero" for output.

Everything here is pure: no I/O, no database, ``Decimal`` for every amount and rate.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal, localcontext
from typing import Literal

from slugify import slugify

from shopsvc.domain.money import format_decimal, round_money

__all__ = [
    "TAX_DECIMALS",
    "Address",
    "TaxRate",
    "calc_tax",
    "clean_locations",
    "clean_text",
    "exclusive_taxes",
    "find_rates",
    "format_postcode",
    "format_rate",
    "normalise_country",
    "normalise_postcode",
    "normalise_priority",
    "normalise_state",
    "postcode_candidates",
    "round_money",
    "round_tax",
    "shipping_rates",
    "tax_class_slug",
    "tax_name",
]

#: Decimals every computed tax amount is rounded to (decisions.md §7 "Tax arithmetic").
TAX_DECIMALS = 6

_PHP_TRIM = " \t\n\r\0\x0b"  # the characters PHP's trim() removes
_PHP_SPACE = " \t\n\r\v\f"  # the whitespace PHP allows around a numeric string
_PHP_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_STANDARD_CLASS = "standard"


# --------------------------------------------------------------------------------------------
# Data types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaxRate:
    """A stored tax rate. ``tax_class`` ``""`` is the standard class; ``rate`` is a percentage."""

    id: int
    country: str
    state: str
    rate: Decimal
    name: str
    priority: int
    compound: bool
    shipping: bool
    order: int
    tax_class: str
    postcodes: tuple[str, ...] = ()
    cities: tuple[str, ...] = ()


@dataclass(frozen=True)
class Address:
    """The address taxes are matched against (billing, shipping or store, per ``tax_based_on``)."""

    country: str
    state: str = ""
    postcode: str = ""
    city: str = ""


# --------------------------------------------------------------------------------------------
# Input cleaning for storing a rate (core.md §9.3)
# --------------------------------------------------------------------------------------------

_SCRIPT_OR_STYLE = re.compile(r"<(script|style)[^>]*?>.*?</\1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_LINE_WHITESPACE = re.compile(r"[\r\n\t ]+")
_PERCENT_OCTET = re.compile(r"%[a-f0-9]{2}", re.IGNORECASE)
_SPACES = re.compile(r" +")


def clean_text(value: str) -> str:
    """Text-clean one string like WordPress' ``sanitize_text_field``.

    Tags are stripped (``<script>``/``<style>`` with their content), runs of spaces, tabs and
    newlines collapse to one space, the ends are trimmed and percent-octets such as ``%20`` are
    removed (repeatedly, so ``%%2020`` disappears too). A lone ``<`` that opens no tag is kept.
    """
    text = _TAG.sub("", _SCRIPT_OR_STYLE.sub("", value)) if "<" in value else value
    text = _LINE_WHITESPACE.sub(" ", text).strip(_PHP_TRIM)
    found = False
    while match := _PERCENT_OCTET.search(text):
        text = text.replace(match.group(0), "")
        found = True
    if found:
        text = _SPACES.sub(" ", text).strip(_PHP_TRIM)
    return text


def _scalar_text(value: object) -> str | None:
    """A list entry as text: strings as they are, other scalars as PHP would print them."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else ""
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    return None  # None, nested lists and objects are not locations


def clean_locations(
    value: str | list[object] | tuple[object, ...] | None,
    kind: Literal["postcode", "city"],
) -> list[str]:
    """Clean a rate's postcode or city input into the list of entries to store.

    ``value`` is a ``;``-separated string or a list (only ``;`` separates; list entries are not
    split). Each entry is text-cleaned, trimmed and upper-cased; for postcodes the ellipsis
    character becomes ``...``. Empty entries and a lone ``*`` are dropped; duplicates are kept;
    ``low...high`` ranges and trailing-``*`` wildcards are kept as written.
    """
    if value is None:
        return []
    if isinstance(value, str):
        raw_entries = clean_text(value).split(";")
    else:
        texts = (_scalar_text(item) for item in value)
        raw_entries = [clean_text(text) for text in texts if text is not None]

    entries = []
    for entry in raw_entries:
        if kind == "postcode":
            entry = entry.replace("\u2026", "...")
        entry = entry.strip(_PHP_TRIM).upper()
        if entry and entry != "*":
            entries.append(entry)
    return entries


def normalise_country(value: str) -> str:
    """Rate country on save: upper-cased, ``*`` (any country) stored as ``""``."""
    country = value.upper()
    return "" if country == "*" else country


def normalise_state(value: str) -> str:
    """Rate state on save (3.x): keep only letters, digits, ``_`` and ``-``, then upper-case.

    This is WordPress' ``sanitize_key`` (lower-case, drop other characters) followed by
    upper-casing, so ``*`` (any state) becomes ``""``.
    """
    return re.sub(r"[^A-Za-z0-9_\-]", "", value).upper()


_PHP_NUMBER_PREFIX = re.compile(f"[{_PHP_SPACE}]*({_PHP_NUMBER})")
_MAX_INT = 2**63 - 1


def normalise_priority(value: object) -> int:
    """Rate priority on save: PHP ``absint`` -- the absolute value of the integer read from it.

    Strings use their leading number (``"3abc"`` -> 3, ``"-2"`` -> 2, ``"abc"`` -> 0);
    fractions are truncated; anything unreadable is 0.
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return min(abs(value), _MAX_INT)
    if isinstance(value, str):
        match = _PHP_NUMBER_PREFIX.match(value)
        if match is None:
            return 0
        value = Decimal(match.group(1))
    if isinstance(value, (float, Decimal)):
        number = Decimal(value)
        if not number.is_finite():
            return 0
        if number.adjusted() >= 19:
            return _MAX_INT
        return min(abs(int(number)), _MAX_INT)
    return 0


def format_rate(value: Decimal) -> str:
    """A rate as stored and shown: 4 decimals (half up), ``.`` separator, no thousands separator."""
    return format_decimal(value, 4)


def tax_name(value: str | None) -> str:
    """Rate name on save: an empty name becomes ``"Tax"``."""
    return value if value else "Tax"


# Characters the WordPress title sanitiser drops outright (rather than turning into ``-``).
_SLUG_DROPPED = re.compile(r"[^\w\s.\-]")


def tax_class_slug(value: str) -> str:
    """The slug of a tax class name or of a class given as input (core.md §9.6 "Slug rule").

    Text-cleaned (tags and percent-octets removed), punctuation dropped, accents transliterated,
    lower-cased; spaces, dots and runs of anything else outside ``a-z 0-9 _ -`` become one ``-``;
    leading and trailing ``-`` trimmed. ``"Reduced Rate"`` -> ``"reduced-rate"``. The slugs of
    the last few short values are remembered (a bulk names the same classes again and again).
    """
    if len(value) <= _REMEMBERED_LENGTH:
        return _remembered_slug(value)
    return _slug(value)


#: Values up to this length have their slug remembered (never a long hostile string).
_REMEMBERED_LENGTH = 200


def _slug(value: str) -> str:
    text = _SLUG_DROPPED.sub("", clean_text(value))
    return slugify(text, regex_pattern=r"[^-a-z0-9_]+")


_remembered_slug = functools.lru_cache(maxsize=256)(_slug)


# --------------------------------------------------------------------------------------------
# Postcodes (core.md §9.7 step 2)
# --------------------------------------------------------------------------------------------

_POSTCODE_JUNK = re.compile(r"[\s\-]")
_LV_DIGITS = re.compile(r"(?:LV)?-?([0-9]+)", re.IGNORECASE)
_DK_PREFIX = re.compile(r"^(DK)(.+)$")


def normalise_postcode(postcode: str) -> str:
    """Upper-case a postcode and remove every space and dash (``"sw1a 1aa"`` -> ``"SW1A1AA"``)."""
    return _POSTCODE_JUNK.sub("", postcode.strip(_PHP_TRIM).upper())


def _insert(text: str, position: int, separator: str) -> str:
    """Insert ``separator`` at ``position`` (negative counts from the end), like PHP's
    ``substr_replace($text, $separator, $position, 0)``: short strings get it at an end."""
    return text[:position] + separator + text[position:]


def format_postcode(country: str, postcode: str) -> str:
    """Normalise a postcode, then write it the way the country does (``GB``: ``SW1A 1AA``)."""
    code = normalise_postcode(postcode)
    country = country.upper()
    if country in ("CA", "GB"):
        code = _insert(code, -3, " ")
    elif country == "IE":
        code = _insert(code, 3, " ")
    elif country in ("BR", "PL"):
        code = _insert(code, -3, "-")
    elif country == "JP":
        code = _insert(code, 3, "-")
    elif country == "PT":
        code = _insert(code, 4, "-")
    elif country in ("US", "PR"):
        code = _insert(code, 5, "-").rstrip("-")
    elif country == "NL":
        code = _insert(code, 4, " ")
    elif country == "LV":
        match = _LV_DIGITS.search(code)
        if match:
            code = "LV-" + match.group(1)
    elif country == "DK":
        match = _DK_PREFIX.match(code)
        if match:
            code = match.group(1) + "-" + match.group(2)
    return code.strip(_PHP_TRIM)


def postcode_candidates(country: str, postcode: str) -> list[str]:
    """Every stored postcode string that matches this customer postcode exactly.

    The normalised code, the country-formatted code, the formatted code + ``*``, then each
    shorter prefix of the formatted code + ``*``, down to ``*`` alone. Duplicates are removed,
    first occurrence kept.
    """
    normalised = normalise_postcode(postcode)
    formatted = format_postcode(country, normalised)
    candidates = [normalised, formatted, formatted + "*"]
    candidates += [formatted[:-cut] + "*" for cut in range(1, len(formatted) + 1)]
    return list(dict.fromkeys(candidates))


# --------------------------------------------------------------------------------------------
# Postcode ranges (core.md §9.7 step 3)
# --------------------------------------------------------------------------------------------

_PHP_NUMERIC = re.compile(f"[{_PHP_SPACE}]*{_PHP_NUMBER}[{_PHP_SPACE}]*")


def _php_number(text: str) -> Decimal | None:
    """The number a PHP numeric string stands for, or ``None`` if PHP would not see a number."""
    if _PHP_NUMERIC.fullmatch(text) is None:
        return None
    return Decimal(text.strip(_PHP_SPACE))


def _php_less_or_equal(left: str, right: str) -> bool:
    """PHP's ``$left <= $right`` for two strings: numeric when both are numeric, else bytewise."""
    left_number, right_number = _php_number(left), _php_number(right)
    if left_number is not None and right_number is not None:
        return left_number <= right_number
    return left <= right  # code-point order is UTF-8 byte order


def _numeric_postcode(postcode: str) -> str:
    """Two digits per byte: a digit ``d`` is ``0d``, ``A``-``Z`` are ``01``-``26``, others ``00``.

    Spaces and dashes are removed first (``wc_make_numeric_postcode``).
    """
    digits = []
    for byte in postcode.replace(" ", "").replace("-", "").encode():
        char = chr(byte)
        if "0" <= char <= "9":
            digits.append("0" + char)
        elif "A" <= char <= "Z":
            digits.append(f"{byte - ord('A') + 1:02d}")
        else:
            digits.append("00")
    return "".join(digits)


def _in_postcode_range(postcode: str, stored: str) -> bool:
    """Whether the normalised customer ``postcode`` lies in a stored ``low...high`` range.

    Both ends numeric: ``postcode`` is compared as it is. Otherwise all three become numeric
    postcodes and ``low``/``high`` are right-padded with ``0`` to the customer code's length.
    A value with more than one ``...`` is no range and matches nothing.
    """
    parts = [part.strip(_PHP_TRIM) for part in stored.split("...")]
    if len(parts) != 2:
        return False
    low, high = parts
    if _php_number(low) is None or _php_number(high) is None:
        postcode = _numeric_postcode(postcode)
        low = _numeric_postcode(low).ljust(len(postcode), "0")
        high = _numeric_postcode(high).ljust(len(postcode), "0")
    return _php_less_or_equal(low, postcode) and _php_less_or_equal(postcode, high)


# --------------------------------------------------------------------------------------------
# Matching rates to an address (core.md §9.7, decisions.md §7)
# --------------------------------------------------------------------------------------------


def _location_matches(rate: TaxRate, accepted: set[str], postcode: str, city: str) -> bool:
    """The location rule: no locations at all, or a matching postcode (and a matching city if
    the rate lists cities), or a matching city when the rate lists no postcodes."""
    postcode_hit = any(
        code in accepted or ("..." in code and _in_postcode_range(postcode, code))
        for code in rate.postcodes
    )
    city_hit = any(stored.upper() == city for stored in rate.cities)
    if not rate.postcodes:
        return not rate.cities or city_hit
    return postcode_hit and (city_hit or not rate.cities)


def _sort_key(rate: TaxRate) -> tuple[int, bool, str, bool, str, int, int, int]:
    """Priority ascending; specific country, then specific state before "any"; more postcodes,
    then more cities first; lower id."""
    return (
        rate.priority,
        rate.country == "",
        rate.country,
        rate.state == "",
        rate.state,
        -len(rate.postcodes),
        -len(rate.cities),
        rate.id,
    )


def find_rates(rates: Iterable[TaxRate], address: Address, tax_class: str = "") -> list[TaxRate]:
    """The rates that apply to ``address`` for ``tax_class`` (``""`` or ``"standard"``: the
    standard class), best first, one rate per priority."""
    country = address.country.upper()
    if not country:
        return []
    state = address.state.upper()
    city = address.city.upper()
    wanted_class = "" if tax_class == _STANDARD_CLASS else tax_class
    postcode = normalise_postcode(clean_text(address.postcode))
    accepted = set(postcode_candidates(country, postcode))

    candidates = [
        rate
        for rate in rates
        if rate.country in (country, "")
        and rate.state in (state, "")
        and rate.tax_class == wanted_class
        and _location_matches(rate, accepted, postcode, city)
    ]

    chosen: list[TaxRate] = []
    seen_priorities: set[int] = set()
    for rate in sorted(candidates, key=_sort_key):
        if rate.priority not in seen_priorities:
            seen_priorities.add(rate.priority)
            chosen.append(rate)
    return chosen


def shipping_rates(
    rates: Iterable[TaxRate], address: Address, tax_class: str = ""
) -> list[TaxRate]:
    """The rates of :func:`find_rates` that apply to shipping.

    The filter runs after the one-rate-per-priority choice, as in the original: a priority
    whose winning rate is not a shipping rate adds no shipping tax.
    """
    return [rate for rate in find_rates(rates, address, tax_class) if rate.shipping]


# --------------------------------------------------------------------------------------------
# Tax computation (core.md §9.8, decisions.md §7)
# --------------------------------------------------------------------------------------------


def round_tax(amount: Decimal, prices_include_tax: bool) -> Decimal:
    """A tax amount at :data:`TAX_DECIMALS` decimals: half up, or half down when prices
    include tax."""
    rounding = ROUND_HALF_DOWN if prices_include_tax else ROUND_HALF_UP
    with localcontext() as ctx:
        ctx.prec = 60
        return Decimal(amount).quantize(Decimal(1).scaleb(-TAX_DECIMALS), rounding=rounding)


def exclusive_taxes(price: Decimal, rates: Sequence[TaxRate]) -> dict[int, Decimal]:
    """Regular rates on the price; then each compound rate, in order, on the price plus every
    tax so far (earlier compound taxes included)."""
    taxes = {rate.id: Decimal(0) for rate in rates}
    for rate in rates:
        if not rate.compound:
            taxes[rate.id] = price * rate.rate / 100
    running_total = sum(taxes.values(), Decimal(0))
    for rate in rates:
        if rate.compound:
            taxes[rate.id] = (price + running_total) * rate.rate / 100
            running_total += taxes[rate.id]
    return taxes


def _inclusive_taxes(price: Decimal, rates: Sequence[TaxRate]) -> dict[int, Decimal]:
    """Compound taxes come out first, last rate first, each ``p - p / (1 + r)`` of the running
    price ``p``; the regular rates then share what is left in proportion to their rates."""
    taxes = {rate.id: Decimal(0) for rate in rates}
    remaining = price
    for rate in reversed([rate for rate in rates if rate.compound]):
        tax = remaining * rate.rate / (100 + rate.rate)  # == p - p / (1 + r/100)
        taxes[rate.id] = tax
        remaining -= tax
    regular = [rate for rate in rates if not rate.compound]
    regular_total = sum((rate.rate for rate in regular), Decimal(0))
    for rate in regular:
        # (r/100) / (1 + R/100) * remaining, written to stay exact where it can
        taxes[rate.id] = remaining * rate.rate / (100 + regular_total)
    return taxes


def calc_tax(
    price: Decimal, rates: Sequence[TaxRate], prices_include_tax: bool
) -> dict[int, Decimal]:
    """Tax per rate id, in the order of ``rates``, each rounded to :data:`TAX_DECIMALS`.

    ``price`` excludes tax unless ``prices_include_tax``, in which case the taxes are the part
    of ``price`` that is tax.
    """
    with localcontext() as ctx:
        ctx.prec = 60
        price = Decimal(price)
        if prices_include_tax:
            taxes = _inclusive_taxes(price, rates)
        else:
            taxes = exclusive_taxes(price, rates)
    return {rate_id: round_tax(tax, prices_include_tax) for rate_id, tax in taxes.items()}
