"""The OpenAPI document (``{api_root}/openapi.json``) and its page (``{api_root}/docs``).

The document is validated by ``openapi-spec-validator``; it must name every routed path and
method, every view must have its entry in the table, and every error code the source raises must
appear in it. Real answers of every family are validated against it with undeclared fields
refused, so the hand-declared record shapes cannot drift; and a client generated from it by
``openapi-python-client`` lists and creates products against a live local server.
"""

from __future__ import annotations

import ast
import copy
import importlib
import importlib.metadata
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import colander
import pytest
import sqlalchemy as sa
from jsonschema import Draft202012Validator, ValidationError
from openapi_spec_validator import validate
from webtest import TestApp

from shopsvc import main
from shopsvc.openapi.records import RECORDS
from shopsvc.openapi.routes import routed_views
from shopsvc.openapi.schema import node_schema
from shopsvc.openapi.table import view_docs
from shopsvc.sql.tables import reviews, utc_now
from shopsvc.validation import products, taxes
from tests.helpers.api import LEGACY_ROOT, LEGACY_SETTINGS, ROOT, Credentials
from tests.helpers.live import served
from tests.helpers.sql import insert

PACKAGE = Path(__file__).parent.parent.parent / "shopsvc"
JSON = "application/json"
WEBHOOK_ANSWER = {"properties": {"webhook": {"$ref": "#/components/schemas/Webhook"}}}


def _app(tmp_path: Path, **settings: str) -> TestApp:
    """The application over a database it never opens (the document needs none)."""
    url = f"sqlite:///{tmp_path / 'unused.sqlite'}"
    return TestApp(main({"__file__": "test.ini"}, **{"sqlalchemy.url": url, **settings}))


@pytest.fixture(scope="module")
def doc_app(tmp_path_factory: pytest.TempPathFactory) -> TestApp:
    return _app(tmp_path_factory.mktemp("openapi"))


@pytest.fixture(scope="module")
def document(doc_app: TestApp) -> dict[str, Any]:
    return doc_app.get(f"{ROOT}/openapi.json", status=200).json


# --- the document


def test_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_versions_and_the_answers_no_path_lists(doc_app: TestApp, document: dict[str, Any]) -> None:
    """``info.version`` is the service's (setup.py), the protocol's is ``x-protocol-version``
    (the index's ``version``); HEAD is said once, and so is the 404 of an unrouted method."""
    info = document["info"]
    assert info["version"] == importlib.metadata.version("shopsvc")
    assert info["x-protocol-version"] == doc_app.get(ROOT).json["store"]["version"] == "3.1.0"
    assert "Every GET operation also answers HEAD" in info["description"]
    assert document["x-unrouted-methods"]["status"] == 404
    assert document["x-unrouted-methods"]["code"] == "shop_api_no_route"
    head = [path for path, item in document["paths"].items() if "head" in item]
    assert head == []
    created = [
        response
        for item in document["paths"].values()
        for op in _operations(item)
        for status, response in op["responses"].items()
        if status == "201"
    ]
    assert len(created) > 10
    assert all(r["headers"]["Location"]["schema"]["format"] == "uri" for r in created)
    # what x-unrouted-methods says: a method a path does not list is the legacy 404
    for method in ("delete", "put"):
        response = getattr(doc_app, method)(f"{ROOT}/openapi.json", status=404)
        assert response.json["errors"][0]["code"] == "shop_api_no_route"
        assert "Allow" not in response.headers


def test_document_and_page_need_no_authentication(doc_app: TestApp) -> None:
    response = doc_app.get(f"{ROOT}/openapi.json", status=200)
    assert response.content_type == JSON
    assert doc_app.head(f"{ROOT}/openapi.json", status=200).body == b""
    page = doc_app.get(f"{ROOT}/docs", status=200)
    assert page.content_type == "text/html"
    assert f'"{ROOT}/openapi.json"' in page.text
    assets = re.findall(r'(?:href|src)="([^"]+)"', page.text)
    assert assets and all(asset.startswith(f"{ROOT}/docs/") for asset in assets)
    for asset in assets:  # shipped by a Python package, not fetched from a CDN
        assert doc_app.get(asset, status=200).body
    assert "swagger-ui" in doc_app.get(f"{ROOT}/docs/swagger-ui-bundle.js").text[:2000].lower()


