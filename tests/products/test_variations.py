"""The ``variations`` array: upsert by id, menu order, visibility, every variation write field,
attributes keyed by global slug or sanitised custom name, and the parent's stock status."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from shopsvc.sql.tables import products, variation_attributes
from tests.helpers.products import (
    URL,
    create,
    edit,
    fails,
    get,
    row,
    seed_attribute,
    seed_attribute_term,
    seed_media,
    seed_tax_class,
    seed_term,
)
from tests.helpers.sql import count_rows, select_all

SIZES = [{"name": "Size", "options": ["S", "M", "L"], "variation": True, "visible": True}]


def variable(api: Any, variations: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    fields.setdefault("attributes", SIZES)
    return create(api, title="Tee", type="variable", variations=variations, **fields)


def size(option: str) -> list[dict[str, str]]:
    return [{"name": "Size", "option": option}]


def test_upsert_by_id_and_menu_order(api: Any, engine: sa.Engine) -> None:
    product = variable(
        api,
        [
            {"regular_price": "1", "attributes": size("S")},
            {"regular_price": "2", "attributes": size("M")},
        ],
    )
    small, medium = (v["id"] for v in product["variations"])
    record = edit(
        api,
        product["id"],
        variations=[
            {"regular_price": "3", "attributes": size("L")},  # new
            {"id": medium, "regular_price": "22"},
            {"id": str(small), "sku": "SMALL"},
        ],
    )
    assert [v["id"] for v in record["variations"]][:2] == [record["variations"][0]["id"], medium]
    assert row(engine, medium)["menu_order"] == 1
    assert row(engine, small)["menu_order"] == 2
    large = record["variations"][0]["id"]
    assert row(engine, large)["menu_order"] == 0
    by_id = {v["id"]: v for v in record["variations"]}
    assert by_id[medium]["regular_price"] == "22.00"
    assert by_id[medium]["attributes"][0]["option"] == "M"  # not sent: kept
    assert by_id[small]["sku"] == "SMALL" and by_id[small]["regular_price"] == "1.00"
    assert by_id[large]["attributes"][0]["option"] == "L"
    # variations missing from the array are not deleted
    record = edit(api, product["id"], variations=[{"id": large, "regular_price": "4"}])
    assert len(record["variations"]) == 3


def test_id_of_another_products_variation_creates(api: Any, engine: sa.Engine) -> None:
    first = variable(api, [{"regular_price": "1"}])
    second = variable(api, [])
    stolen = first["variations"][0]["id"]
    record = edit(api, second["id"], variations=[{"id": stolen, "regular_price": "9"}])
    [created] = record["variations"]
    assert created["id"] != stolen
    assert row(engine, stolen)["parent_id"] == first["id"]
    assert get(api, first["id"])["variations"][0]["regular_price"] == "1.00"
    # an unknown id creates as well
    record = edit(api, second["id"], variations=[{"id": 424242}])
    assert len(record["variations"]) == 2


def test_visibility(api: Any, engine: sa.Engine) -> None:
    product = variable(
        api,
        [
            {"regular_price": "1"},
            {"regular_price": "1", "visible": False},
            {"regular_price": "1", "visible": "false"},
            {"regular_price": "1", "visible": True},
        ],
    )
    ids = [v["id"] for v in product["variations"]]
    assert [row(engine, i)["status"] for i in ids] == ["publish", "private", "private", "publish"]
    assert [v["visible"] for v in product["variations"]] == [True, False, False, True]
    edit(
        api,
        product["id"],
        variations=[{"id": ids[0], "visible": 0}, {"id": ids[1]}, {"id": ids[2], "visible": "1"}],
    )
    assert [row(engine, i)["status"] for i in ids] == ["private", "private", "publish", "publish"]


def test_unpriced_variation_not_visible(api: Any) -> None:
    product = variable(api, [{"sku": "X"}])
    assert product["variations"][0]["visible"] is False
    assert product["variations"][0]["purchaseable"] is False


def test_variation_sku_unique(api: Any, engine: sa.Engine) -> None:
    create(api, title="simple", sku="TAKEN")
    before = count_rows(engine)
    for variations in ([{"sku": "taken"}], [{"sku": "SAME"}, {"sku": "same"}]):
        body = {"product": {"title": "x", "type": "variable", "variations": variations}}
        assert fails(api, body) == (
            400,
            "shop_api_product_sku_already_exists",
            "The SKU already exists on another product.",
        )
    assert count_rows(engine) == before
    product = variable(api, [{"sku": "V1"}])
    [variation] = product["variations"]
    edit(api, product["id"], variations=[{"id": variation["id"], "sku": "v1"}])
    assert get(api, product["id"])["variations"][0]["sku"] == "v1"
    body = {"product": {"variations": [{"id": variation["id"], "sku": "TAKEN"}]}}
    assert fails(api, body, f"{URL}/{product['id']}", "put")[1] == (
        "shop_api_product_sku_already_exists"
    )


def test_variation_inherits_parent_sku_when_empty(api: Any) -> None:
    product = variable(api, [{"regular_price": "1"}], sku="PARENT")
    assert product["variations"][0]["sku"] == "PARENT"


def test_variation_fields(api: Any, engine: sa.Engine) -> None:
    seed_tax_class(engine, "reduced-rate", "Reduced rate")
    express = seed_term(engine, "product_shipping_class", "Express", "express")
    picture = seed_media(engine)
    product = variable(
        api,
        [
            {
                "regular_price": "10",
                "sale_price": "8",
                "sale_price_dates_to": "2099-01-01",
                "weight": "1.2",
                "dimensions": {"length": "3", "width": "2", "height": "1"},
                "shipping_class": "express",
                "tax_class": "reduced-rate",
                "downloadable": True,
                "downloads": [{"name": "Manual", "file": "https://a.test/m.pdf"}],
                "download_limit": 3,
                "download_expiry": "",
                "image": [{"id": picture, "position": 5, "alt": "Alt text"}],
                "description": "<p>Nice <script>x</script></p>",
                "attributes": size("S"),
            },
            {"tax_class": "parent", "virtual": True, "weight": "3"},
        ],
        tax_class="reduced-rate",
        weight="9",
    )
    first, second = product["variations"]
    assert first["price"] == "8.00" and first["on_sale"] is True
    assert first["regular_price"] == "10.00" and first["sale_price"] == "8.00"
    assert first["weight"] == "1.20"
    assert first["dimensions"] == {
        "length": "3.00",
        "width": "2.00",
        "height": "1.00",
        "unit": "cm",
    }
    assert first["shipping_class"] == "express" and first["shipping_class_id"] == express
    assert first["tax_class"] == "reduced-rate"
    assert first["downloadable"] is True
    assert [(d["name"], d["file"]) for d in first["downloads"]] == [
        ("Manual", "https://a.test/m.pdf")
    ]
    assert first["download_limit"] == 3 and first["download_expiry"] == -1
    assert first["image"][0]["id"] == picture and first["image"][0]["position"] == 0
    assert first["image"][0]["alt"] == "Alt text"
    assert row(engine, first["id"])["description"] == "<p>Nice </p>"
    assert second["tax_class"] == "reduced-rate"  # "parent": the parent's class
    assert row(engine, second["id"])["tax_class"] == "parent"
    assert second["virtual"] is True
    assert second["weight"] == "9.00"  # virtual cleared its own weight: the parent's shows
    body = {"product": {"title": "x", "type": "variable", "variations": [{"tax_class": "nope"}]}}
    status, code, message = fails(api, body)
    assert (status, code) == (400, "shop_api_invalid_param")
    assert "product.variations[0].tax_class" in message


def test_variation_image_removed_by_non_array(api: Any, engine: sa.Engine) -> None:
    picture = seed_media(engine)
    product = variable(api, [{"image": [{"id": picture}]}])
    [variation] = product["variations"]
    assert row(engine, variation["id"])["image_id"] == picture
    edit(api, product["id"], variations=[{"id": variation["id"], "image": []}])
    assert row(engine, variation["id"])["image_id"] == picture  # empty array: unchanged
    edit(api, product["id"], variations=[{"id": variation["id"], "image": ""}])
    assert row(engine, variation["id"])["image_id"] is None
    body = {"product": {"variations": [{"id": variation["id"], "image": [{"id": 999}]}]}}
    status, code, message = fails(api, body, f"{URL}/{product['id']}", "put")
    assert (status, code) == (400, "shop_api_invalid_param")
    assert "product.variations[0].image[0].id" in message


def test_variation_stock(api: Any) -> None:
    product = variable(
        api,
        [
            {"managing_stock": True, "stock_quantity": 0, "backorders": "notify"},
            {"managing_stock": True, "stock_quantity": 3, "backorders": True},
            {"in_stock": False, "backorders": True, "stock_quantity": 8},
        ],
    )
    backorder, stocked, unmanaged = product["variations"]
    assert backorder["in_stock"] is True and backorder["backordered"] is True
    assert stocked["stock_quantity"] == 3 and stocked["backorders_allowed"] is True
    assert unmanaged["managing_stock"] is False and unmanaged["stock_quantity"] == 0
    assert unmanaged["in_stock"] is False and unmanaged["backorders_allowed"] is False
    record = edit(api, product["id"], variations=[{"id": stocked["id"], "inventory_delta": -1}])
    assert {v["id"]: v for v in record["variations"]}[stocked["id"]]["stock_quantity"] == 2


def test_parent_stock_status_from_variations(api: Any, engine: sa.Engine) -> None:
    product = variable(api, [{"in_stock": False}, {"in_stock": False}], in_stock=True)
    assert product["in_stock"] is False
    assert row(engine, product["id"])["stock_status"] == "outofstock"
    first = product["variations"][0]["id"]
    record = edit(
        api,
        product["id"],
        variations=[{"id": first, "managing_stock": True, "stock_quantity": 0, "backorders": 1}],
    )
    assert record["in_stock"] is True
    assert row(engine, product["id"])["stock_status"] == "onbackorder"
    assert row(engine, first)["stock_status"] == "onbackorder"
    empty = variable(api, [], in_stock=True)
    assert empty["in_stock"] is False  # no variations: nothing in stock


def test_variations_inherit_parent_managed_stock(api: Any) -> None:
    product = variable(api, [{}, {}], managing_stock=True, stock_quantity=6)
    assert [v["stock_quantity"] for v in product["variations"]] == [6, 6]
    assert product["in_stock"] is True
    record = edit(api, product["id"], stock_quantity=0)
    assert record["in_stock"] is False


def test_variation_attributes(api: Any, engine: sa.Engine) -> None:
    color = seed_attribute(engine, "Color", "color")
    seed_attribute_term(engine, color, "Dark Blue", "dark-blue")
    product = create(
        api,
        title="Tee",
        type="variable",
        attributes=[
            {"name": "Color", "slug": "color", "options": ["Dark Blue", "Red"], "variation": True},
            {"name": "Fit Type", "options": ["Slim", "Wide"], "variation": True},
            {"name": "Fabric", "options": ["Cotton"]},
        ],
        variations=[
            {
                "attributes": [
                    {"name": "Color", "slug": "pa_color", "option": "Dark Blue"},
                    {"name": "fit type", "option": "Slim"},
                    {"name": "Fabric", "option": "Cotton"},  # not a variation attribute
                    {"name": "Nope", "option": "x"},  # not an attribute of the parent
                    {"option": "no name"},
                ]
            },
            {"attributes": [{"name": "Color", "option": "red"}]},  # global matched by name
        ],
    )
    first, second = product["variations"]
    assert first["attributes"] == [
        {"name": "Color", "slug": "color", "option": "dark-blue"},
        {"name": "Fit Type", "slug": "fit-type", "option": "Slim"},
    ]
    assert second["attributes"][0] == {"name": "Color", "slug": "color", "option": "red"}
    stored = {
        (r["variation_id"], r["attribute_key"]): r["value"]
        for r in select_all(engine, variation_attributes)
    }
    assert stored == {
        (first["id"], "color"): "dark-blue",
        (first["id"], "fit-type"): "Slim",
        (second["id"], "color"): "red",
    }
    assert first["permalink"].endswith("?attribute_pa_color=dark-blue&attribute_fit-type=Slim")
    assert row(engine, first["id"])["title"] == "Tee - Dark Blue, Slim"
    # replace semantics: keys not sent are removed
    record = edit(
        api,
        product["id"],
        variations=[{"id": first["id"], "attributes": [{"name": "Fit Type", "option": "Wide"}]}],
    )
    again = {v["id"]: v for v in record["variations"]}[first["id"]]
    assert again["attributes"] == [
        {"name": "Color", "slug": "color", "option": ""},
        {"name": "Fit Type", "slug": "fit-type", "option": "Wide"},
    ]


def test_variations_ignored_when_not_variable(api: Any, engine: sa.Engine) -> None:
    product = create(api, title="x")
    record = edit(api, product["id"], variations=[{"regular_price": "1"}])
    assert record["variations"] == []
    with engine.connect() as conn:
        found = conn.execute(
            sa.select(sa.func.count()).select_from(products).where(products.c.type == "variation")
        ).scalar()
    assert found == 0


def test_default_attributes_on_edit(api: Any, engine: sa.Engine) -> None:
    product = variable(api, [])
    edit(api, product["id"], default_attributes=[{"name": "Size", "option": "L"}])
    assert row(engine, product["id"])["default_attributes"] == '[{"slug": "size", "option": "L"}]'
    edit(api, product["id"], default_attributes=[])
    assert row(engine, product["id"])["default_attributes"] == "[]"


def test_trashed_variation_comes_back_only_with_a_free_sku(api: Any, engine: sa.Engine) -> None:
    product = variable(api, [{"sku": "BACK", "regular_price": "1"}])
    [variation] = product["variations"]
    api.delete(f"{URL}/{variation['id']}", status=202)
    assert row(engine, variation["id"])["status"] == "trash"
    create(api, title="thief", sku="back")
    body = {"product": {"variations": [{"id": variation["id"], "visible": True}]}}
    assert fails(api, body, f"{URL}/{product['id']}", "put")[1] == (
        "shop_api_product_sku_already_exists"
    )
    assert row(engine, variation["id"])["status"] == "trash"
    record = edit(
        api, product["id"], variations=[{"id": variation["id"], "visible": True, "sku": "B2"}]
    )
    assert [v["sku"] for v in record["variations"]] == ["B2"]
    assert row(engine, variation["id"])["status"] == "publish"


def test_variation_tax_class_inherits_unless_set(api: Any, engine: sa.Engine) -> None:
    seed_tax_class(engine, "reduced-rate", "Reduced rate")
    product = variable(
        api,
        [
            {"attributes": size("S"), "regular_price": "1"},
            {"attributes": size("M"), "regular_price": "1", "tax_class": "parent"},
            {"attributes": size("L"), "regular_price": "1", "tax_class": "standard"},
        ],
        tax_class="reduced-rate",
    )
    classes = [variation["tax_class"] for variation in product["variations"]]
    assert classes == ["reduced-rate", "reduced-rate", ""]
    assert product["tax_class"] == "reduced-rate"
