"""Issue 3's three figures over HTTP, against a real Atrium server on the 1M-message data set.

- `flags`: `POST /api/v1/messages/flags/narrow` marking the oldest 5,000 messages of the reader's
  busiest stream read (target: median <= 100 ms); each is preceded by the request marking them
  unread again, timed too and reported without a target, so that every request changes 5,000
  rows;
- `search`: `GET /api/v1/messages` for the newest 100 messages matching a one-word `search`
  narrow over the whole organization, rotating through 8 words, on one connection (target:
  median p50 <= 100 ms);
- `move`: `PATCH /api/v1/messages/{id}` with `propagate_mode=change_all` moving a 10,000-message
  topic to a new topic name (each request a new name) (target: median <= 2 s).

`search` runs under the load generator on one connection. `flags` and `move` change state with
every request, so they are timed one request at a time by an HTTP client (httpx) on one
keep-alive connection, which also checks every answer (`updated_count`, the topic moved).

The server works on a copy of the cached data set (`bench.datasets.fetch_dataset`, whose search
index is built with the data set) under `bench/.data/`, removed afterwards: these requests write.
The 10,000-message topic is added to the copy before the server starts (direct inserts, indexed
for search as the actions would).
"""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
import sqlalchemy as sa
from rich.console import Console

from bench.chat import atrium_server, auth_header
from bench.datasets import Account, FetchDataset, fetch_dataset
from bench.harness import (
    DATA_DIR,
    BenchError,
    CpuMeter,
    HttpRequest,
    Measurement,
    Row,
    RunResult,
    ScenarioResult,
    Server,
    Settings,
    Target,
    measure,
    running,
    wait_for_quiet,
)

FAMILY = "chat_messaging"
CONNECTIONS = (1,)

SEARCH_WORDS = ("deploy", "release", "merge", "review", "flaky", "staging", "branch", "green")
FLAG_COUNT = 5000
MOVE_SIZE = 10_000
MOVE_TOPIC = "bench move"
MOVES_PER_RUN = 3
FLAG_PAIRS = 10


# --- The working copy -------------------------------------------------------------------------


def copy_dataset(data: FetchDataset) -> Path:
    work = DATA_DIR / f"work-{FAMILY}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for path in data.data_dir.iterdir():
        if path.is_file():
            shutil.copy(path, work / path.name)
    return work


def prepare(work: Path, email: str) -> tuple[str, int]:
    """(the reader's busiest stream, the first id of a new MOVE_SIZE-message topic in it)."""
    from atrium.chat import schema, search
    from atrium.chat.models import User
    from atrium.core import migrations
    from atrium.core.db import Conn, SQLiteDatabase

    path = work / "chat.sqlite3"
    migrations.upgrade("chat", None, path)
    db = SQLiteDatabase(path)

    def write(conn: Conn) -> tuple[str, int]:
        row = conn.one(sa.select(schema.user).where(schema.user.c.email == email))
        assert row is not None
        user = User.from_row(row)
        UM, M, S = schema.user_message.c, schema.message.c, schema.stream.c
        busiest = conn.one(
            sa.select(S.id, S.name, S.recipient_id, sa.func.count().label("n"))
            .select_from(
                schema.user_message.join(schema.message, M.id == UM.message_id).join(
                    schema.stream, S.id == M.stream_id
                )
            )
            .where(UM.user_id == user.id)
            .group_by(S.id, S.name, S.recipient_id)
            .order_by(sa.desc("n"))
            .limit(1)
        )
        assert busiest is not None
        now = time.time()
        first = int(conn.scalar(sa.select(sa.func.max(M.id)))) + 1
        columns = ("realm_id", "sender_id", "recipient_id", "stream_id", "topic", "date_sent")
        conn.executemany(
            sa.insert(schema.message).values(
                id=sa.bindparam("mid"),
                content=sa.bindparam("content"),
                rendered_content=sa.bindparam("html"),
                **{name: sa.bindparam(name) for name in columns},
            ),
            [
                {
                    "mid": first + i,
                    "content": f"message {i} of the moving topic",
                    "html": f"<p>message {i} of the moving topic</p>",
                    "realm_id": user.realm_id,
                    "sender_id": user.id,
                    "recipient_id": busiest["recipient_id"],
                    "stream_id": busiest["id"],
                    "topic": MOVE_TOPIC,
                    "date_sent": now,
                }
                for i in range(MOVE_SIZE)
            ],
        )
        ids = list(range(first, first + MOVE_SIZE))
        conn.executemany(
            sa.insert(schema.user_message).values(
                user_id=sa.bindparam("u"), message_id=sa.bindparam("m"), flags=sa.bindparam("f")
            ),
            [{"u": user.id, "m": mid, "f": 1} for mid in ids],
        )
        search.index_messages(conn, ids)
        return str(busiest["name"]), first

    try:
        return db.write_sync(write)
    finally:
        db.close()


