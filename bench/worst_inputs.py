"""The worst inputs an attacker sends, one at a time, while a bystander asks the chat for its
settings: does any single request hold the server, or swell its memory?

Each scenario runs one attack for a few seconds against a fresh `atrium serve` (rate limits
lifted, so the attack is not simply refused) while a probe thread sends
`GET /api/v1/server_settings` back to back; the row's latencies are the probe's. The attacks:

- `template-bomb`: `action=parse` of `{{L6}}`, where `Template:L<i>` calls `L<i-1>` ten times;
- `argument-doubling`: `{{Arg|{{Arg|…x…}}}}` eight deep, `Template:Arg` repeating `{{{1}}}` ten
  times (a 65-byte request that once answered 100 MB);
- `largest-image`: a thumbnail of the largest image the scaling cap accepts (3,500 × 3,500 px);
- `markdown-links`: `POST /messages/render` of `[](` × 3,333;
- `sign-ins`: 16 concurrent `fetch_api_key` calls with the right password (argon2 each);
- `huge-body`: a 1 GiB body to `api.php`, streamed.

Memory is the peak PSS of the server's process group (sampled every 50 ms) over its idle PSS
before the attack. Password hashing may hold the pool's threads' argon2 memory at once, so the
growth allowed is 64 MB beyond `pool size × argon2 memory cost`.
"""

from __future__ import annotations

import base64
import socket
import statistics
import struct
import tempfile
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from rich.console import Console

from bench.harness import (
    HOST,
    BenchError,
    CpuMeter,
    Measurement,
    PeakSampler,
    Row,
    RunResult,
    ScenarioResult,
    Server,
    Settings,
    Target,
    atrium_cli,
    atrium_command,
    free_port,
    group_memory,
    running,
    wait_for_quiet,
)

FAMILY = "worst_inputs"
CONNECTIONS = (1,)
P99_TARGET_MS = 100.0
ATTACK_SECONDS = 4.0
POOL_THREADS = 2
ARGON2_MEMORY_MB = 64 * 1024 * 1024 / 1e6  # argon2-cffi's default memory_cost, 65,536 KiB
GROWTH_LIMIT_MB = 64 + POOL_THREADS * ARGON2_MEMORY_MB
EMAIL = "probe@worst-inputs.example"
PASSWORD = "worst-inputs-password"
WIKI_ADMIN = "Benchadmin"
IMAGE_SIDE = 3_500
BODY_BYTES = 1 << 30


def _png(side: int) -> bytes:
    """A solid-colour PNG of `side` × `side` pixels: small on disk, large once decoded."""
    packer = zlib.compressobj(9)
    row = b"\x00" + b"\xc8\x1e\x1e" * side
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


