"""`/metrics` of a scale-out `atrium serve --workers 2` (PostgreSQL and Redis): whichever worker
answers a scrape, it counts the requests both workers answered, and shows both workers' process
figures; `/ready` and `/metrics` keep their access rules there.

The attack: a visitor through a reverse proxy on the same host (its requests arrive from
loopback) reading the deployment's insides without the token.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import REDIS_URL, PostgresServer, require_redis
from tests.e2e.server import LiveServer, atrium_env, running_server

# PostgreSQL is marked by tests/conftest.py (the `postgres_server` fixture).
pytestmark = [pytest.mark.e2e, pytest.mark.redis]

TOKEN = "metrics-token-for-two-workers-0123"
ROUTE = "/api/v1/server_settings"
SENT = 60

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture(scope="module")
def two_workers(
    postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    require_redis(REDIS_URL)
    url = postgres_server.new_database("chat")
    data_dir = tmp_path_factory.mktemp("metrics-workers") / "data"
    data_dir.mkdir()
    env = atrium_env(
        data_dir,
        url,
        ATRIUM_REDIS_URL=REDIS_URL,
        ATRIUM_SERVICES="chat",
        ATRIUM_METRICS_TOKEN=TOKEN,
        ATRIUM_RATE_LIMITS="0",
    )
    try:
        # Ready on /health: the requests the test counts are all its own.
        with running_server(env, "/health", serve_args=("--workers", "2")) as server:
            yield server
    finally:
        postgres_server.drop(url)


def scrape(site: str) -> Samples:
    # A new connection each time: granian's workers take turns accepting them.
    resp = httpx.get(f"{site}/metrics", timeout=10)
    assert resp.status_code == 200, resp.text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(resp.text)
        for s in family.samples
    }


def worker_pids(samples: Samples) -> set[str]:
    return {
        dict(labels)["pid"]
        for name, labels in samples
        if name == "process_resident_memory_bytes" and samples[(name, labels)] > 0
    }


def test_every_scrape_counts_every_workers_requests(two_workers: LiveServer) -> None:
    site = two_workers.url
    # Both workers are up once both publish their figures (the second may still be starting).
    deadline = time.monotonic() + 30
    while len(worker_pids(samples := scrape(site))) < 2:
        assert time.monotonic() < deadline, f"one worker's figures only: {worker_pids(samples)}"
        time.sleep(0.2)
    metrics_key = (("method", "GET"), ("route", "/metrics"), ("status", "200"))
    scraped_before = samples.get(("atrium_http_requests_total", metrics_key), 0)

    def get(_n: int) -> int:
        return httpx.get(f"{site}{ROUTE}", timeout=10).status_code

    # Concurrent clients on new connections, so that both workers answer some.
    with ThreadPoolExecutor(max_workers=6) as pool:
        assert set(pool.map(get, range(SENT))) == {200}
    key = (("method", "GET"), ("route", ROUTE), ("status", "200"))
    scrapes = 10
    for n in range(scrapes):
        samples = scrape(site)
        assert samples[("atrium_http_requests_total", key)] == SENT
        assert samples[("atrium_http_request_duration_seconds_count", key[:2])] == SENT
        buckets = [v for (name, labels), v in samples.items() if name.endswith("_bucket")]
        assert buckets and max(buckets) >= SENT  # the +Inf bucket holds them all
        # The scrapes before this one, answered by either worker, are counted too.
        assert samples[("atrium_http_requests_total", metrics_key)] == scraped_before + 1 + n
        assert len(worker_pids(samples)) == 2
        # Summed over the live workers: this scrape is the one request in progress.
        assert samples[("atrium_http_requests_in_progress", ())] == 1
        # The services' figures, summed over the workers: each has its own connection pool.
        assert ("atrium_worker_threads_busy", (("pool", "cpu"),)) in samples
        pool_size = ("atrium_db_pool", (("figure", "pool_size"), ("service", "chat")))
        assert samples[pool_size] >= 2
        # The outbox is the shared database's: the same for every worker, not summed.
        assert samples[("atrium_mail_outbox_unsent", (("service", "chat"),))] == 0


def test_ready_and_metrics_keep_their_access_rules(two_workers: LiveServer) -> None:
    site = two_workers.url
    ready = httpx.get(f"{site}/ready", timeout=10)
    assert ready.status_code == 200, ready.text
    assert ready.json() == {
        "status": "ready",
        "checks": {"core": "ok", "chat": "ok", "redis": "ok"},
    }
    for path in ("/ready", "/metrics"):
        # Through a reverse proxy on this host: a loopback socket, but a visitor's request.
        for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded"):
            proxied = httpx.get(f"{site}{path}", headers={header: "198.51.100.7"}, timeout=10)
            assert proxied.status_code == 403, (path, header)
            assert "ATRIUM_METRICS_TOKEN" in proxied.text
        wrong = httpx.get(
            f"{site}{path}",
            headers={"X-Forwarded-For": "198.51.100.7", "Authorization": f"Bearer {TOKEN}x"},
            timeout=10,
        )
        assert wrong.status_code == 403
        right = httpx.get(
            f"{site}{path}",
            headers={"X-Forwarded-For": "198.51.100.7", "Authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        assert right.status_code == 200
    assert httpx.get(f"{site}/health", headers={"X-Forwarded-For": "198.51.100.7"}).json() == {
        "status": "ok"
    }
