"""Who is calling, and what may they do.

Authentication (decisions.md §2 and §7, reference core.md §6): over HTTPS (or plain HTTP when
``auth.allow_basic_over_http``) the ``consumer_key``/``consumer_secret`` query pair when both are
present, else HTTP Basic, else OAuth when any ``oauth_*`` parameter is present; over plain HTTP,
OAuth 1.0a one-legged with the parameters in the query string. Then the key's permissions must cover
the method and its user must exist. Authorisation is by capability of the key's user's role.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import time
from dataclasses import dataclass
from typing import Any

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.security import Allowed, Denied

from shopsvc.auth import oauth
from shopsvc.auth.key_cache import KeyCache
from shopsvc.auth.keys import hash_consumer_key
from shopsvc.db.engine import write_transaction
from shopsvc.domain.roles import CAPABILITIES as CAPABILITIES
from shopsvc.domain.roles import ROLES as ROLES
from shopsvc.errors import BASIC_REALM, ApiError
from shopsvc.sql import auth as auth_sql
from shopsvc.sql import auth_writes as auth_writes_sql
from shopsvc.sql.tables import utc_now

READ_METHODS = frozenset({"GET", "HEAD"})
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NONCE_WINDOW = 900


@dataclass(frozen=True)
class Identity:
    user_id: int
    login: str
    role: str
    key_id: int
    permissions: str

    @property
    def capabilities(self) -> frozenset[str]:
        return ROLES.get(self.role, frozenset())


def _fail(message: str, challenge: bool) -> ApiError:
    headers = {"WWW-Authenticate": BASIC_REALM} if challenge else {}
    return ApiError("shop_api_authentication_error", message, 401, headers)


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    header = request.environ.get("HTTP_AUTHORIZATION", "")  # request.headers, less the lookup
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    key, sep, secret = decoded.partition(":")
    return (key, secret) if sep else None


def _clean(text: str) -> str:
    """Keys are text-cleaned before lookup: surrounding and repeated whitespace dropped."""
    return " ".join(text.split())


class Authenticator:
    """Finds the key a request presents and checks it; every failure is a 401."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.query = request.signed_query
        self.basic_allowed = request.scheme_seen == "https" or request.shop.allow_basic_over_http
        #: The hash of the key looked up (its entry in the key cache).
        self._key_hash: str | None = None

    def identity(self) -> Identity:
        """Find and verify the key, record its OAuth nonce and last access, check its rights.

        The key is read in a read-only transaction: a read's own (the request's connection, which
        it goes on to use), or, before a write takes its write lock, one of its own. The writes
        (the nonce, ``last_access`` at most once a minute) go to a short write transaction of
        their own, taken only when there is something to write, with the read transaction ended
        first. Should the request's own write transaction already be open, everything runs in
        it instead: a request never waits for a lock that it holds itself."""
        request = self.request
        engine = request.registry.engine
        own = request.environ.get("shopsvc.connection")
        now = utc_now()
        if own is not None and own.info.get("write"):
            key, nonce = self._key(own)
            self._record(own, key, nonce, now)
        elif request.method in READ_METHODS:
            conn = request.db
            key, nonce = self._key(conn)
            if nonce is not None or auth_sql.needs_touch(key["last_access"], now):
                conn.commit()  # a reader's snapshot must not hold up the write (SQLite)
                with write_transaction(engine) as writer:
                    self._record(writer, key, nonce, now)
                conn.begin()
            else:
                self._check_permissions(key)
        else:
            with engine.connect() as conn, conn.begin():
                key, nonce = self._key(conn)
            if nonce is not None or auth_sql.needs_touch(key["last_access"], now):
                with write_transaction(engine) as conn:
                    self._record(conn, key, nonce, now)
            else:
                self._check_permissions(key)
        return Identity(
            user_id=key["user_id"],
            login=key["login"],
            role=key["role"],
            key_id=key["key_id"],
            permissions=key["permissions"],
        )

    def _record(
        self, conn: Any, key: dict[str, Any], nonce: tuple[str, int] | None, now: Any
    ) -> None:
        """Use the OAuth nonce (refused when it was used before), check the key's rights, and
        touch its ``last_access``."""
        if nonce is not None:
            value, expires_at = nonce
            if not auth_writes_sql.use_nonce(
                conn, key["key_id"], value, expires_at, int(time.time())
            ):
                raise _fail("Invalid nonce - nonce has already been used.", self.basic_allowed)
        self._check_permissions(key)
        if auth_writes_sql.touch_key(conn, key["key_id"], key["last_access"], now):
            cache = self.request.registry.key_cache
            if cache is not None and self._key_hash is not None:
                # at worst a minute early should the request's own transaction roll it back
                cache.touched(self._key_hash, now)

    def _key(self, conn: Any) -> tuple[dict[str, Any], tuple[str, int] | None]:
        """The verified key, and the OAuth nonce to record (None for query keys and Basic)."""
        if self.basic_allowed:
            consumer_key = self.query.get("consumer_key", "")
            consumer_secret = self.query.get("consumer_secret", "")
            if consumer_key and consumer_secret:
                return self._by_secret(conn, consumer_key, consumer_secret), None
            basic = _basic_credentials(self.request)
            if basic is not None:
                return self._by_secret(conn, *basic), None
            if not any(name.startswith("oauth_") for name in self.query):
                raise _fail("Consumer secret is invalid.", True)
        return self._by_oauth(conn)

    def _lookup(self, conn: Any, consumer_key: str) -> dict[str, Any]:
        self._key_hash = key_hash = hash_consumer_key(_clean(consumer_key))
        cache = self.request.registry.key_cache
        key = auth_sql.find_key(conn, key_hash) if cache is None else cache.find(conn, key_hash)
        if key is None:
            raise _fail("Consumer key is invalid.", self.basic_allowed)
        return key

    def _by_secret(self, conn: Any, consumer_key: str, consumer_secret: str) -> dict[str, Any]:
        key = self._lookup(conn, consumer_key)
        given = _clean(consumer_secret).encode("utf-8")
        if not hmac.compare_digest(given, key["consumer_secret"].encode("utf-8")):
            raise _fail("Consumer secret is invalid.", self.basic_allowed)
        return key

    def _by_oauth(self, conn: Any) -> tuple[dict[str, Any], tuple[str, int]]:
        params = self.query
        missing = oauth.missing_param(params)
        if missing is not None:
            raise _fail(f"{missing} parameter is missing.", self.basic_allowed)
        key = self._lookup(conn, params["oauth_consumer_key"])
        request = self.request
        # The legacy server signs the decoded route path (``Zero Rate``, not ``Zero%20Rate``),
        # as the Python ``woocommerce`` client does; RFC 5849 libraries sign the path as sent.
        base_uri = request.public_url + request.script_name + request.path_info
        now = time.time()
        try:
            oauth.verify_signature(
                request.method,
                base_uri,
                params,
                key["consumer_secret"],
                allow_raw_slash=request.shop.oauth_allow_raw_slash,
                alternative_base_uris=(request.public_url + request.path,),
            )
            timestamp = oauth.check_timestamp(params["oauth_timestamp"], now, NONCE_WINDOW)
        except oauth.OAuthError as exc:
            raise _fail(exc.message, self.basic_allowed) from None
        return key, (params["oauth_nonce"], timestamp + NONCE_WINDOW)

    def _check_permissions(self, key: dict[str, Any]) -> None:
        """The key's permissions cover the method, and its user still exists."""
        method = self.request.method
        permissions = key["permissions"]
        if method in READ_METHODS and permissions not in ("read", "read_write"):
            raise _fail("The API key provided does not have read permissions.", self.basic_allowed)
        if method in WRITE_METHODS and permissions not in ("write", "read_write"):
            raise _fail("The API key provided does not have write permissions.", self.basic_allowed)
        if key["login"] is None:
            raise _fail("API user is invalid.", self.basic_allowed)


