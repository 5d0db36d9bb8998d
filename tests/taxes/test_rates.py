"""Tax rates through HTTP: every route, default, coercion and error code."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from shopsvc.sql import taxes as taxes_sql
from shopsvc.sql.tables import tax_rate_locations, tax_rates
from tests.helpers.api import error, errors
from tests.helpers.sql import count_rows, statements
from tests.helpers.taxes import KEYS, URL, create, create_class, tax

# --- create


def test_create_with_defaults(api: Any, engine: sa.Engine) -> None:
    response = api.post_json(URL, {"tax": {}})
    assert response.status_int == 201
    body = response.json
    assert list(body) == ["tax"]
    assert list(body["tax"]) == KEYS
    assert body["tax"] == tax(body["tax"]["id"])
    assert count_rows(engine, tax_rates) == 1
    assert count_rows(engine, tax_rate_locations) == 0


def test_create_with_every_field(api: Any, engine: sa.Engine) -> None:
    create_class(api, "Reduced rate")
    record = create(
        api,
        country="gb",
        state="ca ",
        rate="20",
        name="VAT",
        priority="-3",
        compound="yes",
        shipping=0,
        order=5,
        **{"class": "Reduced Rate"},
        postcode="ab1*; 90210...90299 ;*",
        city=["london", " Leeds ", "*", ""],
    )
    assert record == tax(
        record["id"],
        country="GB",
        state="CA",
        postcode="AB1*;90210...90299",
        city="LONDON;LEEDS",
        rate="20.0000",
        name="VAT",
        priority=3,
        compound=True,
        shipping=False,
        order=5,
        **{"class": "reduced-rate"},
    )
    assert count_rows(engine, tax_rate_locations) == 4
    assert api.get(f"{URL}/{record['id']}").json == {"tax": record}


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("", "0.0000"),
        ("   ", "0.0000"),
        (7.5, "7.5000"),
        (0, "0.0000"),
        ("12.34565", "12.3457"),
        ("12.34564", "12.3456"),
        (" 8 ", "8.0000"),
        ("1e2", "100.0000"),
        ("-0", "0.0000"),
        ("99999999.9999", "99999999.9999"),
        (None, "0.0000"),
    ],
)
def test_create_rate_values(api: Any, given: Any, shown: str) -> None:
    assert create(api, rate=given)["rate"] == shown


@pytest.mark.parametrize(
    "given", ["abc", -1, "-0.5", True, [], {}, "NaN", "Infinity", "1,5", "100000000", 1e9]
)
def test_create_refuses_a_rate_that_is_not_a_non_negative_number(
    api: Any, engine: sa.Engine, given: Any
) -> None:
    response = api.post_json(URL, {"tax": {"rate": given}}, status=400)
    status, code, _ = error(response)
    assert (status, code) == (400, "shop_api_invalid_tax_rate")
    assert count_rows(engine, tax_rates) == 0


def test_invalid_rate_message(api: Any) -> None:
    response = api.post_json(URL, {"tax": {"rate": "abc"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_tax_rate",
        "Tax rate must be a non-negative number.",
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("yes", True),
        ("no", False),
        ("YES", True),
        ("true", True),
        ("false", False),
        (1, True),
        (0, False),
        ("1", True),
        ("0", False),
        ("", False),
        (None, False),
        ([], False),
        ({}, False),
        ("anything", True),
        (2, True),
        ([0], True),
        (0.5, True),
    ],
)
def test_compound_and_shipping_are_coerced_by_truthiness(
    api: Any, value: Any, expected: bool
) -> None:
    record = create(api, compound=value, shipping=value)
    assert (record["compound"], record["shipping"]) == (expected, expected)


@pytest.mark.parametrize(
    ("given", "shown"),
    [("-3", 3), (-7, 7), ("+4", 4), (0, 0), (2.0, 2), (" 5 ", 5), (2**31 - 1, 2**31 - 1)],
)
def test_priority_is_an_absolute_integer(api: Any, given: Any, shown: int) -> None:
    assert create(api, priority=given)["priority"] == shown


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("priority", "abc", "must be an integer"),
        ("priority", "3abc", "must be an integer"),
        ("priority", 2.5, "must be an integer"),
        ("priority", [1], "must be an integer"),
        ("priority", True, "must be an integer"),
        ("priority", 2**31, "must be between 0 and 2147483647"),
        ("order", "first", "must be an integer"),
        ("order", 2**31, "must be between -2147483648 and 2147483647"),
        ("country", "GBR", "must be at most 2 characters"),
        ("country", ["GB"], "must be a string"),
        ("state", {"a": 1}, "must be a string"),
        ("state", "x" * 201, "must be at most 200 characters"),
        ("name", {}, "must be a string"),
        ("name", "x" * 201, "must be at most 200 characters"),
        ("name", "a\x00b", "must not contain NUL characters"),
        ("class", ["reduced"], "must be a string"),
        ("postcode", {"a": "b"}, "must be a ;-separated string or an array"),
        ("postcode", True, "must be a ;-separated string or an array"),
        ("postcode", "A" * 201, "entries must be at most 200 characters"),
        ("city", False, "must be a ;-separated string or an array"),
        ("city", ["a\x00b"], "must not contain NUL characters"),
    ],
)
def test_create_refuses_fields_of_the_wrong_type(
    api: Any, engine: sa.Engine, field: str, value: Any, problem: str
) -> None:
    response = api.post_json(URL, {"tax": {field: value}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        f"Invalid parameter tax.{field}: {problem}.",
    )
    assert count_rows(engine, tax_rates) == 0


def test_create_normalises_country_state_and_name(api: Any) -> None:
    record = create(api, country="*", state="*", name="")
    assert (record["country"], record["state"], record["name"]) == ("", "", "Tax")
    record = create(api, country="us", state="n.y", name=12)
    assert (record["country"], record["state"], record["name"]) == ("US", "NY", "12")


def test_create_with_a_numeric_postcode(api: Any) -> None:
    assert create(api, postcode=90210)["postcode"] == "90210"


def test_create_with_empty_locations_stores_none(api: Any, engine: sa.Engine) -> None:
    record = create(api, postcode=";;*", city=["", "*", " "])
    assert (record["postcode"], record["city"]) == ("", "")
    assert count_rows(engine, tax_rate_locations) == 0


@pytest.mark.parametrize("name", ["standard", "Standard", "", "STANDARD"])
def test_create_in_the_standard_class(api: Any, name: str) -> None:
    record = create(api, **{"class": name})
    assert record["class"] == "standard"


def test_create_refuses_an_unknown_class(api: Any, engine: sa.Engine) -> None:
    create_class(api, "Reduced rate")
    response = api.post_json(URL, {"tax": {"class": "Zero rate"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_tax_class",
        'Tax class "zero-rate" does not exist.',
    )
    assert count_rows(engine, tax_rates) == 0


@pytest.mark.parametrize("body", [None, {}, {"tax": None}, {"taxes": {}}, [1], "tax"])
def test_create_without_the_envelope(api: Any, body: Any) -> None:
    if body is None:
        response = api.post(URL, "", status=400)
    else:
        response = api.post_json(URL, body, status=400)
    assert error(response) == (
        400,
        "shop_api_missing_tax_data",
        "No tax data specified to create tax",
    )


def test_create_with_an_envelope_that_is_not_an_object(api: Any) -> None:
    response = api.post_json(URL, {"tax": [1, 2]}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter tax: must be a JSON object.",
    )


def test_create_with_invalid_json(api: Any) -> None:
    response = api.post(URL, "{", content_type="application/json", status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_json"


def test_create_without_capability(customer_api: Any, engine: sa.Engine) -> None:
    response = customer_api.post_json(URL, {"tax": {"rate": "abc"}}, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_create_tax",
        "You do not have permission to create tax rates.",
    )
    assert count_rows(engine, tax_rates) == 0


def test_envelope_is_checked_before_capability(customer_api: Any) -> None:
    response = customer_api.post_json(URL, {}, status=400)
    assert errors(response)[0]["code"] == "shop_api_missing_tax_data"


# --- read


def test_get_a_rate(api: Any) -> None:
    record = create(api, country="FR", rate="5.5", name="TVA", order=2)
    response = api.get(f"{URL}/{record['id']}")
    assert response.status_int == 200
    assert response.json == {"tax": record}
    assert list(response.json["tax"]) == KEYS


def test_get_with_fields(api: Any) -> None:
    record = create(api, country="FR", rate="5.5")
    response = api.get(f"{URL}/{record['id']}", {"fields": "rate,id,nothing"})
    assert response.json == {"tax": {"id": record["id"], "rate": "5.5000"}}


@pytest.mark.parametrize("rate_id", ["0", "999", "99999999999999999999"])
def test_get_a_missing_rate(api: Any, rate_id: str) -> None:
    response = api.get(f"{URL}/{rate_id}", status=404)
    assert error(response) == (
        404,
        "shop_api_invalid_tax_id",
        "A tax rate with the provided ID could not be found.",
    )


def test_get_with_a_non_numeric_id_is_no_route(api: Any) -> None:
    response = api.get(f"{URL}/abc", status=404)
    assert errors(response)[0]["code"] == "shop_api_no_route"


def test_get_without_capability(api: Any, customer_api: Any) -> None:
    record = create(api)
    for rate_id in (record["id"], 999):
        response = customer_api.get(f"{URL}/{rate_id}", status=401)
        assert error(response) == (
            401,
            "shop_api_user_cannot_read_tax",
            "You do not have permission to read tax rate.",
        )


def test_head_of_a_rate(api: Any) -> None:
    record = create(api)
    response = api.head(f"{URL}/{record['id']}")
    assert response.status_int == 200
    assert response.body == b""


# --- edit


@pytest.mark.parametrize("method", ["put_json", "patch_json", "post_json"])
def test_edit_changes_the_given_fields(api: Any, method: str) -> None:
    create_class(api, "Reduced rate")
    record = create(api, country="GB", rate="20", name="VAT", postcode="SW1*", city="London")
    response = getattr(api, method)(
        f"{URL}/{record['id']}",
        {"tax": {"rate": 5, "name": "Reduced VAT", "class": "reduced-rate", "compound": "1"}},
    )
    assert response.status_int == 200
    expected = {
        **record,
        "rate": "5.0000",
        "name": "Reduced VAT",
        "class": "reduced-rate",
        "compound": True,
    }
    assert response.json == {"tax": expected}
    assert api.get(f"{URL}/{record['id']}").json == {"tax": expected}


def test_edit_back_to_the_standard_class(api: Any) -> None:
    create_class(api, "Reduced rate")
    record = create(api, **{"class": "reduced-rate"})
    edited = api.put_json(f"{URL}/{record['id']}", {"tax": {"class": "standard"}}).json["tax"]
    assert edited["class"] == "standard"


def test_edit_normalises_like_create(api: Any) -> None:
    record = create(api)
    edited = api.put_json(
        f"{URL}/{record['id']}",
        {"tax": {"country": "de", "state": "*", "priority": "-2", "shipping": "no", "name": ""}},
    ).json["tax"]
    assert edited == {
        **record,
        "country": "DE",
        "priority": 2,
        "shipping": False,
        "name": "Tax",
    }


def test_edit_replaces_and_clears_locations(api: Any, engine: sa.Engine) -> None:
    record = create(api, postcode="AB1;AB2", city="Leeds")
    rate_url = f"{URL}/{record['id']}"
    edited = api.put_json(rate_url, {"tax": {"postcode": ["cb1*", "cb2*", "cb3*"]}}).json["tax"]
    assert (edited["postcode"], edited["city"]) == ("CB1*;CB2*;CB3*", "LEEDS")
    assert count_rows(engine, tax_rate_locations) == 4
    edited = api.put_json(rate_url, {"tax": {"postcode": None, "city": ""}}).json["tax"]
    assert (edited["postcode"], edited["city"]) == ("CB1*;CB2*;CB3*", "")
    edited = api.put_json(rate_url, {"tax": {"postcode": []}}).json["tax"]
    assert (edited["postcode"], edited["city"]) == ("", "")
    assert count_rows(engine, tax_rate_locations) == 0


def test_edit_with_null_fields_changes_nothing(api: Any) -> None:
    record = create(api, country="GB", rate="20", name="VAT", order=4)
    body = {"tax": {"country": None, "rate": None, "name": None, "order": None, "class": None}}
    assert api.put_json(f"{URL}/{record['id']}", body).json == {"tax": record}


def test_edit_writes_only_what_differs(api: Any) -> None:
    record = create(api, country="GB", rate="20", name="VAT", postcode="AB1", order=3)
    rate_url = f"{URL}/{record['id']}"
    same = {"country": "gb", "rate": "20.0000", "name": "VAT", "postcode": "ab1", "order": "3"}
    with statements(api, "tax_") as seen:
        assert api.put_json(rate_url, {"tax": same}).json == {"tax": record}
    writes = [s for s in seen if not s.startswith("SELECT")]
    assert writes == []
    with statements(api, "tax_") as seen:
        edited = api.put_json(rate_url, {"tax": {**same, "name": "TVA"}}).json["tax"]
    assert edited == {**record, "name": "TVA"}
    [write] = [s for s in seen if not s.startswith("SELECT")]
    assert write.startswith("UPDATE tax_rates SET name=")
    assert "country" not in write and "rate=" not in write


def test_edit_refuses_bad_fields_and_keeps_the_rate(api: Any) -> None:
    record = create(api, rate="20")
    rate_url = f"{URL}/{record['id']}"
    response = api.put_json(rate_url, {"tax": {"name": "New", "rate": "lots"}}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_tax_rate"
    response = api.put_json(rate_url, {"tax": {"name": "New", "priority": "high"}}, status=400)
    assert error(response) == (
        400,
        "shop_api_invalid_param",
        "Invalid parameter tax.priority: must be an integer.",
    )
    response = api.put_json(rate_url, {"tax": {"name": "New", "class": "nope"}}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_tax_class"
    assert api.get(rate_url).json == {"tax": record}


def test_edit_a_missing_rate(api: Any) -> None:
    response = api.put_json(f"{URL}/999", {"tax": {"rate": "abc"}}, status=404)
    assert error(response) == (
        404,
        "shop_api_invalid_tax_id",
        "A tax rate with the provided ID could not be found.",
    )


@pytest.mark.parametrize("body", [{}, {"tax": None}, {"other": {}}])
def test_edit_without_the_envelope(api: Any, body: Any) -> None:
    record = create(api)
    response = api.put_json(f"{URL}/{record['id']}", body, status=400)
    assert error(response) == (
        400,
        "shop_api_missing_tax_data",
        "No tax data specified to edit tax",
    )


def test_edit_with_an_envelope_that_is_not_an_object(api: Any) -> None:
    record = create(api)
    response = api.put_json(f"{URL}/{record['id']}", {"tax": "x"}, status=400)
    assert errors(response)[0]["message"] == "Invalid parameter tax: must be a JSON object."


def test_edit_without_capability(api: Any, customer_api: Any) -> None:
    record = create(api, rate="20")
    for rate_id in (record["id"], 999):
        response = customer_api.put_json(f"{URL}/{rate_id}", {"tax": {"rate": 1}}, status=401)
        assert error(response) == (
            401,
            "shop_api_user_cannot_edit_tax",
            "You do not have permission to edit tax rates.",
        )
    assert api.get(f"{URL}/{record['id']}").json["tax"]["rate"] == "20.0000"
    response = customer_api.put_json(f"{URL}/{record['id']}", {}, status=400)
    assert errors(response)[0]["code"] == "shop_api_missing_tax_data"


# --- delete


def test_delete_a_rate(api: Any, engine: sa.Engine) -> None:
    record = create(api, postcode="AB1;AB2", city="Leeds")
    other = create(api, postcode="CB1")
    response = api.delete(f"{URL}/{record['id']}")
    assert response.status_int == 200
    assert response.json == {"message": "Deleted tax"}
    assert errors(api.get(f"{URL}/{record['id']}", status=404))[0]["code"] == (
        "shop_api_invalid_tax_id"
    )
    assert count_rows(engine, tax_rates) == 1
    assert count_rows(engine, tax_rate_locations) == 1
    assert api.get(f"{URL}/{other['id']}").json["tax"]["postcode"] == "CB1"


def test_delete_a_missing_rate(api: Any) -> None:
    response = api.delete(f"{URL}/999", status=404)
    assert error(response) == (
        404,
        "shop_api_invalid_tax_id",
        "A tax rate with the provided ID could not be found.",
    )


def test_delete_that_deletes_nothing(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rate was there when loaded but gone by the DELETE (a concurrent delete)."""
    real = taxes_sql.get_rate

    def vanished(conn: Any, rate_id: int) -> dict[str, Any] | None:
        return real(conn, rate_id) or {"id": rate_id}

    monkeypatch.setattr(taxes_sql, "get_rate", vanished)
    response = api.delete(f"{URL}/999", status=401)
    assert error(response) == (
        401,
        "shop_api_cannot_delete_tax",
        "Could not delete the tax rate.",
    )


