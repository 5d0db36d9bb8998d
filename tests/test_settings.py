"""Settings (decisions.md §1 and §7 "Settings"): built-in production defaults, the ini keys, and
``SHOPSVC_<KEY>`` environment overrides whose booleans parse like §2 booleans."""

from __future__ import annotations

import ipaddress
import pathlib
from collections.abc import Callable

import pytest
from paste.deploy.loadwsgi import SERVER, loadcontext
from webtest import TestApp

from shopsvc.settings import Settings, SettingsError, env_name, load_settings
from tests.helpers.api import ROOT, Credentials, authorised

INI = {"sqlalchemy.url": "sqlite:///ini.sqlite"}


def load(settings: dict[str, str] | None = None, **environ: str) -> Settings:
    return load_settings({**INI, **(settings or {})}, environ)


def test_built_in_defaults_are_the_production_values() -> None:
    shop = load()
    assert shop.database_url == "sqlite:///ini.sqlite"
    assert shop.api_root == "/shop-api/v3"
    assert shop.header_prefix == "X-Shop"
    assert shop.public_url == ""
    assert shop.page_size == 10
    assert shop.max_page_size == 1000
    assert shop.bulk_limit == 100
    assert shop.allow_basic_over_http is False
    assert shop.oauth_allow_raw_slash is True  # the woocommerce client works out of the box
    assert shop.allow_private_targets is False
    assert shop.auto_migrate is False
    assert shop.trusted_proxies == ()
    assert shop.media_url == "/media"
    assert shop.max_image_bytes == 10485760
    assert (shop.webhooks_timeout, shop.webhooks_max_attempts, shop.webhooks_disable_after) == (
        60,
        5,
        5,
    )
    assert (shop.webhooks_retry_base_seconds, shop.webhooks_concurrency) == (60, 4)
    assert (shop.webhooks_log_days, shop.webhooks_deliver_in_process) == (30, False)
    assert shop.webhooks_refuse_private_delivery_urls is False  # decisions.md accepts them
    assert (shop.currency, shop.price_decimals, shop.prices_include_tax) == ("USD", 2, False)
    assert (shop.tax_based_on, shop.manage_stock, shop.calc_taxes) == ("shipping", True, True)
    assert (shop.weight_unit, shop.dimension_unit, shop.currency_position) == ("kg", "cm", "left")
    assert (shop.thousand_separator, shop.decimal_separator) == (",", ".")
    assert (shop.tax_round_at_subtotal, shop.shipping_tax_class) == (False, "standard")
    assert (shop.out_of_stock_threshold, shop.hide_out_of_stock) == (0, False)
    assert (shop.price_display_suffix, shop.store_name, shop.store_description) == ("", "Shop", "")
    assert shop.timezone == "UTC"
    assert shop.gc_threshold == 100_000


def test_ini_values() -> None:
    shop = load(
        {
            "shopsvc.api_root": "wc-api/v3/",
            "shopsvc.header_prefix": "X-WC",
            "shopsvc.public_url": "https://shop.example/",
            "shopsvc.page_size": " 25 ",
            "shopsvc.auth.allow_basic_over_http": "TRUE",
            "shopsvc.trusted_proxies": "127.0.0.1, 10.0.0.0/8 ::1",
            "shopsvc.thousand_separator": " ",
            "shopsvc.help_url": "https://docs.example/",
        }
    )
    assert shop.api_root == "/wc-api/v3"
    assert shop.api_root_segments == ("wc-api", "v3")
    assert shop.header_prefix == "X-WC"
    assert shop.header("Total") == "X-WC-Total"
    assert shop.public_url == "https://shop.example"
    assert shop.page_size == 25
    assert shop.allow_basic_over_http is True
    assert shop.trusted_proxies == (
        ipaddress.ip_network("127.0.0.1/32"),
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("::1/128"),
    )
    assert shop.thousand_separator == " "
    assert shop.extra["shopsvc.help_url"] == "https://docs.example/"


def test_webhook_delivery_settings() -> None:
    shop = load(
        {
            "shopsvc.webhooks.timeout": "0.5",
            "shopsvc.webhooks.retry_base_seconds": "0",
            "shopsvc.webhooks.concurrency": "16",
            "shopsvc.webhooks.log_days": "7",
            "shopsvc.webhooks.deliver_in_process": "true",
            "shopsvc.webhooks.refuse_private_delivery_urls": "Yes",
        }
    )
    assert (shop.webhooks_timeout, shop.webhooks_retry_base_seconds) == (0.5, 0)
    assert (shop.webhooks_concurrency, shop.webhooks_log_days) == (16, 7)
    assert shop.webhooks_deliver_in_process is True
    assert shop.webhooks_refuse_private_delivery_urls is True
    env = load(SHOPSVC_WEBHOOKS_REFUSE_PRIVATE_DELIVERY_URLS="1")
    assert env.webhooks_refuse_private_delivery_urls is True
    with pytest.raises(SettingsError, match="refuse_private_delivery_urls"):
        load({"shopsvc.webhooks.refuse_private_delivery_urls": "maybe"})


