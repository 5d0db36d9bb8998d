"""``shopsvc.sql.json_rows``: on SQLite a statement read as one row gives the rows, values and types
the plain statement gives (odd text, big integers, REALs, NULLs, booleans, order), and the
record GETs answer the same bytes with it as without it; on both databases (PostgreSQL runs
the plain statements either way)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql import json_rows
from shopsvc.sql.prepared import Prepared
from shopsvc.sql.tables import Money, products
from shopsvc.testing.catalog import CatalogFactory
from tests.helpers.api import ROOT, Credentials, authorised
from tests.helpers.orders import URL as ORDERS
from tests.helpers.orders import OrderFactory
from tests.helpers.sql import statements

#: Text the JSON form must carry through: control characters, quotes, backslashes, a line
#: separator, characters beyond the BMP, markup; and on SQLite a NUL (PostgreSQL refuses it).
ODD = 'a\x01b\x1f\t\n\r "quoted" \\ \u2028 \u00e9 \U0001f600 <b>&amp;</b>'


def _odd(engine: sa.Engine) -> str:
    return ODD + "\x00 after NUL" if engine.dialect.name == "sqlite" else ODD


def _both(engine: sa.Engine, statement: Any, params: dict[str, Any]) -> tuple[Any, Any]:
    """The rows of ``conn.execute`` and of the statement run by :class:`Prepared` as one row."""
    with engine.connect() as conn, conn.begin():
        expected = [dict(row) for row in conn.execute(statement, params).mappings()]
        prepared = Prepared(statement)
        got = prepared.mappings(conn, params, one_row=True)
        assert prepared.mappings(conn, params, one_row=True) == got  # the plan, reused
    return expected, got


def _typed(rows: list[dict[str, Any]]) -> list[list[tuple[type, Any]]]:
    return [[(type(value), value) for value in row.values()] for row in rows]


def test_odd_values_and_order(engine: sa.Engine) -> None:
    text = _odd(engine)
    with engine.begin() as conn:
        factory = CatalogFactory(conn)
        odd = factory.product(text, sku="odd", regular_price="0.000001", featured=True)
        factory.product("Plain", sku="plain", regular_price="123456789012.123456")
        factory.product("Unpriced", sku="none")
    statement = (
        sa.select(
            products.c.id,
            products.c.title,
            products.c.regular_price,
            products.c.sale_price,
            products.c.featured,
            products.c.created_at,
            sa.type_coerce(sa.literal_column("9007199254740993"), sa.BigInteger).label("big"),
        )
        .where(products.c.id >= sa.bindparam("low"))
        .order_by(products.c.id.desc())
    )
    expected, got = _both(engine, statement, {"low": 0})
    assert _typed(got) == _typed(expected)
    assert [row["id"] for row in got] == sorted((row["id"] for row in got), reverse=True)
    assert [row["title"] for row in got if row["id"] == odd] == [text]
    assert {row["big"] for row in got} == {2**53 + 1}


def test_reals_read_back_exactly(engine: sa.Engine) -> None:
    # A sum of money text is a REAL on SQLite; SQLite's JSON alone would write 15 digits.
    statement = sa.select(
        sa.type_coerce(sa.literal_column("0.1 + 0.2"), Money()).label("sum"),
        sa.type_coerce(sa.literal_column("1274.7 - 1e-13"), Money()).label("near"),
        sa.type_coerce(sa.literal_column("CAST(NULL AS NUMERIC)"), Money()).label("none"),
    ).where(sa.bindparam("yes", 1) == 1)
    expected, got = _both(engine, statement, {"yes": 1})
    assert _typed(got) == _typed(expected)


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_infinite_real_runs_the_plain_statement(engine: sa.Engine, sign: str) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("only SQLite reads a record's rows as JSON (an infinite REAL is SQLite's case)")
    statement = sa.select(
        sa.type_coerce(sa.literal_column(f"{sign}1e308 * 10"), Money()).label("sum")
    ).where(sa.bindparam("yes", 1) == 1)
    expected, got = _both(engine, statement, {"yes": 1})
    assert got == expected == [{"sum": Decimal(f"{sign}Infinity")}]


def test_empty_result(engine: sa.Engine) -> None:
    statement = sa.select(products.c.id, products.c.title).where(
        products.c.id == sa.bindparam("id")
    )
    assert _both(engine, statement, {"id": 1}) == ([], [])


def _bodies(app: TestApp, urls: list[str], monkeypatch: pytest.MonkeyPatch) -> list[list[Any]]:
    """Each url's status, headers but the request id, and body: with the JSON form and
    without."""
    found = []
    for enabled in (True, False):
        monkeypatch.setattr(json_rows, "ENABLED", enabled)
        answers = []
        for url in urls:
            response = app.get(url, status="*")
            headers = [(k, v) for k, v in response.headerlist if k != "X-Request-Id"]
            answers.append([response.status, headers, response.body])
        found.append(answers)
    return found


def test_record_gets_answer_the_same_bytes(
    app: TestApp, admin: Credentials, engine: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _odd(engine)
    catalog = CatalogFactory(engine)
    color = catalog.attribute("Color")
    red = catalog.attribute_term(color, text)
    shirt = catalog.product(
        text,
        type="variable",
        sku="odd-shirt",
        attributes=[
            {"attribute_id": color, "terms": [red], "variation": True},
            {"name": text, "options": [text, "M"], "variation": True},
        ],
    )
    variation = catalog.variation(shirt, {"color": "red"}, regular_price="0.1")
    orders = OrderFactory(engine)
    jane = orders.customer("jane", email="jane@example.com", first_name=text)
    # paid totals whose sum is no short decimal as a REAL: the customer's total spent
    order_id = orders.order(status="processing", customer_id=jane, total="0.1")
    orders.order(status="completed", customer_id=jane, total="0.2")
    orders.line(order_id, product_id=shirt, variation_id=variation, name=text, subtotal="0.3")
    client = authorised(app, admin)
    urls = [
        f"{ROOT}/products/{shirt}",
        f"{ROOT}/products/{variation}",
        f"{ROOT}/products",
        f"{ORDERS}/{order_id}",
        ORDERS,
    ]
    # the JSON form's wrapping (a statement may use json_group_array itself: the related ids)
    with statements(client, "WITH _rows(") as wrapped:
        wrapped_bodies, plain_bodies = _bodies(client, urls, monkeypatch)
    assert wrapped_bodies == plain_bodies
    assert [status for status, _, _ in plain_bodies] == ["200 OK"] * len(urls), plain_bodies[0][2]
    if engine.dialect.name == "sqlite":
        assert wrapped, "the JSON form ran"
    else:
        assert not wrapped
    with statements(client, "WITH _rows(") as wrapped:
        client.get(f"{ROOT}/products")
        client.get(ORDERS)
    assert not wrapped, "pages read their rows as they are"
