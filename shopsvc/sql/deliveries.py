"""The webhook outbox (``webhook_deliveries``) and the attempt log (``webhook_attempts``).

A delivery is one event for one webhook. It is inserted in the transaction of the change that
raised it (:func:`enqueue`), claimed by a worker for a lease (:func:`claim`, ``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, so any number of workers share the queue and each due delivery goes to
exactly one of them), and finished in a short transaction after the send (:func:`finish`) —
only by the worker whose claim it still is.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Insert,
    Select,
    Update,
    and_,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)

from shopsvc.sql.tables import webhook_attempts, webhook_deliveries, webhooks

Row = dict[str, Any]
PENDING = "pending"
FINAL_STATES = ("delivered", "failed", "cancelled", "dropped")
#: The PostgreSQL channel a worker listens on; a transaction that queued deliveries notifies it
#: when it commits.
CHANNEL = "shopsvc_webhook_deliveries"

_d = webhook_deliveries


def now_precise() -> dt.datetime:
    """The current time as the outbox stores it: UTC, naive, with microseconds."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _unclaimed(now: dt.datetime) -> Any:
    return or_(_d.c.claimed_until.is_(None), _d.c.claimed_until < now)


# --- the outbox


def subscribed_query(topics: Sequence[str]) -> Select[Any]:
    """The active webhooks subscribed to these topics."""
    return select(webhooks.c.id, webhooks.c.topic).where(
        webhooks.c.status == "active", webhooks.c.topic.in_(topics)
    )


def pending_query(
    webhook_ids: Sequence[int], resource_ids: Sequence[int], now: dt.datetime
) -> Select[Any]:
    """The pending, unclaimed deliveries of these webhooks and resources (a new event of the
    same webhook, topic and resource merges into one of them), locked until the caller's
    transaction ends (``FOR UPDATE SKIP LOCKED`` on PostgreSQL).

    The lock makes the merge and a worker's claim (:func:`claim_query`, which also skips locked
    rows) exclude each other: a row merged into cannot be claimed and rendered before the
    merging transaction commits, and a row a worker is claiming right now is skipped here, so
    that the new event gets a delivery of its own rather than merging into one being sent. On
    SQLite writers are serialised, and a worker's claim never overlaps a request's
    transaction."""
    return (
        select(_d.c.webhook_id, _d.c.topic, _d.c.resource, _d.c.resource_id)
        .where(
            _d.c.state == PENDING,
            _d.c.webhook_id.in_(webhook_ids),
            _d.c.resource_id.in_(resource_ids),
            _unclaimed(now),
        )
        .order_by(_d.c.id)
        .with_for_update(skip_locked=True, of=_d)
    )


def enqueue_insert() -> Insert:
    """The outbox insert, executed with every new delivery's row at once."""
    return insert(_d)


def enqueue(
    conn: Connection,
    fired: Iterable[tuple[str, str, int]],
    source_url: str,
    now: dt.datetime,
) -> int:
    """Queue a delivery of each fired ``(topic, resource, resource id)`` for each active
    webhook subscribed to the topic (in the caller's transaction); the number queued. A
    delivery still pending and unclaimed for the same webhook, topic and resource takes the new
    event in (its body is rendered when it is sent; the row is locked until the caller commits,
    see :func:`pending_query`). One statement when nobody subscribes, three when somebody
    does."""
    fired = list(fired)
    topics = sorted({topic for topic, _, _ in fired})
    if not topics:
        return 0
    subscribed = conn.execute(subscribed_query(topics)).all()
    if not subscribed:
        return 0
    by_topic: dict[str, list[int]] = {}
    for webhook_id, topic in subscribed:
        by_topic.setdefault(topic, []).append(webhook_id)
    wanted = [
        (webhook_id, topic, resource, resource_id)
        for topic, resource, resource_id in fired
        for webhook_id in by_topic.get(topic, ())
    ]
    pending = conn.execute(
        pending_query(
            sorted({w for w, *_ in wanted}),
            sorted({resource_id for *_, resource_id in fired}),
            now,
        )
    ).all()
    merged = {tuple(row) for row in pending}
    rows = [
        {
            "delivery_id": str(uuid.uuid4()),
            "webhook_id": webhook_id,
            "topic": topic,
            "resource": resource,
            "resource_id": resource_id,
            "state": PENDING,
            "attempts": 0,
            "round_start": 0,
            "due_at": now,
            "source_url": source_url,
            "created_at": now,
            "updated_at": now,
        }
        for webhook_id, topic, resource, resource_id in dict.fromkeys(wanted)
        if (webhook_id, topic, resource, resource_id) not in merged
    ]
    if rows:
        conn.execute(enqueue_insert(), rows)
        if conn.dialect.name == "postgresql":
            conn.execute(select(func.pg_notify(CHANNEL, "")))
    return len(rows)