def test_oauth_allow_raw_slash_can_restore_the_strict_check() -> None:
    assert load({"shopsvc.auth.oauth_allow_raw_slash": "false"}).oauth_allow_raw_slash is False
    strict = load(SHOPSVC_AUTH_OAUTH_ALLOW_RAW_SLASH="no")
    assert strict.oauth_allow_raw_slash is False


def test_environment_names() -> None:
    assert env_name("shopsvc.page_size") == "SHOPSVC_PAGE_SIZE"
    assert env_name("shopsvc.api_root") == "SHOPSVC_API_ROOT"
    assert env_name("shopsvc.auth.allow_basic_over_http") == "SHOPSVC_AUTH_ALLOW_BASIC_OVER_HTTP"
    assert env_name("shopsvc.webhooks.max-attempts") == "SHOPSVC_WEBHOOKS_MAX_ATTEMPTS"
    assert env_name("sqlalchemy.url") == "SHOPSVC_DATABASE_URL"


def test_environment_overrides_the_ini() -> None:
    shop = load(
        {"shopsvc.page_size": "10", "shopsvc.api_root": "/shop-api/v3"},
        SHOPSVC_PAGE_SIZE="7",
        SHOPSVC_API_ROOT="/wc-api/v3",
        SHOPSVC_DATABASE_URL="postgresql+psycopg://db.internal/shop",
        SHOPSVC_HEADER_PREFIX="X-WC",
        SHOPSVC_MAX_PAGE_SIZE="50",
        SHOPSVC_PUBLIC_URL="https://env.example",
        SHOPSVC_TRUSTED_PROXIES="192.0.2.0/24",
        SHOPSVC_WEBHOOKS_DISABLE_AFTER="9",
    )
    assert shop.page_size == 7
    assert shop.api_root == "/wc-api/v3"
    assert shop.database_url == "postgresql+psycopg://db.internal/shop"
    assert shop.header_prefix == "X-WC"
    assert shop.max_page_size == 50
    assert shop.public_url == "https://env.example"
    assert shop.trusted_proxies == (ipaddress.ip_network("192.0.2.0/24"),)
    assert shop.webhooks_disable_after == 9


def test_environment_prefix_is_not_doubled() -> None:
    assert load(SHOPSVC_SHOPSVC_PAGE_SIZE="3").page_size == 10
    assert load(SHOPSVC_SQLALCHEMY_URL="sqlite:///other.sqlite").database_url == (
        "sqlite:///ini.sqlite"
    )


def test_environment_overrides_only_shop_settings() -> None:
    shop = load({"other.key": "from ini", "home": "/ini"}, OTHER_KEY="from env", HOME="/root")
    assert shop.extra["other.key"] == "from ini"
    assert shop.extra["home"] == "/ini"
    shop = load({"shopsvc.help_url": "https://ini.example"}, SHOPSVC_HELP_URL="https://env.example")
    assert shop.extra["shopsvc.help_url"] == "https://env.example"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("TRUE", True),
        ("True", True),
        ("1", True),
        ("yes", True),
        ("YES", True),
        (" yes ", True),
        ("false", False),
        ("False", False),
        ("0", False),
        ("no", False),
        ("No", False),
    ],
)
def test_environment_booleans_parse_like_input_booleans(text: str, value: bool) -> None:
    shop = load(
        {"shopsvc.auth.allow_basic_over_http": str(not value).lower()},
        SHOPSVC_AUTH_ALLOW_BASIC_OVER_HTTP=text,
        SHOPSVC_OUTBOUND_ALLOW_PRIVATE_TARGETS=text,
        SHOPSVC_AUTO_MIGRATE=text,
        SHOPSVC_PRICES_INCLUDE_TAX=text,
    )
    assert shop.allow_basic_over_http is value
    assert shop.allow_private_targets is value
    assert shop.auto_migrate is value
    assert shop.prices_include_tax is value


@pytest.mark.parametrize("text", ["maybe", "2", "on", "off", "y", "", "tru"])
def test_other_boolean_spellings_are_refused(text: str) -> None:
    with pytest.raises(SettingsError, match=r"shopsvc\.auto_migrate"):
        load(SHOPSVC_AUTO_MIGRATE=text)
    with pytest.raises(SettingsError, match=r"shopsvc\.calc_taxes"):
        load({"shopsvc.calc_taxes": text})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("SHOPSVC_PAGE_SIZE", "ten"),
        ("SHOPSVC_PAGE_SIZE", "0"),
        ("SHOPSVC_MAX_PAGE_SIZE", "-1"),
        ("SHOPSVC_BULK_LIMIT", "0"),
        ("SHOPSVC_TRUSTED_PROXIES", "10.0.0.0/33"),
        ("SHOPSVC_TRUSTED_PROXIES", "not-an-ip"),
        ("SHOPSVC_WEBHOOKS_TIMEOUT", "0"),
        ("SHOPSVC_WEBHOOKS_RETRY_BASE_SECONDS", "-1"),
        ("SHOPSVC_WEBHOOKS_CONCURRENCY", "0"),
        ("SHOPSVC_WEBHOOKS_MAX_ATTEMPTS", "0"),
        ("SHOPSVC_WEBHOOKS_DISABLE_AFTER", "0"),
        ("SHOPSVC_WEBHOOKS_LOG_DAYS", "0"),
        ("SHOPSVC_WEBHOOKS_DELIVER_IN_PROCESS", "maybe"),
        ("SHOPSVC_GC_THRESHOLD", "-1"),
        ("SHOPSVC_GC_THRESHOLD", "many"),
    ],
)
def test_unusable_values_are_refused(key: str, value: str) -> None:
    with pytest.raises(SettingsError):
        load(**{key: value})