def test_only_the_pages_files_are_served(doc_app: TestApp) -> None:
    for name in ("LICENSE", "swagger-editor.js", "..%2fopenapi.json", "index.html"):
        response = doc_app.get(f"{ROOT}/docs/{name}", status=404)
        assert response.json["errors"][0]["code"] == "shop_api_no_route"
    assert doc_app.post(f"{ROOT}/openapi.json", status=404).json["errors"][0]["code"] == (
        "shop_api_no_route"
    )


def test_the_index_links_the_document(doc_app: TestApp) -> None:
    routes = doc_app.get(ROOT).json["store"]["routes"]
    assert routes["/openapi.json"] == {
        "supports": ["HEAD", "GET"],
        "meta": {"self": f"http://localhost{ROOT}/openapi.json"},
    }
    assert "/docs" not in routes


def _openapi_path(pattern: str) -> str:
    return re.sub(r"<([a-z_]+)>", r"{\1}", pattern)


def test_every_routed_path_and_method_is_in_the_document(
    doc_app: TestApp, document: dict[str, Any]
) -> None:
    routes = doc_app.get(ROOT).json["store"]["routes"]
    paths = document["paths"]
    for pattern, entry in routes.items():
        item = paths[_openapi_path(pattern)]
        listed = {m.upper() for m in item if m != "parameters"}
        assert listed == set(entry["supports"]) - {"HEAD"}, pattern  # HEAD: with every GET
    routed = {_openapi_path(view.pattern): set() for view in routed_views(doc_app.app.registry)}
    for view in routed_views(doc_app.app.registry):
        assert "HEAD" not in view.methods or "GET" in view.methods, view.name
        routed[_openapi_path(view.pattern)].update(set(view.methods) - {"HEAD"})
    documented = {
        path: {m.upper() for m in item if m != "parameters"} for path, item in paths.items()
    }
    assert documented == routed


def test_every_view_has_exactly_one_table_entry(doc_app: TestApp) -> None:
    names = [view.name for view in routed_views(doc_app.app.registry)]
    assert len(names) == len(set(names))
    assert set(view_docs()) == set(names)


def test_operations_are_listed_in_the_order_their_views_are_declared(
    document: dict[str, Any],
) -> None:
    """Not in the order they are registered (the reads first, so that a GET finds its view
    first): a decorated view by its module and name, a family's ``includeme`` in its order."""

    def methods(path: str) -> list[str]:
        return [method for method in document["paths"][path] if method != "parameters"]

    # product_writes.edit_product, then products.delete_product and products.get_product
    assert methods("/products/{id}") == ["post", "put", "patch", "delete", "get"]
    assert methods("/taxes/{id}") == ["delete", "post", "put", "patch", "get"]
    assert methods("/orders") == ["post", "get"]
    # views.terms adds each family's list, create, get, edit and delete in that order
    assert methods("/products/tags") == ["get", "post"]
    assert methods("/products/tags/{id}") == ["get", "post", "put", "patch", "delete"]


