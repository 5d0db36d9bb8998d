"""The private-target policy: a session whose connections only ever reach public addresses.

The host is resolved once per connection, *every* address it resolves to must be public
(:func:`is_public_address`), and the socket is opened to one of exactly those addresses — nobody
resolves the name a second time, so the address connected to is the address checked (no DNS
rebinding between check and connect). A refused target is refused before any connection is
opened.

Environment proxies and ``.netrc`` are ignored (``trust_env = False``): through a proxy the
address connected to would be the proxy's and the policy would mean nothing.

:func:`refused_host` asks the same question ahead of time, without connecting: with
``shopsvc.webhooks.refuse_private_delivery_urls = true`` a webhook's create and edit refuse a
delivery URL that the policy would refuse now (a name that does not resolve yet is let through:
the policy is applied again on every connection).

Limits: a host with several public addresses is tried address by address (a refused connection
moves on to the next; a timeout ends the attempt), each with the time left. The policy is built on
urllib3 2.x connection classes (``_new_conn`` and ``_dns_host``); they are the supported way to
open the socket, but an upgrade of urllib3 should run ``tests/outbound/``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from collections.abc import Callable

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NewConnectionError

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # well-known prefix: IPv4 behind a local gateway


def is_public_address(address: str) -> bool:
    """True for a globally routable IP address; loopback, private, link-local, shared,
    reserved and documentation addresses are not (nor IPv4 ones wrapped in IPv6)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        elif ip in _NAT64:
            ip = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.is_global


def _resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (a literal address is its own), in resolver order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


#: Seconds :func:`refused_host` waits for a name to resolve (then it counts as unresolved).
RESOLVE_TIMEOUT = 2.0


def _refused(addresses: list[str]) -> bool:
    """The policy's rule: a host is refused unless every address it resolves to is public."""
    return not all(is_public_address(address) for address in addresses)


def _resolve_within(host: str, port: int, timeout: float) -> list[str] | None:
    """:func:`_resolve` in a thread of its own, waited for at most ``timeout`` seconds (the C
    resolver takes no deadline); None when the name does not resolve in time (the lookup is
    left to finish on its own)."""
    found: list[list[str]] = []

    def lookup() -> None:
        with contextlib.suppress(OSError, UnicodeError, ValueError):
            found.append(_resolve(host, port))

    thread = threading.Thread(target=lookup, name="shopsvc-resolve", daemon=True)
    thread.start()
    thread.join(timeout)
    return found[0] if found else None


def refused_host(host: str, port: int = 0, timeout: float | None = None) -> bool:
    """Whether the policy refuses ``host`` now: a literal address that is not public, or a
    name that resolves (within ``timeout`` seconds, :data:`RESOLVE_TIMEOUT` unless given) to
    an address that is not public — the
    connection the policy allows would be refused (:func:`_connect_public`). A name that does
    not resolve, or not in time, is not refused: it may resolve later, and every connection
    applies the policy again."""
    try:
        return _refused([str(ipaddress.ip_address(host.split("%", 1)[0]))])
    except ValueError:  # a name
        pass
    addresses = _resolve_within(host, port, RESOLVE_TIMEOUT if timeout is None else timeout)
    return bool(addresses) and _refused(addresses)


class RefusedTarget(Exception):
    """Raised inside a connection (not an OSError, so urllib3 and requests let it through)."""


def _connect_public(conn: HTTPConnection, connect: Callable[[], socket.socket]) -> socket.socket:
    """Open ``conn``'s socket to one of its host's addresses, all of which must be public."""
    host = conn._dns_host
    try:
        addresses = _resolve(host, conn.port or 0)
    except (OSError, UnicodeError) as exc:
        raise NewConnectionError(conn, f"Failed to resolve {host!r}: {exc}") from exc
    if not addresses or _refused(addresses):
        raise RefusedTarget(host)
    failure: NewConnectionError | None = None
    try:
        for address in addresses:
            conn._dns_host = address  # connect to the checked address; Host and SNI keep the name
            try:
                return connect()
            except NewConnectionError as exc:  # refused or unreachable: try the next address
                failure = exc  # (a timeout, a plain ConnectTimeoutError, ends the attempt)
    finally:
        conn._dns_host = host
    assert failure is not None
    raise failure


class _PublicHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _connect_public(self, super()._new_conn)


class _PublicHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        return _connect_public(self, super()._new_conn)


class _PublicHTTPPool(HTTPConnectionPool):
    ConnectionCls = _PublicHTTPConnection


class _PublicHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _PublicHTTPSConnection


class _PublicOnlyAdapter(HTTPAdapter):
    """A transport whose connections only ever reach public addresses."""

    def init_poolmanager(self, *args: object, **kwargs: object) -> None:
        super().init_poolmanager(*args, **kwargs)  # type: ignore[arg-type]
        self.poolmanager.pool_classes_by_scheme = {
            "http": _PublicHTTPPool,
            "https": _PublicHTTPSPool,
        }


def new_session(allow_private: bool) -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # no proxies, no .netrc: we connect where we checked
    if not allow_private:
        adapter = _PublicOnlyAdapter()
        session.mount("http://", adapter)
        session.mount("https://", adapter)
    return session
