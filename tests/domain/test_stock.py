"""Unit tests of the pure stock rules (reference products.md §2, §6, §8; the spec's stock rules).

Every expected value below was worked out by hand from those rules, not by running the code.
"""

import pytest

from shopsvc.domain.stock import (
    BACKORDERS,
    STOCK_STATUSES,
    StockState,
    backordered,
    backorders_allowed,
    in_stock,
    manages_stock,
    parse_backorders,
    resolve_stock,
    status_from_in_stock,
    stock_status,
    variable_parent_status,
    variable_stock_status,
    variation_stock,
)


def test_enumerations() -> None:
    assert STOCK_STATUSES == ("instock", "outofstock", "onbackorder")
    assert BACKORDERS == ("no", "yes", "notify")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("notify", "notify"),
        ("NOTIFY", "notify"),
        (" notify ", "notify"),
        (True, "yes"),
        (1, "yes"),
        ("1", "yes"),
        ("true", "yes"),
        ("TRUE", "yes"),
        ("yes", "yes"),
        ("Yes", "yes"),
        (False, "no"),
        (0, "no"),
        ("0", "no"),
        ("false", "no"),
        ("no", "no"),
        ("", "no"),
        (None, "no"),
        ("maybe", "no"),
        (2, "no"),
        (1.5, "no"),
        ([], "no"),
        ({"a": 1}, "no"),
    ],
)
def test_parse_backorders(value: object, expected: str) -> None:
    assert parse_backorders(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [("no", False), ("yes", True), ("notify", True), ("", False)]
)
def test_backorders_allowed(value: str, expected: bool) -> None:
    assert backorders_allowed(value) is expected


@pytest.mark.parametrize(("flag", "expected"), [(True, "instock"), (False, "outofstock")])
def test_status_from_in_stock(flag: bool, expected: str) -> None:
    assert status_from_in_stock(flag) == expected


@pytest.mark.parametrize(
    ("manage", "quantity", "backorders", "threshold", "requested", "expected"),
    [
        # managing: the quantity decides, the requested status is overridden
        (True, 5, "no", 0, "outofstock", "instock"),
        (True, 1, "no", 0, None, "instock"),
        (True, 0, "no", 0, "instock", "outofstock"),  # at the threshold
        (True, -3, "no", 0, "instock", "outofstock"),
        (True, 0, "yes", 0, "instock", "onbackorder"),
        (True, 0, "notify", 0, "instock", "onbackorder"),
        (True, -1, "yes", 0, None, "onbackorder"),
        (True, None, "no", 0, "instock", "outofstock"),  # unset counts as 0
        (True, None, "yes", 0, None, "onbackorder"),
        # threshold edges
        (True, 3, "no", 3, "instock", "outofstock"),  # equal → out
        (True, 4, "no", 3, "outofstock", "instock"),  # one above → in
        (True, 2, "no", 3, None, "outofstock"),
        (True, 3, "yes", 3, None, "onbackorder"),
        (True, 4, "yes", 3, None, "instock"),
        (True, 0, "no", -1, None, "instock"),  # a negative threshold
        (True, -1, "no", -1, None, "outofstock"),
        # not managing: the requested status, instock by default
        (False, 0, "no", 0, "instock", "instock"),
        (False, 100, "no", 0, "outofstock", "outofstock"),
        (False, None, "yes", 0, "onbackorder", "onbackorder"),
        (False, None, "no", 0, None, "instock"),
    ],
)
def test_stock_status(
    manage: bool,
    quantity: int | None,
    backorders: str,
    threshold: int,
    requested: str | None,
    expected: str,
) -> None:
    assert stock_status(manage, quantity, backorders, threshold, requested) == expected


def test_stock_status_refuses_unknown_requested_status() -> None:
    with pytest.raises(ValueError):
        stock_status(False, None, "no", 0, "in_stock")


@pytest.mark.parametrize(
    ("status", "expected"),
    [("instock", True), ("onbackorder", True), ("outofstock", False)],
)
def test_in_stock(status: str, expected: bool) -> None:
    assert in_stock(status) is expected


