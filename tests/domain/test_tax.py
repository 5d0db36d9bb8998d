"""Unit tests of the pure tax engine (reference core.md §9.3, §9.7, §9.8; decisions.md §4, §7).

Every expected value below was worked out by hand from those rules, not by running the code.
"""

from decimal import Decimal

import pytest

from shopsvc.domain.tax import (
    Address,
    TaxRate,
    calc_tax,
    clean_locations,
    clean_text,
    find_rates,
    format_postcode,
    format_rate,
    normalise_country,
    normalise_postcode,
    normalise_priority,
    normalise_state,
    postcode_candidates,
    round_tax,
    shipping_rates,
    tax_name,
)
from tests.helpers.taxes import tax_rate


def _ids(rates: list[TaxRate]) -> list[int]:
    return [rate.id for rate in rates]


# --------------------------------------------------------------------------------------------
# Postcode normalising and country formats
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" sw1a 1aa ", "SW1A1AA"),
        ("90210-1234", "902101234"),
        ("a\tb-c d", "ABCD"),
        ("", ""),
    ],
)
def test_normalise_postcode(raw: str, expected: str) -> None:
    assert normalise_postcode(raw) == expected


@pytest.mark.parametrize(
    ("country", "postcode", "expected"),
    [
        ("GB", "sw1a1aa", "SW1A 1AA"),
        ("GB", "SW1A 1AA", "SW1A 1AA"),
        ("GB", "sw1a-1aa", "SW1A 1AA"),
        ("gb", "sw1a1aa", "SW1A 1AA"),  # country upper-cased first
        ("CA", "k1a0b1", "K1A 0B1"),
        ("IE", "d02x285", "D02 X285"),
        ("BR", "01310100", "01310-100"),
        ("PL", "00950", "00-950"),
        ("JP", "1000001", "100-0001"),
        ("PT", "1000001", "1000-001"),
        ("US", "902101234", "90210-1234"),
        ("US", "90210", "90210"),  # "90210-" with the trailing dash removed
        ("PR", "00901", "00901"),
        ("PR", "00901 1234", "00901-1234"),
        ("NL", "1234ab", "1234 AB"),
        ("LV", "1050", "LV-1050"),
        ("LV", "lv-1050", "LV-1050"),
        ("LV", "LV", "LV"),  # no digits: unchanged
        ("DK", "dk1234", "DK-1234"),
        ("DK", "1234", "1234"),
        ("DE", "10115", "10115"),
        ("FR", " 75 001 ", "75001"),
        ("", "ab 12", "AB12"),
        # short codes: the separator lands at an end, then only whitespace is trimmed
        ("GB", "AB", "AB"),
        ("IE", "D0", "D0"),
        ("JP", "12", "12-"),
        ("BR", "12", "-12"),
        ("US", "123", "123"),
    ],
)
def test_format_postcode(country: str, postcode: str, expected: str) -> None:
    assert format_postcode(country, postcode) == expected


@pytest.mark.parametrize(
    ("country", "postcode", "expected"),
    [
        (
            "GB",
            "sw1a 1aa",
            [
                "SW1A1AA",
                "SW1A 1AA",
                "SW1A 1AA*",
                "SW1A 1A*",
                "SW1A 1*",
                "SW1A *",
                "SW1A*",
                "SW1*",
                "SW*",
                "S*",
                "*",
            ],
        ),
        ("US", "90210", ["90210", "90210*", "9021*", "902*", "90*", "9*", "*"]),
        (
            "NL",
            "1234ab",
            [
                "1234AB",
                "1234 AB",
                "1234 AB*",
                "1234 A*",
                "1234 *",
                "1234*",
                "123*",
                "12*",
                "1*",
                "*",
            ],
        ),
        ("DE", "", ["", "*"]),
    ],
)
def test_postcode_candidates(country: str, postcode: str, expected: list[str]) -> None:
    assert postcode_candidates(country, postcode) == expected


