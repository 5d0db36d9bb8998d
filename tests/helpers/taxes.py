"""The tax tests' routes, requests and the record of a rate; a rate of the domain's tax engine."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from webtest import TestApp

from shopsvc.domain.tax import TaxRate
from tests.helpers.api import ROOT
from tests.helpers.api import create as create_record

URL = ROOT + "/taxes"
CLASSES = URL + "/classes"
BULK = URL + "/bulk"
KEYS = [
    "id",
    "country",
    "state",
    "postcode",
    "city",
    "rate",
    "name",
    "priority",
    "compound",
    "shipping",
    "order",
    "class",
]
STANDARD = {"slug": "standard", "name": "Standard rate"}


def create(api: TestApp, **fields: Any) -> dict[str, Any]:
    """A new tax rate; its record."""
    return create_record(api, URL, "tax", **fields)


def create_class(api: TestApp, name: str) -> dict[str, Any]:
    return create_record(api, CLASSES, "tax_class", name=name)


def tax(id: int, **fields: Any) -> dict[str, Any]:
    """The representation of a rate with the create defaults, overridden by ``fields``."""
    record = {
        "id": id,
        "country": "",
        "state": "",
        "postcode": "",
        "city": "",
        "rate": "0.0000",
        "name": "Tax",
        "priority": 1,
        "compound": False,
        "shipping": True,
        "order": 0,
        "class": "standard",
    }
    record.update(fields)
    return record


def tax_rate(rate_id: int, country: str = "", **overrides: object) -> TaxRate:
    """A rate of the tax engine (``shopsvc.domain.tax``): 10 %, priority 1, not compound, on
    shipping too, standard class, any location of ``country``; ``overrides`` by field."""
    fields: dict[str, object] = {
        "id": rate_id,
        "country": country,
        "state": "",
        "rate": Decimal("10"),
        "name": "Tax",
        "priority": 1,
        "compound": False,
        "shipping": True,
        "order": 0,
        "tax_class": "",
        "postcodes": (),
        "cities": (),
    }
    fields.update(overrides)
    return TaxRate(**fields)  # type: ignore[arg-type]
