"""Hostile query strings on every list, count and single GET route, odd paths and methods, and
the regressions they found in the protocol layer (the JSON parser, the query parser, path
traversal and authentication); see :mod:`tests.hostile`.

Every request must be answered below 500, a 4xx carries the error JSON, a failure writes
nothing; without credentials no spelling of a path reaches a resource. Every property is
deterministic (``derandomize``, no example database) and bounded in examples.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from tests.helpers.api import ROOT
from tests.hostile.bodies import HUGE_DIGITS, Raw, body_bytes, deep_array, deep_object
from tests.hostile.harness import Harness, hostile_settings
from tests.hostile.paths import PathCase, path_cases
from tests.hostile.queries import list_cases

# WebTest's WSGI checker warns about the unknown methods the suite sends on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:Unknown REQUEST_METHOD")

QUERY_EXAMPLES = 100
PATH_EXAMPLES = 80


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


# --- regressions of the protocol layer and the product write view


def test_json_numbers_of_any_length_name_their_field(harness: Harness) -> None:
    """web/body.py: a JSON number of 5000 digits is valid JSON (RFC 8259 sets no limit), but
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
    """web/body.py: JSON nested hundreds deep must be refused before anything recurses into
    it (``shop_api_invalid_json``), at any depth."""
    for depth in (64, 65, 400, 1000, 5000, 100_000):
        for nested in (deep_array(depth), deep_object(depth)):
            fields = {"title": "x", "name": "x", "images": nested, "postcode": nested}
            response = harness.send("POST", path, body_bytes({envelope: fields}))
            assert 400 <= response.status_int < 500, (depth, response.status)


def test_query_integers_of_any_length(harness: Harness) -> None:
    """web/listing.py: a query integer of more than 4300 digits was a 500 (ValueError); any
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
    """web/resources.py: an id segment of more than 4300 digits was a 500 (ValueError)."""
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
