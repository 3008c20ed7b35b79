"""The real-time events figures, against real Atrium server processes.

- `latency`: from `POST /messages` returning to the `message` event arriving at a client that
  long-polls `GET /events`; embedded (SQLite, one process) and scale-out (PostgreSQL + Redis,
  sent through one worker and long-polled through another);
- `fanout`: one message to a stream with 1,000 subscribers, each holding a long-poll open; the
  time from sending until all 1,000 have it;
- `idle`: the server's resident memory per open, idle event queue.

The clients run in this process on asyncio (httpx); they wait on the server, so a Python client
does not limit these figures the way it would limit a throughput test.
"""

from __future__ import annotations

import asyncio
import base64
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
from rich.console import Console

from bench.harness import (
    BenchError,
    Measurement,
    Row,
    RunResult,
    ScenarioResult,
    Server,
    Settings,
    Target,
    atrium_command,
    free_port,
    running,
)

FAMILY = "chat_events"
CONNECTIONS: tuple[int, ...] = ()  # event delivery, not request throughput: no HTTP ceiling
FANOUT_SUBSCRIBERS = 1_000
IDLE_QUEUES = 5_000
LATENCY_SAMPLES = 200
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


def _auth(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


def build_org(database_url: str | None, data_dir: Path, members: int) -> list[tuple[str, str]]:
    """A realm with `members` users all subscribed to stream "all"; their (email, api key)."""
    import sqlalchemy as sa

    from atrium.chat import schema
    from atrium.chat.actions.realm import create_realm
    from atrium.chat.actions.streams import StreamOptions, subscribe
    from atrium.chat.actions.users import NewUser, create_user
    from atrium.chat.models import ROLE_MEMBER, ROLE_OWNER, User
    from atrium.core import migrations
    from atrium.core.db import Conn, open_database

    sqlite_path = data_dir / "chat.sqlite3"
    migrations.upgrade("chat", database_url, sqlite_path)
    db = open_database(database_url, sqlite_path, "chat")
    try:

        def build(conn: Conn) -> list[tuple[str, str]]:
            realm_id = create_realm(conn, "Events bench", "events")
            ids = [
                create_user(
                    conn,
                    realm_id,
                    NewUser(
                        f"user{i}@events.bench",
                        f"User {i}",
                        role=ROLE_OWNER if i == 0 else ROLE_MEMBER,
                    ),
                )
                for i in range(members)
            ]
            owner = User.from_row(
                conn.one(sa.select(schema.user).where(schema.user.c.id == ids[0]))
            )
            subscribe(conn, owner, [{"name": "all"}], ids, StreamOptions(), True)
            rows = conn.all(
                sa.select(schema.user.c.email, schema.user.c.api_key).order_by(schema.user.c.id)
            )
            return [(r["email"], r["api_key"]) for r in rows]

        return db.write_sync(build)
    finally:
        db.close()


def atrium_server(data_dir: Path, env: dict[str, str]) -> Server:
    port = free_port()
    argv, _served_by = atrium_command(port)
    return Server(
        "atrium-events",
        argv,
        port,
        "/api/v1/server_settings",
        {
            "ATRIUM_DATA_DIR": str(data_dir),
            "ATRIUM_RATE_LIMITS": "0",
            "ATRIUM_SERVICES": "chat",
            **env,
        },
    )


async def _register(client: httpx.AsyncClient, base: str, auth: dict[str, str]) -> str:
    resp = await client.post(
        f"{base}/api/v1/register",
        headers=auth,
        data={"event_types": '["message"]', "fetch_event_types": "[]"},
    )
    body = resp.json()
    if body.get("result") != "success":
        raise BenchError(f"register failed: {body}")
    return str(body["queue_id"])


async def _send(client: httpx.AsyncClient, base: str, auth: dict[str, str], text: str) -> None:
    resp = await client.post(
        f"{base}/api/v1/messages",
        headers=auth,
        data={"type": "stream", "to": "all", "topic": "bench", "content": text},
    )
    if resp.json().get("result") != "success":
        raise BenchError(f"send failed: {resp.text[:200]}")


async def _poll(
    client: httpx.AsyncClient, base: str, auth: dict[str, str], queue_id: str, last: int
) -> list[dict[str, Any]]:
    resp = await client.get(
        f"{base}/api/v1/events",
        headers=auth,
        params={"queue_id": queue_id, "last_event_id": str(last)},
        timeout=120,
    )
    events: list[dict[str, Any]] = resp.json()["events"]
    return events


def _latency_result(values: list[float]) -> RunResult:
    values = sorted(values)
    return RunResult(
        requests=len(values),
        errors=0,
        seconds=sum(values) or 1e-9,
        p50_ms=statistics.median(values) * 1000,
        p99_ms=values[min(len(values) - 1, int(len(values) * 0.99))] * 1000,
    )


async def measure_latency(
    send_base: str, poll_base: str, accounts: Sequence[tuple[str, str]], samples: int
) -> tuple[RunResult, RunResult, int]:
    """(POST returned -> event arrived, POST sent -> event arrived, events before the return).

    The server publishes before it answers, so the event often reaches the long-polling client
    before the sender has its response: such a delay counts as 0 in the first figure.
    """
    sender, listener = _auth(*accounts[0]), _auth(*accounts[1])
    after_return: list[float] = []
    after_send: list[float] = []
    early = 0
    async with httpx.AsyncClient(timeout=120) as client:
        queue_id = await _register(client, poll_base, listener)
        last = -1
        for i in range(samples):
            poll = asyncio.create_task(_poll(client, poll_base, listener, queue_id, last))
            await asyncio.sleep(0.005)  # let the long-poll reach the server
            sent = time.perf_counter()
            await _send(client, send_base, sender, f"ping {i}")
            returned = time.perf_counter()
            events = await poll
            arrived = time.perf_counter()
            last = events[-1]["id"]
            early += arrived < returned
            after_return.append(max(0.0, arrived - returned))
            after_send.append(arrived - sent)
    return _latency_result(after_return), _latency_result(after_send), early


class RawConnection:
    """A minimal keep-alive HTTP/1.1 client connection.

    A thousand long-polls through one httpx client spend seconds in its connection pool; raw
    asyncio streams keep the client's cost out of the fan-out figure.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> RawConnection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: str = ""
    ) -> dict[str, Any]:
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body:
            lines += [
                "Content-Type: application/x-www-form-urlencoded",
                f"Content-Length: {len(body.encode())}",
            ]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n" + body).encode())
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
        result: dict[str, Any] = orjson.loads(await self.reader.readexactly(length))
        return result

    def close(self) -> None:
        self.writer.close()


async def measure_fanout(port: int, accounts: Sequence[tuple[str, str]], rounds: int) -> RunResult:
    auths = [_auth(*a) for a in accounts]
    listeners = auths[1:]
    connections = [await RawConnection.open(port) for _ in listeners]
    register_body = urlencode({"event_types": '["message"]', "fetch_event_types": "[]"})
    queues = []
    for conn, auth in zip(connections, listeners, strict=True):
        body = await conn.request("POST", "/api/v1/register", auth, register_body)
        if body.get("result") != "success":
            raise BenchError(f"register failed: {body}")
        queues.append(body["queue_id"])
    sender = await RawConnection.open(port)
    last = [-1] * len(queues)
    durations: list[float] = []
    try:
        for r in range(rounds):
            polls = [
                asyncio.create_task(
                    conn.request(
                        "GET",
                        "/api/v1/events?" + urlencode({"queue_id": q, "last_event_id": last[i]}),
                        auth,
                    )
                )
                for i, (conn, auth, q) in enumerate(
                    zip(connections, listeners, queues, strict=True)
                )
            ]
            await asyncio.sleep(1.0)  # every long-poll parked on the server
            start = time.perf_counter()
            sent = await sender.request(
                "POST",
                "/api/v1/messages",
                auths[0],
                urlencode(
                    {"type": "stream", "to": "all", "topic": "bench", "content": f"fan-out {r}"}
                ),
            )
            if sent.get("result") != "success":
                raise BenchError(f"send failed: {sent}")
            results = await asyncio.gather(*polls)
            durations.append(time.perf_counter() - start)
            last = [body["events"][-1]["id"] for body in results]
    finally:
        for conn in [*connections, sender]:
            conn.close()
    return RunResult(
        requests=len(durations),
        errors=0,
        seconds=sum(durations),
        p50_ms=statistics.median(durations) * 1000,
        p99_ms=max(durations) * 1000,
    )


def measure_idle(queues: int) -> tuple[float, float | None]:
    """Bytes per idle queue: in-process (traced allocations) and in Redis (MEMORY USAGE)."""
    import tracemalloc

    from atrium.chat.events import MemoryEventQueues, QueueOptions, RedisEventQueues

    options = QueueOptions(frozenset({"message"}), apply_markdown=True)

    async def register_all(bus: Any) -> list[str]:
        return [await bus.register(user_id % 1000, options) for user_id in range(queues)]

    memory = MemoryEventQueues()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    asyncio.run(register_all(memory))
    in_process = (tracemalloc.get_traced_memory()[0] - before) / queues
    tracemalloc.stop()

    async def in_redis() -> float | None:
        try:
            bus = RedisEventQueues(REDIS_URL)
            ids = [await bus.register(1_000_000 + i, options) for i in range(1000)]
        except Exception:
            return None
        redis = bus._redis
        total = 0
        for queue_id in ids:
            _stream, meta = bus._keys(queue_id)
            total += int(await redis.memory_usage(meta) or 0)
        for i in range(1000):
            total += int(await redis.memory_usage(bus._user_key(1_000_000 + i)) or 0)
        for i, queue_id in enumerate(ids):
            await bus.delete(queue_id, 1_000_000 + i)
        await bus.close()
        return total / len(ids)

    return in_process, asyncio.run(in_redis())


def _postgres_database() -> str | None:
    try:
        import psycopg
        import redis

        redis.Redis.from_url(REDIS_URL).ping()
        name = f"atrium_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception:
        return None
    return POSTGRES_ADMIN.rsplit("/", 1)[0] + "/" + name


def _drop_postgres(url: str) -> None:
    import psycopg

    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    results: list[ScenarioResult] = []
    with tempfile.TemporaryDirectory(prefix="atrium-events-") as tmp:
        data = Path(tmp) / "embedded"
        data.mkdir()
        console.print(
            f"[bold]{FAMILY}[/bold]: building an organization of {FANOUT_SUBSCRIBERS:,} users"
        )
        accounts = build_org(None, data, FANOUT_SUBSCRIBERS + 1)
        with running(atrium_server(data, {})) as server:
            latency, delivery, early = asyncio.run(
                measure_latency(server.base_url, server.base_url, accounts, LATENCY_SAMPLES)
            )
            console.print(
                f"  latency (embedded): p50 {latency.p50_ms:.2f} ms, p99 {latency.p99_ms:.2f} ms"
            )
            fanout = asyncio.run(measure_fanout(server.port, accounts, max(3, settings.runs)))
            console.print(
                f"  fan-out to {FANOUT_SUBSCRIBERS:,}: median {fanout.p50_ms:.0f} ms, max {fanout.p99_ms:.0f} ms"
            )
        per_queue, per_redis_queue = measure_idle(IDLE_QUEUES)
        console.print(f"  idle queues: {per_queue:,.0f} bytes each in process")
        rows = [
            Row(
                Measurement("embedded: POST returned → event", 1, [latency]),
                (Target("p50_ms", 10),),
            ),
            Row(Measurement("embedded: POST sent → event", 1, [delivery])),
        ]
        notes = [
            f"{LATENCY_SAMPLES} messages, one at a time; p50/p99 are of the per-message delays "
            "(req/s is meaningless here). The server publishes before it answers, so the event "
            "can reach the listener before the sender has its response; such a delay counts as 0 "
            f"in the first row (embedded: {early} of {LATENCY_SAMPLES}). The second row times "
            "from the moment the POST was sent."
        ]
        pg_url = _postgres_database()
        if pg_url is None:
            notes.append("Scale-out not measured: PostgreSQL or Redis was not reachable.")
        else:
            try:
                pg_data_a, pg_data_b = Path(tmp) / "a", Path(tmp) / "b"
                pg_data_a.mkdir()
                pg_data_b.mkdir()
                pg_accounts = build_org(pg_url, pg_data_a, 3)
                env = {"ATRIUM_DATABASE_URL": pg_url, "ATRIUM_REDIS_URL": REDIS_URL}
                with (
                    running(atrium_server(pg_data_a, env)) as worker_a,
                    running(atrium_server(pg_data_b, env)) as worker_b,
                ):
                    scale, scale_delivery, scale_early = asyncio.run(
                        measure_latency(
                            worker_a.base_url, worker_b.base_url, pg_accounts, LATENCY_SAMPLES
                        )
                    )
                console.print(
                    f"  latency (scale-out): p50 {scale.p50_ms:.2f} ms, p99 {scale.p99_ms:.2f} ms"
                )
                rows.append(Row(Measurement("scale-out: POST returned → event", 1, [scale])))
                rows.append(Row(Measurement("scale-out: POST sent → event", 1, [scale_delivery])))
                notes.append(
                    "Scale-out (PostgreSQL + Redis, two `atrium serve` workers, both pinned to the "
                    "server core): sent through worker A, long-polled through worker B; "
                    f"{scale_early} of {LATENCY_SAMPLES} events arrived before the POST returned."
                )
            finally:
                _drop_postgres(pg_url)
        results.append(
            ScenarioResult(
                FAMILY,
                "latency",
                "send-to-event latency",
                "From `POST /messages` returning to the `message` event "
                "arriving at a client long-polling `GET /events`.",
                rows,
                notes,
            )
        )
        results.append(
            ScenarioResult(
                FAMILY,
                "fanout",
                f"fan-out to {FANOUT_SUBSCRIBERS:,} long-polling subscribers",
                f"One message to a stream with {FANOUT_SUBSCRIBERS:,} subscribers, each holding a "
                "`GET /events` long-poll open; from sending until all have the event (embedded).",
                [
                    Row(
                        Measurement(
                            f"{FANOUT_SUBSCRIBERS:,} subscribers", FANOUT_SUBSCRIBERS, [fanout]
                        ),
                        (Target("p50_ms", 500),),
                    )
                ],
                [
                    "p50 is the median over the rounds, p99 the slowest round; req/s is meaningless here."
                ],
            )
        )
        results.append(
            ScenarioResult(
                FAMILY,
                "idle",
                "memory per idle event queue",
                f"Memory held by {IDLE_QUEUES:,} registered, idle queues "
                '(`event_types=["message"]`), divided by their number: traced Python allocations '
                "of the in-process queues, and `MEMORY USAGE` of each Redis queue's keys.",
                [],
                [
                    f"In process (embedded): {per_queue:,.0f} bytes per open queue.",
                    "In Redis (scale-out): "
                    + (
                        f"{per_redis_queue:,.0f} bytes per open queue (before any event)."
                        if per_redis_queue is not None
                        else "not measured (Redis unreachable)."
                    ),
                ],
            )
        )
    return results