# --------------------------------------------------------------------------------------------
# Matching: country, state, class
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate_fields", "address", "tax_class", "matches"),
    [
        ({"country": "GB"}, Address("gb"), "", True),
        ({"country": "FR"}, Address("GB"), "", False),
        ({"country": ""}, Address("GB"), "", True),
        ({"country": ""}, Address(""), "", False),  # no country, no rates
        ({"country": "US", "state": "CA"}, Address("US", "ca"), "", True),
        ({"country": "US", "state": "NY"}, Address("US", "CA"), "", False),
        ({"country": "US", "state": "CA"}, Address("US", ""), "", False),
        ({"country": "US", "state": ""}, Address("US", "CA"), "", True),
        ({"tax_class": "reduced-rate"}, Address("GB"), "", False),
        ({"tax_class": "reduced-rate"}, Address("GB"), "reduced-rate", True),
        ({"tax_class": ""}, Address("GB"), "reduced-rate", False),
        ({"tax_class": ""}, Address("GB"), "standard", True),
    ],
)
def test_candidate_filters(
    rate_fields: dict[str, object], address: Address, tax_class: str, matches: bool
) -> None:
    found = find_rates([tax_rate(1, **rate_fields)], address, tax_class)
    assert _ids(found) == ([1] if matches else [])


# --------------------------------------------------------------------------------------------
# Matching: postcode wildcards
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "matches"),
    [
        ("SW1A 1AA", True),
        ("SW1A1AA", True),
        ("SW1A 1AA*", True),
        ("SW1A 1*", True),
        ("SW1A*", True),
        ("SW*", True),
        ("SW1A1*", False),  # prefixes come from the formatted code, which has the space
        ("SW1B*", False),
        ("W1*", False),
        ("SW1A 1AB", False),
    ],
)
def test_gb_postcode_wildcards(stored: str, matches: bool) -> None:
    rate = tax_rate(1, country="GB", postcodes=(stored,))
    found = find_rates([rate], Address("GB", postcode="sw1a 1aa"))
    assert _ids(found) == ([1] if matches else [])


def test_a_rate_matches_if_any_of_its_postcodes_does() -> None:
    rate = tax_rate(1, country="US", postcodes=("10001", "9021*", "30301"))
    assert _ids(find_rates([rate], Address("US", postcode="90210"))) == [1]
    assert _ids(find_rates([rate], Address("US", postcode="90310"))) == []


# --------------------------------------------------------------------------------------------
# Matching: postcode ranges
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("country", "stored", "postcode", "matches"),
    [
        ("US", "90210...90299", "90210", True),  # ends are inclusive
        ("US", "90210...90299", "90299", True),
        ("US", "90210...90299", "90250", True),
        ("US", "90210...90299", "90300", False),
        ("US", "90210...90299", "90209", False),
        ("US", "90210 ... 90299", "90250", True),  # ends trimmed
        ("US", "01000...01999", "01500", True),  # numeric compare: 1000 <= 1500 <= 1999
        ("US", "90210...90299", "90250-1234", False),  # 902501234 > 90299 numerically
        ("US", "1...5...9", "3", False),  # two "..." is no range
        # alphanumeric: two digits per character, low/high right-padded with 0
        # SW1A5BB -> 19230101050202, between 19230101010101 and 19230101092626
        ("GB", "SW1A 1AA...SW1A 9ZZ", "sw1a 5bb", True),
        # SW1B1AA -> 19230102010101 > 19230101092626
        ("GB", "SW1A 1AA...SW1A 9ZZ", "SW1B 1AA", False),
        # AB5XY -> 0102052425; AB1 -> 010201 -> 0102010000; AB9 -> 010209 -> 0102090000
        ("DE", "AB1...AB9", "ab5xy", True),
        # AB95 -> 01020905 > 01020900 (AB9 padded to 8 digits)
        ("DE", "AB1...AB9", "AB95", False),
        ("DE", "AB1...AB9", "AB1", True),  # 010201 == 010201
        ("DE", "AB1...AB9", "AA9", False),  # 010109 < 010201
    ],
)
def test_postcode_ranges(country: str, stored: str, postcode: str, matches: bool) -> None:
    rate = tax_rate(1, country=country, postcodes=(stored,))
    found = find_rates([rate], Address(country, postcode=postcode))
    assert _ids(found) == ([1] if matches else [])


# --------------------------------------------------------------------------------------------
# Matching: cities and the location rule
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("postcodes", "cities", "postcode", "city", "matches"),
    [
        ((), (), "E1 6AN", "Leeds", True),  # no locations: always
        ((), ("LONDON",), "E1 6AN", "london", True),  # city only, case-insensitive
        ((), ("LONDON",), "SW1A 1AA", "Paris", False),
        ((), ("LONDON",), "SW1A 1AA", "", False),
        ((), ("LEEDS", "LONDON"), "", "London", True),
        (("SW1A*",), (), "SW1A 1AA", "Paris", True),  # postcode only: any city
        (("SW1A*",), (), "E1 6AN", "London", False),
        (("SW1A*",), ("LONDON",), "SW1A 1AA", "London", True),  # both must match
        (("SW1A*",), ("LONDON",), "SW1A 1AA", "Paris", False),
        (("SW1A*",), ("LONDON",), "E1 6AN", "London", False),
        (("SW1A*",), ("LONDON",), "SW1A 1AA", "", False),
    ],
)
def test_location_rule(
    postcodes: tuple[str, ...], cities: tuple[str, ...], postcode: str, city: str, matches: bool
) -> None:
    rate = tax_rate(1, country="GB", postcodes=postcodes, cities=cities)
    found = find_rates([rate], Address("GB", postcode=postcode, city=city))
    assert _ids(found) == ([1] if matches else [])


