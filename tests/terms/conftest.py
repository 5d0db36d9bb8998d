"""The family fixtures of the term suite: each is prepared (attribute terms need their
attribute) and parametrised over its families."""

from __future__ import annotations

import pytest
from webtest import TestApp

from tests.helpers.terms import FAMILIES, TERM_FAMILIES, TREE_FAMILIES, Family


def _prepared(request: pytest.FixtureRequest) -> Family:
    family: Family = request.param
    family.prepare(request.getfixturevalue("api"))
    return family


@pytest.fixture(params=FAMILIES, ids=str)
def family(request: pytest.FixtureRequest, api: TestApp) -> Family:
    """Every family with these routes: the term families and the global attributes."""
    return _prepared(request)


@pytest.fixture(params=TERM_FAMILIES, ids=str)
def term_family(request: pytest.FixtureRequest, api: TestApp) -> Family:
    """The four term families."""
    return _prepared(request)


@pytest.fixture(params=TREE_FAMILIES, ids=str)
def tree_family(request: pytest.FixtureRequest, api: TestApp) -> Family:
    """The term families with a ``parent``."""
    return _prepared(request)
