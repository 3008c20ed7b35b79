"""Issue 3's three figures, measured in-process on a copy of the 1M-message data set (SQLite).

- `flags/narrow`: marking 5,000 messages of a stream read (then unread, alternating), through
  `update_flags_for_narrow` in one write transaction (target: median <= 100 ms);
- `search`: the newest 100 messages matching a one-word `search` narrow for the reader, message
  objects and highlights included (`fetch_window`; target: median <= 100 ms);
- `change_all`: moving a 10,000-message topic to a new topic name and back (`update_message`;
  target: median <= 2 s).

These call the same functions the HTTP views call, on the server's own database layer, but not
through HTTP: they are not yet a `make bench` family (no load generator, no ceiling ratio).

    .venv/bin/python -m bench.chat_messaging [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from rich.console import Console

from atrium.chat import schema, search
from atrium.chat.actions.message_edit import EditRequest, update_message
from atrium.chat.actions.message_flags import update_flags_for_narrow
from atrium.chat.models import User
from atrium.chat.narrow import Term
from atrium.chat.queries.messages import fetch_window
from atrium.core import migrations
from atrium.core.db import Conn, SQLiteDatabase
from bench.datasets import fetch_dataset

SEARCH_WORDS = ("deploy", "release", "merge", "review", "flaky", "staging", "branch", "green")
MOVE_SIZE = 10_000


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def reader(conn: Conn, email: str) -> User:
    row = conn.one(sa.select(schema.user).where(schema.user.c.email == email))
    assert row is not None
    return User.from_row(row)


def busiest_stream(conn: Conn, user: User) -> str:
    row = conn.one(
        sa.select(schema.stream.c.name, sa.func.count().label("n"))
        .select_from(
            schema.user_message.join(
                schema.message, schema.message.c.id == schema.user_message.c.message_id
            ).join(schema.stream, schema.stream.c.id == schema.message.c.stream_id)
        )
        .where(schema.user_message.c.user_id == user.id)
        .group_by(schema.stream.c.name)
        .order_by(sa.desc("n"))
        .limit(1)
    )
    assert row is not None
    return str(row["name"])


def make_big_topic(conn: Conn, user: User, stream_name: str) -> int:
    """A topic of MOVE_SIZE messages from the reader; the id of its first message."""
    stream = conn.one(sa.select(schema.stream).where(schema.stream.c.name == stream_name))
    assert stream is not None
    now = time.time()
    rows = [
        {
            "realm_id": user.realm_id,
            "sender_id": user.id,
            "recipient_id": stream["recipient_id"],
            "stream_id": stream["id"],
            "topic": "bench move",
            "content": f"message {i} of the moving topic",
            "rendered_content": f"<p>message {i} of the moving topic</p>",
            "date_sent": now,
        }
        for i in range(MOVE_SIZE)
    ]
    first = int(conn.scalar(sa.select(sa.func.max(schema.message.c.id)))) + 1
    conn.executemany(
        sa.insert(schema.message).values(
            realm_id=sa.bindparam("realm_id"),
            sender_id=sa.bindparam("sender_id"),
            recipient_id=sa.bindparam("recipient_id"),
            stream_id=sa.bindparam("stream_id"),
            topic=sa.bindparam("topic"),
            content=sa.bindparam("content"),
            rendered_content=sa.bindparam("rendered_content"),
            date_sent=sa.bindparam("date_sent"),
        ),
        rows,
    )
    ids = list(range(first, first + MOVE_SIZE))
    conn.executemany(
        sa.insert(schema.user_message).values(
            user_id=sa.bindparam("u"), message_id=sa.bindparam("m"), flags=sa.bindparam("f")
        ),
        [{"u": user.id, "m": mid, "f": 1} for mid in ids],
    )
    search.index_messages(conn, ids)
    return first


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args(argv)
    console = Console()
    dataset = fetch_dataset(console)
    workdir = Path(tempfile.mkdtemp(prefix="atrium-bench-messaging-"))
    try:
        db_path = workdir / "chat.sqlite3"
        shutil.copy(dataset.data_dir / "chat.sqlite3", db_path)
        wal = dataset.data_dir / "chat.sqlite3-wal"
        if wal.exists():
            shutil.copy(wal, workdir / "chat.sqlite3-wal")
        started = time.perf_counter()
        migrations.upgrade("chat", None, db_path)
        console.print(
            f"migrations (search index over the messages): {time.perf_counter() - started:.1f} s"
        )
        db = SQLiteDatabase(db_path)
        if db.read_sync(lambda conn: conn.scalar("SELECT count(*) FROM message_search")) == 0:
            # A data set written straight into `message` (not through the actions) has no index.
            started = time.perf_counter()
            indexed = db.write_sync(search.rebuild)
            console.print(
                f"search index built: {indexed:,} messages in {time.perf_counter() - started:.1f} s"
            )
        try:
            run(db, dataset.reader.email, args.runs, console)
        finally:
            db.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run(db: SQLiteDatabase, email: str, runs: int, console: Console) -> None:
    user = db.read_sync(reader, email)
    stream_name = db.read_sync(busiest_stream, user)
    narrow = [Term("stream", stream_name)]

    flag_times = []
    for i in range(runs):
        op = "add" if i % 2 == 0 else "remove"
        result: dict[str, Any] = {}

        def flags_once(op: str = op, result: dict[str, Any] = result) -> None:
            outcome = db.write_sync(
                update_flags_for_narrow, user, narrow, "oldest", True, 0, 5000, op, "read"
            )
            result.update(outcome.value)

        flag_times.append(timed(flags_once))
        assert result["processed_count"] == 5000, result
    console.print(
        f"flags/narrow, 5,000 messages of '{stream_name}': median "
        f"{statistics.median(flag_times) * 1000:.1f} ms (target <= 100 ms)"
    )

    search_times = []
    matched = []
    for i in range(runs):
        word = SEARCH_WORDS[i % len(SEARCH_WORDS)]

        def search_once(word: str = word) -> None:
            window = db.read_sync(
                lambda conn: fetch_window(
                    conn,
                    user,
                    [Term("search", word)],
                    "newest",
                    100,
                    0,
                    True,
                    apply_markdown=True,
                    client_gravatar=True,
                )
            )
            matched.append(len(window.messages))

        search_times.append(timed(search_once))
    console.print(
        f"search narrow over the whole organization, newest 100 of one word: median "
        f"{statistics.median(search_times) * 1000:.1f} ms (target <= 100 ms; "
        f"messages returned per query: {sorted(set(matched))})"
    )

    first = db.write_sync(make_big_topic, user, stream_name)
    move_times = []
    topics = ("bench moved", "bench move")
    for i in range(max(3, runs // 2)):
        request = EditRequest(
            topic=topics[i % 2],
            propagate_mode="change_all",
            send_notification_to_new_thread=False,
        )

        def move_once(request: EditRequest = request) -> None:
            moved = db.write_sync(update_message, user, first, request)
            assert moved.value >= MOVE_SIZE, moved.value

        move_times.append(timed(move_once))
    console.print(
        f"change_all topic move of {MOVE_SIZE:,} messages: median "
        f"{statistics.median(move_times):.2f} s (target <= 2 s)"
    )


if __name__ == "__main__":
    main()
