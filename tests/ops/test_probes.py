"""`/health`, `/ready` and `/metrics`, who may read them, and the JSON access log.

The attacks: a visitor from elsewhere, or from the same host through a reverse proxy (whose
requests arrive from loopback), reading the deployment's insides without the token.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import orjson
import pytest
import sqlalchemy as sa
from prometheus_client.parser import text_string_to_metric_families

from atrium.chat import schema as chat_schema
from atrium.core import migrations
from atrium.core.db import Conn
from atrium.server import create_app
from atrium.settings import Settings
from tests.conftest import REDIS_URL, copy_sqlite_templates

pytestmark = pytest.mark.anyio

TOKEN = "s3cret-metrics-token-0123456789"
LOOPBACK = ("127.0.0.1", 40000)
ELSEWHERE = ("203.0.113.9", 40000)


@pytest.fixture
def settings(data_dir: Path, database_url: str | None, sqlite_templates: Path) -> Settings:
    if database_url is None:
        copy_sqlite_templates(sqlite_templates, data_dir)
        return Settings(data_dir=data_dir, migrate_on_start=False, metrics_token=TOKEN)
    # The session's PostgreSQL database has the chat's and core's schemas.
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=REDIS_URL,
        services=("chat",),
        migrate_on_start=False,
        metrics_token=TOKEN,
    )


class Clients:
    def __init__(self, app: object) -> None:
        self.app = app

    def __call__(self, client: tuple[str, int] = LOOPBACK) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, client=client)  # type: ignore[arg-type]
        return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080")


@pytest.fixture
async def clients(settings: Settings) -> AsyncIterator[Clients]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield Clients(app)


async def test_health_is_public(clients: Clients) -> None:
    async with clients(ELSEWHERE) as client:
        resp = await client.get("/health")
    assert resp.status_code == 200 and resp.json() == {"status": "ok"}


async def test_ready_checks_databases_redis_and_migrations(
    clients: Clients, settings: Settings
) -> None:
    async with clients() as client:
        resp = await client.get("/ready")
    assert resp.status_code == 200, resp.text
    expected = {"core": "ok", **dict.fromkeys(settings.services, "ok")}
    if settings.redis_url:
        expected["redis"] = "ok"
    assert resp.json() == {"status": "ready", "checks": expected}


async def test_ready_fails_on_data_behind_the_code(data_dir: Path, sqlite_templates: Path) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir)
    conn = sqlite3.connect(data_dir / "chat.sqlite3")
    with conn:
        conn.execute("UPDATE alembic_version_chat SET version_num = '0011'")
    conn.close()
    app = create_app(Settings(data_dir=data_dir, migrate_on_start=False))
    async with app.router.lifespan_context(app), Clients(app)() as client:
        resp = await client.get("/ready")
    assert resp.status_code == 503
    (head,) = migrations.code_heads("chat")
    assert resp.json()["checks"]["chat"] == f"migrations: at 0011, expected {head}"


@pytest.mark.parametrize("path", ["/ready", "/metrics"])
async def test_insides_refused_to_others_without_the_token(clients: Clients, path: str) -> None:
    async with clients(ELSEWHERE) as client:
        assert (await client.get(path)).status_code == 403
        wrong = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}x"})
        assert wrong.status_code == 403
        right = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 200
    async with clients() as client:
        # Through a reverse proxy on the same host: loopback socket, but a visitor's request.
        proxied = await client.get(path, headers={"X-Forwarded-For": "198.51.100.7"})
        assert proxied.status_code == 403
        assert (await client.get(path, headers={"X-Real-IP": "198.51.100.7"})).status_code == 403


async def test_metrics_parse_and_count(clients: Clients, settings: Settings) -> None:
    async with clients() as client:
        for _ in range(3):
            assert (await client.get("/api/v1/server_settings")).status_code == 200
        assert (await client.get("/no/such/page")).status_code == 404
        resp = await client.get("/metrics")
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/plain; version=")
    families = {f.name: f for f in text_string_to_metric_families(resp.text)}
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in families.values()
        for s in family.samples
    }
    key = (("method", "GET"), ("route", "/api/v1/server_settings"), ("status", "200"))
    assert samples[("atrium_http_requests_total", key)] == 3
    unmatched = (("method", "GET"), ("route", "unmatched"), ("status", "404"))
    assert samples[("atrium_http_requests_total", unmatched)] == 1
    count = ("atrium_http_request_duration_seconds_count", key[:2])
    assert samples[count] == 3
    assert families["atrium_http_request_duration_seconds"].type == "histogram"
    assert samples[("process_resident_memory_bytes", ())] > 0
    assert samples[("atrium_asyncio_tasks", ())] >= 1
    assert ("atrium_worker_threads_busy", (("pool", "cpu"),)) in samples
    assert any(name == "atrium_cache_bytes" for name, _ in samples)
    if settings.is_postgres:
        pool = ("atrium_db_pool", (("figure", "pool_size"), ("service", "chat")))
        assert samples[pool] >= 1
    else:
        # Event queues in this process (the embedded mode); in Redis they are Redis's to count.
        assert samples[("atrium_event_queues", ())] == 0


async def test_json_access_log_carries_the_request_id(
    data_dir: Path, sqlite_templates: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_sqlite_templates(sqlite_templates, data_dir)
    app = create_app(Settings(data_dir=data_dir, migrate_on_start=False, log_format="json"))
    async with app.router.lifespan_context(app), Clients(app)() as client:
        given = await client.get(
            "/api/v1/server_settings?api_key=do-not-log",
            headers={"X-Request-Id": "req-12345678"},
        )
        made = await client.get("/health", headers={"X-Request-Id": "bad id <script>"})
    lines = [orjson.loads(line) for line in capsys.readouterr().err.splitlines() if line]
    assert given.headers["x-request-id"] == "req-12345678"
    assert made.headers["x-request-id"] not in ("bad id <script>", "")
    first, second = lines[-2:]
    assert first["request_id"] == "req-12345678" and first["status"] == 200
    assert first["path"] == "/api/v1/server_settings" and "do-not-log" not in str(first)
    assert first["route"] == "/api/v1/server_settings"
    assert second["request_id"] == made.headers["x-request-id"] and second["route"] == "/health"


async def test_metrics_show_the_mail_waiting_in_the_outbox(
    clients: Clients, settings: Settings
) -> None:
    """A mail the mail server has not taken (due in an hour, so the sender leaves it) shows in
    the outbox's figures with its age."""
    runtime = clients.app.state.services["chat"].state["runtime"]  # type: ignore[attr-defined]
    now = time.time()

    def enqueue(conn: Conn) -> None:
        conn.execute(
            sa.insert(chat_schema.mail_outbox).values(
                message_id="<stuck@atrium.test>",
                sender="noreply@atrium.test",
                recipient="someone@atrium.test",
                message="Subject: stuck\r\n\r\nwaiting\r\n",
                created=now - 120,
                due=now + 3600,
                attempts=3,
            )
        )

    async with clients() as client:
        before = _samples((await client.get("/metrics")).text)
        await runtime.db.write(enqueue)
        after = _samples((await client.get("/metrics")).text)
    chat = (("service", "chat"),)
    assert before[("atrium_mail_outbox_unsent", chat)] == 0
    assert before[("atrium_mail_outbox_oldest_seconds", chat)] == 0
    assert after[("atrium_mail_outbox_unsent", chat)] == 1
    assert after[("atrium_mail_outbox_oldest_seconds", chat)] >= 120
    if "wiki" in settings.services:
        assert after[("atrium_mail_outbox_unsent", (("service", "wiki"),))] == 0


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
