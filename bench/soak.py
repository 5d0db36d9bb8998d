"""Crash soak: real ``pserve`` and ``shopsvc CONFIG worker`` processes killed with SIGKILL while a
dozen clients write, then checks that nothing acknowledged was lost and that every promised
webhook event arrived (issue 23). It prints figures and a table of checks; it is not a timed test.

Everything runs on 127.0.0.1 and stops by itself (``--seconds`` of writing, at most
``--drain-seconds`` of waiting for the outbox, then the checks):

* a scratch database: on PostgreSQL ``shopsvc_soak_<random>`` on the server of
  ``--postgres-url`` (made and dropped by ``shopsvc.testing.databases.scratch_postgres``), on
  SQLite a temporary file; migrated; an administrator's key; four catalogue products managing
  their stock, for the orders' lines;
* a generated ini (:data:`INI`) and, on free ports, two ``pserve`` processes and two workers on
  PostgreSQL, one of each on SQLite. ``deliver_in_process = false``; retries after 1 s
  (``webhooks.retry_base_seconds``); ``webhooks.timeout = 5``, so a killed worker's claims are
  free again after 35 s (the lease: the timeout + 30 s); ``disable_after = 1000``, so that the
  receiver's refusals disable no webhook;
* a receiver (``ThreadingHTTPServer`` in this process) that records every delivery — its
  headers, body and what it answered — and answers, after a random 0-50 ms (so that a killed
  worker has sends under way), 500 to the first attempt of every 5th delivery id it sees and 200
  to everything else; one webhook on each of ``order.created``, ``order.updated``,
  ``product.created`` and ``product.updated``;
* ``--clients`` threads (12) creating and editing products and orders of their own through the
  API for ``--seconds`` (60), each request to the other server than its last. Every value a
  client writes is unique (a version counter in the title and the note), so a record's state
  names the write that made it. An order lists two to four catalogue products in a random order
  (a status change moves their stock, locking their rows in the order's line order). Each client
  records every acknowledged write (2xx and its body) and every 5xx;
* at 25 %, 50 % and 75 % of the run, ``os.kill(pid, SIGKILL)`` of a worker, of a server, of the
  other worker (on SQLite the one worker twice), each started again a second later.

A refused connection is no answer: the client sends the request to the other server (on SQLite
to the same one, until it is back). A connection lost after the request was sent leaves the write
*unanswered*: an edit (a PUT of the same values) is sent again to the other server; a create is
not (there is no ``Idempotency-Key`` yet: issue 24), and its record may or may not exist. A 503
``shop_api_busy`` is sent again after its ``Retry-After``.

After the run the workers drain the outbox (until no row is ``pending``), then, through the API,
the receiver's record, the outbox and the servers' logs (bench/soak_checks.py):

1. **writes**: every record whose create was acknowledged is there, with the values of its last
   acknowledged write (or of an unanswered one sent after it);
2. **counts**: the products and orders present (by the clients' tags) against the acknowledged
   creates, plus at most the unanswered ones; no tag twice;
3. **events** (docs/webhooks.md: a change reaches every active webhook of its topic as the
   record is *when it is sent*; a pending delivery not yet claimed takes a newer event of the
   same webhook, topic and record in): every record got a ``*.created`` delivery, and its final
   state was accepted by the receiver in a delivery of the topic of the change that made it —
   ``*.updated`` for an edited record, ``*.created`` for one never edited;
4. **retries**: every delivery id whose first attempt was refused came again with the same id,
   and was then accepted;
5. **5xx**: none but 503 ``shop_api_busy`` with ``Retry-After`` (the servers' log lines of each
   say why: a deadlock, a lock timeout);
6. **outbox**: drained, nothing ``failed``, ``cancelled`` or ``dropped``; no process died but
   those killed.

    python bench/soak.py                                   # PostgreSQL, 60 s
    python bench/soak.py --database sqlite
    python bench/soak.py --postgres-url postgresql://postgres@127.0.0.1:5432/postgres --seconds 120

Exit status 1 when a check fails. ``--keep-logs DIR`` keeps the processes' logs.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import http.client
import json
import os
import pathlib
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlencode

import sqlalchemy as sa

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT_DIR) not in sys.path:
    sys.path.insert(0, str(ROOT_DIR))

from bench import soak_checks as checks  # noqa: E402
from bench.common import admin_key, basic_auth, ini_logging, load_average  # noqa: E402
from bench.soak_checks import FIELDS, TAG_FIELD, Arrival, Record, Tally, values_of  # noqa: E402
from shopsvc.db.engine import make_engine  # noqa: E402
from shopsvc.db.schema import migrate  # noqa: E402
from shopsvc.delivery.worker import LEASE_MARGIN_SECONDS  # noqa: E402
from shopsvc.sql.deliveries import now_precise  # noqa: E402
from shopsvc.sql.tables import webhook_deliveries  # noqa: E402
from shopsvc.testing.databases import scratch_postgres  # noqa: E402

POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
API = "/shop-api/v3"
TOPICS = ("order.created", "order.updated", "product.created", "product.updated")
DELIVERY_HEADER = "x-shop-webhook-delivery-id"
FAIL_EVERY = 5  # the receiver refuses the first attempt of every 5th new delivery id
RECEIVER_DELAY = 0.05  # it answers after a random 0-50 ms: a killed worker had sends under way
#: (fraction of the run, role, index): a worker, a server, the other worker.
KILLS = ((0.25, "worker", 0), (0.50, "server", 0), (0.75, "worker", 1))
RESTART_AFTER = 1.0  # seconds between a kill and the new process
WEBHOOK_TIMEOUT = 5  # seconds (shopsvc.webhooks.timeout)
LEASE_SECONDS = WEBHOOK_TIMEOUT + LEASE_MARGIN_SECONDS  # a worker's claim
CATALOGUE = 4  # products the orders' lines list
STATUSES = ("pending", "processing", "on-hold", "completed", "cancelled")
REQUEST_TIMEOUT = 30.0
RETRY_SECONDS = 30.0  # how long a client keeps sending one request that no server takes
BUSY_RETRIES = 5  # a request answered 503 busy is sent again at most this often

INI = """\
[DEFAULT]
http_port = 6543

