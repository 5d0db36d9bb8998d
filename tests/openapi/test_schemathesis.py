"""The OpenAPI document against the service, by schemathesis (docs/openapi.md, "Checking the
document with schemathesis"), on both databases: a short run with every check and every phase
(examples, coverage, fuzzing, stateful) against a seeded store served over HTTP must report no
failure.

The run is bounded (``MAX_TIME`` seconds, a few examples per operation): the long runs of the
acceptance (10 minutes on each database) are the commands docs/openapi.md shows. The hooks of
``tests/openapi/schemathesis_hooks.py`` replace two built-in checks by their versions that read
what the document declares beyond JSON Schema (``x-state-dependent-codes``, the trash), and
``unsupported_method`` is left out: decisions.md wants 404 ``shop_api_no_route`` where it expects
405, which the document declares (``x-unrouted-methods``) and ``test_document`` tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.settings import load_settings
from tests.helpers.api import ROOT, Credentials
from tests.helpers.live import served

ROOT_DIR = Path(__file__).parent.parent.parent
MAX_TIME = 25
#: The checks the hooks replace, and the one decisions.md overrules (see the module docstring).
EXCLUDED = ("positive_data_acceptance", "use_after_free", "unsupported_method")


@pytest.fixture
def seeded_url(
    app: TestApp, engine: sa.Engine, database_url: str, tmp_path: Path, no_ping: None
) -> Iterator[str]:
    """The test application over a demo store (``seed``), served over HTTP on 127.0.0.1."""
    from shopsvc.cli.demo import run as seed

    shop = load_settings({"sqlalchemy.url": database_url, "shopsvc.media_dir": str(tmp_path)})
    seed.run(engine, shop, seed.SeedOptions(products=8, customers=3, orders=10, progress=False))
    with served(app.app, ROOT) as url:
        yield url


def test_schemathesis_finds_no_failure(seeded_url: str, admin: Credentials, tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "run",
        f"{seeded_url}/openapi.json",
        "--auth",
        f"{admin.consumer_key}:{admin.consumer_secret}",
        "--checks",
        "all",
        "--exclude-checks",
        ",".join(EXCLUDED),
        "--max-examples",
        "5",
        "--max-time",
        str(MAX_TIME),
        "--workers",
        "1",
        "--seed",
        "1",
        "--no-color",
    ]
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.openapi.schemathesis_hooks",
        "PYTHONPATH": str(ROOT_DIR),
    }
    result = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=MAX_TIME + 120
    )
    report = result.stdout[-6000:] + result.stderr[-2000:]
    assert "Stateful" in result.stdout, report  # every phase ran
    assert result.returncode == 0, report
