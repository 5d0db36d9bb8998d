"""Whether a refused request wrote anything: the statements that write, as the application's
engine sent them while a request ran (issue 25: every check that can fail on the input runs
before the first write, so a refused request needs no rollback to leave the database as it was).
(No tests here.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webtest import TestApp

from tests.helpers.api import ROOT
from tests.helpers.sql import queries, statements

#: The first words of the statements that change rows (``WITH`` is followed to what it does).
WRITING = ("INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE")


def _writes(sql: str) -> bool:
    upper = sql.upper()
    if upper.startswith("WITH"):
        return any(f" {word} " in upper for word in WRITING)
    return upper.split(None, 1)[0] in WRITING


def writes_of(api: TestApp, request: Callable[[], Any]) -> list[str]:
    """The statements that write sent while ``request()`` runs through ``api`` (after a warm-up
    GET of the API index, so that the authentication's first write of the key is not counted)."""
    api.get(ROOT + "/")
    with statements(api) as seen:
        request()
    return [sql for sql in queries(seen) if _writes(sql)]
