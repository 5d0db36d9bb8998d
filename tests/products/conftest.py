"""Fixtures of the product tests."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from shopsvc.testing.catalog import CatalogFactory


@pytest.fixture
def factory(engine: sa.Engine) -> CatalogFactory:
    """Catalogue rows straight into the test database."""
    return CatalogFactory(engine)
