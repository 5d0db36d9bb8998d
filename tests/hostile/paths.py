"""Odd paths and methods: every route pattern, the segments spliced into them, and
:func:`path_cases`, one odd spelling of a route with any method, maybe overridden."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import strategies as st

from tests.hostile.bodies import HUGE_DIGITS, RAW_BODIES, body_bytes
from tests.hostile.queries import quote_part
from tests.hostile.values import choice, hostile_values

ROUTE_PATTERNS = (
    "",
    "/",
    "/webhooks",
    "/webhooks/count",
    "/webhooks/{webhook}",
    "/webhooks/{webhook}/deliveries",
    "/webhooks/{webhook}/deliveries/1",
    "/taxes",
    "/taxes/count",
    "/taxes/bulk",
    "/taxes/{tax}",
    "/taxes/classes",
    "/taxes/classes/count",
    "/taxes/classes/reduced-rate",
    "/products",
    "/products/count",
    "/products/bulk",
    "/products/{product}",
    "/products/{variation}",
    "/products/{product}/reviews",
    "/products/{product}/orders",
    "/products/categories",
    "/products/categories/{category}",
    "/products/tags/{tag}",
    "/products/shipping_classes/{shipping_class}",
    "/products/attributes",
    "/products/attributes/{attribute}",
    "/products/attributes/{attribute}/terms",
    "/products/attributes/{attribute}/terms/{term}",
    "/orders",
    "/orders/count",
    "/orders/statuses",
    "/orders/bulk",
    "/orders/{order}",
    "/orders/{order}/notes",
    "/orders/{order}/notes/{note}",
    "/orders/{order}/refunds",
    "/orders/{order}/refunds/{refund}",
)

ODD_SEGMENTS = (
    "0",
    "00",
    "-1",
    "+1",
    "1.0",
    "1e3",
    "12abc",
    "abc",
    "2147483648",
    "99999999999999999999999",
    "9" * 400,
    "9" * HUGE_DIGITS,
    "０",
    "١",
    "%31",
    "%00",
    "%ff",
    "%C0%AE",
    "%2e%2e",
    "%2F",
    "%20",
    "..",
    ".",
    "",
    "a%2Fb",
    "%E2%80%AE",
    "COUNT",
    "Bulk",
    "x" * 3000,
)

METHODS = (
    "GET",
    "HEAD",
    "POST",
    "PUT",
    "PATCH",
    "DELETE",
    "OPTIONS",
    "TRACE",
    "PROPFIND",
    "get",
    "Delete",
    "FOO",
)


@dataclass(frozen=True)
class PathCase:
    method: str
    path: str  # a template, like Case.path; may hold ``//``, ``..`` and %-escapes
    query: str
    headers: tuple[tuple[str, str], ...]
    body: bytes


def _splice(path: str, segment: str, where: int) -> str:
    parts = path.split("/")
    if len(parts) <= 1:
        return path + "/" + segment
    index = 1 + where % (len(parts) - 1)
    return "/".join([*parts[:index], segment, *parts[index + 1 :]])


@st.composite
def path_cases(draw: st.DrawFn) -> PathCase:
    """A route with one segment replaced or inserted, an odd spelling of the path (``//``,
    ``/./``, ``/../``, a trailing slash, upper case) and any method, maybe overridden."""
    path = draw(st.sampled_from(ROUTE_PATTERNS))
    mutation = draw(choice("replace", "insert", "append", "double-slash", "dots", "upper", "none"))
    segment = draw(st.sampled_from(ODD_SEGMENTS))
    where = draw(st.integers(0, 6))
    if mutation == "replace":
        path = _splice(path, segment, where)
    elif mutation == "insert":
        parts = path.split("/")
        index = 1 + where % len(parts)
        path = "/".join([*parts[:index], segment, *parts[index:]])
    elif mutation == "append":
        path = f"{path}/{segment}"
    elif mutation == "double-slash":
        path = path.replace("/", "//", 1 + where % 2) if path else "//"
    elif mutation == "dots":
        path = draw(
            choice(f"/..{path}", f"/.{path}", f"{path}/..", f"/products/..{path}", f"{path}/./")
        )
    elif mutation == "upper":  # the {placeholders} stay as they are
        path = re.sub(r"[^{}]+(?=\{|$)", lambda match: match.group(0).upper(), path)
    method = draw(st.sampled_from(METHODS))
    query = ""
    headers: tuple[tuple[str, str], ...] = ()
    override = draw(st.sampled_from([None, None, *METHODS]))
    if override is not None:
        if draw(st.booleans()):
            query = f"_method={quote_part(override)}"
        else:
            headers = (("X-HTTP-Method-Override", override),)
    body = draw(
        st.one_of(
            st.just(b""),
            st.sampled_from(RAW_BODIES),
            hostile_values.map(lambda value: body_bytes({"product": value})),
        )
    )
    return PathCase(method, path, query, headers, body)
