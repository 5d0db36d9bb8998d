"""The read side of products: ``GET /products``, ``GET /products/count``, ``GET`` and ``DELETE
/products/<id>``, ``GET /products/<id>/reviews`` and ``GET /products/<id>/orders``.

Single-record routes run the shared record validation first (id 0, existence, capability:
``shopsvc.loaders.products.PRODUCTS``). Lists show published products only unless
``filter[post_status]`` says otherwise; records the caller may not read are left out of the body
but still counted in the headers (reference §4). The records themselves come from
``shopsvc.records.products`` (a fixed number of statements per page); a delete is
``shopsvc.writers.products.delete_product``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.domain import catalog
from shopsvc.loaders.products import PRODUCTS
from shopsvc.media.removal import product_images_removed
from shopsvc.records.products import product_record, product_records
from shopsvc.sql import product_data as product_data_sql
from shopsvc.sql import products as products_sql
from shopsvc.sql import reviews as reviews_sql
from shopsvc.sql.products import ProductFilters
from shopsvc.validation.types import parse_loose_bool
from shopsvc.views import READ
from shopsvc.views import orders as order_views
from shopsvc.web import rendering
from shopsvc.web.listing import PRODUCT_ORDERBY, parse_list_params
from shopsvc.web.resources import Product, ProductOrders, ProductReviews, Products, ProductsCount
from shopsvc.writers import products as writer

READ_CAPABILITY = "read_private_products"


def _comma_list(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _slug_list(value: str | None) -> tuple[str, ...]:
    """A comma list of slugs, each sanitised as a slug before it is compared (as WordPress'
    taxonomy query does): ``shirts?`` — what the legacy Python client sends for
    ``get("products?filter[category]=shirts")`` — is ``shirts``. A value with nothing left is
    kept as given (it matches no slug)."""
    return tuple(catalog.slugify_name(part) or part for part in _comma_list(value))


def product_filters(query: Mapping[str, str], filters: Mapping[str, str]) -> ProductFilters:
    """The product filters of a list or count request (reference §4): ``filter[post_status]``
    (a status, a comma list, or ``any`` = all but trash; default ``publish``), ``type`` (top
    level, else ``filter[type]``), ``filter[category]``, ``filter[tag]``,
    ``filter[shipping_class]`` and ``filter[pa_<attribute>]`` (slugs, comma = OR; sanitised
    as slugs), ``filter[sku]`` (exact)."""
    statuses: tuple[str, ...] | None = tuple(
        status.lower() for status in _comma_list(filters.get("post_status"))
    ) or ("publish",)
    if "any" in statuses:
        statuses = None
    types = _slug_list(query.get("type")) or _slug_list(filters.get("type"))
    attributes = tuple(
        (key[3:], _slug_list(value))
        for key, value in sorted(filters.items())
        if key.lower().startswith("pa_") and len(key) > 3 and _comma_list(value)
    )
    sku = (filters.get("sku") or "").strip()
    return ProductFilters(
        statuses=statuses,
        types=types,
        categories=_slug_list(filters.get("category")),
        tags=_slug_list(filters.get("tag")),
        shipping_classes=_slug_list(filters.get("shipping_class")),
        attributes=attributes,
        sku=sku or None,
    )


def _with_meta(request: Request, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``filter[meta]=true`` adds ``product_meta`` (the unprotected meta of the product) to each
    record: always ``{}``, as products carry no free-form meta here."""
    if request.filters.get("meta") == "true":
        return [{**record, "product_meta": {}} for record in records]
    return records


@view_config(context=Products, **READ)
def list_products(context: Products, request: Request) -> Response:
    params = parse_list_params(request.query, request.filters, request.shop, PRODUCT_ORDERBY)
    filters = product_filters(request.query, request.filters)
    ids, total = products_sql.page_product_ids(request.db, params, filters)
    readable = request.has_permission(READ_CAPABILITY)
    records = (
        _with_meta(request, product_records(request.record_context, ids))
        if readable and ids
        else []
    )
    return rendering.listing(request, "products", records, total, params.page, params.limit)


@view_config(context=ProductsCount, **READ)
def count_products(context: ProductsCount, request: Request) -> Response:
    PRODUCTS.require(request, "count")
    params = parse_list_params(request.query, request.filters, request.shop, PRODUCT_ORDERBY)
    filters = product_filters(request.query, request.filters)
    return rendering.count(request, products_sql.count_products(request.db, params, filters))


@view_config(context=Product, **READ)
def get_product(context: Product, request: Request) -> Response:
    # The loader judges the product from the rows its record is built from: one statement.
    rows: list[dict[str, Any]] = []

    def fetch(conn: Any, product_id: int) -> dict[str, Any] | None:
        rows[:] = product_data_sql.load_product_rows(conn, [product_id])
        return product_data_sql.kind_of(rows, product_id)

    PRODUCTS.load(request, context.id, "read", fetch=fetch)
    record = product_record(request.record_context, context.id, rows=rows)
    (record,) = _with_meta(request, [record])
    return rendering.single(request, "product", record)


@view_config(context=Product, request_method="DELETE")
def delete_product(context: Product, request: Request) -> Response:
    """``force`` with a §2 true spelling deletes for good (200); anything else trashes (202),
    and a product already in the trash stays as it is. Deleted for good with an object store for
    media, the images only it used go too (their objects once the delete has committed)."""
    row = PRODUCTS.load(request, context.id, "delete")
    force = parse_loose_bool(request.query.get("force", "")) is True
    with product_images_removed(request, context.id, force):
        writer.delete_product(request.write_context, row, force=force)
    if force:
        return rendering.message(request, "Permanently deleted product")
    return rendering.message(request, "Deleted product", status=202)


def review_record(row: dict[str, Any]) -> dict[str, Any]:
    rating = row["rating"]
    return {
        "id": row["id"],
        "created_at": rendering.format_timestamp(row["created_at"]),
        "review": row["review"],
        "rating": "" if rating is None else str(rating),
        "reviewer_name": row["reviewer_name"],
        "reviewer_email": row["reviewer_email"],
        "verified": bool(row["verified"]),
    }


@view_config(context=ProductReviews, **READ)
def list_reviews(context: ProductReviews, request: Request) -> Response:
    product = context.find(Product)
    assert isinstance(product, Product)
    PRODUCTS.load(request, product.id, "read")
    records = [review_record(row) for row in reviews_sql.approved(request.db, product.id)]
    return rendering.listing(request, "product_reviews", records, len(records))


@view_config(context=ProductOrders, **READ)
def list_product_orders(context: ProductOrders, request: Request) -> Response:
    """The orders with a line of the product or variation (decisions.md §7 "Line items"),
    validated like a product read: the order list with the request's parameters and its paging
    headers (decisions.md §2: every list has them), a client ``filter[in]`` replaced by those
    orders (selected in SQL, however many there are)."""
    product = context.find(Product)
    assert isinstance(product, Product)
    PRODUCTS.load(request, product.id, "read")
    params = replace(order_views.list_params(request), ids_in=None)
    filters = replace(
        order_views.order_filters(request.query, request.filters), product_id=product.id
    )
    return order_views.render_list(request, params, filters)
