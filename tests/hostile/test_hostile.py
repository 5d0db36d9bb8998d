"""Hostile input is a normal day: property-based requests against every write, list and count
route, on SQLite and PostgreSQL.

The generated requests (``tests/hostile/support.py``) carry bodies built from each family's real
write fields with hostile values — wrong JSON types, huge and negative numbers, floats that
overflow, deep nesting, long strings, NUL, lone surrogates, unknown keys, null envelopes — and
hostile query strings, odd paths and methods. Every request must be answered below 500; a 4xx
carries ``{"errors": [{"code": "shop_…", "message"}]}``; a request that failed (a bulk request
whose every element failed) left every table as it was. Integers beyond their column are a 400
``shop_api_invalid_param`` naming the field, whatever their number of digits.

Every test is deterministic (``derandomize``, no example database) and bounded in examples.
The fixed regressions at the end pin what the protocol layer does (the JSON parser, the query
parser, path traversal and authentication) and the product write view's image prefetch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import colander
import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from webtest import TestApp

from shopsvc.validation.types import BEYOND_ANY_COLUMN, Int, parse_int
from tests.helpers.api import ROOT, Credentials, authorised
from tests.hostile.support import (
    FAMILIES,
    HUGE_DIGITS,
    INT_FIELDS,
    Case,
    Harness,
    PathCase,
    Raw,
    beyond_column,
    body_bytes,
    deep_array,
    deep_object,
    hostile_settings,
    list_cases,
    path_cases,
    snapshot,
    write_cases,
)

# WebTest's WSGI checker warns about the unknown methods the suite sends on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:Unknown REQUEST_METHOD")

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
QUERY_EXAMPLES = 100
PATH_EXAMPLES = 80


@pytest.fixture(scope="module")
def hostile_app(make_app: Callable[..., TestApp]) -> Iterator[TestApp]:
    """The app with private targets refused: no generated URL is ever fetched or pinged."""
    app = make_app(**{"shopsvc.outbound.allow_private_targets": "false"})
    yield app
    app.app.registry.engine.dispose()


def _create(client: TestApp, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(ROOT + path, json.dumps(body), content_type="application/json")
    assert response.status_int == 201, response.body
    [record] = response.json.values()
    return record


SUBSCRIBED_TOPICS = (
    "order.updated",
    "order.deleted",
    "order.restored",
    "product.created",
    "product.updated",
    "product.deleted",
    "product.restored",
    "action.shop_product_set_stock",
    "action.shop_order_status_changed",
    "action.shop_refund_created",
)


def make_world(client: TestApp) -> dict[str, int]:
    """One record of every family (the targets of the edit routes), an order of the plain
    product with its items, a note and a refund; their ids by name."""
    ids: dict[str, int] = {}
    ids["webhook"] = _create(
        client,
        "/webhooks",
        {"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/hook"}},
    )["id"]
    # Subscribers for every topic a write may fire, so that a failed request that leaked an
    # event into the outbox would show in the tables' snapshot.
    for topic in SUBSCRIBED_TOPICS:
        hook = {"topic": topic, "delivery_url": "http://127.0.0.1:9/hook"}
        _create(client, "/webhooks", {"webhook": hook})
    _create(client, "/taxes/classes", {"tax_class": {"name": "Reduced Rate"}})
    ids["tax"] = _create(
        client, "/taxes", {"tax": {"country": "GB", "rate": "20", "class": "reduced-rate"}}
    )["id"]
    categories = "/products/categories"
    ids["category"] = _create(client, categories, {"product_category": {"name": "C"}})["id"]
    child = {"name": "K", "parent": ids["category"]}
    _create(client, categories, {"product_category": child})
    ids["tag"] = _create(client, "/products/tags", {"product_tag": {"name": "T"}})["id"]
    ids["shipping_class"] = _create(
        client, "/products/shipping_classes", {"product_shipping_class": {"name": "Heavy"}}
    )["id"]
    ids["attribute"] = _create(
        client, "/products/attributes", {"product_attribute": {"name": "Color", "slug": "color"}}
    )["id"]
    terms = f"/products/attributes/{ids['attribute']}/terms"
    ids["term"] = _create(client, terms, {"product_attribute_term": {"name": "Red"}})["id"]
    _create(client, terms, {"product_attribute_term": {"name": "Blue"}})
    ids["product"] = _create(
        client,
        "/products",
        {
            "product": {
                "title": "Plain",
                "sku": "SKU-1",
                "regular_price": "10",
                "categories": [ids["category"]],
                "tags": [ids["tag"]],
            }
        },
    )["id"]
    variable = _create(
        client,
        "/products",
        {
            "product": {
                "title": "Shirt",
                "type": "variable",
                "attributes": [
                    {"name": "Color", "slug": "pa_color", "variation": True, "options": ["Red"]}
                ],
                "variations": [
                    {"regular_price": "5", "attributes": [{"name": "Color", "option": "red"}]}
                ],
            }
        },
    )
    ids["variable"] = variable["id"]
    ids["variation"] = variable["variations"][0]["id"]
    ids.update(make_order(client, ids["product"]))
    return ids


def make_order(client: TestApp, product_id: int) -> dict[str, int]:
    """One order with an item of each kind, a note and a refund (the targets of the order edit,
    note and refund routes); their ids by name."""
    order = _create(
        client,
        "/orders",
        {
            "order": {
                "line_items": [{"product_id": product_id, "quantity": 3}],
                "shipping_lines": [{"method_id": "flat_rate", "method_title": "F", "total": "5"}],
                "fee_lines": [{"title": "Wrap", "total": "2"}],
                "coupon_lines": [{"code": "SAVE1", "amount": "1"}],
                "billing_address": {"first_name": "Jane", "country": "GB"},
                "order_meta": {"gift": "yes"},
            }
        },
    )
    ids = {
        "order": order["id"],
        "line": order["line_items"][0]["id"],
        "shipping_line": order["shipping_lines"][0]["id"],
        "fee_line": order["fee_lines"][0]["id"],
        "coupon_line": order["coupon_lines"][0]["id"],
    }
    path = f"/orders/{ids['order']}"
    ids["note"] = _create(client, f"{path}/notes", {"order_note": {"note": "Hello"}})["id"]
    refund = {"amount": "1", "line_items": {str(ids["line"]): {"qty": 1, "refund_total": "1"}}}
    ids["refund"] = _create(client, f"{path}/refunds", {"order_refund": refund})["id"]
    return ids


@pytest.fixture
def harness(hostile_app: TestApp, admin: Credentials, engine: sa.Engine) -> Harness:
    """An administrator's client over a database holding one record of every family."""
    client = authorised(hostile_app, admin)
    return Harness(client, engine, {**make_world(client), "user": admin.user_id})


