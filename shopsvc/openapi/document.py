"""The OpenAPI 3.1 document, built from the routed views (paths, methods, path parameters), the
Colander schemas (write bodies) and the view table (answers, query, error codes)."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from typing import Any

from pyramid.registry import Registry

from shopsvc.openapi import components, params
from shopsvc.openapi.operations import Codes, ViewDoc, by_status, codes, merge
from shopsvc.openapi.partial import answer_item, partial_records
from shopsvc.openapi.records import RECORDS
from shopsvc.openapi.requests import request_schemas
from shopsvc.openapi.routes import RoutedView, path_parameters, routed_views
from shopsvc.openapi.schema import Schema, flat_unions
from shopsvc.openapi.state import STATE_DEPENDENT_FIELDS, state_dependent
from shopsvc.openapi.table import view_docs
from shopsvc.settings import Settings

#: The OpenAPI version of the document.
OPENAPI = "3.1.0"
#: The version of the legacy shop API protocol the service speaks (the index's ``version``),
#: given as ``info.x-protocol-version``; ``info.version`` is the service's own.
PROTOCOL_VERSION = "3.1.0"
ERROR = {"$ref": "#/components/schemas/Errors"}
#: What any authenticated route, any route and any write may answer besides its own codes.
AUTHENTICATED = codes(401, "shop_api_authentication_error")
ANY = merge(
    codes(400, "shop_api_invalid_param"),
    codes(500, "shop_api_internal_error"),
    codes(503, "shop_api_busy"),
)
WRITE = merge(codes(400, "shop_api_invalid_json"), codes(413, "shop_api_request_entity_too_large"))
#: The methods that take an ``Idempotency-Key`` (``shopsvc.web.idempotency``), and its errors.
NON_SAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
IDEMPOTENCY = merge(
    codes(400, "shop_api_invalid_idempotency_key"),
    codes(409, "shop_api_idempotency_key_in_use"),
    codes(422, "shop_api_idempotency_key_mismatch"),
)
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": (
        "1 to 255 visible ASCII characters, unique per request for your consumer key: a repeat "
        "of the same request (method, path, query, body) with the same key within "
        "`shopsvc.idempotency_hours` (24 by default) runs nothing and gets the first success "
        "again, with `Idempotent-Replayed: true`; a failure is not stored (retry with the same "
        "key). Another request with a used key is 422; a repeat while the first still runs "
        "waits for it (409 `shop_api_idempotency_key_in_use` past the lock timeout)."
    ),
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
}
#: The draft-ietf-httpapi-ratelimit-headers-08 fields (docs/client-guide.md, "Rate limits").
RATE_LIMIT_FIELD = {
    "description": "draft-ietf-httpapi-ratelimit-headers-08 (client-guide.md, Rate limits)",
    "schema": {"type": "string"},
}
#: Error answers that many operations share, by name (referenced, not repeated).
SHARED = {
    (413, ("shop_api_request_entity_too_large",)): "RequestTooLarge",
    (500, ("shop_api_internal_error",)): "InternalError",
    (503, ("shop_api_busy",)): "Busy",
    # shopsvc.rate_limit (web/rate_limit.py): any operation, when the limit is set
    (429, ("shop_api_too_many_requests",)): "TooManyRequests",
}
STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted (moved to the trash)",
    400: "Bad request",
    409: "Conflict",
    422: "Unprocessable request",
    401: "Not authenticated or not allowed",
    404: "Not found",
    413: "Request too large",
    429: "Too many requests: retry after Retry-After seconds",
    500: "Internal error",
    503: "Database busy: retry after Retry-After seconds",
}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def reads_fields(doc: ViewDoc, method: str) -> bool:
    """Whether the operation answers records cut by ``fields`` (``web.rendering``: a GET of
    one record or of a list)."""
    return method == "GET" and doc.answer in ("single", "paged", "list")


def _answer(doc: ViewDoc, fields: bool = False) -> Schema:
    """The success body of a view (``fields``: its records may be cut by ``fields``)."""
    record = answer_item(doc.record, RECORDS) if fields else ref(doc.record)
    if doc.answer == "single":
        return _envelope(doc.envelope, record)
    if doc.answer in ("paged", "list"):
        return _envelope(doc.envelope, {"type": "array", "items": record})
    if doc.answer == "bulk":
        item = {"anyOf": [ref(doc.record), ref("BulkError")]}
        return _envelope(doc.envelope, {"type": "array", "items": item})
    if doc.answer == "count":
        return ref("Count")
    if doc.answer == "message":
        return ref("Message")
    return doc.body


def _envelope(key: str, value: Schema) -> Schema:
    return {"type": "object", "properties": {key: value}, "required": [key]}


def _request_body(doc: ViewDoc, bulk_limit: int) -> Schema | None:
    if not doc.request:
        return None
    if doc.answer == "bulk":
        element = {"allOf": [ref(doc.request)], "properties": {"id": {"type": "integer"}}}
        # each element is checked alone: one that does not match is reported in the 200
        # answer (x-element-error-codes), so the request accepts any element
        loose = {"description": "Any other element: reported as that element's error."}
        items = {"anyOf": [element, loose]}
        limit = f"At most {bulk_limit} elements (shopsvc.bulk_limit): more is 413."
        elements = {"type": "array", "items": items, "description": limit}
        body = _envelope(doc.envelope, elements)
    else:
        body = _envelope(doc.envelope, ref(doc.request))
    return {"required": True, "content": {"application/json": {"schema": body}}}


def _error_codes(doc: ViewDoc) -> Codes:
    own = doc.errors
    if doc.answer == "bulk":
        own = codes(400, f"shop_api_missing_{doc.envelope}_data") + codes(
            413, f"shop_api_{doc.envelope}_request_entity_too_large"
        )
    found = merge(() if doc.public else AUTHENTICATED, own, ANY)
    return merge(found, WRITE) if doc.request else found


#: The header of a 201 answer (RFC 9110 §10.2.2).
LOCATION = {
    "description": "The absolute URL of the new record.",
    "schema": {"type": "string", "format": "uri"},
}
#: A path segment that is not what its parameter names (letters for an id) routes nowhere.
UNROUTED = codes(404, "shop_api_no_route")


def _responses(
    doc: ViewDoc,
    settings: Settings,
    idempotent: bool = False,
    fields: bool = False,
    parameters: bool = False,
) -> Schema:
    responses: Schema = {}
    for status in doc.statuses:
        response: Schema = {"description": STATUS_TEXT[status]}
        if doc.answer == "paged" or doc.answer == "list":
            response["headers"] = {
                name: {"$ref": f"#/components/headers/{name}"}
                for name in components.page_headers(settings)
            }
        if status == 201:
            response["headers"] = {"Location": LOCATION}
        if doc.answer == "bulk":
            listed = by_status(doc.errors)
            response["x-element-error-codes"] = [c for found in listed.values() for c in found]
        answer = _answer(doc, fields)
        response["content"] = {kind: {"schema": answer} for kind in doc.content_types}
        responses[str(status)] = response
    found = merge(_error_codes(doc), IDEMPOTENCY) if idempotent else _error_codes(doc)
    if parameters:
        found = merge(found, UNROUTED)
    for status, names in by_status(found).items():
        shared = SHARED.get((status, tuple(names)))
        if shared is not None:
            responses[str(status)] = {"$ref": f"#/components/responses/{shared}"}
        else:
            responses[str(status)] = error_response(status, names, bool(doc.request))
    return responses


def error_response(status: int, names: list[str], writes: bool = False) -> Schema:
    """An error answer: its codes listed, and the error body."""
    response: Schema = {
        "description": f"{STATUS_TEXT[status]}: " + ", ".join(f"`{n}`" for n in names),
        "x-error-codes": names,
    }
    if status in (409, 503):
        response["headers"] = {
            "Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}
        }
    if status == 429:
        response["headers"] = {
            "Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}},
            "RateLimit-Policy": RATE_LIMIT_FIELD,
            "RateLimit": RATE_LIMIT_FIELD,
        }
    response["content"] = {"application/json": {"schema": ERROR}}
    depending = state_dependent(names)
    if depending:
        response["x-state-dependent-codes"] = depending
    if status == 400 and "shop_api_invalid_param" in names and writes:
        response["x-state-dependent-fields"] = list(STATE_DEPENDENT_FIELDS)
    return response


def _tag(routed: RoutedView, doc: ViewDoc) -> str:
    """The view's own tag, else its family: the first segment of its path."""
    return doc.tag or routed.pattern.split("/")[1]


