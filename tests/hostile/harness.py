"""The settings of every property test, and :class:`Harness`: it sends one request through a
``TestApp`` and fails the test unless the answer is below 500, its error is well formed and a
failure left every table as it was."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from urllib.parse import parse_qs, quote

import sqlalchemy as sa
from hypothesis import HealthCheck, settings
from webtest import TestApp
from webtest.response import TestResponse

from tests.helpers.api import ROOT
from tests.hostile.checks import check_error_body, check_error_item, snapshot


def hostile_settings(max_examples: int) -> settings:
    """The settings of every property test: deterministic (a fixed seed, no example database)
    and bounded in examples rather than in time. The fixtures are function-scoped on purpose:
    the database is reset per test, and the harness tracks what each example changed."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=False,
        report_multiple_bugs=False,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


def _short(value: str | bytes, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(value)} long)"


def effective_method(method: str, query: str, headers: Sequence[tuple[str, str]]) -> str:
    """The method the app acts on: ``?_method=`` (upper-cased), else the override header (as
    sent), else the request's."""
    overrides = parse_qs(query).get("_method")
    if overrides and overrides[-1]:
        return overrides[-1].upper()
    return dict(headers).get("X-HTTP-Method-Override", method)


class Harness:
    """Sends requests through a ``TestApp`` and checks the suite's properties on each."""

    def __init__(self, client: TestApp, engine: sa.Engine, ids: Mapping[str, int]) -> None:
        self.client = client
        self.engine = engine
        self.ids = ids
        # The state after the last failed request: the state before the next one, as nothing
        # but this harness writes while a property runs (saves a round trip per request).
        self._known: list[tuple[str, str]] | None = None

    def url(self, template: str, query: str = "") -> str:
        # characters outside ASCII are sent %-encoded (as UTF-8), %-escapes as they are
        path = quote(ROOT + template.format(**self.ids), safe="/%:@!$&'()*+,;=-._~")
        return f"{path}?{query}" if query else path

    def fill(self, body: bytes) -> bytes:
        """``"{name}"`` in ``body`` → the id of the record ``name`` (a JSON number),
        ``"<name>"`` → the same id as a JSON string (an object key)."""
        if b'"{' not in body and b'"<' not in body:
            return body
        for name, record_id in self.ids.items():
            body = body.replace(f'"{{{name}}}"'.encode(), str(record_id).encode())
            body = body.replace(f'"<{name}>"'.encode(), f'"{record_id}"'.encode())
        return body

    def send(
        self,
        method: str,
        template: str,
        body: bytes = b"",
        query: str = "",
        headers: Sequence[tuple[str, str]] = (),
        bulk: bool = False,
    ) -> TestResponse:
        """One request; fails the test unless it is < 500, its error is well formed and a
        failure left every table as it was."""
        url = self.url(template, query)
        body = self.fill(body)
        before = self._known if self._known is not None else snapshot(self.engine)
        self._known = None
        response = self.client.request(
            url,
            method=method,
            body=body,
            headers=[("Content-Type", "application/json"), *headers],
            expect_errors=True,
        )
        context = (
            f"{method} {_short(url)} {dict(headers)} body={_short(body)} → "
            f"{response.status} {_short(response.body, 600)}"
        )
        status = response.status_int
        assert status < 500, context
        if status >= 400:
            # a HEAD answer has no body (an override is applied after the path checks)
            head = "HEAD" in (method.upper(), effective_method(method, query, headers))
            if response.body or not head:
                check_error_body(response, context)
            after = snapshot(self.engine)
            assert after == before, f"a failed request wrote: {context}"
            self._known = after
        elif bulk and response.body:
            payload = json.loads(response.body)
            results = next(iter(payload.values())) if isinstance(payload, dict) else None
            if isinstance(results, list) and results and all("error" in r for r in results):
                for item in results:
                    check_error_item(item, context)
                assert snapshot(self.engine) == before, f"a bulk of failures wrote: {context}"
        return response
