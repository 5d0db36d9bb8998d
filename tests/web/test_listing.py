"""The shared protocol of every list (decisions.md §2 and §7): pagination and its headers, order
and orderby, the common filters (in, not_in, dates, q) and ``fields``.

The webhook routes serve as the vehicle for lists; rows are created through the API and their
timestamps set with SQL where a test needs to control them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.web.rendering import filter_fields, parse_fields
from tests.helpers.api import (
    BASE,
    ROOT,
    Credentials,
    assert_error,
    authorised,
    errors,
    links,
    paging_headers,
)
from tests.helpers.webhooks import ids, numbered_webhooks, set_times, webhook_ids

pytestmark = pytest.mark.usefixtures("no_ping")


def link(query: str, rel: str) -> str:
    return f'<{BASE}{ROOT}/webhooks?{query}>; rel="{rel}"'


# --- pagination


def test_default_page_size_and_pages(api: TestApp) -> None:
    made = numbered_webhooks(api, 12)
    first = api.get(f"{ROOT}/webhooks", status=200)
    assert ids(first) == made[::-1][:10]
    assert paging_headers(first) == {"X-Shop-Total": "12", "X-Shop-TotalPages": "2"}
    assert links(first) == [link("page=2", "next"), link("page=2", "last")]
    second = api.get(f"{ROOT}/webhooks?page=2", status=200)
    assert ids(second) == made[::-1][10:]
    assert paging_headers(second) == {"X-Shop-Total": "12", "X-Shop-TotalPages": "2"}
    assert links(second) == [link("page=1", "first"), link("page=1", "prev")]


def test_link_headers_in_the_middle(api: TestApp) -> None:
    made = numbered_webhooks(api, 7)
    response = api.get(f"{ROOT}/webhooks?page=2&filter[limit]=2", status=200)
    assert ids(response) == [made[4], made[3]]
    assert paging_headers(response) == {"X-Shop-Total": "7", "X-Shop-TotalPages": "4"}
    query = "filter%5Blimit%5D=2&page="
    assert links(response) == [
        link(query + "1", "first"),
        link(query + "1", "prev"),
        link(query + "3", "next"),
        link(query + "4", "last"),
    ]


def test_link_headers_on_the_last_page_and_beyond(api: TestApp) -> None:
    made = numbered_webhooks(api, 5)
    last = api.get(f"{ROOT}/webhooks?filter[limit]=2&page=3", status=200)
    assert ids(last) == [made[0]]
    query = "filter%5Blimit%5D=2&page="
    assert links(last) == [link(query + "1", "first"), link(query + "2", "prev")]
    beyond = api.get(f"{ROOT}/webhooks?filter[limit]=2&page=5", status=200)
    assert ids(beyond) == []
    assert paging_headers(beyond) == {"X-Shop-Total": "5", "X-Shop-TotalPages": "3"}
    assert links(beyond) == [
        link(query + "1", "first"),
        link(query + "4", "prev"),
        link(query + "3", "last"),
    ]


def test_single_page_has_no_link(api: TestApp) -> None:
    numbered_webhooks(api, 3)
    response = api.get(f"{ROOT}/webhooks", status=200)
    assert paging_headers(response) == {"X-Shop-Total": "3", "X-Shop-TotalPages": "1"}
    assert links(response) == []


def test_no_results_have_zero_pages_and_no_link(api: TestApp) -> None:
    response = api.get(f"{ROOT}/webhooks?page=2", status=200)
    assert response.json == {"webhooks": []}
    assert paging_headers(response) == {"X-Shop-Total": "0", "X-Shop-TotalPages": "0"}
    assert links(response) == []
    webhook_ids(api, "one")
    response = api.get(f"{ROOT}/webhooks?filter[q]=nothing-matches", status=200)
    assert paging_headers(response) == {"X-Shop-Total": "0", "X-Shop-TotalPages": "0"}
    assert links(response) == []


def test_link_keeps_the_query_but_replaces_page_and_drops_secrets(
    app: TestApp, api: TestApp, admin: Credentials
) -> None:
    numbered_webhooks(api, 3)
    key, secret = admin.consumer_key, admin.consumer_secret
    response = app.get(
        f"{ROOT}/webhooks?page=2&filter[limit]=1&consumer_key={key}&consumer_secret={secret}"
        "&oauth_signature=xyz&oauth_nonce=n&status=active&page=2",
        status=200,
    )
    query = f"filter%5Blimit%5D=1&consumer_key={key}&status=active&page="
    assert links(response) == [
        link(query + "1", "first"),
        link(query + "1", "prev"),
        link(query + "3", "next"),
        link(query + "3", "last"),
    ]


def test_link_urls_use_the_public_url(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    api = authorised(build_app(**{"shopsvc.public_url": "https://shop.example:8443"}), admin)
    numbered_webhooks(api, 2)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=1", status=200)
    assert links(response) == [
        f'<https://shop.example:8443{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="next"',
        f'<https://shop.example:8443{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="last"',
    ]


def test_link_urls_follow_the_request_host_and_scheme(api: TestApp) -> None:
    numbered_webhooks(api, 2)
    response = api.get(
        f"{ROOT}/webhooks?filter[limit]=1",
        extra_environ={"wsgi.url_scheme": "https", "HTTP_HOST": "api.example:443"},
        status=200,
    )
    assert links(response)[0] == (
        f'<https://api.example{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="next"'
    )
    response = api.get(
        f"{ROOT}/webhooks?filter[limit]=1", extra_environ={"HTTP_HOST": "api.example:8080"}
    )
    assert links(response)[0] == (
        f'<http://api.example:8080{ROOT}/webhooks?filter%5Blimit%5D=1&page=2>; rel="next"'
    )


def test_header_prefix_setting(build_app: Callable[..., TestApp], admin: Credentials) -> None:
    api = authorised(build_app(**{"shopsvc.header_prefix": "X-WC"}), admin)
    numbered_webhooks(api, 3)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=2", status=200)
    assert paging_headers(response) == {"X-WC-Total": "3", "X-WC-TotalPages": "2"}
    assert "X-Shop-Total" not in response.headers


def test_counts_carry_no_pagination_headers(api: TestApp) -> None:
    numbered_webhooks(api, 3)
    response = api.get(f"{ROOT}/webhooks/count?page=2&filter[limit]=1", status=200)
    assert response.json == {"count": 3}
    assert paging_headers(response) == {}
    assert links(response) == []


def test_page_size_setting(build_app: Callable[..., TestApp], admin: Credentials) -> None:
    api = authorised(build_app(**{"shopsvc.page_size": "2"}), admin)
    made = numbered_webhooks(api, 5)
    response = api.get(f"{ROOT}/webhooks", status=200)
    assert ids(response) == [made[4], made[3]]
    assert paging_headers(response) == {"X-Shop-Total": "5", "X-Shop-TotalPages": "3"}
    assert ids(api.get(f"{ROOT}/webhooks?filter[limit]=0")) == [made[4], made[3]]
    assert ids(api.get(f"{ROOT}/webhooks?filter[limit]=")) == [made[4], made[3]]


def test_limit_minus_one_and_large_limits_use_the_maximum(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    api = authorised(build_app(**{"shopsvc.max_page_size": "3"}), admin)
    made = numbered_webhooks(api, 7)
    for limit in ("-1", "50", "4", "3"):
        response = api.get(f"{ROOT}/webhooks?filter[limit]={limit}", status=200)
        assert ids(response) == made[::-1][:3], limit
        assert paging_headers(response) == {"X-Shop-Total": "7", "X-Shop-TotalPages": "3"}, limit
    response = api.get(f"{ROOT}/webhooks?filter[limit]=-1&page=3", status=200)
    assert ids(response) == [made[0]]


def test_limit_minus_one_returns_everything_by_default(api: TestApp) -> None:
    made = numbered_webhooks(api, 12)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=-1", status=200)
    assert ids(response) == made[::-1]
    assert paging_headers(response) == {"X-Shop-Total": "12", "X-Shop-TotalPages": "1"}
    assert links(response) == []


def test_query_integers_use_their_leading_digits(api: TestApp) -> None:
    made = numbered_webhooks(api, 6)
    response = api.get(f"{ROOT}/webhooks?filter[limit]=2%3F&page=2abc", status=200)
    assert ids(response) == [made[3], made[2]]
    assert paging_headers(response) == {"X-Shop-Total": "6", "X-Shop-TotalPages": "3"}
    response = api.get(f"{ROOT}/webhooks?filter[limit]=4.9&filter[offset]=1x", status=200)
    assert ids(response) == [made[4], made[3], made[2], made[1]]


def test_zero_or_empty_page_is_the_first(api: TestApp) -> None:
    made = numbered_webhooks(api, 3)
    for query in ("page=0", "page=", "page=00"):
        response = api.get(f"{ROOT}/webhooks?filter[limit]=2&{query}", status=200)
        assert ids(response) == [made[2], made[1]], query


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("page=x", "page"),
        ("page=-1", "page"),
        ("filter[limit]=abc", "filter[limit]"),
        ("filter[limit]=-5", "filter[limit]"),
        ("filter[limit]=%3F5", "filter[limit]"),
        ("filter[offset]=none", "filter[offset]"),
        ("filter[offset]=-2", "filter[offset]"),
    ],
)
def test_query_integers_without_leading_digits(api: TestApp, query: str, name: str) -> None:
    response = api.get(f"{ROOT}/webhooks?{query}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert name in errors(response)[0]["message"]


def test_offset_replaces_the_page_skip(api: TestApp) -> None:
    made = numbered_webhooks(api, 8)
    newest_first = made[::-1]
    response = api.get(f"{ROOT}/webhooks?filter[offset]=3&filter[limit]=2", status=200)
    assert ids(response) == newest_first[3:5]
    response = api.get(f"{ROOT}/webhooks?filter[offset]=3&filter[limit]=2&page=3", status=200)
    assert ids(response) == newest_first[3:5]
    assert paging_headers(response) == {"X-Shop-Total": "8", "X-Shop-TotalPages": "4"}
    response = api.get(f"{ROOT}/webhooks?filter[offset]=7", status=200)
    assert ids(response) == newest_first[7:]
    assert ids(api.get(f"{ROOT}/webhooks?filter[offset]=8", status=200)) == []


def test_repeated_parameters_last_wins(api: TestApp) -> None:
    made = numbered_webhooks(api, 4)
    response = api.get(f"{ROOT}/webhooks?page=1&filter[limit]=3&page=2&filter[limit]=1", status=200)
    assert ids(response) == [made[2]]
    assert paging_headers(response) == {"X-Shop-Total": "4", "X-Shop-TotalPages": "4"}


def test_huge_numbers_in_the_query(api: TestApp) -> None:
    """Query integers beyond what an INTEGER column holds are a 400 naming the parameter, however
    many digits they have; ``filter[limit]`` is capped instead (decisions.md §2)."""
    made = numbered_webhooks(api, 2)
    for digits in (11, 30, 5000):
        huge = "9" * digits
        for query, name in (
            (f"page={huge}", "page"),
            (f"filter[offset]={huge}", "filter[offset]"),
            (f"filter[in]={made[0]},{huge}", "filter[in]"),
            (f"filter[not_in]={huge}", "filter[not_in]"),
        ):
            response = api.get(f"{ROOT}/webhooks?{query}", status=400)
            assert errors(response) == [
                {
                    "code": "shop_api_invalid_param",
                    "message": f"Invalid parameter {name}: must be at most 2147483647.",
                }
            ]
        response = api.get(f"{ROOT}/webhooks?filter[limit]={huge}", status=200)
        assert ids(response) == made[::-1]
    response = api.get(f"{ROOT}/webhooks?page=2147483647", status=200)
    assert ids(response) == []


# --- order and orderby


def test_default_order_is_created_at_descending_with_ties_by_id(
    api: TestApp, engine: sa.Engine
) -> None:
    made = numbered_webhooks(api, 5)
    moment = dt.datetime(2024, 3, 1, 12, 0, 0)
    set_times(engine, made[0], moment + dt.timedelta(hours=1))
    for hook in made[1:4]:
        set_times(engine, hook, moment)
    set_times(engine, made[4], moment - dt.timedelta(hours=1))
    expected = [made[0], made[3], made[2], made[1], made[4]]
    assert ids(api.get(f"{ROOT}/webhooks")) == expected
    assert ids(api.get(f"{ROOT}/webhooks?filter[order]=DESC&filter[orderby]=date")) == expected
    assert ids(api.get(f"{ROOT}/webhooks?filter[order]=asc")) == expected[::-1]
    ascending = api.get(f"{ROOT}/webhooks?filter[orderby]=CREATED_AT&filter[order]=Asc")
    assert ids(ascending) == expected[::-1]


def test_pages_never_overlap_or_skip_on_ties(api: TestApp, engine: sa.Engine) -> None:
    made = numbered_webhooks(api, 7)
    for hook in made:
        set_times(engine, hook, dt.datetime(2024, 1, 1))
    for order in ("ASC", "DESC"):
        seen: list[int] = []
        for page in (1, 2, 3, 4):
            url = f"{ROOT}/webhooks?filter[limit]=2&filter[order]={order}&page={page}"
            seen += ids(api.get(url))
        assert seen == (made if order == "ASC" else made[::-1]), order


def test_orderby_id_is_case_insensitive(api: TestApp, engine: sa.Engine) -> None:
    made = numbered_webhooks(api, 3)
    set_times(engine, made[0], dt.datetime(2030, 1, 1))
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=ID")) == made[::-1]
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=id&filter[order]=ASC")) == made
    assert ids(api.get(f"{ROOT}/webhooks")) == [made[0], made[2], made[1]]


def test_orderby_name_and_modified(api: TestApp, engine: sa.Engine) -> None:
    b = webhook_ids(api, "Bravo")[0]
    a = webhook_ids(api, "alpha")[0]
    c = webhook_ids(api, "Charlie")[0]
    a2 = webhook_ids(api, "alpha")[0]
    by_name = api.get(f"{ROOT}/webhooks?filter[orderby]=title&filter[order]=ASC")
    names = [hook["name"] for hook in by_name.json["webhooks"]]
    assert sorted(names, key=str.lower) == ["alpha", "alpha", "Bravo", "Charlie"]
    assert [ids(by_name)[i] for i, n in enumerate(names) if n == "alpha"] == [a, a2]
    by_name_desc = ids(api.get(f"{ROOT}/webhooks?filter[orderby]=name&filter[order]=DESC"))
    assert by_name_desc.index(a2) < by_name_desc.index(a)
    set_times(engine, b, dt.datetime(2024, 1, 1), dt.datetime(2024, 6, 1))
    set_times(engine, a, dt.datetime(2024, 1, 2), dt.datetime(2024, 5, 1))
    set_times(engine, c, dt.datetime(2024, 1, 3), dt.datetime(2024, 7, 1))
    set_times(engine, a2, dt.datetime(2024, 1, 4), dt.datetime(2024, 4, 1))
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=modified&filter[order]=ASC")) == [
        a2,
        a,
        b,
        c,
    ]
    assert ids(api.get(f"{ROOT}/webhooks?filter[orderby]=updated_at")) == [c, b, a, a2]


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("filter[orderby]=rand", "filter[orderby]"),
        ("filter[orderby]=meta_value", "filter[orderby]"),
        ("filter[orderby]=menu_order", "filter[orderby]"),
        ("filter[order]=up", "filter[order]"),
        ("filter[order]=ascending", "filter[order]"),
    ],
)
def test_unknown_order_or_orderby(api: TestApp, query: str, name: str) -> None:
    response = api.get(f"{ROOT}/webhooks?{query}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert name in errors(response)[0]["message"]


def test_unknown_filter_keys_are_ignored(api: TestApp) -> None:
    made = numbered_webhooks(api, 2)
    response = api.get(f"{ROOT}/webhooks?filter[bogus]=1&filter[post_status]=any&x=y")
    assert ids(response) == made[::-1]


# --- in, not_in, dates, q


def test_filter_in_and_not_in(api: TestApp) -> None:
    made = numbered_webhooks(api, 5)
    one, two, three, four, five = made
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]={two},{four}")) == [four, two]
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]= {two} , {four} ,")) == [four, two]
    assert ids(api.get(f"{ROOT}/webhooks?filter[not_in]={one},{five}")) == [four, three, two]
    both = api.get(f"{ROOT}/webhooks?filter[in]={one},{two},{three}&filter[not_in]={two}")
    assert ids(both) == [three, one]
    assert paging_headers(both) == {"X-Shop-Total": "2", "X-Shop-TotalPages": "1"}
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]=")) == made[::-1]
    assert ids(api.get(f"{ROOT}/webhooks?filter[in]=999")) == []
    count = api.get(f"{ROOT}/webhooks/count?filter[in]={one},{two}&filter[not_in]={one}")
    assert count.json == {"count": 1}


@pytest.mark.parametrize("key", ["in", "not_in"])
@pytest.mark.parametrize("value", ["1,x", "a", "1%3B2", "-1", "1.5"])
def test_filter_in_with_a_non_id(api: TestApp, key: str, value: str) -> None:
    response = api.get(f"{ROOT}/webhooks?filter[{key}]={value}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert f"filter[{key}]" in errors(response)[0]["message"]


@pytest.fixture
def dated(api: TestApp, engine: sa.Engine) -> list[int]:
    """Four webhooks created on 1, 2, 3 and 4 March 2024 at 10:00 UTC, each updated a day
    after its creation."""
    made = numbered_webhooks(api, 4)
    for day, hook in enumerate(made, start=1):
        created = dt.datetime(2024, 3, day, 10, 0, 0)
        set_times(engine, hook, created, created + dt.timedelta(days=1))
    return made


def _between(api: TestApp, query: str) -> list[int]:
    return sorted(ids(api.get(f"{ROOT}/webhooks?{query}", status=200)))


def test_created_at_filters_are_inclusive(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00:00Z") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00:01Z") == [three, four]
    assert _between(api, "filter[created_at_max]=2024-03-02T10:00:00Z") == [one, two]
    assert _between(api, "filter[created_at_max]=2024-03-02T09:59:59Z") == [one]
    both = "filter[created_at_min]=2024-03-02T10:00:00Z&filter[created_at_max]=2024-03-03T10:00:00Z"
    assert _between(api, both) == [two, three]
    count = api.get(f"{ROOT}/webhooks/count?{both}")
    assert count.json == {"count": 2}


def test_updated_at_filters(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    assert _between(api, "filter[updated_at_min]=2024-03-04T10:00:00Z") == [three, four]
    assert _between(api, "filter[updated_at_max]=2024-03-03T10:00:00Z") == [one, two]
    query = "filter[updated_at_min]=2024-03-03&filter[updated_at_max]=2024-03-04T10:00:00"
    assert _between(api, query) == [two, three]


def test_date_filters_honour_offsets(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    # 12:00+02:00 is 10:00Z; 05:00-05:00 is 10:00Z
    assert _between(api, "filter[created_at_min]=2024-03-02T12:00:00%2B02:00") == [
        two,
        three,
        four,
    ]
    assert _between(api, "filter[created_at_min]=2024-03-02T12:00:01%2B02:00") == [three, four]
    assert _between(api, "filter[created_at_max]=2024-03-02T05:00:00-05:00") == [one, two]
    assert _between(api, "filter[created_at_max]=2024-03-02T04:59:59-05:00") == [one]
    assert _between(api, "filter[created_at_max]=2024-03-02T15:29:59%2B0530") == [one]
    # an offset whose "+" was not encoded arrives as a space
    assert _between(api, "filter[created_at_min]=2024-03-02T12:00:00+02:00") == [two, three, four]


def test_date_only_means_midnight_utc(api: TestApp, dated: list[int]) -> None:
    one, two, three, four = dated
    assert _between(api, "filter[created_at_max]=2024-03-02") == [one]
    assert _between(api, "filter[created_at_min]=2024-03-02") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02 10:00:00.000") == [two, three, four]
    assert _between(api, "filter[created_at_min]=2024-03-02T10:00:00.5Z") == [three, four]


@pytest.mark.parametrize(
    "key", ["created_at_min", "created_at_max", "updated_at_min", "updated_at_max"]
)
@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2024-13-01",
        "2024-02-30",
        "2024-03-01T25:00:00Z",
        "01/03/2024",
        "@1709287200",
        "2024-03-01T10:00:00Zjunk",
        "9999-12-31T23:00:00-05:00",
        "0001-01-01T00:00:00%2B05:00",
    ],
)
def test_unparseable_dates(api: TestApp, key: str, value: str) -> None:
    response = api.get(f"{ROOT}/webhooks?filter[{key}]={value}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")
    assert f"filter[{key}]" in errors(response)[0]["message"]
    response = api.get(f"{ROOT}/webhooks/count?filter[{key}]={value}", status=400)
    assert_error(response, 400, "shop_api_invalid_param")


def test_empty_date_filter_is_ignored(api: TestApp) -> None:
    made = numbered_webhooks(api, 2)
    assert ids(api.get(f"{ROOT}/webhooks?filter[created_at_min]=")) == made[::-1]


def test_filter_q_is_a_case_insensitive_search(api: TestApp) -> None:
    order = webhook_ids(api, "Order Sync")[0]
    webhook_ids(api, "Stock levels")
    mixed = webhook_ids(api, "reorder ALERTS")[0]
    percent = webhook_ids(api, "100% done_now")[0]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=ORDER")) == [mixed, order]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=order%20s")) == [order]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=%25")) == [percent]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=e_n")) == [percent]
    assert ids(api.get(f"{ROOT}/webhooks?filter[q]=o_s")) == []
    assert api.get(f"{ROOT}/webhooks/count?filter[q]=order").json == {"count": 2}
    assert len(ids(api.get(f"{ROOT}/webhooks?filter[q]="))) == 4


# --- fields


def test_fields_on_a_single_response(api: TestApp) -> None:
    hook = webhook_ids(api, "one")[0]
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=id,name", status=200)
    assert response.json == {"webhook": {"id": hook, "name": "one"}}
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=topic,missing,id", status=200)
    assert response.json == {"webhook": {"id": hook, "topic": "order.created"}}
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=", status=200)
    assert set(response.json["webhook"]) > {"id", "name", "topic", "delivery_url"}


def test_fields_on_a_list_response(api: TestApp) -> None:
    first, second = numbered_webhooks(api, 2)
    response = api.get(f"{ROOT}/webhooks?fields=name,id", status=200)
    assert response.json == {
        "webhooks": [{"id": second, "name": "hook 2"}, {"id": first, "name": "hook 1"}]
    }


def test_fields_dotted_names_a_child_of_an_object(api: TestApp) -> None:
    hook = webhook_ids(api, "one")[0]
    # a dotted name on a scalar keeps nothing of it; on a list of strings keeps the list
    response = api.get(f"{ROOT}/webhooks/{hook}?fields=id,name.first,hooks.x", status=200)
    assert response.json == {
        "webhook": {"id": hook, "hooks": ["shop_process_shop_order_meta", "shop_new_order"]}
    }


def test_fields_filter_of_nested_objects() -> None:
    record = {
        "id": 7,
        "status": "processing",
        "billing_address": {"first_name": "Ann", "last_name": "Lee", "city": "Oslo"},
        "line_items": [
            {"id": 1, "product_id": 10, "quantity": 2},
            {"id": 2, "product_id": 11, "quantity": 1},
        ],
        "tags": ["a", "b"],
    }
    wanted = parse_fields("id,billing_address.first_name,billing_address.last_name,line_items.id")
    assert filter_fields(record, wanted) == {
        "id": 7,
        "billing_address": {"first_name": "Ann", "last_name": "Lee"},
        "line_items": [{"id": 1}, {"id": 2}],
    }
    # a parent named whole wins over its dotted children, in either order
    assert (
        filter_fields(record, parse_fields("billing_address.city,billing_address"))[
            "billing_address"
        ]
        == record["billing_address"]
    )
    assert (
        filter_fields(record, parse_fields("billing_address,billing_address.city"))[
            "billing_address"
        ]
        == record["billing_address"]
    )
    # only the first two segments count; children are matched per parent
    assert filter_fields(record, parse_fields("billing_address.city.x,line_items.city")) == {
        "billing_address": {"city": "Oslo"},
        "line_items": [{}, {}],
    }
    assert filter_fields(record, parse_fields("")) == record
    assert filter_fields(record, parse_fields(None)) == record


def test_fields_does_not_shape_writes(api: TestApp) -> None:
    body = {"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/"}}
    created = api.post_json(f"{ROOT}/webhooks?fields=id", body, status=201).json["webhook"]
    assert {"id", "name", "topic", "delivery_url", "status"} <= set(created)
    edited = api.put_json(
        f"{ROOT}/webhooks/{created['id']}?fields=id", {"webhook": {"name": "renamed"}}, status=200
    ).json["webhook"]
    assert edited["name"] == "renamed" and "topic" in edited