@pytest.mark.parametrize(
    ("status", "manage", "backorders", "quantity", "expected"),
    [
        ("onbackorder", False, "no", None, True),  # the status alone suffices
        ("onbackorder", True, "yes", 5, True),
        ("instock", True, "yes", -1, True),  # managed, allowed, below zero
        ("instock", True, "notify", -10, True),
        ("instock", True, "yes", 0, False),  # zero is not below zero
        ("instock", True, "no", -1, False),  # backorders not allowed
        ("instock", False, "yes", -1, False),  # not managing
        ("instock", True, "yes", None, False),
        ("outofstock", True, "no", 0, False),
        ("instock", False, "no", None, False),
    ],
)
def test_backordered(
    status: str, manage: bool, backorders: str, quantity: int | None, expected: bool
) -> None:
    assert backordered(status, manage, backorders, quantity) is expected


@pytest.mark.parametrize(
    ("children", "expected"),
    [
        ([], "outofstock"),
        (["instock"], "instock"),
        (["outofstock", "onbackorder", "instock"], "instock"),
        (["outofstock", "onbackorder"], "onbackorder"),
        (["onbackorder", "onbackorder"], "onbackorder"),
        (["outofstock", "outofstock"], "outofstock"),
    ],
)
def test_variable_stock_status(children: list[str], expected: str) -> None:
    assert variable_stock_status(children) == expected
    assert variable_stock_status(iter(children)) == expected


@pytest.mark.parametrize(
    ("product_type", "manage", "expected"),
    [
        ("simple", True, True),
        ("simple", False, False),
        ("variable", True, True),
        ("variation", True, True),
        ("grouped", True, False),
        ("external", True, False),
        ("external", False, False),
    ],
)
def test_manages_stock(product_type: str, manage: bool, expected: bool) -> None:
    assert manages_stock(product_type, manage) is expected


@pytest.mark.parametrize(
    ("product_type", "manage", "quantity", "backorders", "requested", "expected"),
    [
        # external: never managed, always in stock, whatever was asked
        ("external", True, 0, "yes", "outofstock", StockState(False, None, "no", "instock")),
        # grouped: never managed, the requested status kept
        ("grouped", True, 7, "notify", "outofstock", StockState(False, None, "no", "outofstock")),
        ("grouped", False, None, "no", None, StockState(False, None, "no", "instock")),
        # simple, managed: the quantity decides
        ("simple", True, 0, "notify", "instock", StockState(True, 0, "notify", "onbackorder")),
        ("simple", True, 3, "no", "outofstock", StockState(True, 3, "no", "instock")),
        ("simple", True, None, "no", None, StockState(True, 0, "no", "outofstock")),
        # simple, not managed: quantity cleared, backorders kept, status as requested
        ("simple", False, 9, "yes", "outofstock", StockState(False, None, "yes", "outofstock")),
        # variation: same as simple
        ("variation", True, -2, "yes", None, StockState(True, -2, "yes", "onbackorder")),
    ],
)
def test_resolve_stock(
    product_type: str,
    manage: bool,
    quantity: int | None,
    backorders: str,
    requested: str | None,
    expected: StockState,
) -> None:
    result = resolve_stock(
        product_type,
        manage_stock=manage,
        quantity=quantity,
        backorders=backorders,
        threshold=0,
        requested_status=requested,
    )
    assert result == expected


def test_resolve_stock_threshold() -> None:
    at = resolve_stock(
        "simple", manage_stock=True, quantity=2, backorders="no", threshold=2, requested_status=None
    )
    above = resolve_stock(
        "simple", manage_stock=True, quantity=3, backorders="no", threshold=2, requested_status=None
    )
    assert at.status == "outofstock"
    assert above.status == "instock"


