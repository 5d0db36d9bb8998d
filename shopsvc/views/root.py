"""The API index: ``GET {api_root}`` and ``{api_root}/``, served without authentication."""

from __future__ import annotations

from typing import Any

from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.domain.pricing import currency_symbol
from shopsvc.web.resources import ApiRoot, Resource

API_VERSION = "3.1.0"
SHOP_VERSION = "0.1.0"
METHOD_ORDER = ("HEAD", "GET", "POST", "PUT", "PATCH", "DELETE")


def _route_table(registry: Registry) -> dict[str, list[str]]:
    """Every routed pattern with the methods it supports, read from the registered views, so the
    index lists exactly what is routed."""
    cached = getattr(registry, "shop_route_table", None)
    if cached is not None:
        return cached
    methods: dict[str, set[str]] = {}
    for view in registry.introspector.get_category("views"):
        context = view["introspectable"]["context"]
        if not (isinstance(context, type) and issubclass(context, Resource) and context.pattern):
            continue
        if not context.listed:  # the documentation page: the OpenAPI document links to it
            continue
        declared = view["introspectable"]["request_methods"] or METHOD_ORDER
        if isinstance(declared, str):
            declared = (declared,)
        methods.setdefault(context.pattern, set()).update(declared)
    ordered = sorted(methods, key=lambda pattern: (pattern != "/", pattern))
    table = {pattern: [m for m in METHOD_ORDER if m in methods[pattern]] for pattern in ordered}
    registry.shop_route_table = table
    return table


def _routes(request: Request) -> dict[str, Any]:
    prefix = request.public_url + request.shop.api_root
    routes: dict[str, Any] = {}
    for pattern, supports in _route_table(request.registry).items():
        entry: dict[str, Any] = {"supports": supports}
        if any(method in supports for method in ("POST", "PUT", "PATCH")):
            entry["accepts_data"] = True
        if "<" not in pattern:
            entry["meta"] = {"self": prefix + ("/" if pattern == "/" else pattern)}
        routes[pattern] = entry
    return routes


@view_config(context=ApiRoot, request_method=("GET", "HEAD"))
def index(request: Request) -> Response:
    shop = request.shop
    public_url = request.public_url
    store = {
        "name": shop.store_name,
        "description": shop.store_description,
        "URL": public_url,
        "shop_version": SHOP_VERSION,
        "version": API_VERSION,
        "routes": _routes(request),
        "meta": {
            "timezone": shop.timezone,
            "currency": shop.currency,
            "currency_format": currency_symbol(shop.currency),
            "currency_position": shop.currency_position,
            "thousand_separator": shop.thousand_separator,
            "decimal_separator": shop.decimal_separator,
            "price_num_decimals": shop.price_decimals,
            "tax_included": shop.prices_include_tax,
            "weight_unit": shop.weight_unit,
            "dimension_unit": shop.dimension_unit,
            "ssl_enabled": public_url.startswith("https://"),
            "permalinks_enabled": True,
            "generate_password": False,
            "links": {"help": shop.extra.get("shopsvc.help_url", public_url + "/")},
        },
    }
    return request.render_json({"store": store})
