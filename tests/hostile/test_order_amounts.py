"""Order amounts at the edge of the money columns: amounts that round beyond the column, sums and
products of amounts that each fit, and bulk order ids of any length (each once a 500 or stored
beyond the column); a 400 naming the field or envelope, nothing written."""

from __future__ import annotations

from typing import Any

import pytest

from tests.hostile.bodies import HUGE, NINES, Raw, body_bytes
from tests.hostile.harness import Harness

# --- regressions: order amounts at the edge of the money columns

#: Below 10**12 as written, 10**12 once rounded to the columns' 6 decimals: each was a 500 on
#: PostgreSQL (NUMERIC(18, 6) overflow) and stored as 1000000000000 on SQLite.
ROUNDS_UP = "999999999999.9999995"
LINE = {"product_id": "{product}", "quantity": 1}
ROUNDING_CASES: tuple[tuple[str, str, dict[str, Any], str], ...] = (
    *(
        (
            "POST",
            "/orders",
            {"order": {"line_items": [{**LINE, key: ROUNDS_UP}]}},
            f"order.line_items[0].{key}",
        )
        for key in ("total", "subtotal", "total_tax", "subtotal_tax")
    ),
    (
        "POST",
        "/orders",
        {
            "order": {
                "line_items": [LINE],
                "shipping_lines": [{"method_id": "f", "total": ROUNDS_UP}],
            }
        },
        "order.shipping_lines[0].total",
    ),
    (
        "POST",
        "/orders",
        {"order": {"line_items": [LINE], "fee_lines": [{"title": "f", "total": ROUNDS_UP}]}},
        "order.fee_lines[0].total",
    ),
    (
        "PUT",
        "/orders/{order}",
        {"order": {"coupon_lines": [{"code": "c", "amount": "-" + ROUNDS_UP}]}},
        "order.coupon_lines[0].amount",
    ),
    (
        "POST",
        "/orders/{order}/refunds",
        {"order_refund": {"amount": "1", "line_items": {"<line>": {"refund_total": ROUNDS_UP}}}},
        "order_refund.line_items.{line}.refund_total",
    ),
    (
        "POST",
        "/orders/{order}/refunds",
        {
            "order_refund": {
                "amount": "1",
                "line_items": {"<line>": {"refund_tax": {"1": ROUNDS_UP}}},
            }
        },
        "order_refund.line_items.{line}.refund_tax.1",
    ),
    (
        "PUT",
        "/orders/{order}/refunds/{refund}",
        {"order_refund": {"amount": ROUNDS_UP}},
        "order_refund.amount",
    ),
)


def test_order_amounts_that_round_beyond_the_column_are_invalid_params(harness: Harness) -> None:
    """``validation/orders.py`` (item amounts) and ``writers/order_refunds.py`` (refund amounts)
    checked the range before rounding to 6 decimals."""
    for method, path, body, field in ROUNDING_CASES:
        field = field.format(**harness.ids)
        response = harness.send(method, path, body_bytes(body))
        assert response.status_int == 400, (field, response.body)
        [error] = response.json["errors"]
        assert error["code"] == "shop_api_invalid_param", (field, error)
        assert error["message"].startswith(f"Invalid parameter {field}: "), (field, error)


#: Sums and products of amounts that each fit (once a 500 on PostgreSQL, "numeric field
#: overflow", and silently stored beyond the column on SQLite): the last request of each case is
#: refused by ``sql.common.check_amounts`` before anything is written.
BEYOND = "999999999999"
OVERFLOWS: dict[str, tuple[tuple[str, str, dict[str, Any]], ...]] = {
    "order total": (
        ("POST", "/orders", {"order": {"line_items": [{**LINE, "total": BEYOND}] * 2}}),
    ),
    "order total with tax": (
        (
            "POST",
            "/orders",
            {
                "order": {
                    "billing_address": {"country": "GB"},
                    "line_items": [LINE],
                    "fee_lines": [
                        {
                            "title": "f",
                            "total": BEYOND,
                            "taxable": True,
                            "tax_class": "reduced-rate",
                        }
                    ],
                }
            },
        ),
    ),
    "line total from price x quantity": (
        ("PUT", "/products/{product}", {"product": {"regular_price": "999999999"}}),
        ("POST", "/orders", {"order": {"line_items": [{**LINE, "quantity": 100000}]}}),
    ),
    "line total scaled by a new quantity": (
        (
            "PUT",
            "/orders/{order}",
            {
                "order": {
                    "line_items": [{"id": "{line}", "product_id": "{product}", "total": "9e11"}]
                }
            },
        ),
        (
            "PUT",
            "/orders/{order}",
            {
                "order": {
                    "line_items": [{"id": "{line}", "product_id": "{product}", "quantity": 1000}]
                }
            },
        ),
    ),
    "refund taxes": (
        (
            "POST",
            "/orders/{order}/refunds",
            {
                "order_refund": {
                    "amount": "1",
                    "line_items": {"<line>": {"refund_tax": {"1": BEYOND, "2": BEYOND}}},
                }
            },
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(OVERFLOWS))
def test_order_amounts_that_add_up_beyond_the_columns(harness: Harness, case: str) -> None:
    """Each request is answered below 500 and a failure writes nothing (the harness checks);
    the request whose computed amounts leave the column is a 400 naming its envelope."""
    *setup, (method, path, body) = OVERFLOWS[case]
    for step in setup:
        assert harness.send(step[0], step[1], body_bytes(step[2])).status_int < 400, step
    response = harness.send(method, path, body_bytes(body))
    assert response.status_int == 400, (case, response.body)
    [error] = response.json["errors"]
    envelope = "order_refund" if "refunds" in path else "order"
    assert error["code"] == "shop_api_invalid_param"
    assert error["message"].startswith(f"Invalid parameter {envelope}: its "), error


def test_bulk_order_ids_of_any_length_are_element_errors(harness: Harness) -> None:
    """A bulk element's ``id`` beyond its column is an element error naming ``order.id``
    (decisions: integers beyond their column are ``shop_api_invalid_param``), never a 5xx."""
    for order_id in (HUGE, "-" + HUGE, Raw(NINES), Raw("1e309"), 2**63, -(2**63), 1e308):
        body = body_bytes({"orders": [{"id": order_id, "note": "x"}]})
        response = harness.send("POST", "/orders/bulk", body, bulk=True)
        assert response.status_int == 200
        [item] = response.json["orders"]
        assert item["error"]["code"] == "shop_api_invalid_param", item
        assert item["error"]["message"].startswith("Invalid parameter order.id: "), item