def _tags(routed_views: list[RoutedView], docs: Mapping[str, ViewDoc]) -> list[str]:
    """Every tag once: the index first, the families, the documentation last."""
    found = dict.fromkeys(_tag(routed, docs[routed.name]) for routed in routed_views)
    return sorted(found, key=lambda tag: (tag != "index", tag == "documentation"))


def _summary(routed: RoutedView, method: str) -> str:
    words = routed.name.replace("_", " ")
    summary = words[0].upper() + words[1:]
    return summary if method == routed.primary else f"{summary} ({method})"


def _operation(routed: RoutedView, doc: ViewDoc, method: str, settings: Settings) -> Schema:
    operation: Schema = {
        "operationId": routed.operation_id(method),
        "summary": _summary(routed, method),
        "tags": [_tag(routed, doc)],
    }
    if routed.description:
        operation["description"] = routed.description
    fields = reads_fields(doc, method)
    query = doc.query
    if fields and params.FIELDS not in query:
        query = (params.FIELDS, *query)
    if query:
        operation["parameters"] = [
            {
                "name": param.name,
                "in": "query",
                "required": False,
                "schema": param.schema,
                **({"description": param.description} if param.description else {}),
            }
            for param in query
        ]
    idempotent = method in NON_SAFE and not doc.public
    if idempotent:
        operation.setdefault("parameters", []).append(IDEMPOTENCY_KEY)
    body = _request_body(doc, settings.bulk_limit)
    if body is not None:
        operation["requestBody"] = body
    parameters = "<" in routed.pattern
    operation["responses"] = _responses(doc, settings, idempotent, fields, parameters)
    if doc.public:
        operation["security"] = []
    return operation