def claim(
    conn: Connection,
    *,
    token: str,
    now: dt.datetime,
    lease_until: dt.datetime,
    limit: int,
    per_webhook: int,
    busy: dict[int, int],
    pass_start: dt.datetime | None = None,
) -> list[tuple[int, int]]:
    """Claim up to ``limit`` due deliveries for ``lease_until`` under ``token``; their ids
    with their webhooks' ids.

    Due: pending, ``due_at`` reached (by ``pass_start`` for a single pass, which also skips
    what was attempted since it started), not claimed by a live lease, and no older pending
    delivery of the same webhook and resource (deliveries of one resource go out in order).
    At most ``per_webhook`` per webhook, counting the ``busy`` ones the caller is sending, so
    that a slow receiver never takes every sender. Rows locked by another worker are skipped."""
    taken: list[tuple[int, int]] = []
    load = dict(busy)
    while len(taken) < limit:
        capped = sorted(w for w, count in load.items() if count >= per_webhook)
        query = claim_query(now, pass_start, capped, limit - len(taken))
        batch: list[int] = []
        for delivery_id, webhook_id in conn.execute(query):
            if load.get(webhook_id, 0) >= per_webhook:
                continue  # capped within this batch: the next query leaves it out
            load[webhook_id] = load.get(webhook_id, 0) + 1
            batch.append(delivery_id)
            taken.append((delivery_id, webhook_id))
        if not batch:
            break
        conn.execute(claim_mark_query(batch, token, lease_until))
    return taken


def claim_query(
    now: dt.datetime, pass_start: dt.datetime | None, capped: Sequence[int], limit: int
) -> Select[Any]:
    """Up to ``limit`` due deliveries of webhooks not ``capped``, oldest due first, locked
    (``FOR UPDATE SKIP LOCKED`` on PostgreSQL)."""
    return (
        select(_d.c.id, _d.c.webhook_id)
        .where(*_due(now, pass_start), _d.c.webhook_id.not_in(capped))
        .order_by(_d.c.due_at, _d.c.id)
        .limit(limit)
        .with_for_update(skip_locked=True, of=_d)
    )


def claim_mark_query(ids: Sequence[int], token: str, lease_until: dt.datetime) -> Update:
    """Mark the claimed deliveries as this worker's until ``lease_until``."""
    return update(_d).where(_d.c.id.in_(ids)).values(claim_token=token, claimed_until=lease_until)


def _due(now: dt.datetime, pass_start: dt.datetime | None) -> list[Any]:
    cutoff = pass_start or now
    older = _d.alias("older")
    ahead = exists().where(
        older.c.webhook_id == _d.c.webhook_id,
        older.c.resource == _d.c.resource,
        older.c.resource_id == _d.c.resource_id,
        older.c.state == PENDING,
        older.c.id < _d.c.id,
    )
    terms = [_d.c.state == PENDING, _d.c.due_at <= cutoff, _unclaimed(now), ~ahead]
    if pass_start is not None:
        terms.append(or_(_d.c.last_attempt_at.is_(None), _d.c.last_attempt_at < pass_start))
    return terms


