"""What the term families share, run over every family of ``tests.helpers.terms``: the order of
the routes' checks and their codes (with the global attributes too), the term rules (names,
slugs, counts, edits, deletes) and, for the families with a parent, the tree rules.

What only one family does is in that family's own file next to this one."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql import terms as terms_sql
from shopsvc.sql.tables import products
from tests.helpers.api import check_index, check_unpaginated, error
from tests.helpers.sql import count_rows, statements
from tests.helpers.terms import CATEGORIES, TAGS, Family

SLUG_IN_USE = 'The slug "{}" is already in use by another term.'
NAME_REQUIRED = "A name is required for this term."


def invalid_param(family: Family, name: str, rule: str) -> tuple[int, str, str]:
    return 400, "shop_api_invalid_param", f"Invalid parameter {family.envelope}.{name}: {rule}"


def other_family(family: Family) -> Family:
    """A term family whose rows are not ``family``'s."""
    return TAGS if family is CATEGORIES else CATEGORIES


# --- the routes of every family: order of checks, codes, messages


def test_create_checks_in_order(api: TestApp, customer_api: TestApp, family: Family) -> None:
    # the envelope, before the capability
    near_miss = {family.envelope.removeprefix("product_"): {}}
    for body in ({}, {"other": {}}, near_miss, {family.envelope: None}):
        for client in (api, customer_api):
            response = client.post_json(family.url, body, status=400)
            assert error(response) == (400, *family.missing_create), body
    for text in (None, "", "  "):
        for client in (api, customer_api):
            response = client.post(family.url, text or "", status=400)
            assert error(response) == (400, *family.missing_create), text
    response = api.post(family.url, "{", content_type="application/json", status=400)
    assert error(response)[1] == "shop_api_invalid_json"
    assert error(family.post(api, [1], status=400)) == (
        400,
        "shop_api_invalid_param",
        f"Invalid parameter {family.envelope}: must be a JSON object.",
    )
    # the capability, before the fields
    for fields in ({}, {"name": []}, {"parent": 9}):
        response = family.post(customer_api, fields, status=401)
        assert error(response) == (401, *family.create_denied)


def test_read_checks_in_order(api: TestApp, customer_api: TestApp, family: Family) -> None:
    family.create(api, name="Color")
    code = family.invalid_id[0]
    for client in (api, customer_api):  # id 0, before the capability
        response = client.get(family.item(0), status=400)
        assert error(response) == (400, *family.invalid_id)
    assert error(customer_api.get(family.url, status=401)) == (401, *family.read_denied)
    for record_id in (1, 7):  # the capability, before the record
        response = customer_api.get(family.item(record_id), status=401)
        assert error(response) == (401, *family.read_denied)
    assert error(api.get(family.item(7), status=404)) == (404, code, family.not_found)
    assert error(api.get(family.item(99999999999), status=404))[:2] == (404, code)
    assert error(api.get(family.item("abc"), status=404))[1] == "shop_api_no_route"


def test_empty_list_and_head(api: TestApp, family: Family) -> None:
    response = api.get(family.url)
    assert response.json == {family.plural: []}
    check_unpaginated(response, 0)
    family.create(api, name="Color")
    assert api.head(family.item(1)).body == b""
    head = api.head(family.url)
    assert head.body == b""
    assert head.headers["X-Shop-Total"] == "1"


def test_edit_checks_in_order(api: TestApp, customer_api: TestApp, family: Family) -> None:
    family.create(api, name="Color")
    for record_id in (0, 1, 9):  # the envelope first
        response = customer_api.put_json(family.item(record_id), {}, status=400)
        assert error(response) == (400, *family.missing_edit)
    assert error(api.put(family.item(1), "", status=400)) == (400, *family.missing_edit)
    for record_id in (0, 9):  # then the capability, before the id
        response = family.put(customer_api, record_id, {}, status=401)
        assert error(response) == (401, *family.edit_denied)
    response = family.put(api, 0, {"name": []}, status=400)
    assert error(response) == (400, *family.invalid_id)
    response = family.put(api, 9, {"name": []}, status=404)
    assert error(response) == (404, family.invalid_id[0], family.not_found)
    response = family.put(api, 1, {"name": []}, status=400)
    assert error(response) == invalid_param(family, "name", "must be a string.")


def test_delete_checks_in_order(api: TestApp, customer_api: TestApp, family: Family) -> None:
    family.create(api, name="Color")
    response = customer_api.delete(family.item(1), status=401)
    assert error(response) == (401, *family.delete_denied)
    not_found = (404, family.invalid_id[0], family.not_found)
    assert error(api.delete(family.item(5), status=404)) == not_found
    assert error(api.delete(family.item(0), status=400)) == (400, *family.invalid_id)
    assert api.delete(family.item(1)).json == family.deleted
    assert error(api.delete(family.item(1), status=404)) == not_found


