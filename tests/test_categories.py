"""Product categories through HTTP: every route, default, rule and error code.

The helpers at the top (errors, products, links, the statement recorder, an image server) serve
the other term-like families' tests too.
"""

from __future__ import annotations

import base64
import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql import terms as terms_sql
from shopsvc.sql.tables import media, product_terms, products, terms
from tests.conftest import ROOT, errors

URL = ROOT + "/products/categories"
KEYS = ["id", "name", "slug", "parent", "description", "display", "image", "count"]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


# --- helpers shared by the term families' tests


def error(response: Any) -> tuple[int, str, str]:
    [item] = errors(response)
    return response.status_int, item["code"], item["message"]


def add_product(engine: sa.Engine, status: str = "publish", **values: Any) -> int:
    """A minimal product row; its id."""
    now = dt.datetime(2024, 1, 1)
    row = {"type": "simple", "status": status, "title": "P", "slug": "p"}
    row |= {"created_at": now, "updated_at": now, **values}
    with engine.begin() as conn:
        return int(
            conn.execute(sa.insert(products).values(**row).returning(products.c.id)).scalar()
        )


def link(engine: sa.Engine, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    with engine.begin() as conn:
        conn.execute(sa.insert(table), rows)


def set_column(engine: sa.Engine, table: sa.Table, row_id: int, **values: Any) -> None:
    with engine.begin() as conn:
        conn.execute(sa.update(table).where(table.c.id == row_id).values(**values))


def count_rows(engine: sa.Engine, query: Any) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(query)).scalar_one())


@contextmanager
def statements(api: Any, word: str) -> Iterator[list[str]]:
    """The SQL statements the app runs inside the block that mention ``word``."""
    engine = api.app.registry.engine
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if word in statement:
            seen.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


def check_unpaginated(response: Any, total: int) -> None:
    assert response.headers["X-Shop-Total"] == str(total)
    assert response.headers["X-Shop-TotalPages"] == ("1" if total else "0")
    assert "Link" not in response.headers


def check_index(api: Any, collection: str, item: str) -> None:
    routes = api.get(ROOT).json["store"]["routes"]
    expected: dict[str, Any] = {"supports": ["HEAD", "GET", "POST"], "accepts_data": True}
    if "<" not in collection:
        expected["meta"] = {"self": "http://localhost" + ROOT + collection}
    assert routes[collection] == expected
    assert routes[item] == {
        "supports": ["HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"],
        "accepts_data": True,
    }


