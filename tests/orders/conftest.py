"""Fixtures of the order tests: order rows straight into the database, and the app called by a
user whose role holds exactly the capabilities a test gives it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.auth import policy
from tests.helpers.api import Credentials, authorised
from tests.helpers.orders import OrderFactory


@pytest.fixture
def factory(engine: sa.Engine) -> OrderFactory:
    """Order rows straight into the test database."""
    return OrderFactory(engine)


@pytest.fixture
def role_api(
    app: TestApp, make_key: Callable[..., Credentials], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., TestApp]:
    """The app called by a user whose role holds exactly ``capabilities``."""
    counter = iter(range(1000))

    def build(*capabilities: str) -> TestApp:
        role = f"clerk{next(counter)}"
        monkeypatch.setitem(policy.ROLES, role, frozenset(capabilities))
        return authorised(app, make_key(role, "read_write"))

    return build