def test_operations_are_unique_and_carry_their_parameters(document: dict[str, Any]) -> None:
    ids = [op["operationId"] for item in document["paths"].values() for op in _operations(item)]
    assert len(ids) == len(set(ids))
    for path, item in document["paths"].items():
        declared = [param["name"] for param in item.get("parameters", [])]
        assert declared == re.findall(r"{([a-z_]+)}", path), path
    products_list = document["paths"]["/products"]["get"]
    names = {param["name"] for param in products_list["parameters"]}
    assert {"page", "fields", "filter[limit]", "filter[orderby]", "filter[sku]", "type"} <= names
    orderby = next(p for p in products_list["parameters"] if p["name"] == "filter[orderby]")
    # read case-insensitively, white space around ignored (web.listing.parse_list_params)
    pattern = re.compile(orderby["schema"]["pattern"])
    assert [bool(pattern.search(v)) for v in ("menu_order", " MENU_Order ", "", "price")] == [
        True,
        True,
        True,
        False,
    ]
    # an id is at least 1 (every family's check_id refuses 0)
    assert document["paths"]["/taxes/{id}"]["parameters"][0]["schema"] == {
        "type": "integer",
        "minimum": 1,
    }
    slug = document["paths"]["/taxes/classes/{slug}"]["parameters"][0]["schema"]
    assert slug["type"] == "string" and slug["pattern"]


def _operations(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for method, op in item.items() if method != "parameters"]


