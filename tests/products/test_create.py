"""``POST /products``: the record of each type, every write-field rule and every error code."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql.tables import (
    attribute_terms,
    downloads,
)
from tests.helpers.api import TIMESTAMP, error
from tests.helpers.products import (
    URL,
    create,
    fails,
    get,
    row,
    seed_attribute,
    seed_attribute_term,
    seed_tax_class,
    seed_term,
)
from tests.helpers.sql import count_rows, select_all

PLACEHOLDER_SRC = "http://localhost/media/placeholder.png"


# --- the record of each type


def _stamped(record: dict[str, Any]) -> str:
    assert TIMESTAMP.fullmatch(record["created_at"])
    assert record["updated_at"] == record["created_at"]
    return record["created_at"]


def test_create_simple_product_exact_record(api: Any, engine: sa.Engine) -> None:
    shoes = seed_term(engine, "product_cat", "Shoes")
    sale = seed_term(engine, "product_cat", "Sale")
    summer = seed_term(engine, "product_tag", "Summer")
    bulky = seed_term(engine, "product_shipping_class", "Bulky", "bulky")
    seed_tax_class(engine, "reduced-rate", "Reduced rate")
    response = api.post_json(
        URL,
        {
            "product": {
                "title": "Blue <b>Shoe</b>",
                "name": "Blue Shoe!",
                "type": "simple",
                "regular_price": "21.5",
                "sale_price": 19.99,
                "sku": " SHOE-1 ",
                "description": "Line one\nline two\n\nSecond <b>paragraph</b> & 5 < 6",
                "short_description": "<p>Short <script>x()</script><em>text</em></p>",
                "enable_html_short_description": True,
                "menu_order": "3",
                "catalog_visibility": "catalog",
                "featured": "yes",
                "tax_status": "shipping",
                "tax_class": "Reduced Rate",
                "purchase_note": "Thanks!",
                "sold_individually": 1,
                "managing_stock": True,
                "stock_quantity": 7,
                "backorders": "notify",
                "upsell_ids": [5, 0, -3, "6", 5],
                "cross_sell_ids": [9],
                "categories": [shoes, str(sale)],
                "tags": [summer],
                "weight": "1.5",
                "dimensions": {"length": "10", "width": 2.25, "height": ""},
                "shipping_class": "bulky",
                "reviews_allowed": False,
            }
        },
        status=201,
    )
    assert response.content_type == "application/json"
    record = response.json["product"]
    stamp = _stamped(record)
    product_id = record["id"]
    assert record == {
        "title": "Blue Shoe",
        "id": product_id,
        "created_at": stamp,
        "updated_at": stamp,
        "type": "simple",
        "status": "publish",
        "downloadable": False,
        "virtual": False,
        "permalink": "http://localhost/product/blue-shoe/",
        "sku": "SHOE-1",
        "price": "19.99",
        "regular_price": "21.50",
        "sale_price": "19.99",
        "price_html": '<del><span class="amount">$21.50</span></del> '
        '<ins><span class="amount">$19.99</span></ins>',
        "taxable": False,
        "tax_status": "shipping",
        "tax_class": "reduced-rate",
        "managing_stock": True,
        "stock_quantity": 7,
        "in_stock": True,
        "backorders_allowed": True,
        "backordered": False,
        "sold_individually": True,
        "purchaseable": True,
        "featured": True,
        "visible": True,
        "catalog_visibility": "catalog",
        "on_sale": True,
        "product_url": "",
        "button_text": "",
        "weight": "1.50",
        "dimensions": {"length": "10.00", "width": "2.25", "height": "", "unit": "cm"},
        "shipping_required": True,
        "shipping_taxable": True,
        "shipping_class": "bulky",
        "shipping_class_id": bulky,
        "description": "<p>Line one<br />\nline two</p>\n<p>Second paragraph &amp; 5 &lt; 6</p>",
        "short_description": "<p>Short <em>text</em></p>",
        "reviews_allowed": False,
        "average_rating": "0.00",
        "rating_count": 0,
        "related_ids": [],
        "upsell_ids": [5, 6],
        "cross_sell_ids": [9],
        "parent_id": 0,
        "categories": ["Sale", "Shoes"],
        "tags": ["Summer"],
        "images": [
            {
                "id": 0,
                "created_at": stamp,
                "updated_at": stamp,
                "src": PLACEHOLDER_SRC,
                "title": "Placeholder",
                "alt": "Placeholder",
                "position": 0,
            }
        ],
        "featured_src": "",
        "attributes": [],
        "downloads": [],
        "download_limit": -1,
        "download_expiry": -1,
        "download_type": "standard",
        "purchase_note": "<p>Thanks!</p>",
        "total_sales": 0,
        "variations": [],
        "parent": {},
        "grouped_products": [],
        "menu_order": 3,
    }
    # the answer is exactly what GET returns
    assert get(api, product_id) == record
    stored = row(engine, product_id)
    assert stored["slug"] == "blue-shoe"
    assert stored["sku"] == "SHOE-1"
    assert stored["stock_status"] == "instock"
    assert stored["backorders"] == "notify"


def test_create_defaults(api: Any, engine: sa.Engine) -> None:
    record = create(api, title="Plain")
    assert record["type"] == "simple"
    assert record["status"] == "publish"
    assert record["catalog_visibility"] == "visible"
    assert record["menu_order"] == 0
    assert record["price"] == "" and record["regular_price"] == ""
    assert record["sale_price"] is None
    assert record["sku"] == ""
    assert record["managing_stock"] is False and record["stock_quantity"] is None
    assert record["in_stock"] is True
    assert record["reviews_allowed"] is True
    assert record["categories"] == []  # no automatic category
    assert record["purchaseable"] is False  # no price
    stored = row(engine, record["id"])
    assert stored["sku"] is None
    assert stored["tax_status"] == "taxable" and stored["tax_class"] == ""
    assert stored["total_sales"] == 0


def test_create_external_product(api: Any) -> None:
    record = create(
        api,
        title="Book",
        type="external",
        product_url=" https://example.com/book ",
        button_text="Buy <b>it</b>",
        regular_price="12",
        managing_stock=True,
        stock_quantity=0,
        in_stock=False,
        backorders=True,
    )
    assert record["type"] == "external"
    assert record["product_url"] == "https://example.com/book"
    assert record["button_text"] == "Buy it"
    assert record["price"] == "12.00" and record["regular_price"] == "12.00"
    # external products are always in stock and never manage stock
    assert record["managing_stock"] is False
    assert record["stock_quantity"] is None
    assert record["in_stock"] is True
    assert record["backorders_allowed"] is False
    assert record["purchaseable"] is False


def test_product_url_only_for_external(api: Any, engine: sa.Engine) -> None:
    record = create(api, title="Simple", product_url="https://x.test/", button_text="Go")
    assert record["product_url"] == "" and record["button_text"] == ""
    stored = row(engine, record["id"])
    assert stored["product_url"] == "" and stored["button_text"] == ""


def test_create_grouped_product_with_children(api: Any) -> None:
    group = create(
        api,
        title="Group",
        type="grouped",
        regular_price="50",
        sale_price="40",
        managing_stock=True,
        stock_quantity=3,
        in_stock=False,
    )
    assert group["type"] == "grouped"
    assert group["regular_price"] == "" and group["price"] == "" and group["sale_price"] is None
    assert group["managing_stock"] is False and group["stock_quantity"] is None
    assert group["in_stock"] is False  # grouped products keep the status asked for
    first = create(api, title="One", regular_price="3", parent_id=group["id"])
    second = create(api, title="Two", regular_price="5", parent_id=str(group["id"]))
    assert first["parent_id"] == group["id"]
    assert first["parent"]["id"] == group["id"]
    again = get(api, group["id"])
    assert [child["id"] for child in again["grouped_products"]] == [first["id"], second["id"]]
    assert again["price"] == "3.00"


def test_create_variable_product_with_variations(api: Any, engine: sa.Engine) -> None:
    color = seed_attribute(engine, "Color", "color")
    seed_attribute_term(engine, color, "Red", "red")
    record = create(
        api,
        title="Tee",
        type="variable",
        regular_price="99",
        sale_price="1",
        sale_price_dates_to="2099-01-01",
        attributes=[
            {"name": "Color", "slug": "pa_color", "options": ["Red", "Blue"], "variation": True},
            {"name": "Size", "options": "S | M", "variation": "yes", "visible": 1, "position": 1},
        ],
        default_attributes=[{"name": "Color", "slug": "color", "option": "Blue"}],
        variations=[
            {
                "sku": "TEE-RED-S",
                "regular_price": "10",
                "attributes": [
                    {"name": "Color", "slug": "color", "option": "Red"},
                    {"name": "Size", "option": "S"},
                ],
            },
            {
                "regular_price": "12",
                "visible": False,
                "managing_stock": True,
                "stock_quantity": 4,
                "attributes": [{"name": "Color", "slug": "pa_color", "option": "blue"}],
            },
        ],
    )
    assert record["type"] == "variable"
    assert record["regular_price"] == "" and record["sale_price"] is None
    assert record["price"] == "10.00"  # the private variation is not counted
    assert [v["sku"] for v in record["variations"]] == ["TEE-RED-S", ""]
    first, second = record["variations"]
    assert first["attributes"] == [
        {"name": "Color", "slug": "color", "option": "red"},
        {"name": "Size", "slug": "size", "option": "S"},
    ]
    assert first["visible"] is True and first["price"] == "10.00"
    assert second["visible"] is False
    assert second["attributes"] == [
        {"name": "Color", "slug": "color", "option": "blue"},
        {"name": "Size", "slug": "size", "option": ""},
    ]
    assert second["managing_stock"] is True and second["stock_quantity"] == 4
    assert record["attributes"] == [
        {
            "name": "Color",
            "slug": "color",
            "position": 0,
            "visible": False,
            "variation": True,
            "options": ["Blue", "Red"],  # the attribute's term order (menu order, then name)
        },
        {
            "name": "Size",
            "slug": "size",
            "position": 1,
            "visible": True,
            "variation": True,
            "options": ["S", "M"],
        },
    ]
    stored = row(engine, record["id"])
    assert stored["regular_price"] is None and stored["sale_to"] is None
    assert json.loads(stored["default_attributes"]) == [{"slug": "color", "option": "blue"}]
    first_row = row(engine, first["id"])
    assert first_row["title"] == "Tee - Red, S"
    assert first_row["type"] == "variation" and first_row["parent_id"] == record["id"]
    assert first_row["menu_order"] == 0 and first_row["status"] == "publish"
    second_row = row(engine, second["id"])
    assert second_row["status"] == "private" and second_row["menu_order"] == 1
    assert second_row["title"] == "Tee"  # an "any" value: no attribute names in the title
    # "Blue" was created as a term of the global attribute
    names = {t["name"]: t["slug"] for t in select_all(engine, attribute_terms)}
    assert names == {"Red": "red", "Blue": "blue"}


def test_variations_ignored_for_non_variable(api: Any, engine: sa.Engine) -> None:
    record = create(api, title="Simple", variations=[{"regular_price": "3"}])
    assert record["variations"] == []
    assert count_rows(engine) == 1


# --- the order of the checks and their codes


def test_missing_envelope(api: Any) -> None:
    message = "No product data specified to create product."
    for body in ({}, {"products": {}}, {"product": None}):
        assert fails(api, body) == (400, "shop_api_missing_product_data", message)
    response = api.post(URL, "", status=400)
    assert error(response)[1] == "shop_api_missing_product_data"
    response = api.post(URL, "{bad", content_type="application/json", status=400)
    assert error(response)[1] == "shop_api_invalid_json"


def test_capability_checked_after_envelope(customer_api: Any) -> None:
    assert fails(customer_api, {})[1] == "shop_api_missing_product_data"
    assert fails(customer_api, {"product": {"type": "bogus"}}) == (
        401,
        "shop_api_user_cannot_create_product",
        "You do not have permission to create products.",
    )


def test_envelope_not_an_object(api: Any) -> None:
    status, code, message = fails(api, {"product": [1]})
    assert (status, code) == (400, "shop_api_invalid_param")
    assert "product" in message


def test_missing_title(api: Any, engine: sa.Engine) -> None:
    for body in ({"type": "simple"}, {"title": None, "type": "bogus"}):
        assert fails(api, {"product": body}) == (
            400,
            "shop_api_missing_product_title",
            "Missing parameter title.",
        )
    assert count_rows(engine) == 0


def test_empty_title_is_product(api: Any) -> None:
    record = create(api, title="")
    assert record["title"] == "Product"
    assert record["permalink"].endswith("/product/product/")


def test_invalid_type(api: Any, engine: sa.Engine) -> None:
    message = (
        "Invalid product type - the product type must be any of these: "
        "simple, grouped, external, variable"
    )
    for kind in ("variation", "Simple", "", 5, ["simple"]):
        assert fails(api, {"product": {"title": "x", "type": kind, "status": "bogus"}}) == (
            400,
            "shop_api_invalid_product_type",
            message,
        )
    assert count_rows(engine) == 0


INVALID_FIELDS = [
    ({"title": ["x"]}, "product.title"),
    ({"status": "trash"}, "product.status"),
    ({"status": "bogus"}, "product.status"),
    ({"status": 5}, "product.status"),
    ({"catalog_visibility": ["visible"]}, "product.catalog_visibility"),
    ({"tax_status": []}, "product.tax_status"),
    ({"tax_class": "no-such-class"}, "product.tax_class"),
    ({"tax_class": "parent"}, "product.tax_class"),
    ({"regular_price": "abc"}, "product.regular_price"),
    ({"regular_price": "-1"}, "product.regular_price"),
    ({"sale_price": []}, "product.sale_price"),
    ({"sale_price": True}, "product.sale_price"),
    ({"regular_price": "1e3"}, "product.regular_price"),
    ({"regular_price": "1000000000000"}, "product.regular_price"),
    ({"sale_price_dates_from": "31/01/2015"}, "product.sale_price_dates_from"),
    ({"sale_price_dates_to": "2015-02-30"}, "product.sale_price_dates_to"),
    ({"sale_price_dates_to": 20150101}, "product.sale_price_dates_to"),
    ({"menu_order": "first"}, "product.menu_order"),
    ({"menu_order": 2**40}, "product.menu_order"),
    ({"virtual": "maybe"}, "product.virtual"),
    ({"featured": 2}, "product.featured"),
    ({"managing_stock": "sure"}, "product.managing_stock"),
    ({"stock_quantity": 1.5}, "product.stock_quantity"),
    ({"inventory_delta": "many"}, "product.inventory_delta"),
    ({"parent_id": 999}, "product.parent_id"),
    ({"parent_id": -1}, "product.parent_id"),
    ({"parent_id": "x"}, "product.parent_id"),
    ({"categories": [999]}, "product.categories"),
    ({"categories": "1"}, "product.categories"),
    ({"tags": ["x"]}, "product.tags[0]"),
    ({"tags": [12345]}, "product.tags"),
    ({"shipping_class": "nope"}, "product.shipping_class"),
    ({"images": [{"id": 999}]}, "product.images[0].id"),
    ({"images": [{"id": "x"}]}, "product.images[0].id"),
    ({"images": [5]}, "product.images[0]"),
    ({"images": [{"src": ["x"]}]}, "product.images[0].src"),
    ({"attributes": "Color"}, "product.attributes"),
    ({"attributes": [5]}, "product.attributes[0]"),
    ({"attributes": [{"name": "A", "options": {"x": 1}}]}, "product.attributes[0].options"),
    ({"attributes": [{"name": "A", "position": "x", "options": []}]}, "product.attributes[0]"),
    ({"downloadable": True, "downloads": [{"file": []}]}, "product.downloads[0].file"),
    ({"downloadable": True, "downloads": "x"}, "product.downloads"),
    ({"download_limit": -2}, "product.download_limit"),
    ({"download_expiry": "soon"}, "product.download_expiry"),
    ({"dimensions": "10x10"}, "product.dimensions"),
    ({"dimensions": {"length": "long"}}, "product.dimensions.length"),
    ({"weight": "heavy"}, "product.weight"),
    ({"upsell_ids": ["a"]}, "product.upsell_ids[0]"),
    ({"cross_sell_ids": 5}, "product.cross_sell_ids"),
    ({"sku": {"a": 1}}, "product.sku"),
    ({"sku": "x" * 201}, "product.sku"),
    ({"sku": "a\x00b"}, "product.sku"),
    ({"description": "a\x00b"}, "product.description"),
    ({"variations": "x"}, "product.variations"),
    ({"type": "variable", "variations": [1]}, "product.variations[0]"),
    (
        {"type": "variable", "variations": [{"regular_price": "x"}]},
        "product.variations[0].regular_price",
    ),
    ({"type": "variable", "variations": [{"visible": "x"}]}, "product.variations[0].visible"),
    ({"default_attributes": "x"}, "product.default_attributes"),
    ({"reviews_allowed": "perhaps"}, "product.reviews_allowed"),
    ({"enable_html_description": "x", "description": "d"}, "product.enable_html_description"),
]


def test_text_that_is_not_unicode_is_invalid_json(api: Any, engine: sa.Engine) -> None:
    status, code, _ = fails(api, {"product": {"title": "a\ud800b"}})
    assert (status, code) == (400, "shop_api_invalid_json")
    assert count_rows(engine) == 0


@pytest.mark.parametrize(("fields", "name"), INVALID_FIELDS)
def test_invalid_fields(api: Any, engine: sa.Engine, fields: dict[str, Any], name: str) -> None:
    status, code, message = fails(api, {"product": {"title": "x", **fields}})
    assert (status, code) == (400, "shop_api_invalid_param"), message
    assert message.startswith(f"Invalid parameter {name}"), message
    # nothing of the failed create is left behind
    assert count_rows(engine) == 0


def test_core_validation_codes(api: Any, engine: sa.Engine) -> None:
    """The final core's own codes (reference §5) for values of the right type but not allowed."""
    assert fails(api, {"product": {"title": "x", "catalog_visibility": "nowhere"}}) == (
        400,
        "product_invalid_catalog_visibility",
        "Invalid catalog visibility option.",
    )
    assert fails(api, {"product": {"title": "x", "tax_status": "sometimes"}}) == (
        400,
        "product_invalid_tax_status",
        "Invalid product tax status.",
    )
    assert count_rows(engine) == 0
    record = create(api, title="x", catalog_visibility=" Hidden ", tax_status="NONE")
    assert record["catalog_visibility"] == "hidden" and record["tax_status"] == "none"
    assert record["visible"] is False


