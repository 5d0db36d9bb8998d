"""The write side of products: ``POST /products``, ``PUT|POST|PATCH /products/<id>`` and
``POST|PUT|PATCH /products/bulk``.

Checks run in the spec's order. Create: envelope, capability (``publish_products``), ``title``
present, ``type``, then the fields; edit: envelope, then the shared record validation (id,
existence, capability), ``type``, then the fields. Images a write would download are fetched
before any of that, outside the transaction (only for a caller who may write products). The
writes themselves are ``shopsvc.writers``. Everything a request writes is one transaction (a bulk
element one savepoint), so a create that fails after its row exists leaves nothing behind: no
product, no variation, no attribute term, and (``shopsvc.media``) no stored image file.

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

from shopsvc.errors import ApiError, Sequential
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
from shopsvc.writers import products as writer
from shopsvc.writers.images import IMAGE_ERROR
from shopsvc.writers.product_batch import ProductBatch, TermTaken
from shopsvc.writers.variations import edit_variation

EDIT = {"request_method": ("POST", "PUT", "PATCH")}
#: How many times a write is planned when concurrent requests create its attribute terms first.
TERM_ATTEMPTS = 3
#: The unique index of the live SKUs (``sql.tables``): the database's word on a SKU race.
SKU_INDEX = "uq_products_sku"


def _create(request: Request, data: Any) -> int:
    """``title`` present, ``type``, the fields, then the write (capability already checked)."""
    planned = _planned(request, data, None)
    if planned is not None:
        return planned
    data = require_object(data, "product")
    if data.get("title") is None:
        raise validation.missing_title()
    kind = validation.product_type("simple" if data.get("type") is None else data["type"])
    return writer.create_product(request.write_context, kind, validation.clean_product(data))


def _edit(request: Request, product_id: int, data: Any) -> None:
    """The shared record validation, ``type`` (not for a variation), the fields, the write."""
    if _planned(request, data, product_id) is not None:
        return
    row = PRODUCTS.load(request, product_id, "edit")
    data = require_object(data, "product")
    if row["type"] == "variation":
        edit_variation(
            request.write_context, product_id, validation.clean_variation(data, "product")
        )
        return
    kind = None if data.get("type") is None else validation.product_type(data["type"])
    writer.edit_product(request.write_context, product_id, kind, validation.clean_product(data))


def _planned(request: Request, data: Any, product_id: int | None) -> int | None:
    """The create (``product_id`` None) or edit of ``data`` planned and written as a batch of one
    (``shopsvc.writers.product_batch``: every check, then each table written once); its id. None
    when the planner leaves the shape to the one-by-one writers (nothing is written then).

    When a concurrent request created one of the attribute terms the write creates, nothing is
    written yet: the write is planned again (and finds that term), with the images it took."""
    if not isinstance(data, dict) or (product_id is not None and product_id <= 0):
        return None
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
        try:
            batch.prepare([data])
            plan = batch.plan(data)
            try:
                (written,) = batch.write([plan])
            except sa.exc.IntegrityError as exc:
                # a concurrent request took the SKU between the check and the write
                if SKU_INDEX in str(exc.orig):
                    raise fields.sku_exists() from None
                raise
        except TermTaken:
            continue
        except Sequential:
            return None
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
    """The set-based writer of a bulk (tests replace this to force the one-by-one path)."""
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
