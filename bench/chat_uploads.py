"""File transfer: `POST /api/v1/user_uploads` and `GET /user_uploads/…` of a 10 MB file.

One connection, files sent one after another (the figure is the time of one large transfer, and
its throughput in MB/s). While they run, the server's resident memory (every process of its
group, from /proc) is sampled every 10 ms: streaming is what keeps it flat, so the peak above the
idle figure is reported beside the throughput. Each upload has new random content, so that the
content-addressed store writes every one.
"""

from __future__ import annotations

import base64
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console

from bench.chat import atrium_server
from bench.harness import (
    BenchError,
    Measurement,
    PeakSampler,
    Row,
    RunResult,
    ScenarioResult,
    Settings,
    atrium_cli,
    running,
)

FAMILY = "chat_uploads"
CONNECTIONS = (1,)
FILE_BYTES = 10 * 1024 * 1024
FILES_PER_RUN = 5
EMAIL = "uploader@uploads-bench.example"


def group_rss_bytes(pgid: int) -> int:
    """Resident memory of every process in the group (a granian supervisor and its worker)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[2]) != pgid:  # field 5, pgrp, counted after the command name
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return total


def _run(timings: list[float], bytes_moved: int) -> RunResult:
    ordered = sorted(timings)
    return RunResult(
        requests=len(timings),
        errors=0,
        seconds=sum(timings),
        p50_ms=statistics.median(ordered) * 1000,
        p99_ms=ordered[-1] * 1000,
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    console.rule("chat_uploads: POST /user_uploads and GET /user_uploads of 10 MB files")
    work = Path(tempfile.mkdtemp(prefix="atrium-bench-uploads-"))
    data_dir = work / "data"
    atrium_cli(data_dir, "chat", "create-realm", "--name", "Uploads Bench")
    atrium_cli(data_dir, "chat", "create-user", "--email", EMAIL, "--full-name", "Up Loader")
    key = next(
        line.split("=", 1)[1]
        for line in atrium_cli(data_dir, "chat", "api-key", EMAIL).splitlines()
        if line.startswith("key=")
    )
    token = base64.b64encode(f"{EMAIL}:{key}".encode()).decode()
    headers = {"Authorization": f"Basic {token}"}
    source = work / "payload.bin"
    server, served_by = atrium_server(data_dir)
    up_runs: list[RunResult] = []
    down_runs: list[RunResult] = []
    with running(server), httpx.Client(base_url=server.base_url, timeout=120) as client:
        assert server.proc is not None
        pgid = server.proc.pid
        idle = group_rss_bytes(pgid)
        uris: list[str] = []
        with PeakSampler(lambda: group_rss_bytes(pgid), 0.01) as up_rss:
            for _ in range(settings.runs):
                timings = []
                for _ in range(FILES_PER_RUN):
                    source.write_bytes(os.urandom(FILE_BYTES))
                    with source.open("rb") as f:
                        started = time.perf_counter()
                        resp = client.post(
                            "/api/v1/user_uploads",
                            files={"file": ("payload.bin", f)},
                            headers=headers,
                        )
                        timings.append(time.perf_counter() - started)
                    if resp.status_code != 200:
                        raise BenchError(f"upload failed: {resp.status_code} {resp.text[:200]}")
                    uris.append(resp.json()["uri"])
                up_runs.append(_run(timings, FILE_BYTES * FILES_PER_RUN))
                console.print(f"  upload run: {statistics.median(timings) * 1000:.0f} ms per file")
        with PeakSampler(lambda: group_rss_bytes(pgid), 0.01) as down_rss:
            for _ in range(settings.runs):
                timings = []
                for uri in uris[:FILES_PER_RUN]:
                    started = time.perf_counter()
                    received = 0
                    with client.stream("GET", uri, headers=headers) as resp:
                        for chunk in resp.iter_bytes(256 * 1024):
                            received += len(chunk)
                    timings.append(time.perf_counter() - started)
                    if resp.status_code != 200 or received != FILE_BYTES:
                        raise BenchError(f"download failed: {resp.status_code}, {received} bytes")
                down_runs.append(_run(timings, FILE_BYTES * FILES_PER_RUN))
                console.print(
                    f"  download run: {statistics.median(timings) * 1000:.0f} ms per file"
                )
    upload = Measurement("POST /user_uploads, 10 MB, 1 connection", 1, up_runs)
    download = Measurement("GET /user_uploads/…, 10 MB, 1 connection", 1, down_runs)
    mb = FILE_BYTES / 1e6

    def notes(m: Measurement, peak: int) -> list[str]:
        return [
            f"throughput: {mb / (m.p50_ms / 1000):,.0f} MB/s per file at the median "
            f"({m.p50_ms:,.0f} ms for {mb:.1f} MB)",
            f"server memory: {idle / 1e6:,.0f} MB idle, peak {peak / 1e6:,.0f} MB while "
            f"transferring ({(peak - idle) / 1e6:+,.1f} MB; the file is {mb:.1f} MB)",
        ]

    described = (
        f"one connection, {FILES_PER_RUN} files per run, {settings.runs} runs, new random "
        f"content per upload; req/s is files per second. Served by {served_by}."
    )
    return [
        ScenarioResult(
            family=FAMILY,
            key="upload",
            title="Upload a 10 MB file",
            description=f"`POST /api/v1/user_uploads` (multipart) of {mb:.1f} MB; {described}",
            rows=[Row(upload)],
            notes=notes(upload, up_rss.peak),
        ),
        ScenarioResult(
            family=FAMILY,
            key="download",
            title="Download a 10 MB file",
            description=f"`GET /user_uploads/…` (HTTP Basic, streamed) of {mb:.1f} MB; {described}",
            rows=[Row(download)],
            notes=notes(download, down_rss.peak),
        ),
    ]