def test_index_lists_the_routes(api: TestApp, family: Family) -> None:
    check_index(api, *family.routes)


# --- create


def test_create_with_defaults(api: TestApp, term_family: Family) -> None:
    family = term_family
    response = family.post(api, {"name": "Summer Sale"})
    assert response.content_type == "application/json"
    assert list(response.json[family.envelope]) == list(family.keys)
    assert response.json == {family.envelope: family.record(1, "Summer Sale", "summer-sale")}
    assert family.get(api, 1) == family.record(1, "Summer Sale", "summer-sale")


def test_generated_slugs(api: TestApp, term_family: Family) -> None:
    family = term_family
    family.create(api, name="Five", slug="5")
    body = family.create(api, name="!!!")  # no slug characters: the id
    assert (body["id"], body["slug"]) == (2, "2")
    assert family.create(api, name="???", slug="***")["slug"] == "3"
    assert family.create(api, name="Red", slug="red-colour")["slug"] == "red-colour"
    assert family.create(api, name="Blue", slug="red")["slug"] == "red"
    assert family.create(api, name="Red!")["slug"] == "red-2"
    assert family.create(api, name="Red?", slug="")["slug"] == "red-3"
    # a long name's slug fits the column
    assert len(family.create(api, name="a" * 200)["slug"]) == 190


def test_duplicate_name(api: TestApp, term_family: Family) -> None:
    family = term_family
    family.create(api, name="Red")
    family.create(api, name="Red!")
    for name in ("RED", "red!"):
        response = family.post(api, {"name": name}, status=400)
        assert error(response) == (400, family.cannot_create, family.duplicate_name)


def test_explicit_slug_in_use(api: TestApp, term_family: Family) -> None:
    family = term_family
    family.create(api, name="Shirts")
    response = family.post(api, {"name": "Tops", "slug": "shirts"}, status=400)
    assert error(response) == (400, family.cannot_create, SLUG_IN_USE.format("shirts"))
    # another family's term with that slug does not count: slugs are unique per family
    other_family(family).create(api, name="X", slug="tops")
    assert family.create(api, name="Tops", slug="tops")["slug"] == "tops"


def test_name_required(api: TestApp, term_family: Family) -> None:
    names = [None, "", "   ", "<b></b>", " <i></i> "]
    for fields in [{}, *({"name": name} for name in names)]:
        response = term_family.post(api, fields, status=400)
        assert error(response) == (400, *term_family.name_required), fields


def test_create_with_wrong_types(api: TestApp, term_family: Family) -> None:
    family = term_family
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"name": ["a"]}, "name", "must be a string."),
        ({"name": "A", "slug": {}}, "slug", "must be a string."),
        ({"name": "A" * 201}, "name", "must be at most 200 characters."),
    ]
    if "description" in family.fields:
        cases += [
            ({"name": "A", "description": {}}, "description", "must be a string."),
            (
                {"name": "A", "description": "a\x00b"},
                "description",
                "must not contain NUL characters.",
            ),
        ]
    for name in {"parent", "menu_order"} & family.fields:
        cases += [
            ({"name": "A", name: value}, name, "must be an integer.") for value in ("x", 1.5, [])
        ]
    for fields, name, rule in cases:
        response = family.post(api, fields, status=400)
        assert error(response) == invalid_param(family, name, rule), fields


def test_nulls_mean_absent_and_numbers_are_text(api: TestApp, term_family: Family) -> None:
    family = term_family
    nulls = dict.fromkeys(["slug", *(family.fields - {"menu_order"})])
    assert family.create(api, name="A", **nulls) == family.record(1, "A", "a")
    if "description" in family.fields:
        assert family.create(api, name="B", description=3)["description"] == "3"
    assert family.put(api, 1, {"slug": 5}).json[family.envelope]["slug"] == "5"


def test_unique_index_catches_a_concurrent_slug(
    api: TestApp, term_family: Family, monkeypatch: pytest.MonkeyPatch
) -> None:
    family = term_family
    family.create(api, name="Shirts")
    real = terms_sql.slugs_like
    calls: list[str] = []

    def stale_once(*args: Any) -> set[str]:  # the first look misses a concurrent insert
        calls.append(args[2])
        return set() if len(calls) == 1 else real(*args)

    monkeypatch.setattr(terms_sql, "slugs_like", stale_once)
    second = family.create(api, name="Shirts!")
    assert second["slug"] == "shirts-2"
    assert calls == ["shirts", "shirts"]
    monkeypatch.setattr(terms_sql, "slug_owner", lambda *args: None)
    response = family.post(api, {"name": "T", "slug": "shirts"}, status=400)
    assert error(response) == (400, family.cannot_create, SLUG_IN_USE.format("shirts"))
    response = family.put(api, second["id"], {"slug": "shirts"}, status=400)
    assert error(response)[1] == family.edit_failed[0]


