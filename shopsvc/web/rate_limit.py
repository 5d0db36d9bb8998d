"""Rate limits per caller (``shopsvc.rate_limit``; off by default, and then nothing is counted).

The gate (``gate.py``) calls :func:`admit` for every request under the API root, once the path
is known to be one and before anything else can refuse it (but odd paths and bodies over the
limit): the caller is the key the request authenticates with, or the client address
(``request.client_ip``, which honours trusted proxies) for the public paths (the root, the
OpenAPI document, ``/docs``) and for a request whose authentication fails — so a failed login
counts against its address, its 401 says where the address stands, and past the limit the
address gets 429 instead. A refusal is an :class:`ApiError`, so the 429 is rendered by the
exception view and still gets CORS, the access line and the error body.

The counters are the ``limits`` library's, with its sliding window counter strategy: two
counters per caller and window (this fixed window's and the previous one's, the previous weighted
by the share of it still inside the sliding window), so memory and Redis work are constant per
request whatever the quota, where a moving window keeps one timestamp per unit. It approximates
"at most ``q`` units in any ``w`` seconds", assuming the previous window's requests were spread
evenly. They live in the process (``memory://``) or in Redis (``shopsvc.rate_limit.storage_url``),
where every process shares them. A burst is a second window, of one second, checked before the
main one (a request the burst window refuses uses nothing of the main one; one the main window
refuses has used its units of the burst second). A request costs 1, a bulk write
(``/taxes/bulk``, ``/products/bulk``, ``/orders/bulk``) :data:`BULK_COST`.

Every counted response carries the fields of draft-ietf-httpapi-ratelimit-headers-08 (docs/
client-guide.md, "Rate limits")::

    RateLimit-Policy: "burst";q=20;w=1, "default";q=120;w=60
    RateLimit: "burst";r=19;t=1, "default";r=119;t=35

A Redis that cannot be reached never fails a request: the limit is skipped (no headers) with one
warning per failure streak, and Redis is not asked again for :data:`RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass

from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

from shopsvc.errors import ApiError
from shopsvc.settings import RatePolicy, Settings
from shopsvc.web.access import IDENTITY

#: Where :func:`admit` keeps an authentication failure for the gate to raise in its turn.
AUTH_FAILURE = "shopsvc.auth_failure"

log = logging.getLogger(__name__)

#: The units a bulk write (``POST|PUT|PATCH <collection>/bulk``) costs; any other request costs 1.
BULK_COST = 10
#: After Redis failed, the limit is skipped for this many seconds before Redis is asked again.
RETRY_SECONDS = 1.0
#: Redis connect and read timeouts (seconds): a Redis that hangs delays a request at most so long.
REDIS_TIMEOUT = 0.25
#: The in-process counters that have expired are dropped at most this often (on a request).
SWEEP_SECONDS = 10.0
BULK_NAMES = frozenset({"/taxes/bulk", "/products/bulk", "/orders/bulk"})
SAFE_METHODS = frozenset({"GET", "HEAD"})


@dataclass(frozen=True)
class Window:
    """One limit: its name in the headers, the ``limits`` item (``quota`` per ``seconds``)."""

    name: str
    quota: int
    seconds: int
    item: RateLimitItemPerSecond


@dataclass(frozen=True)
class Decision:
    allowed: bool
    headers: dict[str, str]


def windows(policy: RatePolicy) -> tuple[Window, ...]:
    """The windows checked, in order: the burst (when set), then the rate."""
    found = []
    if policy.burst is not None:
        found.append(Window("burst", policy.burst, 1, RateLimitItemPerSecond(policy.burst, 1)))
    item = RateLimitItemPerSecond(policy.amount, policy.seconds)
    found.append(Window("default", policy.amount, policy.seconds, item))
    return tuple(found)


class SweptMemoryStorage(MemoryStorage):
    """The library's in-process storage, its expired counters dropped by a sweep on the request
    path every :data:`SWEEP_SECONDS` instead of by a timer thread started again 10 ms after the
    last (one thread start per 20 or so requests under load: some 50 µs a request on a GET).
    Reads never see an expired counter either way: ``get`` drops it first."""

    def __init__(self) -> None:
        super().__init__()
        self._next_sweep = 0.0

    def _MemoryStorage__schedule_expiry(self) -> None:  # the base class's private hook
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_SECONDS
            self._MemoryStorage__expire_events()  # type: ignore[attr-defined]


def make_storage(settings: Settings) -> Storage:
    url = settings.rate_limit_storage_url
    if url.lower().startswith("memory://"):
        return SweptMemoryStorage()
    return storage_from_string(
        url,
        key_prefix=settings.rate_limit_key_prefix,
        socket_connect_timeout=REDIS_TIMEOUT,
        socket_timeout=REDIS_TIMEOUT,
    )


def _seconds_until(moment: float, now: float) -> int:
    return max(0, math.ceil(moment - now))


class RateLimiter:
    """The windows of a policy over one storage, and the state of the storage's health."""

    def __init__(self, policy: RatePolicy, storage: Storage) -> None:
        self.windows = windows(policy)
        self.storage = storage
        self.strategy = SlidingWindowCounterRateLimiter(storage)
        self.policy_header = ", ".join(
            f'"{w.name}";q={w.quota};w={w.seconds}' for w in self.windows
        )
        self._lock = threading.Lock()
        self._failing_since: float | None = None
        self._retry_at = 0.0

    def hit(self, caller: str, cost: int) -> Decision | None:
        """Count ``cost`` units for ``caller``: the decision and its headers, or None when the
        storage cannot be reached (the request goes on, unlimited)."""
        if self._retry_at and time.monotonic() < self._retry_at:
            return None
        try:
            decision = self._hit(caller, cost)
        except Exception as exc:  # Redis down (or worse): never a 5xx for it
            self._failed(exc)
            return None
        if self._failing_since is not None:
            self._recovered()
        return decision

    def _hit(self, caller: str, cost: int) -> Decision:
        allowed = True
        refused_by: Window | None = None
        for window in self.windows:
            if not self.strategy.hit(window.item, caller, cost=cost):
                allowed, refused_by = False, window
                break
        now = time.time()
        items = []
        retry_after = 1
        for window in self.windows:
            stats = self.strategy.get_window_stats(window.item, caller)
            reset = _seconds_until(stats.reset_time, now)
            items.append(f'"{window.name}";r={stats.remaining};t={reset}')
            if window is refused_by:
                retry_after = max(1, reset)
        headers = {"RateLimit-Policy": self.policy_header, "RateLimit": ", ".join(items)}
        if not allowed:
            headers["Retry-After"] = str(retry_after)
        return Decision(allowed, headers)

    def _failed(self, exc: Exception) -> None:
        with self._lock:
            self._retry_at = time.monotonic() + RETRY_SECONDS
            first = self._failing_since is None
            if first:
                self._failing_since = time.monotonic()
        if first:
            log.warning(
                "rate limit storage unreachable (%s: %s): requests are not limited until it "
                "answers again",
                type(exc).__name__,
                exc,
            )

    def _recovered(self) -> None:
        with self._lock:
            since, self._failing_since, self._retry_at = self._failing_since, None, 0.0
        if since is not None:
            log.warning(
                "rate limit storage answers again after %.1f s: requests are limited again",
                time.monotonic() - since,
            )