# --------------------------------------------------------------------------------------------
# One rate per priority and the tie-break order
# --------------------------------------------------------------------------------------------

BEVERLY_HILLS = Address("US", "CA", "90210", "Beverly Hills")


@pytest.mark.parametrize(
    ("rates", "expected"),
    [
        pytest.param([tax_rate(1, priority=2), tax_rate(2, priority=1)], [2, 1], id="priority-asc"),
        pytest.param(
            [tax_rate(1, country=""), tax_rate(2, country="US")], [2], id="specific-country-first"
        ),
        pytest.param(
            [tax_rate(1, country="US"), tax_rate(2, country="US", state="CA")],
            [2],
            id="specific-state-first",
        ),
        pytest.param(
            [tax_rate(1, country="US"), tax_rate(2, state="CA")], [1], id="country-before-state"
        ),
        pytest.param(
            [tax_rate(1, postcodes=("90210",)), tax_rate(2, postcodes=("90210", "90211"))],
            [2],
            id="more-postcodes-first",
        ),
        pytest.param(
            [
                tax_rate(1, cities=("BEVERLY HILLS",)),
                tax_rate(2, cities=("BEVERLY HILLS", "LOS ANGELES")),
            ],
            [2],
            id="more-cities-first",
        ),
        pytest.param(
            [
                tax_rate(1, postcodes=("90210",), cities=("BEVERLY HILLS", "X", "Y")),
                tax_rate(2, postcodes=("90210", "90211")),
            ],
            [2],
            id="postcodes-before-cities",
        ),
        pytest.param(
            [tax_rate(1, state="CA"), tax_rate(2, postcodes=("90210", "90211"))],
            [1],
            id="state-before-postcodes",
        ),
        pytest.param([tax_rate(5), tax_rate(3)], [3], id="lower-id"),
        pytest.param([tax_rate(1, order=9), tax_rate(2, order=0)], [1], id="order-ignored"),
        pytest.param(
            [
                tax_rate(1, priority=1),
                tax_rate(2, priority=1, country="US"),
                tax_rate(3, priority=2),
                tax_rate(4, priority=2, state="CA"),
            ],
            [2, 4],
            id="one-per-priority",
        ),
        pytest.param(
            [tax_rate(1, country="FR"), tax_rate(2)], [2], id="non-matching-rate-cannot-win"
        ),
    ],
)
def test_one_rate_per_priority(rates: list[TaxRate], expected: list[int]) -> None:
    assert _ids(find_rates(rates, BEVERLY_HILLS)) == expected


def test_find_rates_accepts_any_iterable() -> None:
    rates = (rate for rate in [tax_rate(1, priority=2), tax_rate(2, priority=1)])
    assert _ids(find_rates(rates, BEVERLY_HILLS)) == [2, 1]


@pytest.mark.parametrize(
    ("rates", "expected"),
    [
        pytest.param(
            [tax_rate(1, priority=1, shipping=True), tax_rate(2, priority=2, shipping=False)],
            [1],
            id="non-shipping-dropped",
        ),
        pytest.param(
            [tax_rate(1, country="US", shipping=False), tax_rate(2, shipping=True)],
            [],
            id="filter-after-priority-choice",
        ),
    ],
)
def test_shipping_rates(rates: list[TaxRate], expected: list[int]) -> None:
    assert _ids(shipping_rates(rates, BEVERLY_HILLS)) == expected


# --------------------------------------------------------------------------------------------
# Tax computation
# --------------------------------------------------------------------------------------------


def _compound(rate_id: int, percent: str) -> TaxRate:
    return tax_rate(rate_id, rate=Decimal(percent), compound=True)


def _regular(rate_id: int, percent: str) -> TaxRate:
    return tax_rate(rate_id, rate=Decimal(percent))


def _as_text(taxes: dict[int, Decimal]) -> list[tuple[int, str]]:
    return [(rate_id, str(amount)) for rate_id, amount in taxes.items()]


