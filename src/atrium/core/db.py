"""Database access for both services: SQLite (embedded) and PostgreSQL (scale-out), one interface.

SQLAlchemy Core describes the schema and builds queries, but it is not the executor: statements are
compiled for the dialect in use and run on raw DB-API connections (stdlib `sqlite3`, `psycopg`),
which measured several times faster than SQLAlchemy's engines on the hot paths.

Domain code is written once, as plain synchronous functions taking a `Conn`:

    def unread_count(conn: Conn, user_id: int) -> int: ...
    count = await db.read(unread_count, user_id)

- `db.write(fn, ...)` runs `fn` in one transaction. On SQLite there is one writer connection
  (SQLite allows one writer; queueing beats lock contention): writes awaited in the event loop run
  in the loop's own thread, and every write that arrives while others wait for their turn shares
  their commit, each inside its own SAVEPOINT so that one failing task never undoes another;
  `write_sync` (the CLI, the importers) feeds a writer thread instead. On PostgreSQL a write runs
  in a worker thread on a pooled connection.
- `db.read(fn, ...)` runs `fn` on a read connection: on SQLite directly in the calling (event
  loop) thread, on PostgreSQL in a worker thread. WAL readers never block the writer.

Both services get their own `Database`: their own SQLite file, or their own PostgreSQL schema.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import functools
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine.interfaces import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.elements import ClauseElement, ColumnElement

from atrium.core import workers

P = ParamSpec("P")
T = TypeVar("T")
SelectT = TypeVar("SelectT", bound="sa.Select[Any]")

Row = Mapping[str, Any]
Params = Mapping[str, Any]
Statement = ClauseElement | str


class _SQLiteCompiler(sqlite.base.SQLiteCompiler):
    """SQLite's compiler with table hints, which SQLAlchemy's drops: a statement's
    `with_hint(table, "INDEXED BY name", "sqlite")` names the index SQLite must read the table
    through (see `through_index`)."""

    def get_from_hint_text(self, table: Any, text: str | None) -> str | None:
        return text


SQLITE_DIALECT: Dialect = sqlite.dialect(paramstyle="named")
SQLITE_DIALECT.statement_compiler = _SQLiteCompiler


def through_index(statement: SelectT, table: sa.Table, index: str) -> SelectT:
    """`statement` reading `table` through `index` on SQLite, whose planner, without statistics,
    prefers a primary key to an equally selective partial index; PostgreSQL's picks it itself."""
    return statement.with_hint(table, f"INDEXED BY {index}", "sqlite")


POSTGRES_DIALECT: Dialect = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]


class Prepared:
    """A constant statement compiled at most once per dialect: the form for hot paths.

    Use `sa.bindparam("name")` for the values supplied at execution time.
    """

    __slots__ = ("_compiled", "statement")

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: dict[str, tuple[str, dict[str, Any]]] = {}

    def compiled(self, dialect: Dialect) -> tuple[str, dict[str, Any]]:
        entry = self._compiled.get(dialect.name)
        if entry is None:
            entry = compile_statement(self.statement, dialect)
            self._compiled[dialect.name] = entry
        return entry


class InIdList(ColumnElement[bool]):
    """`column IN <a list of ids>` with the whole list bound as one parameter.

    A plain `in_()` expands to one bind parameter per value, so its SQL differs with the list's
    length and must be expanded on every call (measured: most of the cost of a small lookup).
    This form is one constant statement, fit for `Prepared`; pass the list through
    `Conn.id_list()`: JSON for SQLite's `json_each`, an array for PostgreSQL's `= ANY`.
    """

    # Not `Boolean`: SQLite's compiler would then write `... = 1`, which no index serves.
    type = cast("sa.types.TypeEngine[bool]", sa.types.NullType())
    inherit_cache = True

    def __init__(self, column: ColumnElement[Any], name: str) -> None:
        self.column = column
        self.name = name