def test_invalid_field_after_capability(customer_api: Any) -> None:
    assert fails(customer_api, {"product": {"title": "x", "status": "bogus"}})[0] == 401


# --- field rules


def test_slugs_are_unique(api: Any, engine: sa.Engine) -> None:
    first = create(api, title="Shirt")
    second = create(api, title="Shirt")
    third = create(api, title="Other", name="Shirt")
    fourth = create(api, title="Ünïcode Shirt", name="")
    assert first["permalink"].endswith("/product/shirt/")
    assert second["permalink"].endswith("/product/shirt-2/")
    assert third["permalink"].endswith("/product/shirt-3/")
    assert fourth["permalink"].endswith("/product/unicode-shirt/")


@pytest.mark.parametrize("status", ["draft", "pending", "private", "publish", "PRIVATE"])
def test_writable_statuses(api: Any, status: str) -> None:
    record = create(api, title="x", status=status)
    assert record["status"] == status.lower()


def test_descriptions(api: Any) -> None:
    record = create(
        api,
        title="x",
        description="<b>bold</b> & more\r\n\r\nnext",
        short_description="<a href='javascript:x()' onclick='y()'>link</a><i>ok</i>",
        enable_html_short_description="true",
    )
    # plain text: tags stripped (the original's text cleaning), the rest escaped in paragraphs
    assert record["description"] == "<p>bold &amp; more</p>\n<p>next</p>"
    assert record["short_description"] == '<a rel="noopener noreferrer">link</a><i>ok</i>'
    empty = create(api, title="y", description="   ", enable_html_description=True)
    assert empty["description"] == ""


