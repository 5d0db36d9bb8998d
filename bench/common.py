"""What the benchmarks share: a scratch database and an administrator's key."""

from __future__ import annotations

import pathlib
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT_DIR) not in sys.path:
    sys.path.insert(0, str(ROOT_DIR))

from tests.databases import scratch_postgres, user_with_key  # noqa: E402


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


def admin_key(engine: sa.Engine, permissions: str = "read_write") -> tuple[str, str]:
    """A new administrator's consumer key and secret."""
    _, _, consumer_key, consumer_secret = user_with_key(
        engine, "bench", "administrator", permissions
    )
    return consumer_key, consumer_secret
