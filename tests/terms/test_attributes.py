"""Global product attributes through HTTP: every default, rule and error code of their own (slug
rules, type, order_by, terms deleted with the attribute). The order of the routes' checks and
their codes, which attributes share with the term families, are in ``test_common.py``."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql import attributes as attributes_sql
from shopsvc.sql.tables import (
    attribute_terms,
    product_attribute_terms,
    product_attributes,
    variation_attributes,
)
from tests.helpers.api import check_unpaginated, error
from tests.helpers.sql import add_product, count_rows, insert_many
from tests.helpers.terms import ATTRIBUTES

URL = ATTRIBUTES.url
KEYS = ["id", "name", "slug", "type", "order_by", "has_archives"]
SLUG_27 = "a" * 27


def create(api: Any, **fields: Any) -> dict[str, Any]:
    return api.post_json(URL, {"product_attribute": fields}, status=201).json["product_attribute"]


def attribute(id: int, name: str, slug: str, **fields: Any) -> dict[str, Any]:
    record = {"id": id, "name": name, "slug": slug, "type": "select", "order_by": "menu_order"}
    return record | {"has_archives": False} | fields


def refused(api: Any, fields: dict[str, Any], attribute_id: int | None = None) -> tuple[Any, ...]:
    body = {"product_attribute": fields}
    if attribute_id is None:
        return error(api.post_json(URL, body, status=400))
    return error(api.put_json(f"{URL}/{attribute_id}", body, status=400))


def too_long(slug: str) -> tuple[int, str, str]:
    return (
        400,
        "shop_api_invalid_product_attribute_slug_too_long",
        f'Slug "{slug}" is too long (28 characters max). Shorten it, please.',
    )


def reserved(slug: str) -> tuple[int, str, str]:
    return (
        400,
        "shop_api_invalid_product_attribute_slug_reserved_name",
        f'Slug "{slug}" is not allowed because it is a reserved term. Change it, please.',
    )


def in_use(slug: str) -> tuple[int, str, str]:
    return (
        400,
        "shop_api_invalid_product_attribute_slug_already_exists",
        f'Slug "{slug}" is already in use. Change it, please.',
    )


MISSING_NAME = (400, "shop_api_missing_product_attribute_name", "Missing parameter name")
BAD_TYPE = (
    400,
    "shop_api_invalid_product_attribute_type",
    "Invalid product attribute type - the product attribute type must be any of these: "
    "select, text",
)
BAD_ORDER_BY = (
    400,
    "shop_api_invalid_product_attribute_order_by",
    "Invalid product attribute order_by type - the product attribute order_by type must be any "
    "of these: menu_order, name, name_num, id",
)
EDIT_FAILED = (400, "shop_api_cannot_edit_product_attribute", "Could not edit the attribute")


# --- create


def test_create_with_defaults(api: Any) -> None:
    response = api.post_json(URL, {"product_attribute": {"name": "Color"}}, status=201)
    assert list(response.json["product_attribute"]) == KEYS
    assert response.json == {"product_attribute": attribute(1, "Color", "pa_color")}


def test_create_with_every_field(api: Any) -> None:
    body = create(api, name="Shoe size", slug="pa_Shoe Size", type="text", order_by="name_num")
    assert body == attribute(1, "Shoe size", "pa_shoe-size", type="text", order_by="name_num")
    body = create(api, name="Material", has_archives="yes", order_by="id")
    assert body == attribute(2, "Material", "pa_material", order_by="id", has_archives=True)
    assert create(api, name="Ünïcode Größe")["slug"] == "pa_ünïcode-größe"
    assert create(api, name="X", slug=None, type=None, has_archives=None)["slug"] == "pa_x"


@pytest.mark.parametrize("value", [True, 1, "1", "true", "YES"])
def test_has_archives_spellings(api: Any, value: Any) -> None:
    assert create(api, name="A", has_archives=value)["has_archives"] is True


def test_slug_length(api: Any) -> None:
    assert create(api, name="A", slug=SLUG_27)["slug"] == "pa_" + SLUG_27
    assert refused(api, {"name": "B", "slug": SLUG_27 + "b"}) == too_long(SLUG_27 + "b")
    assert (
        create(api, name="C", slug="pa_" + "c" * 27)["slug"] == "pa_" + "c" * 27
    )  # prefix dropped
    assert refused(api, {"name": "D" * 28}) == too_long("d" * 28)


@pytest.mark.parametrize(("name", "slug"), [("Type", "type"), ("Name", "name"), ("p", "p")])
def test_reserved_slugs(api: Any, name: str, slug: str) -> None:
    assert refused(api, {"name": name}) == reserved(slug)
    assert refused(api, {"name": "Fine", "slug": slug}) == reserved(slug)


def test_slug_in_use(api: Any) -> None:
    create(api, name="Color")
    assert refused(api, {"name": "Colour", "slug": "pa_color"}) == in_use("color")
    assert refused(api, {"name": "COLOR"}) == in_use("color")


def test_create_checks_in_order(api: Any) -> None:
    create(api, name="Color")
    everything_wrong = {"slug": "color", "type": "x", "order_by": "x"}
    assert refused(api, everything_wrong) == MISSING_NAME
    assert refused(api, {**everything_wrong, "name": " "}) == MISSING_NAME
    assert refused(api, {**everything_wrong, "name": "A", "slug": "b" * 28}) == too_long("b" * 28)
    assert refused(api, {**everything_wrong, "name": "A", "slug": "tag"}) == reserved("tag")
    assert refused(api, {**everything_wrong, "name": "A"}) == in_use("color")
    assert refused(api, {**everything_wrong, "name": "A", "slug": "a"}) == BAD_TYPE
    assert refused(api, {"name": "A", "type": "select", "order_by": "x"}) == BAD_ORDER_BY
    assert refused(api, {"name": "A", "type": "SELECT"}) == BAD_TYPE


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ["a"]}, "Invalid parameter product_attribute.name: must be a string."),
        ({"name": "A", "type": {}}, "Invalid parameter product_attribute.type: must be a string."),
        (
            {"name": "A", "has_archives": "maybe"},
            "Invalid parameter product_attribute.has_archives: must be a boolean.",
        ),
        (
            {"name": "A" * 201},
            "Invalid parameter product_attribute.name: must be at most 200 characters.",
        ),
    ],
)
def test_wrong_types(api: Any, fields: dict[str, Any], message: str) -> None:
    assert refused(api, fields) == (400, "shop_api_invalid_param", message)


def test_name_without_slug_characters(api: Any) -> None:
    assert refused(api, {"name": "!!!"}) == (
        400,
        "shop_api_cannot_create_product_attribute",
        "Could not create the attribute: its name gives an empty slug.",
    )


def test_unique_index_catches_a_concurrent_create(
    api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(api, name="Color")
    monkeypatch.setattr(attributes_sql, "slug_owner", lambda conn, slug: None)
    assert refused(api, {"name": "Color"}) == in_use("color")
    assert api.get(URL).json["product_attributes"] == [attribute(1, "Color", "pa_color")]


# --- read


def test_read(api: Any, engine: sa.Engine) -> None:
    create(api, name="Size")
    create(api, name="Color", slug="zz")
    create(api, name="Brand")
    with engine.begin() as conn:  # a legacy row without a slug is not listed
        conn.execute(
            sa.insert(attributes_sql.attributes).values(
                name="Empty", slug="", type="select", order_by="menu_order", has_archives=False
            )
        )
    response = api.get(URL)
    assert [row["slug"] for row in response.json["product_attributes"]] == [
        "pa_brand",
        "pa_size",
        "pa_zz",
    ]
    check_unpaginated(response, 3)
    assert api.get(URL + "?fields=id").json == {
        "product_attributes": [{"id": 3}, {"id": 1}, {"id": 2}]
    }
    assert api.get(f"{URL}/2").json == {"product_attribute": attribute(2, "Color", "pa_zz")}
    assert api.get(f"{URL}/2?fields=name,slug").json == {
        "product_attribute": {"name": "Color", "slug": "pa_zz"}
    }


# --- edit


def test_edit_keeps_omitted_fields(api: Any) -> None:
    create(api, name="Color", type="text", order_by="name", has_archives=True)
    body = api.put_json(f"{URL}/1", {"product_attribute": {"name": "Colour"}}).json
    expected = attribute(1, "Colour", "pa_color", type="text", order_by="name", has_archives=True)
    assert body == {"product_attribute": expected}
    body = api.patch_json(f"{URL}/1", {"product_attribute": {}}).json
    assert body == {"product_attribute": expected}
    body = api.post_json(
        f"{URL}/1",
        {"product_attribute": {"slug": "pa_colour", "type": "select", "has_archives": "no"}},
    ).json
    assert body["product_attribute"] == expected | {
        "slug": "pa_colour",
        "type": "select",
        "has_archives": False,
    }
    body = api.put_json(f"{URL}/1", {"product_attribute": {"slug": ""}}).json
    assert body["product_attribute"]["slug"] == "pa_colour"


def test_edit_rules(api: Any, engine: sa.Engine) -> None:
    create(api, name="Color")
    create(api, name="Size")
    assert refused(api, {"slug": "color"}, 2) == EDIT_FAILED
    assert refused(api, {"slug": "pa_size", "name": ""}, 2) == MISSING_NAME
    assert refused(api, {"slug": "order"}, 2) == reserved("order")
    assert refused(api, {"slug": SLUG_27 + "x"}, 2) == too_long(SLUG_27 + "x")
    assert refused(api, {"type": "radio"}, 2) == BAD_TYPE
    assert refused(api, {"order_by": "slug"}, 2) == BAD_ORDER_BY
    # a stored slug that breaks today's rules is checked on every edit
    with engine.begin() as conn:
        conn.execute(
            sa.update(attributes_sql.attributes)
            .where(attributes_sql.attributes.c.id == 2)
            .values(slug="year")
        )
    assert refused(api, {"name": "Size"}, 2) == reserved("year")
    assert api.get(f"{URL}/1").json["product_attribute"] == attribute(1, "Color", "pa_color")


def test_edit_unique_index(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    create(api, name="Color")
    create(api, name="Size")
    monkeypatch.setattr(attributes_sql, "slug_owner", lambda conn, slug: None)
    assert refused(api, {"slug": "color"}, 2) == EDIT_FAILED
    assert api.get(f"{URL}/2").json["product_attribute"]["slug"] == "pa_size"


def test_slug_change_follows_into_variations(api: Any, engine: sa.Engine) -> None:
    create(api, name="Color")
    variable = add_product(engine, type="variable")
    variation = add_product(engine, type="variation", parent_id=variable)
    custom = add_product(engine, type="variable")
    custom_variation = add_product(engine, type="variation", parent_id=custom)
    insert_many(
        engine, product_attributes, [{"product_id": variable, "attribute_id": 1, "name": "Color"}]
    )
    insert_many(
        engine, product_attributes, [{"product_id": custom, "attribute_id": None, "name": "color"}]
    )
    insert_many(
        engine,
        variation_attributes,
        [
            {"variation_id": variation, "attribute_key": "color", "value": "red"},
            {"variation_id": custom_variation, "attribute_key": "color", "value": "blue"},
        ],
    )
    api.put_json(f"{URL}/1", {"product_attribute": {"slug": "colour"}})
    with engine.connect() as conn:
        query = sa.select(variation_attributes.c.variation_id, variation_attributes.c.attribute_key)
        keys = dict(conn.execute(query.order_by(variation_attributes.c.variation_id)).all())
    assert keys == {variation: "colour", custom_variation: "color"}


# --- delete


def test_delete_deletes_the_terms(api: Any, engine: sa.Engine) -> None:
    create(api, name="Color")
    create(api, name="Size")
    terms_url = f"{URL}/1/terms"
    for name in ("Red", "Blue"):
        api.post_json(terms_url, {"product_attribute_term": {"name": name}}, status=201)
    api.post_json(f"{URL}/2/terms", {"product_attribute_term": {"name": "S"}}, status=201)
    product = add_product(engine)
    insert_many(
        engine, product_attributes, [{"product_id": product, "attribute_id": 1, "name": "Color"}]
    )
    insert_many(engine, product_attribute_terms, [{"product_id": product, "attribute_term_id": 1}])
    assert api.delete(f"{URL}/1").json == {"message": "Deleted product_attribute"}
    assert count_rows(engine, attribute_terms) == 1
    assert count_rows(engine, product_attribute_terms) == 0
    assert count_rows(engine, product_attributes) == 0
    assert error(api.get(terms_url, status=404))[1] == "shop_api_invalid_product_attribute_id"
    assert [row["slug"] for row in api.get(URL).json["product_attributes"]] == ["pa_size"]