def test_plain_text_descriptions_strip_tags(api: Any) -> None:
    # decisions.md §7 "Products": the original's text cleaning strips the tags, then what
    # remains is escaped and wrapped in paragraphs (on create and on edit alike).
    record = create(
        api,
        title="x",
        description="<b>Bold</b> move",
        short_description="<p>One &amp; <i>two</i></p>\n\n<script>x()</script>3 < 4",
        purchase_note="<em>Thanks</em> &lt;3",
    )
    assert record["description"] == "<p>Bold move</p>"
    assert record["short_description"] == "<p>One &amp; two</p>\n<p>3 &lt; 4</p>"
    assert record["purchase_note"] == "<p>Thanks &lt;3</p>"
    only_tags = create(api, title="y", description="<br><img src='x.png'>")
    assert only_tags["description"] == ""
    edited = api.put_json(
        f"{URL}/{record['id']}", {"product": {"description": "<h2>New</h2> text"}}, status=200
    ).json["product"]
    assert edited["description"] == "<p>New text</p>"
    assert get(api, record["id"])["description"] == "<p>New text</p>"


def test_virtual_clears_weight_and_dimensions(api: Any) -> None:
    record = create(
        api,
        title="x",
        virtual=True,
        weight="3",
        dimensions={"length": "1", "width": "2", "height": "3"},
    )
    assert record["virtual"] is True
    assert record["shipping_required"] is False
    assert record["weight"] is None
    assert record["dimensions"] == {"length": "", "width": "", "height": "", "unit": "cm"}


