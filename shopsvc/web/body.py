"""The JSON request body: size limit, decoding (the charset, depth and huge numbers refused as
``shop_api_invalid_json``) and the envelope of a write (``request.envelope``)."""

from __future__ import annotations

import json
from typing import Any

from pyramid.request import Request

from shopsvc.errors import ApiError


def _envelope(request: Request, key: str, code: str, message: str) -> Any:
    """The value under the envelope ``key`` of the JSON body.

    Unparseable JSON → 400 ``shop_api_invalid_json``; an empty body, a body that is not an object,
    an absent key or a null envelope → the route's own missing-data error.
    """
    body = request.json_object
    value = body.get(key) if isinstance(body, dict) else None
    if value is None:
        raise ApiError(code, message, 400)
    return value


#: JSON integers longer than this are read as ±10**HUGE_DIGITS: far beyond every integer column,
#: so the field's own range check names it, and never the thousands of digits that Python will
#: not convert (nor the quadratic cost of converting them).
HUGE_DIGITS = 400


def _parse_int(text: str) -> int:
    if len(text) <= HUGE_DIGITS:
        return int(text)
    return -(10**HUGE_DIGITS) if text.startswith("-") else 10**HUGE_DIGITS


def _refuse_constant(name: str) -> Any:
    # Python's parser accepts NaN and ±Infinity; JSON (RFC 8259) has no such values.
    raise ValueError(f"{name} is not valid JSON")


#: How deeply a JSON body may nest objects and arrays (a product with variations and their
#: attributes needs six levels); deeper bodies are refused before anything walks them.
MAX_JSON_DEPTH = 64


def _check_json_value(body: Any) -> None:
    """Refuse a decoded body that nests deeper than ``MAX_JSON_DEPTH`` or holds text that is not
    Unicode (``"\\ud800"``, which can be neither stored nor sent back). Iterative, so no body can
    exhaust the interpreter's stack."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ApiError(
                    "shop_api_invalid_json", "Invalid JSON body: unpaired surrogate.", 400
                ) from None
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > MAX_JSON_DEPTH:
            raise ApiError(
                "shop_api_invalid_json",
                f"Invalid JSON body: nested deeper than {MAX_JSON_DEPTH} levels.",
                400,
            )
        if isinstance(value, dict):
            for key, item in value.items():
                stack.append((key, depth))
                stack.append((item, depth + 1))
        else:
            stack.extend((item, depth + 1) for item in value)


def too_large(limit: int) -> ApiError:
    return ApiError(
        "shop_api_request_entity_too_large",
        f"The request body is larger than {limit} bytes.",
        413,
    )


def _read_body(request: Request) -> bytes:
    """The body, read up to ``max_body_bytes`` (a declared length above it was refused by the
    protocol tween; a body without a declared length is read no further than one byte past it)."""
    limit = request.shop.max_body_bytes
    if request.content_length is not None:
        return request.body
    if not request.is_body_readable:
        return b""
    raw = request.body_file_raw.read(limit + 1)
    if len(raw) > limit:
        raise too_large(limit)
    return raw


def _json_object(request: Request) -> Any:
    raw = _read_body(request)
    if not raw or not raw.strip():
        return None
    try:
        text = raw.decode(request.charset or "utf-8")
        body = json.loads(text, parse_constant=_refuse_constant, parse_int=_parse_int)
    except UnicodeDecodeError as exc:
        raise ApiError("shop_api_invalid_json", f"Invalid JSON body: {exc.reason}.", 400) from None
    except LookupError:  # an unknown charset in the Content-Type
        raise ApiError(
            "shop_api_invalid_json", f"Invalid JSON body: unknown charset {request.charset}.", 400
        ) from None
    except RecursionError:
        raise ApiError(
            "shop_api_invalid_json", "Invalid JSON body: nested too deeply.", 400
        ) from None
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise ApiError("shop_api_invalid_json", f"Invalid JSON body: {exc}.", 400) from None
    _check_json_value(body)
    return body
