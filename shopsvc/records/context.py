"""What building a record needs, without an HTTP request in hand.

A view makes one from its request (``request.record_context``); the CLI and the webhook delivery
worker make one from an engine connection and the settings (:meth:`RecordContext.for_system`).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote

from sqlalchemy import Connection

from shopsvc.domain import pricing
from shopsvc.settings import Settings, media_url_is_absolute

#: The packaged image shown for a product without one (served below ``media_url``).
PLACEHOLDER = "placeholder.png"
#: A file name that ``quote`` leaves as it is (only its always-safe characters and ``/``): most
#: are, and a match costs far less than ``quote`` (a page of products has thousands of images).
_UNQUOTED = re.compile(r"[A-Za-z0-9_.~/-]*")


@dataclass(frozen=True)
class RecordContext:
    """The inputs of every record: where the data is, how the shop is set up, the URL the
    client sees, the capabilities of whoever reads it, and the time of reading."""

    conn: Connection
    settings: Settings
    public_url: str
    capabilities: frozenset[str]
    now: dt.datetime

    @classmethod
    def for_system(
        cls,
        conn: Connection,
        settings: Settings,
        capabilities: Iterable[str] = (),
        now: dt.datetime | None = None,
    ) -> RecordContext:
        """A context without a request (CLI, delivery worker): links use ``public_url`` (or
        ``http://localhost`` when it is not configured)."""
        return cls(
            conn=conn,
            settings=settings,
            public_url=settings.public_url or "http://localhost",
            capabilities=frozenset(capabilities),
            now=now or dt.datetime.now(dt.UTC),
        )

    def may(self, capability: str) -> bool:
        return capability in self.capabilities

    def media_url(self, file: str) -> str:
        """The public URL of a stored file (``file`` as in ``media.file``, ``quote``d)."""
        return self.media_prefix + (file if _UNQUOTED.fullmatch(file) else quote(file))

    @functools.cached_property
    def media_prefix(self) -> str:
        """``{public_url}{media_url}/`` (``{media_url}/`` when ``media_url`` is absolute: an
        object store or a CDN): where every stored file's URL starts."""
        media_url = self.settings.media_url
        if media_url_is_absolute(media_url):
            return f"{media_url}/"
        return f"{self.public_url}{media_url}/"

    @property
    def placeholder_url(self) -> str:
        return self.media_url(PLACEHOLDER)

    @property
    def money(self) -> pricing.MoneyFormat:
        """How the shop writes amounts in ``price_html``."""
        shop = self.settings
        return _money_format(
            shop.currency,
            shop.currency_position,
            shop.thousand_separator,
            shop.decimal_separator,
            shop.price_decimals,
            shop.price_display_suffix,
        )


@functools.lru_cache(maxsize=16)
def _money_format(
    currency: str, position: str, thousands: str, point: str, decimals: int, suffix: str
) -> pricing.MoneyFormat:
    """One (immutable) format per store setting, not one per request."""
    return pricing.MoneyFormat.for_currency(
        currency,
        position=position,
        thousand_separator=thousands,
        decimal_separator=point,
        decimals=decimals,
        suffix=suffix,
    )
