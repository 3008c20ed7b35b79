"""Issue 5's two figures, measured in-process (httpx over ASGI, SQLite, one core).

GET /users with 10,000 users; GET /users/me/subscriptions?include_subscribers=true with
1,000 streams x 200 subscribers. The data set is written with bulk inserts. Run:
`.venv/bin/python -m bench.chat_admin_measure`. Not yet a `make bench` scenario.
"""

from __future__ import annotations

import asyncio
import base64
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.users import NewUser, create_user
from atrium.server import create_app
from atrium.settings import RateLimits, Settings


def populate(conn, users: int, streams: int, subscribers: int) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    realm_id = create_realm(conn, "Bench", "bench")
    me = create_user(conn, realm_id, NewUser(email="me@bench.test", full_name="Me Me", role=100))
    now = time.time()
    conn.executemany(
        sa.insert(schema.user),
        [
            {
                "realm_id": realm_id,
                "email": f"u{i}@bench.test",
                "delivery_email": f"u{i}@bench.test",
                "full_name": f"User {i}",
                "api_key": f"{i:032d}",
                "role": 400,
                "date_joined": now,
            }
            for i in range(users - 1)
        ],
    )
    user_ids = [me, *conn.scalars(sa.select(schema.user.c.id).where(schema.user.c.id != me))]
    group = conn.scalar(
        sa.select(schema.user_group.c.id).where(schema.user_group.c.name == "@role:administrators")
    )
    conn.executemany(
        sa.insert(schema.stream),
        [
            {
                "realm_id": realm_id,
                "name": f"stream {s}",
                "date_created": now,
                "can_remove_subscribers_group_id": group,
            }
            for s in range(streams)
        ],
    )
    stream_ids = conn.scalars(sa.select(schema.stream.c.id))
    rows = []
    for index, sid in enumerate(stream_ids):
        members = {me} | {user_ids[(index * 7 + k) % len(user_ids)] for k in range(subscribers - 1)}
        rows.extend({"user_id": uid, "stream_id": sid} for uid in members)
    conn.executemany(sa.insert(schema.subscription), rows)
    key = conn.scalar(sa.select(schema.user.c.api_key).where(schema.user.c.id == me))
    return "me@bench.test", key


async def measure(path: str, params: dict[str, str], runs: int = 15) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), rate_limits=RateLimits(enabled=False))
        app = create_app(settings, services=("chat",))
        runtime = app.state.services["chat"].state["runtime"]
        async with app.router.lifespan_context(app):
            email, key = await runtime.db.write(populate, 10_000, 1_000, 200)
            token = base64.b64encode(f"{email}:{key}".encode()).decode()
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                times = []
                for _ in range(runs):
                    started = time.perf_counter()
                    resp = await client.get(
                        "/api/v1" + path, params=params, headers={"Authorization": f"Basic {token}"}
                    )
                    times.append((time.perf_counter() - started) * 1000)
                    assert resp.status_code == 200, resp.text[:200]
                return statistics.median(times)


async def main() -> None:
    users_ms = await measure("/users", {})
    subs_ms = await measure("/users/me/subscriptions", {"include_subscribers": "true"})
    print(f"GET /users (10,000 users): median {users_ms:.1f} ms (target <= 150)")
    print(
        f"GET /users/me/subscriptions?include_subscribers=true (1,000 x 200): median {subs_ms:.1f} ms (target <= 300)"
    )


if __name__ == "__main__":
    asyncio.run(main())
