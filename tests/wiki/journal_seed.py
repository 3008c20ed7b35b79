"""A wiki with a journal: the reference pages (`seed`) and then edits by several kinds of users,
a deletion, a move, a block, a rights change, watched pages and a tagged edit, all through the
API, so every journal list (recentchanges, logevents, usercontribs, watchlist, ...) has rows."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from tests.conftest import SERVICES, copy_sqlite_templates, once_per_session
from tests.wiki.conftest import wiki_harness
from tests.wiki.seed import seed


async def journal(wiki: Any, client: Any) -> None:
    await seed(wiki, client)
    token = await wiki.csrf(client)

    async def post(**params: Any) -> Any:
        result = await wiki.post(client, token=token, **params)
        assert "error" not in result, result
        return result

    await post(action="edit", title="Apple", appendtext="\nMore apples.", minor="1",
               summary="more [[apples]]")  # fmt: skip
    await post(action="managetags", operation="create", tag="fruity", reason="for tests")
    await post(action="edit", title="Banana", appendtext="\nTagged.", tags="fruity")
    await post(action="edit", title="Doomed", text="to be deleted", summary="doomed")
    await post(action="delete", title="Doomed", reason="no need")
    await post(action="move", **{"from": "Filler page 15"}, to="Moved filler", reason="rename")
    await post(action="block", user="192.0.2.7", expiry="1 week", reason="vandal")
    rights = (await wiki.api(client, action="query", meta="tokens", type="userrights"))["query"]
    done = await wiki.post(
        client, action="userrights", user="Alice", add="bot", reason="trust",
        token=rights["tokens"]["userrightstoken"],
    )  # fmt: skip
    assert "error" not in done, done
    watch = (await wiki.api(client, action="query", meta="tokens", type="watch"))["query"]
    done = await wiki.post(
        client, action="watch", titles="Apple|Cherry|Talk:Banana",
        token=watch["tokens"]["watchtoken"],
    )  # fmt: skip
    assert "error" not in done, done
    async with wiki.client() as other:
        await wiki.login(other, "Alice")
        alice = await wiki.csrf(other)
        for text in ("Alice was here.", "Alice again."):
            result = await wiki.post(
                other, action="edit", title="Cherry", appendtext="\n" + text, token=alice,
                summary="alice", minor="1",
            )  # fmt: skip
            assert "error" not in result, result
        result = await wiki.post(
            other, action="edit", title="Apple", appendtext="\nAlice.", token=alice, bot="1"
        )
        assert "error" not in result, result
    async with wiki.client() as anon:
        result = await wiki.post(
            anon, action="edit", title="Talk:Banana", text="An anonymous remark.", token="+\\"
        )
        assert "error" not in result, result


# --- built once per worker and backend, restored for each test ---------------------------------


@dataclass
class Snapshot:
    """A journaled wiki's databases: SQLite files, or each PostgreSQL table's rows (COPY's
    binary form) and sequence positions, for the wiki's and core's schemas."""

    bot_password: str
    files: Path | None = None
    tables: list[tuple[str, bytes]] = field(default_factory=list)
    sequences: list[tuple[str, int, bool]] = field(default_factory=list)


_snapshots: dict[str, Snapshot] = {}
_SCHEMAS = ["wiki", "core"]


def _capture(harness: Any, cache: Path) -> Snapshot:
    snapshot = Snapshot(harness.bot_password)
    url = harness.settings.database_url
    if url is None:
        cache.mkdir()
        for service in SERVICES:
            source = sqlite3.connect(harness.settings.sqlite_path(service))
            target = sqlite3.connect(cache / f"{service}.sqlite3")
            with target:
                source.backup(target)
            source.close()
            target.close()
        snapshot.files = cache
        return snapshot
    with psycopg.connect(url, autocommit=True) as conn:
        names = conn.execute(
            "SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables"
            " WHERE schemaname = ANY(%s) AND tablename NOT LIKE 'alembic_version%%'",
            (_SCHEMAS,),
        ).fetchall()
        for (name,) in names:
            with conn.cursor().copy(f"COPY {name} TO STDOUT (FORMAT BINARY)") as copy:
                snapshot.tables.append((name, b"".join(bytes(chunk) for chunk in copy)))
        snapshot.sequences = [
            (name, int(value), True)
            for name, value in conn.execute(
                "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename), last_value"
                " FROM pg_sequences WHERE schemaname = ANY(%s) AND last_value IS NOT NULL",
                (_SCHEMAS,),
            ).fetchall()
        ]
    return snapshot


def _restore(snapshot: Snapshot, data_dir: Path, database_url: str | None) -> None:
    if database_url is None:
        assert snapshot.files is not None
        for service in SERVICES:
            shutil.copyfile(snapshot.files / f"{service}.sqlite3", data_dir / f"{service}.sqlite3")
        return
    # The database is empty (the `database_url` fixture emptied it) with its sequences restarted.
    with psycopg.connect(database_url, autocommit=True) as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        for name, rows in snapshot.tables:
            with conn.cursor().copy(f"COPY {name} FROM STDIN (FORMAT BINARY)") as copy:
                copy.write(rows)
        for name, value, called in snapshot.sequences:
            conn.execute("SELECT setval(%s, %s, %s)", (name, value, called))


@contextlib.asynccontextmanager
async def journaled_wiki(
    data_dir: Path, database_url: str | None, sqlite_templates: Path, cache: Path
) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    """A wiki with `journal`'s rows and a client signed in as Admin: built through the API the
    first time on each worker and backend, then restored from a snapshot (a fraction of a
    second instead of seconds)."""
    key = "sqlite" if database_url is None else "postgres"
    snapshot = _snapshots.get(key)
    if snapshot is not None:
        _restore(snapshot, data_dir, database_url)
    elif database_url is None:
        copy_sqlite_templates(sqlite_templates, data_dir)
    bot_password = snapshot.bot_password if snapshot is not None else None
    harness = wiki_harness(data_dir, database_url, bot_password)
    async with harness as wiki, wiki.client() as client:
        if snapshot is None:
            started = time.perf_counter()
            await journal(wiki, client)
            _snapshots[key] = _capture(wiki, cache / f"journal-{key}")
            once_per_session(time.perf_counter() - started)
        else:
            await wiki.login(client, "Admin")
        yield wiki, client
