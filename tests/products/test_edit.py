"""``PUT|POST|PATCH /products/<id>``: check order, fields applied only when present, type changes,
restoring a trashed product, editing a variation through its own id, atomicity."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql.tables import product_terms, products
from tests.helpers.products import (
    INVALID_ID,
    URL,
    create,
    edit,
    fails,
    get,
    not_found,
    row,
    seed_attribute,
    seed_term,
)
from tests.helpers.sql import count_rows

# --- order of the checks


def test_envelope_checked_before_the_id(api: Any, customer_api: Any) -> None:
    message = "No product data specified to edit product."
    for target in (0, 999):
        assert fails(api, {}, f"{URL}/{target}", "put") == (
            400,
            "shop_api_missing_product_data",
            message,
        )
    assert fails(customer_api, {"x": 1}, f"{URL}/5", "put")[1] == "shop_api_missing_product_data"


def test_id_then_existence_then_capability(api: Any, customer_api: Any) -> None:
    body = {"product": {"title": "x"}}
    assert fails(api, body, f"{URL}/0", "put") == INVALID_ID
    assert fails(api, body, f"{URL}/999", "put") == not_found(999)
    product = create(api, title="mine")
    assert fails(customer_api, {"product": {"type": "bogus"}}, f"{URL}/{product['id']}", "put") == (
        401,
        "shop_api_user_cannot_edit_product",
        "You do not have permission to edit this product.",
    )


def test_envelope_shape_checked_after_existence(api: Any) -> None:
    assert fails(api, {"product": [1]}, f"{URL}/999", "put")[0] == 404
    product = create(api, title="mine")
    status, code, _ = fails(api, {"product": "x"}, f"{URL}/{product['id']}", "put")
    assert (status, code) == (400, "shop_api_invalid_param")


@pytest.mark.parametrize("method", ["put", "post", "patch"])
def test_edit_methods(api: Any, method: str) -> None:
    product = create(api, title="Before", regular_price="5")
    record = edit(api, product["id"], method, title="After")
    assert record["title"] == "After"
    assert record["regular_price"] == "5.00"  # absent fields untouched
    assert record == get(api, product["id"])


def test_method_override(api: Any) -> None:
    product = create(api, title="Before")
    api.post_json(f"{URL}/{product['id']}?_method=PUT", {"product": {"title": "After"}}, status=200)
    assert get(api, product["id"])["title"] == "After"


# --- fields


def test_only_present_fields_change(api: Any, engine: sa.Engine) -> None:
    cat = seed_term(engine, "product_cat", "Cat")
    product = create(
        api,
        title="Full",
        sku="FULL",
        regular_price="10",
        sale_price="8",
        description="desc",
        categories=[cat],
        managing_stock=True,
        stock_quantity=4,
        featured=True,
        upsell_ids=[1],
        weight="2",
        attributes=[{"name": "A", "options": ["x"]}],
    )
    record = edit(api, product["id"], menu_order=5)

    def unstamped(value: Any) -> Any:
        # the placeholder image carries the product's updated_at, which the edit moves
        if isinstance(value, list):
            return [
                {k: v for k, v in item.items() if k != "updated_at"}
                if isinstance(item, dict)
                else item
                for item in value
            ]
        return value

    for key, value in product.items():
        if key not in ("updated_at", "menu_order"):
            assert unstamped(record[key]) == unstamped(value), key
    assert record["menu_order"] == 5


def test_edit_replaces_lists(api: Any, engine: sa.Engine) -> None:
    one = seed_term(engine, "product_cat", "One")
    two = seed_term(engine, "product_cat", "Two")
    tag = seed_term(engine, "product_tag", "Tag")
    product = create(
        api,
        title="x",
        categories=[one],
        tags=[tag],
        attributes=[{"name": "A", "options": ["x"]}, {"name": "B", "options": ["y"]}],
        upsell_ids=[3],
    )
    record = edit(
        api,
        product["id"],
        categories=[two],
        attributes=[{"name": "C", "options": "z"}],
        upsell_ids=[],
        cross_sell_ids=[7, 7],
    )
    assert record["categories"] == ["Two"] and record["tags"] == ["Tag"]
    assert [a["name"] for a in record["attributes"]] == ["C"]
    assert record["upsell_ids"] == [] and record["cross_sell_ids"] == [7]
    cleared = edit(api, product["id"], categories=[], tags=[], attributes=[])
    assert cleared["categories"] == [] and cleared["tags"] == [] and cleared["attributes"] == []
    with engine.connect() as conn:
        links = conn.execute(sa.select(sa.func.count()).select_from(product_terms)).scalar()
    assert links == 0


def test_slug_on_edit(api: Any) -> None:
    create(api, title="Taken")
    product = create(api, title="Mine")
    assert edit(api, product["id"], title="Renamed")["permalink"].endswith("/product/mine/")
    assert edit(api, product["id"], name="Taken")["permalink"].endswith("/product/taken-2/")
    assert edit(api, product["id"], name="Taken")["permalink"].endswith("/product/taken-2/")
    assert edit(api, product["id"], name="")["permalink"].endswith("/product/renamed/")


def test_status_changes(api: Any) -> None:
    product = create(api, title="x")
    assert edit(api, product["id"], status="draft")["status"] == "draft"
    assert edit(api, product["id"], status="private")["status"] == "private"
    assert fails(api, {"product": {"status": "trash"}}, f"{URL}/{product['id']}", "put")[1] == (
        "shop_api_invalid_param"
    )


def test_sku_edits(api: Any, engine: sa.Engine) -> None:
    create(api, title="other", sku="OTHER")
    product = create(api, title="x", sku="mine")
    assert edit(api, product["id"], sku="MINE")["sku"] == "MINE"
    assert edit(api, product["id"], sku="MINE")["sku"] == "MINE"
    assert fails(api, {"product": {"sku": "other"}}, f"{URL}/{product['id']}", "put") == (
        400,
        "shop_api_product_sku_already_exists",
        "The SKU already exists on another product.",
    )
    assert edit(api, product["id"], sku="")["sku"] == ""
    assert row(engine, product["id"])["sku"] is None


def test_inventory_delta(api: Any) -> None:
    product = create(api, title="x", managing_stock=True, stock_quantity=5)
    assert edit(api, product["id"], inventory_delta=3)["stock_quantity"] == 8
    record = edit(api, product["id"], inventory_delta="-10")
    assert record["stock_quantity"] == -2 and record["in_stock"] is False
    assert edit(api, product["id"], stock_quantity=1, inventory_delta=50)["stock_quantity"] == 1
    unmanaged = edit(api, product["id"], managing_stock=False, inventory_delta=4)
    assert unmanaged["managing_stock"] is False and unmanaged["stock_quantity"] is None


def test_in_stock_on_edit(api: Any) -> None:
    product = create(api, title="x")
    assert edit(api, product["id"], in_stock=False)["in_stock"] is False
    assert edit(api, product["id"], title="y")["in_stock"] is False
    assert edit(api, product["id"], in_stock="yes")["in_stock"] is True


def test_prices_and_dates_on_edit(api: Any, engine: sa.Engine) -> None:
    product = create(
        api, title="x", regular_price="10", sale_price="5", sale_price_dates_to="2099-01-01"
    )
    assert edit(api, product["id"], sale_price="")["sale_price"] is None
    record = edit(
        api, product["id"], sale_price="4", sale_price_dates_from="", sale_price_dates_to=""
    )
    assert record["on_sale"] is True and record["price"] == "4.00"
    stored = row(engine, product["id"])
    assert stored["sale_from"] is None and stored["sale_to"] is None


def test_type_change_clears_prices_keeps_variations(api: Any, engine: sa.Engine) -> None:
    product = create(api, title="x", regular_price="10", sale_price="5")
    record = edit(api, product["id"], type="variable")
    assert record["type"] == "variable"
    assert record["regular_price"] == "" and record["sale_price"] is None
    assert row(engine, product["id"])["regular_price"] is None
    record = edit(
        api,
        product["id"],
        attributes=[{"name": "Size", "options": ["S"], "variation": True}],
        variations=[{"regular_price": "3", "attributes": [{"name": "Size", "option": "S"}]}],
    )
    [variation] = record["variations"]
    back = edit(api, product["id"], type="simple", regular_price="7")
    assert back["type"] == "simple" and back["price"] == "7.00" and back["variations"] == []
    assert row(engine, variation["id"])["parent_id"] == product["id"]
    grouped = edit(api, product["id"], type="grouped")
    assert grouped["price"] == "" and grouped["regular_price"] == ""
    external = edit(api, product["id"], type="external", product_url="https://x.test")
    assert external["product_url"] == "https://x.test" and external["in_stock"] is True


def test_invalid_type_on_edit_saves_nothing(api: Any) -> None:
    product = create(api, title="Before")
    assert fails(
        api, {"product": {"title": "After", "type": "bogus"}}, f"{URL}/{product['id']}", "put"
    ) == (
        400,
        "shop_api_invalid_product_type",
        "Invalid product type - the product type must be any of these: "
        "simple, grouped, external, variable",
    )
    assert get(api, product["id"])["title"] == "Before"


def test_failed_edit_is_atomic(api: Any, engine: sa.Engine) -> None:
    seed_attribute(engine, "Color", "color")
    create(api, title="other", sku="TAKEN")
    product = create(api, title="Before", regular_price="1")
    body = {
        "product": {
            "title": "After",
            "regular_price": "2",
            "attributes": [{"name": "Color", "slug": "color", "options": ["Red"]}],
            "sku": "taken",
        }
    }
    assert fails(api, body, f"{URL}/{product['id']}", "put")[1] == (
        "shop_api_product_sku_already_exists"
    )
    record = get(api, product["id"])
    assert record["title"] == "Before" and record["price"] == "1.00"
    assert record["attributes"] == []


def test_downloads_on_edit(api: Any) -> None:
    product = create(api, title="x", downloadable=True, downloads=[{"file": "https://a.test/1"}])
    key = product["downloads"][0]["id"]
    record = edit(
        api,
        product["id"],
        downloads=[
            {"id": key, "name": "Kept", "file": "https://a.test/1"},
            {"file": "https://a.test/2"},
        ],
    )
    assert record["downloads"][0]["id"] == key
    assert len(record["downloads"]) == 2
    record = edit(api, product["id"], downloadable=False, downloads=[])
    assert record["downloads"] == [] and record["downloadable"] is False
    assert len(edit(api, product["id"], downloadable=True)["downloads"]) == 2


def test_parent_id_on_edit(api: Any) -> None:
    group = create(api, title="Group", type="grouped")
    child = create(api, title="Child", regular_price="3")
    assert edit(api, child["id"], parent_id=group["id"])["parent_id"] == group["id"]
    assert edit(api, child["id"], parent_id=0)["parent_id"] == 0
    assert fails(api, {"product": {"parent_id": child["id"]}}, f"{URL}/{child['id']}", "put")[
        1
    ] == ("shop_api_invalid_param")


# --- trash and restore


def test_put_with_status_restores_trashed_product(api: Any, engine: sa.Engine) -> None:
    product = create(
        api,
        title="x",
        type="variable",
        sku="PARENT",
        attributes=[{"name": "Size", "options": ["S", "M"], "variation": True}],
        variations=[
            {"sku": "V1", "attributes": [{"name": "Size", "option": "S"}]},
            {"sku": "V2", "visible": False},
        ],
    )
    api.delete(f"{URL}/{product['id']}", status=202)
    first, second = (v["id"] for v in product["variations"])
    assert row(engine, first)["status"] == "trash"
    # an edit without a status leaves it in the trash
    assert edit(api, product["id"], title="still trashed")["status"] == "trash"
    record = edit(api, product["id"], status="draft")
    assert record["status"] == "draft"
    assert row(engine, first)["status"] == "publish"
    assert row(engine, second)["status"] == "private"
    assert row(engine, product["id"])["status_before_trash"] is None


def test_restore_refused_when_sku_reused(api: Any, engine: sa.Engine) -> None:
    product = create(api, title="x", sku="SKU-1")
    api.delete(f"{URL}/{product['id']}", status=202)
    create(api, title="y", sku="sku-1")
    assert fails(api, {"product": {"status": "publish"}}, f"{URL}/{product['id']}", "put") == (
        400,
        "shop_api_product_sku_already_exists",
        "The SKU already exists on another product.",
    )
    assert row(engine, product["id"])["status"] == "trash"
    # with a new SKU in the same request it comes back
    record = edit(api, product["id"], status="publish", sku="SKU-2")
    assert record["status"] == "publish" and record["sku"] == "SKU-2"


def test_restore_refused_when_variation_sku_reused(api: Any, engine: sa.Engine) -> None:
    product = create(api, title="x", type="variable", variations=[{"sku": "VSKU"}])
    api.delete(f"{URL}/{product['id']}", status=202)
    create(api, title="y", sku="VSKU")
    assert fails(api, {"product": {"status": "publish"}}, f"{URL}/{product['id']}", "put")[1] == (
        "shop_api_product_sku_already_exists"
    )
    assert row(engine, product["id"])["status"] == "trash"


# --- variable products


def test_edit_without_variations_resyncs_stock(api: Any, engine: sa.Engine) -> None:
    product = create(
        api,
        title="x",
        type="variable",
        variations=[{"managing_stock": True, "stock_quantity": 2, "regular_price": "1"}],
    )
    assert product["in_stock"] is True
    [variation] = product["variations"]
    with engine.begin() as conn:
        conn.execute(
            sa.update(products)
            .where(products.c.id == variation["id"])
            .values(stock_quantity=0, stock_status="outofstock")
        )
    assert edit(api, product["id"], title="y")["in_stock"] is False


def test_variable_title_change_renames_variations(api: Any, engine: sa.Engine) -> None:
    product = create(
        api,
        title="Tee",
        type="variable",
        attributes=[{"name": "Size", "options": ["S"], "variation": True}],
        variations=[{"attributes": [{"name": "Size", "option": "S"}]}],
    )
    [variation] = product["variations"]
    assert row(engine, variation["id"])["title"] == "Tee - S"
    edit(api, product["id"], title="Shirt")
    assert row(engine, variation["id"])["title"] == "Shirt - S"


def test_edit_variation_through_its_id(api: Any, engine: sa.Engine) -> None:
    product = create(
        api,
        title="x",
        type="variable",
        attributes=[{"name": "Size", "options": ["S", "M"], "variation": True}],
        variations=[
            {"regular_price": "5", "managing_stock": True, "stock_quantity": 1, "sku": "V-1"}
        ],
    )
    [variation] = product["variations"]
    record = edit(
        api,
        variation["id"],
        regular_price="6",
        sku="V-1b",
        stock_quantity=0,
        attributes=[{"name": "Size", "option": "M"}],
        visible=False,
        title="ignored",
    )
    assert record["type"] == "variation" and record["id"] == variation["id"]
    assert record["regular_price"] == "6.00" and record["sku"] == "V-1b"
    assert record["attributes"] == [{"name": "Size", "slug": "size", "option": "M"}]
    assert record["in_stock"] is False
    assert row(engine, variation["id"])["status"] == "private"
    assert row(engine, variation["id"])["title"] == "x - M"
    # the parent's stock status follows its variations
    assert row(engine, product["id"])["stock_status"] == "outofstock"


def test_edit_unknown_product_is_404_even_with_bad_fields(api: Any) -> None:
    assert fails(api, {"product": {"status": "bogus"}}, f"{URL}/12345", "put")[0] == 404


def test_edit_response_is_the_record(api: Any) -> None:
    product = create(api, title="x")
    response = api.put_json(f"{URL}/{product['id']}", {"product": {"featured": True}})
    assert response.status_int == 200
    assert response.json == {"product": get(api, product["id"])}
    assert count_rows(api.app.registry.engine) == 1
