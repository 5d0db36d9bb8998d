"""What bench/soak.py records and the checks it makes afterwards: the clients' records and
tallies, the receiver's arrivals, one function per check (each a :class:`Check` with the items
that failed it) and the printed table."""

from __future__ import annotations

import collections
import json
import pathlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

#: The fields each family's checks compare: those the clients write, every value unique.
FIELDS = {"product": ("title", "regular_price", "description"), "order": ("status", "note")}
#: Where a client's tag is (never edited), as the list's ``fields`` names it.
TAG_FIELD = {"product": "sku", "order": "billing_address.first_name"}
#: The one 5xx the API documents: the database was busy (docs/configuration.md).
BUSY = (503, "shop_api_busy")
#: A server's log line for a 503 busy (``views/errors.py``): the request and the driver error.
_BUSY_LINE = re.compile(r"busy database on (\w+) (\S+): (.*)")


@dataclass
class Arrival:
    """One POST at the receiver carrying a delivery id, and what it answered."""

    at: float
    delivery_id: str
    topic: str
    webhook_id: str
    headers: dict[str, str]
    body: bytes
    answered: int

    def subject(self) -> tuple[str, str, Any]:
        """What the delivery is about: its topic, webhook and record id."""
        return self.topic, self.webhook_id, self.record().get("id")

    def record(self) -> dict[str, Any]:
        return dict(json.loads(self.body)[self.topic.split(".")[0]])


@dataclass
class Record:
    """A product or order of one client: what it sent, what was acknowledged."""

    kind: str
    tag: str
    created: dict[str, Any]
    id: int | None = None  # None: the create was never acknowledged
    acked: dict[str, Any] | None = None  # the values of the last acknowledged write
    uncertain: list[dict[str, Any]] = field(default_factory=list)  # sent after it, unanswered
    version: int = 0
    edits_acked: int = 0

    def acceptable(self) -> list[dict[str, Any]]:
        """The values the record may have now."""
        return ([self.acked] if self.acked is not None else []) + self.uncertain


@dataclass
class Tally:
    """What the clients saw, shared by their threads (under :attr:`lock`)."""

    acked: collections.Counter[str] = field(default_factory=collections.Counter)
    bodies: list[tuple[str, int, Any]] = field(default_factory=list)  # every 2xx and its body
    fivexx: list[tuple[str, int, str, str | None]] = field(default_factory=list)
    fourxx: list[tuple[str, int, Any]] = field(default_factory=list)
    refused: int = 0
    uncertain: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)  # an ack whose body is not what was sent
    gave_up: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    problems: dict[str, list[str]] = field(default_factory=dict)


def values_of(kind: str, record: dict[str, Any]) -> dict[str, Any]:
    return {name: record.get(name) for name in FIELDS[kind]}


def tag_of(kind: str, record: dict[str, Any]) -> str:
    return str(record["sku"] if kind == "product" else record["billing_address"]["first_name"])


Present = dict[str, dict[str, dict[str, Any]]]  # family → tag → the record as listed


def writes(records: list[Record], present: Present) -> Check:
    """Every acknowledged create is there, with its last acknowledged values (or those of a
    write sent after it whose answer was lost)."""
    lost, other = [], []
    for record in records:
        row = present[record.kind].get(record.tag)
        if record.id is None:
            continue
        if row is None:
            lost.append(f"{record.kind} {record.id} ({record.tag})")
        elif values_of(record.kind, row) not in record.acceptable():
            other.append(
                f"{record.kind} {record.id}: stored {values_of(record.kind, row)}, last "
                f"acknowledged {record.acked}, unanswered after it {record.uncertain}"
            )
    created = collections.Counter(r.kind for r in records if r.id is not None)
    edits = sum(r.edits_acked for r in records)
    detail = (
        f"{created['product']} products, {created['order']} orders created and {edits} edits "
        f"acknowledged; lost {len(lost)}, another value {len(other)}"
    )
    problems = {"lost": lost, "not the last acknowledged value": other}
    return Check("acknowledged writes stored", not lost and not other, detail, problems)


def counts(records: list[Record], present: Present, duplicates: list[str]) -> Check:
    """As many records as acknowledged creates, plus at most the unanswered ones."""
    parts, ok = [], not duplicates
    for kind in FIELDS:
        acked = sum(1 for r in records if r.kind == kind and r.id is not None)
        unsure = sum(1 for r in records if r.kind == kind and r.id is None)
        found = len(present[kind])
        ok = ok and acked <= found <= acked + unsure
        parts.append(f"{kind}s {found} present / {acked} acknowledged + {unsure} unanswered")
    return Check("counts", ok, "; ".join(parts), {"tag twice": duplicates})


