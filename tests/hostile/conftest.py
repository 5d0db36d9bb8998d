"""Fixtures of the hostile suite: its app (private targets refused) and the harnesses over a
database holding one record of every family."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from webtest import TestApp

from tests.helpers.api import Credentials, authorised
from tests.hostile.harness import Harness
from tests.hostile.world import make_world


@pytest.fixture(scope="module")
def hostile_app(make_app: Callable[..., TestApp]) -> Iterator[TestApp]:
    """The app with private targets refused: no generated URL is ever fetched or pinged."""
    app = make_app(**{"shopsvc.outbound.allow_private_targets": "false"})
    yield app
    app.app.registry.engine.dispose()


@pytest.fixture
def harness(hostile_app: TestApp, admin: Credentials, engine: sa.Engine) -> Harness:
    """An administrator's client over a database holding one record of every family."""
    client = authorised(hostile_app, admin)
    return Harness(client, engine, {**make_world(client), "user": admin.user_id})


@pytest.fixture
def anonymous(hostile_app: TestApp, harness: Harness, engine: sa.Engine) -> Harness:
    """A client without credentials, over the same records."""
    return Harness(TestApp(hostile_app.app), engine, harness.ids)
