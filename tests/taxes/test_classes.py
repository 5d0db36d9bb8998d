"""Tax classes through HTTP, and their slug rule: every route, default and error code."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.domain.tax import tax_class_slug
from shopsvc.sql import taxes as taxes_sql
from shopsvc.sql.tables import tax_classes, tax_rate_locations
from tests.helpers.api import error, errors
from tests.helpers.sql import count_rows
from tests.helpers.taxes import CLASSES, STANDARD, URL, create, create_class

# --- the slug rule


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Reduced Rate", "reduced-rate"),
        ("Zero rate", "zero-rate"),
        ("Réduit  taux. x_y!", "reduit-taux-x_y"),
        ("Children's <b>wear</b>", "childrens-wear"),
        ("a/b", "ab"),
        ("  --x--  ", "x"),
        ("!!!", ""),
    ],
)
def test_tax_class_slug(name: str, slug: str) -> None:
    assert tax_class_slug(name) == slug


# --- tax classes


def test_class_list_starts_with_standard(api: Any) -> None:
    response = api.get(CLASSES)
    assert response.json == {"tax_classes": [STANDARD]}
    assert response.headers["X-Shop-Total"] == "1"
    assert response.headers["X-Shop-TotalPages"] == "1"
    assert "Link" not in response.headers
    for name in ("Zero rate", "Reduced rate", "Luxury"):
        create_class(api, name)
    response = api.get(CLASSES, {"page": "2", "filter[limit]": "1"})
    assert response.json == {
        "tax_classes": [
            STANDARD,
            {"slug": "luxury", "name": "Luxury"},
            {"slug": "reduced-rate", "name": "Reduced rate"},
            {"slug": "zero-rate", "name": "Zero rate"},
        ]
    }
    assert response.headers["X-Shop-Total"] == "4"
    assert response.headers["X-Shop-TotalPages"] == "1"
    assert "Link" not in response.headers


def test_class_list_with_fields(api: Any) -> None:
    create_class(api, "Reduced rate")
    response = api.get(CLASSES, {"fields": "slug"})
    assert response.json == {"tax_classes": [{"slug": "standard"}, {"slug": "reduced-rate"}]}


def test_class_count(api: Any) -> None:
    assert api.get(CLASSES + "/count").json == {"count": 1}
    create_class(api, "Reduced rate")
    create_class(api, "Zero rate")
    response = api.get(CLASSES + "/count")
    assert response.json == {"count": 3}
    assert "X-Shop-Total" not in response.headers


def test_create_a_class(api: Any, engine: sa.Engine) -> None:
    response = api.post_json(CLASSES, {"tax_class": {"name": "Reduced rate"}})
    assert response.status_int == 201
    assert response.json == {"tax_class": {"slug": "reduced-rate", "name": "Reduced rate"}}
    assert list(response.json["tax_class"]) == ["slug", "name"]
    assert count_rows(engine, tax_classes) == 1


def test_create_a_class_cleans_the_name(api: Any) -> None:
    record = create_class(api, "  <b>Luxury</b>\n  goods ")
    assert record == {"slug": "luxury-goods", "name": "Luxury goods"}
    assert create_class(api, 42) == {"slug": "42", "name": "42"}


@pytest.mark.parametrize("body", [None, {}, {"tax_class": None}, {"tax": {"name": "x"}}])
def test_create_a_class_without_the_envelope(api: Any, body: Any) -> None:
    if body is None:
        response = api.post(CLASSES, "", status=400)
    else:
        response = api.post_json(CLASSES, body, status=400)
    assert error(response) == (
        400,
        "shop_api_missing_tax_class_data",
        "No tax_class data specified to create tax_class",
    )


@pytest.mark.parametrize("data", [{}, {"name": ""}, {"name": None}, {"name": "  <b></b> "}])
def test_create_a_class_without_a_name(api: Any, engine: sa.Engine, data: Any) -> None:
    response = api.post_json(CLASSES, {"tax_class": data}, status=400)
    assert error(response) == (
        400,
        "shop_api_missing_tax_class_name",
        "Missing parameter name",
    )
    assert count_rows(engine, tax_classes) == 0


def test_create_a_class_with_a_bad_name(api: Any) -> None:
    response = api.post_json(CLASSES, {"tax_class": {"name": ["x"]}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter tax_class.name: must be a string.",
    )
    response = api.post_json(CLASSES, {"tax_class": {"name": "x" * 201}}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"
    response = api.post_json(CLASSES, {"tax_class": "Luxury"}, status=400)
    assert errors(response)[0]["message"] == "Invalid parameter tax_class: must be a JSON object."


def test_create_a_class_whose_slug_would_be_empty(api: Any, engine: sa.Engine) -> None:
    response = api.post_json(CLASSES, {"tax_class": {"name": "!!!"}}, status=401)
    assert error(response) == (
        401,
        "shop_api_tax_class_invalid_name",
        "Tax class requires a valid name.",
    )
    assert count_rows(engine, tax_classes) == 0


@pytest.mark.parametrize(
    ("name", "code", "message"),
    [
        ("Reduced rate", "shop_api_tax_class_exists", "Tax class already exists."),
        (" Reduced  rate ", "shop_api_tax_class_exists", "Tax class already exists."),
        ("Reduced-Rate", "shop_api_tax_class_slug_exists", "Tax class slug already exists."),
        ("reduced rate", "shop_api_tax_class_slug_exists", "Tax class slug already exists."),
        ("Standard rate", "shop_api_tax_class_exists", "Tax class already exists."),
        ("Standard", "shop_api_tax_class_slug_exists", "Tax class slug already exists."),
    ],
)
def test_create_a_duplicate_class(
    api: Any, engine: sa.Engine, name: str, code: str, message: str
) -> None:
    create_class(api, "Reduced rate")
    response = api.post_json(CLASSES, {"tax_class": {"name": name}}, status=401)
    assert error(response) == (401, code, message)
    assert count_rows(engine, tax_classes) == 1


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Reduced rate", "shop_api_tax_class_exists"),
        ("Reduced-Rate", "shop_api_tax_class_slug_exists"),
    ],
)
def test_a_duplicate_class_that_slips_past_the_checks_hits_the_unique_index(
    api: Any, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch, name: str, code: str
) -> None:
    """A concurrent create: the checks see nothing, the unique index refuses the insert."""
    create_class(api, "Reduced rate")
    calls = {"name": 0, "slug": 0}
    real_name_exists, real_class_id = taxes_sql.class_name_exists, taxes_sql.class_id

    def name_exists(conn: Any, value: str) -> bool:
        calls["name"] += 1
        return calls["name"] > 1 and real_name_exists(conn, value)

    def class_id(conn: Any, slug: str) -> int | None:
        calls["slug"] += 1
        return real_class_id(conn, slug) if calls["slug"] > 1 else None

    monkeypatch.setattr(taxes_sql, "class_name_exists", name_exists)
    monkeypatch.setattr(taxes_sql, "class_id", class_id)
    response = api.post_json(CLASSES, {"tax_class": {"name": name}}, status=401)
    assert errors(response)[0]["code"] == code
    assert calls["name"] == 2
    assert count_rows(engine, tax_classes) == 1


def test_create_a_class_without_capability(customer_api: Any, engine: sa.Engine) -> None:
    response = customer_api.post_json(CLASSES, {"tax_class": {"name": ""}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_create_tax_class",
        "You do not have permission to create tax classes.",
    )
    response = customer_api.post_json(CLASSES, {}, status=400)
    assert errors(response)[0]["code"] == "shop_api_missing_tax_class_data"
    assert count_rows(engine, tax_classes) == 0


def test_class_list_and_count_without_capability(customer_api: Any) -> None:
    response = customer_api.get(CLASSES, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_read_tax_classes",
        "You do not have permission to read tax classes.",
    )
    response = customer_api.get(CLASSES + "/count", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_read_tax_classes_count",
        "You do not have permission to read the tax classes count.",
    )


def test_delete_a_class_deletes_its_rates(api: Any, engine: sa.Engine) -> None:
    create_class(api, "Reduced rate")
    create_class(api, "Zero rate")
    kept = create(api, postcode="AB1")
    zero = create(api, city="Leeds", **{"class": "zero-rate"})
    for n in range(2):
        create(api, postcode=f"CB{n};DB{n}", city="York", **{"class": "reduced-rate"})
    assert count_rows(engine, tax_rate_locations) == 8
    response = api.delete(CLASSES + "/reduced-rate")
    assert response.status_int == 200
    assert response.json == {"message": "Deleted tax_class"}
    assert api.get(URL).json == {"taxes": [kept, zero]}
    assert count_rows(engine, tax_rate_locations) == 2
    assert api.get(CLASSES).json == {
        "tax_classes": [STANDARD, {"slug": "zero-rate", "name": "Zero rate"}]
    }


def test_delete_a_class_by_an_unsanitised_slug(api: Any, engine: sa.Engine) -> None:
    create_class(api, "Reduced rate")
    response = api.delete(CLASSES + "/Reduced%20Rate")
    assert response.json == {"message": "Deleted tax_class"}
    assert count_rows(engine, tax_classes) == 0


def test_delete_the_class_named_count(api: Any, engine: sa.Engine) -> None:
    create_class(api, "Count")
    assert api.get(CLASSES + "/count").json == {"count": 2}
    assert api.delete(CLASSES + "/count").json == {"message": "Deleted tax_class"}
    assert count_rows(engine, tax_classes) == 0


@pytest.mark.parametrize("slug", ["standard", "Standard", "luxury", "count", "_"])
def test_delete_a_class_that_cannot_be_deleted(api: Any, engine: sa.Engine, slug: str) -> None:
    create_class(api, "Reduced rate")
    response = api.delete(f"{CLASSES}/{slug}", status=401)
    assert error(response) == (
        401,
        "shop_api_cannot_delete_tax_class",
        "Could not delete the tax class.",
    )
    assert count_rows(engine, tax_classes) == 1


def test_delete_a_class_without_capability(api: Any, customer_api: Any, engine: sa.Engine) -> None:
    create_class(api, "Reduced rate")
    response = customer_api.delete(CLASSES + "/reduced-rate", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_delete_tax_class",
        "You do not have permission to delete tax classes.",
    )
    assert count_rows(engine, tax_classes) == 1
