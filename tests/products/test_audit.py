"""Catalogue audit against the spec, decisions.md and the reference: each test pins one
discrepancy that was found and fixed."""

from __future__ import annotations

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.products import URL, listed


def counted(api: TestApp, query: str) -> int:
    return int(api.get(f"{URL}/count?{query}").json["count"])


def test_slug_filters_are_sanitised_like_slugs(api: TestApp, engine: sa.Engine) -> None:
    """``type``, ``filter[category]``, ``filter[tag]``, ``filter[shipping_class]`` and
    ``filter[pa_<attribute>]`` compare slugs, and the value is sanitised as a slug first (as
    WordPress' taxonomy query does). The legacy Python client sends
    ``get("products?filter[category]=shoes")`` as ``filter[category]=shoes?``."""
    factory = CatalogFactory(engine)
    shoes = factory.category("Shoes", "shoes")
    red = factory.tag("Red", "red")
    bulky = factory.shipping_class("Bulky", "bulky")
    color = factory.attribute("Color", "color")
    blue = factory.attribute_term(color, "Blue", "blue")
    shoe = factory.product("Shoe", categories=[shoes], tags=[red], shipping_class_id=bulky)
    tee = factory.product("Tee", attributes=[{"attribute_id": color, "terms": [blue]}])
    group = factory.product("Group", type="grouped")
    assert listed(api, "filter[category]=shoes?") == [shoe]
    assert listed(api, "filter[category]=Shoes") == [shoe]
    assert listed(api, "filter[tag]=red?") == [shoe]
    assert listed(api, "filter[shipping_class]=bulky?") == [shoe]
    assert listed(api, "filter[pa_color]=blue?") == [tee]
    assert listed(api, "type=simple?") == [tee, shoe]
    assert listed(api, "type=grouped,simple?") == [group, tee, shoe]
    assert listed(api, "filter[type]=Grouped") == [group]
    assert counted(api, "type=simple?") == 2
    assert counted(api, "filter[category]=shoes?") == 1
    # nothing left after sanitising: matches nothing
    assert listed(api, "filter[category]=%3F") == []
    assert counted(api, "filter[tag]=%3F") == 0


def test_title_order_ignores_case(api: TestApp, engine: sa.Engine) -> None:
    """``filter[orderby]=title`` sorts case-insensitively (the original's MySQL collation, like
    our term lists), whatever the database's collation; equal titles by id."""
    factory = CatalogFactory(engine)
    banana = factory.product("Banana")
    apple = factory.product("apple")
    cherry = factory.product("Cherry")
    apple_2 = factory.product("Apple")
    assert listed(api, "filter[orderby]=title&filter[order]=ASC") == [
        apple,
        apple_2,
        banana,
        cherry,
    ]
    assert listed(api, "filter[orderby]=title") == [cherry, banana, apple_2, apple]
