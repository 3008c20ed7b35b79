"""Issue 5's two figures over HTTP: listing 10,000 users and 1,000 subscriptions with subscribers.

- `users`: `GET /api/v1/users` in an organization of 10,000 users (target: median <= 150 ms);
- `subscriptions`: `GET /api/v1/users/me/subscriptions?include_subscribers=true` for a user
  subscribed to 1,000 streams of 200 subscribers each (target: median <= 300 ms).

Both are measured on one connection against a real `atrium serve` (the latency of one large
response is the figure; many connections would only queue behind each other on one core).

The data set is written with direct SQL (`sqlite3.executemany` in one transaction) after the
realm and the benchmark reader are made by the chat actions, and cached under `bench/.data/`
keyed by its version and the chat migration history. Every user has its personal recipient and
system-group memberships, as `create_user` would give them; every stream its recipient; the
reader is one of the 200 subscribers of every stream, the other 199 are drawn (seeded) from the
10,000 users. A mix of roles, time zones and a few bots make the user records realistic.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from bench.chat import atrium_server, auth_header
from bench.datasets import Account
from bench.harness import (
    DATA_DIR,
    BenchError,
    HttpRequest,
    Row,
    ScenarioResult,
    Settings,
    Target,
    measure,
    running,
)

FAMILY = "chat_admin"
CONNECTIONS = (1,)

DATASET_VERSION = "chat-admin-v1"
SEED = 20240605
N_USERS = 10_000
N_STREAMS = 1_000
N_SUBSCRIBERS = 200
N_BOTS = 50
READER_EMAIL = "reader@admin-bench.example"
TIMEZONES = ("", "Europe/Paris", "America/New_York", "Asia/Kolkata", "UTC", "Australia/Sydney")
COLORS = ("#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd")


@dataclass(frozen=True)
class AdminDataset:
    data_dir: Path
    reader: Account
    users: int
    streams: int
    subscriptions: int
    build_seconds: float
    size_bytes: int


def cache_key() -> str:
    from atrium.core.migrations import MIGRATIONS_ROOT

    versions = sorted(p.name for p in (MIGRATIONS_ROOT / "chat" / "versions").glob("*.py"))
    digest = hashlib.sha1("\n".join([DATASET_VERSION, *versions]).encode()).hexdigest()[:10]
    return f"{DATASET_VERSION}-{digest}"


def dataset(console: Console) -> AdminDataset:
    """The cached data set, built first if missing."""
    root = DATA_DIR / cache_key()
    meta_path = root / "meta.json"
    if not meta_path.exists():
        building = root.with_name(root.name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        (building / "data").mkdir(parents=True)
        started = time.monotonic()
        console.print(f"Building the chat administration data set in {building.name} …")
        db_path = building / "data" / "chat.sqlite3"
        meta = build(db_path)
        meta["build_seconds"] = time.monotonic() - started
        meta["size_bytes"] = db_path.stat().st_size
        (building / "meta.json").write_text(json.dumps(meta, indent=1))
        shutil.rmtree(root, ignore_errors=True)
        building.rename(root)
    else:
        console.print(f"Reusing the cached data set bench/.data/{root.name}")
    meta = json.loads(meta_path.read_text())
    return AdminDataset(
        data_dir=root / "data",
        reader=Account(**meta["reader"]),
        users=meta["users"],
        streams=meta["streams"],
        subscriptions=meta["subscriptions"],
        build_seconds=meta["build_seconds"],
        size_bytes=meta["size_bytes"],
    )


def _make_realm(path: Path) -> tuple[int, int, str]:
    """The realm and the reader through the chat actions: (realm id, reader id, api key)."""
    import sqlalchemy as sa

    from atrium.chat import schema
    from atrium.chat.actions.realm import create_realm
    from atrium.chat.actions.users import NewUser, create_user
    from atrium.chat.models import ROLE_MEMBER
    from atrium.core import migrations
    from atrium.core.db import Conn, SQLiteDatabase

    migrations.upgrade("chat", None, path)
    db = SQLiteDatabase(path)

    def write(conn: Conn) -> tuple[int, int, str]:
        realm_id = create_realm(conn, "Admin Bench", "admin-bench")
        reader = create_user(
            conn, realm_id, NewUser(READER_EMAIL, "Bench Reader", None, ROLE_MEMBER)
        )
        key = conn.scalar(sa.select(schema.user.c.api_key).where(schema.user.c.id == reader))
        return realm_id, reader, str(key)

    try:
        return db.write_sync(write)
    finally:
        db.close()


def _role(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.003:
        return 100  # owner
    if roll < 0.02:
        return 200  # administrator
    if roll < 0.04:
        return 300  # moderator
    if roll < 0.10:
        return 600  # guest
    return 400


def build(path: Path) -> dict[str, Any]:
    from atrium.chat.models import SYSTEM_GROUPS

    realm_id, reader_id, reader_key = _make_realm(path)
    rng = random.Random(SEED)
    now = time.time()
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN")
        (next_user,) = db.execute("SELECT max(id) + 1 FROM user_profile").fetchone()
        (next_recipient,) = db.execute("SELECT max(id) + 1 FROM recipient").fetchone()
        groups = dict(db.execute("SELECT name, id FROM user_group WHERE realm_id = ?", (realm_id,)))
        users, recipients, members = [], [], []
        user_ids = [reader_id]
        humans = N_USERS - 1 - N_BOTS
        for i in range(N_USERS - 1):
            uid, rid = next_user + i, next_recipient + i
            is_bot = i >= humans
            role = 400 if is_bot else _role(rng)
            email = f"bot{i}-bot@admin-bench.example" if is_bot else f"user{i}@admin-bench.example"
            users.append(
                (
                    uid,
                    realm_id,
                    email,
                    email,
                    f"Bot {i}" if is_bot else f"User {i} {rng.choice(('Smith', 'Ng', 'Garcia'))}",
                    hashlib.md5(email.encode(), usedforsecurity=False).hexdigest(),
                    role,
                    is_bot,
                    1 if is_bot else None,
                    reader_id if is_bot else None,
                    rng.choice(TIMEZONES),
                    "U" if rng.random() < 0.2 else "G",
                    now - rng.random() * 3e7,
                    rid,
                )
            )
            recipients.append((rid, 1, uid))
            members.extend(
                (groups[name], uid) for name, _d, roles, _s in SYSTEM_GROUPS if role in roles
            )
            user_ids.append(uid)
        db.executemany("INSERT INTO recipient (id, type, type_id) VALUES (?, ?, ?)", recipients)
        db.executemany(
            "INSERT INTO user_profile (id, realm_id, email, delivery_email, full_name, api_key, "
            "role, is_bot, bot_type, bot_owner_id, timezone, avatar_source, date_joined, "
            "recipient_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            users,
        )
        db.executemany(
            "INSERT INTO user_group_member (user_group_id, user_id) VALUES (?, ?)", members
        )
        (next_stream,) = db.execute("SELECT coalesce(max(id), 0) + 1 FROM stream").fetchone()
        next_recipient += N_USERS
        admins = groups["@role:administrators"]
        streams, stream_recipients, subscriptions = [], [], []
        others = user_ids[1:]
        for s in range(N_STREAMS):
            sid, rid = next_stream + s, next_recipient + s
            description = f"Stream number {s} for **team {s % 40}**"
            streams.append(
                (
                    sid,
                    realm_id,
                    f"stream-{s:04d}",
                    description,
                    f"<p>Stream number {s} for <strong>team {s % 40}</strong></p>",
                    now - rng.random() * 3e7,
                    rng.random() < 0.1,
                    admins,
                    rid,
                )
            )
            stream_recipients.append((rid, 2, sid))
            chosen = [reader_id, *rng.sample(others, N_SUBSCRIBERS - 1)]
            subscriptions.extend(
                (uid, sid, COLORS[(sid + uid) % len(COLORS)], rng.random() < 0.05) for uid in chosen
            )
        db.executemany(
            "INSERT INTO recipient (id, type, type_id) VALUES (?, ?, ?)", stream_recipients
        )
        db.executemany(
            "INSERT INTO stream (id, realm_id, name, description, rendered_description, "
            "date_created, invite_only, can_remove_subscribers_group_id, recipient_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            streams,
        )
        db.executemany(
            "INSERT INTO subscription (user_id, stream_id, color, is_muted) VALUES (?, ?, ?, ?)",
            subscriptions,
        )
        db.execute("COMMIT")
        db.execute("ANALYZE")
    finally:
        db.close()
    return {
        "reader": {"email": READER_EMAIL, "api_key": reader_key},
        "users": N_USERS,
        "streams": N_STREAMS,
        "subscriptions": len(subscriptions),
    }


def _check(server_url: str, request: HttpRequest, key: str, expected: int) -> int:
    resp = httpx.get(server_url + request.path, headers=dict(request.headers), timeout=60)
    if resp.status_code != 200:
        raise BenchError(f"{request.path} answered {resp.status_code}: {resp.text[:300]}")
    count = len(resp.json()[key])
    if count != expected:
        raise BenchError(f"{request.path} returned {count} {key}, not {expected}")
    return len(resp.content)


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    console.rule("chat_admin: GET /users (10,000 users), GET /users/me/subscriptions (1,000 x 200)")
    data = dataset(console)
    headers = auth_header(data.reader)
    users = HttpRequest("GET", "/api/v1/users", headers)
    subs = HttpRequest("GET", "/api/v1/users/me/subscriptions?include_subscribers=true", headers)
    server, served_by = atrium_server(data.data_dir)
    with running(server):
        users_bytes = _check(server.base_url, users, "members", data.users)
        subs_bytes = _check(server.base_url, subs, "subscriptions", data.streams)
        users_m = measure(settings, console, server, "GET /users, 1 connection", 1, [users])
        subs_m = measure(settings, console, server, "GET subscriptions, 1 connection", 1, [subs])
    built = (
        f"{data.users:,} users, {data.streams:,} streams, {data.subscriptions:,} subscriptions; "
        f"{data.size_bytes / 1e6:,.0f} MB on disk (built with direct SQL in "
        f"{data.build_seconds:.0f} s, cached under `bench/.data/`)"
    )
    return [
        ScenarioResult(
            family=FAMILY,
            key="users",
            title="List 10,000 users",
            description=(
                f"`GET /api/v1/users` (defaults: `client_gravatar=true`, no custom profile "
                f"fields) as a member, one connection; each response holds {data.users:,} user "
                f"records, {users_bytes / 1e6:.1f} MB of JSON. Data set: {built}. Served by "
                f"{served_by}."
            ),
            rows=[Row(users_m, (Target("p50_ms", 150),))],
        ),
        ScenarioResult(
            family=FAMILY,
            key="subscriptions",
            title="List 1,000 subscriptions with 200 subscribers each",
            description=(
                "`GET /api/v1/users/me/subscriptions?include_subscribers=true` as a member "
                f"subscribed to all {data.streams:,} streams of {N_SUBSCRIBERS} subscribers, one "
                f"connection; each response holds {data.streams:,} subscription records and "
                f"{data.streams * N_SUBSCRIBERS:,} subscriber ids, {subs_bytes / 1e6:.1f} MB of "
                f"JSON. Data set: {built}. Served by {served_by}."
            ),
            rows=[Row(subs_m, (Target("p50_ms", 300),))],
        ),
    ]
