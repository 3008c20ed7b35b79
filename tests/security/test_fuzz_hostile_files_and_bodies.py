"""The security review's request classes, generated: script uploads to the wiki under every
name and declared type (the chat's are in `test_fuzz_chat_uploads.py`), and huge, lying and
slow bodies against a real server.

A generated upload may be refused (in the protocol's own error) or stored, but a stored file is
never served where it can run: the answer carries `nosniff` and a sandboxing CSP, and anything
outside the inline allowlist is an attachment. A hostile body never gets a 5xx, and while many
such bodies are open the server keeps answering others at once.
`ATRIUM_FUZZ_REQUESTS` scales the number of cases (`make fuzz`), `ATRIUM_FUZZ_SEED` the seed.
"""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.server import LiveServer
from tests.security.test_body_limits import live
from tests.security.test_wiki_uploads import png
from tests.wiki.conftest import WikiHarness, client, wiki

pytestmark = [pytest.mark.anyio, pytest.mark.fuzz]
__all__ = ["client", "live", "wiki"]

REQUESTS = int(os.environ.get("ATRIUM_FUZZ_REQUESTS", "2000"))
SEED = int(os.environ.get("ATRIUM_FUZZ_SEED", "1839"))
UPLOADS = max(12, REQUESTS // 80)
BODIES = max(8, REQUESTS // 200)

# Types a browser may show inline from our origin without running anything: Zulip's inline list
# (the wiki's is the raster part of it).
INLINE = {
    "image/png", "image/gif", "image/jpeg", "image/webp", "image/apng", "image/avif",
    "text/plain", "application/pdf",
}  # fmt: skip

SCRIPT = b"<script>fetch('/json/users/me').then(r=>r.text()).then(alert)</script>"
CONTENTS: dict[str, bytes] = {
    "html": b"<!DOCTYPE html><html><body>" + SCRIPT + b"</body></html>",
    "bare script": SCRIPT,
    "svg": b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    "svg onload": b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
    "xhtml": b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">'
    + SCRIPT
    + b"</html>",
    "xml stylesheet": b'<?xml-stylesheet type="text/xsl" href="data:,x"?><x/>',
    "gif polyglot": b"GIF89a\x01\x00\x01\x00\x00\x00\x00;" + SCRIPT,
    "png then html": png(2, 2) + b"<html>" + SCRIPT,
    "javascript": b"alert(document.cookie)",
    "php": b"<?php system($_GET['c']); ?>",
    "pdf": b"%PDF-1.4\n1 0 obj<</OpenAction<</JS(app.alert(1))/S/JavaScript>>>>endobj",
    "real png": png(3, 3),
}
NAMES = [
    "x.html", "x.htm", "x.svg", "x.xhtml", "x.xml", "x.png", "x.gif", "x.jpg", "x.js", "x.php",
    "x.txt", "x.pdf", "x.PNG", "x.png.html", "x.html.png", "x", "x.shtml", "x.svgz", "x.webp",
]  # fmt: skip
DECLARED = [
    "text/html", "image/svg+xml", "image/png", "application/octet-stream", "text/plain",
    "application/javascript", "", "image/gif; charset=utf-8",
]  # fmt: skip


def _cases(rng: random.Random, count: int) -> Iterator[tuple[str, str, bytes, str]]:
    for i in range(count):
        kind = rng.choice(list(CONTENTS))
        stem, _, ext = rng.choice(NAMES).partition(".")
        name = f"Fuzz{i}{stem[1:]}.{ext}" if ext else f"Fuzz{i}"
        yield kind, name, CONTENTS[kind], rng.choice(DECLARED)


def _served_safely(response: httpx.Response, case: str) -> None:
    assert response.status_code < 500, case
    if response.status_code != 200:
        return
    headers = response.headers
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    assert headers.get("x-content-type-options") == "nosniff", (case, dict(headers))
    assert "sandbox" in headers.get("content-security-policy", ""), (case, dict(headers))
    if kind not in INLINE and not kind.startswith(("audio/", "video/")):
        assert headers.get("content-disposition", "").startswith("attachment"), (
            case,
            dict(headers),
        )


@pytest.fixture
def service_under_test() -> str:
    """The database these tests get is the wiki's."""
    return "wiki"


async def test_generated_script_uploads_to_the_wiki(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    rng = random.Random(SEED)
    stored = 0
    for kind, name, data, declared in _cases(rng, UPLOADS):
        case = f"{kind} as {name} ({declared})"
        response = await client.post(
            "/w/api.php",
            data={"action": "upload", "filename": name, "token": token, "format": "json",
                  "ignorewarnings": "1"},
            files={"file": (name, data, declared or "application/octet-stream")},
        )  # fmt: skip
        assert response.status_code == 200, case
        result = response.json()
        if "error" in result:
            assert result["error"]["code"] in {
                "verification-error", "filetype-banned", "empty-file", "illegal-filename",
                "filetype-missing", "fileexists-no-change", "badupload",
            }, (case, result)  # fmt: skip
            continue
        assert result["upload"]["result"] == "Success", (case, result)
        stored += 1
        # A stored file is a verified raster image whatever its name claimed.
        assert kind in {"real png", "png then html", "gif polyglot"}, (case, result)
        _served_safely(await client.get(result["upload"]["imageinfo"]["url"]), case)
    assert stored < UPLOADS


# --- huge, lying and slow bodies against a real server ------------------------------------------

ROUTES = [
    b"/w/api.php?format=json", b"/w/index.php?title=Special:UserLogin", b"/api/v1/messages",
    b"/json/messages", b"/login/", b"/api/v1/user_uploads",
]  # fmt: skip


KINDS = ["huge declared", "lying length", "chunked flood", "trickle", "truncated"]


def _hostile_body(kind: str, route: bytes) -> tuple[str, bytes, list[bytes], float]:
    """A request head, the pieces sent after it, and the pause between pieces."""
    mode = f"{kind} to {route.decode()}"
    base = b"POST " + route + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    form = b"Content-Type: application/x-www-form-urlencoded\r\n"
    if kind == "huge declared":
        return mode, base + form + b"Content-Length: 68719476736\r\n\r\n", [b"a" * 65536] * 4, 0
    if kind == "lying length":
        return mode, base + form + b"Content-Length: 10\r\n\r\n", [b"a=1&" * 20000], 0
    if kind == "chunked flood":
        piece = b"%x\r\n" % 262144 + b"a" * 262144 + b"\r\n"
        return mode, base + form + b"Transfer-Encoding: chunked\r\n\r\n", [piece] * 64, 0
    if kind == "trickle":
        return mode, base + form + b"Content-Length: 100000\r\n\r\n", [b"a"] * 20, 0.05
    return mode, base + form + b"Content-Length: 1000\r\n\r\n", [b"a" * 10], 0


def _send(url: str, head: bytes, pieces: list[bytes], pause: float) -> int | None:
    """Send, then read the status line; None when the server closed without answering."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        try:
            sock.sendall(head)
            for piece in pieces:
                sock.sendall(piece)
                if pause:
                    time.sleep(pause)
            sock.shutdown(socket.SHUT_WR)
        except OSError:  # the server answered and closed before the body was sent
            pass
        answer = b""
        try:
            while b"\r\n" not in answer:
                part = sock.recv(4096)
                if not part:
                    break
                answer += part
        except OSError:
            return None
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else None


def test_hostile_bodies_get_4xx_and_never_hold_the_server(live: LiveServer) -> None:
    rng = random.Random(SEED + 2)
    # Every kind on every route once (a client leaving mid-body made two routes fail), then
    # random ones.
    cases = [_hostile_body(kind, route) for kind in KINDS for route in ROUTES]
    cases += [_hostile_body(rng.choice(KINDS), rng.choice(ROUTES)) for _ in range(BODIES)]
    answers: list[tuple[str, int | None]] = []

    def run(case: tuple[str, bytes, list[bytes], float]) -> None:
        mode, head, pieces, pause = case
        answers.append((mode, _send(live.url, head, pieces, pause)))

    threads = [threading.Thread(target=run, args=(case,)) for case in cases]
    for thread in threads:
        thread.start()
    # While they are all open, a plain request is answered at once.
    started = time.monotonic()
    quick = httpx.get(live.url + "/api/v1/server_settings", timeout=10)
    assert quick.status_code == 200
    assert time.monotonic() - started < 2.0
    for thread in threads:
        thread.join(30)
    assert len(answers) == len(cases)
    # Refusals come as 4xx (`test_body_limits.py` checks which); a route that redirects or
    # refuses before reading the body may answer first, and a lying length ends the request
    # early (what follows is read as the next one). Never a 5xx.
    for mode, status in answers:
        assert status is None or status < 500, (mode, status)
    assert httpx.get(live.url + "/api/v1/server_settings", timeout=10).status_code == 200
