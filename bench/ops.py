"""Running it for a team: a backup of the 1,000,000-message organization while people write, and
the import of a Zulip organization export.

- `backup`: `atrium backup DEST` of a running server on a copy of the 1M-message data set
  (`bench.datasets.fetch_dataset`): its duration and size, and the p50/p99 of a send and of a
  fetch while it runs beside the same without it. One connection alternates a send
  (`POST /api/v1/messages` to one of the reader's streams) and a fetch (the newest 100 messages
  of a topic, rotating through the data set's 64 topics), each timed by an HTTP client (httpx),
  first for the run's duration without a backup, then for as long as the backup takes.
- `import`: `atrium chat import-zulip` of a generated Zulip 7.x export with 100,000 messages
  (`bench/generated_export.py`) into an empty data directory: messages per second over the
  whole command, and over its message-writing part.

The backup and the import are `atrium` commands in their own processes, as an operator runs
them; they are not pinned to a core (the server is).
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from rich.console import Console

from bench.chat import atrium_server, fetch_requests
from bench.datasets import SEED, Account, FetchDataset, fetch_dataset, message_text
from bench.harness import (
    DATA_DIR,
    REPO,
    BenchError,
    CpuMeter,
    Measurement,
    Row,
    RunResult,
    ScenarioResult,
    Settings,
    require_module,
    running,
    wait_for_quiet,
)

FAMILY = "ops"
CONNECTIONS: tuple[int, ...] = ()  # no load generator: timed by an HTTP client
IMPORT_MESSAGES = 100_000
SEND_TOPIC = "ops bench"


# --- The probe -----------------------------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float:
    """The value below which `share` of `values` lie (nearest rank; the largest for 1.0)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


@dataclass
class Timings:
    latencies: list[float] = field(default_factory=list)  # seconds
    errors: int = 0
    sample: str = ""

    def run(self, seconds: float) -> RunResult:
        if not self.latencies:
            raise BenchError(f"no request was answered ({self.sample or 'no sample'})")
        return RunResult(
            requests=len(self.latencies),
            errors=self.errors,
            seconds=seconds,
            p50_ms=statistics.median(self.latencies) * 1000,
            p99_ms=percentile(self.latencies, 0.99) * 1000,
            error_sample=self.sample,
        )


class SendFetchProbe:
    """One keep-alive connection alternating a send and a fetch until stopped, timing each."""

    def __init__(self, base_url: str, reader: Account, stream: str, fetch_paths: list[str]):
        self.base_url = base_url
        self.reader = reader
        self.stream = stream
        self.fetch_paths = fetch_paths
        self.send = Timings()
        self.fetch = Timings()
        self.seconds = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    @staticmethod
    def _time(
        timings: Timings, call: Callable[..., httpx.Response], *args: object, **kwargs: object
    ) -> None:
        started = time.perf_counter()
        try:
            answer = call(*args, **kwargs)
            ok = answer.status_code == 200 and answer.json().get("result") == "success"
            sample = "" if ok else f"{answer.status_code} {answer.text[:200]}"
        except httpx.HTTPError as exc:
            ok, sample = False, repr(exc)
        timings.latencies.append(time.perf_counter() - started)
        if not ok:
            timings.errors += 1
            timings.sample = timings.sample or sample

    def _loop(self) -> None:
        rng = random.Random(SEED + 31)
        texts = [message_text(rng) for _ in range(64)]
        auth = (self.reader.email, self.reader.api_key)
        with httpx.Client(base_url=self.base_url, auth=auth, timeout=120) as client:
            i = 0
            while not self._stop.is_set():
                data = {
                    "type": "stream",
                    "to": self.stream,
                    "topic": SEND_TOPIC,
                    "content": texts[i % len(texts)],
                }
                self._time(self.send, client.post, "/api/v1/messages", data=data)
                self._time(self.fetch, client.get, self.fetch_paths[i % len(self.fetch_paths)])
                i += 1

    def __enter__(self) -> SendFetchProbe:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.seconds = time.monotonic() - self._started