def events(records: list[Record], present: Present, arrivals: Iterable[Arrival]) -> Check:
    """docs/webhooks.md: a change reaches each active webhook of its topic as the record is when
    it is sent, and a newer event of the same resource merges into a pending, unclaimed
    delivery. So every record has a ``*.created`` delivery, and its final state was accepted by
    the receiver in a delivery of the topic of the change that made it: ``*.updated`` once
    edited, ``*.created`` if never."""
    delivered: dict[tuple[str, int], list[dict[str, Any]]] = collections.defaultdict(list)
    for arrival in arrivals:
        kind = arrival.topic.split(".")[0]
        if kind in FIELDS and 200 <= arrival.answered < 300:
            body = arrival.record()
            delivered[arrival.topic, body["id"]].append(values_of(kind, body))
    no_created, no_final = [], []
    edits = 0
    for kind, rows in present.items():
        mine = {r.tag: r for r in records if r.kind == kind}
        for tag, row in rows.items():
            final, record = values_of(kind, row), mine.get(tag)
            edits += record.edits_acked if record else 0
            if not delivered.get((f"{kind}.created", row["id"])):
                no_created.append(f"{kind} {row['id']}")
            edited = record is None or final != record.created
            topic = f"{kind}.{'updated' if edited else 'created'}"
            bodies = delivered.get((topic, row["id"]), [])
            if final not in bodies:
                no_final.append(
                    f"{kind} {row['id']}: final {final}; {topic} accepted "
                    f"{bodies[-3:] or 'nothing'} (the last 3), "
                    f"{record.edits_acked if record else '?'} edits acknowledged"
                )
    updates = sum(len(v) for (topic, _), v in delivered.items() if topic.endswith(".updated"))
    total = sum(len(rows) for rows in present.values())
    detail = (
        f"{total} records; {updates} update deliveries accepted for {edits} acknowledged edits "
        f"(the others merged); no created delivery {len(no_created)}; final state never "
        f"delivered {len(no_final)}"
    )
    problems = {"no created delivery": no_created, "final state never delivered": no_final}
    return Check("promised events delivered", not no_created and not no_final, detail, problems)


def retries(arrivals: list[Arrival]) -> Check:
    """Every delivery id whose first attempt the receiver refused came again, with the same id,
    and was accepted; one id is always about the same webhook, topic and record."""
    attempts: dict[str, list[Arrival]] = collections.defaultdict(list)
    for arrival in arrivals:
        attempts[arrival.delivery_id].append(arrival)
    refused = [d for d, a in attempts.items() if a[0].answered >= 300]
    not_retried = [d for d in refused if not any(x.answered < 300 for x in attempts[d][1:])]
    mixed = [d for d, a in attempts.items() if len({x.subject() for x in a}) > 1]
    twice = sum(1 for a in attempts.values() if sum(x.answered < 300 for x in a) > 1)
    detail = (
        f"{len(attempts)} delivery ids, {len(arrivals)} attempts; {len(refused)} first attempts "
        f"refused, {len(refused) - len(not_retried)} of them retried with the same id and "
        f"accepted; {twice} ids accepted twice (a send whose outcome a killed worker never "
        f"stored, sent again after its lease)"
    )
    problems = {"refused, never accepted after": not_retried, "one id, several subjects": mixed}
    return Check("retries keep their delivery id", not not_retried and not mixed, detail, problems)


def server_errors(tally: Tally) -> Check:
    """No 5xx but the documented 503 ``shop_api_busy`` with ``Retry-After``."""
    kinds = collections.Counter((s, code, ra is not None) for _, s, code, ra in tally.fivexx)
    other = [
        f"{what}: {status} {code} Retry-After {ra}"
        for what, status, code, ra in tally.fivexx
        if (status, code) != BUSY or not ra
    ]
    detail = ", ".join(
        f"{n} x {status} {code or '(no code)'}{' with Retry-After' if ra else ''}"
        for (status, code, ra), n in sorted(kinds.items())
    )
    return Check("no 5xx but 503 shop_api_busy", not other, detail or "none", {"5xx": other})


def outbox(states: dict[str, int], left: int) -> Check:
    bad = {s: n for s, n in states.items() if s in ("pending", "failed", "cancelled", "dropped")}
    detail = json.dumps(states) + ("" if not left else f" ({left} still pending at the end)")
    return Check("outbox drained, nothing failed", not bad, detail)


def processes(died: list[str]) -> Check:
    return Check("no process died unbidden", not died, "; ".join(died) or "none")


def busy_causes(logs: pathlib.Path) -> collections.Counter[str]:
    """The servers' ``busy database`` lines (each a 503 ``shop_api_busy``) by request and by
    the driver's error (its first line)."""
    causes: collections.Counter[str] = collections.Counter()
    for path in sorted(logs.glob("server*.log")):
        for line in path.read_text(errors="replace").splitlines():
            found = _BUSY_LINE.search(line)
            if found:
                method, target, error = found.groups()
                route = re.sub(r"/\d+", "/<id>", target)
                causes[f"{method} {route}: {error.strip()[:80]}"] += 1
    return causes


def print_report(tally: Tally, checks: list[Check], causes: collections.Counter[str]) -> None:
    print()
    acked = ", ".join(f"{what} {n}" for what, n in sorted(tally.acked.items()))
    print(
        f"writes acknowledged: {sum(tally.acked.values())} ({acked}); {tally.refused} refused "
        f"connections, {len(tally.uncertain)} lost after sending, {len(tally.fourxx)} 4xx, "
        f"{len(tally.gave_up)} given up, {len(tally.mismatched)} acks not echoing the write"
    )
    for cause, n in causes.most_common():
        print(f"  503 busy in the servers' logs: {n} x {cause}")
    lists = {
        "lost after sending": tally.uncertain,
        "4xx": [f"{w} {s} {json.dumps(b)[:200]}" for w, s, b in tally.fourxx],
        "given up": tally.gave_up,
        "ack not echoing the write": tally.mismatched,
    }
    for check in checks:
        lists.update(check.problems)
    for title, items in lists.items():
        for item in items[:10]:
            print(f"  {title}: {item}")
        if len(items) > 10:
            print(f"  {title}: … {len(items) - 10} more")
    print()
    width = max(len(check.name) for check in checks)
    print(f"{'check':<{width}}  result  detail")
    for check in checks:
        print(f"{check.name:<{width}}  {'PASS' if check.ok else 'FAIL':<6}  {check.detail}")