# --- read


def test_get_one(api: TestApp, customer_api: TestApp, term_family: Family) -> None:
    family = term_family
    extra = {"description": "d"} if "description" in family.fields else {}
    family.create(api, name="A", **extra)
    assert api.get(family.item(1)).json == {family.envelope: family.record(1, "A", "a", **extra)}
    response = api.get(family.item(1) + "?fields=id,name")
    assert response.json == {family.envelope: {"id": 1, "name": "A"}}
    assert error(customer_api.get(family.item(1), status=401)) == (401, *family.read_denied)


def test_list(api: TestApp, term_family: Family) -> None:
    family = term_family
    for name in ("b", "C", "a", "d"):
        family.create(api, name=name)
    response = api.get(family.url + "?page=2&filter[limit]=1")  # lists are never paged
    listed = response.json[family.plural]
    assert [row["name"] for row in listed] == ["a", "b", "C", "d"]
    assert listed[0] == family.record(3, "a", "a")
    check_unpaginated(response, 4)
    assert family.listed(api, "?fields=id,slug")[0] == {"id": 3, "slug": "a"}
    assert family.listed(api, "?fields=name") == [{"name": n} for n in ("a", "b", "C", "d")]


def test_count_of_published_products(api: TestApp, engine: sa.Engine, term_family: Family) -> None:
    family = term_family
    red = family.create(api, name="Red")
    family.create(api, name="Blue")
    for status in ("publish", "draft", "pending", "private", "trash", "publish"):
        family.attach(engine, red["id"], status)
    with statements(api, family.count_word) as seen:
        listed = family.listed(api)
    assert listed == [family.record(2, "Blue", "blue"), family.record(1, "Red", "red", count=2)]
    assert len(seen) == 1  # one statement for the whole list, counts included
    assert family.get(api, red["id"])["count"] == 2


def test_a_term_of_another_family_is_not_found(api: TestApp, term_family: Family) -> None:
    family = term_family
    other_family(family).create(api, name="C")
    code = family.invalid_id[0]
    assert error(api.get(family.item(1), status=404))[1] == code
    assert error(family.put(api, 1, {"name": "X"}, status=404))[1] == code
    assert error(api.delete(family.item(1), status=404))[1] == code


# --- edit


def test_edit(api: TestApp, term_family: Family) -> None:
    family = term_family
    family.create(api, name="Red")
    family.create(api, name="Blue")
    extra = {"description": "d"} if "description" in family.fields else {}
    response = family.put(api, 1, {"name": "Crimson", "unknown": 1, **extra})
    assert response.json == {family.envelope: family.record(1, "Crimson", "red", **extra)}
    body = api.patch_json(family.item(1), {family.envelope: {"slug": "Crimson"}}).json
    assert body == {family.envelope: family.record(1, "Crimson", "crimson", **extra)}
    body = api.post_json(family.item(1), {family.envelope: {"slug": "crimson"}}).json
    assert body[family.envelope]["slug"] == "crimson"  # its own slug is fine
    assert family.put(api, 1, {}).json[family.envelope]["name"] == "Crimson"
    for fields, reason in [
        ({"name": ""}, NAME_REQUIRED),
        ({"name": "blue"}, family.duplicate_name),
        ({"slug": "blue"}, SLUG_IN_USE.format("blue")),
    ]:
        response = family.put(api, 1, fields, status=400)
        assert error(response) == family.edit_refused(reason), fields
    assert family.get(api, 1) == family.record(1, "Crimson", "crimson", **extra)


def test_edit_slug(api: TestApp, term_family: Family) -> None:
    family = term_family
    family.create(api, name="Shirts")
    family.create(api, name="Tops")
    assert family.put(api, 2, {"slug": "My Tops"}).json[family.envelope]["slug"] == "my-tops"
    body = family.put(api, 2, {"name": "Shirts!", "slug": ""}).json
    assert body[family.envelope]["slug"] == "shirts-2"  # regenerated from the name


# --- delete


def test_delete(api: TestApp, engine: sa.Engine, term_family: Family) -> None:
    family = term_family
    family.create(api, name="Red")
    family.create(api, name="Blue")
    family.attach(engine, 1)
    assert api.delete(family.item(1)).json == family.deleted
    assert family.links(engine) == 0
    assert count_rows(engine, products) == 1
    assert [row["name"] for row in family.listed(api)] == ["Blue"]


