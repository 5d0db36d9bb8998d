"""The numbers the hostile suite found in the validation layer, each pinned on both databases:
ids and integers of any length or form beyond their column (a 400 ``shop_api_invalid_param``
naming the field, nothing written), the shared integer reading, and the product write view's
checks that ran before validation."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import colander
import pytest
import sqlalchemy as sa

from shopsvc.validation.types import BEYOND_ANY_COLUMN, Int, parse_int
from tests.hostile.bodies import HUGE, HUGE_DIGITS, NINES, Raw, body_bytes
from tests.hostile.checks import snapshot
from tests.hostile.harness import Harness

# --- regressions: the category image (an OverflowError became a 500)

BEYOND_ANY_ID: tuple[Any, ...] = (
    NINES,
    "-" + NINES,
    " +" + NINES + " ",
    NINES + ".0",
    "9" * HUGE_DIGITS,
    Raw(NINES),
    Raw("-" + NINES),
    1e308,
    -1e308,
    Raw("1e309"),
    Raw("-1e309"),
    2**31,
    -(2**31),
)


@pytest.mark.parametrize(
    ("method", "path", "fields"),
    [
        ("POST", "/products/categories", {"name": "N"}),
        ("POST", "/products/categories", {}),
        ("PUT", "/products/categories/{category}", {}),
        ("PATCH", "/products/categories/{category}", {"name": "M"}),
    ],
    ids=["create", "create-without-name", "edit", "edit-with-name"],
)
def test_category_image_beyond_any_id_is_invalid_param(
    harness: Harness, engine: sa.Engine, method: str, path: str, fields: dict[str, Any]
) -> None:
    """``{"product_category": {"image": "999…9"}}`` (400 nines) was a 500: an OverflowError in
    ``validation/terms.py`` (the number went through a float). Every spelling of an id beyond
    the column is a 400 naming the field, and nothing is written."""
    before = snapshot(engine)
    for image in BEYOND_ANY_ID:
        body = body_bytes({"product_category": {**fields, "image": image}})
        response = harness.send(method, path, body)
        assert response.status_int == 400, (image, response.body)
        [error] = response.json["errors"]
        assert error["code"] == "shop_api_invalid_param", (image, error)
        assert error["message"].startswith("Invalid parameter product_category.image: "), error
    assert snapshot(engine) == before


def test_category_image_numeric_forms_still_name_an_attachment(harness: Harness) -> None:
    """The fix still reads whole numbers in any spelling as attachment ids (no image has id 1
    here, so none), and fractions as no image."""
    images = ("1", 1, "1.0", 1.0, "+1", " 0001 ", 1.5, "-3", -(2**31) + 1, 2**31 - 1)
    for index, image in enumerate(images):
        body = body_bytes({"product_category": {"name": f"N{index}", "image": image}})
        response = harness.send("POST", "/products/categories", body)
        assert response.status_int == 201, (image, response.body)
        assert response.json["product_category"]["image"] == ""


# --- the shared integer reading, without a database


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12", 12),
        (" -7 ", -7),
        ("+007", 7),
        ("-0", 0),
        (12.0, 12),
        (Decimal("5.000"), 5),
        (2**31, 2**31),
        ("9" * 18, int("9" * 18)),
        ("9" * 19, BEYOND_ANY_COLUMN),
        ("-" + "9" * HUGE_DIGITS, -BEYOND_ANY_COLUMN),
        ("0" * HUGE_DIGITS + "42", 42),
        (10**400, BEYOND_ANY_COLUMN),
        (-1e308, -BEYOND_ANY_COLUMN),
        (Decimal("1E+999999999"), BEYOND_ANY_COLUMN),
        (Decimal("-1E+999999999"), -BEYOND_ANY_COLUMN),
        (float("inf"), None),
        (float("nan"), None),
        (Decimal("Infinity"), None),
        (Decimal("1.5"), None),
        (2.5, None),
        (True, None),
        ("1e3", None),
        ("１２", None),
        ("", None),
    ],
)
def test_parse_int_reads_any_number_of_digits_cheaply(value: Any, expected: int | None) -> None:
    assert parse_int(value) == expected


@pytest.mark.parametrize(
    "value", [2**31, -(2**31) - 1, "9" * HUGE_DIGITS, 1e308, BEYOND_ANY_COLUMN]
)
def test_int_refuses_what_no_integer_column_holds(value: Any) -> None:
    node = colander.SchemaNode(Int(), name="n")
    with pytest.raises(colander.Invalid, match="must be between -2147483648 and 2147483647"):
        node.deserialize(value)


# --- regressions: the other numbers the suite found in the validation layer

#: ``(method, path, body, field)``: each was a 500 (or silently accepted) before; each is now a
#: 400 ``shop_api_invalid_param`` naming ``field`` (for a bulk route: its element's error).
NUMBER_REGRESSIONS: tuple[tuple[str, str, dict[str, Any], str], ...] = (
    # rounding to 6 decimals carried into a 13th integer digit: PostgreSQL's NUMERIC(18, 6)
    # overflowed (500)
    (
        "POST",
        "/products",
        {"product": {"title": "x", "regular_price": "999999999999.9999995"}},
        "product.regular_price",
    ),
    (
        "PUT",
        "/products/{product}",
        {"product": {"weight": "999999999999.99999999"}},
        "product.weight",
    ),
    (
        "POST",
        "/products",
        {"product": {"title": "x", "dimensions": {"height": "999999999999.9999995"}}},
        "product.dimensions.height",
    ),
    (
        "PUT",
        "/products/{variable}",
        {"product": {"variations": [{"sale_price": "999999999999.9999996"}]}},
        "product.variations[0].sale_price",
    ),
    # digit strings of more than 4300 digits: ValueError from int() (500)
    ("POST", "/taxes", {"tax": {"priority": HUGE}}, "tax.priority"),
    ("POST", "/taxes", {"tax": {"order": "-" + HUGE}}, "tax.order"),
    ("PUT", "/taxes/{tax}", {"tax": {"order": HUGE}}, "tax.order"),
    ("POST", "/products", {"product": {"title": "x", "menu_order": HUGE}}, "product.menu_order"),
    (
        "POST",
        "/products",
        {"product": {"title": "x", "download_limit": HUGE}},
        "product.download_limit",
    ),
    (
        "POST",
        "/products",
        {"product": {"title": "x", "images": [{"id": HUGE}]}},
        "product.images[0].id",
    ),
    (
        "POST",
        "/products",
        {
            "product": {
                "title": "x",
                "attributes": [{"name": "A", "options": ["a"], "position": HUGE}],
            }
        },
        "product.attributes[0].position",
    ),
    (
        "POST",
        "/products",
        {"product": {"title": "x", "type": "variable", "variations": [{"id": HUGE}]}},
        "product.variations[0].id",
    ),
    (
        "POST",
        "/products/categories",
        {"product_category": {"name": "x", "parent": HUGE}},
        "product_category.parent",
    ),
    (
        "POST",
        "/products/attributes/{attribute}/terms",
        {"product_attribute_term": {"name": "x", "menu_order": HUGE}},
        "product_attribute_term.menu_order",
    ),
    ("POST", "/taxes/bulk", {"taxes": [{"id": HUGE}]}, "tax.id"),
    # beyond the column but silently clamped or ignored before
    (
        "POST",
        "/products",
        {
            "product": {
                "title": "x",
                "attributes": [{"name": "A", "options": ["a"], "position": 2**31}],
            }
        },
        "product.attributes[0].position",
    ),
    (
        "POST",
        "/products",
        {"product": {"title": "x", "type": "variable", "variations": [{"id": 2**31}]}},
        "product.variations[0].id",
    ),
    ("POST", "/taxes/bulk", {"taxes": [{"id": 2**31, "rate": "5"}]}, "tax.id"),
    ("POST", "/taxes/bulk", {"taxes": [{"id": Raw("1e309"), "rate": "5"}]}, "tax.id"),
    # a JSON number that overflows to infinity was stored as the text "inf"
    (
        "POST",
        "/webhooks",
        {
            "webhook": {
                "topic": "order.created",
                "delivery_url": "http://127.0.0.1:9/",
                "name": Raw("1e309"),
            }
        },
        "webhook.name",
    ),
    ("POST", "/taxes", {"tax": {"name": Raw("-1e309")}}, "tax.name"),
    ("POST", "/taxes", {"tax": {"postcode": [Raw("1e309")]}}, "tax.postcode"),
    ("POST", "/products", {"product": {"title": Raw("1e309")}}, "product.title"),
    (
        "POST",
        "/products",
        {"product": {"title": "x", "attributes": [{"name": "A", "options": Raw("1e309")}]}},
        "product.attributes[0].options",
    ),
)


def test_validation_number_regressions(harness: Harness) -> None:
    """What the suite found in the validation layer, each pinned on both databases."""
    for method, path, body, field in NUMBER_REGRESSIONS:
        bulk = path.endswith("/bulk")
        response = harness.send(method, path, body_bytes(body), bulk=bulk)
        if bulk:
            assert response.status_int == 200, (field, response.body)
            [item] = next(iter(response.json.values()))
            error = item["error"]
        else:
            assert response.status_int == 400, (field, response.body)
            [error] = response.json["errors"]
        assert error["code"] == "shop_api_invalid_param", (field, error)
        assert error["message"].startswith(f"Invalid parameter {field}: "), (field, error)


def test_bulk_product_ids_of_any_length_are_element_errors(harness: Harness) -> None:
    """``{"products": [{"id": "9…9"}]}`` with 5000 digits was a 500 (``parse_int``)."""
    for product_id in (HUGE, "-" + HUGE, Raw(NINES), 2**63):
        body = body_bytes({"products": [{"id": product_id, "title": "x"}]})
        response = harness.send("POST", "/products/bulk", body, bulk=True)
        assert response.status_int == 200
        [item] = response.json["products"]
        assert "error" in item, item


def test_variations_that_are_not_an_array_are_a_4xx(harness: Harness) -> None:
    """views/product_writes.py: ``"variations": true`` (or a number) was a 500 (TypeError in
    ``_download_sources``, which iterates it before validation says it is not an array)."""
    for variations in (True, 5, 1.5, "x", {"a": 1}):
        for method, path in (
            ("POST", "/products"),
            ("PUT", "/products/{variable}"),
            ("POST", "/products/bulk"),
        ):
            product = {"title": "x", "type": "variable", "variations": variations}
            body = {"products": [product]} if path.endswith("bulk") else {"product": product}
            response = harness.send(method, path, body_bytes(body), bulk=path.endswith("bulk"))
            assert response.status_int < 500, (variations, path)


@pytest.mark.parametrize(
    ("field", "value", "code", "message"),
    [
        (
            "catalog_visibility",
            "everywhere",
            "product_invalid_catalog_visibility",
            "Invalid catalog visibility option.",
        ),
        (
            "catalog_visibility",
            5,
            "product_invalid_catalog_visibility",
            "Invalid catalog visibility option.",
        ),
        ("tax_status", "x", "product_invalid_tax_status", "Invalid product tax status."),
    ],
)
def test_core_product_errors_keep_the_originals_data_layer_codes(
    harness: Harness, field: str, value: Any, code: str, message: str
) -> None:
    """A wrong ``catalog_visibility`` or ``tax_status`` answers with the original's unprefixed
    core codes (reference products.md §5, docs/compat.md): the one documented exception to the
    ``shop_…`` rule the harness checks, and nothing is written."""
    body = body_bytes({"product": {"title": "x", field: value}})
    response = harness.send("POST", "/products", body)
    assert response.status_int == 400
    assert response.json == {"errors": [{"code": code, "message": message}]}
