"""The shared browser-session store: sign-in, lookup, expiry, sign-out, restarts, services."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from atrium.core import migrations
from atrium.core.db import Database, open_database
from atrium.core.sessions import SessionStore, token_hash
from atrium.core.sessions_schema import browser_session

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    return "core"


@pytest.fixture
def core_db(data_dir: Path, database_url: str | None) -> Iterator[Database]:
    path = data_dir / "core.sqlite3"
    migrations.upgrade("core", database_url, path)
    db = open_database(database_url, path, "core")
    yield db
    db.close()


async def test_sign_in_then_lookup(core_db: Database) -> None:
    store = SessionStore(core_db)
    token, session = await store.sign_in("chat", 7, user_agent="test")
    assert len(token) >= 40 and session.user_id("chat") == 7
    found = await store.get(token)
    assert found is not None
    assert found.id == session.id and found.csrf_token == session.csrf_token
    assert found.user_id("chat") == 7 and found.user_id("wiki") is None
    assert found.expires_at > time.time() + 13 * 24 * 3600


async def test_only_the_token_hash_is_stored(core_db: Database) -> None:
    store = SessionStore(core_db)
    token, _ = await store.sign_in("chat", 1)
    stored = await core_db.read(lambda conn: conn.scalars(sa.select(browser_session.c.token_hash)))
    assert stored == [token_hash(token)] and token not in stored


async def test_unknown_malformed_and_missing_tokens(core_db: Database) -> None:
    store = SessionStore(core_db)
    await store.sign_in("chat", 1)
    assert await store.get("not-a-session") is None
    assert await store.get("") is None
    assert await store.get(None) is None
    assert await store.get("x" * 500) is None


async def test_expired_sessions_are_ignored_and_purged(core_db: Database) -> None:
    store = SessionStore(core_db, lifetime_seconds=-1)
    token, _ = await store.sign_in("chat", 1)
    assert await store.get(token) is None
    live_token, _ = await SessionStore(core_db).sign_in("chat", 2)
    assert await store.purge_expired() == 1
    assert await store.get(live_token) is not None


async def test_sign_in_rotates_the_token_and_drops_another_persons_sign_ins(
    core_db: Database,
) -> None:
    store = SessionStore(core_db)
    wiki_token, _ = await store.sign_in("wiki", 3)
    chat_token, session = await store.sign_in("chat", 9, previous_token=wiki_token)
    assert chat_token != wiki_token
    assert await store.get(wiki_token) is None  # no session fixation
    # Nothing says wiki user 3 is chat user 9: a planted session must not carry over.
    assert dict(session.logins) == {"chat": 9}


async def test_sign_out_ends_the_session_everywhere(core_db: Database) -> None:
    store = SessionStore(core_db)
    token, _ = await store.sign_in("chat", 1)
    other, _ = await store.sign_in("chat", 2)
    await store.sign_out(token)
    assert await store.get(token) is None
    assert await store.get(other) is not None
    await store.sign_out("unknown")  # harmless


async def test_end_all_sessions_of_a_user(core_db: Database) -> None:
    store = SessionStore(core_db)
    first, _ = await store.sign_in("chat", 5)
    second, _ = await store.sign_in("chat", 5)
    other, _ = await store.sign_in("chat", 6)
    assert await store.end_all_for("chat", 5) == 2
    assert await store.get(first) is None and await store.get(second) is None
    assert await store.get(other) is not None


async def test_sessions_survive_a_restart(
    data_dir: Path, database_url: str | None, core_db: Database
) -> None:
    token, _ = await SessionStore(core_db).sign_in("chat", 4)
    reopened = open_database(database_url, data_dir / "core.sqlite3", "core")
    try:
        found = await SessionStore(reopened).get(token)
        assert found is not None and found.user_id("chat") == 4
    finally:
        reopened.close()