@pytest.mark.parametrize(
    ("manage", "quantity", "children", "requested", "expected"),
    [
        # the children decide, whatever the quantity or the request
        (
            False,
            None,
            ["outofstock", "instock"],
            "outofstock",
            StockState(False, None, "no", "instock"),
        ),
        (True, 0, ["instock"], None, StockState(True, 0, "no", "instock")),
        (True, 10, ["outofstock", "onbackorder"], None, StockState(True, 10, "no", "onbackorder")),
        (False, 5, [], "instock", StockState(False, None, "no", "outofstock")),
        # children unknown: the request (or instock) is kept
        (False, None, None, "outofstock", StockState(False, None, "no", "outofstock")),
        (False, None, None, None, StockState(False, None, "no", "instock")),
    ],
)
def test_resolve_stock_variable(
    manage: bool,
    quantity: int | None,
    children: list[str] | None,
    requested: str | None,
    expected: StockState,
) -> None:
    result = resolve_stock(
        "variable",
        manage_stock=manage,
        quantity=quantity,
        backorders="no",
        threshold=0,
        requested_status=requested,
        child_statuses=children,
    )
    assert result == expected


@pytest.mark.parametrize(
    ("backorders", "requested"), [("maybe", None), ("no", "in_stock"), ("YES", None)]
)
def test_resolve_stock_refuses_unknown_values(backorders: str, requested: str | None) -> None:
    with pytest.raises(ValueError):
        resolve_stock(
            "grouped",
            manage_stock=False,
            quantity=None,
            backorders=backorders,
            threshold=0,
            requested_status=requested,
        )


# --- a variation's effective stock and its variable parent's status (reference §8)

#: Stored columns: a managed parent with 4 in stock, backorders "notify".
PARENT = StockState(True, 4, "notify", "outofstock")
UNMANAGED_PARENT = StockState(False, 4, "notify", "outofstock")
OWN = StockState(True, 0, "no", "outofstock")
UNMANAGED = StockState(False, None, "yes", "onbackorder")


@pytest.mark.parametrize(
    ("variation", "parent", "store", "expected"),
    [
        # managing its own stock: its own columns, whatever the parent
        (OWN, PARENT, True, OWN),
        # not managing, the parent does: the parent's quantity and backorders decide
        (UNMANAGED, PARENT, True, StockState(True, 4, "notify", "instock")),
        (
            UNMANAGED,
            StockState(True, 0, "notify", "instock"),
            True,
            StockState(True, 0, "notify", "onbackorder"),
        ),
        (
            UNMANAGED,
            StockState(True, None, "no", "instock"),
            True,
            StockState(True, None, "no", "outofstock"),
        ),
        # nobody manages: the stored status, not managed
        (UNMANAGED, UNMANAGED_PARENT, True, UNMANAGED),
        (UNMANAGED, None, True, UNMANAGED),
        # store-wide management off: nothing is managed, stored statuses stand
        (OWN, PARENT, False, StockState(False, 0, "no", "outofstock")),
        (UNMANAGED, PARENT, False, UNMANAGED),
    ],
)
def test_variation_stock(
    variation: StockState, parent: StockState | None, store: bool, expected: StockState
) -> None:
    assert variation_stock(variation, parent, store_manages=store, threshold=0) == expected


def test_variation_stock_threshold() -> None:
    at = variation_stock(UNMANAGED, PARENT, store_manages=True, threshold=4)
    assert at == StockState(True, 4, "notify", "onbackorder")


@pytest.mark.parametrize(
    ("variations", "parent", "store", "expected"),
    [
        ([], PARENT, True, "outofstock"),
        # one own-managed variation out of stock, one following the parent's 4 in stock
        ([OWN, UNMANAGED], PARENT, True, "instock"),
        ([OWN], PARENT, True, "outofstock"),
        # the parent does not manage: the stored statuses
        ([OWN, UNMANAGED], UNMANAGED_PARENT, True, "onbackorder"),
        # store-wide management off: the stored statuses
        ([OWN, UNMANAGED], PARENT, False, "onbackorder"),
        ([OWN], PARENT, False, "outofstock"),
    ],
)
def test_variable_parent_status(
    variations: list[StockState], parent: StockState, store: bool, expected: str
) -> None:
    result = variable_parent_status(variations, parent, store_manages=store, threshold=0)
    assert result == expected