@pytest.mark.parametrize(
    ("price", "rates", "expected"),
    [
        pytest.param("100", [_regular(1, "10")], [(1, "10.000000")], id="simple"),
        pytest.param(
            "100",
            [_regular(1, "10"), _regular(2, "5")],
            [(1, "10.000000"), (2, "5.000000")],
            id="two-regular",
        ),
        pytest.param(
            "100",
            [_regular(1, "10"), _compound(2, "5")],
            [(1, "10.000000"), (2, "5.500000")],  # 5% of 110
            id="compound",
        ),
        pytest.param(
            "100",
            [_regular(1, "10"), _compound(2, "5"), _compound(3, "2")],
            # 2% of (100 + 10 + 5.5): earlier compound tax included (3.x)
            [(1, "10.000000"), (2, "5.500000"), (3, "2.310000")],
            id="compound-on-compound",
        ),
        pytest.param(
            "100",
            [_compound(2, "5"), _regular(1, "10")],
            [(2, "5.500000"), (1, "10.000000")],  # compound still on top, output in rate order
            id="compound-listed-first",
        ),
        pytest.param("19.99", [_regular(1, "20")], [(1, "3.998000")], id="plain-decimals"),
        pytest.param("33.33", [_regular(1, "7.25")], [(1, "2.416425")], id="six-decimals"),
        # 19.95 * 7.251% = 1.4465745: a tie at the 7th decimal, half up
        pytest.param("19.95", [_regular(1, "7.251")], [(1, "1.446575")], id="tie-half-up"),
        pytest.param("0.000002", [_regular(1, "25")], [(1, "0.000001")], id="tiny-tie-half-up"),
        pytest.param("0", [_regular(1, "10")], [(1, "0.000000")], id="zero-price"),
        pytest.param("100", [], [], id="no-rates"),
    ],
)
def test_calc_tax_exclusive(price: str, rates: list[TaxRate], expected: list) -> None:
    assert _as_text(calc_tax(Decimal(price), rates, prices_include_tax=False)) == expected


@pytest.mark.parametrize(
    ("price", "rates", "expected"),
    [
        pytest.param("110", [_regular(1, "10")], [(1, "10.000000")], id="simple"),
        pytest.param(
            "115",
            [_regular(1, "10"), _regular(2, "5")],
            [(1, "10.000000"), (2, "5.000000")],  # 115 * 10/115 and 115 * 5/115
            id="two-regular",
        ),
        pytest.param(
            "115.5",
            [_regular(1, "10"), _compound(2, "5")],
            # compound first: 115.5 * 5/105 = 5.5, leaving 110; then 110 * 10/110 = 10
            [(1, "10.000000"), (2, "5.500000")],
            id="compound",
        ),
        pytest.param(
            "117.81",
            [_regular(1, "10"), _compound(2, "5"), _compound(3, "2")],
            # reverse order: 117.81 * 2/102 = 2.31 -> 115.5; * 5/105 = 5.5 -> 110; 10
            [(1, "10.000000"), (2, "5.500000"), (3, "2.310000")],
            id="two-compound-reverse-order",
        ),
        pytest.param(
            "100",
            [_regular(1, "10"), _compound(2, "5")],
            # 100 * 5/105 = 4.7619047619... ; (100 - that) * 10/110 = 8.6580086580...
            [(1, "8.658009"), (2, "4.761905")],
            id="compound-repeating",
        ),
        pytest.param("100", [_regular(1, "20")], [(1, "16.666667")], id="repeating-above-half"),
        # 5.12 * 4.8576 / 104.8576 = 0.2371875 exactly: a tie, half down
        pytest.param("5.12", [_regular(1, "4.8576")], [(1, "0.237187")], id="tie-half-down"),
        pytest.param("0.0000025", [_regular(1, "25")], [(1, "0.000000")], id="tiny-tie"),
        pytest.param(
            "115.5",
            [_compound(2, "5"), _regular(1, "10")],
            [(2, "5.500000"), (1, "10.000000")],
            id="rate-order-kept",
        ),
    ],
)
def test_calc_tax_inclusive(price: str, rates: list[TaxRate], expected: list) -> None:
    assert _as_text(calc_tax(Decimal(price), rates, prices_include_tax=True)) == expected