def has_due_query(now: dt.datetime, pass_start: dt.datetime | None = None) -> Select[Any]:
    """One due delivery, if any (an idle worker's poll)."""
    return select(_d.c.id).where(*_due(now, pass_start)).limit(1)


def has_due(conn: Connection, now: dt.datetime, pass_start: dt.datetime | None = None) -> bool:
    """Whether :func:`claim` would find something (a read, so that an idle worker does not take
    SQLite's write lock on every poll)."""
    return conn.execute(has_due_query(now, pass_start)).first() is not None


def get_for_send(conn: Connection, delivery_id: int) -> Row | None:
    """The delivery with its webhook's status, URL and secret."""
    query = select(
        _d,
        webhooks.c.status.label("webhook_status"),
        webhooks.c.delivery_url,
        webhooks.c.secret,
    ).select_from(_d.join(webhooks, webhooks.c.id == _d.c.webhook_id))
    row = conn.execute(query.where(_d.c.id == delivery_id)).mappings().first()
    return dict(row) if row else None


def finish(conn: Connection, delivery_id: int, token: str, values: Row) -> bool:
    """Store the outcome of an attempt and release the claim — only while the claim is still
    ``token``'s (False when the lease ran out and another worker took over, or the delivery
    is gone with its webhook)."""
    done = conn.execute(
        update(_d)
        .where(_d.c.id == delivery_id, _d.c.claim_token == token)
        .values(**values, claim_token=None, claimed_until=None)
    )
    return done.rowcount > 0


def release(conn: Connection, ids: list[int], token: str) -> None:
    """Give claims back untouched (a worker stopping before it started them)."""
    if ids:
        conn.execute(
            update(_d)
            .where(_d.c.id.in_(ids), _d.c.claim_token == token)
            .values(claim_token=None, claimed_until=None)
        )


def log_attempt_query(values: Row) -> Insert:
    """One row of the attempt log."""
    return insert(webhook_attempts).values(**values)


def log_attempt(conn: Connection, values: Row) -> None:
    conn.execute(log_attempt_query(values))


def attempt_entry(
    delivery: Mapping[str, Any],
    attempt: int,
    status: int | None,
    error: str | None,
    duration_ms: int,
    at: dt.datetime,
) -> Row:
    """The attempt log's row for an attempt (or a cancel, or a drop) of ``delivery`` (a
    ``webhook_deliveries`` row)."""
    return {
        "delivery_id": delivery["delivery_id"],
        "webhook_id": delivery["webhook_id"],
        "topic": delivery["topic"],
        "resource_id": delivery["resource_id"],
        "attempt": attempt,
        "status": status,
        "error": error,
        "duration_ms": duration_ms,
        "at": at,
    }


# --- the webhook's failure count


def count_failure(conn: Connection, webhook_id: int) -> int:
    """One more consecutive failed attempt; the new count (0 when the webhook is gone)."""
    conn.execute(
        update(webhooks)
        .where(webhooks.c.id == webhook_id)
        .values(failure_count=webhooks.c.failure_count + 1)
    )
    count = conn.execute(
        select(webhooks.c.failure_count).where(webhooks.c.id == webhook_id)
    ).scalar()
    return int(count or 0)


def reset_failures(conn: Connection, webhook_id: int) -> None:
    conn.execute(
        update(webhooks)
        .where(webhooks.c.id == webhook_id, webhooks.c.failure_count != 0)
        .values(failure_count=0)
    )


def disable(conn: Connection, webhook_id: int, now: dt.datetime) -> int:
    """Disable the webhook and cancel its pending deliveries (claimed ones included: their
    senders' results no longer count); how many were cancelled."""
    conn.execute(
        update(webhooks)
        .where(webhooks.c.id == webhook_id)
        .values(status="disabled", updated_at=now.replace(microsecond=0))
    )
    return cancel_pending(conn, webhook_id, now, "cancelled: the webhook was disabled")


