"""``GET /orders``, ``GET /orders/count`` and ``GET /orders/statuses``: status lists, trash,
filters, ordering, paging headers, the capability rules."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from webtest import TestApp

from tests.helpers.api import authorised, error, links, paging_headers
from tests.helpers.orders import BASE_TIME, URL, OrderFactory, ids

STATUSES = ["pending", "processing", "on-hold", "completed", "cancelled", "refunded", "failed"]


@pytest.fixture
def seeded(factory: OrderFactory) -> dict[str, int]:
    """One order per status (created in status order, a minute apart) plus a trashed one."""
    made = {status: factory.order(status=status) for status in STATUSES}
    made["trash"] = factory.order(status="trash", status_before_trash="pending")
    return made


def test_default_lists_every_status_but_trash_newest_first(
    api: TestApp, seeded: dict[str, int]
) -> None:
    response = api.get(URL)
    assert ids(response) == [seeded[s] for s in reversed(STATUSES)]
    assert paging_headers(response) == {"X-Shop-Total": "7", "X-Shop-TotalPages": "1"}
    assert links(response) == []


def test_status_lists(api: TestApp, seeded: dict[str, int]) -> None:
    assert ids(api.get(URL, params={"status": "completed"})) == [seeded["completed"]]
    assert ids(api.get(URL, params={"status": "pending,failed"})) == [
        seeded["failed"],
        seeded["pending"],
    ]
    assert ids(api.get(URL, params={"status": "trash"})) == [seeded["trash"]]
    assert len(ids(api.get(URL, params={"status": "any"}))) == 7
    assert ids(api.get(URL, params={"status": "nope"})) == []
    assert ids(api.get(URL, params={"status": "wc-pending"})) == []
    assert ids(api.get(URL, params={"filter[status]": "on-hold"})) == [seeded["on-hold"]]
    # the top-level status wins over filter[status]
    assert ids(api.get(URL, params={"status": "failed", "filter[status]": "on-hold"})) == [
        seeded["failed"]
    ]


def test_customer_and_search_filters(api: TestApp, factory: OrderFactory) -> None:
    jane = factory.customer("jane")
    mine = factory.order(customer_id=jane)
    factory.order(billing={"first_name": "Zed", "email": "zed@Example.com"})
    noted = factory.order(customer_note="Ring the BELL twice")
    shipped = factory.order(shipping={"last_name": "O'Hara", "company": "Widgets 100%"})
    billed = factory.order(billing={"company": "Acme_Corp"})
    assert ids(api.get(URL, params={"filter[customer_id]": str(jane)})) == [mine]
    assert len(ids(api.get(URL, params={"filter[customer_id]": "0"}))) == 5
    assert ids(api.get(URL, params={"filter[q]": "bell"})) == [noted]
    assert ids(api.get(URL, params={"filter[q]": "o'hara"})) == [shipped]
    assert ids(api.get(URL, params={"filter[q]": "100%"})) == [shipped]
    assert ids(api.get(URL, params={"filter[q]": "acme_"})) == [billed]
    assert len(ids(api.get(URL, params={"filter[q]": "EXAMPLE.COM"}))) == 1
    assert ids(api.get(URL, params={"filter[q]": "zzz"})) == []
    bad = api.get(URL, params={"filter[customer_id]": "x"}, status=400)
    assert error(bad)[1] == "shop_api_invalid_param"


def test_common_filters_ordering_and_paging(api: TestApp, factory: OrderFactory) -> None:
    same = BASE_TIME + dt.timedelta(days=1)
    first = factory.order(created_at=same, updated_at=same + dt.timedelta(hours=2))
    second = factory.order(created_at=same, updated_at=same + dt.timedelta(hours=1))
    early = factory.order(created_at=BASE_TIME, updated_at=BASE_TIME)
    # ties on created_at are broken by id, in the same direction
    assert ids(api.get(URL)) == [second, first, early]
    assert ids(api.get(URL, params={"filter[order]": "asc"})) == [early, first, second]
    assert ids(api.get(URL, params={"filter[orderby]": "ID", "filter[order]": "ASC"})) == [
        first,
        second,
        early,
    ]
    assert ids(api.get(URL, params={"filter[orderby]": "modified"})) == [first, second, early]
    assert ids(api.get(URL, params={"filter[in]": f"{early},{first}"})) == [first, early]
    assert ids(api.get(URL, params={"filter[not_in]": str(first)})) == [second, early]
    assert ids(api.get(URL, params={"filter[created_at_min]": "2024-03-05"})) == [second, first]
    assert ids(api.get(URL, params={"filter[updated_at_max]": "2024-03-04T05:06:07Z"})) == [early]
    bad = api.get(URL, params={"filter[orderby]": "title"}, status=400)
    assert error(bad)[1] == "shop_api_invalid_param"
    page = api.get(URL, params={"filter[limit]": "2", "page": "2"})
    assert ids(page) == [early]
    assert paging_headers(page) == {"X-Shop-Total": "3", "X-Shop-TotalPages": "2"}
    assert [link.rsplit(";", 1)[1].strip() for link in links(page)] == [
        'rel="first"',
        'rel="prev"',
    ]
    first_page = api.get(URL, params={"filter[limit]": "2"})
    assert 'rel="next"' in links(first_page)[0] and 'rel="last"' in links(first_page)[1]
    empty = api.get(URL, params={"status": "failed"})
    assert paging_headers(empty) == {"X-Shop-Total": "0", "X-Shop-TotalPages": "0"}


def test_caller_without_the_capability_gets_no_records(
    app: TestApp, make_key: Any, seeded: dict[str, int]
) -> None:
    customer = authorised(app, make_key("customer", "read"))
    response = customer.get(URL)
    assert response.json == {"orders": []}
    assert paging_headers(response) == {"X-Shop-Total": "7", "X-Shop-TotalPages": "1"}


def test_count(api: TestApp, seeded: dict[str, int], factory: OrderFactory) -> None:
    assert api.get(URL + "/count").json == {"count": 7}
    assert api.get(URL + "/count", params={"status": "pending,completed"}).json == {"count": 2}
    assert api.get(URL + "/count", params={"status": "trash"}).json == {"count": 1}
    response = api.get(URL + "/count", params={"status": "any"})
    assert response.json == {"count": dict.fromkeys(STATUSES, 1)}
    assert list(response.json["count"]) == STATUSES
    assert paging_headers(response) == {}
    jane = factory.customer()
    factory.order(status="completed", customer_id=jane)
    by_jane = {"status": "any", "filter[customer_id]": str(jane)}
    counts = api.get(URL + "/count", params=by_jane).json["count"]
    assert counts == {**dict.fromkeys(STATUSES, 0), "completed": 1}
    assert api.get(URL + "/count", params={"filter[limit]": "1"}).json == {"count": 8}


def test_count_needs_the_capability(app: TestApp, make_key: Any) -> None:
    customer = authorised(app, make_key("customer", "read"))
    assert error(customer.get(URL + "/count", status=401)) == (
        401,
        "shop_api_user_cannot_read_orders_count",
        "You do not have permission to read the orders count.",
    )


def test_statuses(api: TestApp, app: TestApp, make_key: Any) -> None:
    expected = {
        "order_statuses": {
            "pending": "Pending payment",
            "processing": "Processing",
            "on-hold": "On hold",
            "completed": "Completed",
            "cancelled": "Cancelled",
            "refunded": "Refunded",
            "failed": "Failed",
        }
    }
    response = api.get(URL + "/statuses")
    assert response.json == expected
    assert list(response.json["order_statuses"]) == STATUSES
    customer = authorised(app, make_key("customer", "read"))
    assert customer.get(URL + "/statuses").json == expected
    assert app.get(URL + "/statuses", status=401).status_int == 401