@pytest.mark.parametrize(
    ("amount", "prices_include_tax", "expected"),
    [
        ("1.4465745", False, "1.446575"),
        ("1.4465745", True, "1.446574"),
        ("0.0000005", False, "0.000001"),
        ("0.0000005", True, "0.000000"),
        ("0.00000051", True, "0.000001"),  # above the half: up either way
        ("0.00000049", False, "0.000000"),
        ("-0.0000005", False, "-0.000001"),  # half up is away from zero
        ("12", False, "12.000000"),
    ],
)
def test_round_tax(amount: str, prices_include_tax: bool, expected: str) -> None:
    assert str(round_tax(Decimal(amount), prices_include_tax)) == expected


# --------------------------------------------------------------------------------------------
# Cleaning a rate's postcode and city input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ("SW1A 1AA; sw1a*;E1*", "postcode", ["SW1A 1AA", "SW1A*", "E1*"]),
        ("90210...90299;90300", "postcode", ["90210...90299", "90300"]),
        ("90210\u202690299", "postcode", ["90210...90299"]),
        ("London\u2026", "city", ["LONDON\u2026"]),  # the ellipsis rule is for postcodes only
        ("*;;  ; cb*", "postcode", ["CB*"]),
        ("*", "postcode", []),
        ("*", "city", []),
        ("", "postcode", []),
        (None, "postcode", []),
        ([], "city", []),
        (["sw1a 1aa", " e1* ", "", "*"], "postcode", ["SW1A 1AA", "E1*"]),
        ([90210, "90211"], "postcode", ["90210", "90211"]),
        ([None, True, 1.5, ["x"]], "city", ["1", "1.5"]),
        (["a;b"], "city", ["A;B"]),  # list entries are not split
        ("a,b;c", "city", ["A,B", "C"]),  # only ";" separates
        ("<b>SW1A</b> 1AA", "postcode", ["SW1A 1AA"]),
        ("<script>alert(1)</script>CB*", "postcode", ["CB*"]),
        ("a < b", "city", ["A < B"]),  # a lone "<" is no tag
        ("SW1A%201AA", "postcode", ["SW1A1AA"]),
        ("%20london%20", "city", ["LONDON"]),
        ("%%2020", "city", []),  # octets removed until none is left
        ("new\n\n  york ; los\tangeles", "city", ["NEW YORK", "LOS ANGELES"]),
        ("sw1;sw1", "postcode", ["SW1", "SW1"]),  # not de-duplicated
        ("München", "city", ["MÜNCHEN"]),
        ("0", "postcode", ["0"]),
    ],
)
def test_clean_locations(value: object, kind: str, expected: list[str]) -> None:
    assert clean_locations(value, kind) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("  plain  ", "plain"),
        ("a\r\n\tb", "a b"),
        ("<p>Hello <em>world</em></p>", "Hello world"),
        ("<style>p {}</style>x", "x"),
        ("50%25 off", "50 off"),
        ("a %41 b", "a b"),  # the space left by the octet collapses
    ],
)
def test_clean_text(value: str, expected: str) -> None:
    assert clean_text(value) == expected


# --------------------------------------------------------------------------------------------
# Normalising the other rate fields
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [("gb", "GB"), ("Us", "US"), ("*", ""), ("", "")])
def test_normalise_country(value: str, expected: str) -> None:
    assert normalise_country(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ca", "CA"),
        ("*", ""),
        ("", ""),
        ("n.y.", "NY"),
        (" ny ", "NY"),
        ("QC-1_a", "QC-1_A"),
        ("São Paulo", "SOPAULO"),
    ],
)
def test_normalise_state(value: str, expected: str) -> None:
    assert normalise_state(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, 1),
        (-3, 3),
        ("2", 2),
        ("-5", 5),
        (" 7", 7),
        ("3abc", 3),
        ("abc", 0),
        ("", 0),
        ("0x1A", 0),
        ("1e3", 1000),
        (None, 0),
        (2.9, 2),
        (-2.9, 2),
        (Decimal("4.5"), 4),
        (True, 1),
        (False, 0),
    ],
)
def test_normalise_priority(value: object, expected: int) -> None:
    assert normalise_priority(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("20", "20.0000"),
        ("7.5", "7.5000"),
        ("7.12345", "7.1235"),
        ("7.12344", "7.1234"),
        ("0.00005", "0.0001"),
        ("1234567.5", "1234567.5000"),
        ("1E+3", "1000.0000"),
        ("0", "0.0000"),
        ("-0.00001", "0.0000"),
    ],
)
def test_format_rate(value: str, expected: str) -> None:
    assert format_rate(Decimal(value)) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [("", "Tax"), (None, "Tax"), ("VAT", "VAT"), ("GST 5%", "GST 5%")]
)
def test_tax_name(value: str | None, expected: str) -> None:
    assert tax_name(value) == expected