@pytest.fixture
def image_server() -> Iterator[str]:
    """A local HTTP server: ``/image.png`` is a PNG, ``/text.txt`` is not an image."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/image.png":
                body, kind, status = PNG, "image/png", 200
            elif self.path == "/text.txt":
                body, kind, status = b"not an image", "image/png", 200
            else:
                body, kind, status = b"", "text/plain", 404
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# --- category helpers


def create(api: Any, **fields: Any) -> dict[str, Any]:
    return api.post_json(URL, {"product_category": fields}, status=201).json["product_category"]


def category(id: int, name: str, slug: str, **fields: Any) -> dict[str, Any]:
    record = {"id": id, "name": name, "slug": slug, "parent": 0, "description": ""}
    record |= {"display": "default", "image": "", "count": 0}
    return record | fields


def add_media(engine: sa.Engine, file: str = "2024/01/a.png") -> int:
    now = dt.datetime(2024, 1, 1)
    row = {"file": file, "mime_type": "image/png", "created_at": now, "updated_at": now}
    with engine.begin() as conn:
        return int(conn.execute(sa.insert(media).values(**row).returning(media.c.id)).scalar())


def media_url(file: str) -> str:
    return f"http://localhost/media/{file}"


# --- create


def test_create_with_defaults(api: Any) -> None:
    response = api.post_json(URL, {"product_category": {"name": "Clothing"}}, status=201)
    assert response.content_type == "application/json"
    body = response.json["product_category"]
    assert list(body) == KEYS
    assert body == category(1, "Clothing", "clothing")


def test_create_with_every_field(api: Any, engine: sa.Engine) -> None:
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


def test_create_display_default_and_numeric_image_string(api: Any, engine: sa.Engine) -> None:
    image = add_media(engine, "x/y.png")
    body = create(api, name="A", display="default", image=str(image))
    assert (body["display"], body["image"]) == ("default", media_url("x/y.png"))


@pytest.mark.parametrize("image", ["", 0, "0", 99, "99"])
def test_create_without_a_valid_image(api: Any, image: Any) -> None:
    assert create(api, name="A", image=image)["image"] == ""


def test_generated_slugs_are_unique(api: Any) -> None:
    first = create(api, name="Shirts")
    men = create(api, name="Men")
    women = create(api, name="Women")
    second = create(api, name="Shirts", parent=men["id"])
    third = create(api, name="Shirts", parent=women["id"])
    assert [first["slug"], second["slug"], third["slug"]] == ["shirts", "shirts-2", "shirts-3"]


def test_name_without_slug_characters_gets_the_id_as_slug(api: Any) -> None:
    create(api, name="Five", slug="5")
    body = create(api, name="!!!")
    assert (body["id"], body["slug"]) == (2, "2")
    assert create(api, name="???", slug="***")["slug"] == "3"


def test_duplicate_name_under_the_same_parent(api: Any) -> None:
    parent = create(api, name="Men")
    create(api, name="Shirts", parent=parent["id"])
    response = api.post_json(
        URL, {"product_category": {"name": "shirts", "parent": parent["id"]}}, status=400
    )
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_category",
        "A term with the name provided already exists with this parent.",
    )
    create(api, name="Shirts")  # another parent: fine


def test_explicit_slug_in_use(api: Any, engine: sa.Engine) -> None:
    create(api, name="Shirts")
    response = api.post_json(
        URL, {"product_category": {"name": "Tops", "slug": "shirts"}}, status=400
    )
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_category",
        'The slug "shirts" is already in use by another term.',
    )
    # a tag with that slug does not count: slugs are unique per taxonomy
    api.post_json(ROOT + "/products/tags", {"product_tag": {"name": "X", "slug": "tops"}})
    assert create(api, name="Tops", slug="tops")["slug"] == "tops"


@pytest.mark.parametrize("name", [None, "", "   ", "<b></b>"])
def test_name_required(api: Any, name: Any) -> None:
    fields = {} if name is None else {"name": name}
    response = api.post_json(URL, {"product_category": fields}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_category",
        "A name is required for this term.",
    )


@pytest.mark.parametrize("parent", [5, -1, "9"])
def test_create_with_an_unknown_parent(api: Any, parent: Any) -> None:
    create(api, name="Men")
    response = api.post_json(URL, {"product_category": {"name": "A", "parent": parent}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_product_category_parent",
        "Product category parent is invalid",
    )


def test_parent_must_be_a_category(api: Any) -> None:
    tag = api.post_json(ROOT + "/products/tags", {"product_tag": {"name": "T"}}).json
    response = api.post_json(
        URL, {"product_category": {"name": "A", "parent": tag["product_tag"]["id"]}}, status=400
    )
    assert error(response)[1] == "shop_api_invalid_product_category_parent"


def test_parent_is_checked_before_the_name(api: Any) -> None:
    response = api.post_json(URL, {"product_category": {"name": "", "parent": 7}}, status=400)
    assert error(response)[1] == "shop_api_invalid_product_category_parent"


@pytest.mark.parametrize(
    "body",
    [{}, {"other": {}}, {"product_category": None}, None, "", "  "],
)
def test_create_without_envelope(api: Any, customer_api: Any, body: Any) -> None:
    for client in (api, customer_api):
        if isinstance(body, str) or body is None:
            response = client.post(URL, body or "", status=400)
        else:
            response = client.post_json(URL, body, status=400)
        assert error(response) == (
            400,
            "shop_api_missing_product_category_data",
            "No product_category data specified to create product_category",
        )


def test_invalid_json(api: Any) -> None:
    response = api.post(URL, "{", content_type="application/json", status=400)
    assert error(response)[1] == "shop_api_invalid_json"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ["a"]}, "Invalid parameter product_category.name: must be a string."),
        ({"name": "A", "slug": {}}, "Invalid parameter product_category.slug: must be a string."),
        (
            {"name": "A", "parent": "x"},
            "Invalid parameter product_category.parent: must be an integer.",
        ),
        (
            {"name": "A", "parent": 1.5},
            "Invalid parameter product_category.parent: must be an integer.",
        ),
        (
            {"name": "A", "display": True},
            "Invalid parameter product_category.display: must be a string.",
        ),
        (
            {"name": "A", "image": [1]},
            "Invalid parameter product_category.image: must be an attachment id or a URL.",
        ),
        (
            {"name": "A" * 201},
            "Invalid parameter product_category.name: must be at most 200 characters.",
        ),
        (
            {"name": "A", "display": "d" * 21},
            "Invalid parameter product_category.display: must be at most 20 characters.",
        ),
        (
            {"name": "A", "description": "a\x00b"},
            "Invalid parameter product_category.description: must not contain NUL characters.",
        ),
    ],
)
def test_create_with_wrong_types(api: Any, fields: dict[str, Any], message: str) -> None:
    response = api.post_json(URL, {"product_category": fields}, status=400)
    assert error(response) == (400, "shop_api_invalid_param", message)


def test_envelope_not_an_object(api: Any) -> None:
    response = api.post_json(URL, {"product_category": [1]}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter product_category: must be a JSON object.",
    )


def test_nulls_mean_absent(api: Any) -> None:
    body = create(api, name="A", slug=None, description=None, parent=None, image=None)
    assert body == category(1, "A", "a")


def test_long_names_keep_their_slug_within_the_column(api: Any) -> None:
    long = "a" * 200
    first = create(api, name=long)
    second = create(api, name=long + " ", parent=first["id"])
    assert len(first["slug"]) == 190
    assert second["slug"] == "a" * 190 + "-2"


def test_unique_index_catches_a_concurrent_slug(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    create(api, name="Shirts")
    real = terms_sql.slugs_like
    calls: list[str] = []

    def stale_once(*args: Any) -> set[str]:  # the first look misses a concurrent insert
        calls.append(args[2])
        return set() if len(calls) == 1 else real(*args)

    monkeypatch.setattr(terms_sql, "slugs_like", stale_once)
    second = create(api, name="Shirts!")
    assert second["slug"] == "shirts-2"
    assert calls == ["shirts", "shirts"]
    monkeypatch.setattr(terms_sql, "slug_owner", lambda *args: None)
    response = api.post_json(URL, {"product_category": {"name": "T", "slug": "shirts"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_cannot_create_product_category",
        'The slug "shirts" is already in use by another term.',
    )
    response = api.put_json(
        f"{URL}/{second['id']}", {"product_category": {"slug": "shirts"}}, status=400
    )
    assert error(response)[1] == "shop_api_cannot_edit_product_catgory"


# --- images downloaded from a URL


def test_create_with_an_image_url(api: Any, image_server: str) -> None:
    body = create(api, name="A", image=image_server + "/image.png")
    assert body["image"].startswith("http://localhost/media/")
    assert body["image"].endswith(".png")
    served = api.get(body["image"][len("http://localhost") :])
    assert served.body == PNG


@pytest.mark.parametrize("path", ["/text.txt", "/missing.png"])
def test_create_with_a_bad_image_url(
    api: Any, engine: sa.Engine, image_server: str, path: str
) -> None:
    response = api.post_json(
        URL, {"product_category": {"name": "A", "image": image_server + path}}, status=400
    )
    status, code, message = error(response)
    assert (status, code) == (400, "shop_api_product_category_image_upload_error")
    assert message.startswith(f"Error getting remote image {image_server}{path}: ")
    assert count_rows(engine, terms) == 0
    assert count_rows(engine, media) == 0


def test_edit_with_an_image_url(api: Any, image_server: str) -> None:
    create(api, name="A")
    body = api.put_json(f"{URL}/1", {"product_category": {"image": image_server + "/image.png"}})
    assert body.json["product_category"]["image"].startswith("http://localhost/media/")


# --- read


def test_get_one(api: Any, customer_api: Any) -> None:
    create(api, name="A", description="d")
    assert api.get(f"{URL}/1").json == {"product_category": category(1, "A", "a", description="d")}
    assert api.get(f"{URL}/1?fields=id,name").json == {"product_category": {"id": 1, "name": "A"}}
    response = customer_api.get(f"{URL}/1", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_read_product_categories",
        "You do not have permission to read product categories",
    )


def test_get_id_zero_comes_before_the_capability(api: Any, customer_api: Any) -> None:
    for client in (api, customer_api):
        response = client.get(f"{URL}/0", status=400)
        assert error(response) == (
            400,
            "shop_api_invalid_product_category_id",
            "Invalid product category ID",
        )


def test_get_unknown(api: Any, customer_api: Any) -> None:
    response = api.get(f"{URL}/7", status=404)
    assert error(response) == (
        404,
        "shop_api_invalid_product_category_id",
        "A product category with the provided ID could not be found",
    )
    assert api.get(f"{URL}/99999999999", status=404)
    assert error(customer_api.get(f"{URL}/7", status=401))[0] == 401


def test_non_numeric_id_is_no_route(api: Any) -> None:
    assert error(api.get(f"{URL}/abc", status=404))[1] == "shop_api_no_route"


def test_tag_is_not_a_category(api: Any) -> None:
    api.post_json(ROOT + "/products/tags", {"product_tag": {"name": "T"}})
    assert error(api.get(f"{URL}/1", status=404))[1] == "shop_api_invalid_product_category_id"


def test_list(api: Any, engine: sa.Engine, customer_api: Any) -> None:
    response = api.get(URL)
    assert response.json == {"product_categories": []}
    check_unpaginated(response, 0)
    for name in ("b", "C", "a", "d"):
        create(api, name=name)
    set_column(engine, terms, 4, menu_order=-1)  # "d" first, then by name
    response = api.get(URL + "?page=2&filter[limit]=1")
    assert [row["name"] for row in response.json["product_categories"]] == ["d", "a", "b", "C"]
    assert response.json["product_categories"][1] == category(3, "a", "a")
    check_unpaginated(response, 4)
    response = api.get(URL + "?fields=id,slug")
    assert response.json["product_categories"][0] == {"id": 4, "slug": "d"}
    head = api.head(URL)
    assert head.body == b""
    assert head.headers["X-Shop-Total"] == "4"
    response = customer_api.get(URL, status=401)
    assert error(response)[1] == "shop_api_user_cannot_read_product_categories"


def test_count_of_published_products(api: Any, engine: sa.Engine) -> None:
    shirts = create(api, name="Shirts")
    create(api, name="Empty")
    published = [add_product(engine), add_product(engine)]
    draft = add_product(engine, "draft")
    trashed = add_product(engine, "trash")
    rows = [{"product_id": p, "term_id": shirts["id"]} for p in [*published, draft, trashed]]
    link(engine, product_terms, rows)
    with statements(api, "product_terms") as seen:
        listed = api.get(URL).json["product_categories"]
    assert [(row["name"], row["count"]) for row in listed] == [("Empty", 0), ("Shirts", 2)]
    assert len(seen) == 1  # one statement for the whole list, counts included
    assert api.get(f"{URL}/{shirts['id']}").json["product_category"]["count"] == 2


# --- edit


def test_edit(api: Any, engine: sa.Engine) -> None:
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


def test_edit_slug(api: Any) -> None:
    create(api, name="Shirts")
    create(api, name="Tops")
    body = api.put_json(f"{URL}/2", {"product_category": {"slug": "My Tops"}}).json
    assert body["product_category"]["slug"] == "my-tops"
    body = api.put_json(f"{URL}/2", {"product_category": {"slug": "my-tops"}}).json
    assert body["product_category"]["slug"] == "my-tops"  # its own slug is fine
    body = api.put_json(f"{URL}/2", {"product_category": {"name": "Shirts!", "slug": ""}}).json
    assert body["product_category"]["slug"] == "shirts-2"  # regenerated from the name


@pytest.mark.parametrize("image", ["", 0, "0", 12345])
def test_edit_removes_an_invalid_image(api: Any, engine: sa.Engine, image: Any) -> None:
    create(api, name="A", image=add_media(engine))
    body = api.put_json(f"{URL}/1", {"product_category": {"image": image}}).json
    assert body["product_category"]["image"] == ""


def test_edit_keeps_the_image_when_absent(api: Any, engine: sa.Engine) -> None:
    create(api, name="A", image=add_media(engine))
    body = api.put_json(f"{URL}/1", {"product_category": {"name": "B", "image": None}}).json
    assert body["product_category"]["image"] == media_url("2024/01/a.png")


EDIT_FAILED = (400, "shop_api_cannot_edit_product_catgory", "Could not edit the category")


@pytest.mark.parametrize(
    "fields",
    [
        {"name": ""},
        {"name": "shirts"},  # a sibling's name
        {"slug": "shirts"},  # another category's slug
        {"parent": 3},  # itself
        {"parent": 4},  # its own child: a loop
    ],
)
def test_edit_failures(api: Any, engine: sa.Engine, fields: dict[str, Any]) -> None:
    create(api, name="Shirts")
    create(api, name="Men")
    create(api, name="Tops")
    create(api, name="Child", parent=3)
    response = api.put_json(f"{URL}/3", {"product_category": fields}, status=400)
    assert error(response) == EDIT_FAILED
    assert api.get(f"{URL}/3").json["product_category"] == category(3, "Tops", "tops")


@pytest.mark.parametrize("parent", [99, "99", 2])
def test_edit_with_an_unknown_parent(api: Any, parent: Any) -> None:
    """The spec's "``parent`` must be an existing category" covers edit too: a parent that is
    no category (none at all, or a tag) is ``shop_api_invalid_product_category_parent``, as on
    create; a loop stays ``…cannot_edit_product_catgory``."""
    create(api, name="Tops")
    api.post_json(ROOT + "/products/tags", {"product_tag": {"name": "Red"}})
    response = api.put_json(f"{URL}/1", {"product_category": {"parent": parent}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_product_category_parent",
        "Product category parent is invalid",
    )
    assert api.get(f"{URL}/1").json["product_category"] == category(1, "Tops", "tops")


def test_edit_moving_under_a_parent_with_a_same_named_child(api: Any) -> None:
    create(api, name="Men")
    create(api, name="Shirts", parent=1)
    create(api, name="Shirts")
    response = api.put_json(f"{URL}/3", {"product_category": {"parent": 1}}, status=400)
    assert error(response) == EDIT_FAILED
    body = api.put_json(f"{URL}/2", {"product_category": {"parent": 0, "name": "Tees"}}).json
    assert body["product_category"]["parent"] == 0


def test_sibling_names_are_unique_in_the_database(api: Any, engine: sa.Engine) -> None:
    create(api, name="Shirts")
    values = {"taxonomy": "product_cat", "name": "SHIRTS", "slug": "other"}
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
        conn.execute(sa.insert(terms).values(**values))


def test_edit_checks_in_order(api: Any, customer_api: Any) -> None:
    create(api, name="A")
    missing = (
        400,
        "shop_api_missing_product_category",
        "No product_category data specified to edit product_category",
    )
    assert error(customer_api.put_json(f"{URL}/1", {}, status=400)) == missing
    assert error(api.put(f"{URL}/1", "", status=400)) == missing
    response = customer_api.put_json(f"{URL}/0", {"product_category": {}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_edit_product_category",
        "You do not have permission to edit product categories",
    )
    response = api.put_json(f"{URL}/0", {"product_category": {"name": []}}, status=400)
    assert error(response)[1:] == (
        "shop_api_invalid_product_category_id",
        "Invalid product category ID",
    )
    response = api.put_json(f"{URL}/9", {"product_category": {"name": []}}, status=404)
    assert error(response)[1] == "shop_api_invalid_product_category_id"
    response = api.put_json(f"{URL}/1", {"product_category": {"name": []}}, status=400)
    assert error(response)[1] == "shop_api_invalid_param"


def test_create_capability(customer_api: Any) -> None:
    response = customer_api.post_json(URL, {"product_category": {"name": []}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_create_product_category",
        "You do not have permission to create product categories",
    )


# --- delete


def test_delete(api: Any, engine: sa.Engine) -> None:
    create(api, name="Clothing")
    create(api, name="Men", parent=1)
    create(api, name="Shirts", parent=2)
    create(api, name="Trousers", parent=2)
    product = add_product(engine)
    link(engine, product_terms, [{"product_id": product, "term_id": 2}])
    response = api.delete(f"{URL}/2")
    assert response.json == {"message": "Deleted product_category"}
    listed = api.get(URL).json["product_categories"]
    assert [(row["name"], row["parent"]) for row in listed] == [
        ("Clothing", 0),
        ("Shirts", 1),
        ("Trousers", 1),
    ]
    assert count_rows(engine, product_terms) == 0
    assert count_rows(engine, products) == 1
    api.delete(f"{URL}/1")
    listed = api.get(URL).json["product_categories"]
    assert [(row["name"], row["parent"]) for row in listed] == [("Shirts", 0), ("Trousers", 0)]


def test_delete_errors(api: Any, customer_api: Any) -> None:
    create(api, name="A")
    response = customer_api.delete(f"{URL}/1", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_delete_product_category",
        "You do not have permission to delete product category",
    )
    response = api.delete(f"{URL}/5", status=404)
    assert error(response) == (
        404,
        "shop_api_invalid_product_category_id",
        "A product category with the provided ID could not be found",
    )
    assert error(api.delete(f"{URL}/0", status=400))[1] == "shop_api_invalid_product_category_id"
    api.delete(f"{URL}/1")
    assert error(api.delete(f"{URL}/1", status=404))[0] == 404


# --- the index


def test_index_lists_the_routes(api: Any) -> None:
    check_index(api, "/products/categories", "/products/categories/<id>")
