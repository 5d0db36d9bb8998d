"""Fixtures of the webhook tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from webtest import TestApp

from tests.helpers.api import Credentials
from tests.helpers.deliveries import FAST, Shop
from tests.helpers.receivers import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A webhook receiver that answers 200 to every request (its :attr:`~Receiver.url` is its
    ``/hook``)."""
    with Receiver() as server:
        yield server


@pytest.fixture
def make_shop(
    build_app: Callable[..., TestApp], make_key: Callable[..., Credentials], no_ping: None
) -> Callable[..., Shop]:
    """A :class:`Shop` with ``FAST`` and the given ini settings (webhook pings patched out).

    The key is made before the app: an app that delivers in process starts its worker thread,
    whose first pass may hold SQLite's write lock while a loaded machine runs it."""

    def make(**settings: str) -> Shop:
        key = make_key()
        return Shop(build_app(**{**FAST, **settings}), key)

    return make
