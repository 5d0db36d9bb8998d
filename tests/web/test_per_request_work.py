"""Work that every request would pay for nothing.

Pyramid tries the views of a context one after the other until one's method matches; each that
does not costs a ``PredicateMismatch`` (an ``HTTPNotFound``: a whole response built and thrown
away). Reads, the most frequent requests, must find their view first (``shopsvc.views``
registers them before every other view). And with any event subscriber registered, Pyramid
notifies four events on every request."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from pyramid.exceptions import PredicateMismatch
from pyramid.interfaces import IMultiView, IRequest, IView, IViewClassifier
from webtest import TestApp
from zope.interface import implementedBy

from tests.helpers import order_writes, products
from tests.helpers.api import ROOT, Credentials, authorised


def _contexts(app: TestApp) -> list[type]:
    views = app.app.registry.introspector.get_category("views")
    return list(dict.fromkeys(view["introspectable"]["context"] for view in views))


def test_every_context_tries_its_read_view_first(app: TestApp) -> None:
    registry = app.app.registry
    get = SimpleNamespace(method="GET")
    multiviews = 0
    for context in _contexts(app):
        if not isinstance(context, type):
            continue
        view = registry.adapters.lookup(
            (IViewClassifier, IRequest, implementedBy(context)), IView, name=""
        )
        if not IMultiView.providedBy(view):
            continue
        multiviews += 1
        tried = [entry[1] for entry in view.get_views(get)]
        readers = [i for i, candidate in enumerate(tried) if candidate.__predicated__(None, get)]
        if readers:
            assert readers[0] == 0, f"{context.__name__}: a GET tries {readers[0]} views first"
    assert multiviews >= 20  # every collection and item that also has writes


@pytest.fixture
def mismatches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    raised: list[str] = []
    original = PredicateMismatch.__init__

    def counting(self: PredicateMismatch, *args: Any, **kwargs: Any) -> None:
        raised.append(str(args[:1]))
        original(self, *args, **kwargs)

    monkeypatch.setattr(PredicateMismatch, "__init__", counting)
    yield raised


def test_reads_of_records_and_lists_raise_no_predicate_mismatch(
    app: TestApp, admin: Credentials, mismatches: list[str]
) -> None:
    api = authorised(app, admin)
    product = products.create(api, title="A shirt", regular_price="10.00")
    order = order_writes.create(api, line_items=[{"product_id": product["id"], "quantity": 1}])
    mismatches.clear()
    for path in (
        f"/products/{product['id']}",
        f"/orders/{order['id']}",
        "/products",
        "/orders",
    ):
        api.get(ROOT + path, status=200)
        api.head(ROOT + path, status=200)
    assert mismatches == []
    # the other methods still find theirs, after the read's view
    products.edit(api, product["id"], title="A red shirt")
    api.delete(f"{ROOT}/products/{product['id']}", status=202)
    assert mismatches


def test_no_event_subscriber_makes_every_request_notify_events(app: TestApp) -> None:
    assert app.app.registry.has_listeners is False
