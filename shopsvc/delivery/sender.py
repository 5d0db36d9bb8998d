"""One attempt of one delivery (decisions.md §3, §7 "Webhook delivery"): render the body from the
current record, sign it, POST it through :mod:`shopsvc.outbound.client`, and store the outcome.

The database is touched in two short transactions — a read before the send and a write after it
— so no lock is held while the receiver takes its time, and on SQLite the write lock is never
held across the network.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine

from shopsvc.db.engine import write_transaction
from shopsvc.domain import events
from shopsvc.domain.roles import CAPABILITIES
from shopsvc.outbound import client as outbound
from shopsvc.outbound.client import OutboundError
from shopsvc.records.context import RecordContext
from shopsvc.records.customers import customer_record
from shopsvc.records.orders import order_records
from shopsvc.records.products import product_records
from shopsvc.settings import Settings
from shopsvc.sql import deliveries as sql

log = logging.getLogger(__name__)

#: The receiver's answer is read (up to this much) and thrown away.
MAX_ANSWER_BYTES = 64 * 1024
Clock = Callable[[], dt.datetime]


@dataclass(frozen=True)
class Outcome:
    """What became of an attempt: ``state`` is the delivery's state afterwards (``pending``
    when a retry is due), ``status`` the HTTP status (None without an answer), ``disabled``
    whether this failure disabled the webhook."""

    state: str
    status: int | None = None
    error: str | None = None
    disabled: bool = False


def _render(conn: Connection, settings: Settings, row: dict[str, Any]) -> dict[str, Any] | None:
    """The GET record of the delivery's resource as it is now (links from the public URL of
    the request that raised the event), or None when the resource is gone."""
    context = RecordContext.for_system(conn, settings, capabilities=CAPABILITIES)
    context = dataclasses.replace(context, public_url=row["source_url"])
    resource, resource_id = row["resource"], row["resource_id"]
    if resource == "order":
        found = order_records(context, [resource_id])
    elif resource == "product":
        found = product_records(context, [resource_id])
    else:
        record = customer_record(context, resource_id)
        found = [record] if record is not None else []
    return found[0] if found else None


def headers(
    settings: Settings,
    row: dict[str, Any],
    body: bytes,
    secret: str,
    timestamp: int | None = None,
) -> dict[str, str]:
    """The headers of a delivery (the ``User-Agent`` is the outbound client's): the legacy
    ``X-Shop-Webhook-*`` ones, then the Standard Webhooks ones, signed for ``timestamp`` (this
    attempt's time in seconds, now unless given)."""
    resource, event = events.topic_parts(row["topic"])
    prefix = f"{settings.header_prefix}-Webhook"
    stamp = int(time.time()) if timestamp is None else timestamp
    return {
        "Content-Type": "application/json",
        f"{prefix}-Source": row["source_url"] + "/",
        f"{prefix}-Topic": row["topic"],
        f"{prefix}-Resource": resource,
        f"{prefix}-Event": event,
        f"{prefix}-Signature": events.signature(body, secret),
        f"{prefix}-ID": str(row["webhook_id"]),
        f"{prefix}-Delivery-ID": row["delivery_id"],
        **events.standard_headers(secret, row["delivery_id"], stamp, body),
    }


def _post(settings: Settings, row: dict[str, Any], body: bytes) -> tuple[int | None, str | None]:
    """POST the body: (status, None) for a 2xx, else (status or None, why it failed)."""
    try:
        response = outbound.send(
            "POST",
            row["delivery_url"],
            allow_private=settings.allow_private_targets,
            max_redirects=0,
            timeout=settings.webhooks_timeout,
            max_bytes=MAX_ANSWER_BYTES,
            headers=headers(settings, row, body, row["secret"]),
            body=body,
        )
    except OutboundError as exc:
        if events.is_success(exc.status):  # a 2xx whose answer could not be read: delivered
            return exc.status, None
        return exc.status, exc.reason
    if events.is_success(response.status):
        return response.status, None
    return response.status, f"the receiver answered {response.status}"


def attempt(
    engine: Engine,
    settings: Settings,
    delivery_id: int,
    token: str,
    clock: Clock = sql.now_precise,
) -> Outcome | None:
    """Make one attempt of the delivery ``delivery_id`` claimed under ``token``; its outcome,
    or None when the claim is no longer ours (or the delivery is gone with its webhook)."""
    with engine.connect() as conn, conn.begin():
        row = sql.get_for_send(conn, delivery_id)
        if row is None or row["claim_token"] != token:
            return None
        if row["webhook_status"] != "active":
            return _finish(engine, settings, row, token, None, 0, "skipped", clock)
        record = _render(conn, settings, row) if events.needs_record(row["topic"]) else None
    if record is None and events.needs_record(row["topic"]):
        return _finish(engine, settings, row, token, None, 0, "gone", clock)
    body = events.encode_body(events.body_of(row["topic"], row["resource_id"], record))
    started = time.perf_counter()
    status, error = _post(settings, row, body)
    duration_ms = round((time.perf_counter() - started) * 1000)
    return _finish(engine, settings, row, token, status, duration_ms, error, clock)


class _LostClaim(Exception):
    """The claim ran out (another worker took the delivery over) or the delivery is gone."""


def _finish(
    engine: Engine,
    settings: Settings,
    row: dict[str, Any],
    token: str,
    status: int | None,
    duration_ms: int,
    error: str | None,
    clock: Clock,
) -> Outcome | None:
    """Store the attempt: the log line, the delivery's new state and the webhook's count of
    consecutive failed attempts (disabling it at ``disable_after``). ``error`` ``"skipped"``
    (webhook no longer active) and ``"gone"`` (resource deleted) end the delivery unsent.
    None, and nothing stored, when the claim is no longer ours."""
    if error == "skipped":
        outcome = Outcome("cancelled", None, f"webhook is {row['webhook_status']}; not sent")
    elif error == "gone":
        outcome = Outcome("dropped", None, f"dropped: the {row['resource']} no longer exists")
    elif error is None:
        outcome = Outcome("delivered", status)
    else:
        outcome = Outcome("pending", status, error)
    try:
        with write_transaction(engine) as conn:
            outcome = _store(conn, settings, row, token, outcome, duration_ms, clock())
    except _LostClaim:  # rolled back: the failure is not counted either
        return None
    log.info(
        "webhook %s delivery %s (%s %s): %s",
        row["webhook_id"],
        row["delivery_id"],
        row["topic"],
        row["resource_id"],
        outcome.error or outcome.status,
    )
    return outcome


def _store(
    conn: Connection,
    settings: Settings,
    row: dict[str, Any],
    token: str,
    outcome: Outcome,
    duration_ms: int,
    now: dt.datetime,
) -> Outcome:
    sent = outcome.state in ("delivered", "pending")
    attempt_no = row["attempts"] + 1 if sent else row["attempts"]
    values: dict[str, Any] = {"state": outcome.state, "updated_at": now}
    if sent:
        values.update(attempts=attempt_no, last_attempt_at=now)
    disabling = False
    failures = 0
    if outcome.state == "pending":
        failures = sql.count_failure(conn, row["webhook_id"])
        this_round = attempt_no - row["round_start"]
        disabling = failures >= settings.webhooks_disable_after
        if disabling or this_round >= settings.webhooks_max_attempts:
            outcome = dataclasses.replace(outcome, state="failed", disabled=disabling)
            values["state"] = "failed"
        else:
            delay = events.retry_delay(this_round, settings.webhooks_retry_base_seconds)
            values["due_at"] = now + dt.timedelta(seconds=delay)
    if not sql.finish(conn, row["id"], token, values):
        raise _LostClaim
    if outcome.state == "delivered":
        sql.reset_failures(conn, row["webhook_id"])
    entry = sql.attempt_entry(row, attempt_no, outcome.status, outcome.error, duration_ms, now)
    sql.log_attempt(conn, entry)
    if disabling:
        cancelled = sql.disable(conn, row["webhook_id"], now)
        log.warning(
            "webhook %s disabled after %s consecutive failed attempts (%s pending deliveries "
            "cancelled)",
            row["webhook_id"],
            failures,
            cancelled,
        )
    return outcome
