"""Schemathesis hooks for runs against this API
(``SCHEMATHESIS_HOOKS=tests.openapi.schemathesis_hooks``; docs/openapi.md, "Checking the
document with schemathesis"). They teach the checker what the
document says in its own words, which JSON Schema cannot say:

- An ``Idempotency-Key`` is unique per request (a key used again with another request is 422
  ``shop_api_idempotency_key_mismatch``): a well-formed key that Hypothesis drew is replaced
  with a fresh one, so a repeated draw is not taken for a repeated request. A malformed key is
  sent as drawn (the check that it is refused stays).
- ``positive_data_acceptance_or_state``: the built-in ``positive_data_acceptance``, except for a
  400 whose code the operation's response lists in ``x-state-dependent-codes``, or a
  ``shop_api_invalid_param`` naming a field of ``x-state-dependent-fields`` (a duplicate SKU, a
  customer id that names no customer, an image URL that cannot be downloaded: the store's state
  or the outside world, not the request's shape; ``shopsvc/openapi/state.py``), or one naming a
  credential of the query (``consumer_key``, ``consumer_secret``, ``oauth_*``: drawn for the
  ``apiKey`` schemes, which have no schema). Run with
  ``--exclude-checks positive_data_acceptance``.
- ``use_after_free_but_trash``: the built-in ``use_after_free``, except after a DELETE that
  answered 202 (a product or an order moved to the trash, where the spec keeps it readable).
  Run with ``--exclude-checks use_after_free``.
"""

from __future__ import annotations

import itertools
import re
import uuid
from typing import Any

import schemathesis
from jsonschema import Draft202012Validator
from schemathesis.openapi.checks import RejectedPositiveData, UseAfterFree
from schemathesis.specs.openapi import checks as builtin

WELL_FORMED_KEY = re.compile(r"[!-~]{1,255}")
#: The field an ``shop_api_invalid_param`` names, without its envelope and with ``[n]`` as
#: ``[]``: ``product.variations[2].images[0].id`` → ``images[].id``.
INVALID_PARAM = re.compile(r"Invalid parameter ([^:]+):")
#: The checks these replace (pass them to ``--exclude-checks``).
REPLACED = ("positive_data_acceptance", "use_after_free")


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    headers = case.headers
    if not headers:
        return
    for name in list(headers):
        value = headers[name]
        if name.lower() == "idempotency-key" and isinstance(value, str):
            headers[name] = uuid.uuid4().hex if WELL_FORMED_KEY.fullmatch(value) else value


def _declared(case: Any, status: int) -> dict[str, Any]:
    responses = case.operation.definition.raw.get("responses", {})
    found = responses.get(str(status), {})
    return found if isinstance(found, dict) else {}


def _field(message: str) -> set[str]:
    """The names an ``shop_api_invalid_param`` message may match: each segment of its field
    (``tax_class``, ``variations[]``) and each two in a row (``images[].id``), indices as
    ``[]``."""
    match = INVALID_PARAM.match(message)
    if match is None:
        return set()
    parts = re.sub(r"\[\d+\]", "[]", match.group(1)).split(".")
    return {*parts, *(".".join(pair) for pair in itertools.pairwise(parts))}


#: Credentials the run did not give: schemathesis draws the query keys of the document's
#: ``apiKey`` schemes, which have no schema (a NUL in one is a 400 before authentication).
CREDENTIALS = {"consumer_key", "consumer_secret"}


def _depends_on_state(case: Any, response: Any) -> bool:
    """Whether the error answered is one the document says depends on the store's state."""
    declared = _declared(case, response.status_code)
    try:
        errors = response.json()["errors"]
    except (ValueError, KeyError, TypeError):
        return False
    for error in errors:
        code = error.get("code")
        if code in declared.get("x-state-dependent-codes", ()):
            continue
        named = _field(error.get("message", ""))
        if code == "shop_api_invalid_param" and named & {
            *declared.get("x-state-dependent-fields", ()),
            *CREDENTIALS,
        }:
            continue
        if code == "shop_api_invalid_param" and any(n.startswith("oauth_") for n in named):
            continue
        return False
    return bool(errors)


def _path_is_valid(case: Any) -> bool:
    """Whether the path parameters sent are valid by the document: the stateful phase may fill
    one from a link with a value of another kind (``/products/bulk`` as ``/products/{id}``),
    which makes no positive request."""
    item = case.operation.schema.raw_schema["paths"].get(case.operation.path, {})
    for parameter in item.get("parameters", []):
        value = (case.path_parameters or {}).get(parameter["name"])
        schema = parameter.get("schema", {})
        if isinstance(value, str) and schema.get("type") == "integer":
            if not value.isascii() or not value.isdigit():
                return False
            value = int(value)
        if value is not None and not Draft202012Validator(schema).is_valid(value):
            return False
    return True


@schemathesis.check
def positive_data_acceptance_or_state(ctx: Any, response: Any, case: Any) -> bool | None:
    try:
        return builtin.positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if _depends_on_state(case, response) or not _path_is_valid(case):
            return None
        raise


@schemathesis.check
def use_after_free_but_trash(ctx: Any, response: Any, case: Any) -> bool | None:
    try:
        return builtin.use_after_free(ctx, response, case)
    except UseAfterFree:
        for related in ctx.internals.find_related(case_id=case.id):
            if related.operation.method.lower() != "delete":
                continue
            deleted = ctx.internals.find_response(case_id=related.id)
            trashed = deleted is None or deleted.status_code == 202
            if not trashed and 200 <= deleted.status_code < 300:
                raise
        return None
