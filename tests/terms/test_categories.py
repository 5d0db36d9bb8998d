"""What only product categories do: ``display``, ``image`` (an attachment id or a URL downloaded
from a local server), the order of ``menu_order``, a parent that is no category on edit, and the
unique index on sibling names. The rules categories share with the other term families are in
``test_common.py``."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import media, terms
from tests.helpers.api import error
from tests.helpers.server import PNG
from tests.helpers.sql import count_rows, insert, update
from tests.helpers.terms import CATEGORIES, TAGS

URL = CATEGORIES.url
create = CATEGORIES.create
category = CATEGORIES.record


def add_media(engine: sa.Engine, file: str = "2024/01/a.png") -> int:
    now = dt.datetime(2024, 1, 1)
    values = {"file": file, "mime_type": "image/png", "created_at": now, "updated_at": now}
    return insert(engine, media, **values)


def media_url(file: str) -> str:
    return f"http://localhost/media/{file}"


# --- create


def test_create_with_every_field(api: TestApp, engine: sa.Engine) -> None:
    parent = create(api, name="Clothing")
    image = add_media(engine)
    body = create(
        api,
        name="  Summer <b>shirts</b> ",
        slug="Summer Tops!",
        description="<p>Light</p>",
        parent=str(parent["id"]),
        display="products",
        image=image,
    )
    assert body == category(
        2,
        "Summer shirts",
        "summer-tops",
        parent=1,
        description="<p>Light</p>",
        display="products",
        image=media_url("2024/01/a.png"),
    )
    assert api.get(f"{URL}/2").json["product_category"] == body


def test_create_display_default_and_numeric_image_string(api: TestApp, engine: sa.Engine) -> None:
    image = add_media(engine, "x/y.png")
    body = create(api, name="A", display="default", image=str(image))
    assert (body["display"], body["image"]) == ("default", media_url("x/y.png"))


@pytest.mark.parametrize("image", ["", 0, "0", 99, "99"])
def test_create_without_a_valid_image(api: TestApp, image: Any) -> None:
    assert create(api, name="A", image=image)["image"] == ""


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"name": "A", "display": True},
            "Invalid parameter product_category.display: must be a string.",
        ),
        (
            {"name": "A", "image": [1]},
            "Invalid parameter product_category.image: must be an attachment id or a URL.",
        ),
        (
            {"name": "A", "display": "d" * 21},
            "Invalid parameter product_category.display: must be at most 20 characters.",
        ),
    ],
)
def test_create_with_wrong_types(api: TestApp, fields: dict[str, Any], message: str) -> None:
    response = api.post_json(URL, {"product_category": fields}, status=400)
    assert error(response) == (400, "shop_api_invalid_param", message)


def test_nulls_mean_absent(api: TestApp) -> None:
    body = create(api, name="A", slug=None, description=None, parent=None, image=None)
    assert body == category(1, "A", "a")


# --- images downloaded from a URL


def test_create_with_an_image_url(api: TestApp, image_host: str) -> None:
    body = create(api, name="A", image=image_host + "/image.png")
    assert body["image"].startswith("http://localhost/media/")
    assert body["image"].endswith(".png")
    served = api.get(body["image"][len("http://localhost") :])
    assert served.body == PNG


@pytest.mark.parametrize("path", ["/text.txt", "/missing.png"])
def test_create_with_a_bad_image_url(
    api: TestApp, engine: sa.Engine, image_host: str, path: str
) -> None:
    response = api.post_json(
        URL, {"product_category": {"name": "A", "image": image_host + path}}, status=400
    )
    status, code, message = error(response)
    assert (status, code) == (400, "shop_api_product_category_image_upload_error")
    assert message.startswith(f"Error getting remote image {image_host}{path}: ")
    assert count_rows(engine, terms) == 0
    assert count_rows(engine, media) == 0


def test_edit_with_an_image_url(api: TestApp, image_host: str) -> None:
    create(api, name="A")
    body = api.put_json(f"{URL}/1", {"product_category": {"image": image_host + "/image.png"}})
    assert body.json["product_category"]["image"].startswith("http://localhost/media/")


# --- read


def test_list_follows_the_menu_order(api: TestApp, engine: sa.Engine) -> None:
    for name in ("b", "C", "a", "d"):
        create(api, name=name)
    update(engine, terms, 4, menu_order=-1)  # "d" first, then by name
    listed = api.get(URL).json["product_categories"]
    assert [row["name"] for row in listed] == ["d", "a", "b", "C"]
    assert api.get(URL + "?fields=id,slug").json["product_categories"][0] == {"id": 4, "slug": "d"}


# --- edit


def test_edit(api: TestApp, engine: sa.Engine) -> None:
    men = create(api, name="Men")
    create(api, name="Shirts", description="old", display="both")
    image = add_media(engine)
    response = api.put_json(
        f"{URL}/2",
        {
            "product_category": {
                "name": "Tops",
                "description": "new",
                "parent": men["id"],
                "image": image,
                "display": "",
                "unknown": 1,
            }
        },
    )
    assert response.json == {
        "product_category": category(
            2,
            "Tops",
            "shirts",
            parent=1,
            description="new",
            display="both",
            image=media_url("2024/01/a.png"),
        )
    }
    body = api.patch_json(f"{URL}/2", {"product_category": {"display": "subcategories"}}).json
    assert body["product_category"]["display"] == "subcategories"
    body = api.post_json(f"{URL}/2", {"product_category": {"display": "default"}}).json
    assert body["product_category"]["display"] == "default"
    body = api.put_json(f"{URL}/2", {"product_category": {}}).json
    assert body["product_category"]["name"] == "Tops"


@pytest.mark.parametrize("image", ["", 0, "0", 12345])
def test_edit_removes_an_invalid_image(api: TestApp, engine: sa.Engine, image: Any) -> None:
    create(api, name="A", image=add_media(engine))
    body = api.put_json(f"{URL}/1", {"product_category": {"image": image}}).json
    assert body["product_category"]["image"] == ""


def test_edit_keeps_the_image_when_absent(api: TestApp, engine: sa.Engine) -> None:
    create(api, name="A", image=add_media(engine))
    body = api.put_json(f"{URL}/1", {"product_category": {"name": "B", "image": None}}).json
    assert body["product_category"]["image"] == media_url("2024/01/a.png")


@pytest.mark.parametrize("parent", [99, "99", 2])
def test_edit_with_an_unknown_parent(api: TestApp, parent: Any) -> None:
    """The spec's "``parent`` must be an existing category" covers edit too: a parent that is
    no category (none at all, or a tag) is ``shop_api_invalid_product_category_parent``, as on
    create; a loop stays ``…cannot_edit_product_catgory`` (shipping classes answer that for an
    unknown parent too)."""
    create(api, name="Tops")
    TAGS.create(api, name="Red")
    response = api.put_json(f"{URL}/1", {"product_category": {"parent": parent}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_product_category_parent",
        "Product category parent is invalid",
    )
    assert api.get(f"{URL}/1").json["product_category"] == category(1, "Tops", "tops")


def test_sibling_names_are_unique_in_the_database(api: TestApp, engine: sa.Engine) -> None:
    create(api, name="Shirts")
    values = {"taxonomy": "product_cat", "name": "SHIRTS", "slug": "other"}
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
        conn.execute(sa.insert(terms).values(**values))