# --- Requests ---------------------------------------------------------------------------------


def form(reader: Account) -> dict[str, str]:
    return {**auth_header(reader), "Content-Type": "application/x-www-form-urlencoded"}


def flags_requests(reader: Account, stream: str) -> list[HttpRequest]:
    narrow = orjson.dumps([{"operator": "stream", "operand": stream}]).decode()
    return [
        HttpRequest(
            "POST",
            "/api/v1/messages/flags/narrow",
            form(reader),
            urlencode(
                {
                    "anchor": "oldest",
                    "num_before": 0,
                    "num_after": FLAG_COUNT,
                    "narrow": narrow,
                    "op": op,
                    "flag": "read",
                }
            ),
        )
        for op in ("remove", "add")
    ]


def search_requests(reader: Account) -> list[HttpRequest]:
    requests = []
    for word in SEARCH_WORDS:
        narrow = orjson.dumps([{"operator": "search", "operand": word}]).decode()
        query = urlencode({"anchor": "newest", "num_before": 100, "num_after": 0, "narrow": narrow})
        requests.append(HttpRequest("GET", f"/api/v1/messages?{query}", auth_header(reader)))
    return requests


def check(client: httpx.Client, request: HttpRequest) -> dict[str, Any]:
    resp = client.request(
        request.method, request.path, headers=dict(request.headers), content=request.body or None
    )
    if resp.status_code != 200:
        raise BenchError(
            f"{request.method} {request.path} answered {resp.status_code}: {resp.text[:300]}"
        )
    body: dict[str, Any] = resp.json()
    return body


# --- Timed request by request ------------------------------------------------------------------


def send(client: httpx.Client, request: HttpRequest) -> tuple[float, dict[str, Any]]:
    """One request on the client's keep-alive connection: (seconds, body or {} on failure)."""
    started = time.perf_counter()
    resp = client.request(
        request.method, request.path, headers=dict(request.headers), content=request.body or None
    )
    seconds = time.perf_counter() - started
    body = resp.json() if resp.status_code == 200 else {}
    return seconds, body if body.get("result") == "success" else {}


def sequential(
    settings: Settings,
    console: Console,
    server: Server,
    label: str,
    per_run: int,
    step: Any,
) -> Measurement:
    """`settings.runs` runs of `per_run` calls of `step()` -> (seconds, ok), after one warm-up;
    a run's p50 is its median call, its p99 its slowest."""
    assert server.proc is not None
    step()
    runs, other = [], []
    for i in range(settings.runs):
        wait_for_quiet()
        times, errors = [], 0
        with CpuMeter(server.proc.pid) as meter:
            for _ in range(per_run):
                seconds, ok = step()
                times.append(seconds)
                errors += not ok
        other.append(meter.other_cores)
        p50, worst = statistics.median(times) * 1000, max(times) * 1000
        runs.append(RunResult(len(times), errors, sum(times), p50, worst))
        console.print(
            f"  {label:<24} run {i + 1}/{settings.runs}: median {p50:8.1f} ms  max {worst:8.1f} ms"
            + (f" [red]{errors} errors[/red]" if errors else "")
        )
    return Measurement(label, 1, runs, other_cores=other)


def measure_flags(
    settings: Settings,
    console: Console,
    server: Server,
    client: httpx.Client,
    requests: list[HttpRequest],
) -> tuple[Measurement, Measurement]:
    """Marking read (the figure) and unread (putting them back) alternately, each timed."""
    unmark, mark = requests
    unread_times: list[tuple[float, bool]] = []

    def mark_read() -> tuple[float, bool]:
        seconds, body = send(client, unmark)
        unread_times.append((seconds, body.get("updated_count") == FLAG_COUNT))
        seconds, body = send(client, mark)
        return seconds, body.get("updated_count") == FLAG_COUNT

    read_m = sequential(settings, console, server, "flags/narrow: read", FLAG_PAIRS, mark_read)
    timed = unread_times[1:]  # without the warm-up's
    runs = []
    for i in range(settings.runs):
        chunk = timed[i * FLAG_PAIRS : (i + 1) * FLAG_PAIRS]
        times = [seconds for seconds, _ok in chunk]
        errors = sum(not ok for _seconds, ok in chunk)
        median, worst = statistics.median(times) * 1000, max(times) * 1000
        runs.append(RunResult(len(times), errors, sum(times), median, worst))
    return read_m, Measurement("flags/narrow: unread", 1, runs, other_cores=read_m.other_cores)