@compiles(InIdList, "sqlite")
def _in_id_list_sqlite(element: InIdList, compiler: Any, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    ids = compiler.process(sa.bindparam(element.name), **kw)
    return f"{column} IN (SELECT value FROM json_each({ids}))"


@compiles(InIdList, "postgresql")
def _in_id_list_postgresql(element: InIdList, compiler: Any, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    ids = compiler.process(sa.bindparam(element.name), **kw)
    return f"{column} = ANY({ids})"


def compile_statement(statement: ClauseElement, dialect: Dialect) -> tuple[str, dict[str, Any]]:
    compiled = statement.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    return compiled.string, dict(compiled.params)


_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def widen_integer_casts(sql: str, bound: dict[str, Any]) -> str:
    """PostgreSQL's statements cast each integer parameter to INTEGER, which refuses a value
    beyond 32 bits before any comparison. Such a value is cast to BIGINT instead, so that it
    compares (and matches nothing in a 32-bit column) as it does on SQLite. Only statements
    that would otherwise fail change."""
    for name, value in bound.items():
        if type(value) is int and not _INT32_MIN <= value <= _INT32_MAX:
            sql = sql.replace(f"%({name})s::INTEGER", f"%({name})s::BIGINT")
    return sql


# Compiled statements by (dialect, structural cache key), as SQLAlchemy's engine keeps them:
# a dynamic query built again with other values (a narrow, an id list) reuses the compiled SQL,
# and only its parameters are extracted anew. Compiling costs ~10x more than keying.
_COMPILED: dict[tuple[str, Any], Any] = {}
_COMPILED_MAX = 5000


def compile_cached(
    statement: ClauseElement, dialect: Dialect, params: Params | None
) -> tuple[str, dict[str, Any]]:
    cache_key = statement._generate_cache_key()
    if cache_key is None:  # a construct SQLAlchemy cannot key: compile every time
        sql, defaults = compile_statement(statement, dialect)
        return sql, {**defaults, **(params or {})}
    slot = (dialect.name, cache_key.key)
    compiled: Any = _COMPILED.get(slot)
    if compiled is None:
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.clear()
        compiled = _COMPILED[slot] = statement.compile(dialect=dialect, cache_key=cache_key)
    bound: dict[str, Any] = compiled.construct_params(
        params=dict(params) if params else None, extracted_parameters=cache_key.bindparams
    )
    if compiled.post_compile_params:  # IN lists: one bind parameter per value
        state = compiled.construct_expanded_state(bound)
        return state.statement, dict(state.parameters)
    return compiled.string, bound


@functools.lru_cache(maxsize=256)
def _insert_sql(dialect: Dialect, table: str, columns: tuple[str, ...]) -> str:
    """`Conn.insert_tuples`' statement, written once per table and columns."""
    quote = dialect.identifier_preparer.quote
    marker = "?" if dialect.name == "sqlite" else "%s"
    return (
        f"INSERT INTO {quote(table)} ({', '.join(quote(c) for c in columns)}) "
        f"VALUES ({', '.join([marker] * len(columns))})"
    )


class Conn:
    """A raw connection with statement compilation; what domain functions receive."""

    def __init__(
        self,
        raw: Any,
        dialect: Dialect,
        caches: dict[str, Any] | None = None,
        services: dict[str, Any] | None = None,
    ) -> None:
        self.raw = raw
        self.dialect = dialect
        # The database's caches (`Database.caches`): derived from this database alone, shared by
        # its read connections; each entry's owner says how it stays valid.
        self.caches: dict[str, Any] = {} if caches is None else caches
        # The database's services (`Database.services`), for reads and writes alike.
        self.services: dict[str, Any] = {} if services is None else services

    @property
    def is_sqlite(self) -> bool:
        return self.dialect.name == "sqlite"

    def id_list(self, ids: Iterable[int]) -> Any:
        """The value of an `InIdList` parameter."""
        values = [int(i) for i in ids]
        return orjson.dumps(values).decode() if self.is_sqlite else values

    def text_list(self, texts: Iterable[str]) -> Any:
        """The value of an `InIdList` parameter compared with a text expression (the list is
        bound the same way: JSON for SQLite, an array for PostgreSQL)."""
        values = [str(t) for t in texts]
        return orjson.dumps(values).decode() if self.is_sqlite else values

    def _sql(self, statement: Statement | Prepared, params: Params | None) -> tuple[str, Any]:
        sql, bound = self._compiled(statement, params)
        if not self.is_sqlite and isinstance(bound, dict):
            sql = widen_integer_casts(sql, bound)
        return sql, bound

    def _compiled(self, statement: Statement | Prepared, params: Params | None) -> tuple[str, Any]:
        if isinstance(statement, str):
            return statement, dict(params or {})
        if isinstance(statement, Prepared):
            sql, defaults = statement.compiled(self.dialect)
        else:
            return compile_cached(statement, self.dialect, params)
        if params:
            defaults = {**defaults, **params}
        return sql, defaults

    def execute(self, statement: Statement | Prepared, params: Params | None = None) -> Any:
        """Run a statement and return the DB-API cursor (for `rowcount`)."""
        sql, bound = self._sql(statement, params)
        cursor = self.raw.cursor()
        cursor.execute(sql, bound)
        return cursor

    def tuples(
        self, statement: Statement | Prepared, params: Params | None = None
    ) -> list[tuple[Any, ...]]:
        """Rows as plain tuples: for reads of thousands of rows, where dicts cost the most."""
        sql, bound = self._sql(statement, params)
        if self.is_sqlite:
            cursor = self.raw.cursor()
        else:
            from psycopg.rows import tuple_row

            cursor = self.raw.cursor(row_factory=tuple_row)
        cursor.execute(sql, bound)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
        return rows

    def executemany(self, statement: Statement | Prepared, rows: Iterable[Params]) -> None:
        rows = list(rows)
        if not rows:
            return
        if isinstance(statement, ClauseElement):
            # Like SQLAlchemy's own executemany: an INSERT names the columns the rows carry,
            # so that omitted columns (an autoincrement key) take their defaults.
            compiled = statement.compile(dialect=self.dialect, column_keys=list(rows[0]))
            sql = compiled.string
        else:
            sql, _defaults = self._sql(statement, None)
        cursor = self.raw.cursor()
        cursor.executemany(sql, rows)

    def insert_tuples(
        self, table: sa.Table, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """Insert rows given as tuples in `columns` order: for the bulk inserts of hot paths,
        where binding a dict per row by name measured a fifth of a 50-row insert's cost."""
        if rows:
            self.raw.cursor().executemany(
                _insert_sql(self.dialect, table.name, tuple(columns)), rows
            )

    # SQLite cursors return tuples (no row factory: dict(zip()) per row in C is the cheapest
    # mapping); PostgreSQL cursors return dicts (psycopg's dict_row).

    def all(self, statement: Statement | Prepared, params: Params | None = None) -> list[Row]:
        cursor = self.execute(statement, params)
        if not self.is_sqlite:
            rows: list[Row] = cursor.fetchall()
            return rows
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def one(self, statement: Statement | Prepared, params: Params | None = None) -> Row | None:
        cursor = self.execute(statement, params)
        row = cursor.fetchone()
        if row is None or not self.is_sqlite:
            found: Row | None = row
            return found
        return dict(zip([d[0] for d in cursor.description], row, strict=True))

    def scalar(self, statement: Statement | Prepared, params: Params | None = None) -> Any:
        row = self.execute(statement, params).fetchone()
        if row is None:
            return None
        return row[0] if self.is_sqlite else next(iter(row.values()))

    def scalars(self, statement: Statement | Prepared, params: Params | None = None) -> list[Any]:
        rows = self.execute(statement, params).fetchall()
        if self.is_sqlite:
            return [row[0] for row in rows]
        return [next(iter(row.values())) for row in rows]


class Database(abc.ABC):
    """One service's database. Subclasses differ only in where connections come from."""

    dialect: Dialect
    url: str
    # Values derived from this database, kept between transactions (see `Conn.caches`). Only read
    # transactions fill them: a write may roll back, and what it read would never have existed.
    caches: dict[str, Any]
    # Functions handed in by whoever composes the services (a lookup in another service's data),
    # reachable from every connection, reads and writes alike: what a domain function may call
    # but must not import. Filled before serving, read-only afterwards.
    services: dict[str, Any]

    @abc.abstractmethod
    async def read(self, fn: Callable[..., T], *args: Any) -> T: ...

    @abc.abstractmethod
    async def write(self, fn: Callable[..., T], *args: Any, rerunnable: bool = False) -> T:
        """Run `fn(conn, *args)` in a transaction and return its value.

        `rerunnable`: `fn` only reads and writes the database (no files, no caches, nothing
        outside the transaction), so running it a second time after a rollback is harmless.
        SQLite then groups it without a savepoint of its own (see `SQLiteDatabase`).
        """

    def pool_stats(self) -> dict[str, int]:
        """The connection pool's figures for the metrics (none for SQLite's one connection)."""
        return {}

    async def read_rendering(self, fn: Callable[..., T], *args: Any) -> T:
        """`read` for a transaction that renders (wiki text, templates): it may take long, so
        it never runs in the event loop's thread."""
        return await self.read(fn, *args)

    async def read_cached_or_rendering(
        self, cached: Callable[..., T | None], fn: Callable[..., T], *args: Any
    ) -> T:
        """`read_rendering(fn, *args)`, first asking `cached(conn, *args)` (a cache lookup that
        renders nothing) where reads are cheap to run in place: a parser-cache hit then costs
        no trip to a rendering thread. Here every read is a trip: straight to `fn`."""
        return await self.read_rendering(fn, *args)

    @abc.abstractmethod
    def read_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """For the CLI and migrations, outside any event loop."""
        ...

    @abc.abstractmethod
    def write_sync(self, fn: Callable[..., T], *args: Any) -> T: ...

    @abc.abstractmethod
    def close(self) -> None: ...

    @property
    def is_sqlite(self) -> bool:
        return self.dialect.name == "sqlite"


# --- SQLite -------------------------------------------------------------------------------------


def connect_sqlite(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    raw = sqlite3.connect(
        str(path),
        isolation_level=None,  # we issue BEGIN/COMMIT ourselves
        check_same_thread=False,
        timeout=30,
        cached_statements=512,
    )
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=NORMAL")
    raw.execute("PRAGMA foreign_keys=ON")
    raw.execute("PRAGMA busy_timeout=30000")
    raw.execute("PRAGMA cache_size=-65536")
    raw.execute("PRAGMA temp_store=MEMORY")
    if readonly:
        raw.execute("PRAGMA query_only=ON")
    return raw


_STOP = object()


class _WriteTask:
    __slots__ = ("args", "fn", "future", "rerunnable")

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        future: Future[Any] | asyncio.Future[Any] | None = None,
        rerunnable: bool = False,
    ) -> None:
        self.fn = fn
        self.args = args
        self.future: Future[Any] | asyncio.Future[Any] = future or Future()
        self.rerunnable = rerunnable


class SQLiteDatabase(Database):
    """Embedded mode: one writer connection; reads and writes run in the event loop's thread.

    Reads run inline in the event loop's thread rather than in a thread pool: on the one core an
    embedded server gets, a hand-off to a reader thread and back cost more than a typical read
    (measured: a 100-message topic fetch served 400-500 requests/s through a 3-thread pool and
    620-780 inline, same machine, same minute). A read holds the loop for its duration, so
    keep reads bounded (every listing here is paged or capped).

    Writes awaited in the loop run there too, grouped: the first one schedules a flush, and every
    write awaited before it runs joins the same commit. The flush runs at the loop's next turn,
    unless the last group held several writes: then it waits until as many have come or
    COMMIT_DELAY has passed, whichever is first (MySQL's binlog_group_commit_sync_delay with
    its no_delay_count; PostgreSQL's commit_delay with commit_siblings). Under a steady stream
    of writes the flush that ran at once took only the writes already parsed, and the rest,
    arriving a moment later, made a second commit: group sizes alternated (measured under 64
    senders: mean 23, many of 1-5), and each commit rewrote the same pages (every recipient's
    `user_message` leaf: ~100 of a commit's ~170 pages). Waiting keeps the groups whole (mean
    64) and answers each writer in one commit's time. A lone writer never waits. A writer
    thread measured slower on one core (each write paid a queue, a future, a wake-up of the loop
    and GIL hand-offs, which under load also made the slowest sends slower); it remains for
    `write_sync`, and a lock keeps the two from using the writer connection at once. Each write
    of a group runs under a savepoint, so that one failing fails alone; a group of writes all
    declared `rerunnable` runs without them (a savepoint copies every page the write touches:
    measured 8% of a message send's CPU) and is rolled back and run again with savepoints in
    the rare case one of them fails after changing rows.

    The WAL is checkpointed by a thread of its own, not by the commit that crosses SQLite's
    1,000-page mark: that commit would wait for the checkpoint's copying and fsyncs, and with
    it every request the loop holds (measured under a stream of sends: the slowest commits took
    8-12 ms with SQLite's own checkpoints, at most 4.6 ms with this thread). The thread
    runs a PASSIVE checkpoint (it never blocks readers or the writer) at most every
    CHECKPOINT_INTERVAL seconds while commits keep coming, and releases the GIL while SQLite
    works.
    """

    # How many queued writes may share one commit; bounds the latency of the first one.
    MAX_GROUP = 64
    # Seconds the flush may wait for a group as large as the last one (see above).
    COMMIT_DELAY = 0.003
    # Seconds between background checkpoints while writes keep coming.
    CHECKPOINT_INTERVAL = 0.25

    def __init__(self, path: Path) -> None:
        self.path = path
        self.url = f"sqlite:///{path}"
        self.dialect = SQLITE_DIALECT
        self.caches = {}
        self.services = {}
        path.parent.mkdir(parents=True, exist_ok=True)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        # Its own caches, not the database's: see `Database.caches`.
        self._writer_conn = Conn(connect_sqlite(path), self.dialect, services=self.services)
        self._writer_conn.raw.execute("PRAGMA wal_autocheckpoint=0")
        self._committed = threading.Event()
        self._closing = threading.Event()
        self._checkpointer = threading.Thread(
            target=self._checkpoint_loop, name="sqlite-checkpointer", daemon=True
        )
        self._checkpointer.start()
        self._writer_lock = threading.Lock()
        self._pending: list[_WriteTask] = []
        # The size of the last group, and the delayed flush waiting for one as large.
        self._expected = 1
        self._delayed: asyncio.TimerHandle | None = None
        # The event loop whose writes run inline (the first to write); see `write`.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer = threading.Thread(target=self._write_loop, name="sqlite-writer", daemon=True)
        self._writer.start()
        self._local = threading.local()
        self._read_conns: list[sqlite3.Connection] = []
        self._read_conns_lock = threading.Lock()
        self._closed = False

    # Reads ---------------------------------------------------------------------------------

    def _reader_conn(self) -> Conn:
        conn: Conn | None = getattr(self._local, "conn", None)
        if conn is None:
            raw = connect_sqlite(self.path, readonly=True)
            with self._read_conns_lock:
                self._read_conns.append(raw)
            conn = Conn(raw, self.dialect, self.caches, self.services)
            self._local.conn = conn
        return conn

    def _run_read(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        conn = self._reader_conn()
        conn.raw.execute("BEGIN")
        try:
            return fn(conn, *args)
        finally:
            conn.raw.execute("COMMIT")

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        return self._run_read(fn, args)

    def read_sync(self, fn: Callable[..., T], *args: Any) -> T:
        return self._run_read(fn, args)

    async def read_rendering(self, fn: Callable[..., T], *args: Any) -> T:
        # Each thread has its reader connection (`_reader_conn`); the shared caches are the
        # ones PostgreSQL's pool threads already share.
        return await workers.run_rendering(self._run_read, fn, args)

    async def read_cached_or_rendering(
        self, cached: Callable[..., T | None], fn: Callable[..., T], *args: Any
    ) -> T:
        found = self._run_read(cached, args)
        if found is not None:
            return found
        return await self.read_rendering(fn, *args)

    # Writes --------------------------------------------------------------------------------

    async def write(self, fn: Callable[..., T], *args: Any, rerunnable: bool = False) -> T:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        elif loop is not self._loop:
            # A second event loop (another thread): its futures must be completed in its own
            # thread, so its writes go through the writer thread.
            task = _WriteTask(fn, args, rerunnable=rerunnable)
            self._queue.put(task)
            queued: T = await asyncio.wrap_future(task.future)
            return queued
        future: asyncio.Future[T] = loop.create_future()
        self._pending.append(_WriteTask(fn, args, future, rerunnable))
        waiting = len(self._pending)
        if waiting == 1 and self._expected > 1:
            self._delayed = loop.call_later(self.COMMIT_DELAY, self._flush_pending)
        elif waiting == 1 or waiting == self._expected:
            loop.call_soon(self._flush_pending)
        result: T = await future
        return result

    def _flush_pending(self) -> None:
        """Run the writes awaited since the last flush, MAX_GROUP to a commit."""
        if not self._pending:  # a delayed flush whose group has already been flushed
            return
        if self._delayed is not None:
            self._delayed.cancel()
            self._delayed = None
        pending, self._pending = self._pending, []
        self._expected = min(len(pending), self.MAX_GROUP)
        with self._writer_lock:
            for start in range(0, len(pending), self.MAX_GROUP):
                self._run_group(self._writer_conn, pending[start : start + self.MAX_GROUP])

    def write_sync(self, fn: Callable[..., T], *args: Any) -> T:
        task = _WriteTask(fn, args)
        self._queue.put(task)
        result: T = task.future.result()
        return result

    def _write_loop(self) -> None:
        conn = self._writer_conn
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            group = [first]
            while len(group) < self.MAX_GROUP:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP:
                    self._queue.put(_STOP)
                    break
                group.append(nxt)
            with self._writer_lock:
                self._run_group(conn, group)

    def _run_group(self, conn: Conn, group: list[_WriteTask]) -> None:
        rerunnable = len(group) > 1 and all(task.rerunnable for task in group)
        if rerunnable and self._run_rerunnable_group(conn, group):
            return
        self._run_guarded_group(conn, group)

    def _run_rerunnable_group(self, conn: Conn, group: list[_WriteTask]) -> bool:
        """Run a group of re-runnable writes without a savepoint per write; False when one of
        them failed after it had changed rows, the group then being rolled back for
        `_run_guarded_group` to run again. A write that fails before changing anything (most
        refusals) fails alone, as it would under its savepoint."""
        raw = conn.raw
        outcomes: list[tuple[_WriteTask, bool, Any]] = []
        try:
            raw.execute("BEGIN IMMEDIATE")
            for task in group:
                changes = raw.total_changes
                try:
                    value = task.fn(conn, *task.args)
                except BaseException as exc:
                    if raw.total_changes != changes or not raw.in_transaction:
                        if raw.in_transaction:
                            raw.execute("ROLLBACK")
                        return False
                    outcomes.append((task, False, exc))
                    continue
                outcomes.append((task, True, value))
            raw.execute("COMMIT")
            self._committed.set()
        except BaseException as exc:  # the commit itself failed: nothing in the group is durable
            self._fail_group(raw, group, exc)
            return True
        self._settle(outcomes)
        return True

    def _run_guarded_group(self, conn: Conn, group: list[_WriteTask]) -> None:
        """Run a group with a savepoint around each write, so that a failed one fails alone."""
        raw = conn.raw
        outcomes: list[tuple[_WriteTask, bool, Any]] = []
        try:
            raw.execute("BEGIN IMMEDIATE")
            for task in group:
                if len(group) > 1:
                    raw.execute("SAVEPOINT task")
                try:
                    value = task.fn(conn, *task.args)
                except BaseException as exc:
                    if len(group) > 1:
                        raw.execute("ROLLBACK TO SAVEPOINT task")
                        raw.execute("RELEASE SAVEPOINT task")
                    else:
                        raw.execute("ROLLBACK")
                    outcomes.append((task, False, exc))
                    continue
                if len(group) > 1:
                    raw.execute("RELEASE SAVEPOINT task")
                outcomes.append((task, True, value))
            if raw.in_transaction:
                raw.execute("COMMIT")
                self._committed.set()
        except BaseException as exc:  # the commit itself failed: nothing in the group is durable
            self._fail_group(raw, group, exc)
            return
        self._settle(outcomes)

    @staticmethod
    def _fail_group(raw: sqlite3.Connection, group: list[_WriteTask], exc: BaseException) -> None:
        with contextlib.suppress(sqlite3.Error):
            if raw.in_transaction:
                raw.execute("ROLLBACK")
        for task in group:
            if not task.future.done():
                task.future.set_exception(exc)

    @staticmethod
    def _settle(outcomes: list[tuple[_WriteTask, bool, Any]]) -> None:
        for task, ok, value in outcomes:
            if task.future.done():  # its caller went away (a cancelled request)
                continue
            if ok:
                task.future.set_result(value)
            else:
                task.future.set_exception(value)

    def _checkpoint_loop(self) -> None:
        conn = connect_sqlite(self.path)
        try:
            while True:
                self._committed.wait()
                if self._closing.is_set():
                    return
                self._committed.clear()
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                self._closing.wait(self.CHECKPOINT_INTERVAL)
        finally:
            conn.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        self._writer.join(timeout=10)
        self._closing.set()
        self._committed.set()
        self._checkpointer.join(timeout=10)
        with contextlib.suppress(sqlite3.Error):
            self._writer_conn.raw.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self._writer_conn.raw.close()
        with self._read_conns_lock:
            for raw in self._read_conns:
                with contextlib.suppress(sqlite3.Error):
                    raw.close()


# --- PostgreSQL ---------------------------------------------------------------------------------


def postgres_conninfo(url: str) -> str:
    """psycopg wants `postgresql://`; accept SQLAlchemy's `postgresql+psycopg://` spelling too."""
    for prefix in ("postgresql+psycopg://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix) :]
    return url


class PostgresDatabase(Database):
    """Scale-out mode: a psycopg connection pool; each service lives in its own schema."""

    def __init__(self, url: str, schema: str, min_size: int = 2, max_size: int = 16) -> None:
        import psycopg
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        self.caches = {}
        self.services = {}
        self.url = url
        self.schema = schema
        self.dialect = POSTGRES_DIALECT

        def configure(raw: Any) -> None:
            try:
                raw.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateSchema):
                # IF NOT EXISTS is not atomic: the pool's first connections, opened together,
                # can race to create the schema; the loser finds it made.
                raw.rollback()
            raw.execute(f'SET search_path TO "{schema}"')
            raw.commit()

        self._pool = ConnectionPool(
            postgres_conninfo(url),
            min_size=min_size,
            max_size=max_size,
            kwargs={"row_factory": dict_row, "autocommit": False},
            configure=configure,
            open=True,
        )
        self._executor = ThreadPoolExecutor(max_workers=max_size, thread_name_prefix="pg")

    @contextlib.contextmanager
    def _connection(self, readonly: bool) -> Iterator[Conn]:
        with self._pool.connection() as raw:
            # Writes get caches of their own, not the database's: see `Database.caches`.
            yield Conn(raw, self.dialect, self.caches if readonly else None, self.services)

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...], readonly: bool) -> T:
        with self._connection(readonly) as conn:
            try:
                value = fn(conn, *args)
            except BaseException:
                conn.raw.rollback()
                raise
            conn.raw.commit()
            return value

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, fn, args, True)

    async def write(self, fn: Callable[..., T], *args: Any, rerunnable: bool = False) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, fn, args, False)

    def read_sync(self, fn: Callable[..., T], *args: Any) -> T:
        return self._run(fn, args, True)

    def write_sync(self, fn: Callable[..., T], *args: Any) -> T:
        return self._run(fn, args, False)

    def pool_stats(self) -> dict[str, int]:
        stats = self._pool.get_stats()
        return {
            key: int(stats.get(key, 0))
            for key in ("pool_size", "pool_available", "requests_waiting")
        }

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        self._pool.close()


def open_database(database_url: str | None, sqlite_path: Path, schema: str) -> Database:
    """The embedded SQLite file unless a PostgreSQL URL is configured."""
    if database_url and not database_url.startswith("sqlite"):
        return PostgresDatabase(database_url, schema)
    return SQLiteDatabase(sqlite_path)


def sqlalchemy_url(database_url: str | None, sqlite_path: Path) -> str:
    """The URL Alembic uses for migrations (it needs a SQLAlchemy engine)."""
    if database_url and not database_url.startswith("sqlite"):
        return "postgresql+psycopg://" + postgres_conninfo(database_url)[len("postgresql://") :]
    return f"sqlite:///{sqlite_path}"
