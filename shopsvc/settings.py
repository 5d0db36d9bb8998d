"""Typed application settings, parsed once from the ini file and the environment.

Every ``shopsvc.*`` key may be overridden by an environment variable ``SHOPSVC_<KEY>`` (dots and
dashes become underscores, upper case; the prefix is not doubled), and ``sqlalchemy.url`` by
``SHOPSVC_DATABASE_URL`` (decisions.md §1 and §7). Built-in defaults are the production values.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import urlsplit

# The boolean spellings of decisions.md §2 (any case); anything else is refused.
TRUE_WORDS = frozenset({"true", "1", "yes"})
FALSE_WORDS = frozenset({"false", "0", "no"})


class SettingsError(ValueError):
    """A setting has a value that cannot be used."""


def parse_bool(value: object, key: str = "value") -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise SettingsError(f"{key}: {value!r} is not a boolean")


def env_name(key: str) -> str:
    """``shopsvc.auth.allow_basic_over_http`` → ``SHOPSVC_AUTH_ALLOW_BASIC_OVER_HTTP``."""
    if key == "sqlalchemy.url":
        return "SHOPSVC_DATABASE_URL"
    name = key.replace(".", "_").replace("-", "_").upper()
    return name


def database_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` URLs name no driver, so SQLAlchemy would pick
    psycopg2, which shopsvc does not use: they mean psycopg 3 (``postgresql+psycopg://``).
    A URL that names its driver is kept as it is."""
    text = url.strip()
    for scheme in ("postgresql://", "postgres://"):
        if text.startswith(scheme):
            return "postgresql+psycopg://" + text[len(scheme) :]
    return text


def _overridable(key: str) -> bool:
    """Only ``shopsvc.*`` keys and ``sqlalchemy.url`` (other ini keys would otherwise be
    overridden by unrelated variables such as ``HOME`` or ``PATH``)."""
    return key == "sqlalchemy.url" or key.startswith("shopsvc.")