[app:main]
use = egg:shopsvc
sqlalchemy.url = {url}
shopsvc.auto_migrate = false
shopsvc.api_root = {api}
shopsvc.header_prefix = X-Shop
shopsvc.auth.allow_basic_over_http = true
shopsvc.outbound.allow_private_targets = true
shopsvc.webhooks.deliver_in_process = false
shopsvc.webhooks.retry_base_seconds = 1
shopsvc.webhooks.timeout = {timeout}
shopsvc.webhooks.disable_after = 1000
shopsvc.media_dir = {media}
shopsvc.media_url = /media

[server:main]
use = egg:waitress#main
host = 127.0.0.1
get port = http_port
threads = 4

""" + ini_logging("%(asctime)s %(levelname)s [%(name)s] %(message)s")


# --- the receiver


class Receiver:
    """The webhook receiver on ``http://127.0.0.1:<port>/hook`` (see the module)."""

    def __init__(self) -> None:
        self.arrivals: list[Arrival] = []
        self.seen: dict[str, int] = {}  # delivery id → its rank among the new ids (1, 2, …)
        self.pings = 0  # requests without a delivery id
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = receiver.record(dict(self.headers.items()), body)
                time.sleep(random.uniform(0, RECEIVER_DELAY))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def record(self, headers: dict[str, str], body: bytes) -> int:
        """Note one request; the status to answer."""
        lowered = {name.lower(): value for name, value in headers.items()}
        delivery_id = lowered.get(DELIVERY_HEADER)
        with self._lock:
            if delivery_id is None:
                self.pings += 1
                return 200
            first = delivery_id not in self.seen
            if first:
                self.seen[delivery_id] = len(self.seen) + 1
            status = 500 if first and self.seen[delivery_id] % FAIL_EVERY == 0 else 200
            topic, hook = lowered.get("x-shop-webhook-topic", ""), lowered.get("x-shop-webhook-id")
            arrival = Arrival(
                time.monotonic(), delivery_id, topic, hook or "", headers, body, status
            )
            self.arrivals.append(arrival)
        return status

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- the processes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Processes:
    """The servers and workers this script started, by role and index. Only their own process
    ids are ever signalled."""

    def __init__(self, ini: pathlib.Path, logs: pathlib.Path, count: int) -> None:
        self.ini, self.logs = ini, logs
        self.ports = [free_port() for _ in range(count)]
        self.procs: dict[tuple[str, int], subprocess.Popen[bytes]] = {}
        self.starts: collections.Counter[tuple[str, int]] = collections.Counter()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPSVC_")}
        self.env["PYTHONPATH"] = str(ROOT_DIR)
        for n in range(count):
            self.start("server", n)
            self.start("worker", n)
        for n in range(count):
            self.wait_ready(n)

    def start(self, role: str, index: int) -> int:
        self.starts[role, index] += 1
        if role == "server":
            command = ["pyramid.scripts.pserve", str(self.ini), f"http_port={self.ports[index]}"]
        else:
            command = ["shopsvc.cli.main", str(self.ini), "worker"]
        with open(self.log_path(role, index), "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", *command],
                cwd=ROOT_DIR,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.procs[role, index] = proc
        return proc.pid

    def log_path(self, role: str, index: int) -> pathlib.Path:
        return self.logs / f"{role}{index}.{self.starts[role, index]}.log"

    def wait_ready(self, index: int, limit: float = 60.0) -> None:
        """Until server ``index`` answers ``/readyz`` 200."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and self.procs["server", index].poll() is None:
            conn = http.client.HTTPConnection("127.0.0.1", self.ports[index], timeout=2)
            try:
                conn.request("GET", "/readyz")
                if conn.getresponse().status == 200:
                    return
            except OSError:
                pass
            finally:
                conn.close()
            time.sleep(0.2)
        lines = self.log_path("server", index).read_text().splitlines()[-30:]
        raise SystemExit("\n".join([f"server {index} did not become ready:", *lines]))

    def kill(self, role: str, index: int) -> int:
        proc = self.procs[role, index]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return proc.pid

    def died(self) -> list[str]:
        """The processes that ended by themselves (none should)."""
        return [
            f"{role} {index} (pid {proc.pid}) exited {proc.returncode}"
            for (role, index), proc in self.procs.items()
            if proc.poll() is not None
        ]

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()


# --- the clients


class Refused(Exception):
    """No connection: the request was never sent."""


class Unanswered(Exception):
    """The connection was lost after the request was sent: it may or may not have been applied."""


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any


class Api:
    """Requests with the administrator's key, Basic over plain HTTP (allowed by the ini)."""

    def __init__(self, ports: list[int], key: str, secret: str) -> None:
        self.ports = ports
        self.auth = basic_auth(key, secret)

    def call(self, port: int, method: str, path: str, body: Any = None) -> Answer:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
        headers = {"Authorization": self.auth, "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            try:
                conn.connect()
            except ConnectionRefusedError as exc:
                raise Refused(str(exc)) from exc
            try:
                conn.request(method, path, data, headers)
                response = conn.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException) as exc:
                raise Unanswered(f"{type(exc).__name__}: {exc}") from exc
        finally:
            conn.close()
        found = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, found, json.loads(raw) if raw else None)

    def get(self, path: str, params: dict[str, str]) -> Answer:
        """A read of the checks, from whichever server answers it."""
        deadline = time.monotonic() + RETRY_SECONDS
        while time.monotonic() < deadline:
            for port in self.ports:
                try:
                    answer = self.call(port, "GET", f"{path}?{urlencode(params)}")
                except (Refused, Unanswered):
                    continue
                if answer.status == 200:
                    return answer
            time.sleep(0.5)
        raise SystemExit(f"GET {path}: no server answered 200")


