"""The write side of products: ``POST /products``, ``PUT|POST|PATCH /products/<id>`` and
``POST|PUT|PATCH /products/bulk``.

Checks run in the spec's order. Create: envelope, capability (``publish_products``), ``title``
present, ``type``, then the fields; edit: envelope, then the shared record validation (id,
existence, capability), ``type``, then the fields. Images a write would download are fetched
before any of that, outside the transaction (only for a caller who may write products).

One write path: a single create or edit, and each element of a bulk that cannot run set-based,
is planned and written as a batch of one by ``shopsvc.writers.product_batch`` — every check
first, with reads only, then each table written once — so a request that fails writes nothing
(no product, no variation, no attribute term, no media row; ``shopsvc.media`` gives its image
copies back). A bulk plans all its elements together when they allow it (``web.bulk``).

Every write answers with exactly what ``GET /products/<id>`` returns
(``shopsvc.records.products.product_record``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import sqlalchemy as sa
from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.errors import ApiError
from shopsvc.loaders.products import PRODUCTS
from shopsvc.media.images import prefetch_images
from shopsvc.records.products import product_record, product_records
from shopsvc.sql import product_lookups as product_lookups_sql
from shopsvc.validation import products as validation
from shopsvc.validation.types import parse_int, require_object
from shopsvc.web import rendering
from shopsvc.web.bulk import run_bulk
from shopsvc.web.resources import Product, Products, ProductsBulk
from shopsvc.writers import fields
from shopsvc.writers.images import IMAGE_ERROR
from shopsvc.writers.product_batch import ProductBatch, TermTaken

EDIT = {"request_method": ("POST", "PUT", "PATCH")}
#: How many times a write is planned when concurrent requests create its attribute terms first.
TERM_ATTEMPTS = 3
#: The unique index of the live SKUs (``sql.tables``): the database's word on a SKU race.
SKU_INDEX = "uq_products_sku"


def _create(request: Request, data: Any) -> int:
    """The body an object, then the planner's checks (``title`` present, ``type``, the fields)
    and the write (capability already checked); the new id."""
    return _write(request, require_object(data, "product"), None)


def _edit(request: Request, product_id: int, data: Any) -> None:
    """The shared record validation, the body an object, then the planner's checks (``type``,
    not for a variation; the fields) and the write."""
    if product_id <= 0 or not isinstance(data, dict):
        PRODUCTS.load(request, product_id, "edit")
        require_object(data, "product")
    _write(request, data, product_id)


def _write(request: Request, data: dict[str, Any], product_id: int | None) -> int:
    """The create (``product_id`` None) or edit of ``data``, planned and written as a batch of
    one (``shopsvc.writers.product_batch``: every check, then each table written once); its id.

    When a concurrent request created one of the attribute terms the write creates, nothing is
    written yet: the write is planned again (and finds that term), with the images it took."""
    context = request.write_context
    reserved: dict[tuple[str, int], dict[str, Any]] = {}

    def reserve(url: str, error_code: str) -> dict[str, Any]:
        taken[url] += 1
        key = (url, taken[url])
        if key not in reserved:
            reserved[key] = context.reserve(url, error_code)
        return dict(reserved[key])

    for _ in range(TERM_ATTEMPTS):
        taken: Counter[str] = Counter()
        attempt = dataclasses.replace(context, reserve=reserve)
        batch = ProductBatch(
            request,
            lambda bound=attempt: bound,  # type: ignore[misc]
            lambda ids: product_records(request.record_context, ids),
            {},
            target=lambda element: (product_id or 0, ""),
        )
        batch.prepare([data])
        plan = batch.plan(data)
        try:
            (written,) = batch.write([plan])
        except TermTaken:
            continue
        except sa.exc.IntegrityError as exc:
            # a concurrent request took the SKU between the check and the write
            if SKU_INDEX in str(exc.orig):
                raise fields.sku_exists() from None
            raise
        return written
    raise ApiError(  # pragma: no cover - lost races in a row
        "shop_api_cannot_create_product", "Could not create the attribute terms.", 400
    )


# --- images fetched before the transaction


def _download_sources(data: Any) -> list[str]:
    """The ``src`` of every image element of a product envelope (and of its variations) that a
    write would download: one with a ``src`` and no ``id``. Anything malformed is left for the
    validation to report."""
    if not isinstance(data, dict):
        return []
    elements: list[Any] = []
    if isinstance(data.get("images"), list):
        elements += data["images"]
    variations = data.get("variations")
    for variation in variations if isinstance(variations, list) else ():
        if isinstance(variation, dict) and isinstance(variation.get("image"), list):
            elements += variation["image"][:1]
    return [
        item["src"].strip()
        for item in elements
        if isinstance(item, dict)
        and isinstance(item.get("src"), str)
        and item["src"].strip()
        and parse_int(item.get("id") or 0) in (0, None)
    ]


def _prefetch(request: Request, elements: list[Any], capability: str | tuple[str, ...]) -> None:
    """Download the images of ``elements`` before the transaction begins (only for a caller who
    may write products: nobody else gets the service to fetch a URL)."""
    wanted = (capability,) if isinstance(capability, str) else capability
    if any(request.has_permission(name) for name in wanted):
        sources = [src for element in elements for src in _download_sources(element)]
        prefetch_images(request, sources, IMAGE_ERROR)


# --- the routes


def _respond(request: Request, product_id: int, status: int = 200) -> Response:
    return rendering.single(
        request, "product", product_record(request.record_context, product_id), status
    )


@view_config(context=Products, request_method="POST")
def create_product(context: Products, request: Request) -> Response:
    data = request.envelope(
        "product", "shop_api_missing_product_data", "No product data specified to create product."
    )
    PRODUCTS.require(request, "create")
    _prefetch(request, [data], "publish_products")
    return _respond(request, _create(request, data), 201)


@view_config(context=Product, **EDIT)
def edit_product(context: Product, request: Request) -> Response:
    data = request.envelope(
        "product", "shop_api_missing_product_data", "No product data specified to edit product."
    )
    _prefetch(request, [data], "edit_products")
    _edit(request, context.id, data)
    return _respond(request, context.id)


@view_config(context=ProductsBulk, **EDIT)
def bulk_products(context: ProductsBulk, request: Request) -> Response:
    """Each element: a non-zero ``id`` edits that product or variation; else a non-empty
    ``sku`` of a product or variation not in the trash edits it; else the element creates.
    Set-based (``shopsvc.writers.product_batch``) when the elements allow it."""
    targets: dict[int, tuple[int, str]] = {}

    def handle(element: dict[str, Any]) -> dict[str, Any]:
        return _bulk_element(request, element, targets)

    def on_error(element: Any, error: ApiError) -> dict[str, Any]:
        product_id, sku = targets.get(id(element), (0, ""))
        return {"id": product_id, "sku": sku, "error": error.as_item()}

    def prefetch(elements: list[Any]) -> None:
        _prefetch(request, elements, ("publish_products", "edit_products"))

    return run_bulk(
        request,
        "products",
        handle,
        on_error=on_error,
        before=prefetch,
        batch=_batch(request, targets),
    )


def _batch(request: Request, targets: dict[int, tuple[int, str]]) -> ProductBatch | None:
    """The set-based writer of a bulk (tests replace this to run each element as its own batch
    of one)."""
    return ProductBatch(
        request,
        lambda: request.write_context,
        lambda ids: product_records(request.record_context, ids),
        targets,
    )


def _bulk_element(
    request: Request, element: dict[str, Any], targets: dict[int, tuple[int, str]]
) -> dict[str, Any]:
    """One element, with the checks of a single create or edit; ``targets`` records the id and
    SKU its error item names."""
    product_id, sku = validation.bulk_target(element)
    if sku:
        product_id = product_lookups_sql.get_sku_owner(request.db, sku) or 0
    targets[id(element)] = (max(product_id, 0), sku)
    if product_id:
        _edit(request, product_id, element)
    else:
        PRODUCTS.require(request, "create")
        product_id = _create(request, element)
    return product_record(request.record_context, product_id)
