"""The ping a new webhook's delivery URL receives after the webhook is committed (decisions.md §3,
compat.md "Ping"): ``POST webhook_id=<id>``, 5 s, no redirects, through
:mod:`shopsvc.outbound.client`, with the Standard Webhooks headers (a fresh ``webhook-id`` per
ping; docs/webhooks.md "Replay-safe headers").

A private target with ``outbound.allow_private_targets = false`` is skipped (no connection). The
outcome is logged and never reaches the API client.
"""

from __future__ import annotations

import logging
import time
import uuid
from urllib.parse import urlencode

from shopsvc.domain import events
from shopsvc.outbound import client as outbound
from shopsvc.outbound.client import OutboundError

log = logging.getLogger(__name__)

TIMEOUT = 5.0  # seconds
MAX_BYTES = 64 * 1024  # of the receiver's answer, which nobody reads


def ping(
    url: str,
    webhook_id: int,
    allow_private: bool,
    timeout: float = TIMEOUT,
    secret: str | None = None,
) -> int | None:
    """POST ``webhook_id=<id>`` to ``url``; the status code (also when the answer's body could
    not be read), or None when the ping was skipped or got no answer. With the webhook's
    ``secret`` (the service always gives it) the ping carries the Standard Webhooks headers,
    with a fresh UUID4 as its ``webhook-id`` (a ping is no delivery: each one is a message of
    its own)."""
    body = urlencode({"webhook_id": webhook_id}).encode("ascii")
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if secret is not None:
        headers.update(events.standard_headers(secret, str(uuid.uuid4()), int(time.time()), body))
    try:
        response = outbound.send(
            "POST",
            url,
            allow_private=allow_private,
            max_redirects=0,
            timeout=timeout,
            max_bytes=MAX_BYTES,
            headers=headers,
            body=body,
        )
    except OutboundError as exc:
        if exc.kind == "private_target":
            log.info("webhook %s: ping to %s skipped (private target)", webhook_id, url)
        else:
            log.info("webhook %s: ping to %s failed: %s", webhook_id, url, exc.reason)
        return exc.status
    log.info("webhook %s: ping to %s answered %s", webhook_id, url, response.status)
    return response.status