@pytest.fixture
def anonymous(hostile_app: TestApp, harness: Harness, engine: sa.Engine) -> Harness:
    """A client without credentials, over the same records."""
    return Harness(TestApp(hostile_app.app), engine, harness.ids)


# --- bodies


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


# --- queries, paths and methods


@hostile_settings(QUERY_EXAMPLES)
@given(case=list_cases())
def test_list_routes_survive_hostile_queries(harness: Harness, case: tuple[str, str, str]) -> None:
    method, path, query = case
    harness.send(method, path, query=query)


@hostile_settings(PATH_EXAMPLES)
@given(case=path_cases())
def test_odd_paths_and_methods(harness: Harness, case: PathCase) -> None:
    harness.send(case.method, case.path, case.body, query=case.query, headers=case.headers)


def _is_index(url: str) -> bool:
    path = url.partition("?")[0].lower()
    return path in (ROOT.lower(), ROOT.lower() + "/")


@hostile_settings(PATH_EXAMPLES)
@given(case=path_cases())
def test_odd_paths_never_skip_authentication(anonymous: Harness, case: PathCase) -> None:
    """Without credentials only the API root's index answers: no spelling of a path (``//``,
    ``/./``, ``%2e%2e``, upper case) reaches a resource."""
    response = anonymous.send(
        case.method, case.path, case.body, query=case.query, headers=case.headers
    )
    url = anonymous.url(case.path)
    assert response.status_int >= 400 or _is_index(url), (url, response.status)


# --- regressions: the category image (an OverflowError became a 500)

NINES = "9" * 400
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

HUGE = "9" * HUGE_DIGITS
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


# --- regressions of the protocol layer and the product write view


