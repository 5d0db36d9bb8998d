"""Hostile bodies on every write route of every family, and integers beyond their column in
every integer field (see :mod:`tests.hostile`).

The generated bodies are built from each family's real write fields with hostile values — wrong
JSON types, huge and negative numbers, floats that overflow, deep nesting, long strings, NUL,
lone surrogates, unknown keys, null envelopes. Every request must be answered below 500; a 4xx
carries ``{"errors": [{"code": "shop_…", "message"}]}``; a request that failed (a bulk request
whose every element failed) left every table as it was. Integers beyond their column are a 400
``shop_api_invalid_param`` naming the field, whatever their number of digits.

Every test is deterministic (``derandomize``, no example database) and bounded in examples.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from tests.hostile.bodies import body_bytes
from tests.hostile.harness import Harness, hostile_settings
from tests.hostile.int_fields import INT_FIELDS
from tests.hostile.values import beyond_column
from tests.hostile.writes import FAMILIES, Case, write_cases

#: Examples per property (per database): bounded so that the whole module stays well under a
#: minute on both databases. Families with more fields get more examples.
WRITE_EXAMPLES = {
    "products": 70,
    "variations": 50,
    "products_bulk": 30,
    "taxes": 40,
    "tax_classes": 20,
    "webhooks": 30,
    "categories": 40,
    "tags": 25,
    "shipping_classes": 25,
    "attributes": 30,
    "attribute_terms": 25,
    "orders": 90,
    "orders_bulk": 30,
    "order_notes": 20,
    "order_refunds": 40,
}
#: Each example of the numbers property sends this many requests (fields drawn without repeats).
NUMBER_EXAMPLES, NUMBER_FIELDS_PER_EXAMPLE = 40, 6


def _write_test(family: str) -> Callable[..., None]:
    @hostile_settings(WRITE_EXAMPLES[family])
    @given(case=write_cases(family))
    def test(harness: Harness, case: Case) -> None:
        harness.send(case.method, case.path, case.body, bulk=case.bulk)

    test.__doc__ = f"Hostile bodies on every write route of {family}."
    return test


test_webhooks_survive_hostile_bodies = _write_test("webhooks")
test_taxes_survive_hostile_bodies = _write_test("taxes")
test_tax_classes_survive_hostile_bodies = _write_test("tax_classes")
test_categories_survive_hostile_bodies = _write_test("categories")
test_tags_survive_hostile_bodies = _write_test("tags")
test_shipping_classes_survive_hostile_bodies = _write_test("shipping_classes")
test_attributes_survive_hostile_bodies = _write_test("attributes")
test_attribute_terms_survive_hostile_bodies = _write_test("attribute_terms")
test_products_survive_hostile_bodies = _write_test("products")
test_variations_survive_hostile_bodies = _write_test("variations")
test_products_bulk_survives_hostile_bodies = _write_test("products_bulk")
test_orders_survive_hostile_bodies = _write_test("orders")
test_orders_bulk_survives_hostile_bodies = _write_test("orders_bulk")
test_order_notes_survive_hostile_bodies = _write_test("order_notes")
test_order_refunds_survive_hostile_bodies = _write_test("order_refunds")


def test_every_family_has_a_write_test() -> None:
    tested = {name.removeprefix("test_").partition("_surviv")[0] for name in globals()}
    assert set(FAMILIES) <= tested


@hostile_settings(NUMBER_EXAMPLES)
@given(data=st.data())
def test_integers_beyond_their_column_are_invalid_params(
    harness: Harness, data: st.DataObject
) -> None:
    """Whatever its number of digits or its form (number, digit string, float, ``1e309``), an
    integer no column holds is a 400 ``shop_api_invalid_param`` naming the field (a bulk
    element's error item), and nothing is written."""
    fields = st.lists(
        st.sampled_from(INT_FIELDS),
        min_size=NUMBER_FIELDS_PER_EXAMPLE,
        max_size=NUMBER_FIELDS_PER_EXAMPLE,
        unique=True,
    )
    for spec in data.draw(fields, label="fields"):
        field = spec.field.format(**harness.ids)
        value = data.draw(beyond_column(positive=spec.positive), label=field)
        body = body_bytes(spec.build(value))
        response = harness.send(spec.method, spec.path, body, bulk=spec.bulk)
        if spec.bulk:
            assert response.status_int == 200, response.body
            [item] = next(iter(response.json.values()))
            error = item["error"]
        else:
            assert response.status_int == 400, response.body
            [error] = response.json["errors"]
        assert error["code"] == "shop_api_invalid_param", (field, error)
        assert f"Invalid parameter {field}:" in error["message"], (field, error)
