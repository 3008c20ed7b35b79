"""kill -9 under write load: nothing a client was told is written may be lost or damaged.

A real `atrium serve` (chat and wiki) takes concurrent chat sends and wiki edits; mid-load its whole
process group gets SIGKILL, as a crash or the OOM killer would. Some cycles also kill a restart
during start-up. Then the server starts again on the same data, and every write acknowledged so
far, in every cycle, must read back intact: each message by id with its content and topic (and a
sample through the full-text search), each revision by id with its title and text. The database
must pass its own checks: SQLite's `integrity_check`, `foreign_key_check` and the FTS5 integrity
checks, read while the server is down; on PostgreSQL, amcheck over every index and heap of both
services' schemas.

`ATRIUM_CRASH_CYCLES` sets the cycles per backend (2 in the normal suite; `make fuzz` runs 20).
Writes that got no answer were in flight at the kill: they may or may not be stored, both are fine.
"""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import psycopg
import pytest

from tests.conftest import free_port
from tests.e2e.server import LiveServer, atrium, atrium_env, running_server, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.crash]

CYCLES = int(os.environ.get("ATRIUM_CRASH_CYCLES") or 2)
SENDERS = 6
EDITORS = 2
PAGES = 10
STREAM = "durable"
OWNER = "owner@crash.test"
ADMIN, ADMIN_PASSWORD = "Admin", "admin-pass-123"
READY = "/w/api.php?action=query&meta=siteinfo&format=json"
# Writes acknowledged before the kill, at least: a kill before any write proves nothing.
MIN_MESSAGES, MIN_REVISIONS = 20, 4


@dataclass
class Acknowledged:
    """What the server said it stored, and the writes it never answered."""

    messages: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (topic, content)
    revisions: dict[int, tuple[str, str]] = field(default_factory=dict)  # revid -> (title, text)
    in_flight: int = 0
    # A load thread's unexpected failure, for the test to report.
    errors: list[BaseException] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def guard(self, target: Callable[..., None]) -> Callable[..., None]:
        def run(*args: object) -> None:
            try:
                target(*args)
            except BaseException as exc:
                with self.lock:
                    self.errors.append(exc)

        return run


@dataclass
class Org:
    env: dict[str, str]
    data_dir: Path
    database_url: str | None
    api_key: str


@pytest.fixture
def org(data_dir: Path, database_url: str | None) -> Org:
    env = atrium_env(data_dir, database_url, ATRIUM_RATE_LIMITS="0")
    atrium(env, "chat", "create-realm", "--name", "Crash Test")
    atrium(
        env, "chat", "create-user", "--email", OWNER, "--full-name", "Kim Owner", "--role", "owner"
    )
    match = re.search(r"^key=(\S+)$", atrium(env, "chat", "api-key", OWNER), re.MULTILINE)
    assert match
    atrium(env, "wiki", "create-user", ADMIN, "--password", ADMIN_PASSWORD, "--groups", "sysop")
    return Org(env, data_dir, database_url, match.group(1))


def _chat_client(base: str, org: Org) -> httpx.Client:
    return httpx.Client(base_url=base, auth=(OWNER, org.api_key), timeout=20)


def _wiki_login(client: httpx.Client) -> str:
    """Log `client` in as the wiki's administrator; its csrf token."""
    api = "/w/api.php"
    tokens = client.get(
        api, params={"action": "query", "meta": "tokens", "type": "login", "format": "json"}
    )
    login = client.post(
        api,
        data={
            "action": "login",
            "lgname": ADMIN,
            "lgpassword": ADMIN_PASSWORD,
            "lgtoken": tokens.json()["query"]["tokens"]["logintoken"],
            "format": "json",
        },
    )
    assert login.json()["login"]["result"] == "Success", login.text
    csrf = client.get(api, params={"action": "query", "meta": "tokens", "format": "json"})
    token: str = csrf.json()["query"]["tokens"]["csrftoken"]
    return token


def _send_messages(
    base: str, org: Org, worker: int, cycle: int, acked: Acknowledged, stop: threading.Event
) -> None:
    topic = f"topic {worker} ✓"
    with _chat_client(base, org) as client:
        for n in range(1_000_000):
            if stop.is_set():
                return
            content = f"crash c{cycle} w{worker} n{n}: **bold** `code` ünïcödé 🙂\nsecond line"
            try:
                resp = client.post(
                    "/api/v1/messages",
                    data={"type": "stream", "to": STREAM, "topic": topic, "content": content},
                )
            except httpx.TransportError:
                with acked.lock:
                    acked.in_flight += 1
                return
            if resp.status_code == 200 and resp.json().get("result") == "success":
                with acked.lock:
                    acked.messages[int(resp.json()["id"])] = (topic, content)