def test_json_numbers_of_any_length_name_their_field(harness: Harness) -> None:
    """protocol.py: a JSON number of 5000 digits is valid JSON (RFC 8259 sets no limit), but
    Python's parser converts at most 4300 digits: the body must still reach the field, which
    says it is out of range (400 ``shop_api_invalid_param`` naming it), not
    ``shop_api_invalid_json``."""
    cases = [
        ("POST", "/products/categories", "product_category", "parent"),
        ("POST", "/products/attributes/{attribute}/terms", "product_attribute_term", "menu_order"),
        ("POST", "/taxes", "tax", "priority"),
    ]
    for method, path, envelope, name in cases:
        for digits in (4301, HUGE_DIGITS):
            for sign in ("", "-"):
                number = Raw(sign + "9" * digits)
                body = body_bytes({envelope: {"name": "N", name: number}})
                response = harness.send(method, path, body)
                [error] = response.json["errors"]
                assert (response.status_int, error["code"]) == (400, "shop_api_invalid_param")
                assert error["message"].startswith(f"Invalid parameter {envelope}.{name}: ")


@pytest.mark.parametrize(
    ("path", "envelope"),
    [
        ("/products", "product"),
        ("/products/bulk", "products"),
        ("/taxes", "tax"),
        ("/webhooks", "webhook"),
        ("/products/categories", "product_category"),
    ],
)
def test_deep_nesting_is_a_4xx(harness: Harness, path: str, envelope: str) -> None:
    """protocol.py: JSON nested hundreds deep must be refused before anything recurses into
    it (``shop_api_invalid_json``), at any depth."""
    for depth in (64, 65, 400, 1000, 5000, 100_000):
        for nested in (deep_array(depth), deep_object(depth)):
            fields = {"title": "x", "name": "x", "images": nested, "postcode": nested}
            response = harness.send("POST", path, body_bytes({envelope: fields}))
            assert 400 <= response.status_int < 500, (depth, response.status)


def test_query_integers_of_any_length(harness: Harness) -> None:
    """listing.py: a query integer of more than 4300 digits was a 500 (ValueError); any
    query integer beyond its column is a 400 naming the parameter (``filter[limit]`` is
    capped instead)."""
    for path in ("/products", "/products/count", "/webhooks", "/taxes"):
        for param in ("page", "filter[limit]", "filter[offset]", "filter[in]", "filter[not_in]"):
            for digits in (11, 400, 4300, 4301, HUGE_DIGITS, 20_000):
                response = harness.send("GET", path, query=f"{param}={'9' * digits}")
                if param == "filter[limit]":
                    assert response.status_int == 200, (path, param, digits)
                    continue
                [error] = response.json["errors"]
                assert (response.status_int, error["code"]) == (400, "shop_api_invalid_param")
                assert error["message"].startswith(f"Invalid parameter {param}: "), error


def test_path_ids_of_any_length_are_not_found(harness: Harness) -> None:
    """resources.py: an id segment of more than 4300 digits was a 500 (ValueError)."""
    huge = "9" * HUGE_DIGITS
    for path in (
        f"/products/{huge}",
        f"/products/{huge}/reviews",
        f"/webhooks/{huge}",
        f"/taxes/{huge}",
        f"/products/categories/{huge}",
        f"/products/attributes/{huge}/terms",
        f"/products/attributes/{{attribute}}/terms/{huge}",
        f"/webhooks/{{webhook}}/deliveries/{huge}",
    ):
        for method in ("GET", "PUT", "DELETE"):
            body = body_bytes({"product": {"title": "x"}}) if method == "PUT" else b""
            response = harness.send(method, path, body)
            assert response.status_int in (400, 404), (method, path[:60], response.status)


def test_odd_paths_do_not_skip_authentication(anonymous: Harness) -> None:
    """protocol.py: ``//`` (and ``.``/``..`` segments, %-encoded or not) must not reach a
    resource without credentials."""
    for path in (
        "//products",
        "/products//{product}",
        "//webhooks/{webhook}",
        "/./products",
        "/products/./{product}",
        "/taxes/../products",
        "/x/../products",
        "/%2e%2e/v3/products",
        "/products/%2e/{product}",
    ):
        for method in ("GET", "DELETE", "PUT"):
            body = body_bytes({"product": {"title": "x"}}) if method == "PUT" else b""
            response = anonymous.send(method, path, body)
            assert response.status_int in (401, 404), (method, path, response.status)


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