class Client(threading.Thread):
    """One writing client: creates and edits products and orders of its own until ``stop_at``."""

    def __init__(
        self, index: int, api: Api, catalogue: list[int], tally: Tally, stop_at: float
    ) -> None:
        super().__init__(name=f"client-{index}", daemon=True)
        self.index, self.api, self.catalogue, self.tally = index, api, catalogue, tally
        self.stop_at = stop_at
        self.rng = random.Random(index)
        self.turn = index  # which server the next request goes to
        self.records: list[Record] = []

    def run(self) -> None:
        while time.monotonic() < self.stop_at:
            kind = self.rng.choice(tuple(FIELDS))
            mine = [r for r in self.records if r.kind == kind and r.id is not None]
            if not mine or self.rng.random() < 0.3:
                self.create(kind)
            else:
                self.edit(self.rng.choice(mine))

    def values(self, kind: str, tag: str, version: int) -> dict[str, Any]:
        """New values of the compared fields, each unique to this version of the record."""
        if kind == "product":
            return {
                "title": f"{tag} v{version}",
                "regular_price": f"{self.rng.randint(1, 999)}.{self.rng.randint(0, 99):02d}",
                "description": f"<p>version {version} of {tag}</p>",  # as stored (paragraphs)
            }
        return {"status": self.rng.choice(STATUSES), "note": f"{tag} v{version}"}

    def create(self, kind: str) -> None:
        tag = f"soak-c{self.index}-{kind[0]}{len(self.records)}"
        values = self.values(kind, tag, 0)
        if kind == "product":
            body = {"product": {**values, "type": "simple", "sku": tag}}
        else:
            values["status"] = self.rng.choice(("pending", "processing"))
            lines = self.rng.sample(self.catalogue, self.rng.randint(2, len(self.catalogue)))
            items = [{"product_id": p, "quantity": self.rng.randint(1, 3)} for p in lines]
            billing = {"first_name": tag}
            body = {"order": {**values, "billing_address": billing, "line_items": items}}
        record = Record(kind, tag, values)
        self.records.append(record)
        answer = self.send("POST", f"{API}/{kind}s", body, tag, again=False)
        if answer is None:
            record.uncertain.append(values)
        elif answer.status != 201:
            self.records.remove(record)
        else:
            record.id, record.acked = answer.body[kind]["id"], values_of(kind, answer.body[kind])
            self.echoed(tag, values, record.acked)

    def edit(self, record: Record) -> None:
        record.version += 1
        values = self.values(record.kind, record.tag, record.version)
        what = f"{record.tag} v{record.version}"
        path = f"{API}/{record.kind}s/{record.id}"
        answer = self.send("PUT", path, {record.kind: values}, what, record=record, sent=values)
        if answer is not None and answer.status == 200:
            record.acked = values_of(record.kind, answer.body[record.kind])
            record.uncertain.clear()
            record.edits_acked += 1
            self.echoed(what, values, record.acked)

    def echoed(self, what: str, sent: dict[str, Any], acked: dict[str, Any]) -> None:
        if sent != acked:
            with self.tally.lock:
                self.tally.mismatched.append(f"{what}: sent {sent}, acknowledged {acked}")

    def send(
        self,
        method: str,
        path: str,
        body: Any,
        what: str,
        again: bool = True,
        record: Record | None = None,
        sent: dict[str, Any] | None = None,
    ) -> Answer | None:
        """The request's answer, from the other server than the last one; None when it went
        unanswered (and ``again`` is false) or no server took it in time. An unanswered edit
        is noted on its ``record`` (``sent``) and sent again."""
        tally, busy = self.tally, 0
        deadline = time.monotonic() + RETRY_SECONDS
        while time.monotonic() < deadline:
            self.turn += 1
            port = self.api.ports[self.turn % len(self.api.ports)]
            try:
                answer = self.api.call(port, method, path, body)
            except Refused:
                with tally.lock:
                    tally.refused += 1
                time.sleep(0.05 if len(self.api.ports) > 1 else 0.2)
                continue
            except Unanswered as exc:
                with tally.lock:
                    tally.uncertain.append(f"{method} {what}: {exc}")
                if record is not None and sent is not None:
                    record.uncertain.append(sent)
                if not again:
                    return None
                continue
            if 200 <= answer.status < 300:
                with tally.lock:
                    tally.acked[f"{method} {path.split('/')[3]}"] += 1
                    tally.bodies.append((f"{method} {path}", answer.status, answer.body))
                return answer
            if answer.status < 500:
                with tally.lock:
                    tally.fourxx.append((f"{method} {what}", answer.status, answer.body))
                return answer
            errors = (answer.body or {}).get("errors") if isinstance(answer.body, dict) else None
            code = errors[0].get("code", "") if errors else ""
            retry_after = answer.headers.get("retry-after")
            with tally.lock:
                tally.fivexx.append((f"{method} {what}", answer.status, code, retry_after))
            if (answer.status, code) != checks.BUSY or busy == BUSY_RETRIES:
                return answer
            busy += 1
            time.sleep(float(retry_after or 1))
        with tally.lock:
            tally.gave_up.append(f"{method} {what}")
        return None