def test_tax_class_standard_and_existing(api: Any, engine: sa.Engine) -> None:
    seed_tax_class(engine, "zero-rate", "Zero rate")
    assert create(api, title="a", tax_class="standard")["tax_class"] == ""
    assert create(api, title="b", tax_class="")["tax_class"] == ""
    assert create(api, title="c", tax_class="zero-rate")["tax_class"] == "zero-rate"
    assert create(api, title="d", tax_status="")["tax_status"] == "taxable"
    record = create(api, title="e", tax_status="none")
    assert record["taxable"] is False and record["shipping_taxable"] is False


def test_sku_unique_case_insensitive(api: Any, engine: sa.Engine) -> None:
    create(api, title="a", sku="ABC")
    for sku in ("ABC", "abc", " aBc "):
        assert fails(api, {"product": {"title": "b", "sku": sku}}) == (
            400,
            "shop_api_product_sku_already_exists",
            "The SKU already exists on another product.",
        )
    assert count_rows(engine) == 1
    # "" is no SKU: any number of products may have none
    first = create(api, title="c", sku="")
    second = create(api, title="d", sku="")
    assert row(engine, first["id"])["sku"] is None and row(engine, second["id"])["sku"] is None


def test_sku_of_trashed_product_can_be_reused(api: Any) -> None:
    old = create(api, title="a", sku="REUSE")
    api.delete(f"{URL}/{old['id']}", status=202)
    assert create(api, title="b", sku="reuse")["sku"] == "reuse"


