"""``Idempotency-Key`` on the writes under the API root (issue 24; the IETF draft "The
Idempotency-Key HTTP Header Field", with Stripe's semantics; docs/client-guide.md).

A POST, PUT, PATCH or DELETE that carries the header is answered by the gate, once the caller is
known (:func:`begin`), when its key already holds a committed response: a repeat of the same
request (:func:`fingerprint`) gets it again with ``Idempotent-Replayed: true`` and runs nothing;
the same key with another request is 422 ``shop_api_idempotency_key_mismatch``; a key that is
not 1–255 visible ASCII characters is 400 ``shop_api_invalid_idempotency_key``. That look-up is
a short read transaction of its own, which takes no write lock.

Otherwise the key, scoped to the caller's consumer key, is claimed by the first statement of the
request's transaction (``db.request.on_begin``), not before: a view does its network I/O (image
downloads, the delivery URL's name resolution) before it opens the transaction, and no request
holds the write lock (SQLite) or the key's row (PostgreSQL) across network I/O. A success stores
its response in the same transaction (:func:`record`, called by the transaction tween before the
commit), so a committed key always holds the response of a committed change, and a failure
(rolled back) leaves nothing behind.

A repeat that arrives while the first request is still running waits for it at its claim: on
PostgreSQL the claim's INSERT waits on the first's uncommitted row; SQLite's writers never
overlap, so the repeat claims after the first has committed. A claim that finds the key
committed meanwhile raises :class:`Answered`: the gate answers with the replay (or the 422)
instead of the view, and the transaction tween rolls the transaction back (nothing was written
in it; the on-rollback callbacks delete what the view downloaded). A rolled-back first leaves
the key to the repeat. A wait past ``shopsvc.db_lock_timeout`` is 409
``shop_api_idempotency_key_in_use`` with ``Retry-After``. Without the header a request pays one
dictionary lookup here and one in the transaction tween.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from functools import partial

from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from shopsvc.db.request import ON_BEGIN, on_begin
from shopsvc.errors import ApiError, is_busy
from shopsvc.sql import idempotency as idempotency_sql
from shopsvc.sql import idempotency_writes as idempotency_writes_sql
from shopsvc.sql.tables import utc_now

HEADER = "Idempotency-Key"
ENVIRON_HEADER = "HTTP_IDEMPOTENCY_KEY"
REPLAYED = "Idempotent-Replayed"
#: The methods a key applies to; on the others the header is ignored.
METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_LENGTH = 255
#: What an sf-string escapes: a quoted value holding one of these is taken as it is.
_QUOTED = frozenset('"\\')
#: Where the claimed row's id waits for :func:`record`.
ENVIRON_ROW = "shopsvc.idempotency"
#: Set when the claim answered for the request (:func:`was_answered`).
ENVIRON_ANSWERED = "shopsvc.idempotency_answered"
#: Query parameters that change on every try of the same request (OAuth 1.0a's nonce, timestamp
#: and signature; the query-string credentials), left out of the fingerprint.
_CREDENTIAL_PARAMS = ("oauth_", "consumer_key", "consumer_secret")
#: Response headers not stored (recomputed, or about the connection rather than the result).
_NOT_STORED = frozenset({"content-length", "date", "server", "connection", "set-cookie"})


def invalid_key() -> ApiError:
    return ApiError(
        "shop_api_invalid_idempotency_key",
        "Invalid Idempotency-Key header: it must be 1 to 255 visible ASCII characters "
        "(no spaces, control or non-ASCII characters).",
        400,
    )


def key_mismatch() -> ApiError:
    return ApiError(
        "shop_api_idempotency_key_mismatch",
        "This Idempotency-Key was already used with a different request (method, path, query "
        "or body); send a new key for a new request.",
        422,
    )


def key_in_use() -> ApiError:
    return ApiError(
        "shop_api_idempotency_key_in_use",
        "A request with this Idempotency-Key is still running; try again in a moment.",
        409,
        {"Retry-After": "1"},
    )


def parse_key(value: str) -> str:
    """The key of a header value: 1–255 characters from 0x21 to 0x7E. The draft's quoted form
    (an sf-string, ``"abc"``, without escapes) names the same key as its bare content. Raises
    the 400."""
    if len(value) > 2 and value[0] == value[-1] == '"' and not _QUOTED.intersection(value[1:-1]):
        value = value[1:-1]
    if not 1 <= len(value) <= MAX_LENGTH or not all("!" <= char <= "~" for char in value):
        raise invalid_key()
    return value


def fingerprint(request: Request) -> str:
    """SHA-256 of the request's canonical form: method, path, query (its pairs sorted, without
    the credentials that change on every try) and body bytes."""
    pairs = sorted(
        (name, value)
        for name, value in request.GET.items()
        if not name.startswith(_CREDENTIAL_PARAMS)
    )
    digest = hashlib.sha256()
    digest.update(request.method.encode() + b"\n")
    digest.update(request.path_info.encode("utf-8", "surrogateescape") + b"\n")
    digest.update(json.dumps(pairs, ensure_ascii=True).encode() + b"\n")
    digest.update(request.body)
    return digest.hexdigest()


def _replay(row: object) -> Response:
    status, headers, body = row["status"], row["headers"], row["body"]  # type: ignore[index]
    response = Response(status=status, body=bytes(body))
    response.headerlist = [(name, value) for name, value in json.loads(headers)]
    response.content_length = len(response.body)
    response.headers[REPLAYED] = "true"
    return response


class Answered(Exception):
    """The claim found the key committed by another request since the gate looked: its replay,
    or the 422 or 409, answers instead of the view. Not an :class:`ApiError`, so that nothing
    between the view and the gate (a bulk element's error item) takes it for its own."""

    def __init__(self, answer: Response | ApiError) -> None:
        super().__init__(answer)
        self.answer = answer


def _claim(request: Request, key_id: int, key: str, print_: str, conn: Connection) -> None:
    """Claim the key as the first statement of the request's transaction; raises
    :class:`Answered` when another request holds it."""
    now = utc_now()
    expires_at = now + dt.timedelta(hours=request.shop.idempotency_hours)
    try:
        row_id = idempotency_writes_sql.claim(conn, key_id, key, print_, now, expires_at)
    except DBAPIError as exc:
        # PostgreSQL: the first request holds the key past the lock timeout (SQLite waits for
        # the write lock, any writer's, before: its busy error stays 503 shop_api_busy)
        if is_busy(exc) and conn.dialect.name == "postgresql":
            raise Answered(key_in_use()) from None
        raise
    if row_id is not None:
        request.environ[ENVIRON_ROW] = row_id
        return
    row = idempotency_sql.get_key(conn, key_id, key)
    if row is None or row["status"] is None:  # cannot be (committed with its response): busy
        raise Answered(key_in_use())
    if row["fingerprint"] != print_:
        raise Answered(key_mismatch())
    raise Answered(_replay(row))


def begin(request: Request) -> Response | None:
    """Answer for the request's key, or have it claimed: None when the request runs (a new key,
    or no header, or a safe method), the stored response when it is a repeat of a committed
    request. Raises the 400 or 422. Called by the gate once the caller is authenticated.

    The committed row is looked for in a short read transaction of its own (on SQLite a
    deferred one, which takes no write lock); the claim is left to the first statement of the
    request's transaction (``db.request.on_begin``), so that the view's network I/O before it
    (image downloads, the delivery URL's name resolution) holds no lock."""
    value = request.environ.get(ENVIRON_HEADER)
    if value is None or request.method not in METHODS:
        return None
    key = parse_key(value)
    key_id = request.identity.key_id
    print_ = fingerprint(request)
    opened = request.environ.get("shopsvc.connection")
    if opened is not None:  # the transaction is open already: claim in it now
        try:
            _claim(request, key_id, key, print_, opened)
        except Answered as answered:
            return _answered(request, answered)
        return None
    with request.registry.engine.connect() as conn, conn.begin():
        row = idempotency_sql.get_key(conn, key_id, key, live_at=utc_now())
    if row is not None and row["status"] is not None:
        if row["fingerprint"] != print_:
            raise key_mismatch()
        return _replay(row)
    on_begin(request, partial(_claim, request, key_id, key, print_))
    return None


def _answered(request: Request, answered: Answered) -> Response:
    """The answer of a claim that found the key taken: the request's transaction (which wrote
    nothing) is rolled back, whatever the answer's status (:func:`was_answered`)."""
    request.environ[ENVIRON_ANSWERED] = True
    if isinstance(answered.answer, ApiError):
        raise answered.answer from None
    return answered.answer


def run(request: Request, handler: Callable[[Request], Response]) -> Response:
    """Run the view of a request whose key :func:`begin` left to be claimed; the claim's answer
    replaces the view's. A success that never opened the transaction claims the key after it,
    so that its response is stored like any other."""
    try:
        response = handler(request)
        if response.status_code < 400 and ON_BEGIN in request.environ:
            request.db  # noqa: B018 (opens the transaction: the claim)
        return response
    except Answered as answered:
        return _answered(request, answered)


def was_answered(request: Request) -> bool:
    """Whether the request was answered by its key's claim (its transaction must not commit)."""
    return ENVIRON_ANSWERED in request.environ


def record(request: Request, response: Response) -> None:
    """Store a successful response under the key the request claimed (if it did), in the
    request's transaction."""
    row_id = request.environ.get(ENVIRON_ROW)
    if row_id is None:
        return
    headers = [
        [name, value] for name, value in response.headerlist if name.lower() not in _NOT_STORED
    ]
    idempotency_writes_sql.store_response(
        request.db, row_id, response.status_code, json.dumps(headers), response.body
    )