def _edit_pages(
    base: str, worker: int, cycle: int, acked: Acknowledged, stop: threading.Event
) -> None:
    with httpx.Client(base_url=base, timeout=20) as client:
        try:
            csrf = _wiki_login(client)
        except httpx.TransportError:
            return
        for n in range(1_000_000):
            if stop.is_set():
                return
            title = f"Crash page {(worker + n) % PAGES}"
            text = f"Revision c{cycle} w{worker} n{n}.\n\n== Ünïcödé ==\n''italic'' [[Link {n}]]"
            try:
                resp = client.post(
                    "/w/api.php",
                    data={
                        "action": "edit",
                        "title": title,
                        "text": text,
                        "summary": f"c{cycle} n{n}",
                        "assert": "user",
                        "token": csrf,
                        "format": "json",
                        "formatversion": "2",
                    },
                )
            except httpx.TransportError:
                with acked.lock:
                    acked.in_flight += 1
                return
            edit = resp.json().get("edit", {}) if resp.status_code == 200 else {}
            if edit.get("result") == "Success" and "newrevid" in edit:
                with acked.lock:
                    acked.revisions[int(edit["newrevid"])] = (title, text)


@contextmanager
def load(base: str, org: Org, cycle: int, acked: Acknowledged) -> Iterator[None]:
    """Senders and editors writing until the block ends (they stop at the first lost answer)."""
    stop = threading.Event()
    threads = [
        threading.Thread(
            target=acked.guard(_send_messages), args=(base, org, w, cycle, acked, stop)
        )
        for w in range(SENDERS)
    ] + [
        threading.Thread(target=acked.guard(_edit_pages), args=(base, w, cycle, acked, stop))
        for w in range(EDITORS)
    ]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        if acked.errors:
            raise acked.errors[0]


def kill_under_load(server: LiveServer, org: Org, cycle: int, acked: Acknowledged) -> None:
    rng = random.Random(cycle)
    before_messages, before_revisions = len(acked.messages), len(acked.revisions)
    with load(server.url, org, cycle, acked):
        deadline = time.monotonic() + 60
        while (
            len(acked.messages) - before_messages < MIN_MESSAGES
            or len(acked.revisions) - before_revisions < MIN_REVISIONS
        ):
            assert not acked.errors, acked.errors
            assert time.monotonic() < deadline, "the load made no progress in 60 s"
            time.sleep(0.05)
        time.sleep(rng.uniform(0.2, 1.5))
        server.kill()


def kill_during_startup(org: Org, cycle: int) -> None:
    """Start the server and kill it while it applies migrations, opens the databases or starts
    serving: a crash loop must not damage anything either."""
    process = start_server(org.env, free_port(), org.data_dir / "startup-kill.log")
    time.sleep(random.Random(-cycle).uniform(0.05, 1.5))
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def check_sqlite(data_dir: Path) -> None:
    for service in ("chat", "wiki"):
        conn = sqlite3.connect(data_dir / f"{service}.sqlite3")
        try:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)], service
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == [], service
            fts = [
                name
                for (name,) in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                    " AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'"
                )
            ]
            assert fts, f"{service} has no full-text index to check"
            for name in fts:
                # Raises "database disk image is malformed" when the index does not match.
                conn.execute(f'INSERT INTO "{name}"("{name}") VALUES (\'integrity-check\')')
            conn.rollback()
        finally:
            conn.close()


