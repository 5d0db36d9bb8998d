"""``/products/bulk`` planned as one batch (``shopsvc.writers.product_batch``) against each
element planned as its own batch of one (what single writes do): the one planner, with and
without the elements seeing each other — the rules a bulk keeps across its elements.

Each case runs the same bulk twice on the same freshly reset and seeded database (ids restart):
once as the service runs it, once with the bulk's batch switched off (the view's ``_batch``
replaced, a test-only switch: each element then runs alone), and compares the response JSON
(ids included), every catalogue table and the webhook outbox (a webhook subscribed to every
product topic). The clock the
writes stamp is frozen for both runs. Explicit cases cover each rule the planner reproduces
(SKU uniqueness against the database and earlier elements, slug suffixes, lookups by SKU, the
capability per element, the error items' ``id`` and ``sku``, ids burnt by failed creates on
PostgreSQL, ``related_ids``); a bounded Hypothesis strategy mixes valid creates, edits by id
and by SKU, invalid elements, duplicates, non-objects, wrong types and huge numbers. Statement
counts show that the set-based path ran: a bulk of 100 valid creates (or edits) runs as many
statements as a bulk of 5.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webtest import TestApp

from shopsvc.sql.tables import (
    downloads,
    media,
    product_attribute_terms,
    product_attributes,
    product_gallery,
    product_terms,
    products,
    tax_classes,
    terms,
    variation_attributes,
    webhook_deliveries,
)
from shopsvc.testing.catalog import CatalogFactory
from shopsvc.testing.databases import user_with_key
from shopsvc.views import product_writes
from shopsvc.writers import product_batch
from tests.helpers.api import Credentials, authorised
from tests.helpers.databases import reset
from tests.helpers.products import URL
from tests.helpers.sql import insert, queries, statements
from tests.helpers.webhooks import subscribe_everywhere

BULK = URL + "/bulk"
FROZEN = dt.datetime(2025, 3, 4, 5, 6, 7)
#: Every topic a product write fires.
TOPICS = (
    "product.created",
    "product.updated",
    "product.deleted",
    "product.restored",
    "action.shop_new_product",
    "action.shop_update_product",
    "action.shop_product_set_stock",
    "action.shop_variation_set_stock",
    "action.shop_new_product_variation",
    "action.shop_update_product_variation",
)
#: The tables a product bulk may write, and the outbox's columns that do not depend on time.
TABLES = (
    products,
    product_terms,
    product_gallery,
    media,
    terms,
    downloads,
    product_attributes,
    product_attribute_terms,
    variation_attributes,
)
OUTBOX = ("id", "webhook_id", "topic", "resource", "resource_id", "state", "attempts")


@dataclass(frozen=True)
class World:
    """The seeded catalogue the bulks refer to."""

    shoes: int
    hats: int
    sale: int
    media: tuple[int, int]
    alpha: int  # SKU ALPHA, managed stock, in Shoes
    beta: int  # SKU BETA, in Shoes and Sale, a gallery
    gamma: int  # no SKU
    delta: int  # no SKU
    trashed: int  # SKU OLD, in the trash
    variable: int  # SKU VAR, variation VAR-1
    variation: int
    grouped: int  # child CHILD
    child: int
    last: int  # the largest id: the bulk's first new product gets the next one


def seed(engine: sa.Engine) -> World:
    factory = CatalogFactory(engine)
    shoes, hats = factory.category("Shoes"), factory.category("Hats")
    sale = factory.tag("Sale")
    factory.shipping_class("Bulky")
    insert(engine, tax_classes, slug="reduced-rate", name="Reduced rate")
    pictures = (factory.media(title="one"), factory.media(title="two"))
    alpha = factory.product(
        "Alpha",
        sku="ALPHA",
        regular_price="10",
        categories=[shoes],
        manage_stock=True,
        stock_quantity=5,
    )
    beta = factory.product(
        "Beta",
        sku="BETA",
        regular_price="20",
        sale_price="15",
        categories=[shoes],
        tags=[sale],
        gallery=[pictures[0]],
    )
    gamma = factory.product("Gamma")
    delta = factory.product("Delta")
    trashed = factory.product("Old", status="trash", sku="OLD")
    variable = factory.product("Var", type="variable", sku="VAR")
    variation = factory.variation(variable, sku="VAR-1", regular_price="3")
    grouped = factory.product("Group", type="grouped")
    child = factory.product("Child", parent_id=grouped, sku="CHILD", regular_price="4")
    factory.product("Widget", slug="widget")
    factory.product("Widget 2", slug="widget-2")
    factory.product("Widget 4", slug="widget-4")
    for odd in ("Widget-3", "widget-3x", "widget_3", "widget.3", "gamma-%", "gamma_2"):
        last = factory.product("Odd slug", slug=odd)
    subscribe_everywhere(engine, TOPICS, FROZEN)
    return World(
        shoes,
        hats,
        sale,
        pictures,
        alpha,
        beta,
        gamma,
        delta,
        trashed,
        variable,
        variation,
        grouped,
        child,
        last,
    )


def snapshot(engine: sa.Engine) -> dict[str, list[dict[str, Any]]]:
    """Every row of the catalogue tables (sorted: link tables have no id) and of the outbox."""
    found: dict[str, list[dict[str, Any]]] = {}
    with engine.connect() as conn:
        for table in TABLES:
            rows = [dict(r) for r in conn.execute(sa.select(table)).mappings()]
            found[table.name] = sorted(
                rows, key=lambda r: sorted((k, repr(v)) for k, v in r.items())
            )
        outbox = sa.select(*(webhook_deliveries.c[name] for name in OUTBOX)).order_by(
            webhook_deliveries.c.id
        )
        found["webhook_deliveries"] = [dict(r) for r in conn.execute(outbox).mappings()]
    return found


@dataclass
class Outcome:
    status: int
    body: Any
    tables: dict[str, list[dict[str, Any]]]
    set_based: bool  # the set-based write ran and was kept
    next_id: int  # the id of a product created after the bulk


Items = Callable[[World], Any]


@pytest.fixture
def run(
    app: TestApp,
    build_app: Callable[..., TestApp],
    engine: sa.Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., Outcome]:
    """``run(items, set_based, role, shop)``: reset and seed the database,
    send ``{"products": items(world)}`` to the bulk route (with or without the set-based writer;
    through an app with the ``shop`` settings when given)
    and return what came of it."""
    monkeypatch.setattr("shopsvc.web.contexts.utc_now", lambda: FROZEN)
    monkeypatch.setattr("shopsvc.sql.media_writes.utc_now", lambda: FROZEN)
    real_batch = product_writes._batch
    written: list[int] = []
    real_write = product_batch.ProductBatch.write

    def write(self: product_batch.ProductBatch, plans: Any) -> list[int]:
        ids = real_write(self, plans)
        if not self.single:  # a single write (the one-by-one run's elements) plans too
            written.append(len(ids))
        return ids

    monkeypatch.setattr(product_batch.ProductBatch, "write", write)

    apps: dict[str, TestApp] = {}

    def go(
        items: Items,
        set_based: bool,
        role: str = "administrator",
        shop: dict[str, str] | None = None,
    ) -> Outcome:
        target = app
        if shop:
            key = repr(sorted(shop.items()))
            target = apps[key] if key in apps else apps.setdefault(key, build_app(**shop))
        reset(engine)
        credentials = Credentials(*user_with_key(engine, "bulk", role, "read_write"))
        world = seed(engine)
        monkeypatch.setattr(
            product_writes,
            "_batch",
            real_batch if set_based else lambda request, targets: None,
        )
        written.clear()
        api = authorised(target, credentials)
        response = api.post_json(BULK, {"products": items(world)}, expect_errors=True)
        kept = bool(written) and response.status_int == 200
        tables = snapshot(engine)
        # the id the next product gets: the ids the bulk took or left, on PostgreSQL too
        admin = Credentials(*user_with_key(engine, "next", "administrator", "read_write"))
        probe = authorised(target, admin).post_json(URL, {"product": {"title": "next"}})
        return Outcome(
            response.status_int, response.json, tables, kept, probe.json["product"]["id"]
        )

    return go


def same(
    run: Callable[..., Outcome],
    items: Items,
    role: str = "administrator",
    shop: dict[str, str] | None = None,
) -> Outcome:
    """Run ``items`` both ways; assert the same response, tables, outbox and next id; the
    set-based outcome."""
    fast = run(items, True, role, shop)
    slow = run(items, False, role, shop)
    assert fast.status == slow.status
    assert fast.body == slow.body
    assert fast.next_id == slow.next_id
    for name in slow.tables:
        assert fast.tables[name] == slow.tables[name], name
    return fast


# --- explicit cases: each rule of the planner


def test_creates_of_simple_products(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[dict[str, Any]]:
        return [
            {
                "title": f"New {n}",
                "sku": f"NEW-{n}",
                "regular_price": "9.99",
                "sale_price": "5",
                "sale_price_dates_to": "2099-01-01",
                "description": "<b>Nice</b>",
                "short_description": "short",
                "enable_html_description": True,
                "managing_stock": True,
                "stock_quantity": n,
                "backorders": "notify",
                "categories": [w.shoes, w.hats],
                "tags": [w.sale],
                "tax_status": "shipping",
                "tax_class": "Reduced rate",
                "shipping_class": "BULKY",
                "weight": "1.5",
                "dimensions": {"length": "1", "width": "2", "height": ""},
                "featured": n % 2 == 0,
                "catalog_visibility": "search" if n == 1 else "visible",
                "menu_order": n,
                "upsell_ids": [w.alpha, 0],
                "images": [
                    {"id": w.media[0], "position": 0},
                    {"id": w.media[1], "position": 1},
                    {"id": w.media[1]},
                ],
                "meta_data": [{"key": "ignored", "value": n}],
            }
            for n in range(4)
        ] + [
            {"title": "External", "type": "external", "product_url": "http://x", "in_stock": False},
            {"title": "Grouped", "type": "grouped", "regular_price": "3"},
            {"title": "Virtual", "virtual": True, "weight": "3", "downloadable": True},
            {"title": "Draft", "status": "draft", "images": "none"},
        ]

    outcome = same(run, items)
    assert outcome.set_based
    assert all("error" not in record for record in outcome.body["products"])


def test_edits_by_id_and_by_sku(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [
            {"id": w.alpha, "regular_price": "11", "stock_quantity": 0},
            {"sku": "beta", "regular_price": "", "managing_stock": True, "images": False},
            {"id": w.delta, "images": [{"id": w.media[1], "position": 0}, {"id": w.media[0]}]},
            {"id": str(w.gamma), "title": "Gamma 2", "name": "", "categories": [w.hats]},
            {"sku": "ALPHA-NOT", "title": "Created, the SKU is nobody's"},
            {"id": float(w.beta) + 0.5, "title": "not an integer id"},
        ]

    outcome = same(run, items)
    assert outcome.set_based


def test_sku_uniqueness_against_the_database_and_earlier_elements(
    run: Callable[..., Outcome],
) -> None:
    def items(w: World) -> list[Any]:
        return [
            {"id": w.gamma, "sku": "Beta"},  # a live product's
            {"id": w.gamma, "sku": "VAR-1"},  # a variation's
            {"id": w.gamma, "sku": "old"},  # a trashed product's: free
            {"title": "First", "sku": "FRESH"},
            {"id": w.beta, "sku": "fresh"},  # taken by an earlier element
            {"id": w.alpha, "sku": "NEW-ALPHA"},  # frees ALPHA…
            {"id": w.delta, "sku": "alpha"},  # …for delta
            {"id": w.beta, "sku": "new-alpha"},  # taken by an earlier element
            {"title": "after", "sku": "LAST"},
        ]

    outcome = same(run, items)
    assert outcome.set_based
    codes = [r.get("error", {}).get("code") for r in outcome.body["products"]]
    assert codes == [
        "shop_api_product_sku_already_exists",
        "shop_api_product_sku_already_exists",
        None,
        None,
        "shop_api_product_sku_already_exists",
        None,
        None,
        "shop_api_product_sku_already_exists",
        None,
    ]


def test_a_trashed_product_takes_any_sku(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [{"id": w.trashed, "sku": "alpha", "title": "Still in the trash"}]

    outcome = same(run, items)
    assert outcome.set_based and outcome.body["products"][0]["sku"] == "alpha"


def test_slugs_count_the_earlier_elements(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [
            {"title": "Widget"},
            {"title": "Widget"},
            {"title": "x", "name": "Widget"},
            {"id": w.gamma, "name": "widget"},
            {"title": "Widget", "shipping_class": "nope"},  # fails: its slug is not taken
            {"title": "Widget"},
            {"title": ""},
            {"title": "", "name": ""},
            {"title": "Product"},
            {"id": w.alpha, "name": "gamma"},
            {"title": "Gamma"},
        ]

    outcome = same(run, items)
    assert outcome.set_based


def test_error_items_name_id_and_sku(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [
            "not an object",
            {"id": "x"},
            {"id": -3, "title": "x"},
            {"id": 999999, "title": "missing"},  # (after a create: it could be the new one)
            {"id": 0, "title": ""},
            {"id": 2**40},
            {"sku": "NOBODY", "type": "bogus"},
            {"sku": 12, "title": "numeric SKU"},
            {"sku": "beta", "status": "bogus"},
            {"sku": "beta", "type": "bogus"},
            {"title": "bad tax class", "tax_class": "nope"},
            {"title": "bad shipping class", "shipping_class": "nope"},
            {"title": "bad category", "categories": [w.sale]},
            {"title": "bad tag", "tags": [w.shoes]},
            {"title": "bad image", "images": [{"id": 12345}]},
            {"id": w.alpha, "inventory_delta": 2**31 - 1, "managing_stock": True},
            {"title": "bad price", "regular_price": "abc"},
            {"title": None},
            {"title": "t", "type": "variation"},
            None,
            [],
        ]

    outcome = same(run, items)
    assert outcome.set_based


def test_capability_per_element(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [{"title": "new"}, {"id": w.alpha, "title": "edit"}, {"sku": "BETA"}]

    same(run, items, role="customer")


def test_related_ids_as_each_element_saw_them(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [
            {"id": w.alpha, "regular_price": "1"},
            {"title": "In Shoes", "categories": [w.shoes]},
            {"title": "In Shoes and Sale", "categories": [w.shoes], "tags": [w.sale]},
            {"id": w.gamma, "regular_price": "2"},
            {"title": "Hidden", "categories": [w.shoes], "catalog_visibility": "hidden"},
        ]

    outcome = same(run, items)
    assert outcome.set_based


@pytest.mark.parametrize(
    "shop",
    [
        {"shopsvc.manage_stock": "false"},
        {"shopsvc.hide_out_of_stock": "true", "shopsvc.out_of_stock_threshold": "2"},
    ],
)
def test_store_stock_settings(run: Callable[..., Outcome], shop: dict[str, str]) -> None:
    def items(w: World) -> list[Any]:
        return [
            {
                "title": "In Hats",
                "categories": [w.hats],
                "managing_stock": True,
                "stock_quantity": 9,
            },
            {"id": w.alpha, "stock_quantity": 1, "in_stock": True},
            {"sku": "beta", "managing_stock": True, "stock_quantity": 3, "backorders": True},
            {"title": "Out", "type": "external", "in_stock": False, "categories": [w.shoes]},
        ]

    same(run, items, shop=shop)

    def moving(w: World) -> list[Any]:
        # the stock moves alpha out of Shoes' related products, which the first record lists
        return [
            {"title": "In Shoes", "categories": [w.shoes]},
            {"id": w.alpha, "stock_quantity": 0},
        ]

    outcome = same(run, moving, shop=shop)
    assert outcome.set_based == ("shopsvc.hide_out_of_stock" not in shop)


@pytest.mark.parametrize(
    "element",
    [
        {"title": "V", "type": "variable", "variations": [{"sku": "V-1"}]},
        {"title": "P", "parent_id": "{grouped}"},
        {"id": "{variation}", "regular_price": "5"},
        {"id": "{variable}", "title": "Var 2"},
        {"id": "{grouped}", "title": "Group 2"},
        {"id": "{child}", "regular_price": "5"},
        {"id": "{trashed}", "status": "publish"},
        {"title": "I", "images": [{"id": "{media}", "alt": "alt text"}]},
        {"title": "Ü", "sku": "ÜBER"},
    ],
)
def test_shapes_left_to_the_one_by_one_path(
    run: Callable[..., Outcome], element: dict[str, Any]
) -> None:
    def items(w: World) -> list[Any]:
        names = {
            "grouped": w.grouped,
            "variation": w.variation,
            "variable": w.variable,
            "child": w.child,
            "trashed": w.trashed,
            "media": w.media[0],
        }
        filled = {
            key: names[value[1:-1]] if isinstance(value, str) and value[1:-1] in names else value
            for key, value in element.items()
        }
        if "images" in filled:
            filled["images"] = [{**filled["images"][0], "id": w.media[0]}]
        return [{"title": "Before", "sku": "B"}, filled, {"title": "After"}]

    outcome = same(run, items)
    assert not outcome.set_based


@pytest.mark.parametrize(
    "element",
    [
        {"title": "A", "attributes": [{"name": "Size", "options": ["S"]}]},
        {"title": "D", "downloadable": True, "downloads": [{"id": "k", "file": "http://f/x.zip"}]},
    ],
)
def test_attributes_and_downloads_set_based(
    run: Callable[..., Outcome], element: dict[str, Any]
) -> None:
    outcome = same(run, lambda w: [{"title": "Before", "sku": "B"}, element, {"title": "After"}])
    assert outcome.set_based


def test_dependencies_between_elements_fall_back(run: Callable[..., Outcome]) -> None:
    cases: list[Items] = [
        # an edit by a SKU an earlier element created
        lambda w: [{"title": "N", "sku": "NEW"}, {"sku": "NEW", "title": "N2"}],
        # an edit by a SKU an earlier element changed
        lambda w: [{"id": w.alpha, "sku": "A2"}, {"sku": "ALPHA", "title": "x"}],
        # a product edited twice
        lambda w: [{"id": w.alpha, "regular_price": "1"}, {"sku": "ALPHA", "regular_price": "2"}],
        # an id the bulk's own create takes
        lambda w: [{"title": "N"}, {"id": w.last + 1, "title": "edits the new one"}],
        # an edit moving a product into an earlier element's category
        lambda w: [{"title": "N", "categories": [w.hats]}, {"id": w.gamma, "categories": [w.hats]}],
    ]
    for items in cases:
        assert not same(run, items).set_based


def test_failed_creates_burn_ids_as_one_by_one(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [
            {"title": "ok 1"},
            {"title": "fails after its insert", "tax_class": "nope"},
            {"title": "fails before", "status": "bogus"},
            {"title": "fails after its insert", "categories": [999]},
            {"title": "ok 2"},
        ]

    outcome = same(run, items)
    assert outcome.set_based


def test_failed_creates_alone_burn_ids_as_one_by_one(run: Callable[..., Outcome]) -> None:
    def items(w: World) -> list[Any]:
        return [
            {"title": "fails after its insert", "tax_class": "nope"},
            "not an object",
            {"title": "fails after its insert", "categories": [999]},
        ]

    same(run, items)


# --- statements: constant in the number of elements


def _statements(api: TestApp, body: dict[str, Any]) -> int:
    with statements(api) as seen:
        response = api.post_json(BULK, body)
    assert all("error" not in r for r in response.json["products"])
    return len(_counted(seen))


def _counted(seen: list[str]) -> list[str]:
    """The statements of the bulk itself (not the key's occasional ``last_access`` stamp)."""
    return [sql for sql in queries(seen) if "api_keys" not in sql]


def test_statements_do_not_grow_with_the_elements(api: TestApp, engine: sa.Engine) -> None:
    factory = CatalogFactory(engine)
    shoes, hats = factory.category("Shoes"), factory.category("Hats")
    counts = []
    for size, start in ((5, 0), (100, 100)):
        created = [
            {
                "title": f"P {n}",
                "sku": f"P-{n}",
                "regular_price": "1.5",
                "categories": [shoes, hats],
                "managing_stock": True,
                "stock_quantity": n,
            }
            for n in range(start, start + size)
        ]
        with statements(api) as seen:
            records = api.post_json(BULK, {"products": created}).json["products"]
        creates = len(_counted(seen))
        edits = [
            {"id": r["id"], "regular_price": "2"}
            if i % 2
            else {"sku": r["sku"], "stock_quantity": 1}
            for i, r in enumerate(records)
        ]
        counts.append((creates, _statements(api, {"products": edits})))
    assert counts[0] == counts[1]
    assert counts[0][0] < 20 and counts[0][1] < 20


# --- mixes

#: Placeholders the mixes name the seeded records by (resolved for each run's world).
REFS = ("@alpha", "@beta", "@gamma", "@trashed", "@variation", "@shoes", "@hats", "@sale")


def resolve(value: Any, w: World) -> Any:
    if isinstance(value, str) and value in REFS:
        return getattr(w, value[1:])
    if isinstance(value, list):
        return [resolve(item, w) for item in value]
    if isinstance(value, dict):
        return {key: resolve(item, w) for key, item in value.items()}
    return value


SKUS = st.sampled_from(["ALPHA", "beta", "OLD", "M1", "m1", "M2", "", 7, None])
#: SKUs an element is looked up by (a variation's or a grouped child's, rarely: they fall back).
LOOKUPS = st.sampled_from(["ALPHA", "beta", "OLD", "M1", "m1", "M2", "M3", "", 7, "VAR-1"])
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "regular_price": st.sampled_from(["1", "2.50", "", "-1", "x", 10**15, None]),
        "sale_price": st.sampled_from(["0.5", ""]),
        "stock_quantity": st.sampled_from([0, 3, -2, 2**31, "7", 10**30]),
        "inventory_delta": st.sampled_from([1, -1, 2**31 - 1]),
        "managing_stock": st.booleans(),
        "in_stock": st.booleans(),
        "sku": SKUS,
        "categories": st.lists(st.sampled_from(["@shoes", "@hats", "@sale", 0, 9999]), max_size=2),
        "tags": st.lists(st.sampled_from(["@sale", "@shoes"]), max_size=1),
        "name": st.sampled_from(["widget", "", "alpha", "Product", "Widget 2"]),
        "status": st.sampled_from(["draft", "publish", "private", "bogus", "trash"]),
        "catalog_visibility": st.sampled_from(["hidden", "visible", "nope"]),
        "type": st.sampled_from(["simple", "external", "grouped", "variable", "nope", 3]),
        "images": st.sampled_from([[], "x", [{"id": 1, "position": 0}], [{"id": 999}]]),
        "shipping_class": st.sampled_from(["bulky", "nope", ""]),
        "tax_class": st.sampled_from(["reduced-rate", "standard", "nope"]),
        "weight": st.sampled_from(["1", "", "heavy"]),
    },
)
TITLES = st.sampled_from(["Widget", "Alpha", "", "Q", "Widget 2", 5])
TARGETS = st.sampled_from(
    ["@alpha", "@beta", "@gamma", "@trashed", "@alpha", "@gamma", 0, -1, 10**12, "@variation"]
)
ELEMENTS = st.one_of(
    st.builds(lambda title, f: {"title": title, **f}, TITLES, FIELDS),
    st.builds(lambda target, f: {**f, "id": target}, TARGETS, FIELDS),
    st.builds(lambda sku, f: {**f, "sku": sku}, LOOKUPS, FIELDS),
    st.sampled_from(["x", 5, None, [], {"id": "nope"}, {"type": "simple"}, {"id": 1.5}]),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(elements=st.lists(ELEMENTS, min_size=1, max_size=8))
def test_mixes(run: Callable[..., Outcome], elements: list[Any]) -> None:
    same(run, lambda w: resolve(elements, w))
