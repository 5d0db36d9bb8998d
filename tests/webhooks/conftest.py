"""Fixtures of the webhook tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.receivers import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A webhook receiver that answers 200 to every request (its :attr:`~Receiver.url` is its
    ``/hook``)."""
    with Receiver() as server:
        yield server