def apply_environment(settings: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """The ini settings with every ``SHOPSVC_*`` environment override applied."""
    merged = dict(settings)
    overridable = (key for key in (*merged, *SETTING_KEYS) if _overridable(key))
    known = {env_name(key): key for key in overridable}
    for name, key in known.items():
        if name in environ:
            merged[key] = environ[name]
    return merged


@dataclass(frozen=True)
class RatePolicy:
    """``shopsvc.rate_limit``: ``amount`` requests in any ``seconds``, and with a ``burst``, at
    most that many in any one second as well (two windows checked together)."""

    amount: int
    seconds: int
    burst: int | None = None


@dataclass(frozen=True)
class Settings:
    database_url: str = ""
    api_root: str = "/shop-api/v3"
    header_prefix: str = "X-Shop"
    public_url: str = ""
    page_size: int = 10
    max_page_size: int = 1000
    bulk_limit: int = 100
    allow_basic_over_http: bool = False
    # The Python ``woocommerce`` client signs a ``/`` in a query value unescaped: accepted by
    # default so that it works out of the box; false restores the original's strictness.
    oauth_allow_raw_slash: bool = True
    # PostgreSQL: keep verified keys in memory, told of their changes by NOTIFY
    # (auth/key_cache.py).
    cache_keys: bool = True
    allow_private_targets: bool = False
    media_dir: str = "media"
    # A path below public_url, or an absolute URL (an object store's public URL, a CDN).
    media_url: str = "/media"
    # Where stored images live: ``local`` (below media_dir) or ``s3`` (an S3-compatible bucket).
    media_storage: str = "local"
    s3_bucket: str = ""
    s3_prefix: str = ""
    s3_endpoint_url: str = ""
    s3_region: str = ""
    s3_addressing_style: str = "auto"
    max_image_bytes: int = 10 * 1024 * 1024
    auto_migrate: bool = False
    db_lock_timeout: float = 5.0
    # How long the response of a write sent with an Idempotency-Key is kept and replayed (hours).
    idempotency_hours: float = 24.0
    # Statements slower than this many milliseconds are logged (shopsvc.sql.slow); 0: off.
    slow_sql_ms: float = 200.0
    # The garbage collector's youngest-generation threshold (Python's default: 700); 0: leave it.
    gc_threshold: int = 100_000
    max_body_bytes: int = 10 * 1024 * 1024
    trusted_proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    # Request metrics recorded and ``GET /metrics`` served (docs/metrics.md).
    metrics: bool = True
    # The client networks ``/metrics`` answers (404 elsewhere): loopback only by default.
    metrics_allow: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = (
        ipaddress.ip_network("127.0.0.0/8"),
        ipaddress.ip_network("::1/128"),
    )
    # Browser origins allowed to call the API (``scheme://host[:port]``, or ``*``); empty: no CORS.
    cors_origins: tuple[str, ...] = ()
    # Requests per consumer key (per client address without one): None, the default, is no limit
    # (web/rate_limit.py; ``shopsvc.rate_limit = 120/minute burst 20``).
    rate_limit: RatePolicy | None = None
    # Where the counters live: ``memory://`` (this process) or ``redis://host:port[/db]``.
    rate_limit_storage_url: str = "memory://"
    # The prefix of the counters' keys in Redis (several shops may share one Redis).
    rate_limit_key_prefix: str = "shopsvc"
    webhooks_timeout: float = 60.0
    webhooks_max_attempts: int = 5
    webhooks_disable_after: int = 5
    webhooks_retry_base_seconds: float = 60.0
    webhooks_concurrency: int = 4
    webhooks_log_days: int = 30
    webhooks_deliver_in_process: bool = False
    # Refuse at create and edit a delivery URL that allow_private_targets = false would never
    # deliver to (delivery/targets.py); off by default, as decisions.md accepts one.
    webhooks_refuse_private_delivery_urls: bool = False
    # store settings
    store_name: str = "Shop"
    store_description: str = ""
    timezone: str = "UTC"
    currency: str = "USD"
    price_decimals: int = 2
    prices_include_tax: bool = False
    tax_based_on: str = "shipping"
    store_country: str = ""
    store_state: str = ""
    store_postcode: str = ""
    store_city: str = ""
    manage_stock: bool = True
    weight_unit: str = "kg"
    dimension_unit: str = "cm"
    currency_position: str = "left"
    thousand_separator: str = ","
    decimal_separator: str = "."
    calc_taxes: bool = True
    tax_round_at_subtotal: bool = False
    shipping_tax_class: str = "standard"
    out_of_stock_threshold: int = 0
    hide_out_of_stock: bool = False
    price_display_suffix: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def api_root_segments(self) -> tuple[str, ...]:
        return tuple(part.lower() for part in self.api_root.strip("/").split("/") if part)

    @property
    def media_path(self) -> str:
        """The path the local storage serves the files at: ``media_url``, or its path when it
        is an absolute URL (a CDN in front of the app asks the app for the same path)."""
        if media_url_is_absolute(self.media_url):
            return "/" + urlsplit(self.media_url).path.strip("/")
        return self.media_url

    def header(self, suffix: str) -> str:
        """A header name under the configured prefix: ``header("Total")`` → ``X-Shop-Total``."""
        return f"{self.header_prefix}-{suffix}"

    def zero(self) -> Decimal:
        return Decimal(0).scaleb(-self.price_decimals)


# ini key → (Settings attribute, kind)
_FIELDS: dict[str, tuple[str, str]] = {
    "sqlalchemy.url": ("database_url", "str"),
    "shopsvc.api_root": ("api_root", "str"),
    "shopsvc.header_prefix": ("header_prefix", "str"),
    "shopsvc.public_url": ("public_url", "str"),
    "shopsvc.page_size": ("page_size", "int"),
    "shopsvc.max_page_size": ("max_page_size", "int"),
    "shopsvc.bulk_limit": ("bulk_limit", "int"),
    "shopsvc.auth.allow_basic_over_http": ("allow_basic_over_http", "bool"),
    "shopsvc.auth.oauth_allow_raw_slash": ("oauth_allow_raw_slash", "bool"),
    "shopsvc.auth.cache_keys": ("cache_keys", "bool"),
    "shopsvc.outbound.allow_private_targets": ("allow_private_targets", "bool"),
    "shopsvc.media_dir": ("media_dir", "str"),
    "shopsvc.media_url": ("media_url", "str"),
    "shopsvc.media_storage": ("media_storage", "str"),
    "shopsvc.s3.bucket": ("s3_bucket", "str"),
    "shopsvc.s3.prefix": ("s3_prefix", "str"),
    "shopsvc.s3.endpoint_url": ("s3_endpoint_url", "str"),
    "shopsvc.s3.region": ("s3_region", "str"),
    "shopsvc.s3.addressing_style": ("s3_addressing_style", "str"),
    "shopsvc.max_image_bytes": ("max_image_bytes", "int"),
    "shopsvc.auto_migrate": ("auto_migrate", "bool"),
    "shopsvc.db_lock_timeout": ("db_lock_timeout", "float"),
    "shopsvc.idempotency_hours": ("idempotency_hours", "float"),
    "shopsvc.slow_sql_ms": ("slow_sql_ms", "float"),
    "shopsvc.gc_threshold": ("gc_threshold", "int"),
    "shopsvc.max_body_bytes": ("max_body_bytes", "int"),
    "shopsvc.trusted_proxies": ("trusted_proxies", "networks"),
    "shopsvc.metrics": ("metrics", "bool"),
    "shopsvc.metrics.allow": ("metrics_allow", "networks"),
    "shopsvc.cors_origins": ("cors_origins", "origins"),
    "shopsvc.rate_limit": ("rate_limit", "rate"),
    "shopsvc.rate_limit.storage_url": ("rate_limit_storage_url", "str"),
    "shopsvc.rate_limit.key_prefix": ("rate_limit_key_prefix", "str"),
    "shopsvc.webhooks.timeout": ("webhooks_timeout", "float"),
    "shopsvc.webhooks.max_attempts": ("webhooks_max_attempts", "int"),
    "shopsvc.webhooks.disable_after": ("webhooks_disable_after", "int"),
    "shopsvc.webhooks.retry_base_seconds": ("webhooks_retry_base_seconds", "float"),
    "shopsvc.webhooks.concurrency": ("webhooks_concurrency", "int"),
    "shopsvc.webhooks.log_days": ("webhooks_log_days", "int"),
    "shopsvc.webhooks.deliver_in_process": ("webhooks_deliver_in_process", "bool"),
    "shopsvc.webhooks.refuse_private_delivery_urls": (
        "webhooks_refuse_private_delivery_urls",
        "bool",
    ),
    "shopsvc.store_name": ("store_name", "str"),
    "shopsvc.store_description": ("store_description", "str"),
    "shopsvc.timezone": ("timezone", "str"),
    "shopsvc.currency": ("currency", "str"),
    "shopsvc.price_decimals": ("price_decimals", "int"),
    "shopsvc.prices_include_tax": ("prices_include_tax", "bool"),
    "shopsvc.tax_based_on": ("tax_based_on", "str"),
    "shopsvc.store_country": ("store_country", "str"),
    "shopsvc.store_state": ("store_state", "str"),
    "shopsvc.store_postcode": ("store_postcode", "str"),
    "shopsvc.store_city": ("store_city", "str"),
    "shopsvc.manage_stock": ("manage_stock", "bool"),
    "shopsvc.weight_unit": ("weight_unit", "str"),
    "shopsvc.dimension_unit": ("dimension_unit", "str"),
    "shopsvc.currency_position": ("currency_position", "str"),
    "shopsvc.thousand_separator": ("thousand_separator", "raw"),
    "shopsvc.decimal_separator": ("decimal_separator", "raw"),
    "shopsvc.calc_taxes": ("calc_taxes", "bool"),
    "shopsvc.tax_round_at_subtotal": ("tax_round_at_subtotal", "bool"),
    "shopsvc.shipping_tax_class": ("shipping_tax_class", "str"),
    "shopsvc.out_of_stock_threshold": ("out_of_stock_threshold", "int"),
    "shopsvc.hide_out_of_stock": ("hide_out_of_stock", "bool"),
    "shopsvc.price_display_suffix": ("price_display_suffix", "raw"),
}
# Keys read from ``Settings.extra`` (no typed field) that the environment may override as well.
_EXTRA_KEYS = ("shopsvc.help_url",)
SETTING_KEYS: tuple[str, ...] = (*_FIELDS, *_EXTRA_KEYS)


def _networks(
    text: str, key: str = "shopsvc.trusted_proxies"
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    parts = [part for part in text.replace(",", " ").split() if part]
    try:
        return tuple(ipaddress.ip_network(part, strict=False) for part in parts)
    except ValueError as exc:
        raise SettingsError(f"{key}: {exc}") from exc


#: ``scheme://host[:port]``: what a browser sends in ``Origin`` (no path, no trailing slash).
_ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://[^/?#@\s]+")
_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def _origins(text: str) -> tuple[str, ...]:
    """``shopsvc.cors_origins``: origins separated by spaces or commas, lower-cased, without a
    trailing ``/`` or the scheme's default port (browsers send neither); ``*`` allows any."""
    origins: list[str] = []
    for part in text.replace(",", " ").split():
        origin = part.lower().rstrip("/")
        if origin != "*":
            if not _ORIGIN.fullmatch(origin):
                raise SettingsError(
                    f"shopsvc.cors_origins: {part!r} is not an origin (scheme://host[:port]) or *"
                )
            scheme = origin.split(":", 1)[0]
            default_port = _DEFAULT_PORTS.get(scheme)
            if default_port and origin.endswith(default_port):
                origin = origin[: -len(default_port)]
        if origin not in origins:
            origins.append(origin)
    return tuple(origins)


_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
#: ``120/minute``, ``1000/hour``, ``50/10 seconds``, each with an optional ``burst 20``.
_RATE = re.compile(
    r"(?P<amount>[0-9]{1,9})\s*/\s*(?P<multiple>[0-9]{1,6}\s*)?(?P<unit>second|minute|hour|day)s?"
    r"(?:\s+burst\s+(?P<burst>[0-9]{1,9}))?",
    re.IGNORECASE,
)
RATE_LIMIT_OFF = frozenset({"", "off", "false", "no", "0"})
RATE_LIMIT_STORAGES = ("memory://", "redis://", "rediss://", "redis+unix://")


def _rate(text: str) -> RatePolicy | None:
    """``shopsvc.rate_limit``: ``<N>/[<M> ]<second|minute|hour|day>[ burst <B>]``; empty or
    ``off`` for no limit. The burst caps any one second, so it must be below ``N`` and the
    window longer than a second."""
    raw = text.strip()
    if raw.lower() in RATE_LIMIT_OFF:
        return None
    match = _RATE.fullmatch(" ".join(raw.split()))
    if match is None:
        raise SettingsError(
            f"shopsvc.rate_limit: {text!r} is not a rate such as 120/minute, 1000/hour or "
            "120/minute burst 20 (or off)"
        )
    amount = int(match["amount"])
    seconds = int(match["multiple"] or 1) * _UNIT_SECONDS[match["unit"].lower()]
    burst = int(match["burst"]) if match["burst"] is not None else None
    if amount < 1 or seconds < 1:
        raise SettingsError(f"shopsvc.rate_limit: {text!r} allows no request at all")
    if burst is not None and not (1 <= burst < amount and seconds > 1):
        raise SettingsError(
            f"shopsvc.rate_limit: {text!r}: the burst (requests in any one second) must be at "
            "least 1 and below the rate's count, over a window longer than a second"
        )
    return RatePolicy(amount, seconds, burst)


def _rate_limit_storage(result: Settings) -> str:
    url = result.rate_limit_storage_url
    if not url.lower().startswith(RATE_LIMIT_STORAGES) or any(c.isspace() for c in url):
        raise SettingsError(
            f"shopsvc.rate_limit.storage_url: {url!r} is not memory:// or a redis:// URL"
        )
    if not re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", result.rate_limit_key_prefix):
        raise SettingsError(
            f"shopsvc.rate_limit.key_prefix: {result.rate_limit_key_prefix!r} is not 1-64 "
            "letters, digits, _ . : -"
        )
    return url


MEDIA_STORAGES = ("local", "s3")
ADDRESSING_STYLES = ("auto", "virtual", "path")
#: ``http(s)://host[:port][/path]``: an absolute ``media_url`` or an ``s3.endpoint_url``.
_HTTP_URL = re.compile(r"https?://[^/?#@\s]+(/[^?#\s]*)?", re.IGNORECASE)
#: A bucket name as S3 and its look-alikes accept it (no ``/``, no space).
_BUCKET = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{1,254}")


def media_url_is_absolute(media_url: str) -> bool:
    """``media_url`` names a scheme and host: records use it as it is, without ``public_url``."""
    return "://" in media_url


def _media_url(raw: str, storage: str) -> str:
    """``shopsvc.media_url``: a path (``/`` + its segments) or an absolute ``http(s)`` URL
    (without its trailing ``/``); the local storage serves it, so an absolute one needs a path."""
    if not media_url_is_absolute(raw):
        return "/" + raw.strip("/")
    url = raw.rstrip("/")
    if not _HTTP_URL.fullmatch(url):
        raise SettingsError(
            f"shopsvc.media_url: {raw!r} is neither a path nor an http(s) URL without a query"
        )
    if storage.strip().lower() != "s3" and not urlsplit(url).path.strip("/"):
        raise SettingsError(
            f"shopsvc.media_url: {raw!r} has no path, where the local media storage would serve "
            "the files (e.g. https://cdn.example.com/media)"
        )
    return url


def _media_storage(result: Settings) -> dict[str, str]:
    """The media storage settings, checked: ``media_storage`` and (for ``s3``) the bucket's."""
    storage = result.media_storage.lower()
    if storage not in MEDIA_STORAGES:
        raise SettingsError(f"shopsvc.media_storage: {result.media_storage!r} is not local or s3")
    style = result.s3_addressing_style.lower()
    if style not in ADDRESSING_STYLES:
        raise SettingsError(
            f"shopsvc.s3.addressing_style: {result.s3_addressing_style!r} is not auto, virtual "
            "or path"
        )
    prefix = result.s3_prefix.strip("/")
    if prefix and any(part in ("", ".", "..") or "\\" in part for part in prefix.split("/")):
        raise SettingsError(
            f"shopsvc.s3.prefix: {result.s3_prefix!r} is not a key prefix (segments separated "
            "by /, none empty, . or ..)"
        )
    endpoint = result.s3_endpoint_url.rstrip("/")
    if endpoint and not _HTTP_URL.fullmatch(endpoint):
        raise SettingsError(
            f"shopsvc.s3.endpoint_url: {result.s3_endpoint_url!r} is not an http(s) URL"
        )
    if any(char.isspace() for char in result.s3_region):
        raise SettingsError(f"shopsvc.s3.region: {result.s3_region!r} is not a region name")
    bucket = result.s3_bucket
    if bucket and not _BUCKET.fullmatch(bucket):
        raise SettingsError(f"shopsvc.s3.bucket: {bucket!r} is not a bucket name")
    if storage == "s3" and not bucket:
        raise SettingsError("shopsvc.s3.bucket: must be set when shopsvc.media_storage is s3")
    return {
        "media_storage": storage,
        "s3_prefix": prefix,
        "s3_endpoint_url": endpoint,
        "s3_addressing_style": style,
    }


def _convert(key: str, kind: str, raw: str) -> object:
    if kind == "raw":
        return raw
    if kind == "str":
        return raw.strip()
    if kind == "bool":
        return parse_bool(raw, key)
    if kind == "int":
        try:
            return int(str(raw).strip())
        except ValueError:
            raise SettingsError(f"{key}: {raw!r} is not an integer") from None
    if kind == "float":
        try:
            number = float(str(raw).strip())
        except ValueError:
            raise SettingsError(f"{key}: {raw!r} is not a number") from None
        if not number >= 0 or number == float("inf"):
            raise SettingsError(f"{key}: {raw!r} is not a non-negative number")
        return number
    if kind == "origins":
        return _origins(raw)
    if kind == "rate":
        return _rate(raw)
    return _networks(raw, key)


def load_settings(
    settings: Mapping[str, str],
    environ: Mapping[str, str] | None = None,
    here: str | None = None,
) -> Settings:
    """Parse the ini ``[app:main]`` settings (plus environment overrides) into ``Settings``.

    ``here`` is the ini file's folder: the default ``media_dir`` is ``media`` inside it."""
    merged = apply_environment(settings, os.environ if environ is None else environ)
    if "shopsvc.media_dir" not in merged and here:
        merged["shopsvc.media_dir"] = os.path.join(here, "media")
    values: dict[str, object] = {}
    for key, (attr, kind) in _FIELDS.items():
        if key in merged and merged[key] is not None:
            values[attr] = _convert(key, kind, merged[key])
    values["extra"] = {k: v for k, v in merged.items() if k not in _FIELDS}
    result = Settings(**values)  # type: ignore[arg-type]
    root = "/" + result.api_root.strip("/")
    public_url = result.public_url.rstrip("/")
    media_url = _media_url(result.media_url, result.media_storage)
    if result.page_size < 1 or result.max_page_size < 1 or result.bulk_limit < 1:
        raise SettingsError("page_size, max_page_size and bulk_limit must be positive")
    if result.max_body_bytes < 1:
        raise SettingsError("shopsvc.max_body_bytes must be positive")
    if result.gc_threshold < 0:
        raise SettingsError("shopsvc.gc_threshold must not be negative")
    for key, value in (
        ("shopsvc.webhooks.max_attempts", result.webhooks_max_attempts),
        ("shopsvc.webhooks.disable_after", result.webhooks_disable_after),
        ("shopsvc.webhooks.concurrency", result.webhooks_concurrency),
        ("shopsvc.webhooks.log_days", result.webhooks_log_days),
    ):
        if value < 1:
            raise SettingsError(f"{key} must be positive")
    if result.webhooks_timeout <= 0:
        raise SettingsError("shopsvc.webhooks.timeout must be positive")
    return dataclasses.replace(
        result,
        database_url=database_url(result.database_url),
        api_root=root,
        public_url=public_url,
        media_url=media_url,
        rate_limit_storage_url=_rate_limit_storage(result),
        **_media_storage(result),
    )