def test_delete_without_capability(api: Any, customer_api: Any, engine: sa.Engine) -> None:
    record = create(api)
    for rate_id in (record["id"], 999):
        response = customer_api.delete(f"{URL}/{rate_id}", status=401)
        assert error(response) == (
            401,
            "shop_api_user_cannot_delete_tax",
            "You do not have permission to delete tax rates.",
        )
    assert count_rows(engine, tax_rates) == 1


# --- list and count


def ids(response: Any) -> list[int]:
    return [item["id"] for item in response.json["taxes"]]


def test_list_is_ordered_by_order_then_id(api: Any) -> None:
    made = [create(api, order=order)["id"] for order in (3, 1, 2, 1, 0)]
    expected = [made[4], made[1], made[3], made[2], made[0]]
    assert ids(api.get(URL)) == expected
    query = {"filter[order]": "DESC", "filter[orderby]": "id"}
    assert ids(api.get(URL, query)) == expected
    assert ids(api.get(URL, {"filter[orderby]": "bogus", "filter[order]": "sideways"})) == expected


def test_list_returns_full_records(api: Any) -> None:
    first = create(api, country="GB", rate="20", postcode="AB1;AB2", city="Leeds")
    second = create(api, country="FR", rate="5.5")
    response = api.get(URL)
    assert response.json == {"taxes": [first, second]}
    assert response.headers["X-Shop-Total"] == "2"
    assert response.headers["X-Shop-TotalPages"] == "1"
    assert "Link" not in response.headers


