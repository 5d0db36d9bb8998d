"""Hostile-input regressions of the protocol layer (issue "Hostile input"): odd path shapes never
skip authentication, no request waits on a lock its own request holds, a lock that cannot be had
in time is a 503, and oversized numbers, bodies and nesting are 4xx — on both databases."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import metadata
from tests.helpers.api import ROOT, Credentials, authorised, errors
from tests.helpers.server import PNG, LocalServer, QuietHandler

NO_ROUTE = [
    {
        "code": "shop_api_no_route",
        "message": "No route was found matching the URL and request method",
    }
]
#: One collection of every family (the odd spellings are built around these).
FAMILY_PATHS = (
    "/webhooks",
    "/taxes",
    "/taxes/classes",
    "/products",
    "/products/categories",
    "/products/tags",
    "/products/shipping_classes",
    "/products/attributes",
    "/products/attributes/1/terms",
)


def odd_spellings(path: str) -> list[str]:
    """The path below the API root spelled with empty, ``.`` and ``..`` segments."""
    prefix, version = ROOT.strip("/").split("/")
    return [
        f"//{prefix}/{version}{path}",
        f"/{prefix}//{version}{path}",
        f"/{prefix}/{version}/{path}",
        f"/{prefix}/{version}/.{path}",
        f"/{prefix}/./{version}{path}",
        f"/elsewhere/../{prefix}/{version}{path}",
        f"/{prefix}/{version}{path}/../{path.strip('/').split('/')[-1]}",
    ]


def row_counts(engine: sa.Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            table.name: conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for table in metadata.sorted_tables
        }


# --- path shapes


@pytest.mark.parametrize("path", FAMILY_PATHS)
def test_odd_path_spellings_are_no_route_with_or_without_credentials(
    app: TestApp, api: TestApp, path: str
) -> None:
    for odd in odd_spellings(path):
        for client in (app, api):
            for method in ("GET", "POST", "DELETE"):
                response = client.request(odd, method=method, status="*", expect_errors=True)
                assert response.status_int == 404, (odd, method, response.status)
                assert errors(response) == NO_ROUTE
    # The routed spelling: 401 without credentials, 200 with them.
    response = app.get(f"{ROOT}{path}", status=401)
    assert errors(response)[0]["code"] == "shop_api_authentication_error"
    if path.endswith("/terms"):
        api.post_json(f"{ROOT}/products/attributes", {"product_attribute": {"name": "Colour"}})
    api.get(f"{ROOT}{path}", status=200)


def test_unauthenticated_doubled_slash_delete_changes_nothing(
    app: TestApp, api: TestApp, engine: sa.Engine
) -> None:
    product = api.post_json(f"{ROOT}/products", {"product": {"title": "Kept"}}, status=201)
    product_id = product.json["product"]["id"]
    before = row_counts(engine)
    prefix, version = ROOT.strip("/").split("/")
    for odd in (
        f"//{prefix}//{version}/products/{product_id}?force=true",
        f"/{prefix}//{version}/products/{product_id}?force=true",
        f"//{prefix}/{version}/products/{product_id}?force=true",
    ):
        response = app.delete(odd, status=404)
        assert errors(response) == NO_ROUTE
        response = app.post_json(odd.replace(f"/{product_id}?force=true", "/bulk"), {}, status=404)
        assert errors(response) == NO_ROUTE
    assert row_counts(engine) == before
    api.get(f"{ROOT}/products/{product_id}", status=200)


def test_the_root_index_and_media_take_no_odd_spellings(app: TestApp) -> None:
    app.get(ROOT, status=200)
    app.get(f"{ROOT}/", status=200)
    app.get("/media/placeholder.png", status=200)
    for odd in (f"/{ROOT}", f"{ROOT}//", "//media/placeholder.png", "/media/./placeholder.png"):
        assert errors(app.get(odd, status=404)) == NO_ROUTE


def test_unauthenticated_odd_paths_never_delay_an_authenticated_request(
    app: TestApp, admin: Credentials
) -> None:
    """Two clients send ``//`` paths without credentials while a third reads with them."""
    prefix, version = ROOT.strip("/").split("/")
    stop = threading.Event()
    seen: list[int] = []

    def hostile() -> None:
        client = TestApp(app.app)
        while not stop.is_set():
            response = client.delete(
                f"//{prefix}//{version}/products/1?force=true", expect_errors=True
            )
            seen.append(response.status_int)
            time.sleep(0.01)

    threads = [threading.Thread(target=hostile) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        friendly = authorised(app, admin)
        for _ in range(10):
            started = time.perf_counter()
            friendly.get(f"{ROOT}/products", status=200)
            assert time.perf_counter() - started < 1.0
    finally:
        stop.set()
        for thread in threads:
            thread.join(5)
    assert seen and set(seen) == {404}


# --- locks


@pytest.fixture
def impatient(build_app: Callable[..., TestApp], admin: Credentials) -> TestApp:
    """The app with a lock timeout of 0.3 s, called as an administrator."""
    return authorised(build_app(**{"shopsvc.db_lock_timeout": "0.3"}), admin)


@pytest.fixture
def held_lock(engine: sa.Engine) -> Iterator[Callable[[int], None]]:
    """Holds, in another connection, the lock a write of tax rate ``rate_id`` needs: SQLite's
    write lock, or PostgreSQL's row lock on the rate."""
    conn = engine.connect()

    def hold(rate_id: int) -> None:
        conn.info["write"] = True  # on SQLite: BEGIN IMMEDIATE, the write lock
        conn.begin()
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT id FROM tax_rates WHERE id = {rate_id} FOR UPDATE")

    yield hold
    conn.rollback()
    conn.close()


def test_a_lock_that_cannot_be_had_in_time_is_503_busy(
    impatient: TestApp, held_lock: Callable[[int], None], engine: sa.Engine
) -> None:
    rate = impatient.post_json(f"{ROOT}/taxes", {"tax": {"rate": "10"}}, status=201)
    rate_id = rate.json["tax"]["id"]
    held_lock(rate_id)
    started = time.perf_counter()
    response = impatient.put_json(f"{ROOT}/taxes/{rate_id}", {"tax": {"rate": "20"}}, status=503)
    assert time.perf_counter() - started < 3
    assert response.headers["Retry-After"] == "1"
    assert errors(response) == [
        {
            "code": "shop_api_busy",
            "message": "The database is busy with other requests; try again in a moment.",
        }
    ]


# --- no write lock across network I/O


class _LockWatchingImage(QuietHandler):
    """Serves a PNG; while serving, checks that nobody holds the database's write lock (SQLite)
    or sits in an open transaction (PostgreSQL)."""

    engine: sa.Engine
    findings: list[str]

    def do_GET(self) -> None:
        self.findings.append(_lock_state(self.engine))
        self.send(200, PNG, "image/png")


def _lock_state(engine: sa.Engine) -> str:
    if engine.dialect.name == "sqlite":
        raw = engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA busy_timeout = 0")  # type: ignore[union-attr]
            raw.driver_connection.execute("BEGIN IMMEDIATE")  # type: ignore[union-attr]
            raw.driver_connection.execute("ROLLBACK")  # type: ignore[union-attr]
            return "free"
        except Exception as exc:  # sqlite3.OperationalError: database is locked
            return f"locked: {exc}"
        finally:
            raw.close()
    with engine.connect() as conn:
        waiting = conn.exec_driver_sql(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND state LIKE 'idle in transaction%%' AND pid <> pg_backend_pid()"
        ).scalar_one()
    return "free" if waiting == 0 else f"{waiting} open transactions"


@pytest.fixture
def lock_watching_host(engine: sa.Engine) -> Iterator[tuple[str, list[str]]]:
    findings: list[str] = []
    handler = type("Handler", (_LockWatchingImage,), {"engine": engine, "findings": findings})
    with LocalServer(handler) as server:
        yield server.url, findings


def test_images_are_downloaded_outside_the_write_transaction(
    api: TestApp, lock_watching_host: tuple[str, list[str]]
) -> None:
    host, findings = lock_watching_host
    image = {"src": f"{host}/a.png", "position": 0}
    product = api.post_json(f"{ROOT}/products", {"product": {"title": "P", "images": [image]}})
    product_id = product.json["product"]["id"]
    api.put_json(f"{ROOT}/products/{product_id}", {"product": {"images": [image]}})
    api.post_json(
        f"{ROOT}/products/bulk",
        {"products": [{"title": "Q", "images": [image]}, {"id": product_id, "images": [image]}]},
    )
    api.post_json(
        f"{ROOT}/products/categories",
        {"product_category": {"name": "C", "image": f"{host}/c.png"}},
        status=201,
    )
    assert findings == ["free"] * 4
    # Two elements of one bulk sharing a URL download it once and each get their own file.
    listed = api.get(f"{ROOT}/products?filter[limit]=-1").json["products"]
    sources = [p["images"][0]["src"] for p in listed]
    assert len(set(sources)) == len(sources)


# --- numbers, nesting and size


def nested(depth: int) -> str:
    return '{"tax":' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


@pytest.mark.parametrize("depth", [65, 400, 5000, 200000])
def test_json_nested_too_deeply_is_invalid_json(
    api: TestApp, engine: sa.Engine, depth: int
) -> None:
    before = row_counts(engine)
    response = api.post(f"{ROOT}/taxes", nested(depth), content_type="application/json", status=400)
    assert errors(response)[0]["code"] == "shop_api_invalid_json"
    assert row_counts(engine) == before


def test_json_nesting_up_to_the_limit_is_read(api: TestApp) -> None:
    response = api.post(f"{ROOT}/taxes", nested(64), content_type="application/json", status=400)
    # Read, then refused by the field's own check, not by the parser.
    assert errors(response)[0]["code"] != "shop_api_invalid_json"


def test_a_body_over_max_body_bytes_is_413_before_it_is_read(
    build_app: Callable[..., TestApp], admin: Credentials, engine: sa.Engine
) -> None:
    client = authorised(build_app(**{"shopsvc.max_body_bytes": "1000"}), admin)
    body = json.dumps({"tax": {"name": "x" * 2000}})
    for path in (f"{ROOT}/taxes", f"{ROOT}/products/bulk", f"{ROOT}/nowhere"):
        response = client.post(path, body, content_type="application/json", status=413)
        assert errors(response) == [
            {
                "code": "shop_api_request_entity_too_large",
                "message": "The request body is larger than 1000 bytes.",
            }
        ]
    client.post_json(f"{ROOT}/taxes", {"tax": {"name": "short"}}, status=201)


@pytest.mark.parametrize("parameter", ["page", "filter[offset]", "filter[in]", "filter[not_in]"])
def test_query_integers_of_thousands_of_digits_are_400(api: TestApp, parameter: str) -> None:
    for path in ("/products", "/webhooks", "/taxes"):
        response = api.get(f"{ROOT}{path}?{parameter}={'9' * 4400}", status=400)
        assert errors(response) == [
            {
                "code": "shop_api_invalid_param",
                "message": f"Invalid parameter {parameter}: must be at most 2147483647.",
            }
        ]


def test_path_ids_of_thousands_of_digits_are_not_found(api: TestApp) -> None:
    huge = "9" * 5000
    for path, code in (
        (f"/products/{huge}", "shop_api_no_product_found"),
        (f"/webhooks/{huge}", "shop_api_no_webhook_found"),
        (f"/taxes/{huge}", "shop_api_invalid_tax_id"),
        (f"/products/categories/{huge}", "shop_api_invalid_product_category_id"),
    ):
        response = api.get(f"{ROOT}{path}", status=404)
        assert errors(response)[0]["code"] == code