# --- Backup --------------------------------------------------------------------------------------


def copy_dataset(data: FetchDataset, work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for path in data.data_dir.iterdir():
        if path.is_file():
            shutil.copy(path, work / path.name)


def folder_size(path: Path) -> tuple[int, int]:
    """Bytes and files under `path`."""
    files = [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


@dataclass
class BackupRun:
    seconds: float
    size: int
    files: int
    quiet: SendFetchProbe
    during: SendFetchProbe
    quiet_other_cores: float
    other_cores: float  # during the backup, the backup's own process included


def atrium_backup(data_dir: Path, dest: Path) -> float:
    """`atrium backup DEST` on `data_dir`; the seconds it took."""
    env = {**os.environ, "ATRIUM_DATA_DIR": str(data_dir)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "atrium.cli", "backup", str(dest)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise BenchError(f"atrium backup failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds


def _backup_run(
    settings: Settings,
    base_url: str,
    pgid: int,
    data: FetchDataset,
    work: Path,
    fetch_paths: list[str],
    run: int,
    console: Console,
) -> BackupRun:
    stream = data.narrows[0].stream
    wait_for_quiet()
    with (
        CpuMeter(pgid) as quiet_meter,
        SendFetchProbe(base_url, data.reader, stream, fetch_paths) as quiet,
    ):
        time.sleep(settings.duration)
    dest = work.parent / f"{work.name}-backup-{run}"
    shutil.rmtree(dest, ignore_errors=True)
    try:
        with (
            CpuMeter(pgid) as meter,
            SendFetchProbe(base_url, data.reader, stream, fetch_paths) as during,
        ):
            seconds = atrium_backup(work, dest)
        size, files = folder_size(dest)
    finally:
        shutil.rmtree(dest, ignore_errors=True)
    result = BackupRun(
        seconds, size, files, quiet, during, quiet_meter.other_cores, meter.other_cores
    )
    console.print(
        f"  backup {run + 1}: {seconds:.1f} s, {size / 1e9:.2f} GB in {files} files; "
        f"send p50 {_p50(quiet.send)} → {_p50(during.send)}, fetch p50 {_p50(quiet.fetch)} → "
        f"{_p50(during.fetch)} ({len(during.send.latencies)} sends during the backup)"
    )
    return result


def _p50(timings: Timings) -> str:
    if not timings.latencies:
        return "none answered"
    return f"{statistics.median(timings.latencies) * 1000:.1f} ms"


def backup_scenario(settings: Settings, console: Console) -> ScenarioResult:
    console.rule(
        "ops / backup: `atrium backup` of the 1M-message set while sends and fetches go on"
    )
    data = fetch_dataset(console)
    work = DATA_DIR / f"work-{FAMILY}"
    console.print("Copying the data set…")
    copy_dataset(data, work)
    runs: list[BackupRun] = []
    try:
        server, served_by = atrium_server(work)
        with running(server):
            assert server.proc is not None
            paths = [
                r.path
                for r in fetch_requests(data.reader, [(n.stream, n.topic) for n in data.narrows])
            ]
            for run in range(settings.runs):
                runs.append(
                    _backup_run(
                        settings, server.base_url, server.proc.pid, data, work, paths, run, console
                    )
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def rows_of(kind: str) -> tuple[Measurement, Measurement]:
        quiet = Measurement(
            f"{kind}, no backup",
            1,
            [getattr(r.quiet, kind).run(r.quiet.seconds) for r in runs],
            other_cores=[r.quiet_other_cores for r in runs],
        )
        during = Measurement(
            f"{kind}, during the backup",
            1,
            [getattr(r.during, kind).run(r.during.seconds) for r in runs],
            other_cores=[r.other_cores for r in runs],
        )
        return quiet, during

    send_quiet, send_during = rows_of("send")
    fetch_quiet, fetch_during = rows_of("fetch")
    backup = Measurement(
        "`atrium backup` (p50, p99: its duration)",
        1,
        [RunResult(1, 0, r.seconds, r.seconds * 1000, r.seconds * 1000) for r in runs],
    )
    seconds = statistics.median(r.seconds for r in runs)
    size = statistics.median(r.size for r in runs)
    files = runs[0].files

    def change(quiet: Measurement, during: Measurement) -> str:
        return (
            f"p50 {quiet.p50_ms:.1f} → {during.p50_ms:.1f} ms "
            f"({during.p50_ms / quiet.p50_ms:.2f}×), p99 {quiet.p99_ms:.1f} → "
            f"{during.p99_ms:.1f} ms ({during.p99_ms / quiet.p99_ms:.2f}×)"
        )

    return ScenarioResult(
        family=FAMILY,
        key="backup",
        title="`atrium backup` of the 1,000,000-message organization while it is used",
        description=(
            "`atrium backup DEST` (its own process, as an operator runs it) of a running "
            f"server's data directory: a copy of the data set ({data.describe()}). Meanwhile one "
            "keep-alive connection alternates a send (`POST /api/v1/messages` as the data set's "
            f"reader, to `{data.narrows[0].stream}`) and a fetch (`GET /api/v1/messages`, the "
            f"newest 100 messages of a topic, rotating through {len(data.narrows)} topics), each "
            "timed by httpx; the same runs first for the run's duration without a backup. One "
            "backup per run; the figures are medians over the runs. The send and fetch rows' "
            "req/s are the probe's, one request at a time. Served by " + served_by + "."
        ),
        rows=[
            Row(backup),
            Row(send_quiet),
            Row(send_during),
            Row(fetch_quiet),
            Row(fetch_during),
        ],
        notes=[
            f"Backup: **{seconds:.1f} s**, **{size / 1e9:.2f} GB** in {files} files (the "
            "databases through SQLite's online backup API, the other files of the data "
            "directory, a manifest with every file's checksum); each run's duration: "
            + " / ".join(f"{r.seconds:.1f} s" for r in runs)
            + ".",
            f"While it runs, send: {change(send_quiet, send_during)}; fetch: "
            f"{change(fetch_quiet, fetch_during)}.",
            f"Other processes used up to {send_during.other_load:.2f} cores during the backups "
            "(the backup's own process counts as other here).",
        ],
    )


# --- Import --------------------------------------------------------------------------------------


@dataclass
class ImportRun:
    seconds: float
    messages: int
    message_seconds: float  # from "writing the organization" to the last messages chunk
    lines: list[tuple[float, str]]


def atrium_import(data_dir: Path, archive: Path) -> ImportRun:
    """`atrium chat import-zulip ARCHIVE` into `data_dir`, its progress lines timed."""
    env = {**os.environ, "ATRIUM_DATA_DIR": str(data_dir)}
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "atrium.cli", "chat", "import-zulip", str(archive)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[tuple[float, str]] = []

    def read_progress() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.monotonic() - started, line.rstrip()))

    reader = threading.Thread(target=read_progress, daemon=True)
    reader.start()
    assert proc.stdout is not None
    output = proc.stdout.read()
    proc.wait()
    reader.join()
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        tail = "\n".join(line for _t, line in lines[-10:])
        raise BenchError(f"atrium chat import-zulip failed ({proc.returncode}): {tail}")
    counts = imported_counts(output)
    messages = counts.get("messages", 0)
    writing = next((t for t, line in lines if line == "writing the organization"), 0.0)
    last = max((t for t, line in lines if line.startswith("imported ") and "messages" in line),
               default=seconds)  # fmt: skip
    return ImportRun(seconds, messages, max(last - writing, 1e-6), lines)


def imported_counts(output: str) -> dict[str, int]:
    """The `  <count> <what>` lines `atrium chat import-zulip` prints when done."""
    counts: dict[str, int] = {}
    for line in output.splitlines():
        number, _, what = line.strip().partition(" ")
        if line.startswith("  ") and number.isdigit() and what:
            counts[what.strip()] = int(number)
    return counts


def import_scenario(settings: Settings, console: Console) -> ScenarioResult:
    from bench.generated_export import write_export

    console.rule(
        f"ops / import: `atrium chat import-zulip` of a {IMPORT_MESSAGES:,}-message export"
    )
    runs: list[ImportRun] = []
    with tempfile.TemporaryDirectory(prefix="import-", dir=DATA_DIR) as tmp:
        archive = Path(tmp) / "zulip-export.tar.gz"
        total = write_export(archive, IMPORT_MESSAGES)
        archive_mb = archive.stat().st_size / 1e6
        console.print(f"  export: {total:,} messages, {archive_mb:.1f} MB")
        for run in range(settings.runs):
            wait_for_quiet()
            target = Path(tmp) / f"data-{run}"
            result = atrium_import(target, archive)
            shutil.rmtree(target, ignore_errors=True)
            if result.messages != total:
                raise BenchError(f"the import reports {result.messages:,} of {total:,} messages")
            console.print(
                f"  import {run + 1}: {result.seconds:.1f} s, "
                f"{result.messages / result.seconds:,.0f} messages/s "
                f"({result.messages / result.message_seconds:,.0f}/s writing messages)"
            )
            runs.append(result)
    measurement = Measurement(
        f"{total:,} messages (req/s: messages/s; p50, p99: the whole command)",
        1,
        [RunResult(r.messages, 0, r.seconds, r.seconds * 1000, r.seconds * 1000) for r in runs],
    )
    writing = statistics.median(r.messages / r.message_seconds for r in runs)
    phases = _phases(runs[len(runs) // 2])
    return ScenarioResult(
        family=FAMILY,
        key="import",
        title=f"`atrium chat import-zulip` of a {total:,}-message Zulip export",
        description=(
            f"A generated Zulip 7.x organization export ({archive_mb:.1f} MB .tar.gz): the import "
            "tests' organization (5 users, a bot, 3 streams, direct and group messages, "
            f"reactions, an upload, custom emoji) and {IMPORT_MESSAGES:,} more stream messages "
            "in its two public streams, 40 topics, with their rendered HTML and a "
            "`zerver_usermessage` row per subscriber, in files of 1,000 messages "
            "(`bench/generated_export.py`). Imported by `atrium chat import-zulip` (its own "
            "process) into an empty data directory, once per run."
        ),
        rows=[Row(measurement)],
        notes=[
            f"Import speed: **{measurement.rps:,.0f} messages/s** over the whole command "
            f"(median {measurement.p50_ms / 1000:.1f} s); **{writing:,.0f} messages/s** while "
            "writing the messages (from its `writing the organization` line to the last "
            "messages chunk).",
            f"Where the time went (median run): {phases}.",
        ],
    )


def _phases(result: ImportRun) -> str:
    marks = [(0.0, "start (imports, the archive's checksum, the database's migrations)")]
    for at, line in result.lines:
        if not line.startswith(("imported ", "extracted ", "stored ")):
            marks.append((at, line))
    marks.append((result.seconds, "done"))
    return "; ".join(
        f"{label} {end - start:.1f} s" for (start, label), (end, _next) in itertools.pairwise(marks)
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    results: list[ScenarioResult] = []
    missing: list[str] = []
    scenarios = (
        (backup_scenario, "atrium.ops.backup", "`atrium backup` (ops/backup)"),
        (
            import_scenario,
            "atrium.chat.porting.zulip_io",
            "`atrium chat import-zulip` (ops/import)",
        ),
    )
    for scenario, module, name in scenarios:
        try:
            require_module(module, name)
        except BenchError as exc:
            missing.append(str(exc))
            continue
        results.append(scenario(settings, console))
    if missing:
        raise BenchError("; ".join(missing), results)
    return results