def measure_moves(
    settings: Settings,
    console: Console,
    server: Server,
    client: httpx.Client,
    reader: Account,
    first: int,
) -> Measurement:
    counter = 0

    def move() -> tuple[float, bool]:
        nonlocal counter
        counter += 1
        body = urlencode(
            {
                "topic": f"{MOVE_TOPIC} {counter}",
                "propagate_mode": "change_all",
                "send_notification_to_new_thread": "false",
            }
        )
        request = HttpRequest("PATCH", f"/api/v1/messages/{first}", form(reader), body)
        seconds, answer = send(client, request)
        return seconds, bool(answer)

    measured = sequential(settings, console, server, "change_all move", MOVES_PER_RUN, move)
    latest = client.get(f"/api/v1/messages/{first}", headers=auth_header(reader)).json()
    if latest.get("message", {}).get("subject") != f"{MOVE_TOPIC} {counter}":
        raise BenchError(f"the moved topic is not where the last move put it: {str(latest)[:300]}")
    return measured


# --- The family ---------------------------------------------------------------------------------


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    console.rule("chat_messaging: flags/narrow 5,000, search over 1M messages, change_all 10,000")
    data = fetch_dataset(console)
    work = copy_dataset(data)
    try:
        started = time.monotonic()
        stream, first = prepare(work, data.reader.email)
        console.print(
            f"working copy ready in {time.monotonic() - started:.0f} s; busiest stream "
            f"of the reader: {stream!r}; moving topic from message {first}"
        )
        flags = flags_requests(data.reader, stream)
        searches = search_requests(data.reader)
        server, served_by = atrium_server(work)
        with running(server), httpx.Client(base_url=server.base_url, timeout=120) as client:
            marked = check(client, flags[0])
            if marked.get("processed_count") != FLAG_COUNT or marked.get("updated_count", 0) == 0:
                raise BenchError(f"flags/narrow did not change {FLAG_COUNT} messages: {marked}")
            check(client, flags[1])
            found = [len(check(client, r)["messages"]) for r in searches]
            if min(found) < 100:
                raise BenchError(f"a search returned fewer than 100 messages: {found}")
            search_m = measure(settings, console, server, "search, newest 100", 1, searches)
            read_m, unread_m = measure_flags(settings, console, server, client, flags)
            move_m = measure_moves(settings, console, server, client, data.reader, first)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    described = (
        f"Data set: {data.describe()}, with its full-text index (SQLite FTS5) built with it. "
        f"Served by {served_by}, on a copy of the data set."
    )
    return [
        ScenarioResult(
            family=FAMILY,
            key="flags",
            title="Mark 5,000 messages read through a narrow",
            description=(
                f"`POST /api/v1/messages/flags/narrow` with `anchor=oldest`, `num_before=0`, "
                f"`num_after={FLAG_COUNT}`, `narrow=[stream {stream}]` (the reader's busiest "
                "stream), `flag=read`, `op=add`; before each, the same request with `op=remove` "
                f"(the second row, no target), so that every request changes {FLAG_COUNT:,} "
                "`user_message` rows and commits them, with its `update_message_flags` event "
                "(removing `read` adds Zulip's `message_details` for the 5,000 messages). Timed "
                f"request by request by an HTTP client (httpx) on one keep-alive connection, "
                f"{FLAG_PAIRS} pairs per run after one warm-up pair, each answer checked for "
                f"`updated_count` {FLAG_COUNT:,}; p50 is a run's median, p99 its slowest. "
                f"{described}"
            ),
            rows=[Row(read_m, (Target("p50_ms", 100),)), Row(unread_m)],
        ),
        ScenarioResult(
            family=FAMILY,
            key="search",
            title="Search 1,000,000 messages, newest 100 matches",
            description=(
                "`GET /api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=[search "
                f"<word>]` as a member of {data.reader_streams} streams, rotating through "
                f"{len(SEARCH_WORDS)} words ({', '.join(SEARCH_WORDS)}); every response holds 100 "
                "messages with their `match_content` / `match_subject` highlights. One "
                f"connection. {described}"
            ),
            rows=[Row(search_m, (Target("p50_ms", 100),))],
        ),
        ScenarioResult(
            family=FAMILY,
            key="move",
            title="Move a 10,000-message topic (change_all)",
            description=(
                f"`PATCH /api/v1/messages/{{id}}` with a new `topic`, `propagate_mode=change_all`, "
                f"`send_notification_to_new_thread=false` on a topic of {MOVE_SIZE:,} messages "
                "(the message rows, their edit history, their search index entries, and the "
                "`update_message` event), each request to a new topic name. Timed request by "
                f"request by an HTTP client (httpx) on one keep-alive connection, "
                f"{MOVES_PER_RUN} moves per run, after one warm-up move; p50 is the median move "
                f"of a run, p99 its slowest. {described}"
            ),
            rows=[Row(move_m, (Target("p50_ms", 2000),))],
        ),
    ]