def test_security_schemes_and_public_routes(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["basicAuth"] == {**schemes["basicAuth"], "type": "http", "scheme": "basic"}
    assert {schemes["consumerKey"]["name"], schemes["consumerSecret"]["name"]} == {
        "consumer_key",
        "consumer_secret",
    }
    assert schemes["oauth1"]["in"] == "query"
    assert "HMAC-SHA256" in schemes["oauth1"]["description"]
    public = {
        path
        for path, item in document["paths"].items()
        for op in _operations(item)
        if op.get("security") == []
    }
    assert public == {"/", "/openapi.json", "/docs", "/docs/{file}"}
    webhooks = document["paths"]["/webhooks"]["get"]["responses"]
    assert "shop_api_authentication_error" in webhooks["401"]["x-error-codes"]
    assert "shop_api_user_cannot_read_webhook" in webhooks["401"]["x-error-codes"]


def test_lists_carry_the_pagination_headers_of_the_setting(
    tmp_path: Path, document: dict[str, Any]
) -> None:
    headers = document["paths"]["/webhooks"]["get"]["responses"]["200"]["headers"]
    assert set(headers) == {"X-Shop-Total", "X-Shop-TotalPages", "Link"}
    assert set(document["components"]["headers"]) == set(headers)
    legacy = _app(tmp_path, **LEGACY_SETTINGS).get(f"{LEGACY_ROOT}/openapi.json").json
    assert legacy["servers"] == [{"url": LEGACY_ROOT}]
    assert set(legacy["components"]["headers"]) == {"X-WC-Total", "X-WC-TotalPages", "Link"}


def test_errors_of_a_route_come_from_its_loader(document: dict[str, Any]) -> None:
    responses = document["paths"]["/orders/{id}"]["get"]["responses"]
    assert responses["404"]["x-error-codes"] == [
        "shop_api_invalid_order_id",
        "shop_api_no_order_found",
        "shop_api_no_route",  # an id that is not digits routes nowhere
    ]
    assert "shop_api_user_cannot_read_order" in responses["401"]["x-error-codes"]
    assert document["components"]["schemas"]["Errors"]["required"] == ["errors"]
    bulk = document["paths"]["/products/bulk"]["post"]["responses"]
    assert bulk["413"]["x-error-codes"][0] == "shop_api_products_request_entity_too_large"
    assert "shop_api_product_sku_already_exists" in bulk["200"]["x-element-error-codes"]


def _raised_codes() -> set[str]:
    """The first argument of every ``ApiError(...)`` / ``_error(...)`` / ``CodedInvalid(...)``
    call of the source, and every ``…_ERROR = "code"`` constant."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                position = {"ApiError": 0, "_error": 0, "CodedInvalid": 2}.get(node.func.id)
                if position is not None and len(node.args) > position:
                    argument = node.args[position]
                    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                        found.add(argument.value)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if any(name.endswith("_ERROR") for name in names):
                    found.add(str(node.value.value))
    return found


def test_every_error_code_of_the_source_is_documented(document: dict[str, Any]) -> None:
    answers = [
        *document["components"]["responses"].values(),
        *(
            response
            for item in document["paths"].values()
            for op in _operations(item)
            for response in op["responses"].values()
        ),
    ]
    documented = {
        code
        for response in answers
        for code in response.get("x-error-codes", []) + response.get("x-element-error-codes", [])
    }
    raised = _raised_codes()
    assert len(raised) > 60
    # raised only before routing (the protocol), which the document's description names
    # (shop_api_no_route also by the page's files: a name it does not serve)
    protocol = {"shop_api_jsonp_disabled", "shop_api_unsupported_method", "shop_api_no_route"}
    assert raised - documented == protocol - {"shop_api_no_route"}
    assert all(f"`{code}`" in document["info"]["description"] for code in protocol)


# --- bodies from the Colander schemas


def test_write_bodies_are_the_colander_schemas(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert set(schemas["TaxWrite"]["properties"]) == {
        node.name for node in taxes.RATE_SCHEMA.children
    }
    for node in products.PRODUCT_SCHEMA.children:
        assert node.name in schemas["ProductWrite"]["properties"], node.name
    for node in products.VARIATION_SCHEMA.children:
        assert node.name in schemas["VariationWrite"]["properties"], node.name
    product = schemas["ProductCreate"]
    assert product["required"] == ["title"]
    # an optional field may be null (absent), as every write reads it
    assert product["properties"]["type"]["enum"] == [
        *("simple", "grouped", "external", "variable"),
        None,
    ]
    featured = product["properties"]["featured"]["anyOf"]
    assert featured[0] == {"type": "boolean"} and featured[-1] == {"type": "null"}
    assert product["properties"]["menu_order"]["anyOf"][0]["maximum"] == 2**31 - 1
    attribute = schemas["ProductAttributeCreate"]
    assert attribute["properties"]["order_by"]["enum"] == [
        *("menu_order", "name", "name_num", "id"),
        None,
    ]
    image = schemas["ProductCategoryWrite"]["properties"]["image"]["anyOf"]
    assert [branch.get("type") for branch in image] == ["number", "string", "null"]
    assert schemas["WebhookEdit"]["properties"]["status"]["enum"] == [
        *("active", "paused", "disabled"),
        None,
    ]
    body = document["paths"]["/products"]["post"]["requestBody"]["content"][JSON]["schema"]
    assert body["required"] == ["product"]


def test_colander_validators_become_keywords() -> None:
    schema = colander.SchemaNode(
        colander.Mapping(),
        colander.SchemaNode(colander.String(), name="kind", validator=colander.OneOf(["a", "b"])),
        colander.SchemaNode(
            colander.Integer(), name="size", validator=colander.Range(1, 9), missing=0
        ),
        colander.SchemaNode(
            colander.String(), name="code", validator=colander.Length(max=4), missing=""
        ),
    )
    assert node_schema(schema) == {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["a", "b"]},
            "size": {"type": ["integer", "null"], "minimum": 1, "maximum": 9},
            "code": {"type": ["string", "null"], "maxLength": 4},
        },
        "required": ["kind"],
    }

    class Unknown(colander.SchemaType):
        pass

    with pytest.raises(TypeError, match="Unknown"):
        node_schema(colander.SchemaNode(Unknown()))


# --- real answers against the document (both databases)


def _strict(schema: Any) -> Any:
    """``schema`` with every object that lists its properties closed to any other."""
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    strict = {key: _strict(value) for key, value in schema.items()}
    if "properties" in strict and "additionalProperties" not in strict:
        strict["additionalProperties"] = False
    return strict


def _whole(schema: Any) -> Any:
    """``schema`` with each "record or the part ``fields`` kept" (``anyOf`` a record and its
    ``…Partial``) replaced by the record alone."""
    if isinstance(schema, list):
        return [_whole(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    branches = schema.get("anyOf")
    if (
        isinstance(branches, list)
        and len(branches) == 2
        and branches[1].get("$ref") == branches[0].get("$ref", "-") + "Partial"
    ):
        return branches[0]
    return {key: _whole(value) for key, value in schema.items()}


class Checker:
    """Calls the API and validates each answer against the document's schema for it."""

    def __init__(self, api: TestApp, document: dict[str, Any]) -> None:
        self.api = api
        self.document = document
        self.components = _strict(copy.deepcopy(document["components"]))
        self.records: set[str] = set()  # the components the checked answers named

    def __call__(
        self, method: str, url: str, path: str, body: Any = None, status: int = 200
    ) -> Any:
        if body is None:
            response = self.api.request(ROOT + url, method=method, status=status)
        else:
            response = getattr(self.api, f"{method.lower()}_json")(ROOT + url, body, status=status)
        operation = self.document["paths"][path][method.lower()]
        declared = operation["responses"][str(status)]
        schema = _strict(copy.deepcopy(declared["content"][JSON]["schema"]))
        if "fields=" not in url:  # whole records: every required field must be there
            schema = _whole(schema)
        Draft202012Validator({**schema, "components": self.components}).validate(response.json)
        if "X-Shop-Total" in declared.get("headers", {}):
            assert {"X-Shop-Total", "X-Shop-TotalPages"} <= set(response.headers)
        self.records.update(re.findall(r"#/components/schemas/(\w+)", json.dumps(schema)))
        return response.json


@pytest.fixture
def check(api: TestApp, document: dict[str, Any], no_ping: None) -> Checker:
    return Checker(api, document)


def _catalogue(check: Checker, engine: sa.Engine) -> dict[str, int]:
    category = check(
        "POST",
        "/products/categories",
        "/products/categories",
        {"product_category": {"name": "Shirts"}},
        201,
    )["product_category"]["id"]
    check("POST", "/products/tags", "/products/tags", {"product_tag": {"name": "Sale"}}, 201)
    check(
        "POST",
        "/products/shipping_classes",
        "/products/shipping_classes",
        {"product_shipping_class": {"name": "Big"}},
        201,
    )
    attribute = check(
        "POST",
        "/products/attributes",
        "/products/attributes",
        {"product_attribute": {"name": "Colour"}},
        201,
    )["product_attribute"]["id"]
    check(
        "POST",
        f"/products/attributes/{attribute}/terms",
        "/products/attributes/{attribute_id}/terms",
        {"product_attribute_term": {"name": "Red"}},
        201,
    )
    for url, path in (
        ("/products/categories", "/products/categories"),
        ("/products/tags", "/products/tags"),
        ("/products/shipping_classes", "/products/shipping_classes"),
        ("/products/attributes", "/products/attributes"),
        (f"/products/attributes/{attribute}/terms", "/products/attributes/{attribute_id}/terms"),
    ):
        check("GET", url, path)
    variable = check(
        "POST",
        "/products",
        "/products",
        {
            "product": {
                "title": "Shirt",
                "type": "variable",
                "categories": [category],
                "downloadable": True,
                "downloads": [{"name": "Guide", "file": "https://example.com/guide.pdf"}],
                "attributes": [
                    {"name": "Colour", "options": ["Red"], "variation": True, "visible": True}
                ],
                "variations": [
                    {"regular_price": "9", "attributes": [{"name": "Colour", "option": "Red"}]}
                ],
            }
        },
        201,
    )["product"]
    simple = check(
        "POST",
        "/products",
        "/products",
        {"product": {"title": "Mug", "regular_price": "5", "sku": "MUG"}},
        201,
    )
    grouped = check(
        "POST", "/products", "/products", {"product": {"title": "Set", "type": "grouped"}}, 201
    )["product"]["id"]
    check(
        "POST",
        "/products",
        "/products",
        {"product": {"title": "Cup", "regular_price": "2", "parent_id": grouped}},
        201,
    )
    check("GET", f"/products/{grouped}", "/products/{id}")
    check("GET", f"/products/{variable['variations'][0]['id']}", "/products/{id}")
    check("GET", "/products?filter[meta]=true&filter[post_status]=any", "/products")
    check(
        "POST",
        "/products/bulk",
        "/products/bulk",
        {"products": [{"sku": "MUG", "regular_price": "6"}, {"title": "Bad", "type": "x"}]},
    )
    product_id = simple["product"]["id"]
    insert(
        engine,
        reviews,
        product_id=product_id,
        reviewer_name="Ann",
        reviewer_email="a@b.c",
        review="Good",
        rating=5,
        created_at=utc_now(),
    )
    check("GET", f"/products/{product_id}/reviews", "/products/{id}/reviews")
    check("GET", "/products/count", "/products/count")
    return {"product": product_id, "variable": variable["id"]}


def _orders(check: Checker, product_id: int, customer_id: int) -> None:
    check("POST", "/taxes", "/taxes", {"tax": {"rate": "10", "name": "VAT"}}, 201)
    order = check(
        "POST",
        "/orders",
        "/orders",
        {
            "order": {
                "customer_id": customer_id,
                "line_items": [{"product_id": product_id, "quantity": 2}],
                "shipping_lines": [{"method_id": "flat", "method_title": "Flat", "total": "3"}],
                "fee_lines": [{"title": "Wrap", "total": "1"}],
                "coupon_lines": [{"code": "less", "amount": "1"}],
                "payment_details": {"method_id": "card", "method_title": "Card", "paid": True},
                "order_meta": {"gift": "yes"},
            }
        },
        201,
    )["order"]
    order_id = order["id"]
    check(
        "GET",
        f"/orders/{order_id}?filter[expand]=products,taxes,coupons&filter[meta]=true",
        "/orders/{id}",
    )
    check("GET", "/orders", "/orders")
    check("GET", "/orders/count?status=any", "/orders/count")
    check("GET", "/orders/statuses", "/orders/statuses")
    check("GET", f"/products/{product_id}/orders", "/products/{id}/orders")
    check(
        "POST",
        f"/orders/{order_id}/notes",
        "/orders/{order_id}/notes",
        {"order_note": {"note": "Hi"}},
        201,
    )
    check("GET", f"/orders/{order_id}/notes", "/orders/{order_id}/notes")
    line = order["line_items"][0]["id"]
    check(
        "POST",
        f"/orders/{order_id}/refunds",
        "/orders/{order_id}/refunds",
        {"order_refund": {"amount": "1", "line_items": {str(line): {"qty": 1}}}},
        201,
    )
    check("GET", f"/orders/{order_id}/refunds", "/orders/{order_id}/refunds")
    check("POST", "/orders/bulk", "/orders/bulk", {"orders": [{"id": order_id, "note": "x"}]})
    check("DELETE", f"/orders/{order_id}", "/orders/{id}", status=202)


def test_real_answers_match_the_document(
    check: Checker, engine: sa.Engine, make_key: Callable[..., Credentials]
) -> None:
    check("GET", "", "/")
    webhook = check(
        "POST",
        "/webhooks",
        "/webhooks",
        {"webhook": {"topic": "order.created", "delivery_url": "https://example.com/hook"}},
        201,
    )["webhook"]
    check("GET", "/webhooks", "/webhooks")
    check("GET", "/webhooks/count", "/webhooks/count")
    check("GET", f"/webhooks/{webhook['id']}/deliveries", "/webhooks/{webhook_id}/deliveries")
    check("POST", "/taxes/classes", "/taxes/classes", {"tax_class": {"name": "Zero"}}, 201)
    check("GET", "/taxes/classes", "/taxes/classes")
    check("PUT", "/taxes/bulk", "/taxes/bulk", {"taxes": [{"rate": "5"}, {"rate": "-1"}]})
    check("GET", "/taxes", "/taxes")
    ids = _catalogue(check, engine)
    _orders(check, ids["product"], make_key("customer", "read").user_id)
    check("DELETE", f"/products/{ids['variable']}", "/products/{id}", status=202)
    assert check.records >= set(RECORDS) - {"WebhookDelivery"}
    undeclared = {"webhook": {**webhook, "secret": "x"}}
    with pytest.raises(ValidationError, match="secret"):
        Draft202012Validator({**_strict(WEBHOOK_ANSWER), "components": check.components}).validate(
            undeclared
        )


# --- a generated client (both databases)


@pytest.fixture(scope="module")
def generated_client(
    document: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """The package ``openapi-python-client`` generates from the document, imported."""
    folder = tmp_path_factory.mktemp("client")
    spec = folder / "openapi.json"
    spec.write_text(json.dumps(document), encoding="utf-8")
    config = folder / "config.yaml"
    config.write_text("post_hooks: []\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "openapi_python_client",
        "generate",
        "--path",
        str(spec),
        "--output-path",
        str(folder / "shop_client"),
        "--meta",
        "none",
        "--config",
        str(config),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("shop_client")
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m.split(".")[0] == "shop_client"]:
            del sys.modules[name]


@pytest.fixture
def live_url(app: TestApp) -> Iterator[str]:
    """The test application served over HTTP on 127.0.0.1."""
    with served(app.app, ROOT) as url:
        yield url


def test_a_generated_client_lists_and_creates_products(
    generated_client: Any, live_url: str, admin: Credentials
) -> None:
    client_module = generated_client
    create = importlib.import_module("shop_client.api.products.create_product")
    listing = importlib.import_module("shop_client.api.products.list_products")
    models = importlib.import_module("shop_client.models")
    client = client_module.Client(
        base_url=live_url,
        httpx_args={"auth": (admin.consumer_key, admin.consumer_secret)},
        raise_on_unexpected_status=True,
    )
    body = models.CreateProductBody(
        product=models.ProductCreate(title="Client shirt", regular_price="9.50", sku="CS-1")
    )
    created = create.sync_detailed(client=client, body=body)
    assert created.status_code == 201
    product = created.parsed.product
    assert (product.title, product.regular_price, product.sku) == ("Client shirt", "9.50", "CS-1")
    listed = listing.sync_detailed(client=client, filterlimit=5)
    assert listed.status_code == 200
    assert [item.id for item in listed.parsed.products] == [product.id]
    assert listed.headers["X-Shop-Total"] == "1"
    refused = create.sync_detailed(client=client_module.Client(base_url=live_url), body=body)
    assert refused.status_code == 401
    assert refused.parsed.errors[0].code == "shop_api_authentication_error"


def test_answers_cut_by_fields_match_the_partial_records(
    check: Checker, api: TestApp, document: dict[str, Any]
) -> None:
    """``fields`` drops required fields, at the top and one level down: such answers match the
    ``…Partial`` variant the operation names beside the record, and would not match the record."""
    webhook = check(
        "POST",
        "/webhooks",
        "/webhooks",
        {"webhook": {"topic": "order.created", "delivery_url": "https://example.com/hook"}},
        201,
    )["webhook"]
    assert check("GET", "/webhooks?fields=id", "/webhooks") == {"webhooks": [{"id": webhook["id"]}]}
    one = check("GET", f"/webhooks/{webhook['id']}?fields=topic,nothing", "/webhooks/{id}")
    assert one == {"webhook": {"topic": "order.created"}}
    product = api.post_json(
        f"{ROOT}/products",
        {"product": {"title": "Box", "dimensions": {"width": "2", "height": "3"}}},
        status=201,
    ).json["product"]
    cut = check("GET", f"/products/{product['id']}?fields=title,dimensions.width", "/products/{id}")
    assert cut == {"product": {"title": "Box", "dimensions": {"width": "2.00"}}}
    whole = {
        **_strict(document["components"]["schemas"]["Product"]),
        "components": check.components,
    }
    with pytest.raises(ValidationError, match="required"):
        Draft202012Validator(whole).validate(cut["product"])
