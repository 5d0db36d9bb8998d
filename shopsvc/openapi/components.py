"""The parts of the document every operation shares: the error body, the security schemes, the
pagination headers, the bulk error item and the index (decisions.md §2)."""

from __future__ import annotations

from shopsvc.openapi.schema import Schema
from shopsvc.settings import Settings

ERRORS: Schema = {
    "type": "object",
    "properties": {
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                "required": ["code", "message"],
            },
        }
    },
    "required": ["errors"],
}
BULK_ERROR: Schema = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "sku": {"type": "string", "description": "Products only: the element's SKU."},
        "error": ERRORS["properties"]["errors"]["items"],
    },
    "required": ["id", "error"],
}
MESSAGE: Schema = {
    "type": "object",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
}
COUNT: Schema = {
    "type": "object",
    "properties": {"count": {"type": "integer"}},
    "required": ["count"],
}
STORE_META = (
    "timezone",
    "currency",
    "currency_format",
    "currency_position",
    "thousand_separator",
    "decimal_separator",
    "price_num_decimals",
    "tax_included",
    "weight_unit",
    "dimension_unit",
    "ssl_enabled",
    "permalinks_enabled",
    "generate_password",
    "links",
)
STORE: Schema = {
    "type": "object",
    "properties": {
        "store": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "description": {"type": "string"},
                "URL": {"type": "string"},
                "shop_version": {"type": "string"},
                "version": {"type": "string"},
                "routes": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "properties": {
                            "supports": {"type": "array", "items": {"type": "string"}},
                            "accepts_data": {"type": "boolean"},
                            "meta": {
                                "type": "object",
                                "properties": {"self": {"type": "string"}},
                            },
                        },
                        "required": ["supports"],
                    },
                },
                "meta": {"type": "object", "required": list(STORE_META)},
            },
            "required": ["name", "description", "URL", "shop_version", "version", "routes", "meta"],
        }
    },
    "required": ["store"],
}

OAUTH_DESCRIPTION = (
    "OAuth 1.0a one-legged signing in the query string, for plain HTTP: send oauth_consumer_key, "
    "oauth_timestamp (within 15 minutes), oauth_nonce (once per key), oauth_signature_method "
    "(HMAC-SHA1 or HMAC-SHA256) and oauth_signature, the HMAC with the key `consumer_secret&` "
    "of the base string METHOD&url(base URI)&url(sorted parameters); the base URI is the "
    "public URL and the path. Repeated parameters: the last value wins."
)


def security_schemes() -> Schema:
    """Basic over HTTPS, the query keys over HTTPS, OAuth 1.0a query signing over HTTP."""
    return {
        "basicAuth": {
            "type": "http",
            "scheme": "basic",
            "description": "Over HTTPS: the consumer key as user name, the secret as password "
            "(on plain HTTP only with shopsvc.auth.allow_basic_over_http).",
        },
        "consumerKey": {
            "type": "apiKey",
            "in": "query",
            "name": "consumer_key",
            "description": "Over HTTPS, with consumer_secret: the key (ck_…).",
        },
        "consumerSecret": {
            "type": "apiKey",
            "in": "query",
            "name": "consumer_secret",
            "description": "Over HTTPS, with consumer_key: the secret (cs_…).",
        },
        "oauth1": {
            "type": "apiKey",
            "in": "query",
            "name": "oauth_signature",
            "description": OAUTH_DESCRIPTION,
        },
    }


SECURITY = [{"basicAuth": []}, {"consumerKey": [], "consumerSecret": []}, {"oauth1": []}]


def page_headers(settings: Settings) -> Schema:
    """The pagination headers of every list, named with the configured prefix."""
    integer = {"type": "integer"}
    return {
        settings.header("Total"): {
            "description": "How many records match (every page).",
            "schema": integer,
        },
        settings.header("TotalPages"): {
            "description": "How many pages there are (0 when nothing matches).",
            "schema": integer,
        },
        "Link": {
            "description": 'Absolute URLs of the first, prev, next and last pages (rel="…"), '
            "one header line each; absent when there is one page or none.",
            "schema": {"type": "string"},
        },
    }
