"""Fixtures shared by every test: the two database backends and a free-port helper.

Every API test runs on SQLite and on PostgreSQL. PostgreSQL is at 127.0.0.1:5432 (user postgres,
trust auth); each session (each xdist worker) makes one database per service from a migrated
template, and empties it before every test, which costs a few milliseconds where creating and
dropping a database costs half a second or more. SQLite tests copy a template migrated once per
session. Outside CI a missing PostgreSQL skips those tests with a visible reason; with CI=true it
fails them.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import shutil
import socket
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher

from atrium.core import migrations, secrets
from tests.scheduling import heaviest_first

POSTGRES_ADMIN_URL = os.environ.get(
    "ATRIUM_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = "redis://127.0.0.1:6379/0"
BACKENDS = ("sqlite", "postgres")
SERVICES = ("core", "chat", "wiki")
# An app of both services runs the bridge between them too, with a database of its own.
WORKSPACE_SERVICES = (*SERVICES, "bridge")


# What tests need of a password is a hash, not a costly one (Django's test settings advise the
# same): argon2 at its smallest cost. It reads the parameters from each stored hash, so the
# production code path is unchanged; tests/core/test_password_hasher.py checks production's cost.
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture(scope="session", autouse=True)
def cheap_password_hashing() -> Iterator[PasswordHasher]:
    """Yields the production hasher it swapped out."""
    production = secrets.use_hasher(CHEAP_HASHER)
    yield production
    secrets.use_hasher(production)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _admin_connect() -> object:
    import psycopg

    return psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=3)


def _postgres_url(dbname: str) -> str:
    base, _, _ = POSTGRES_ADMIN_URL.rpartition("/")
    return f"{base}/{dbname}"


def schemas_of(service: str) -> tuple[str, ...]:
    """The schemas a test database of `service` holds: its own and core's; the workspace's
    tests run both services and the bridge between them on one database."""
    if service == "workspace":
        return ("chat", "wiki", "bridge", "core")
    return (service, "core")


class PostgresServer:
    """Creates databases from a migrated template (the service's schema and core's), and drops
    them; and keeps one reusable database per service, emptied before each test."""

    def __init__(self) -> None:
        self.templates: dict[str, str] = {}  # service -> template database
        self.created: list[str] = []
        self.reusable: dict[str, ReusableDatabase] = {}

    def template(self, service: str) -> str:
        if service not in self.templates:
            name = f"atrium_tpl_{service}_{uuid.uuid4().hex[:10]}"
            with _admin_connect() as conn:  # type: ignore[attr-defined]
                conn.execute(f'CREATE DATABASE "{name}"')
            self.templates[service] = name
            for schema in schemas_of(service):
                migrations.upgrade(schema, _postgres_url(name), Path("/nonexistent"))
        return self.templates[service]

    def empty_database(self, service: str) -> str:
        """The session's database for `service`, as empty as its template."""
        reusable = self.reusable.get(service)
        if reusable is None:
            reusable = self.reusable[service] = ReusableDatabase(
                service, self.new_database(service)
            )
            return reusable.url
        try:
            reusable.empty()
        except Exception:
            # Something held a lock past its test: start over from the template rather than wait.
            reusable.close()
            self.drop(reusable.url)
            reusable = self.reusable[service] = ReusableDatabase(
                service, self.new_database(service)
            )
        return reusable.url

    def new_database(self, service: str) -> str:
        """A fresh database with `service`'s migrations applied."""
        name = f"atrium_t_{uuid.uuid4().hex[:12]}"
        template = self.template(service)
        with _admin_connect() as conn:  # type: ignore[attr-defined]
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        self.created.append(name)
        return _postgres_url(name)

    def drop(self, url: str) -> None:
        name = url.rpartition("/")[2]
        with _admin_connect() as conn:  # type: ignore[attr-defined]
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.created.remove(name)

    def close(self) -> None:
        for reusable in self.reusable.values():
            reusable.close()
        with _admin_connect() as conn:  # type: ignore[attr-defined]
            for name in [*self.created, *self.templates.values()]:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class ReusableDatabase:
    """A database emptied in place between tests: every row of the service's and core's tables
    deleted with triggers and foreign keys off, the sequences restarted, and the deployment's Redis
    keys deleted. The table and sequence lists are read once. Nothing in the app caches rows
    across apps (each test's app opens its own `Database`, whose caches die with it)."""

    def __init__(self, service: str, url: str) -> None:
        import psycopg

        self.url = url
        self.conn = psycopg.connect(url, autocommit=True)
        schemas = schemas_of(service)
        self.tables = [
            row[0]
            for row in self.conn.execute(
                "SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables"
                " WHERE schemaname = ANY(%s) AND tablename NOT LIKE 'alembic_version%%'",
                (list(schemas),),
            )
        ]
        self.sequences = [
            row[0]
            for row in self.conn.execute(
                "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) FROM pg_sequences"
                " WHERE schemaname = ANY(%s)",
                (list(schemas),),
            )
        ]
        # The namespace `Settings.redis_namespace` derives from the database URL.
        self.redis_pattern = "atrium:" + hashlib.sha1(url.encode()).hexdigest()[:10] + ":*"
        self.redis: Any = None  # one connection for the session's resets

    def empty(self) -> None:
        # One round trip: the statements as one script (no parameters, so psycopg sends it whole).
        script = "; ".join(
            [
                "SET LOCAL lock_timeout = '5s'",
                "SET LOCAL session_replication_role = replica",
                *(f"DELETE FROM {table}" for table in self.tables),
                *(f"ALTER SEQUENCE {sequence} RESTART" for sequence in self.sequences),
            ]
        )
        with self.conn.transaction():
            self.conn.execute(script)
        self._delete_redis_keys()

    def _delete_redis_keys(self) -> None:
        import redis

        try:
            if self.redis is None:
                self.redis = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
            client = self.redis
            keys = list(client.scan_iter(self.redis_pattern, count=1000))
            if keys:
                client.delete(*keys)
        except redis.ConnectionError:
            return  # no Redis: the tests use in-process events

    def close(self) -> None:
        self.conn.close()
        if self.redis is not None:
            self.redis.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        _admin_connect().close()  # type: ignore[attr-defined]
    except Exception as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI and is not reachable: {exc}")
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}: {exc}")
    server = PostgresServer()
    yield server
    server.close()