class Probe:
    """`GET /api/v1/server_settings` back to back on one connection, timing each."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.latencies: list[float] = []
        self.errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=60) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    ok = client.get("/api/v1/server_settings").status_code == 200
                except httpx.HTTPError:
                    ok = False
                self.latencies.append(time.perf_counter() - started)
                self.errors += not ok
                time.sleep(0.005)

    def __enter__(self) -> Probe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Attack:
    key: str
    title: str
    send: Callable[[], str]  # one round of the attack; returns what the server answered


class Wiki:
    """An api.php client signed in as an administrator, for setting up and sending the attacks."""

    def __init__(self, base_url: str) -> None:
        self.client = httpx.Client(base_url=base_url, timeout=600)

    def token(self, kind: str) -> str:
        resp = self.client.get(
            "/w/api.php",
            params={"action": "query", "meta": "tokens", "type": kind, "format": "json"},
        )
        return str(resp.json()["query"]["tokens"][f"{kind}token"])

    def login(self, name: str, password: str) -> None:
        answer = self.client.post(
            "/w/api.php",
            data={
                "action": "login",
                "lgname": name,
                "lgpassword": password,
                "lgtoken": self.token("login"),
                "format": "json",
            },
        ).json()
        if answer.get("login", {}).get("result") != "Success":
            raise BenchError(f"wiki login failed: {answer}")

    def edit(self, title: str, text: str) -> None:
        answer = self.client.post(
            "/w/api.php",
            data={
                "action": "edit",
                "title": title,
                "text": text,
                "token": self.token("csrf"),
                "format": "json",
            },
        ).json()
        if answer.get("edit", {}).get("result") != "Success":
            raise BenchError(f"editing {title} failed: {answer}")

    def parse(self, text: str) -> str:
        resp = self.client.post(
            "/w/api.php",
            data={"action": "parse", "text": text, "contentmodel": "wikitext", "format": "json"},
        )
        return f"{resp.status_code}, {len(resp.content):,} bytes"

    def upload(self, name: str, content: bytes) -> None:
        answer = self.client.post(
            "/w/api.php",
            data={
                "action": "upload",
                "filename": name,
                "ignorewarnings": "1",
                "token": self.token("csrf"),
                "format": "json",
            },
            files={"file": (name, content, "image/png")},
        ).json()
        if answer.get("upload", {}).get("result") != "Success":
            raise BenchError(f"uploading {name} failed: {answer}")

    def thumb_url(self, name: str, width: int) -> str:
        answer = self.client.get(
            "/w/api.php",
            params={
                "action": "query",
                "prop": "imageinfo",
                "titles": f"File:{name}",
                "iiprop": "url",
                "iiurlwidth": str(width),
                "format": "json",
            },
        ).json()
        page = next(iter(answer["query"]["pages"].values()))
        return str(page["imageinfo"][0].get("thumburl") or page["imageinfo"][0]["url"])


def _huge_body(port: int) -> str:
    """Stream a 1 GiB urlencoded body to api.php; stop when the server answers or hangs up."""
    with socket.create_connection((HOST, port), timeout=60) as sock:
        head = (
            f"POST /w/api.php HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {BODY_BYTES}\r\n\r\naction=query&x="
        )
        sock.sendall(head.encode())
        chunk = b"a" * (1 << 20)
        sent = 0
        try:
            while sent < BODY_BYTES - len(chunk):
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        sock.settimeout(30)
        try:
            status = sock.recv(64).split(b"\r\n", 1)[0].decode(errors="replace")
        except OSError as exc:
            status = f"connection closed ({type(exc).__name__})"
        return f"{status or 'connection closed'} after {sent / (1 << 20):,.0f} MiB sent"


def _attacks(server: Server, wiki: Wiki, chat_auth: dict[str, str]) -> list[Attack]:
    base = server.base_url
    for i in range(7):
        text = "lol" if i == 0 else f"{{{{L{i - 1}}}}}" * 10
        wiki.edit(f"Template:L{i}", text)
    wiki.edit("Template:Arg", "{{{1}}}" * 10)
    wiki.upload("Largest.png", _png(IMAGE_SIDE))
    widths = iter(range(1200, 200, -20))

    def bomb() -> str:
        return wiki.parse("{{L6}}")

    def doubling() -> str:
        return wiki.parse("{{Arg|" * 8 + "x" + "}}" * 8)

    def image() -> str:
        # A new width each round, so that each round scales instead of reading the cache.
        url = wiki.thumb_url("Largest.png", next(widths))
        resp = wiki.client.get(url)
        return f"{resp.status_code}, {len(resp.content):,} bytes"

    def markdown() -> str:
        resp = httpx.post(
            base + "/api/v1/messages/render",
            data={"content": ("[](" * 3_400)[:10_000]},
            headers=chat_auth,
            timeout=600,
        )
        return f"{resp.status_code}, {len(resp.content):,} bytes"

    def sign_ins() -> str:
        answers: list[int] = []

        def one() -> None:
            resp = httpx.post(
                base + "/api/v1/fetch_api_key",
                data={"username": EMAIL, "password": PASSWORD},
                timeout=600,
            )
            answers.append(resp.status_code)

        threads = [threading.Thread(target=one) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return "statuses " + ", ".join(sorted({str(a) for a in answers}))

    return [
        Attack("template-bomb", "action=parse of {{L6}} (10^6 template calls)", bomb),
        Attack("argument-doubling", "action=parse of {{Arg|…}} eight deep", doubling),
        Attack("largest-image", f"thumbnail of a {IMAGE_SIDE} × {IMAGE_SIDE} PNG", image),
        Attack("markdown-links", "POST /messages/render of `[](` × 3,333", markdown),
        Attack("sign-ins", "16 concurrent fetch_api_key (argon2)", sign_ins),
        Attack("huge-body", "a 1 GiB body to api.php", lambda: _huge_body(server.port)),
    ]


def _measure(server: Server, attack: Attack, console: Console) -> tuple[Row, list[str]]:
    assert server.proc is not None
    pgid = server.proc.pid
    wait_for_quiet()
    idle = group_memory(pgid).pss_bytes
    answers: list[str] = []
    rounds: list[float] = []
    with (
        CpuMeter(pgid) as meter,
        PeakSampler(lambda: group_memory(pgid).pss_bytes, 0.05) as memory,
        Probe(server.base_url) as probe,
    ):
        time.sleep(0.2)  # the probe's quiet baseline
        deadline = time.monotonic() + ATTACK_SECONDS
        while time.monotonic() < deadline:
            started = time.perf_counter()
            answers.append(attack.send())
            rounds.append(time.perf_counter() - started)
        time.sleep(0.2)
    if not probe.latencies:
        raise BenchError(f"{attack.key}: the probe got no answer")
    ordered = sorted(probe.latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    run = RunResult(
        requests=len(ordered),
        errors=probe.errors,
        seconds=sum(ordered),
        p50_ms=statistics.median(ordered) * 1000,
        p99_ms=p99 * 1000,
    )
    growth = (memory.peak - idle) / 1e6
    console.print(
        f"  {attack.key:<18} {len(rounds)} round(s), server_settings p50 {run.p50_ms:.1f} ms "
        f"p99 {run.p99_ms:.1f} ms, PSS +{growth:.1f} MB; answer: {answers[-1]}"
    )
    m = Measurement(attack.title, 1, [run], other_cores=[meter.other_cores])
    missed = () if growth <= GROWTH_LIMIT_MB else ("memory",)
    notes = [
        f"attack: {len(rounds)} round(s) in {sum(rounds):.1f} s, median "
        f"{statistics.median(rounds) * 1000:,.0f} ms each; the server answered: {answers[-1]}",
        f"server memory (PSS of its process group): {idle / 1e6:,.0f} MB idle, peak "
        f"{memory.peak / 1e6:,.0f} MB ({growth:+,.1f} MB; allowed {GROWTH_LIMIT_MB:,.0f} MB: "
        f"64 MB plus {POOL_THREADS} pool threads × {ARGON2_MEMORY_MB:.0f} MB of argon2) — "
        + ("**pass**" if growth <= GROWTH_LIMIT_MB else "**FAIL**"),
    ]
    return Row(m, (Target("p99_ms", P99_TARGET_MS),), missed), notes


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    console.rule("worst_inputs: one attack at a time, server_settings latency and memory")
    work = Path(tempfile.mkdtemp(prefix="atrium-bench-worst-"))
    data_dir = work / "data"
    atrium_cli(data_dir, "chat", "create-realm", "--name", "Worst Inputs")
    atrium_cli(
        data_dir, "chat", "create-user", "--email", EMAIL, "--full-name", "Pro Be",
        "--password", PASSWORD,
    )  # fmt: skip
    key = next(
        line.split("=", 1)[1]
        for line in atrium_cli(data_dir, "chat", "api-key", EMAIL).splitlines()
        if line.startswith("key=")
    )
    chat_auth = {"Authorization": "Basic " + base64.b64encode(f"{EMAIL}:{key}".encode()).decode()}
    atrium_cli(
        data_dir, "wiki", "create-user", WIKI_ADMIN, "--password", PASSWORD, "--groups", "sysop"
    )
    port = free_port()
    argv, served_by = atrium_command(port)
    env = {
        "ATRIUM_DATA_DIR": str(data_dir),
        "ATRIUM_RATE_LIMITS": "0",
        "ATRIUM_WORKER_THREADS": str(POOL_THREADS),
    }
    server = Server("atrium", argv, port, "/api/v1/server_settings", env)
    results = []
    with running(server):
        wiki = Wiki(server.base_url)
        wiki.login(WIKI_ADMIN, PASSWORD)
        for attack in _attacks(server, wiki, chat_auth):
            row, notes = _measure(server, attack, console)
            results.append(
                ScenarioResult(
                    family=FAMILY,
                    key=attack.key,
                    title=f"{attack.title}, with server_settings alongside",
                    description=(
                        f"{attack.title}, repeated for {ATTACK_SECONDS:.0f} s (at least once) "
                        "while one connection sends `GET /api/v1/server_settings` back to back; "
                        f"the figures are the probe's. Rate limits lifted. Served by {served_by}."
                    ),
                    rows=[row],
                    notes=notes,
                )
            )
    return results
