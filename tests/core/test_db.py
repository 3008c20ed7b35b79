"""The database layer: grouped SQLite writes, write_sync beside them, and `InIdList`."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from atrium.core.db import Conn, Database, InIdList, Prepared, SQLiteDatabase, open_database

pytestmark = pytest.mark.anyio

metadata = sa.MetaData()
item = sa.Table(
    "item",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(40), nullable=False, unique=True),
)
ITEMS_BY_ID = Prepared(sa.select(item.c.id, item.c.name).where(InIdList(item.c.id, "ids")))


def _create(conn: Conn) -> None:
    ddl = sa.schema.CreateTable(item, if_not_exists=True).compile(dialect=conn.dialect)
    conn.execute(str(ddl))


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[SQLiteDatabase]:
    db = SQLiteDatabase(tmp_path / "t.sqlite3")
    db.write_sync(_create)
    yield db
    db.close()


def _insert(conn: Conn, name: str) -> int:
    conn.execute(sa.insert(item).values(name=name))
    return int(conn.scalar(sa.select(item.c.id).where(item.c.name == name)))


def _names(conn: Conn) -> list[str]:
    return list(conn.scalars(sa.select(item.c.name).order_by(item.c.name)))


async def test_writes_awaited_together_share_a_commit_and_fail_alone(
    sqlite_db: SQLiteDatabase,
) -> None:
    commits = 0
    real_group = sqlite_db._run_group

    def counting_group(conn: Conn, group: list[object]) -> None:
        nonlocal commits
        commits += 1
        real_group(conn, group)  # type: ignore[arg-type]

    sqlite_db._run_group = counting_group  # type: ignore[method-assign]
    names = [f"n{i}" for i in range(20)]
    # "n3" twice: the second breaks the unique constraint and must fail alone.
    results = await asyncio.gather(
        *(sqlite_db.write(_insert, name) for name in [*names, "n3"]), return_exceptions=True
    )
    assert commits == 1
    assert all(isinstance(r, int) for r in results[:-1])
    assert "UNIQUE" in str(results[-1])
    assert await sqlite_db.read(_names) == sorted(names)


def _insert_then_fail(conn: Conn, name: str) -> int:
    conn.execute(sa.insert(item).values(name=name))
    raise RuntimeError(f"{name} failed after writing")


def _count_calls(calls: dict[str, int], fn: object) -> object:
    def counted(conn: Conn, name: str) -> int:
        calls[name] = calls.get(name, 0) + 1
        return fn(conn, name)  # type: ignore[operator, no-any-return]

    return counted


async def test_rerunnable_writes_share_a_commit_without_savepoints(
    sqlite_db: SQLiteDatabase,
) -> None:
    statements: list[str] = []
    sqlite_db._writer_conn.raw.set_trace_callback(statements.append)
    names = [f"r{i}" for i in range(10)]
    # "r3" twice: the second is refused before it changes a row, so it fails alone.
    results = await asyncio.gather(
        *(sqlite_db.write(_insert, name, rerunnable=True) for name in [*names, "r3"]),
        return_exceptions=True,
    )
    sqlite_db._writer_conn.raw.set_trace_callback(None)
    assert all(isinstance(r, int) for r in results[:-1])
    assert "UNIQUE" in str(results[-1])
    assert await sqlite_db.read(_names) == sorted(names)
    assert statements.count("COMMIT") == 1
    assert not any("SAVEPOINT" in s for s in statements)


async def test_a_rerunnable_write_failing_after_changes_is_undone_alone(
    sqlite_db: SQLiteDatabase,
) -> None:
    calls: dict[str, int] = {}
    insert = _count_calls(calls, _insert)
    failing = _count_calls(calls, _insert_then_fail)
    results = await asyncio.gather(
        sqlite_db.write(insert, "a", rerunnable=True),
        sqlite_db.write(failing, "bad", rerunnable=True),
        sqlite_db.write(insert, "c", rerunnable=True),
        return_exceptions=True,
    )
    assert isinstance(results[0], int) and isinstance(results[2], int)
    assert isinstance(results[1], RuntimeError)
    # The group was rolled back and run again, each write under its savepoint.
    assert calls == {"a": 2, "bad": 2, "c": 1}
    assert await sqlite_db.read(_names) == ["a", "c"]


async def test_a_group_with_a_guarded_write_keeps_savepoints(sqlite_db: SQLiteDatabase) -> None:
    calls: dict[str, int] = {}
    failing = _count_calls(calls, _insert_then_fail)
    results = await asyncio.gather(
        sqlite_db.write(_insert, "x", rerunnable=True),
        sqlite_db.write(failing, "guarded"),
        return_exceptions=True,
    )
    assert isinstance(results[0], int) and isinstance(results[1], RuntimeError)
    assert calls == {"guarded": 1}
    assert await sqlite_db.read(_names) == ["x"]


async def test_a_group_larger_than_max_group_is_split(sqlite_db: SQLiteDatabase) -> None:
    count = SQLiteDatabase.MAX_GROUP * 2 + 5
    ids = await asyncio.gather(*(sqlite_db.write(_insert, f"m{i}") for i in range(count)))
    assert len(set(ids)) == count


def _record_groups(db: SQLiteDatabase) -> list[list[str]]:
    """The names each commit group of `_insert` writes carried, in order."""
    groups: list[list[str]] = []
    real_group = db._run_group

    def recording_group(conn: Conn, group: list[Any]) -> None:
        groups.append([task.args[0] for task in group])
        real_group(conn, group)

    db._run_group = recording_group  # type: ignore[method-assign]
    return groups


async def _stagger(db: SQLiteDatabase, names: list[str]) -> list[int]:
    """Writes started one loop turn apart, as requests arriving one after another are."""
    started = []
    for name in names:
        started.append(asyncio.ensure_future(db.write(_insert, name)))
        await asyncio.sleep(0)
    return list(await asyncio.gather(*started))


async def test_after_a_group_the_next_waits_for_as_many_writes(sqlite_db: SQLiteDatabase) -> None:
    groups = _record_groups(sqlite_db)
    sqlite_db.COMMIT_DELAY = 30.0  # long enough that only a full group can end the wait
    # A lone writer never waits: with no group before it, it flushes at the next loop turn.
    await asyncio.wait_for(sqlite_db.write(_insert, "alone"), timeout=10)
    await _stagger(sqlite_db, ["a1", "a2"])  # one turn apart: a flush between them
    assert groups == [["alone"], ["a1"], ["a2"]]
    await asyncio.gather(*(sqlite_db.write(_insert, f"b{i}") for i in range(4)))
    assert groups[-1] == ["b0", "b1", "b2", "b3"]
    # After a group of four, writes arriving one turn apart share one commit, which runs as
    # soon as the fourth has come (well before the delay).
    await asyncio.wait_for(_stagger(sqlite_db, ["c0", "c1", "c2", "c3"]), timeout=10)
    assert groups[-1] == ["c0", "c1", "c2", "c3"]


async def test_a_delayed_flush_ends_after_commit_delay(sqlite_db: SQLiteDatabase) -> None:
    groups = _record_groups(sqlite_db)
    sqlite_db.COMMIT_DELAY = 0.05
    await asyncio.gather(*(sqlite_db.write(_insert, f"g{i}") for i in range(3)))
    # Fewer writes come than the last group held: the delay ends the wait. Each group expects
    # as many as the one before, so a lone write waits once more, and the next not at all.
    await _stagger(sqlite_db, ["h0", "h1"])
    await sqlite_db.write(_insert, "i0")
    sqlite_db.COMMIT_DELAY = 30.0
    await asyncio.wait_for(sqlite_db.write(_insert, "j0"), timeout=10)
    assert groups[1:] == [["h0", "h1"], ["i0"], ["j0"]]
    assert await sqlite_db.read(_names) == ["g0", "g1", "g2", "h0", "h1", "i0", "j0"]


async def test_a_cancelled_writer_does_not_disturb_the_others(sqlite_db: SQLiteDatabase) -> None:
    first = asyncio.ensure_future(sqlite_db.write(_insert, "cancelled"))
    second = asyncio.ensure_future(sqlite_db.write(_insert, "kept"))
    await asyncio.sleep(0)  # both are queued; the flush has not run yet
    first.cancel()
    assert isinstance(await second, int)
    # The cancelled caller no longer waits, but its write was already part of the group.
    assert await sqlite_db.read(_names) == ["cancelled", "kept"]


async def test_write_sync_from_a_thread_beside_loop_writes(sqlite_db: SQLiteDatabase) -> None:
    errors: list[BaseException] = []

    def from_thread() -> None:
        try:
            for i in range(50):
                sqlite_db.write_sync(_insert, f"t{i}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=from_thread)
    thread.start()
    for i in range(50):
        await sqlite_db.write(_insert, f"l{i}")
        await asyncio.sleep(0)
    await asyncio.to_thread(thread.join)
    assert errors == []
    assert len(await sqlite_db.read(_names)) == 100


async def test_in_id_list_on_both_backends(tmp_path: Path, database_url: str | None) -> None:
    db: Database = open_database(database_url, tmp_path / "ids.sqlite3", "public")
    try:
        if database_url is None:
            db.write_sync(_create)
        else:
            db.write_sync(lambda conn: conn.execute("DROP TABLE IF EXISTS item"))
            db.write_sync(_create)
        ids = [db.write_sync(_insert, f"x{i}") for i in range(10)]

        def lookup(conn: Conn, wanted: list[int]) -> list[str]:
            rows = conn.all(ITEMS_BY_ID, {"ids": conn.id_list(wanted)})
            return sorted(row["name"] for row in rows)

        assert db.read_sync(lookup, [ids[1], ids[4], 10**6]) == ["x1", "x4"]
        assert db.read_sync(lookup, []) == []
        if database_url is None:
            # One constant statement that still seeks by primary key, not a scan with `= 1`.
            def plan(conn: Conn) -> str:
                sql, _ = ITEMS_BY_ID.compiled(conn.dialect)
                rows = conn.raw.execute("EXPLAIN QUERY PLAN " + sql, {"ids": "[1]"}).fetchall()
                return " ".join(str(r[-1]) for r in rows)

            assert "SEARCH item USING INTEGER PRIMARY KEY" in db.read_sync(plan)
    finally:
        db.close()


async def test_writes_from_a_second_event_loop_in_another_thread(
    sqlite_db: SQLiteDatabase,
) -> None:
    await sqlite_db.write(_insert, "first-loop")  # this loop now writes inline

    def other_loop() -> list[int]:
        async def writes() -> list[int]:
            return list(
                await asyncio.gather(*(sqlite_db.write(_insert, f"o{i}") for i in range(5)))
            )

        return asyncio.run(writes())

    ids, mine = await asyncio.gather(
        asyncio.to_thread(other_loop), sqlite_db.write(_insert, "first-loop-again")
    )
    assert len(set(ids)) == 5 and mine not in ids
    assert len(await sqlite_db.read(_names)) == 7
