"""``/readyz`` with ``shopsvc.media_storage = s3``: ready only while the bucket answers (503 with
the reason otherwise); the local storage adds no check."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from webtest import TestApp

from tests.media.conftest import Bucket, closed_port_url


def assert_probe(response: TestApp, status: int, body: dict[str, str]) -> None:
    assert response.status_int == status
    assert response.json == body
    assert response.content_type == "application/json"
    assert response.headers["Cache-Control"] == "no-store"


def test_ready_while_the_bucket_answers(s3_app: Callable[..., TestApp]) -> None:
    app = s3_app()
    assert_probe(app.get("/readyz"), 200, {"status": "ok"})
    assert app.head("/readyz").status_int == 200


@pytest.mark.parametrize(
    ("settings", "kind"),
    [
        (lambda bucket: {"shopsvc.s3.endpoint_url": closed_port_url()}, "EndpointConnectionError"),
        (lambda bucket: {"shopsvc.s3.bucket": f"{bucket.name}-gone"}, "NotFound"),
    ],
    ids=["unreachable", "no such bucket"],
)
def test_not_ready_when_the_bucket_does_not_answer(
    build_app: Callable[..., TestApp],
    bucket: Bucket,
    settings: Callable[[Bucket], dict[str, str]],
    kind: str,
) -> None:
    app = build_app(**bucket.settings(**settings(bucket)))
    body = {"status": "unavailable", "reason": f"media bucket unreachable ({kind})"}
    assert_probe(app.get("/readyz", status=503), 503, body)
    assert app.get("/healthz").json == {"status": "ok"}  # the process itself is up


def test_the_local_storage_adds_no_check(build_app: Callable[..., TestApp]) -> None:
    app = build_app(**{"shopsvc.media_dir": "/nonexistent/media"})
    assert_probe(app.get("/readyz"), 200, {"status": "ok"})
