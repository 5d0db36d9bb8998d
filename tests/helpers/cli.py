"""Running the ``shopsvc`` console script in this process (``shopsvc.cli.main.main``) and reading
what it printed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from shopsvc.cli.main import main


def run(argv: Sequence[object]) -> int:
    """The exit status the console script would have with ``argv`` (each as a string); argparse
    exits by ``SystemExit``."""
    try:
        return main([str(arg) for arg in argv])
    except SystemExit as exit:
        return int(exit.code or 0)


def lines(capsys: pytest.CaptureFixture[str]) -> tuple[list[Any], str]:
    """Each line the command printed on stdout, read as JSON, and what it printed on stderr."""
    captured = capsys.readouterr()
    return [json.loads(line) for line in captured.out.splitlines()], captured.err