def test_list_loads_locations_in_one_statement(api: Any) -> None:
    for n in range(4):
        create(api, postcode=f"AB{n};CD{n}", city=f"Town{n}")
    with statements(api, "tax_") as seen:
        response = api.get(URL)
    assert [item["postcode"] for item in response.json["taxes"]] == [
        f"AB{n};CD{n}" for n in range(4)
    ]
    assert len([s for s in seen if "tax_rate_locations" in s]) == 1
    assert len(seen) == 3  # count, page, locations


def test_list_pagination_headers_and_links(api: Any) -> None:
    made = [create(api)["id"] for _ in range(5)]
    response = api.get(URL, {"filter[limit]": "2", "page": "2"})
    assert ids(response) == made[2:4]
    assert response.headers["X-Shop-Total"] == "5"
    assert response.headers["X-Shop-TotalPages"] == "3"
    base = "http://localhost/shop-api/v3/taxes?filter%5Blimit%5D=2&page="
    assert response.headers.getall("Link") == [
        f'<{base}1>; rel="first"',
        f'<{base}1>; rel="prev"',
        f'<{base}3>; rel="next"',
        f'<{base}3>; rel="last"',
    ]
    last = api.get(URL, {"filter[limit]": "2", "page": "3"})
    assert ids(last) == made[4:]
    assert last.headers.getall("Link") == [f'<{base}1>; rel="first"', f'<{base}2>; rel="prev"']
    first = api.get(URL, {"filter[limit]": "2"})
    assert ids(first) == made[:2]
    assert first.headers.getall("Link") == [
        f'<{base}2>; rel="next"',
        f'<{base}3>; rel="last"',
    ]