#: Where a request keeps its identity once authenticated (in its environ: a plain dict, where
#: Pyramid's ``RequestLocalCache`` keeps a weak-keyed one and adds a finished callback).
_AUTHENTICATED = "shopsvc.authenticated"


class SecurityPolicy:
    """Pyramid security policy: identity from the consumer key, permission = capability."""

    def identity(self, request: Request) -> Identity:
        """Authenticates once per request (Pyramid does not cache ``request.identity``)."""
        identity: Identity | None = request.environ.get(_AUTHENTICATED)
        if identity is None:
            identity = request.environ[_AUTHENTICATED] = Authenticator(request).identity()
        return identity

    def authenticated_userid(self, request: Request) -> int | None:
        identity = request.identity
        return identity.user_id if identity else None

    def permits(self, request: Request, context: Any, permission: str) -> Allowed | Denied:
        identity = request.identity
        if identity is not None and permission in identity.capabilities:
            return Allowed(f"role {identity.role} holds {permission}")
        return Denied(f"no capability {permission}")

    def remember(self, request: Request, userid: Any, **kw: Any) -> list[tuple[str, str]]:
        return []

    def forget(self, request: Request, **kw: Any) -> list[tuple[str, str]]:
        return []


def includeme(config: Configurator) -> None:
    """The security policy, and on PostgreSQL the key cache (``shopsvc.auth.cache_keys``;
    ``registry.key_cache``, None when keys are read on every request)."""
    config.set_security_policy(SecurityPolicy())
    registry = config.registry
    engine = registry.engine
    cached = registry.shop.cache_keys and engine.dialect.name == "postgresql"
    registry.key_cache = KeyCache(engine) if cached else None