def documented_methods(routed: RoutedView) -> tuple[str, ...]:
    """The methods of ``routed`` that the document lists: a HEAD beside a GET is said once, in
    ``info.description`` (it would double every read in Swagger UI)."""
    if "GET" in routed.methods:
        return tuple(method for method in routed.methods if method != "HEAD")
    return routed.methods


def _paths(
    routed_views: list[RoutedView], docs: Mapping[str, ViewDoc], settings: Settings
) -> Schema:
    paths: dict[str, Any] = {}
    for routed in routed_views:
        if routed.name not in docs:
            raise KeyError(f"the view {routed.name} has no entry in the OpenAPI table")
        item = paths.setdefault(routed.path, {})
        parameters = path_parameters(routed.pattern)
        if parameters:
            item["parameters"] = parameters
        for method in documented_methods(routed):
            item[method.lower()] = _operation(routed, docs[routed.name], method, settings)
    return paths


DESCRIPTION = """\
The shop administration API, compatible with the legacy v3 shop API (spec: shop-api.md).

Writes are JSON objects under one envelope key (`{"product": {…}}`); answers wrap the record
the same way. Every error is `{"errors": [{"code", "message"}]}` with the status of its code;
a path or method that is not routed is 404 `shop_api_no_route` (there is no 405); a method
outside HEAD/GET/POST/PUT/PATCH/DELETE is 400 `shop_api_unsupported_method`; `_jsonp` is 400
`shop_api_jsonp_disabled`; `?_method=` and `X-HTTP-Method-Override` override the method.
Every GET operation also answers HEAD (the same status and headers, no body); the HEAD
operations are not listed.
Booleans accept true/false, 1/0, "1"/"0", "true"/"false", "yes"/"no"; integers also digit
strings. Lists carry the pagination headers; bulk routes take up to `shopsvc.bulk_limit`
elements and report each failing element as `{"id", "error": {"code", "message"}}` in the
200 answer. With `shopsvc.rate_limit` set, every response under the API root carries the
`RateLimit-Policy` and `RateLimit` fields, and a caller over its limit gets 429
`shop_api_too_many_requests` with `Retry-After` (`#/components/responses/TooManyRequests`)."""


def _partial_records(routed_views: list[RoutedView], docs: Mapping[str, ViewDoc]) -> set[str]:
    """The records that some operation answers cut by ``fields``."""
    return {
        docs[routed.name].record
        for routed in routed_views
        if any(reads_fields(docs[routed.name], method) for method in routed.methods)
    }


#: What a method that a path does not list answers: decisions.md §1 wants the legacy 404, not
#: the 405 that HTTP (and a generic checker) would expect; HEAD is the exception (every GET).
UNROUTED_METHODS = {
    "status": 404,
    "code": "shop_api_no_route",
    "description": (
        "A method that a path does not list (HEAD aside: every GET also answers HEAD) is 404 "
        "`shop_api_no_route`, without `Allow`, as the legacy API answers; there is no 405. A "
        "method outside HEAD/GET/POST/PUT/PATCH/DELETE (OPTIONS, TRACE, …) is 400 "
        "`shop_api_unsupported_method`."
    ),
}


def service_version() -> str:
    """The version of the installed ``shopsvc`` distribution (setup.py's ``version``)."""
    try:
        return importlib.metadata.version("shopsvc")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree never installed
        return "0+unknown"


def build_document(
    routed_views: list[RoutedView], docs: Mapping[str, ViewDoc], settings: Settings
) -> Schema:
    """The whole document (``servers`` is the API root, relative to where it is served)."""
    return flat_unions(_document(routed_views, docs, settings))


def _document(
    routed_views: list[RoutedView], docs: Mapping[str, ViewDoc], settings: Settings
) -> Schema:
    return {
        "openapi": OPENAPI,
        "info": {
            "title": "shopsvc",
            "version": service_version(),
            "x-protocol-version": PROTOCOL_VERSION,
            "description": DESCRIPTION,
        },
        "servers": [{"url": settings.api_root or "/"}],
        "x-unrouted-methods": UNROUTED_METHODS,
        "security": components.SECURITY,
        "tags": [{"name": name} for name in _tags(routed_views, docs)],
        "paths": _paths(routed_views, docs, settings),
        "components": {
            "schemas": {
                "Errors": components.ERRORS,
                "BulkError": components.BULK_ERROR,
                "Message": components.MESSAGE,
                "Count": components.COUNT,
                "Store": components.STORE,
                **RECORDS,
                **partial_records(_partial_records(routed_views, docs), RECORDS),
                **request_schemas(),
            },
            "responses": {
                name: error_response(status, list(names))
                for (status, names), name in SHARED.items()
            },
            "headers": components.page_headers(settings),
            "securitySchemes": components.security_schemes(),
        },
    }


def cached_document(registry: Registry) -> Any:
    """The document of the application of ``registry``, built once."""
    cached = getattr(registry, "shop_openapi", None)
    if cached is None:
        cached = build_document(routed_views(registry), view_docs(), registry.shop)
        registry.shop_openapi = cached
    return cached