# --- the run


@contextmanager
def database(kind: str, server_url: str) -> Iterator[str]:
    if kind == "postgresql":
        with scratch_postgres(server_url, "shopsvc_soak") as url:
            yield url
        return
    with tempfile.TemporaryDirectory() as directory:
        yield f"sqlite:///{directory}/soak.sqlite"


def outbox_states(engine: sa.Engine) -> dict[str, int]:
    column = webhook_deliveries.c.state
    with engine.connect() as conn:
        rows = conn.execute(sa.select(column, sa.func.count()).group_by(column))
        return {state: int(count) for state, count in rows}


def orphans(engine: sa.Engine, killed_at: dt.datetime) -> int:
    """Deliveries still claimed under a lease taken before ``killed_at`` (the outbox's clock):
    a live worker's sends end within moments, and its later claims run out later."""
    d = webhook_deliveries.c
    query = sa.select(sa.func.count()).where(
        d.state == "pending",
        d.claimed_until > now_precise(),
        d.claimed_until <= killed_at + dt.timedelta(seconds=LEASE_SECONDS),
    )
    with engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


def listing(api: Api, kind: str) -> list[dict[str, Any]]:
    """Every record of the family through the API (the list's ``fields``), 1000 a page."""
    fields = ",".join(("id", TAG_FIELD[kind], *FIELDS[kind]))
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        params = {"fields": fields, "filter[limit]": "1000", "page": str(page)}
        answer = api.get(f"{API}/{kind}s", params)
        found += answer.body[f"{kind}s"]
        if page >= int(answer.headers.get("x-shop-totalpages", "1")):
            return found
        page += 1


