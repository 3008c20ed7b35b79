"""Request bodies are bounded on every route of both services before they are read.

The attack: an anonymous POST of a huge body to api.php (1 GiB in the review) was read whole into
memory, and the worker grew by gigabytes. Now a body over the bound is refused by its declared
length before any of it is read, and a chunked one as soon as the bytes received pass the bound;
each protocol answers in its own format.
"""

from __future__ import annotations

import select
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from atrium.server import create_app
from atrium.settings import Settings
from atrium.wiki.body_limits import PAGE_BODY_BYTES, max_upload_bytes
from tests.conftest import WORKSPACE_SERVICES, copy_sqlite_templates
from tests.e2e.server import LiveServer, atrium_env, running_server

pytestmark = pytest.mark.anyio

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture
async def client(data_dir: Path, sqlite_templates: Path) -> AsyncIterator[httpx.AsyncClient]:
    copy_sqlite_templates(sqlite_templates, data_dir, WORKSPACE_SERVICES)
    settings = Settings(
        data_dir=data_dir,
        port=8080,
        wiki_main_page=False,
        wiki_audience="edit",
        migrate_on_start=False,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 12345))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as c:
            yield c


async def _chunks(prefix: bytes, total: int) -> AsyncIterator[bytes]:
    yield prefix
    for _ in range(total // 65536 + 1):
        yield b"a" * 65536


async def test_api_php_refuses_a_urlencoded_body_over_the_page_bound(
    client: httpx.AsyncClient,
) -> None:
    body = b"action=query&x=" + b"a" * PAGE_BODY_BYTES
    # The format comes from the query string: the body that would name it is not read.
    resp = await client.post("/w/api.php?format=json", content=body, headers=FORM)
    assert resp.status_code == 413
    error = resp.json()["error"]
    assert error["code"] == "contenttoobig"
    assert "2,048 kibibytes" in error["info"]


async def test_api_php_refuses_a_chunked_body_over_the_bound(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/w/api.php?format=json",
        content=_chunks(b"action=query&x=", PAGE_BODY_BYTES),
        headers=FORM,
    )
    assert resp.status_code == 413
    assert resp.json()["error"]["code"] == "contenttoobig"


async def test_api_php_still_reads_a_body_under_the_bound(client: httpx.AsyncClient) -> None:
    body = b"action=query&meta=siteinfo&format=json&x=" + b"a" * (4 * 1024 * 1024)
    resp = await client.post("/w/api.php", content=body, headers=FORM)
    assert resp.status_code == 200
    assert "general" in resp.json()["query"]


async def test_index_php_refuses_a_body_over_the_bound_with_an_error_page(
    client: httpx.AsyncClient,
) -> None:
    body = b"title=Anything&wpTextbox1=" + b"a" * PAGE_BODY_BYTES
    resp = await client.post("/w/index.php?action=submit", content=body, headers=FORM)
    assert resp.status_code == 413
    assert resp.headers["content-type"].startswith("text/html")
    assert "exceeds the page size limit" in resp.text or "2,048 kibibytes" in resp.text
    assert "Internal error" not in resp.text


async def test_chat_sign_in_form_refuses_a_body_over_the_bound(client: httpx.AsyncClient) -> None:
    # Fields under the form parser's own bound (1 MiB each), together over the body's.
    body = b"&".join(b"f%d=" % i + b"a" * 1000 * 1024 for i in range(5))
    resp = await client.post("/login", content=body, headers=FORM)
    assert resp.status_code == 413


def test_general_setting_and_the_chat_name_as_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATRIUM_MAX_BODY_BYTES", raising=False)
    monkeypatch.setenv("ATRIUM_CHAT_MAX_BODY_BYTES", "1234")
    assert Settings.from_env().max_body_bytes == 1234
    monkeypatch.setenv("ATRIUM_MAX_BODY_BYTES", "5678")
    assert Settings.from_env().max_body_bytes == 5678


# --- against a real server: memory stays flat ---------------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir = tmp_path_factory.mktemp("body-limits")
    env = atrium_env(data_dir, None)
    with running_server(env, ready_path="/w/api.php") as server:
        yield server


def _group_rss_kib(pgid: int) -> int:
    """The resident memory of every process of the server's group (granian and its worker)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid:  # the process group
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def _send_until_answered(url: str, head: bytes, chunks: Iterator[bytes]) -> tuple[int, int]:
    """Send `head` then `chunks` until the server answers; the status and the bytes sent."""
    host, port = url.removeprefix("http://").split(":")
    sent = 0
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head)
        for chunk in chunks:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        answer = b""
        while b"\r\n" not in answer:
            part = sock.recv(4096)
            if not part:
                break
            answer += part
    return int(answer.split(b" ", 2)[1]), sent


def _chunked(total: int) -> Iterator[bytes]:
    piece = b"a" * (256 * 1024)
    yield b"%x\r\naction=query&x=\r\n" % len(b"action=query&x=")
    for _ in range(total // len(piece)):
        yield b"%x\r\n" % len(piece) + piece + b"\r\n"
    yield b"0\r\n\r\n"


def test_streamed_64_mib_body_is_refused_early_without_growing(live: LiveServer) -> None:
    before = _group_rss_kib(live.process.pid)
    assert before > 0
    head = (
        b"POST /w/api.php?format=json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    status, sent = _send_until_answered(live.url, head, _chunked(64 * 1024 * 1024))
    assert status == 413
    # Refused once past the bound (8 MiB and a little), not after the whole 64 MiB.
    assert sent < 32 * 1024 * 1024
    after = _group_rss_kib(live.process.pid)
    assert after - before < 48 * 1024, (before, after)


def test_declared_length_over_the_upload_bound_is_refused_before_reading(
    live: LiveServer,
) -> None:
    huge = 1024 * 1024 * 1024
    assert huge > max_upload_bytes()
    for content_type in (b"application/x-www-form-urlencoded", b"multipart/form-data; boundary=x"):
        head = (
            b"POST /w/api.php?format=json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: " + content_type + b"\r\nContent-Length: %d\r\n\r\n" % huge
        )
        status, sent = _send_until_answered(
            live.url, head, iter([b"action=query&x=" + b"a" * 65536] * 64)
        )
        assert status == 413
        assert sent < huge