def test_sku_of_variation_counts(api: Any) -> None:
    create(api, title="v", type="variable", variations=[{"sku": "VAR-1"}])
    assert fails(api, {"product": {"title": "x", "sku": "var-1"}})[1] == (
        "shop_api_product_sku_already_exists"
    )


def test_custom_and_global_attributes(api: Any, engine: sa.Engine) -> None:
    color = seed_attribute(engine, "Color", "color")
    seed_attribute_term(engine, color, "Red", "red")
    seed_attribute(engine, "Size", "size")
    record = create(
        api,
        title="x",
        attributes=[
            {
                "name": "Material",
                "options": ["Cotton", " <b>Wool</b> ", "", "Cotton"],
                "position": 2,
            },
            {"name": "Color", "slug": "color", "options": "red|Green", "visible": True},
            {"slug": "color", "options": ["Blue"]},  # no name: skipped
            {"name": "Size", "slug": "size", "options": []},  # global without terms: dropped
            {"name": "Custom without options"},  # skipped
            {"name": "Fit", "options": 42, "position": -1},
        ],
    )
    assert record["attributes"] == [
        {
            "name": "Color",
            "slug": "color",
            "position": 0,
            "visible": True,
            "variation": False,
            "options": ["Green", "Red"],
        },
        {
            "name": "Fit",
            "slug": "fit",
            "position": 1,
            "visible": False,
            "variation": False,
            "options": ["42"],
        },
        {
            "name": "Material",
            "slug": "material",
            "position": 2,
            "visible": False,
            "variation": False,
            "options": ["Cotton", "Wool"],
        },
    ]
    created = [t for t in select_all(engine, attribute_terms) if t["name"] == "Green"]
    assert [(t["attribute_id"], t["slug"]) for t in created] == [(color, "green")]