@pytest.fixture
def service_under_test() -> str:
    """Which service's migrations a test database needs; conftests of a service override it."""
    return "chat"


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, service_under_test: str) -> Iterator[str | None]:
    """None for embedded SQLite (in the test's data directory), else a PostgreSQL database with the
    service's and core's migrations applied and no rows (reused within the session)."""
    if request.param == "sqlite":
        yield None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    yield server.empty_database(service_under_test)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "atrium-data"
    path.mkdir()
    return path


@functools.cache
def migrated_sqlite_templates() -> Path:
    """Every service's SQLite database migrated once per session (per xdist worker), for the
    fixture below and for helpers that build a data directory outside a fixture's reach.

    Migrating is I/O-bound (every DDL transaction fsyncs) and costs 0.4-2 s; a copy costs 0.3 ms.
    """
    root = Path(tempfile.mkdtemp(prefix="atrium-sqlite-templates-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for service in WORKSPACE_SERVICES:
        migrations.upgrade(service, None, root / f"{service}.sqlite3")
    return root


@pytest.fixture(scope="session")
def sqlite_templates() -> Path:
    return migrated_sqlite_templates()


def copy_sqlite_templates(
    templates: Path, data_dir: Path, services: tuple[str, ...] = SERVICES
) -> None:
    """Put migrated databases in `data_dir`, so an app on it can start with migrate_on_start=False
    (an app of both services needs WORKSPACE_SERVICES)."""
    for service in services:
        shutil.copyfile(templates / f"{service}.sqlite3", data_dir / f"{service}.sqlite3")


# Guards that keep the suite fast: markers that select it, and a budget on each test's own setup.

E2E_DIR = Path(__file__).parent / "e2e"
# A test's function-scoped fixtures (its app, database reset and factories) should take well under
# this; session fixtures (templates) are paid once per worker and not counted.
SETUP_BUDGET_SECONDS = 1.0
# Fails under CI=true only, at this factor times the budget, times the machine's load beyond its
# cores: a machine busy with other work slows every set-up alike and must not block a landing.
SETUP_FAIL_FACTOR = 3
_setup_seconds = pytest.StashKey[float]()
_slow_setups: list[tuple[str, float]] = []
_once_per_session = [0.0]


def machine_load() -> float:
    """Runnable processes per core over the last minute (the load average over the cores)."""
    return os.getloadavg()[0] / (os.cpu_count() or 1)


def require_redis(url: str) -> None:
    """Skip a test that needs Redis when none answers, except in CI, where that is a failure."""
    import redis

    try:
        redis.Redis.from_url(url).ping()
    except redis.RedisError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is required in CI: {exc}")
        pytest.skip(f"Redis not reachable: {exc}")


def once_per_session(seconds: float) -> None:
    """Time a function-scoped fixture spent on state built once per session (not counted)."""
    _once_per_session[0] += seconds


@pytest.hookimpl(trylast=True)  # after pytest's grouping by parametrised fixtures
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    unmarked: set[str] = set()
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and callspec.params.get("database_url") == "postgres"
        if on_postgres or "postgres_server" in fixtures:
            item.add_marker(pytest.mark.postgres)
        # Chat's scale-out mode (PostgreSQL tests of chat) and the two-worker e2e tests use Redis.
        if (on_postgres and "settings" in fixtures) or "scale_out" in fixtures:
            item.add_marker(pytest.mark.redis)
        if E2E_DIR in item.path.parents and item.get_closest_marker("e2e") is None:
            unmarked.add(item.path.name)
    if unmarked:
        raise pytest.UsageError(
            f"e2e test files without `pytestmark = pytest.mark.e2e`: {', '.join(sorted(unmarked))}"
        )
    heaviest_first(items)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> Any:
    if fixturedef.scope != "function":
        return (yield)
    start, once = time.perf_counter(), _once_per_session[0]
    try:
        return (yield)
    finally:
        spent = time.perf_counter() - start - (_once_per_session[0] - once)
        node = request.node
        node.stash[_setup_seconds] = node.stash.get(_setup_seconds, 0.0) + spent


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.when != "setup" or not report.passed or item.get_closest_marker("e2e"):
        return report
    seconds = item.stash.get(_setup_seconds, 0.0)
    if seconds <= SETUP_BUDGET_SECONDS:
        return report
    load = machine_load()
    limit = SETUP_BUDGET_SECONDS * SETUP_FAIL_FACTOR * max(1.0, load)
    if os.environ.get("CI") == "true" and seconds > limit:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid}: its fixtures took {seconds:.2f} s to set up, over {limit:.1f} s "
            f"({SETUP_FAIL_FACTOR}x the {SETUP_BUDGET_SECONDS:.0f} s budget, times a load of "
            f"{load:.2f} per core): build expensive state once per session or module "
            "(see README, Testing)"
        )
    else:
        # Read back in pytest_runtest_logreport, which (unlike this hook) runs in xdist's
        # controller as well, where the summary is written.
        report.user_properties.append(("setup_over_budget", seconds))
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for name, value in report.user_properties:
        if name == "setup_over_budget" and report.when == "setup":
            _slow_setups.append((report.nodeid, float(value)))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _slow_setups:
        return
    terminalreporter.section("setup over budget")
    terminalreporter.write_line(
        f"{len(_slow_setups)} in-process test(s) took over {SETUP_BUDGET_SECONDS:.0f} s to set up "
        f"(fails at {SETUP_BUDGET_SECONDS * SETUP_FAIL_FACTOR:.0f} s times the load per core over 1, "
        "under CI=true):"
    )
    for nodeid, seconds in sorted(_slow_setups, key=lambda s: -s[1])[:25]:
        terminalreporter.write_line(f"  {seconds:5.2f} s  {nodeid}")
