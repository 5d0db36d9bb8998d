"""Issue 25: a product write is planned, checked, then written once — statements on the engine
the app uses, transaction control included, on both databases. A variable product created with
its variations, images, categories, tags and attributes in at most 15; a write that fails a
check writes nothing (not even before the failing check)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from tests.helpers.products import (
    URL,
    seed_attribute,
    seed_attribute_term,
    seed_media,
    seed_term,
)
from tests.helpers.sql import statements

#: Issue 25's bound for the variable product below (every statement the request runs).
VARIABLE_CREATE = 15
WRITES = ("INSERT", "UPDATE", "DELETE")


def _body(seeded: dict[str, list[int]], n: int) -> dict[str, Any]:
    """A variable product with 2 variations, 3 images (existing media), 2 categories, 2 tags
    and 2 attributes (a global one with its terms, a custom one)."""
    return {
        "title": f"Tee {n}",
        "type": "variable",
        "sku": f"TEE-{n}",
        "images": [{"id": m, "position": p} for p, m in enumerate(seeded["media"])],
        "categories": seeded["categories"],
        "tags": seeded["tags"],
        "attributes": [
            {"name": "Color", "slug": "pa_color", "options": ["Red", "Blue"], "variation": True},
            {"name": "Size", "options": ["S", "M"], "variation": True},
        ],
        "variations": [
            {
                "sku": f"TEE-{n}-{color}",
                "regular_price": "12.00",
                "managing_stock": True,
                "stock_quantity": 3,
                "attributes": [
                    {"name": "Color", "slug": "pa_color", "option": color},
                    {"name": "Size", "option": size},
                ],
            }
            for color, size in (("Red", "S"), ("Blue", "M"))
        ],
    }


def _table(statement: str) -> str:
    words = statement.split()
    return words[1] if words[0] == "UPDATE" else words[2]  # INSERT INTO t, DELETE FROM t


def _seed(engine: sa.Engine) -> dict[str, list[int]]:
    color = seed_attribute(engine, "Color", "color")
    seed_attribute_term(engine, color, "Red", "red")
    seed_attribute_term(engine, color, "Blue", "blue")
    return {
        "media": [seed_media(engine, f"2024/01/{n}.png") for n in range(3)],
        "categories": [seed_term(engine, "product_cat", f"Cat {n}") for n in range(2)],
        "tags": [seed_term(engine, "product_tag", f"Tag {n}") for n in range(2)],
    }


def test_a_variable_create_runs_at_most_15_statements(api: TestApp, engine: sa.Engine) -> None:
    seeded = _seed(engine)
    api.post_json(URL, {"product": _body(seeded, 0)}, status=201)  # warm: authentication wrote
    with statements(api) as seen:
        record = api.post_json(URL, {"product": _body(seeded, 1)}, status=201).json["product"]
    assert len(record["variations"]) == 2
    assert [v["name"] for v in record["attributes"]] == ["Color", "Size"]
    assert [i["position"] for i in record["images"]] == [0, 1, 2]
    assert len(seen) <= VARIABLE_CREATE, "\n".join(seen)
    # each table written once; on PostgreSQL the new parent is inserted before its variations,
    # which name its id (SQLite's writer knows the next ids: one statement)
    written = [_table(s) for s in seen if s.startswith(WRITES)]
    once = written.count("products") - (api.app.registry.engine.dialect.name == "postgresql")
    assert once == 1 and len(set(written)) == len(written) - written.count("products") + 1, written


def test_a_failing_write_writes_nothing(api: TestApp, engine: sa.Engine) -> None:
    seeded = _seed(engine)
    parent = api.post_json(URL, {"product": _body(seeded, 0)}, status=201).json["product"]
    bad = _body(seeded, 1)
    bad["variations"][1]["tax_class"] = "no-such-class"  # the last check of the request
    with statements(api) as seen:
        response = api.post_json(URL, {"product": bad}, status=400)
    assert response.json["errors"][0]["code"] == "shop_api_invalid_param"
    assert [s for s in seen if s.startswith(WRITES)] == []
    # an edit too: a new title, then an unknown category
    with statements(api) as seen:
        api.put_json(
            f"{URL}/{parent['id']}",
            {"product": {"title": "Renamed", "categories": [999999]}},
            status=400,
        )
    assert [s for s in seen if s.startswith(WRITES)] == []
