"""Presence heartbeats and reaction round trips against `atrium serve`.

- `heartbeat`: every one of 1,000 users sends `POST /api/v1/users/me/presence` (status active, as
  a client's once-a-minute heartbeat does), one after another on one connection. The server's CPU
  time over the run (its process group, from /proc) divided by the heartbeats is the cost of one;
  1,000 users beating once a minute then cost `1,000 × that / 60 s` of one core, the main write
  load of a quiet organization.
- `reaction`: one user adds (then removes) a reaction to a stream message while another, whose
  event queue is open, long-polls `GET /events`; the time from sending the reaction to the event's
  arrival is the round trip a user watching the message sees.
"""

from __future__ import annotations

import base64
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console

from bench.chat import atrium_server
from bench.harness import (
    BenchError,
    CpuMeter,
    Measurement,
    Row,
    RunResult,
    ScenarioResult,
    Settings,
    running,
)

FAMILY = "chat_presence"
CONNECTIONS = (1,)
USERS = 1000
REACTIONS_PER_RUN = 50
STREAM = "reactions"
EMOJI = ("thumbs_up", "heart", "tada", "smile", "rocket")
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def group_cpu_seconds(pgid: int) -> float:
    """User and system CPU time of every process in the group (granian's supervisor and worker)."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / TICK


def _auth(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


def build_org(data_dir: Path) -> list[tuple[str, str]]:
    """A fresh organization: an owner, a watcher and `USERS` members; (email, API key) of each,
    the owner first and the watcher second."""
    import sqlalchemy as sa

    from atrium.chat import schema
    from atrium.chat.actions.realm import create_realm
    from atrium.chat.actions.streams import StreamOptions, subscribe
    from atrium.chat.actions.users import NewUser, create_user
    from atrium.chat.models import ROLE_MEMBER, ROLE_OWNER, User
    from atrium.core import migrations
    from atrium.core.db import Conn, SQLiteDatabase

    path = data_dir / "chat.sqlite3"
    migrations.upgrade("chat", None, path)
    db = SQLiteDatabase(path)

    def write(conn: Conn) -> list[tuple[str, str]]:
        realm_id = create_realm(conn, "Presence Bench", "presence-bench")
        owner = NewUser("owner@presence.example", "Bench Owner", None, ROLE_OWNER)
        ids = [create_user(conn, realm_id, owner)]
        watcher = NewUser("watcher@presence.example", "Bench Watcher", None, ROLE_MEMBER)
        ids.append(create_user(conn, realm_id, watcher))
        for i in range(USERS):
            new = NewUser(f"user{i}@presence.example", f"Presence User {i}", None, ROLE_MEMBER)
            ids.append(create_user(conn, realm_id, new))
        U = schema.user.c
        acting = User.from_row(conn.one(sa.select(schema.user).where(U.id == ids[0])))
        subscribe(conn, acting, [{"name": STREAM}], ids[:2], StreamOptions(), True)
        rows = conn.all(sa.select(U.id, U.email, U.api_key).where(U.id.in_(ids)).order_by(U.id))
        return [(r["email"], r["api_key"]) for r in rows]

    try:
        return db.write_sync(write)
    finally:
        db.close()


def _ok(resp: httpx.Response) -> dict[str, object]:
    body: dict[str, object] = resp.json()
    if resp.status_code != 200 or body.get("result") != "success":
        raise BenchError(f"{resp.request.method} {resp.request.url.path}: {resp.text[:200]}")
    return body


def _run(timings: list[float]) -> RunResult:
    ordered = sorted(timings)
    return RunResult(
        requests=len(timings),
        errors=0,
        seconds=sum(timings),
        p50_ms=statistics.median(ordered) * 1000,
        p99_ms=ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    console.rule("chat_presence: presence heartbeats of 1,000 users; reaction round trips")
    data_dir = Path(tempfile.mkdtemp(prefix="atrium-bench-presence-")) / "data"
    data_dir.mkdir(parents=True)
    accounts = build_org(data_dir)
    owner, watcher, members = accounts[0], accounts[1], accounts[2:]
    server, served_by = atrium_server(data_dir)
    beat_runs: list[RunResult] = []
    beat_other: list[float] = []
    reaction_other: list[float] = []
    cpu_per_beat: list[float] = []
    reaction_runs: list[RunResult] = []
    with running(server), httpx.Client(base_url=server.base_url, timeout=60) as client:
        assert server.proc is not None
        pgid = server.proc.pid
        heads = [_auth(email, key) for email, key in members]
        for _ in range(settings.runs):
            timings = []
            with CpuMeter(pgid) as meter:
                cpu_before = group_cpu_seconds(pgid)
                for head in heads:
                    started = time.perf_counter()
                    _ok(
                        client.post(
                            "/api/v1/users/me/presence",
                            data={
                                "status": "active",
                                "new_user_input": "true",
                                "slim_presence": "true",
                            },
                            headers=head,
                        )
                    )
                    timings.append(time.perf_counter() - started)
                cpu = (group_cpu_seconds(pgid) - cpu_before) / len(heads)
            beat_other.append(meter.other_cores)
            cpu_per_beat.append(cpu)
            beat_runs.append(_run(timings))
            console.print(
                f"  heartbeats: {statistics.median(timings) * 1000:.1f} ms median, "
                f"{cpu * 1000:.2f} ms of server CPU each"
            )

        owner_head, watcher_head = _auth(*owner), _auth(*watcher)
        sent = _ok(
            client.post(
                "/api/v1/messages",
                data={"type": "stream", "to": STREAM, "topic": "bench", "content": "React here"},
                headers=owner_head,
            )
        )
        message_id = sent["id"]
        queue = _ok(
            client.post(
                "/api/v1/register", data={"event_types": '["reaction"]'}, headers=watcher_head
            )
        )
        queue_id, last_event_id = str(queue["queue_id"]), int(str(queue["last_event_id"]))
        for _ in range(settings.runs):
            timings = []
            with CpuMeter(pgid) as meter:
                for i in range(REACTIONS_PER_RUN):
                    emoji = EMOJI[i % len(EMOJI)]
                    for method in ("POST", "DELETE"):
                        started = time.perf_counter()
                        _ok(
                            client.request(
                                method,
                                f"/api/v1/messages/{message_id}/reactions",
                                params={"emoji_name": emoji},
                                headers=owner_head,
                            )
                        )
                        while True:
                            events = _ok(
                                client.get(
                                    "/api/v1/events",
                                    params={"queue_id": queue_id, "last_event_id": last_event_id},
                                    headers=watcher_head,
                                )
                            )["events"]
                            assert isinstance(events, list)
                            if events:
                                last_event_id = max(int(e["id"]) for e in events)
                            if any(e["type"] == "reaction" for e in events):
                                break
                        timings.append(time.perf_counter() - started)
            reaction_other.append(meter.other_cores)
            reaction_runs.append(_run(timings))
            console.print(f"  reactions: {statistics.median(timings) * 1000:.1f} ms round trip")

    beats = Measurement(
        "POST /users/me/presence, 1,000 users, 1 connection", 1, beat_runs, other_cores=beat_other
    )
    reactions = Measurement(
        "reaction add/remove → GET /events, 1 connection",
        1,
        reaction_runs,
        other_cores=reaction_other,
    )
    cpu = statistics.median(cpu_per_beat)
    share = USERS * cpu / 60
    return [
        ScenarioResult(
            family=FAMILY,
            key="heartbeat",
            title="Presence heartbeats of 1,000 users",
            description=(
                f"Each of {USERS:,} users sends one `POST /api/v1/users/me/presence` (active, "
                f"slim_presence), one after another on one connection, {settings.runs} runs; "
                f"server CPU from /proc over each run. Served by {served_by}."
            ),
            rows=[Row(beats)],
            notes=[
                f"server CPU per heartbeat: {cpu * 1000:.2f} ms (median of the runs: "
                + ", ".join(f"{c * 1000:.2f}" for c in cpu_per_beat)
                + " ms)",
                f"1,000 users beating once a minute: {share * 100:.1f} % of one core",
            ],
        ),
        ScenarioResult(
            family=FAMILY,
            key="reaction",
            title="Reaction round trip",
            description=(
                "One user adds, then removes, a reaction to a stream message; another user's "
                "event queue long-polls `GET /api/v1/events`; each figure is from sending the "
                f"reaction to the `reaction` event's arrival. {REACTIONS_PER_RUN} add/remove "
                f"pairs per run, {settings.runs} runs. Served by {served_by}."
            ),
            rows=[Row(reactions)],
            notes=[
                f"round trip: {reactions.p50_ms:.1f} ms median, {reactions.p99_ms:.1f} ms p99",
            ],
        ),
    ]