def test_attribute_terms_created_only_once(api: Any, engine: sa.Engine) -> None:
    seed_attribute(engine, "Color", "color")
    for _ in range(2):
        create(api, title="x", attributes=[{"name": "Color", "slug": "color", "options": ["Teal"]}])
    assert [t["slug"] for t in select_all(engine, attribute_terms)] == ["teal"]


def test_sale_dates(api: Any, engine: sa.Engine) -> None:
    ended = create(
        api,
        title="a",
        regular_price="10",
        sale_price="5",
        sale_price_dates_from="2000-01-01",
        sale_price_dates_to="2000-01-31",
    )
    assert ended["on_sale"] is False and ended["price"] == "10.00"
    stored = row(engine, ended["id"])
    assert stored["sale_from"] == dt.datetime(2000, 1, 1, 0, 0, 0)
    assert stored["sale_to"] == dt.datetime(2000, 1, 31, 23, 59, 59)
    running = create(
        api,
        title="b",
        regular_price="10",
        sale_price="5",
        sale_price_dates_to="2099-12-31",
    )
    assert running["on_sale"] is True and running["price"] == "5.00"
    stored = row(engine, running["id"])
    # only "to": "from" becomes now
    assert abs(stored["sale_from"] - dt.datetime.now(dt.UTC).replace(tzinfo=None)).seconds < 60
    future = create(
        api,
        title="c",
        regular_price="10",
        sale_price="5",
        sale_price_dates_from="2099-01-01T10:00:00+02:00",
    )
    assert future["on_sale"] is False
    assert row(engine, future["id"])["sale_from"] == dt.datetime(2099, 1, 1, 8, 0, 0)


