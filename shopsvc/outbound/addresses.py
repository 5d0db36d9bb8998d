"""The private-target policy: a session whose connections only ever reach public addresses.

The host is resolved once per connection, *every* address it resolves to must be public
(:func:`is_public_address`), and the socket is opened to one of exactly those addresses — nobody
resolves the name a second time, so the address connected to is the address checked (no DNS
rebinding between check and connect). A refused target is refused before any connection is
opened.

Environment proxies and ``.netrc`` are ignored (``trust_env = False``): through a proxy the
address connected to would be the proxy's and the policy would mean nothing.

Limits: a host with several public addresses is tried address by address (a refused connection
moves on to the next; a timeout ends the attempt), each with the time left. The policy is built on
urllib3 2.x connection classes (``_new_conn`` and ``_dns_host``); they are the supported way to
open the socket, but an upgrade of urllib3 should run ``tests/outbound/``.
"""

from __future__ import annotations

import ipaddress
import socket
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


class RefusedTarget(Exception):
    """Raised inside a connection (not an OSError, so urllib3 and requests let it through)."""


def _connect_public(conn: HTTPConnection, connect: Callable[[], socket.socket]) -> socket.socket:
    """Open ``conn``'s socket to one of its host's addresses, all of which must be public."""
    host = conn._dns_host
    try:
        addresses = _resolve(host, conn.port or 0)
    except (OSError, UnicodeError) as exc:
        raise NewConnectionError(conn, f"Failed to resolve {host!r}: {exc}") from exc
    if not addresses or not all(is_public_address(address) for address in addresses):
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
