"""Check, then write (issue 25): a create or edit of a term or a global attribute that the rules
refuse sends no statement that writes — not even the ``media`` row of a category image
downloaded for it, which is written only once the name and slug rules have passed. The image's
own failure keeps its place among the checks (before the parent on edit, before the name and
slug rules on both)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import media, terms
from tests.helpers.api import ROOT, error
from tests.helpers.sql import count_rows
from tests.helpers.terms import ATTRIBUTES, CATEGORIES, Family
from tests.helpers.writes import writes_of

SLUG_IN_USE = 'The slug "{}" is already in use by another term.'


def refused(api: TestApp, send: Any) -> tuple[tuple[int, str, str], list[str]]:
    """The error of the refused request ``send()`` and the statements it wrote."""
    responses: list[Any] = []
    written = writes_of(api, lambda: responses.append(send()))
    return error(responses[0]), written


# --- a category image downloaded for a refused write


def test_create_refused_after_its_image_downloads_writes_nothing(
    api: TestApp, engine: sa.Engine, image_host: str
) -> None:
    CATEGORIES.create(api, name="Shirts")
    image = image_host + "/image.png"
    for fields, problem in (
        ({"name": "shirts", "image": image}, CATEGORIES.duplicate_name),
        ({"name": "Tops", "slug": "shirts", "image": image}, SLUG_IN_USE.format("shirts")),
    ):
        answer, written = refused(api, lambda f=fields: CATEGORIES.post(api, f, status=400))
        assert answer == (400, CATEGORIES.cannot_create, problem)
        assert written == []
    assert (count_rows(engine, terms), count_rows(engine, media)) == (1, 0)
    # the same image with a free name: the media row, then the term
    created = CATEGORIES.create(api, name="Tops", image=image)
    assert created["image"].startswith("http://localhost/media/")
    assert count_rows(engine, media) == 1


def test_edit_refused_after_its_image_downloads_writes_nothing(
    api: TestApp, engine: sa.Engine, image_host: str
) -> None:
    CATEGORIES.create(api, name="Shirts")
    CATEGORIES.create(api, name="Tops")
    CATEGORIES.create(api, name="Child", parent=2)
    image = image_host + "/image.png"
    assert CATEGORIES.invalid_parent is not None
    for fields, answer in (
        ({"image": image, "parent": 3}, (400, *CATEGORIES.edit_failed)),  # a loop
        ({"image": image, "parent": 99}, (400, *CATEGORIES.invalid_parent)),
        ({"image": image, "name": "shirts"}, (400, *CATEGORIES.edit_failed)),
        ({"image": image, "slug": "shirts"}, (400, *CATEGORIES.edit_failed)),
    ):
        got, written = refused(api, lambda f=fields: CATEGORIES.put(api, 2, f, status=400))
        assert got == answer, fields
        assert written == [], fields
    assert count_rows(engine, media) == 0
    assert CATEGORIES.get(api, 2) == CATEGORIES.record(2, "Tops", "tops")
    edited = CATEGORIES.put(api, 2, {"image": image}).json[CATEGORIES.envelope]
    assert edited["image"].startswith("http://localhost/media/")


def test_a_failed_image_still_comes_before_the_name_and_parent_rules(
    api: TestApp, engine: sa.Engine, image_host: str
) -> None:
    CATEGORIES.create(api, name="Shirts")
    bad = image_host + "/missing.png"
    code = "shop_api_product_category_image_upload_error"
    response = CATEGORIES.post(api, {"name": "shirts", "image": bad}, status=400)
    assert error(response)[:2] == (400, code)
    response = CATEGORIES.put(api, 1, {"image": bad, "parent": 99}, status=400)
    assert error(response)[:2] == (400, code)
    assert (count_rows(engine, terms), count_rows(engine, media)) == (1, 0)


# --- the term rules of every family


def test_refused_term_writes_write_nothing(api: TestApp, term_family: Family) -> None:
    family = term_family
    family.create(api, name="Shirts")
    family.create(api, name="Tops")
    creates = [
        ({"name": "shirts"}, (400, family.cannot_create, family.duplicate_name)),
        ({"name": "Tees", "slug": "shirts"}, (400, family.cannot_create, SLUG_IN_USE)),
        ({"name": ""}, (400, *family.name_required)),
    ]
    if family.invalid_parent is not None:
        creates.append(({"name": "Tees", "parent": 9}, (400, *family.invalid_parent)))
    for fields, answer in creates:
        got, written = refused(api, lambda f=fields: family.post(api, f, status=400))
        assert got == (*answer[:2], answer[2].format("shirts")), fields
        assert written == [], fields
    edits: list[dict[str, Any]] = [{"name": "shirts"}, {"slug": "shirts"}]
    if family.invalid_parent is not None:
        edits += [{"parent": 2}, {"parent": 9}]
    for fields in edits:
        got, written = refused(api, lambda f=fields: family.put(api, 2, f, status=400))
        assert got[0] == 400, fields
        assert written == [], fields
    assert family.get(api, 2) == family.record(2, "Tops", "tops")


def test_refused_attribute_writes_write_nothing(api: TestApp) -> None:
    ATTRIBUTES.create(api, name="Color")
    ATTRIBUTES.create(api, name="Size")
    url = ROOT + "/products/attributes"
    for body in ({"name": "Colour", "slug": "pa_color"}, {"name": "X", "type": "radio"}):
        answer, written = refused(
            api, lambda b=body: api.post_json(url, {"product_attribute": b}, status=400)
        )
        assert answer[0] == 400, body
        assert written == [], body
    for body in ({"slug": "color"}, {"slug": "order"}, {"name": ""}):
        answer, written = refused(
            api, lambda b=body: api.put_json(f"{url}/2", {"product_attribute": b}, status=400)
        )
        assert answer[0] == 400, body
        assert written == [], body
    # another attribute's slug: refused by the writer's own check, before its update
    answer, _ = refused(
        api, lambda: api.put_json(f"{url}/2", {"product_attribute": {"slug": "color"}}, status=400)
    )
    assert answer[1] == "shop_api_cannot_edit_product_attribute"
    assert ATTRIBUTES.get(api, 2)["slug"] == "pa_size"