def test_sale_price_without_dates(api: Any) -> None:
    record = create(api, title="a", regular_price="10", sale_price="7.5")
    assert record["on_sale"] is True and record["price"] == "7.50"
    cleared = create(api, title="b", regular_price="", sale_price="")
    assert cleared["price"] == "" and cleared["sale_price"] is None


def test_stock_rules(api: Any) -> None:
    managed = create(api, title="a", managing_stock=True, stock_quantity="5", in_stock=False)
    assert managed["managing_stock"] is True and managed["stock_quantity"] == 5
    assert managed["in_stock"] is True  # the quantity decides
    empty = create(api, title="b", managing_stock=True, stock_quantity=0)
    assert empty["in_stock"] is False and empty["backorders_allowed"] is False
    backorder = create(api, title="c", managing_stock=True, stock_quantity=0, backorders="notify")
    assert backorder["in_stock"] is True and backorder["backordered"] is True
    assert backorder["backorders_allowed"] is True
    unmanaged = create(api, title="d", in_stock=False, stock_quantity=9)
    assert unmanaged["managing_stock"] is False and unmanaged["stock_quantity"] is None
    assert unmanaged["in_stock"] is False
    delta = create(api, title="e", managing_stock=True, inventory_delta=3)
    assert delta["stock_quantity"] == 3
    both = create(api, title="f", managing_stock=True, stock_quantity=2, inventory_delta=3)
    assert both["stock_quantity"] == 2  # stock_quantity takes precedence


def test_store_without_stock_management(build_app: Any, admin: Any) -> None:
    app = build_app(**{"shopsvc.manage_stock": "false"})
    app.authorization = ("Basic", (admin.consumer_key, admin.consumer_secret))
    response = app.post_json(
        URL,
        {"product": {"title": "a", "managing_stock": True, "stock_quantity": 0, "in_stock": True}},
        status=201,
    )
    record = response.json["product"]
    assert record["managing_stock"] is False and record["stock_quantity"] is None
    assert record["in_stock"] is True


def test_downloads(api: Any, engine: sa.Engine) -> None:
    record = create(
        api,
        title="x",
        downloadable="1",
        downloads=[
            {"name": "Manual", "file": "https://example.com/manual.pdf"},
            {"url": "https://example.com/files/guide%20v2.pdf"},
            {"name": "no file"},
            {"id": "my-key", "name": "Keyed", "file": "https://example.com/k.zip"},
            {"id": "my-key", "name": "Twice", "file": "https://example.com/t.zip"},
        ],
        download_limit="",
        download_expiry=30,
    )
    assert record["downloadable"] is True
    names = [(d["name"], d["file"]) for d in record["downloads"]]
    assert names == [
        ("Manual", "https://example.com/manual.pdf"),
        ("guide v2.pdf", "https://example.com/files/guide%20v2.pdf"),
        ("Keyed", "https://example.com/k.zip"),
        ("Twice", "https://example.com/t.zip"),
    ]
    ids = [d["id"] for d in record["downloads"]]
    assert ids[2] == "my-key"
    for generated in (ids[0], ids[1], ids[3]):
        assert uuid.UUID(generated).version == 4
    assert len(set(ids)) == 4
    assert record["download_limit"] == -1 and record["download_expiry"] == 30
    assert count_rows(engine, downloads) == 4