def setup(api: Api, port: int, receiver: Receiver) -> list[int]:
    """The catalogue products (before any webhook: they raise no event) and the webhooks."""
    catalogue = []
    for n in range(CATALOGUE):
        product = {"title": f"Catalogue {n}", "type": "simple", "regular_price": "10.00"}
        product |= {"sku": f"cat-{n}", "managing_stock": True, "stock_quantity": 1_000_000}
        answer = api.call(port, "POST", f"{API}/products", {"product": product})
        catalogue.append(answer.body["product"]["id"])
    for topic in TOPICS:
        hook = {"name": topic, "topic": topic, "delivery_url": receiver.url, "secret": "soak"}
        answer = api.call(port, "POST", f"{API}/webhooks", {"webhook": hook})
        if answer.status != 201:
            raise SystemExit(f"webhook {topic}: {answer.status} {answer.body}")
    return catalogue


def soak(
    args: argparse.Namespace,
    engine: sa.Engine,
    procs: Processes,
    api: Api,
    receiver: Receiver,
    say: Callable[[str], None],
) -> int:
    count = len(procs.ports)
    pids = ", ".join(f"{role} {n} {p.pid}" for (role, n), p in procs.procs.items())
    say(f"{args.database}: {count} pserve on ports {procs.ports}, {count} worker(s) ({pids})")
    catalogue = setup(api, procs.ports[0], receiver)
    say(f"{CATALOGUE} catalogue products; webhooks on {', '.join(TOPICS)} to {receiver.url}")

    tally = Tally()
    began = time.monotonic()
    clients = [Client(n, api, catalogue, tally, began + args.seconds) for n in range(args.clients)]
    for client in clients:
        client.start()
    say(f"{args.clients} clients writing for {args.seconds:g} s")
    for fraction, role, index in KILLS:
        index = min(index, count - 1)
        time.sleep(max(0.0, began + fraction * args.seconds - time.monotonic()))
        killed_at = now_precise()
        pid = procs.kill(role, index)
        acked = sum(tally.acked.values())
        say(f"kill -9 {role} {index} (pid {pid}); {acked} writes acknowledged so far")
        time.sleep(RESTART_AFTER)
        if role == "worker":
            left = orphans(engine, killed_at)
            say(f"{left} deliveries claimed by the killed worker wait for their lease to end")
        pid = procs.start(role, index)
        if role == "server":
            procs.wait_ready(index)
        say(f"{role} {index} started again (pid {pid})")
    for client in clients:
        client.join(timeout=args.seconds + RETRY_SECONDS * (BUSY_RETRIES + 2))
    writing = time.monotonic() - began
    acked = sum(tally.acked.values())
    say(f"clients done: {acked} writes acknowledged in {writing:.1f} s ({acked / writing:.0f}/s)")

    deadline = time.monotonic() + args.drain_seconds
    while (left := outbox_states(engine).get("pending", 0)) and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(0.5)  # the last answers reach the receiver's list
    pings = receiver.pings
    say(f"outbox {'drained' if not left else f'NOT drained: {left} pending'}; {pings} pings")

    records = [r for c in clients for r in c.records]
    present: checks.Present = {kind: {} for kind in FIELDS}
    duplicates = []
    for kind in FIELDS:
        for row in listing(api, kind):
            tag = checks.tag_of(kind, row)
            if tag.startswith("soak-"):
                if tag in present[kind]:
                    duplicates.append(tag)
                present[kind][tag] = row
    arrivals = list(receiver.arrivals)
    done = [
        checks.writes(records, present),
        checks.counts(records, present, duplicates),
        checks.events(records, present, arrivals),
        checks.retries(arrivals),
        checks.server_errors(tally),
        checks.outbox(outbox_states(engine), left),
        checks.processes(procs.died()),
    ]
    checks.print_report(tally, done, checks.busy_causes(procs.logs))
    failed = [check.name for check in done if not check.ok]
    print(f"\n{args.database}: {'FAILED: ' + ', '.join(failed) if failed else 'all checks pass'}")
    return 1 if failed else 0


