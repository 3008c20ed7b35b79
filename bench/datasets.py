"""Benchmark data sets: built through Atrium's own actions where rows are few, in bulk where many.

- `build_send_org`: a fresh small organization for the send scenario: 60 users, one stream with 50
  subscribers (8 of them take turns sending).
- `fetch_dataset`: a 1,000,000-message organization for the fetch scenario, cached under
  `bench/.data/` by `fetch_cache_key()` (the data set version and the chat migration history).
  The realm, 1,000 users, 200 streams and their subscriptions are made by the chat actions
  (`create_realm`, `create_user`, `subscribe`); the messages and their per-recipient
  `user_message` rows are written with `sqlite3.executemany` in large transactions, with the
  secondary indexes dropped during the load and re-created from their own DDL afterwards. Message
  bodies come from a pool of 2,000 generated texts rendered by Atrium's renderer.

Shape of the big data set (deterministic, seeded):

- streams have Zipf-like popularity (weight 1/rank^0.7); topics inside a stream too (1/rank^1.05),
  20–150 topics per stream, so a few topics hold thousands of messages and most hold a handful;
  messages of a topic are interleaved with the rest of the stream over a year of timestamps;
- subscribers are kept modest so the data set stays reasonable: 3–9 per stream for the bulk of
  streams, 100 for 5 announcement streams (which carry 1% of the messages); the benchmark reader
  is subscribed to the announcement streams and to every fifth other stream by popularity (44 in all);
- every message but the newest 1% is read by its recipients;
- the full-text search index is built over every message (`atrium.chat.search.rebuild`), since
  the bulk load bypasses the actions that index messages as they are sent.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import shutil
import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from bench.harness import DATA_DIR

DATASET_VERSION = "chat-1m-v3"
SEED = 20240601

WORDS = [
    "the",
    "deploy",
    "build",
    "release",
    "branch",
    "merge",
    "review",
    "test",
    "flaky",
    "green",
    "red",
    "staging",
    "production",
    "database",
    "index",
    "query",
    "latency",
    "cache",
    "queue",
    "worker",
    "retry",
    "timeout",
    "config",
    "flag",
    "rollout",
    "users",
    "customer",
    "ticket",
    "bug",
    "fix",
    "patch",
    "regression",
    "crash",
    "log",
    "metrics",
    "dashboard",
    "alert",
    "pager",
    "oncall",
    "schedule",
    "meeting",
    "notes",
    "agenda",
    "sprint",
    "backlog",
    "estimate",
    "design",
    "mockup",
    "feedback",
    "copy",
    "docs",
    "api",
    "endpoint",
    "client",
    "server",
    "mobile",
    "android",
    "ios",
    "browser",
    "search",
    "filter",
    "sort",
    "export",
    "import",
    "billing",
    "invoice",
    "plan",
    "upgrade",
    "trial",
    "onboarding",
    "signup",
    "login",
    "password",
    "token",
    "session",
    "cookie",
    "we",
    "I",
    "you",
    "they",
    "should",
    "could",
    "would",
    "maybe",
    "probably",
    "definitely",
    "think",
    "know",
    "see",
    "check",
    "looks",
    "works",
    "broke",
    "again",
    "today",
    "tomorrow",
    "yesterday",
    "week",
    "morning",
    "after",
    "before",
    "during",
    "while",
    "until",
    "great",
    "thanks",
    "sure",
    "okay",
    "agreed",
    "nope",
    "yes",
    "no",
    "also",
    "still",
    "just",
    "really",
    "quite",
    "pretty",
    "very",
]
TEAMS = [
    "backend",
    "frontend",
    "mobile",
    "infra",
    "data",
    "design",
    "support",
    "sales",
    "marketing",
    "security",
    "qa",
    "release",
    "docs",
    "research",
    "ops",
    "platform",
    "billing",
    "growth",
    "people",
    "finance",
]
SUFFIXES = (
    "",
    "-dev",
    "-alerts",
    "-team",
    "-help",
    "-design",
    "-review",
    "-social",
    "-standup",
    "-ops",
)
SUBJECTS = (
    "deploy",
    "release planning",
    "login bug",
    "onboarding flow",
    "api rate limits",
    "database migration",
    "weekly sync",
    "ci flakiness",
    "dark mode",
    "search latency",
    "billing export",
    "oncall handoff",
    "incident review",
    "roadmap",
    "hiring",
    "offsite",
    "customer escalation",
    "performance budget",
    "dependency upgrades",
    "accessibility audit",
    "error budget",
    "feature flags",
    "data retention",
    "pricing page",
    "docs refresh",
    "mobile crash",
    "memory leak",
    "cache invalidation",
    "backups",
    "security review",
)
QUALIFIERS = ("", " follow-up", " part 2", " Q3", " retro", " questions", " status", " ideas")

N_USERS = 1000
N_MESSAGES = 1_000_000
N_ANNOUNCE = 5
READER_EMAIL = "reader@bench.example"
SEND_STREAM = "bench-send"


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(5, 16))
    roll = rng.random()
    if roll < 0.15:
        i = rng.randrange(len(words))
        words[i] = f"**{words[i]}**"
    elif roll < 0.25:
        i = rng.randrange(len(words))
        words[i] = f"`{words[i]}_{rng.randint(1, 99)}`"
    elif roll < 0.30:
        words.append(f"https://tracker.example.com/issue/{rng.randint(100, 9999)}")
    return " ".join(words).capitalize() + rng.choice((".", ".", ".", "?", "!"))


def message_text(rng: random.Random) -> str:
    sentences = [_sentence(rng) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.2 and len(sentences) > 1:
        return " ".join(sentences[:1]) + "\n\n" + " ".join(sentences[1:])
    return " ".join(sentences)


# --- The send organization ---------------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    email: str
    api_key: str


@dataclass(frozen=True)
class SendOrg:
    stream: str
    subscribers: int
    senders: list[Account]
    contents: list[str]


def build_send_org(data_dir: Path, subscribers: int = 50, senders: int = 8) -> SendOrg:
    """A fresh chat database in `data_dir` with one stream of `subscribers` subscribers."""
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

    def write(conn: Conn) -> list[Account]:
        realm_id = create_realm(conn, "Bench Send", "bench-send")
        ids = [
            create_user(
                conn, realm_id, NewUser("owner@bench.example", "Bench Owner", None, ROLE_OWNER)
            )
        ]
        for i in range(1, subscribers + 10):
            new = NewUser(f"user{i}@bench.example", f"Bench User {i}", None, ROLE_MEMBER)
            ids.append(create_user(conn, realm_id, new))
        owner = User.from_row(conn.one(sa.select(schema.user).where(schema.user.c.id == ids[0])))
        subscribe(conn, owner, [{"name": SEND_STREAM}], ids[:subscribers], StreamOptions(), True)
        rows = conn.all(
            sa.select(schema.user.c.email, schema.user.c.api_key)
            .where(schema.user.c.id.in_(ids[1 : senders + 1]))
            .order_by(schema.user.c.id)
        )
        return [Account(r["email"], r["api_key"]) for r in rows]

    try:
        accounts = db.write_sync(write)
    finally:
        db.close()
    rng = random.Random(SEED)
    contents = [message_text(rng) for _ in range(64)]
    for i in range(0, len(contents), 8):  # one message in eight mentions someone
        contents[i] = f"@**Bench User {rng.randint(1, subscribers - 1)}** {contents[i]}"
    return SendOrg(SEND_STREAM, subscribers, accounts, contents)


# --- The million-message organization ----------------------------------------------------------


@dataclass(frozen=True)
class Narrow:
    stream: str
    topic: str
    messages: int


@dataclass(frozen=True)
class FetchDataset:
    data_dir: Path
    reader: Account
    narrows: list[Narrow]
    messages: int
    user_messages: int
    users: int
    streams: int
    topics: int
    reader_streams: int
    build_seconds: float
    size_bytes: int

    def describe(self) -> str:
        return (
            f"{self.messages:,} messages, {self.user_messages:,} `user_message` rows, "
            f"{self.users:,} users, {self.streams} streams, {self.topics:,} topics; "
            f"{self.size_bytes / 1e6:,.0f} MB on disk (built in {self.build_seconds:.0f} s)"
        )


def fetch_cache_key() -> str:
    """The data set version plus the chat migration history: a new migration means a rebuild."""
    from atrium.core.migrations import MIGRATIONS_ROOT

    versions = sorted(p.name for p in (MIGRATIONS_ROOT / "chat" / "versions").glob("*.py"))
    digest = hashlib.sha1("\n".join([DATASET_VERSION, *versions]).encode()).hexdigest()[:10]
    return f"{DATASET_VERSION}-{digest}"


def fetch_dataset(console: Console) -> FetchDataset:
    """The cached 1M-message data set, built first if missing."""
    root = DATA_DIR / fetch_cache_key()
    meta_path = root / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        console.print(f"Reusing the cached data set {root.relative_to(DATA_DIR.parent.parent)}")
        return _from_meta(root, meta)
    building = root.with_name(root.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    (building / "data").mkdir(parents=True)
    started = time.monotonic()
    meta = _build(building / "data" / "chat.sqlite3", console)
    meta["build_seconds"] = time.monotonic() - started
    meta["size_bytes"] = (building / "data" / "chat.sqlite3").stat().st_size
    (building / "meta.json").write_text(json.dumps(meta, indent=1))
    shutil.rmtree(root, ignore_errors=True)
    building.rename(root)
    return _from_meta(root, meta)


def _from_meta(root: Path, meta: dict[str, Any]) -> FetchDataset:
    return FetchDataset(
        data_dir=root / "data",
        reader=Account(**meta["reader"]),
        narrows=[Narrow(**n) for n in meta["narrows"]],
        messages=meta["messages"],
        user_messages=meta["user_messages"],
        users=meta["users"],
        streams=meta["streams"],
        topics=meta["topics"],
        reader_streams=meta["reader_streams"],
        build_seconds=meta["build_seconds"],
        size_bytes=meta["size_bytes"],
    )


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
    )


@dataclass
class _Org:
    realm_id: int
    reader_id: int
    reader_key: str
    stream_names: list[str]
    stream_ids: list[int]
    recipient_ids: list[int]
    subscribers: list[list[int]]
    reader_streams: list[int]  # stream ranks
    contents: list[tuple[str, str]]  # (markdown, html)


def _make_org(path: Path, progress: Progress) -> _Org:
    """Realm, users, streams and subscriptions through the chat actions, in one transaction."""
    import sqlalchemy as sa

    from atrium.chat import schema
    from atrium.chat.actions.realm import create_realm
    from atrium.chat.actions.streams import StreamOptions, subscribe
    from atrium.chat.actions.users import NewUser, create_user
    from atrium.chat.models import ROLE_MEMBER, ROLE_OWNER, User
    from atrium.chat.rendering import render_message
    from atrium.core import migrations
    from atrium.core.db import Conn, SQLiteDatabase

    rng = random.Random(SEED)
    stream_names = [f"{team}{suffix}" for suffix in SUFFIXES for team in TEAMS]
    stream_names = [*(f"announce-{t}" for t in TEAMS[:N_ANNOUNCE]), *stream_names][:200]
    task = progress.add_task("users, streams, subscriptions", total=N_USERS + len(stream_names))
    migrations.upgrade("chat", None, path)
    db = SQLiteDatabase(path)

    def write(conn: Conn) -> _Org:
        realm_id = create_realm(conn, "Bench Corp", "bench")
        user_ids = [
            create_user(
                conn, realm_id, NewUser("owner@bench.example", "Bench Owner", None, ROLE_OWNER)
            ),
            create_user(conn, realm_id, NewUser(READER_EMAIL, "Bench Reader", None, ROLE_MEMBER)),
        ]
        for i in range(len(user_ids), N_USERS):
            new = NewUser(f"user{i}@bench.example", f"User {i}", None, ROLE_MEMBER)
            user_ids.append(create_user(conn, realm_id, new))
            progress.advance(task)
        progress.advance(task, 2)
        owner = User.from_row(
            conn.one(sa.select(schema.user).where(schema.user.c.id == user_ids[0]))
        )
        reader_id = user_ids[1]
        members = user_ids[2:]
        # Ranks are by popularity: announcement streams first (their weight is scaled down).
        reader_ranks = set(range(N_ANNOUNCE)) | set(range(N_ANNOUNCE, len(stream_names), 5))
        subscribers: list[list[int]] = []
        stream_ids: list[int] = []
        recipient_ids: list[int] = []
        for rank, name in enumerate(stream_names):
            if rank < N_ANNOUNCE:
                subs = rng.sample(members, 100)
            else:
                subs = rng.sample(members, rng.randint(3, 9))
            if rank in reader_ranks:
                subs.append(reader_id)
            subscribe(conn, owner, [{"name": name}], subs, StreamOptions(), True)
            row = conn.one(
                sa.select(schema.stream.c.id, schema.stream.c.recipient_id).where(
                    schema.stream.c.realm_id == realm_id, schema.stream.c.name == name
                )
            )
            assert row is not None
            stream_ids.append(row["id"])
            recipient_ids.append(row["recipient_id"])
            subscribers.append(subs)
            progress.advance(task)
        reader_key = conn.scalar(
            sa.select(schema.user.c.api_key).where(schema.user.c.id == reader_id)
        )
        contents = []
        for _ in range(2000):
            text = message_text(rng)
            contents.append((text, render_message(conn, owner, text).html))
        return _Org(
            realm_id,
            reader_id,
            reader_key,
            stream_names,
            stream_ids,
            recipient_ids,
            subscribers,
            sorted(reader_ranks),
            contents,
        )

    try:
        return db.write_sync(write)
    finally:
        db.close()


def _cumulative(weights: list[float]) -> list[float]:
    return list(itertools.accumulate(weights))


def _plan_messages(org: _Org, rng: random.Random) -> tuple[list[int], list[int], list[list[str]]]:
    """For each message its stream rank and topic index; and each stream's topic names."""
    weights = [1 / (rank + 1) ** 0.7 for rank in range(len(org.stream_names))]
    total_regular = sum(weights[N_ANNOUNCE:])
    for rank in range(N_ANNOUNCE):  # announcement streams: 1% of the traffic between them
        weights[rank] = total_regular * 0.01 / 0.99 / N_ANNOUNCE
    streams = rng.choices(range(len(weights)), cum_weights=_cumulative(weights), k=N_MESSAGES)
    names = [s + q for q in QUALIFIERS for s in SUBJECTS]
    topic_names = [rng.sample(names, rng.randint(20, 150)) for _ in org.stream_names]
    by_stream: list[list[int]] = [[] for _ in org.stream_names]
    for i, s in enumerate(streams):
        by_stream[s].append(i)
    topics = [0] * N_MESSAGES
    for s, positions in enumerate(by_stream):
        n = len(topic_names[s])
        cum = _cumulative([1 / (r + 1) ** 1.05 for r in range(n)])
        for pos, t in zip(
            positions, rng.choices(range(n), cum_weights=cum, k=len(positions)), strict=True
        ):
            topics[pos] = t
    return streams, topics, topic_names