def test_downloads_need_downloadable(api: Any, engine: sa.Engine) -> None:
    record = create(
        api,
        title="x",
        downloads=[{"name": "a", "file": "https://example.com/a"}],
        download_limit=5,
    )
    assert record["downloads"] == [] and record["download_limit"] == -1
    assert count_rows(engine, downloads) == 0
    limited = create(api, title="y", downloadable=True, download_limit=-1, download_expiry="0")
    assert limited["download_limit"] == -1 and limited["download_expiry"] == 0


def test_default_attributes_only_for_variable(api: Any, engine: sa.Engine) -> None:
    record = create(
        api,
        title="x",
        attributes=[{"name": "Size", "options": ["S"], "variation": True}],
        default_attribute=[{"name": "Size", "option": "S"}],
    )
    assert row(engine, record["id"])["default_attributes"] == "[]"
    variable = create(
        api,
        title="y",
        type="variable",
        attributes=[
            {"name": "Size", "options": ["S", "M"], "variation": True},
            {"name": "Fabric", "options": ["Silk"]},
        ],
        default_attribute=[
            {"name": "Size", "option": "M"},
            {"name": "Fabric", "option": "Silk"},  # not a variation attribute
            {"name": "Unknown", "option": "?"},
            {"option": "no name"},
        ],
    )
    stored = json.loads(row(engine, variable["id"])["default_attributes"])
    assert stored == [{"slug": "size", "option": "M"}]


def test_weight_and_dimensions(api: Any) -> None:
    record = create(api, title="x", weight=2, dimensions={"length": "1.005", "height": 3})
    assert record["weight"] == "2.00"
    assert record["dimensions"] == {"length": "1.01", "width": "", "height": "3.00", "unit": "cm"}


def test_shipping_class_by_slug(api: Any, engine: sa.Engine) -> None:
    class_id = seed_term(engine, "product_shipping_class", "Express", "express")
    record = create(api, title="x", shipping_class="Express")
    assert record["shipping_class"] == "express" and record["shipping_class_id"] == class_id
    assert create(api, title="y", shipping_class="")["shipping_class_id"] is None


def test_categories_replace_and_dedupe(api: Any, engine: sa.Engine) -> None:
    cat = seed_term(engine, "product_cat", "Cat")
    tag = seed_term(engine, "product_tag", "Tag")
    record = create(api, title="x", categories=[cat, cat], tags=[tag])
    assert record["categories"] == ["Cat"] and record["tags"] == ["Tag"]
    # a tag id is not a category
    assert fails(api, {"product": {"title": "y", "categories": [tag]}})[1] == (
        "shop_api_invalid_param"
    )


def test_failed_create_leaves_nothing(api: Any, engine: sa.Engine) -> None:
    seed_attribute(engine, "Color", "color")
    create(api, title="taken", sku="TAKEN")
    before = count_rows(engine)
    body = {
        "title": "Doomed",
        "type": "variable",
        "categories": [],
        "attributes": [{"name": "Color", "slug": "color", "options": ["Mauve"], "variation": True}],
        "variations": [{"sku": "NEW-1"}, {"sku": "taken"}],
    }
    assert fails(api, {"product": body})[1] == "shop_api_product_sku_already_exists"
    assert count_rows(engine) == before
    assert count_rows(engine, attribute_terms) == 0
    assert fails(api, {"product": {"title": "Doomed", "sku": "x", "images": [{"id": 424242}]}})[
        1
    ] == ("shop_api_invalid_param")
    assert count_rows(engine) == before


def test_unknown_fields_ignored(api: Any) -> None:
    record = create(api, title="x", price="5", id=999, total_sales=50, permalink="x")
    assert record["price"] == "" and record["id"] != 999 and record["total_sales"] == 0


def test_nulls_mean_absent(api: Any) -> None:
    record = create(
        api,
        title="x",
        type=None,
        status=None,
        sku=None,
        regular_price=None,
        images=None,
        categories=None,
        attributes=None,
        dimensions=None,
    )
    assert record["type"] == "simple" and record["status"] == "publish"