def run(args: argparse.Namespace, url: str, work: pathlib.Path) -> int:
    started = time.monotonic()

    def say(text: str) -> None:
        print(f"[{time.monotonic() - started:6.1f} s] {text}", flush=True)

    say(load_average())
    engine = make_engine(url)
    migrate(engine)
    key, secret = admin_key(engine)
    ini, logs = work / "soak.ini", work / "logs"
    ini.write_text(INI.format(url=url, api=API, media=work / "media", timeout=WEBHOOK_TIMEOUT))
    (work / "media").mkdir()
    logs.mkdir()
    receiver = Receiver()
    procs = Processes(ini, logs, 2 if args.database == "postgresql" else 1)
    try:
        return soak(args, engine, procs, Api(procs.ports, key, secret), receiver, say)
    finally:
        procs.stop()
        receiver.close()
        engine.dispose()
        if args.keep_logs:
            shutil.copytree(logs, args.keep_logs, dirs_exist_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--postgres-url", default=POSTGRES, help=f"default: {POSTGRES}")
    parser.add_argument("--seconds", type=float, default=60.0, help="of writing (default 60)")
    parser.add_argument("--clients", type=int, default=12, help="writing threads (default 12)")
    parser.add_argument(
        "--drain-seconds", type=float, default=150.0, help="to wait for the outbox (default 150)"
    )
    parser.add_argument("--keep-logs", type=pathlib.Path, help="copy the processes' logs here")
    args = parser.parse_args(argv)
    with database(args.database, args.postgres_url) as url, tempfile.TemporaryDirectory() as d:
        return run(args, url, pathlib.Path(d))


if __name__ == "__main__":
    sys.exit(main())