def too_many_requests(headers: dict[str, str]) -> ApiError:
    return ApiError(
        "shop_api_too_many_requests",
        "Too many requests; try again after the number of seconds in Retry-After.",
        429,
        {"Retry-After": headers["Retry-After"]},
    )


def caller_of(request: Request) -> str:
    """The key id the gate authenticated, else the client address."""
    identity = request.environ.get(IDENTITY)
    if identity is not None:
        return f"key:{identity.key_id}"
    return f"ip:{request.client_ip or '-'}"


def cost_of(request: Request, below: str) -> int:
    if request.method not in SAFE_METHODS and below.lower() in BULK_NAMES:
        return BULK_COST
    return 1


def limiter_of(registry: Registry) -> RateLimiter | None:
    """The app's limiter (``registry.rate_limiter``), made on first use; None when off."""
    shop: Settings = registry.shop
    if shop.rate_limit is None:
        return None
    limiter = getattr(registry, "rate_limiter", None)
    if limiter is None:
        limiter = registry.rate_limiter = RateLimiter(shop.rate_limit, make_storage(shop))
    return limiter


def admit(limiter: RateLimiter, request: Request, below: str, public: bool) -> None:
    """Count the request against its caller before anything else is refused, so that every
    answer under the API root says where the caller stands and failed logins count against
    their address: a protected path is authenticated here (the key id is the caller; a failure
    is kept for the gate to raise in its turn, :data:`AUTH_FAILURE`), a public one is counted by
    the client address. Over the limit: 429 ``shop_api_too_many_requests``."""
    if not public:
        try:
            request.environ[IDENTITY] = request.identity
        except ApiError as failure:
            request.environ[AUTH_FAILURE] = failure
    decision = limiter.hit(caller_of(request), cost_of(request, below))
    if decision is None:
        return
    headers = decision.headers

    def add_headers(request: Request, response: Response) -> None:
        response.headers.update(headers)

    request.add_response_callback(add_headers)
    if not decision.allowed:
        raise too_many_requests(headers)