def test_list_default_page_size_offset_and_no_limit(api: Any) -> None:
    made = [create(api)["id"] for _ in range(12)]
    response = api.get(URL)
    assert ids(response) == made[:10]
    assert response.headers["X-Shop-TotalPages"] == "2"
    assert ids(api.get(URL, {"page": "2"})) == made[10:]
    assert ids(api.get(URL, {"filter[offset]": "3", "filter[limit]": "2"})) == made[3:5]
    everything = api.get(URL, {"filter[limit]": "-1"})
    assert ids(everything) == made
    assert everything.headers["X-Shop-TotalPages"] == "1"
    assert "Link" not in everything.headers


def test_list_without_results(api: Any) -> None:
    response = api.get(URL)
    assert response.json == {"taxes": []}
    assert response.headers["X-Shop-Total"] == "0"
    assert response.headers["X-Shop-TotalPages"] == "0"
    assert "Link" not in response.headers


def test_list_refuses_a_bad_page(api: Any) -> None:
    response = api.get(URL, {"page": "x"}, status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_param"


def test_list_and_count_by_class(api: Any) -> None:
    create_class(api, "Reduced rate")
    create_class(api, "Zero rate")
    standard = create(api)["id"]
    reduced = [create(api, **{"class": "reduced-rate"})["id"] for _ in range(2)]
    zero = create(api, **{"class": "zero-rate"})["id"]
    assert ids(api.get(URL)) == [standard, *reduced, zero]
    assert ids(api.get(URL, {"class": "standard"})) == [standard]
    assert ids(api.get(URL, {"class": "Reduced Rate"})) == reduced
    assert ids(api.get(URL, {"filter[tax_rate_class]": "zero-rate"})) == [zero]
    both = {"class": "zero-rate", "filter[tax_rate_class]": "reduced-rate"}
    assert ids(api.get(URL, both)) == [zero]
    assert ids(api.get(URL, {"class": ""})) == [standard, *reduced, zero]
    unknown = api.get(URL, {"class": "luxury"})
    assert unknown.json == {"taxes": []}
    assert unknown.headers["X-Shop-Total"] == "0"
    count = URL + "/count"
    assert api.get(count).json == {"count": 4}
    assert api.get(count, {"class": "standard"}).json == {"count": 1}
    assert api.get(count, {"class": "reduced-rate"}).json == {"count": 2}
    assert api.get(count, {"filter[tax_rate_class]": "Zero Rate"}).json == {"count": 1}
    assert api.get(count, {"class": "luxury"}).json == {"count": 0}


def test_list_and_count_search_the_name(api: Any) -> None:
    vat = create(api, name="UK VAT")["id"]
    create(api, name="Sales tax")
    other_vat = create(api, name="vat reduced")["id"]
    percent = create(api, name="100% off")["id"]
    assert ids(api.get(URL, {"filter[q]": "VaT"})) == [vat, other_vat]
    assert api.get(URL + "/count", {"filter[q]": "vat"}).json == {"count": 2}
    assert ids(api.get(URL, {"filter[q]": "%"})) == [percent]


def test_list_with_fields(api: Any) -> None:
    first = create(api, rate="20")
    second = create(api, rate="5")
    response = api.get(URL, {"fields": "id,rate"})
    assert response.json == {
        "taxes": [
            {"id": first["id"], "rate": "20.0000"},
            {"id": second["id"], "rate": "5.0000"},
        ]
    }


def test_count(api: Any) -> None:
    assert api.get(URL + "/count").json == {"count": 0}
    for _ in range(3):
        create(api)
    response = api.get(URL + "/count", {"filter[limit]": "1", "page": "2"})
    assert response.json == {"count": 3}
    assert "X-Shop-Total" not in response.headers
    assert "Link" not in response.headers


def test_list_and_head_without_capability(customer_api: Any) -> None:
    response = customer_api.get(URL, status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_read_tax",
        "You do not have permission to read tax rate.",
    )
    assert customer_api.head(URL, status=401).body == b""


def test_head_of_the_list(api: Any) -> None:
    create(api)
    response = api.head(URL)
    assert response.status_int == 200
    assert response.headers["X-Shop-Total"] == "1"
    assert response.body == b""


def test_count_without_capability(customer_api: Any) -> None:
    response = customer_api.get(URL + "/count", status=401)
    assert error(response) == (
        401,
        "shop_api_user_cannot_read_taxes_count",
        "You do not have permission to read the taxes count.",
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/classes/reduced-rate"),
        ("put", "/classes/reduced-rate"),
        ("post", "/classes/count"),
        ("delete", "/classes"),
        ("delete", ""),
        ("get", "/bulk"),
        ("delete", "/count"),
        ("delete", "/classes/-x"),
    ],
)
def test_unrouted_methods(api: Any, method: str, path: str) -> None:
    response = getattr(api, method)(URL + path, status=404)
    assert errors(response)[0]["code"] == "shop_api_no_route"