# --- the settings reach the application


def test_api_root_serves_the_legacy_path(
    build_app: Callable[..., TestApp], admin: Credentials
) -> None:
    api = authorised(build_app(**{"shopsvc.api_root": "/wc-api/v3"}), admin)
    for path in ("/wc-api/v3", "/wc-api/v3/", "/WC-API/V3"):
        store = api.get(path, status=200).json["store"]
        assert store["routes"]["/"]["meta"] == {"self": "http://localhost/wc-api/v3/"}
    assert api.get("/wc-api/v3/webhooks/count", status=200).json == {"count": 0}
    assert api.get(f"{ROOT}/webhooks/count", status=404).json["errors"][0]["code"] == (
        "shop_api_no_route"
    )


def test_environment_reaches_the_application(
    build_app: Callable[..., TestApp], admin: Credentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOPSVC_API_ROOT", "/wc-api/v3")
    monkeypatch.setenv("SHOPSVC_HEADER_PREFIX", "X-WC")
    monkeypatch.setenv("SHOPSVC_STORE_NAME", "From the environment")
    monkeypatch.setattr("shopsvc.views.webhooks.ping", lambda *a, **k: None, raising=False)
    app = build_app()
    api = authorised(app, admin)
    assert app.get("/wc-api/v3", status=200).json["store"]["name"] == "From the environment"
    body = {"webhook": {"topic": "order.created", "delivery_url": "http://127.0.0.1:9/"}}
    api.post_json("/wc-api/v3/webhooks", body, status=201)
    response = api.get("/wc-api/v3/webhooks", status=200)
    assert response.headers["X-WC-Total"] == "1"
    assert response.headers["X-WC-TotalPages"] == "1"


def test_environment_boolean_reaches_the_application(
    build_app: Callable[..., TestApp], admin: Credentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the test ini allows Basic over plain HTTP; the environment takes it back
    monkeypatch.setenv("SHOPSVC_AUTH_ALLOW_BASIC_OVER_HTTP", "No")
    api = authorised(build_app(), admin)
    response = api.get(f"{ROOT}/webhooks", status=401)
    assert response.json["errors"][0]["message"] == "oauth_consumer_key parameter is missing."


def test_media_dir_defaults_to_media_next_to_the_ini(tmp_path: pathlib.Path) -> None:
    assert load_settings({}, {}, here=str(tmp_path)).media_dir == str(tmp_path / "media")
    given = load_settings({"shopsvc.media_dir": "/srv/media"}, {}, here=str(tmp_path))
    assert given.media_dir == "/srv/media"
    from_env = load_settings({}, {"SHOPSVC_MEDIA_DIR": "/srv/env"}, here=str(tmp_path))
    assert from_env.media_dir == "/srv/env"


@pytest.mark.parametrize("ini", ["development.ini", "production.ini"])
@pytest.mark.parametrize(("variables", "port"), [({}, "6543"), ({"http_port": "6544"}, "6544")])
def test_the_server_port_comes_from_http_port(
    ini: str, variables: dict[str, str], port: str
) -> None:
    # What `pserve INI [http_port=N]` hands to waitress: PasteDeploy's global variables override
    # the ini's [DEFAULT] only through `get port = http_port` (not through %(http_port)s).
    path = pathlib.Path(__file__).resolve().parent.parent / ini
    server = loadcontext(SERVER, f"config:{path}", global_conf=variables)
    assert server.local_conf["port"] == port
    assert server.local_conf["host"] in ("127.0.0.1", "0.0.0.0")


def test_gc_threshold_tunes_the_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """``shopsvc.gc_threshold``: the youngest generation's threshold (the middle one every
    500 000 net allocations, at least after each youngest; the oldest after 100 of those);
    0 leaves the collector as it is; the start-up heap is frozen once per process."""
    import gc

    from shopsvc import app as app_module

    frozen: list[bool] = []
    monkeypatch.setattr(app_module, "_heap_frozen", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    before = gc.get_threshold()
    try:
        app_module.tune_gc(0)
        assert gc.get_threshold() == before
        assert frozen == []
        app_module.tune_gc(20_000)
        assert gc.get_threshold() == (20_000, 25, 100)
        app_module.tune_gc(100_000)
        assert gc.get_threshold() == (100_000, 5, 100)
        app_module.tune_gc(1_000_000)
        assert gc.get_threshold() == (1_000_000, 1, 100)
        assert frozen == [True]
    finally:
        gc.set_threshold(*before)