def cancel_pending(conn: Connection, webhook_id: int, now: dt.datetime, reason: str) -> int:
    """Cancel the webhook's pending deliveries (claimed ones included: their senders' results
    are no longer stored), each logged with ``reason``; how many. Three statements."""
    pending = (
        conn.execute(select(_d).where(_d.c.webhook_id == webhook_id, _d.c.state == PENDING))
        .mappings()
        .all()
    )
    if not pending:
        return 0
    conn.execute(
        update(_d)
        .where(_d.c.id.in_([row["id"] for row in pending]), _d.c.state == PENDING)
        .values(state="cancelled", claim_token=None, claimed_until=None, updated_at=now)
    )
    log = [attempt_entry(row, row["attempts"], None, reason, 0, now) for row in pending]
    conn.execute(insert(webhook_attempts), log)
    return len(pending)


# --- operators


def attempts_query(*, webhook_id: int | None, failed: bool, limit: int) -> Select[Any]:
    """The attempt log (of one webhook; only failures), newest first."""
    query = select(webhook_attempts).order_by(webhook_attempts.c.id.desc()).limit(limit)
    if webhook_id is not None:
        query = query.where(webhook_attempts.c.webhook_id == webhook_id)
    if failed:
        status = webhook_attempts.c.status
        query = query.where(or_(status.is_(None), status < 200, status > 299))
    return query


def attempts(conn: Connection, *, webhook_id: int | None, failed: bool, limit: int) -> list[Row]:
    """The attempt log, newest first."""
    query = attempts_query(webhook_id=webhook_id, failed=failed, limit=limit)
    return [dict(row) for row in conn.execute(query).mappings()]


def get_by_delivery_id(conn: Connection, delivery_id: str) -> Row | None:
    query = select(_d, webhooks.c.status.label("webhook_status")).select_from(
        _d.join(webhooks, webhooks.c.id == _d.c.webhook_id)
    )
    row = conn.execute(query.where(_d.c.delivery_id == delivery_id)).mappings().first()
    return dict(row) if row else None


def requeue(conn: Connection, row_id: int, now: dt.datetime) -> bool:
    """Make a delivery pending and due now, with a new round of attempts — a finished one, or
    a pending one waiting for its next retry — unless a worker's live claim holds it (it is
    being sent right now: False). On PostgreSQL the workers are notified when the caller
    commits, so a running worker sends it at once."""
    done = conn.execute(
        update(_d)
        .where(_d.c.id == row_id, _unclaimed(now))
        .values(
            state=PENDING,
            due_at=now,
            round_start=_d.c.attempts,
            claim_token=None,
            claimed_until=None,
            last_attempt_at=None,
            updated_at=now,
        )
    )
    if done.rowcount and conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_notify(CHANNEL, "")))
    return done.rowcount > 0


def prune(conn: Connection, before: dt.datetime) -> tuple[int, int]:
    """Delete the attempts logged before ``before`` and the finished deliveries last touched
    before it; how many of each."""
    logged = conn.execute(delete(webhook_attempts).where(webhook_attempts.c.at < before))
    finished = conn.execute(
        delete(_d).where(and_(_d.c.state.in_(FINAL_STATES), _d.c.updated_at < before))
    )
    return logged.rowcount, finished.rowcount


def pending_count(conn: Connection) -> int:
    """How many deliveries are pending (:func:`backlog`'s count)."""
    return backlog(conn)[0]


def backlog_query() -> Select[Any]:
    """The pending deliveries' count and the earliest ``due_at`` among them: one range of
    ``ix_webhook_deliveries_due`` (``state``, ``due_at``, ``id``), read from the index alone."""
    return select(func.count(), func.min(_d.c.due_at)).where(_d.c.state == PENDING)


def backlog(conn: Connection) -> tuple[int, dt.datetime | None]:
    """How many deliveries are pending and when the earliest of them fell (or falls) due (None
    when none is pending): what the metrics read on each scrape."""
    count, earliest = conn.execute(backlog_query()).one()
    return int(count or 0), earliest