def check_postgres(database_url: str) -> None:
    """amcheck: every btree index of both schemas agrees with its table, and every heap is sound."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        indexes = conn.execute(
            "SELECT c.oid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE a.amname = 'btree' AND n.nspname IN ('chat', 'wiki') AND i.indisvalid"
        ).fetchall()
        assert len(indexes) > 20
        for (index,) in indexes:
            conn.execute("SELECT bt_index_check(%s::regclass, true)", (index,))
        tables = conn.execute(
            "SELECT c.oid::regclass::text FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind = 'r' AND n.nspname IN ('chat', 'wiki')"
        ).fetchall()
        for (table,) in tables:
            problems = conn.execute(
                "SELECT * FROM verify_heapam(%s::regclass)", (table,)
            ).fetchall()
            assert problems == [], (table, problems)


def check_messages(base: str, org: Org, acked: Acknowledged, rng: random.Random) -> None:
    narrow = orjson.dumps([{"operator": "stream", "operand": STREAM}]).decode()
    found: dict[int, tuple[str, str]] = {}
    anchor: int | str = "oldest"
    with _chat_client(base, org) as client:
        while True:
            resp = client.get(
                "/api/v1/messages",
                params={
                    "anchor": anchor,
                    "num_before": 0,
                    "num_after": 1000,
                    "include_anchor": "false" if anchor != "oldest" else "true",
                    "narrow": narrow,
                    "apply_markdown": "false",
                },
            )
            body = resp.json()
            assert body["result"] == "success", body
            for message in body["messages"]:
                found[message["id"]] = (message["subject"], message["content"])
            if body["found_newest"] or not body["messages"]:
                break
            anchor = body["messages"][-1]["id"]
        lost = set(acked.messages) - set(found)
        assert not lost, f"{len(lost)} acknowledged messages lost, e.g. {sorted(lost)[:5]}"
        damaged = [i for i, sent in acked.messages.items() if found[i] != sent]
        assert not damaged, f"acknowledged messages changed: {damaged[:5]}"
        # The full-text index holds them too.
        for message_id in rng.sample(sorted(acked.messages), 5):
            _topic, content = acked.messages[message_id]
            token = content.split(":")[0].removeprefix("crash ")
            search = orjson.dumps(
                [
                    {"operator": "stream", "operand": STREAM},
                    {"operator": "search", "operand": token},
                ]
            ).decode()
            resp = client.get(
                "/api/v1/messages",
                params={"anchor": "newest", "num_before": 50, "num_after": 0, "narrow": search},
            )
            ids = [m["id"] for m in resp.json()["messages"]]
            assert message_id in ids, (token, resp.text[:300])


def check_revisions(base: str, acked: Acknowledged) -> None:
    revids = sorted(acked.revisions)
    with httpx.Client(base_url=base, timeout=30) as client:
        for start in range(0, len(revids), 50):
            batch = revids[start : start + 50]
            resp = client.get(
                "/w/api.php",
                params={
                    "action": "query",
                    "prop": "revisions",
                    "revids": "|".join(map(str, batch)),
                    "rvprop": "ids|content",
                    "rvslots": "main",
                    "format": "json",
                    "formatversion": "2",
                },
            )
            query = resp.json()["query"]
            assert "badrevids" not in query, f"acknowledged revisions lost: {query['badrevids']}"
            got = {
                rev["revid"]: (page["title"], rev["slots"]["main"]["content"])
                for page in query["pages"]
                for rev in page["revisions"]
            }
            for revid in batch:
                assert got.get(revid) == acked.revisions[revid], (revid, got.get(revid))


def test_acknowledged_writes_survive_kill_9(org: Org) -> None:
    acked = Acknowledged()
    rng = random.Random(0)
    with running_server(org.env, READY) as server:
        with _chat_client(server.url, org) as client:
            resp = client.post(
                "/api/v1/users/me/subscriptions",
                data={"subscriptions": orjson.dumps([{"name": STREAM}]).decode()},
            )
            assert resp.json()["result"] == "success", resp.text
        kill_under_load(server, org, 0, acked)
    for cycle in range(1, CYCLES + 1):
        if org.database_url is None:
            check_sqlite(org.data_dir)
        if cycle % 3 == 0:
            kill_during_startup(org, cycle)
        with running_server(org.env, READY, log_name=f"server-{cycle}.log") as server:
            check_messages(server.url, org, acked, rng)
            check_revisions(server.url, acked)
            if cycle < CYCLES:
                kill_under_load(server, org, cycle, acked)
        log = (org.data_dir / f"server-{cycle}.log").read_text()
        assert "Traceback" not in log, log[-3000:]
    if org.database_url is not None:
        check_postgres(org.database_url)
    assert acked.messages and acked.revisions
    # The figures `make fuzz` reports (pytest -s shows them).
    print(
        f"\nkill -9 cycles: {CYCLES}; acknowledged: {len(acked.messages)} messages,"
        f" {len(acked.revisions)} revisions; lost or changed: 0;"
        f" unanswered at the kill: {acked.in_flight}"
    )
