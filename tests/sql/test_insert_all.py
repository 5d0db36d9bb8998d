"""``sql.common.insert_all`` and ``arrays_insert``: rows inserted by one statement (on
PostgreSQL one array per column, unnested), stored in their order, with every value as given."""

from __future__ import annotations

from decimal import Decimal

import pytest
import sqlalchemy as sa

from shopsvc.sql.common import arrays_insert, arrays_params, insert_all
from shopsvc.sql.tables import tax_rate_locations, tax_rates
from shopsvc.testing.rows import insert_row

RATE = {
    "country": "FR",
    "state": "",
    "rate": Decimal("5.5000"),
    "name": "TVA",
    "priority": 1,
    "compound": False,
    "shipping": True,
    "rate_order": 0,
    "tax_class_id": None,
}


def _rate(conn: sa.Connection, **changes: object) -> int:
    return insert_row(conn, tax_rates, {**RATE, **changes})


def test_rows_are_stored_in_their_order_with_their_values(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        first, second = _rate(conn), _rate(conn, name="TVA 2")
        rows = [
            {"tax_rate_id": second, "location_type": "postcode", "code": "75*"},
            {"tax_rate_id": first, "location_type": "city", "code": 'Saint-Étienne, "Loire"'},
            {"tax_rate_id": second, "location_type": "postcode", "code": "{1,2}"},
            {"tax_rate_id": first, "location_type": "postcode", "code": "NULL"},
        ]
        insert_all(conn, tax_rate_locations, rows)
        stored = conn.execute(
            sa.select(
                tax_rate_locations.c.tax_rate_id,
                tax_rate_locations.c.location_type,
                tax_rate_locations.c.code,
            ).order_by(tax_rate_locations.c.id)
        ).all()
    assert [tuple(row) for row in stored] == [tuple(row.values()) for row in rows]


def test_no_rows_writes_nothing(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        insert_all(conn, tax_rate_locations, [])
        count = conn.execute(sa.select(sa.func.count()).select_from(tax_rate_locations))
        assert count.scalar_one() == 0


@pytest.fixture
def postgres(engine: sa.Engine) -> sa.Engine:
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite reads the rows from one JSON array (no arrays)")
    return engine


def test_new_ids_sorted_follow_the_arrays(postgres: sa.Engine) -> None:
    names = [f"rate {n}" for n in (3, 1, 2, 5, 4)]
    columns = tuple(RATE)
    rows = [{**RATE, "name": name, "rate": Decimal("1.2345")} for name in names]
    with postgres.begin() as conn:
        result = conn.execute(
            arrays_insert(tax_rates, columns, returning=True), arrays_params(columns, rows)
        )
        ids = sorted(int(i) for i in result.scalars())
        stored = dict(conn.execute(sa.select(tax_rates.c.id, tax_rates.c.name)).tuples().all())
        rates = set(conn.execute(sa.select(tax_rates.c.rate)).scalars())
        null_classes = conn.execute(
            sa.select(sa.func.count()).where(tax_rates.c.tax_class_id.is_(None))
        ).scalar_one()
    assert [stored[i] for i in ids] == names
    assert rates == {Decimal("1.2345")}
    assert null_classes == len(names)


def test_a_value_too_long_for_its_column_is_refused_not_cut(postgres: sa.Engine) -> None:
    # an explicit cast to VARCHAR(2)[] would have cut "FRA" to "FR" without a word
    rows = [{**RATE, "country": "FRA"}]
    columns = tuple(RATE)
    with postgres.connect() as conn, conn.begin(), pytest.raises(sa.exc.DataError):
        conn.execute(arrays_insert(tax_rates, columns), arrays_params(columns, rows))
