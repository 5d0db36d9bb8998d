"""The list, count and single GET routes with the parameters each reads, the hostile query
values and keys, and :func:`list_cases`, one hostile query string for one of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st

from tests.hostile.bodies import HUGE_DIGITS
from tests.hostile.values import choice, text_with_surrogates


@dataclass(frozen=True)
class ListRoute:
    path: str
    params: Mapping[str, st.SearchStrategy[Any]]


DATE_TEXT = choice(
    "2024-01-01",
    "2024-01-01T10:00:00Z",
    "2024-01-01T10:00:00+02:00",
    "2024-01-01T10:00:00 02:00",
    "2024-01-01t10:00:00z",
)

COMMON_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    "page": choice("1", "2", "100?"),
    "filter[limit]": choice("5", "-1", "1", "0"),
    "filter[offset]": choice("0", "1", "3"),
    "filter[in]": choice("1,2", "1", ""),
    "filter[not_in]": choice("2", "1,3"),
    "filter[created_at_min]": DATE_TEXT,
    "filter[created_at_max]": DATE_TEXT,
    "filter[updated_at_min]": DATE_TEXT,
    "filter[updated_at_max]": DATE_TEXT,
    "filter[orderby]": choice("id", "ID", "date", "name", "title", "menu_order", "modified"),
    "filter[order]": choice("ASC", "desc", "Desc"),
    "filter[q]": choice("red", "a", ""),
    "filter[dp]": choice("2", "0", "4"),
    "fields": choice("id,name", "id", "images.src,attributes.name", "x.y.z", ""),
}

PRODUCT_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    **COMMON_PARAMS,
    "type": choice("simple", "variable", "simple,variable"),
    "filter[type]": choice("simple", "external"),
    "filter[post_status]": choice("any", "publish", "draft,private", "trash"),
    "filter[category]": choice("hostile", "red-2", "shirts?"),
    "filter[tag]": choice(
        "hostile",
    ),
    "filter[shipping_class]": choice(
        "heavy",
    ),
    "filter[pa_color]": choice("red", "red,blue"),
    "filter[pa_]": choice(
        "x",
    ),
    "filter[sku]": choice("SKU-1", "sku-1"),
    "filter[meta]": choice("true", "false"),
}

ORDER_RECORD_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    "filter[dp]": choice("2", "0", "4", "6", "20", "99", "3x"),
    "filter[expand]": choice("products", "taxes", "coupons", "products,taxes,coupons", "x,,"),
    "filter[all_item_meta]": choice("true", "false", "1"),
    "filter[meta]": choice("true", "false"),
    "fields": choice(
        "id,line_items.product_id",
        "line_items",
        "customer.billing_address.email",
        "id,order_meta,total",
        "line_items.product_data.id",
        "",
    ),
}

ORDER_STATUSES = choice(
    "any", "pending", "processing,completed", "trash", " pending, on-hold ,", "wc-pending", ","
)

ORDER_PARAMS: dict[str, st.SearchStrategy[Any]] = {
    **COMMON_PARAMS,
    **ORDER_RECORD_PARAMS,
    "filter[orderby]": choice("id", "date", "modified", "title", "total"),
    "status": ORDER_STATUSES,
    "filter[status]": ORDER_STATUSES,
    "filter[customer_id]": choice("0", "1", "2", "999999"),
}

LIST_ROUTES: tuple[ListRoute, ...] = (
    ListRoute("/webhooks", {**COMMON_PARAMS, "status": choice("all", "active", "paused")}),
    ListRoute("/webhooks/count", {**COMMON_PARAMS, "status": choice("all", "disabled")}),
    ListRoute("/webhooks/{webhook}", {"fields": COMMON_PARAMS["fields"]}),
    ListRoute("/webhooks/{webhook}/deliveries", COMMON_PARAMS),
    ListRoute(
        "/taxes",
        {
            **COMMON_PARAMS,
            "class": choice("standard", "reduced-rate", ""),
            "filter[tax_rate_class]": choice(
                "reduced-rate",
            ),
        },
    ),
    ListRoute("/taxes/count", {**COMMON_PARAMS, "class": choice("standard", "reduced-rate")}),
    ListRoute("/taxes/{tax}", {"fields": COMMON_PARAMS["fields"]}),
    ListRoute("/taxes/classes", COMMON_PARAMS),
    ListRoute("/taxes/classes/count", COMMON_PARAMS),
    ListRoute("/products", PRODUCT_PARAMS),
    ListRoute("/products/count", PRODUCT_PARAMS),
    ListRoute(
        "/products/{product}",
        {
            "fields": COMMON_PARAMS["fields"],
            "filter[meta]": choice(
                "true",
            ),
        },
    ),
    ListRoute(
        "/products/{variable}", {"fields": choice("variations.id,variations.attributes", "id")}
    ),
    ListRoute("/products/{product}/reviews", COMMON_PARAMS),
    ListRoute("/products/{product}/orders", ORDER_PARAMS),
    ListRoute("/orders", ORDER_PARAMS),
    ListRoute("/orders/count", ORDER_PARAMS),
    ListRoute("/orders/statuses", {"fields": choice("pending", "x", "")}),
    ListRoute("/orders/{order}", ORDER_RECORD_PARAMS),
    ListRoute("/orders/{order}/notes", {**COMMON_PARAMS, "fields": choice("id,note", "")}),
    ListRoute("/orders/{order}/notes/{note}", {"fields": choice("id,customer_note", "x")}),
    ListRoute("/orders/{order}/refunds", {**COMMON_PARAMS, **ORDER_RECORD_PARAMS}),
    ListRoute("/orders/{order}/refunds/{refund}", ORDER_RECORD_PARAMS),
    ListRoute("/products/categories", COMMON_PARAMS),
    ListRoute("/products/categories/{category}", {"fields": COMMON_PARAMS["fields"]}),
    ListRoute("/products/tags", COMMON_PARAMS),
    ListRoute("/products/shipping_classes", COMMON_PARAMS),
    ListRoute("/products/attributes", COMMON_PARAMS),
    ListRoute("/products/attributes/{attribute}/terms", COMMON_PARAMS),
)

#: Query values: numbers of every length (5000 digits is more than Python converts), signs,
#: other scripts' digits, impossible dates and offsets, lists with holes, long text, NUL,
#: surrogates (sent as their UTF-8-like bytes) and bytes that are not UTF-8.
HOSTILE_QUERY_VALUES: tuple[str | bytes, ...] = (
    "",
    " ",
    "0",
    "00000",
    "-1",
    "-0",
    "+1",
    "-99999999999999999999",
    "2147483647",
    "2147483648",
    "9223372036854775808",
    "9" * 19,
    "9" * 20,
    "9" * 400,
    "9" * 4300,
    "9" * 4301,
    "9" * HUGE_DIGITS,
    "0" * HUGE_DIGITS + "7",
    "1e309",
    "NaN",
    "Infinity",
    "１２",
    "٣",
    "²",
    "1,,2,",
    ",",
    "1,a",
    "-1,2",
    "9" * 400 + ",1",
    ",".join(["1"] * 2000),
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00+23:59",
    "0000-00-00",
    "2024-02-30",
    "2024-13-01",
    "99999-01-01",
    "2024-01-01T25:00",
    "2024-01-01T10:00:00+99:99",
    "2024-01-01T10:00:00.1234567890123Z",
    "x" * 10_000,
    "\x00",
    "a\x00",
    "\ud800",
    "' OR 1=1 --",
    "id,id,id",
    "a." * 500,
    ".",
    "..",
    "ASC;DROP TABLE products",
    b"\xff",
    b"\xc0\xae",
    b"%",
)

EXTRA_QUERY_KEYS = (
    "filter[",
    "filter[]",
    "filter[[limit]]",
    "filter[limit",
    "FILTER[limit]",
    "_method",
    "_jsonp",
    "consumer_key",
    "consumer_secret",
    "oauth_signature",
    "force",
    "\x00",
    "\ud800",
)


def quote_part(value: str | bytes, safe: str = "") -> str:
    raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return quote(raw, safe=safe)


def query_string(pairs: Sequence[tuple[str, str | bytes]]) -> str:
    return "&".join(f"{quote_part(key, '[]')}={quote_part(value)}" for key, value in pairs)


@st.composite
def list_cases(draw: st.DrawFn) -> tuple[str, str, str]:
    """``(method, path template, query string)`` for a list, count or single GET."""
    route = draw(st.sampled_from(LIST_ROUTES))
    keys = sorted(route.params)
    pairs: list[tuple[str, str | bytes]] = []
    for key in draw(st.lists(st.sampled_from(keys), max_size=3)):
        pairs.append((key, draw(route.params[key])))
    hostile_key = st.one_of(st.sampled_from(keys), st.sampled_from(EXTRA_QUERY_KEYS))
    for key in draw(st.lists(hostile_key, min_size=1, max_size=3)):
        value = draw(st.one_of(st.sampled_from(HOSTILE_QUERY_VALUES), text_with_surrogates))
        pairs.append((key, value))
    method = draw(choice("GET", "GET", "HEAD"))
    return method, route.path, query_string(draw(st.permutations(pairs)))