def _index_for_search(path: Path) -> None:
    """The messages were written straight into `message`: build their full-text index."""
    from atrium.chat import search
    from atrium.core.db import SQLiteDatabase

    db = SQLiteDatabase(path)
    try:
        db.write_sync(search.rebuild)
    finally:
        db.close()


def _build(path: Path, console: Console) -> dict[str, Any]:
    from atrium.chat import flags

    rng = random.Random(SEED + 1)
    with _progress(console) as progress:
        org = _make_org(path, progress)
        plan_task = progress.add_task("planning 1M messages", total=1)
        streams, topics, topic_names = _plan_messages(org, rng)
        progress.advance(plan_task)

        raw = sqlite3.connect(str(path), isolation_level=None)
        raw.execute("PRAGMA journal_mode=OFF")
        raw.execute("PRAGMA synchronous=OFF")
        raw.execute("PRAGMA cache_size=-1000000")
        indexes = raw.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
            "AND tbl_name IN ('message', 'user_message')"
        ).fetchall()
        for name, _sql in indexes:
            raw.execute(f'DROP INDEX "{name}"')

        msg_task = progress.add_task("messages + user_message", total=N_MESSAGES)
        start_time = time.time() - 365 * 86400
        step = 365 * 86400 / N_MESSAGES
        unread_from = int(N_MESSAGES * 0.99)
        senders = [rng.choices(subs, k=64) for subs in org.subscribers]
        n_contents = len(org.contents)
        user_messages = 0
        chunk = 50_000
        insert_message = (
            "INSERT INTO message (id, realm_id, sender_id, recipient_id, stream_id, topic, "
            "content, rendered_content, rendered_content_version, date_sent, sending_client, "
            "is_me_message, has_attachment, has_image, has_link) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, 0, 0, 0, ?)"
        )
        insert_um = "INSERT INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)"
        for begin in range(0, N_MESSAGES, chunk):
            messages = []
            ums: list[tuple[int, int, int]] = []
            for i in range(begin, min(begin + chunk, N_MESSAGES)):
                s = streams[i]
                mid = i + 1
                sender = senders[s][i & 63]
                text, html = org.contents[(i * 7919) % n_contents]
                messages.append(
                    (
                        mid,
                        org.realm_id,
                        sender,
                        org.recipient_ids[s],
                        org.stream_ids[s],
                        topic_names[s][topics[i]],
                        text,
                        html,
                        start_time + i * step,
                        "website" if i % 3 else "ZulipMobile",
                        "<a " in html,
                    )
                )
                unread = i >= unread_from
                for uid in org.subscribers[s]:
                    ums.append((uid, mid, flags.READ if (not unread or uid == sender) else 0))
            raw.execute("BEGIN")
            raw.executemany(insert_message, messages)
            raw.executemany(insert_um, ums)
            raw.execute("COMMIT")
            user_messages += len(ums)
            progress.advance(msg_task, len(messages))

        idx_task = progress.add_task("indexes", total=len(indexes) + 1)
        for _name, sql in indexes:
            raw.execute(sql)
            progress.advance(idx_task)
        raw.execute(
            "UPDATE stream SET first_message_id = "
            "(SELECT min(id) FROM message WHERE message.stream_id = stream.id)"
        )
        raw.execute("PRAGMA journal_mode=WAL")
        progress.advance(idx_task)
        raw.close()
        search_task = progress.add_task("search index", total=1)
        _index_for_search(path)
        progress.advance(search_task)

    counts: dict[tuple[int, int], int] = {}
    for s, t in zip(streams, topics, strict=True):
        counts[(s, t)] = counts.get((s, t), 0) + 1
    reader_ranks = set(org.reader_streams)
    candidates = sorted(
        ((n, s, t) for (s, t), n in counts.items() if s in reader_ranks and n >= 100), reverse=True
    )
    # 64 narrows spread from the busiest topics to ones with just over 100 messages.
    picked = candidates[:: max(1, len(candidates) // 64)][:64]
    narrows = [asdict(Narrow(org.stream_names[s], topic_names[s][t], n)) for n, s, t in picked]
    return {
        "version": DATASET_VERSION,
        "reader": asdict(Account(READER_EMAIL, org.reader_key)),
        "narrows": narrows,
        "messages": N_MESSAGES,
        "user_messages": user_messages,
        "users": N_USERS,
        "streams": len(org.stream_names),
        "topics": len(counts),
        "reader_streams": len(reader_ranks),
    }
