"""What the benchmarks share: a scratch database, an administrator's key, and requests sent
straight to the WSGI application (no test client in between)."""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import pathlib
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT_DIR) not in sys.path:
    sys.path.insert(0, str(ROOT_DIR))

from shopsvc import main as app_main  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402
from shopsvc.testing.databases import scratch_postgres, user_with_key  # noqa: E402


@contextmanager
def scratch_database(url: str | None) -> Iterator[str]:
    """A fresh database: a temporary SQLite file, or a new database ``shopsvc_bench_<random>``
    on the PostgreSQL server of ``url`` (dropped afterwards; no other database is touched)."""
    if not url or url.startswith("sqlite"):
        with tempfile.TemporaryDirectory() as directory:
            yield url or f"sqlite:///{directory}/bench.sqlite"
        return
    with scratch_postgres(url, "shopsvc_bench") as scratch:
        yield scratch


def analyze(engine: sa.Engine) -> None:
    """Table statistics for the planner after seeding, as a shop's database has them (on
    PostgreSQL autovacuum gathers them within a minute of a bulk load; a benchmark that measured
    at once would time plans made without any — a product GET's related ids took 11 ms instead
    of 1 ms). SQLite is left as a shop leaves it: without ``ANALYZE``."""
    if engine.dialect.name != "postgresql":
        return
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("ANALYZE")


Seeded = TypeVar("Seeded")


def seeded_engine(
    url: str, seed: Callable[[sa.Engine], Seeded]
) -> tuple[sa.Engine, Seeded, str, str]:
    """An engine on ``url`` migrated, ``seed(engine)``'s answer, the database analysed
    (:func:`analyze`) and an administrator's key and secret (bench/bulk.py, bench/writes.py)."""
    engine = make_engine(url)
    migrate(engine)
    seeded = seed(engine)
    analyze(engine)
    key, secret = admin_key(engine)
    return engine, seeded, key, secret


def admin_key(engine: sa.Engine, permissions: str = "read_write") -> tuple[str, str]:
    """A new administrator's consumer key and secret."""
    _, _, consumer_key, consumer_secret = user_with_key(
        engine, "bench", "administrator", permissions
    )
    return consumer_key, consumer_secret


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages and its CPU count (benchmarks share it)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def ini_logging(line_format: str) -> str:
    """The logging sections of a generated ``pserve`` ini: the root logger at WARNING on
    stderr, each record as ``line_format`` (bench/cli_start.py, bench/soak.py). No braces, so
    the ini it ends stays a ``str.format`` template."""
    return (
        "[loggers]\nkeys = root\n[handlers]\nkeys = console\n[formatters]\nkeys = plain\n"
        "[logger_root]\nlevel = WARNING\nhandlers = console\n"
        "[handler_console]\nclass = StreamHandler\nargs = (sys.stderr,)\nformatter = plain\n"
        f"[formatter_plain]\nformat = {line_format}\n"
    )


def basic_auth(key: str, secret: str) -> str:
    """The ``Authorization`` header value of HTTP Basic with ``key`` and ``secret``."""
    return "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode("ascii")


@dataclass
class WsgiResponse:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def wsgi_request(
    app: Callable[..., Iterable[bytes]],
    method: str,
    path: str,
    params: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    body: bytes = b"",
) -> WsgiResponse:
    """One request through ``app`` as waitress would hand it over (plain HTTP on 127.0.0.1),
    without a test client's checks and response parsing: the service's own cost only."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": urlencode(params or {}),
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_HOST": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": True,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if body:
        environ["CONTENT_LENGTH"] = str(len(body))
        environ["CONTENT_TYPE"] = "application/json"
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    started: list[Any] = []

    def start_response(status: str, response_headers: list[tuple[str, str]], *_: Any) -> None:
        started[:] = [int(status.split(" ", 1)[0]), response_headers]

    result = app(environ, start_response)
    try:
        content = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return WsgiResponse(started[0], started[1], content)


#: Response headers that differ from one response to the next whatever the code.
VARYING_HEADERS = ("date", "x-request-id")


def api_bodies(
    engine: sa.Engine,
    url: str,
    requests: Iterable[tuple[str, str, Mapping[str, str]]],
    *,
    with_headers: bool = False,
) -> dict[str, bytes]:
    """GET each ``(name, path, params)`` of ``requests`` through the service on the seeded
    database at ``url``, as a new administrator (pages of up to 1000); each 200 body by name,
    and with ``with_headers`` its headers but :data:`VARYING_HEADERS` as ``<name>.headers``
    (bench/product_bodies.py, bench/order_bodies.py)."""
    key, secret = admin_key(engine)
    headers = {"Authorization": basic_auth(key, secret)}
    found: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as media:
        settings = {
            "sqlalchemy.url": url,
            "shopsvc.media_dir": media,
            "shopsvc.auth.allow_basic_over_http": "true",
            "shopsvc.max_page_size": "1000",
        }
        app = app_main({"__file__": "bench.ini"}, **settings)
        for name, path, params in requests:
            response = wsgi_request(app, "GET", path, params, headers)
            if response.status != 200:
                raise SystemExit(f"{name}: HTTP {response.status}: {response.body[:300]!r}")
            found[name] = response.body
            if with_headers:
                kept = [(k, v) for k, v in response.headers if k.lower() not in VARYING_HEADERS]
                found[f"{name}.headers"] = json.dumps(kept).encode()
        app.registry.engine.dispose()
    return found


def bodies_main(
    argv: list[str] | None,
    doc: str,
    bodies: Callable[[str, int], Mapping[str, bytes]],
    records: str,
    default: int,
) -> int:
    """The command line of bench/product_bodies.py and bench/order_bodies.py: seed ``--<records>``
    (``default``) into a scratch database, take ``bodies(url, count)``, write and compare them
    (:func:`write_bodies`)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("directory", type=pathlib.Path, help="where the bodies are written")
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument(f"--{records}", type=int, default=default, help=f"bench {records} to seed")
    parser.add_argument("--compare", type=pathlib.Path, help="a directory of earlier bodies")
    args = parser.parse_args(argv)
    with scratch_database(args.database_url) as url:
        found = bodies(url, getattr(args, records))
    return write_bodies(args.directory, found, args.compare)


def write_bodies(
    directory: pathlib.Path, found: Mapping[str, bytes], compare: pathlib.Path | None
) -> int:
    """Write each body of ``found`` to ``directory/<name>.json``, print its size and digest,
    and, given ``compare`` (a directory of earlier bodies), whether it is byte for byte the
    same there; 1 when any differs (bench/product_bodies.py, bench/order_bodies.py)."""
    directory.mkdir(parents=True, exist_ok=True)
    differ = []
    for name, body in found.items():
        (directory / f"{name}.json").write_bytes(body)
        digest = hashlib.sha256(body).hexdigest()[:16]
        verdict = ""
        if compare is not None:
            earlier = compare / f"{name}.json"
            same = earlier.exists() and earlier.read_bytes() == body
            verdict = "same" if same else "DIFFERENT"
            if not same:
                differ.append(name)
        print(f"{name:<28} {len(body):>9} {digest} {verdict}")
    if compare is not None:
        print(f"{len(found) - len(differ)} of {len(found)} bodies identical to {compare}")
    return 1 if differ else 0
