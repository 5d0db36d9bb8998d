"""Reading products through HTTP: the exact record of every product type, variations, images,
attributes, prices, stock, the list with each of its filters and headers, the count, and the
errors of the shared record validation."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from webtest import TestApp

from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import Credentials, authorised, error, errors, stamp
from tests.helpers.products import INVALID_ID, URL, listed, not_found

HOST = "http://localhost"
PAST = dt.datetime(2000, 1, 1)
FUTURE = dt.datetime(2999, 12, 31, 23, 59, 59)


def amount(text: str) -> str:
    return f'<span class="amount">${text}</span>'


def image(media_id: int, when: dt.datetime, file: str, title: str, alt: str, position: int):
    return {
        "id": media_id,
        "created_at": stamp(when),
        "updated_at": stamp(when),
        "src": f"{HOST}/media/{file}",
        "title": title,
        "alt": alt,
        "position": position,
    }


def placeholder(when: dt.datetime, updated: dt.datetime | None = None) -> dict[str, Any]:
    return {
        "id": 0,
        "created_at": stamp(when),
        "updated_at": stamp(updated or when),
        "src": f"{HOST}/media/placeholder.png",
        "title": "Placeholder",
        "alt": "Placeholder",
        "position": 0,
    }


def get(api: TestApp, product_id: int, **kwargs: Any) -> dict[str, Any]:
    return api.get(f"{URL}/{product_id}", **kwargs).json["product"]


# --- the records


def test_simple_product_every_field(api: TestApp, factory: CatalogFactory) -> None:
    shirts = factory.category("Shirts")
    accessories = factory.category("accessories")
    cotton = factory.tag("Cotton")
    bulky = factory.shipping_class("Bulky", "bulky")
    color = factory.attribute("Color", order_by="name")
    red = factory.attribute_term(color, "Red", menu_order=1)
    blue = factory.attribute_term(color, "Blue", menu_order=2)
    factory.attribute_term(color, "Green")
    front_at = factory.clock + dt.timedelta(minutes=1)
    front = factory.media("2024/01/front.png", "Front", "Front view")
    back = factory.media("2024/01/back.png", "Back", "")
    side = factory.media("2024/01/side.png", "Side", "Side view")
    cap = factory.product("Cap", regular_price="3", categories=[shirts])
    created = dt.datetime(2024, 3, 1, 10, 0, 0)
    updated = dt.datetime(2024, 3, 2, 11, 30, 15)
    shirt = factory.product(
        "Blue Shirt",
        sku="SHIRT-1",
        regular_price="20",
        sale_price="15.5",
        sale_from=PAST,
        sale_to=FUTURE,
        description="<p>Soft &amp; warm.</p>",
        short_description="<p>Short.</p>",
        purchase_note="<p>Thank you.</p>",
        menu_order=3,
        featured=True,
        tax_class="reduced-rate",
        manage_stock=True,
        stock_quantity=7,
        backorders="notify",
        sold_individually=True,
        weight="1.5",
        length="10",
        width="2.255",
        shipping_class_id=bulky,
        total_sales=12,
        upsell_ids=[cap],
        cross_sell_ids=[cap, 99],
        image_id=front,
        gallery=[back, side],
        categories=[shirts, accessories],
        tags=[cotton],
        attributes=[
            {"attribute_id": color, "terms": [red, blue], "visible": True},
            {"name": "Material", "options": ["Linen", "Cotton"], "visible": False},
        ],
        downloadable=True,
        download_limit=5,
        download_expiry=30,
        downloads=[
            {"id": "d6f2", "name": "Manual", "file": "https://example.com/manual.pdf"},
            {"id": "a1b2", "name": "", "file": "https://example.com/size.pdf"},
        ],
        created_at=created,
        updated_at=updated,
    )
    factory.review(shirt, 4)
    factory.review(shirt, 5)
    factory.review(shirt, 1, approved=False)
    factory.review(shirt, None)

    assert get(api, shirt) == {
        "title": "Blue Shirt",
        "id": shirt,
        "created_at": "2024-03-01T10:00:00Z",
        "updated_at": "2024-03-02T11:30:15Z",
        "type": "simple",
        "status": "publish",
        "downloadable": True,
        "virtual": False,
        "permalink": f"{HOST}/product/blue-shirt/",
        "sku": "SHIRT-1",
        "price": "15.50",
        "regular_price": "20.00",
        "sale_price": "15.50",
        "price_html": f"<del>{amount('20.00')}</del> <ins>{amount('15.50')}</ins>",
        "taxable": True,
        "tax_status": "taxable",
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
        "catalog_visibility": "visible",
        "on_sale": True,
        "product_url": "",
        "button_text": "",
        "weight": "1.50",
        "dimensions": {"length": "10.00", "width": "2.26", "height": "", "unit": "cm"},
        "shipping_required": True,
        "shipping_taxable": True,
        "shipping_class": "bulky",
        "shipping_class_id": bulky,
        "description": "<p>Soft &amp; warm.</p>",
        "short_description": "<p>Short.</p>",
        "reviews_allowed": True,
        "average_rating": "4.50",
        "rating_count": 2,
        "related_ids": [cap],
        "upsell_ids": [cap],
        "cross_sell_ids": [cap, 99],
        "parent_id": 0,
        "categories": ["accessories", "Shirts"],
        "tags": ["Cotton"],
        "images": [
            image(front, front_at, "2024/01/front.png", "Front", "Front view", 0),
            image(back, front_at + dt.timedelta(minutes=1), "2024/01/back.png", "Back", "", 1),
            image(
                side, front_at + dt.timedelta(minutes=2), "2024/01/side.png", "Side", "Side view", 2
            ),
        ],
        "featured_src": f"{HOST}/media/2024/01/front.png",
        "attributes": [
            {
                "name": "Color",
                "slug": "color",
                "position": 0,
                "visible": True,
                "variation": False,
                "options": ["Blue", "Red"],
            },
            {
                "name": "Material",
                "slug": "material",
                "position": 1,
                "visible": False,
                "variation": False,
                "options": ["Linen", "Cotton"],
            },
        ],
        "downloads": [
            {"id": "d6f2", "name": "Manual", "file": "https://example.com/manual.pdf"},
            {"id": "a1b2", "name": "", "file": "https://example.com/size.pdf"},
        ],
        "download_limit": 5,
        "download_expiry": 30,
        "download_type": "standard",
        "purchase_note": "<p>Thank you.</p>",
        "total_sales": 12,
        "variations": [],
        "parent": {},
        "grouped_products": [],
        "menu_order": 3,
    }


def test_minimal_product_defaults_and_placeholder(api: TestApp, factory: CatalogFactory) -> None:
    created = dt.datetime(2024, 5, 6, 7, 8, 9)
    updated = dt.datetime(2024, 5, 7, 7, 8, 9)
    bare = factory.product("Bare", created_at=created, updated_at=updated)
    assert get(api, bare) == {
        "title": "Bare",
        "id": bare,
        "created_at": "2024-05-06T07:08:09Z",
        "updated_at": "2024-05-07T07:08:09Z",
        "type": "simple",
        "status": "publish",
        "downloadable": False,
        "virtual": False,
        "permalink": f"{HOST}/product/bare/",
        "sku": "",
        "price": "",
        "regular_price": "",
        "sale_price": None,
        "price_html": "",
        "taxable": True,
        "tax_status": "taxable",
        "tax_class": "",
        "managing_stock": False,
        "stock_quantity": None,
        "in_stock": True,
        "backorders_allowed": False,
        "backordered": False,
        "sold_individually": False,
        "purchaseable": False,
        "featured": False,
        "visible": True,
        "catalog_visibility": "visible",
        "on_sale": False,
        "product_url": "",
        "button_text": "",
        "weight": None,
        "dimensions": {"length": "", "width": "", "height": "", "unit": "cm"},
        "shipping_required": True,
        "shipping_taxable": True,
        "shipping_class": "",
        "shipping_class_id": None,
        "description": "",
        "short_description": "",
        "reviews_allowed": True,
        "average_rating": "0.00",
        "rating_count": 0,
        "related_ids": [],
        "upsell_ids": [],
        "cross_sell_ids": [],
        "parent_id": 0,
        "categories": [],
        "tags": [],
        "images": [placeholder(created, updated)],
        "featured_src": "",
        "attributes": [],
        "downloads": [],
        "download_limit": -1,
        "download_expiry": -1,
        "download_type": "standard",
        "purchase_note": "",
        "total_sales": 0,
        "variations": [],
        "parent": {},
        "grouped_products": [],
        "menu_order": 0,
    }


def test_gallery_without_featured_image_starts_at_position_zero(
    api: TestApp, factory: CatalogFactory
) -> None:
    first = factory.media("a.png")
    second = factory.media("b.png")
    product = factory.product("Gallery only", gallery=[first, second])
    record = get(api, product)
    assert [(i["id"], i["position"]) for i in record["images"]] == [(first, 0), (second, 1)]
    assert record["featured_src"] == ""


def test_store_settings_shape_the_record(
    build_app: Callable[..., TestApp], admin: Credentials, factory: CatalogFactory
) -> None:
    app = build_app(
        **{
            "shopsvc.calc_taxes": "false",
            "shopsvc.dimension_unit": "in",
            "shopsvc.price_decimals": "3",
            "shopsvc.currency": "EUR",
            "shopsvc.currency_position": "right_space",
            "shopsvc.thousand_separator": ".",
            "shopsvc.decimal_separator": ",",
            "shopsvc.public_url": "https://shop.example.com",
            "shopsvc.media_url": "/files",
            "shopsvc.manage_stock": "false",
        }
    )
    api = authorised(app, admin)
    product = factory.product(
        "Lamp", regular_price="1234.5", manage_stock=True, stock_quantity=4, length="3"
    )
    record = get(api, product)
    assert record["taxable"] is False
    assert record["price"] == "1234.500"
    assert record["price_html"] == '<span class="amount">1.234,500&nbsp;€</span>'
    assert record["dimensions"] == {"length": "3.00", "width": "", "height": "", "unit": "in"}
    assert record["permalink"] == "https://shop.example.com/product/lamp/"
    assert record["images"][0]["src"] == "https://shop.example.com/files/placeholder.png"
    assert record["managing_stock"] is False
    assert record["stock_quantity"] is None


def test_variable_product_with_two_variations(api: TestApp, factory: CatalogFactory) -> None:
    color = factory.attribute("Color", order_by="menu_order")
    red = factory.attribute_term(color, "Red", "red", menu_order=2)
    blue = factory.attribute_term(color, "Blue", "blue", menu_order=1)
    light = factory.shipping_class("Light", "light")
    heavy = factory.shipping_class("Heavy", "heavy")
    main_image_at = factory.clock + dt.timedelta(minutes=1)
    main_image = factory.media("2024/01/tee.png", "Tee", "A tee")
    red_image_at = factory.clock + dt.timedelta(minutes=1)
    red_image = factory.media("2024/01/red.png", "Red tee", "")
    created = dt.datetime(2024, 4, 1, 8, 0, 0)
    tee = factory.product(
        "Tee",
        type="variable",
        sku="TEE",
        tax_status="shipping",
        tax_class="reduced-rate",
        weight="0.3",
        length="30",
        width="20",
        height="1",
        shipping_class_id=light,
        purchase_note="<p>Parent note.</p>",
        cross_sell_ids=[7],
        manage_stock=True,
        stock_quantity=11,
        backorders="yes",
        image_id=main_image,
        attributes=[
            {"attribute_id": color, "terms": [red, blue], "variation": True, "visible": True},
            {"name": "Size Label", "options": ["Small", "Large"], "variation": True},
            {"name": "Fit", "options": ["Slim"], "variation": False},
        ],
        created_at=created,
    )
    red_created = dt.datetime(2024, 4, 1, 9, 0, 0)
    red_tee = factory.variation(
        tee,
        {"color": "red", "size-label": "Large"},
        title="Tee - Red, Large",
        sku="TEE-RED",
        regular_price="20",
        sale_price="18",
        sale_from=PAST,
        tax_class="parent",
        weight="0.35",
        height="2",
        shipping_class_id=heavy,
        manage_stock=True,
        stock_quantity=-2,
        backorders="notify",
        stock_status="onbackorder",
        image_id=red_image,
        downloadable=True,
        download_limit=3,
        downloads=[{"id": "k1", "name": "Pattern", "file": "https://example.com/p.pdf"}],
        menu_order=2,
        created_at=red_created,
    )
    blue_created = dt.datetime(2024, 4, 1, 9, 30, 0)
    blue_tee = factory.variation(
        tee,
        {"color": "blue", "size-label": ""},
        title="Tee - Blue",
        regular_price="22",
        tax_class="zero-rate",
        virtual=True,
        menu_order=1,
        created_at=blue_created,
    )
    factory.variation(tee, {"color": "blue"}, regular_price="1", status="trash")
    private = factory.variation(
        tee,
        {"color": "red"},
        regular_price="5",
        status="private",
        menu_order=3,
        created_at=blue_created,
    )

    record = get(api, tee)
    variations = record.pop("variations")
    assert record["price"] == "18.00"
    assert record["regular_price"] == ""
    assert record["sale_price"] is None
    assert record["price_html"] == f"{amount('18.00')}\u2013{amount('22.00')}"
    assert record["on_sale"] is True
    assert record["purchaseable"] is True
    assert record["managing_stock"] is True
    assert record["stock_quantity"] == 11
    assert record["attributes"] == [
        {
            "name": "Color",
            "slug": "color",
            "position": 0,
            "visible": True,
            "variation": True,
            "options": ["Blue", "Red"],
        },
        {
            "name": "Size Label",
            "slug": "size-label",
            "position": 1,
            "visible": True,
            "variation": True,
            "options": ["Small", "Large"],
        },
        {
            "name": "Fit",
            "slug": "fit",
            "position": 2,
            "visible": True,
            "variation": False,
            "options": ["Slim"],
        },
    ]
    assert record["parent"] == {}
    assert [v["id"] for v in variations] == [blue_tee, red_tee, private]
    blue_record, red_record, private_record = variations
    assert red_record == {
        "id": red_tee,
        "created_at": "2024-04-01T09:00:00Z",
        "updated_at": "2024-04-01T09:00:00Z",
        "downloadable": True,
        "virtual": False,
        "permalink": f"{HOST}/product/tee/?attribute_pa_color=red&attribute_size-label=Large",
        "sku": "TEE-RED",
        "price": "18.00",
        "regular_price": "20.00",
        "sale_price": "18.00",
        "taxable": False,
        "tax_status": "shipping",
        "tax_class": "reduced-rate",
        "managing_stock": True,
        "stock_quantity": -2,
        "in_stock": True,
        "backorders_allowed": True,
        "backordered": True,
        "purchaseable": True,
        "visible": True,
        "on_sale": True,
        "weight": "0.35",
        "dimensions": {"length": "30.00", "width": "20.00", "height": "2.00", "unit": "cm"},
        "shipping_class": "heavy",
        "shipping_class_id": heavy,
        "image": [image(red_image, red_image_at, "2024/01/red.png", "Red tee", "", 0)],
        "attributes": [
            {"name": "Color", "slug": "color", "option": "red"},
            {"name": "Size Label", "slug": "size-label", "option": "Large"},
        ],
        "downloads": [{"id": "k1", "name": "Pattern", "file": "https://example.com/p.pdf"}],
        "download_limit": 3,
        "download_expiry": -1,
    }
    assert blue_record == {
        "id": blue_tee,
        "created_at": "2024-04-01T09:30:00Z",
        "updated_at": "2024-04-01T09:30:00Z",
        "downloadable": False,
        "virtual": True,
        "permalink": f"{HOST}/product/tee/?attribute_pa_color=blue",
        "sku": "TEE",
        "price": "22.00",
        "regular_price": "22.00",
        "sale_price": None,
        "taxable": False,
        "tax_status": "shipping",
        "tax_class": "zero-rate",
        "managing_stock": True,
        "stock_quantity": 11,
        "in_stock": True,
        "backorders_allowed": True,
        "backordered": False,
        "purchaseable": True,
        "visible": True,
        "on_sale": False,
        "weight": "0.30",
        "dimensions": {"length": "30.00", "width": "20.00", "height": "1.00", "unit": "cm"},
        "shipping_class": "light",
        "shipping_class_id": light,
        "image": [image(main_image, main_image_at, "2024/01/tee.png", "Tee", "A tee", 0)],
        "attributes": [
            {"name": "Color", "slug": "color", "option": "blue"},
            {"name": "Size Label", "slug": "size-label", "option": ""},
        ],
        "downloads": [],
        "download_limit": -1,
        "download_expiry": -1,
    }
    # a private (disabled) variation is listed, but neither visible nor purchaseable
    assert private_record["visible"] is False
    assert private_record["purchaseable"] is False


def test_variation_read_by_id(api: TestApp, factory: CatalogFactory) -> None:
    size = factory.attribute("Size", order_by="name_num")
    ten = factory.attribute_term(size, "10", "10")
    two = factory.attribute_term(size, "2", "2")
    cat = factory.category("Shoes")
    created = dt.datetime(2024, 6, 1)
    shoe = factory.product(
        "Shoe",
        type="variable",
        categories=[cat],
        tags=[factory.tag("Leather")],
        attributes=[{"attribute_id": size, "terms": [ten, two], "variation": True}],
        catalog_visibility="catalog",
        sold_individually=True,
        purchase_note="<p>Care.</p>",
        created_at=created,
    )
    v_created = dt.datetime(2024, 6, 2)
    variation = factory.variation(
        shoe, {"size": "10"}, title="Shoe - 10", regular_price="50", created_at=v_created
    )
    factory.product("Sandal", categories=[cat])
    record = get(api, variation)
    parent = record.pop("parent")
    assert record == {
        "title": "Shoe - 10",
        "id": variation,
        "created_at": "2024-06-02T00:00:00Z",
        "updated_at": "2024-06-02T00:00:00Z",
        "type": "variation",
        "status": "publish",
        "downloadable": False,
        "virtual": False,
        "permalink": f"{HOST}/product/shoe/?attribute_pa_size=10",
        "sku": "",
        "price": "50.00",
        "regular_price": "50.00",
        "sale_price": None,
        "price_html": amount("50.00"),
        "taxable": True,
        "tax_status": "taxable",
        "tax_class": "",
        "managing_stock": False,
        "stock_quantity": 0,
        "in_stock": True,
        "backorders_allowed": False,
        "backordered": False,
        "sold_individually": True,
        "purchaseable": True,
        "featured": False,
        "visible": True,
        "catalog_visibility": "catalog",
        "on_sale": False,
        "product_url": "",
        "button_text": "",
        "weight": None,
        "dimensions": {"length": "", "width": "", "height": "", "unit": "cm"},
        "shipping_required": True,
        "shipping_taxable": True,
        "shipping_class": "",
        "shipping_class_id": None,
        "description": "",
        "short_description": "",
        "reviews_allowed": True,
        "average_rating": "0.00",
        "rating_count": 0,
        "related_ids": [],
        "upsell_ids": [],
        "cross_sell_ids": [],
        "parent_id": shoe,
        "categories": [],
        "tags": [],
        "images": [placeholder(v_created)],
        "featured_src": "",
        "attributes": [{"name": "Size", "slug": "size", "option": "10"}],
        "downloads": [],
        "download_limit": -1,
        "download_expiry": -1,
        "download_type": "standard",
        "purchase_note": "<p>Care.</p>",
        "total_sales": 0,
        "variations": [],
        "grouped_products": [],
        "menu_order": 0,
    }
    # the parent is the full record of the variable product with empty nested collections
    assert parent["id"] == shoe
    assert parent["type"] == "variable"
    assert parent["price"] == "50.00"
    assert parent["categories"] == ["Shoes"]
    assert parent["tags"] == ["Leather"]
    assert parent["attributes"][0]["options"] == ["2", "10"]  # name_num order
    assert parent["related_ids"] == [shoe + 2]
    assert (parent["variations"], parent["parent"], parent["grouped_products"]) == ([], {}, [])
    assert list(parent) == list(get(api, shoe))


def test_variation_of_an_unpublished_product_is_not_visible(
    api: TestApp, factory: CatalogFactory
) -> None:
    draft = factory.product("Draft", type="variable", status="draft")
    variation = factory.variation(draft, {}, regular_price="3")
    record = get(api, variation)
    assert record["visible"] is False
    assert record["parent"]["status"] == "draft"


def test_grouped_product_with_children(api: TestApp, factory: CatalogFactory) -> None:
    created = dt.datetime(2024, 2, 1)
    group = factory.product("Set", type="grouped", created_at=created)
    cheap = factory.product("Spoon", regular_price="2", parent_id=group, menu_order=2)
    dear = factory.product(
        "Knife", regular_price="9", sale_price="7", sale_from=PAST, parent_id=group, menu_order=1
    )
    factory.product("Fork", regular_price="1", parent_id=group, status="draft")
    outsider = factory.product("Plate", regular_price="4")
    record = get(api, group)
    grouped = record.pop("grouped_products")
    assert record["price"] == "2.00"
    assert record["regular_price"] == ""
    assert record["price_html"] == f"{amount('2.00')}\u2013{amount('7.00')}"
    assert record["on_sale"] is True
    assert record["purchaseable"] is False
    assert record["managing_stock"] is False
    assert record["parent"] == {}
    assert record["images"] == [placeholder(created)]
    assert [child["id"] for child in grouped] == [dear, cheap]
    knife = grouped[0]
    assert knife == get(api, dear) | {"parent": {}}
    assert (knife["parent_id"], knife["price_html"]) == (
        group,
        f"<del>{amount('9.00')}</del> <ins>{amount('7.00')}</ins>",
    )
    # a child shows its group as parent
    spoon = get(api, cheap)
    assert spoon["parent"]["id"] == group
    assert spoon["parent"]["grouped_products"] == []
    assert spoon["parent"]["price_html"] == record["price_html"]
    assert get(api, outsider)["parent"] == {}


def test_grouped_product_free_and_empty(api: TestApp, factory: CatalogFactory) -> None:
    free = factory.product("Free set", type="grouped")
    factory.product("Sticker", regular_price="0", parent_id=free)
    empty = factory.product("Empty set", type="grouped")
    assert get(api, free)["price_html"] == "Free!"
    assert get(api, empty)["price_html"] == ""
    assert get(api, empty)["price"] == ""


def test_external_product(api: TestApp, factory: CatalogFactory) -> None:
    book = factory.product(
        "Book",
        type="external",
        regular_price="12",
        product_url="https://example.com/book",
        button_text="Buy it there",
        virtual=True,
    )
    simple = factory.product("Mug", product_url="https://ignored.example", button_text="No")
    record = get(api, book)
    assert (record["product_url"], record["button_text"]) == (
        "https://example.com/book",
        "Buy it there",
    )
    assert record["purchaseable"] is False
    assert record["price"] == "12.00"
    assert record["price_html"] == amount("12.00")
    assert record["in_stock"] is True
    assert (record["shipping_required"], record["shipping_taxable"]) == (False, False)
    assert (get(api, simple)["product_url"], get(api, simple)["button_text"]) == ("", "")


@pytest.mark.parametrize(
    ("sale_from", "sale_to", "on_sale"),
    [
        (None, None, True),
        (PAST, FUTURE, True),
        (None, FUTURE, True),
        (FUTURE, None, False),
        (PAST, dt.datetime(2001, 1, 1), False),
    ],
)
def test_on_sale_follows_the_sale_dates(
    api: TestApp,
    factory: CatalogFactory,
    sale_from: dt.datetime | None,
    sale_to: dt.datetime | None,
    on_sale: bool,
) -> None:
    product = factory.product(
        "Sale", regular_price="10", sale_price="8", sale_from=sale_from, sale_to=sale_to
    )
    record = get(api, product)
    assert record["on_sale"] is on_sale
    assert record["price"] == ("8.00" if on_sale else "10.00")
    assert record["regular_price"] == "10.00"
    assert record["sale_price"] == "8.00"
    expected_html = (
        f"<del>{amount('10.00')}</del> <ins>{amount('8.00')}</ins>" if on_sale else amount("10.00")
    )
    assert record["price_html"] == expected_html


def test_sale_price_zero_and_not_below_regular(api: TestApp, factory: CatalogFactory) -> None:
    free = factory.product("Free", regular_price="5", sale_price="0")
    higher = factory.product("Higher", regular_price="5", sale_price="6")
    record = get(api, free)
    assert (record["sale_price"], record["price"], record["on_sale"]) == ("0.00", "0.00", True)
    record = get(api, higher)
    assert (record["sale_price"], record["price"], record["on_sale"]) == ("6.00", "5.00", False)


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (
            {"manage_stock": True, "stock_quantity": 3, "stock_status": "instock"},
            (True, 3, True, False, False),
        ),
        (
            {"manage_stock": True, "stock_quantity": 0, "stock_status": "outofstock"},
            (True, 0, False, False, False),
        ),
        (
            {
                "manage_stock": True,
                "stock_quantity": -1,
                "backorders": "yes",
                "stock_status": "onbackorder",
            },
            (True, -1, True, True, True),
        ),
        (
            {"manage_stock": True, "stock_quantity": None, "backorders": "notify"},
            (True, 0, True, True, False),
        ),
        (
            {"manage_stock": False, "stock_quantity": 5, "stock_status": "outofstock"},
            (False, None, False, False, False),
        ),
        (
            {"manage_stock": False, "stock_status": "onbackorder"},
            (False, None, True, False, True),
        ),
    ],
)
def test_stock_fields(
    api: TestApp, factory: CatalogFactory, columns: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    product = factory.product("Stocked", regular_price="1", **columns)
    record = get(api, product)
    assert (
        record["managing_stock"],
        record["stock_quantity"],
        record["in_stock"],
        record["backorders_allowed"],
        record["backordered"],
    ) == expected


def test_grouped_and_external_never_manage_stock(api: TestApp, factory: CatalogFactory) -> None:
    group = factory.product("G", type="grouped", manage_stock=True, stock_quantity=3)
    external = factory.product("E", type="external", manage_stock=True, stock_quantity=3)
    for product in (group, external):
        record = get(api, product)
        assert (record["managing_stock"], record["stock_quantity"]) == (False, None)


def test_hidden_and_out_of_stock_visibility(
    build_app: Callable[..., TestApp], admin: Credentials, factory: CatalogFactory
) -> None:
    hidden = factory.product("Hidden", regular_price="1", catalog_visibility="hidden")
    search = factory.product("Search", regular_price="1", catalog_visibility="search")
    sold_out = factory.product("Sold out", regular_price="1", stock_status="outofstock")
    trashed = factory.product("Trashed", regular_price="1", status="trash")
    draft = factory.product("Draft", regular_price="1", status="draft")
    api = authorised(build_app(**{"shopsvc.hide_out_of_stock": "true"}), admin)
    assert get(api, hidden)["visible"] is False
    assert get(api, search)["visible"] is False
    assert get(api, sold_out)["visible"] is False
    assert get(api, trashed)["visible"] is False
    assert get(api, trashed)["purchaseable"] is False
    # an administrator may edit drafts, so they count as visible and purchaseable
    assert get(api, draft)["visible"] is True
    assert get(api, draft)["purchaseable"] is True


def test_related_ids(api: TestApp, factory: CatalogFactory) -> None:
    shoes = factory.category("Shoes")
    red = factory.tag("Red")
    other = factory.category("Other")
    product = factory.product("Main", categories=[shoes], tags=[red])
    by_tag = factory.product("By tag", tags=[red])
    hidden = factory.product("Hidden", categories=[shoes], catalog_visibility="hidden")
    factory.product("Draft", categories=[shoes], status="draft")
    catalog_only = factory.product("Catalog", categories=[shoes], catalog_visibility="catalog")
    factory.product("Unrelated", categories=[other])
    more = [factory.product(f"More {n}", categories=[shoes], tags=[red]) for n in range(5)]
    assert hidden
    assert get(api, product)["related_ids"] == [by_tag, catalog_only, *more[:3]]
    assert get(api, more[0])["related_ids"] == [product, by_tag, catalog_only, more[1], more[2]]


def test_attribute_term_orders(api: TestApp, factory: CatalogFactory) -> None:
    names = ["b", "A", "c"]
    orders = {"menu_order": ["c", "b", "A"], "name": ["A", "b", "c"], "id": ["b", "A", "c"]}
    attributes = []
    for order_by in orders:
        attribute = factory.attribute(f"Attr {order_by}", f"attr-{order_by}", order_by=order_by)
        term_ids = [
            factory.attribute_term(attribute, name, f"{name.lower()}-{order_by}", menu_order=m)
            for name, m in zip(names, (2, 3, 1), strict=True)
        ]
        attributes.append({"attribute_id": attribute, "terms": term_ids})
    product = factory.product("Ordered", attributes=attributes)
    record = get(api, product)
    assert [a["options"] for a in record["attributes"]] == list(orders.values())
    assert [a["slug"] for a in record["attributes"]] == [f"attr-{o}" for o in orders]


def test_downloads_only_when_downloadable(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product(
        "Not downloadable", downloads=[{"name": "x", "file": "https://example.com/x"}]
    )
    assert get(api, product)["downloads"] == []


def test_fields_filter(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Fields", regular_price="2")
    record = get(api, product, params={"fields": "id,title,dimensions.unit,images.src"})
    assert record == {
        "id": product,
        "title": "Fields",
        "dimensions": {"unit": "cm"},
        "images": [{"src": f"{HOST}/media/placeholder.png"}],
    }


def test_head_single_and_list(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Head")
    assert api.head(f"{URL}/{product}").body == b""
    response = api.head(URL)
    assert response.headers["X-Shop-Total"] == "1"


# --- errors of the single read


def test_read_errors(api: TestApp, customer_api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Private", status="private")
    assert error(api.get(f"{URL}/0", status=404)) == INVALID_ID
    assert error(api.get(f"{URL}/{product + 100}", status=404)) == not_found(product + 100)
    response = api.get(f"{URL}/99999999999999999999", status=404)
    assert errors(response)[0]["code"] == "shop_api_no_product_found"
    response = customer_api.get(f"{URL}/{product}", status=401)
    assert errors(response) == [
        {
            "code": "shop_api_user_cannot_read_product",
            "message": "You do not have permission to read this product.",
        }
    ]
    # id and existence are checked before the capability
    assert error(customer_api.get(f"{URL}/0", status=404)) == INVALID_ID
    response = customer_api.get(f"{URL}/{product + 100}", status=404)
    assert error(response) == not_found(product + 100)
    # trashed and draft products are readable by id
    trashed = factory.product("Trashed", status="trash")
    assert get(api, trashed)["status"] == "trash"
    # a non-numeric id is no route
    assert errors(api.get(f"{URL}/abc", status=404))[0]["code"] == "shop_api_no_route"


# --- the list


def test_list_shows_published_products_newest_first(api: TestApp, factory: CatalogFactory) -> None:
    first = factory.product("First")
    second = factory.product("Second")
    factory.product("Draft", status="draft")
    factory.product("Private", status="private")
    factory.product("Trashed", status="trash")
    variable = factory.product("Variable", type="variable")
    factory.variation(variable, {}, regular_price="1")
    response = api.get(URL)
    assert [p["id"] for p in response.json["products"]] == [variable, second, first]
    assert response.headers["X-Shop-Total"] == "3"
    assert response.headers["X-Shop-TotalPages"] == "1"
    assert "Link" not in response.headers
    assert response.json["products"][0] == get(api, variable)


def test_list_empty(api: TestApp) -> None:
    response = api.get(URL)
    assert response.json == {"products": []}
    assert response.headers["X-Shop-Total"] == "0"
    assert response.headers["X-Shop-TotalPages"] == "0"


def test_list_post_status(api: TestApp, factory: CatalogFactory) -> None:
    published = factory.product("Published")
    draft = factory.product("Draft", status="draft")
    private = factory.product("Private", status="private")
    pending = factory.product("Pending", status="pending")
    trashed = factory.product("Trashed", status="trash")
    assert listed(api, "filter[post_status]=draft") == [draft]
    assert listed(api, "filter[post_status]=draft,private") == [private, draft]
    assert listed(api, "filter[post_status]=any") == [pending, private, draft, published]
    assert listed(api, "filter[post_status]=trash") == [trashed]
    assert listed(api, "filter[post_status]=") == [published]


def test_list_type(api: TestApp, factory: CatalogFactory) -> None:
    simple = factory.product("Simple")
    grouped = factory.product("Grouped", type="grouped")
    external = factory.product("External", type="external")
    variable = factory.product("Variable", type="variable")
    assert listed(api, "type=simple") == [simple]
    assert listed(api, "type=grouped,external") == [external, grouped]
    assert listed(api, "filter[type]=variable") == [variable]
    assert listed(api, "type=simple&filter[type]=variable") == [simple]
    assert listed(api, "type=variation") == []


def test_list_category_and_tag(api: TestApp, factory: CatalogFactory) -> None:
    shoes = factory.category("Shoes", "shoes")
    hats = factory.category("Hats", "hats")
    red = factory.tag("Red", "red")
    blue = factory.tag("Blue", "blue")
    red_shoe = factory.product("Red shoe", categories=[shoes], tags=[red])
    blue_shoe = factory.product("Blue shoe", categories=[shoes], tags=[blue])
    red_hat = factory.product("Red hat", categories=[hats], tags=[red])
    factory.product("Plain")
    assert listed(api, "filter[category]=shoes") == [blue_shoe, red_shoe]
    assert listed(api, "filter[category]=shoes,hats") == [red_hat, blue_shoe, red_shoe]
    assert listed(api, "filter[tag]=red") == [red_hat, red_shoe]
    assert listed(api, "filter[category]=shoes&filter[tag]=red") == [red_shoe]
    assert listed(api, "filter[category]=nothing") == []
    # slugs, not names or ids
    assert listed(api, f"filter[category]={shoes}") == []


def test_list_shipping_class_and_attribute_filters(api: TestApp, factory: CatalogFactory) -> None:
    bulky = factory.shipping_class("Bulky", "bulky")
    color = factory.attribute("Color", "color")
    red = factory.attribute_term(color, "Red", "red")
    blue = factory.attribute_term(color, "Blue", "blue")
    big = factory.product("Big", shipping_class_id=bulky)
    red_one = factory.product("Red", attributes=[{"attribute_id": color, "terms": [red]}])
    blue_one = factory.product("Blue", attributes=[{"attribute_id": color, "terms": [blue]}])
    assert listed(api, "filter[shipping_class]=bulky") == [big]
    assert listed(api, "filter[pa_color]=red") == [red_one]
    assert listed(api, "filter[pa_color]=red,blue") == [blue_one, red_one]


def test_list_sku_matches_products_and_variations(api: TestApp, factory: CatalogFactory) -> None:
    simple = factory.product("Simple", sku="ABC-1")
    variable = factory.product("Variable", type="variable", sku="VAR")
    variation = factory.variation(variable, {}, sku="abc-2", regular_price="3")
    draft = factory.product("Draft", sku="DRAFT", status="draft")
    assert listed(api, "filter[sku]=abc-1") == [simple]
    response = api.get(URL, params={"filter[sku]": "ABC-2"})
    (record,) = response.json["products"]
    assert record == get(api, variation)
    assert record["type"] == "variation"
    assert listed(api, "filter[sku]=ABC") == []
    assert listed(api, "filter[sku]=DRAFT") == []
    assert listed(api, "filter[sku]=DRAFT&filter[post_status]=draft") == [draft]


def test_list_search(api: TestApp, factory: CatalogFactory) -> None:
    by_title = factory.product("Woollen Scarf")
    by_description = factory.product("Hat", description="<p>Made of WOOL.</p>")
    by_short = factory.product("Gloves", short_description="<p>wool blend</p>")
    factory.product("Cotton shirt", sku="WOOL")
    percent = factory.product("100% cotton")
    assert listed(api, "filter[q]=wool") == [by_short, by_description, by_title]
    assert listed(api, "filter[q]=100%25") == [percent]
    assert listed(api, "filter[q]=_") == []
    # words are matched separately, each anywhere
    assert listed(api, "filter[q]=scarf  WOOLLEN") == [by_title]
    assert listed(api, "filter[q]=wool blend") == [by_short]
    assert listed(api, "filter[q]=wool silk") == []
    assert api.get(URL + "/count?filter[q]=wool").json == {"count": 3}


def test_list_order_and_paging(api: TestApp, factory: CatalogFactory) -> None:
    base = dt.datetime(2024, 1, 1)
    ids = [
        factory.product(
            title,
            menu_order=order,
            created_at=base + dt.timedelta(days=day),
            updated_at=base + dt.timedelta(days=10 - day),
        )
        for title, order, day in (("b", 2, 1), ("a", 1, 2), ("c", 1, 3))
    ]
    b, a, c = ids
    assert listed(api) == [c, a, b]
    assert listed(api, "filter[order]=asc") == [b, a, c]
    assert listed(api, "filter[orderby]=title&filter[order]=ASC") == [a, b, c]
    assert listed(api, "filter[orderby]=name") == [c, b, a]
    assert listed(api, "filter[orderby]=menu_order&filter[order]=ASC") == [a, c, b]
    assert listed(api, "filter[orderby]=modified") == [b, a, c]
    assert listed(api, "filter[orderby]=ID&filter[order]=ASC") == [b, a, c]
    assert listed(api, f"filter[in]={a},{b}") == [a, b]
    assert listed(api, f"filter[not_in]={a}") == [c, b]
    assert listed(api, "filter[created_at_min]=2024-01-03") == [c, a]
    assert listed(api, "filter[created_at_max]=2024-01-03T00:00:00Z") == [a, b]
    assert listed(api, "filter[updated_at_min]=2024-01-10") == [b]
    response = api.get(URL, params={"filter[limit]": "2", "page": "2"})
    assert [p["id"] for p in response.json["products"]] == [b]
    assert response.headers["X-Shop-Total"] == "3"
    assert response.headers["X-Shop-TotalPages"] == "2"
    links = response.headers.getall("Link")
    assert links == [
        f'<{HOST}{URL}?filter%5Blimit%5D=2&page=1>; rel="first"',
        f'<{HOST}{URL}?filter%5Blimit%5D=2&page=1>; rel="prev"',
    ]
    response = api.get(URL, params={"filter[limit]": "2"})
    assert response.headers.getall("Link") == [
        f'<{HOST}{URL}?filter%5Blimit%5D=2&page=2>; rel="next"',
        f'<{HOST}{URL}?filter%5Blimit%5D=2&page=2>; rel="last"',
    ]
    assert listed(api, "filter[limit]=1&filter[offset]=1") == [a]
    response = api.get(URL, params={"filter[orderby]": "price"}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"
    response = api.get(URL, params={"filter[created_at_min]": "yesterday"}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"


def test_list_skips_unreadable_records_but_counts_them(
    customer_api: TestApp, factory: CatalogFactory
) -> None:
    factory.product("One")
    factory.product("Two")
    response = customer_api.get(URL)
    assert response.json == {"products": []}
    assert response.headers["X-Shop-Total"] == "2"
    assert response.headers["X-Shop-TotalPages"] == "1"


# --- the count


def test_count(api: TestApp, factory: CatalogFactory) -> None:
    shoes = factory.category("Shoes", "shoes")
    factory.product("One", categories=[shoes])
    factory.product("Two", type="external")
    factory.product("Draft", status="draft")
    variable = factory.product("Variable", type="variable")
    factory.variation(variable, {}, sku="V-1")
    response = api.get(URL + "/count")
    assert response.json == {"count": 3}
    assert "X-Shop-Total" not in response.headers
    assert api.get(URL + "/count?type=external").json == {"count": 1}
    assert api.get(URL + "/count?filter[category]=shoes").json == {"count": 1}
    assert api.get(URL + "/count?filter[post_status]=any").json == {"count": 4}
    assert api.get(URL + "/count?filter[sku]=v-1").json == {"count": 1}
    assert api.get(URL + "/count?filter[limit]=1").json == {"count": 3}


def test_count_needs_the_capability(customer_api: TestApp) -> None:
    response = customer_api.get(URL + "/count?filter[orderby]=bad", status=401)
    assert errors(response) == [
        {
            "code": "shop_api_user_cannot_read_products_count",
            "message": "You do not have permission to read the products count.",
        }
    ]


def test_variation_following_parent_stock(api: TestApp, factory: CatalogFactory) -> None:
    variable = factory.product(
        "Tee", type="variable", manage_stock=True, stock_quantity=0, backorders="no"
    )
    factory.variation(
        variable, {}, regular_price="1", manage_stock=True, stock_quantity=5, stock_status="instock"
    )
    follows = factory.variation(variable, {}, regular_price="1", stock_status="instock")
    record = get(api, follows)
    assert (record["managing_stock"], record["stock_quantity"], record["in_stock"]) == (
        True,
        0,
        False,
    )


def test_filter_meta(api: TestApp, factory: CatalogFactory) -> None:
    product = factory.product("Meta")
    assert get(api, product, params={"filter[meta]": "true"})["product_meta"] == {}
    assert "product_meta" not in get(api, product, params={"filter[meta]": "1"})
    records = api.get(URL, params={"filter[meta]": "true"}).json["products"]
    assert list(records[0])[-1] == "product_meta"