# --- the families with a parent


def test_generated_slugs_are_unique_across_parents(api: TestApp, tree_family: Family) -> None:
    family = tree_family
    first = family.create(api, name="Shirts")
    men = family.create(api, name="Men")
    women = family.create(api, name="Women")
    second = family.create(api, name="Shirts", parent=men["id"])
    third = family.create(api, name="Shirts", parent=women["id"])
    assert [first["slug"], second["slug"], third["slug"]] == ["shirts", "shirts-2", "shirts-3"]
    long = family.create(api, name="a" * 200)
    under = family.create(api, name="a" * 200 + " ", parent=long["id"])
    assert under["slug"] == "a" * 190 + "-2"


def test_duplicate_name_under_the_same_parent(api: TestApp, tree_family: Family) -> None:
    family = tree_family
    parent = family.create(api, name="Men")
    family.create(api, name="Shirts", parent=parent["id"])
    response = family.post(api, {"name": "shirts", "parent": parent["id"]}, status=400)
    assert error(response) == (400, family.cannot_create, family.duplicate_name)
    family.create(api, name="Shirts")  # another parent: fine


def test_create_with_an_invalid_parent(api: TestApp, tree_family: Family) -> None:
    family = tree_family
    family.create(api, name="Men")
    for parent in (5, -1, "9"):
        response = family.post(api, {"name": "A", "parent": parent}, status=400)
        assert error(response) == (400, *family.invalid_parent), parent
    other = TAGS.create(api, name="T")  # a term of another family
    response = family.post(api, {"name": "A", "parent": other["id"]}, status=400)
    assert error(response)[1] == family.invalid_parent[0]
    response = family.post(api, {"name": "", "parent": 7}, status=400)  # before the name
    assert error(response)[1] == family.invalid_parent[0]


def test_edit_parent(api: TestApp, tree_family: Family) -> None:
    family = tree_family
    family.create(api, name="Shirts")
    family.create(api, name="Men")
    family.create(api, name="Tops")
    family.create(api, name="Child", parent=3)
    for parent in (3, 4):  # itself; its own child: a loop
        response = family.put(api, 3, {"parent": parent}, status=400)
        assert error(response) == (400, *family.edit_failed)
    assert family.get(api, 3) == family.record(3, "Tops", "tops")
    body = family.put(api, 3, {"parent": 2, "name": "Lite"}).json
    assert body == {family.envelope: family.record(3, "Lite", "tops", parent=2)}


def test_edit_moving_under_a_parent_with_a_same_named_child(
    api: TestApp, tree_family: Family
) -> None:
    family = tree_family
    family.create(api, name="Men")
    family.create(api, name="Shirts", parent=1)
    family.create(api, name="Shirts")
    response = family.put(api, 3, {"parent": 1}, status=400)
    assert error(response) == (400, *family.edit_failed)
    body = family.put(api, 2, {"parent": 0, "name": "Tees"}).json
    assert body[family.envelope]["parent"] == 0


def test_delete_moves_the_children_up(api: TestApp, tree_family: Family) -> None:
    family = tree_family
    family.create(api, name="Clothing")
    family.create(api, name="Men", parent=1)
    family.create(api, name="Shirts", parent=2)
    family.create(api, name="Trousers", parent=2)
    api.delete(family.item(2))
    listed = [(row["name"], row["parent"]) for row in family.listed(api)]
    assert listed == [("Clothing", 0), ("Shirts", 1), ("Trousers", 1)]
    api.delete(family.item(1))
    listed = [(row["name"], row["parent"]) for row in family.listed(api)]
    assert listed == [("Shirts", 0), ("Trousers", 0)]


def test_delete_refused_when_a_child_would_meet_a_sibling_of_its_name(
    api: TestApp, tree_family: Family
) -> None:
    """Children move up to the deleted term's parent, where sibling names are unique: a child
    named like a term already there makes the delete fail (401 ``…cannot_delete…``, the
    spec's "delete failed"), with nothing changed — not a 500 from the unique index."""
    family = tree_family
    family.create(api, name="Men")
    family.create(api, name="Shirts", parent=1)
    family.create(api, name="shirts")
    before = family.listed(api)
    response = api.delete(family.item(1), status=401)
    assert error(response)[:2] == (401, f"shop_api_cannot_delete_{family.envelope}")
    assert family.listed(api) == before
    api.delete(family.item(3))
    api.delete(family.item(1))
    assert [(row["name"], row["parent"]) for row in family.listed(api)] == [("Shirts", 0)]
