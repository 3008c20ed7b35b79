"""Server processes, load generators and measurements: the machinery every scenario family shares.

A server runs as its own process group, pinned with `taskset` to core 0; the load generator runs in
another process pinned to core 1. Everything started here is stopped here, by process-group id (the
id of the process we started), even when a scenario fails.

Two generators speak the same `Load` description:

- `wrk` (Debian package), driven by a Lua script generated per load: it rotates through the request
  templates and counts every response that is not a 200 with `"result":"success"`;
- `python-asyncio` (`bench/loadgen.py`), the fallback when wrk is missing: keep-alive connections
  over raw asyncio streams. It is labelled as such in the report, because one Python core caps the
  throughput it can show.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

import httpx
from rich.console import Console

REPO = Path(__file__).resolve().parent.parent
DATA_DIR = REPO / "bench" / ".data"
SERVER_CORE = 0
GENERATOR_CORE = 1
HOST = "127.0.0.1"
SUCCESS_MARKER = '"result":"success"'

WRK_INSTALL_HINT = (
    "wrk is not installed. Install it with `sudo apt-get update && sudo apt-get install -y wrk` "
    "(Debian/Ubuntu) or `brew install wrk` (macOS); until then the pure-asyncio generator is used "
    "and throughput figures are capped by one Python core."
)


class BenchError(RuntimeError):
    """A benchmark could not run (server did not start, generator failed, …).

    `partial`: what the family measured before it stopped, or beside the scenarios it could not
    run (one that the measured source does not have yet); the report keeps them.
    """

    def __init__(self, message: str, partial: Sequence[ScenarioResult] = ()) -> None:
        super().__init__(message)
        self.partial = list(partial)


def require_module(module: str, scenario: str) -> None:
    """Raise BenchError when the measured source lacks `module` (an old `--rev`): the scenario
    is reported as not existing there instead of failing on an import."""
    try:
        found = importlib.util.find_spec(module) is not None
    except ImportError:
        found = False
    if not found:
        raise BenchError(f"{scenario} does not exist in this source (no {module})")


# --- Processes -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def pinning_available() -> bool:
    return shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2


def pinned(argv: Sequence[str], core: int) -> list[str]:
    """`argv` under `taskset -c core` when the machine has two cores and taskset exists."""
    if not pinning_available():
        return list(argv)
    return ["taskset", "-c", str(core), *argv]


class Server:
    """One server process group: started pinned to the server core, stopped by its group id."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        port: int,
        ready_path: str,
        env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.port = port
        self.ready_path = ready_path
        self.env = {**os.environ, **(env or {})}
        self.log_path = (log_dir or Path(tempfile.gettempdir())) / f"bench-{name}-{port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                pinned(self.argv, SERVER_CORE),
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own process group, so its workers stop with it
                cwd=REPO,
            )
        deadline = time.monotonic() + timeout
        url = self.base_url + self.ready_path
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(
                    f"{self.name} exited with status {self.proc.returncode} before answering:\n"
                    + self.log_tail()
                )
            try:
                httpx.get(url, timeout=2.0)
                return
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        raise BenchError(
            f"{self.name} did not answer {url} within {timeout:.0f} s:\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def _group_alive(self, pgid: int) -> bool:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def memory(self) -> Memory:
        """The resident memory of the whole process group now (see `Memory`)."""
        if self.proc is None:
            raise BenchError(f"{self.name} is not running")
        return group_memory(self.proc.pid)

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        pgid = proc.pid  # start_new_session: the group id is the id of the process we started
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while self._group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if self._group_alive(pgid):  # a worker that outlived its supervisor
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        self.proc = None


@dataclass(frozen=True)
class Memory:
    """PSS of every process of a group, summed: shared pages count once across the group (and in
    proportion when shared with processes outside it), so the sum is what the server costs."""

    pss_bytes: int
    processes: int

    @property
    def mb(self) -> float:
        return self.pss_bytes / 1_000_000

    def describe(self) -> str:
        return f"{self.mb:.0f} MB in {self.processes} process{'es' if self.processes > 1 else ''}"


def group_memory(pgid: int) -> Memory:
    """`Memory` of the processes in group `pgid`, from /proc/<pid>/smaps_rollup (Linux)."""
    total = count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            # Fields after the command name, which may hold spaces: state ppid pgrp …
            if int(stat.rpartition(")")[2].split()[2]) != pgid:
                continue
            rollup = (entry / "smaps_rollup").read_text()
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not ours to read
        for line in rollup.splitlines():
            if line.startswith("Pss:"):
                total += int(line.split()[1]) * 1024
                count += 1
                break
    if not count:
        raise BenchError(f"no process of group {pgid} to measure (is /proc mounted?)")
    return Memory(total, count)


class PeakSampler:
    """The largest value `measure()` returns, sampled every `every` seconds while the block runs
    (a server's memory during a transfer or an attack); a failed sample is skipped."""

    def __init__(self, measure: Callable[[], int], every: float) -> None:
        self.measure = measure
        self.every = every
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(BenchError):
                self.peak = max(self.peak, self.measure())
            time.sleep(self.every)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@contextlib.contextmanager
def running(server: Server) -> Iterator[Server]:
    try:
        server.start()
        yield server
    finally:
        server.stop()


def atrium_cli(data_dir: Path, *args: str) -> str:
    """Run an `atrium` command on `data_dir` (creating organizations, users, keys); its output."""
    env = {**os.environ, "ATRIUM_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "atrium.cli", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"atrium {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def atrium_command(port: int) -> tuple[list[str], str]:
    """How to start Atrium on `port`, and how the report should name it.

    `atrium serve` is the real thing. While the wiki service is still missing from a checkout
    (`atrium serve` builds both services and cannot start without it), the chat service alone is
    served by the same granian configuration, and the report says so.
    """
    try:
        wiki_present = importlib.util.find_spec("atrium.wiki.app") is not None
    except ImportError:
        wiki_present = False
    if wiki_present:
        argv = [sys.executable, "-m", "atrium.cli", "serve", "--host", HOST, "--port", str(port)]
        return argv, "`atrium serve` (granian, 1 worker; chat and wiki)"
    argv = [sys.executable, "-m", "bench.apps", "chat", "--port", str(port)]
    return argv, (
        "the chat service alone (`atrium.server.create_app(services=('chat',))`) under the same "
        "granian configuration as `atrium serve`, because `atrium.wiki.app` is not importable in "
        "this checkout"
    )


def use_source(rev: str | None) -> str:
    """Serve Atrium from the working tree, or from `rev` exported under `bench/.data/`.

    With a revision, its `src/` is exported once (`git archive`) and put first on `PYTHONPATH`
    for every process started from here and on `sys.path` for this one; the working tree is
    left alone. Returns a description of the measured source for the report.
    """

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"git {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout.strip()

    if rev is None:
        try:
            head = git("rev-parse", "--short=12", "HEAD")
            dirty = bool(git("status", "--porcelain", "--", "src"))
        except (SystemExit, OSError):
            return "the working tree"
        return f"the working tree at {head}" + (
            " with uncommitted changes in src/" if dirty else ""
        )
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    root = DATA_DIR / f"src-{sha[:12]}"
    if not (root / "src" / "atrium").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "archive", sha, "src"], cwd=REPO, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    src = str(root / "src")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, src)
    return f"commit {sha[:12]} (`--rev {rev}`, exported to {root.relative_to(REPO)})"


# --- Loads and results --------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str = ""


@dataclass(frozen=True)
class Load:
    """What a generator sends: `connections` keep-alive connections cycling through `requests`."""

    connections: int
    duration: float
    requests: Sequence[HttpRequest]
    # A 200 response counts as a success when its body holds this text.
    success: str = SUCCESS_MARKER
    # The server ends every response by closing the connection (PHP's built-in server: no
    # keep-alive, no Content-Length). wrk then counts a read error after each complete response,
    # which is not one; the responses are still checked one by one.
    closes_connections: bool = False


@dataclass(frozen=True)
class RunResult:
    requests: int
    errors: int
    seconds: float
    p50_ms: float
    p99_ms: float
    error_sample: str = ""

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0


class Generator(Protocol):
    name: str
    description: str

    def run(self, port: int, load: Load) -> RunResult: ...


def _lua_string(text: str) -> str:
    out = []
    for byte in text.encode():
        if byte in (0x22, 0x5C) or byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03d}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


_WRK_SCRIPT_BODY = r"""
local prepared = {}
local count = 0
local index = 0
bad = 0
sample = nil

function init(args)
  for i, t in ipairs(templates) do
    prepared[i] = wrk.format(t[1], t[2], t[3], t[4])
  end
  count = #prepared
end

function request()
  index = index % count + 1
  return prepared[index]
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body, success, 1, true) then
    bad = bad + 1
    if sample == nil then
      sample = tostring(status) .. " " .. string.sub(body, 1, 300)
    end
  end
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local total_bad = 0
  local first = ""
  for _, t in ipairs(threads) do
    total_bad = total_bad + t:get("bad")
    local s = t:get("sample")
    if s ~= nil and first == "" then first = s end
  end
  local e = summary.errors
  io.write(string.format("BENCH_RESULT %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    total_bad, e.connect, e.read, e.write, e.timeout))
  io.write("BENCH_SAMPLE " .. (string.gsub(first, "[\r\n]", " ")) .. "\n")
end
"""


def wrk_script(requests: Sequence[HttpRequest], success: str = SUCCESS_MARKER) -> str:
    lines = [f"success = {_lua_string(success)}", "templates = {"]
    for req in requests:
        headers = ", ".join(
            f"[{_lua_string(k)}] = {_lua_string(v)}" for k, v in req.headers.items()
        )
        body = _lua_string(req.body) if req.body else "nil"
        lines.append(
            f"  {{{_lua_string(req.method)}, {_lua_string(req.path)}, {{{headers}}}, {body}}},"
        )
    lines.append("}")
    return "\n".join(lines) + _WRK_SCRIPT_BODY


class WrkGenerator:
    name = "wrk"

    def __init__(self) -> None:
        version = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
        first = (version.stdout or version.stderr).splitlines()
        self.description = (
            f"{first[0].split(' Copyright')[0] if first else 'wrk'}, 1 thread, Lua script "
            "rotating the request templates and checking every response"
        )

    def run(self, port: int, load: Load) -> RunResult:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", prefix="bench-", delete=False) as fh:
            fh.write(wrk_script(load.requests, load.success))
            script = fh.name
        try:
            argv = [
                "wrk",
                "-t1",
                f"-c{load.connections}",
                f"-d{max(1, round(load.duration))}s",
                "--timeout",
                "10s",
                "-s",
                script,
                f"http://{HOST}:{port}",
            ]
            done = subprocess.run(
                pinned(argv, GENERATOR_CORE), capture_output=True, text=True, check=False
            )
        finally:
            os.unlink(script)
        result = sample = None
        for line in done.stdout.splitlines():
            if line.startswith("BENCH_RESULT "):
                result = [int(float(x)) for x in line.split()[1:]]
            elif line.startswith("BENCH_SAMPLE "):
                sample = line[len("BENCH_SAMPLE ") :].strip()
        if done.returncode != 0 or result is None:
            raise BenchError(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        requests, duration_us, p50_us, p99_us, bad, connect, read, write, timeout = result
        if load.closes_connections:
            read = 0
        return RunResult(
            requests=requests,
            errors=bad + connect + read + write + timeout,
            seconds=duration_us / 1e6,
            p50_ms=p50_us / 1000,
            p99_ms=p99_us / 1000,
            error_sample=sample or "",
        )


class PythonGenerator:
    name = "python-asyncio"
    description = (
        "bench/loadgen.py (pure asyncio, keep-alive sockets, one process) — the fallback for "
        "machines without wrk; one Python core caps the throughput it can show"
    )

    def run(self, port: int, load: Load) -> RunResult:
        spec = {
            "host": HOST,
            "port": port,
            "connections": load.connections,
            "duration": load.duration,
            "success": load.success,
            "requests": [
                {"method": r.method, "path": r.path, "headers": dict(r.headers), "body": r.body}
                for r in load.requests
            ],
        }
        done = subprocess.run(
            pinned([sys.executable, "-m", "bench.loadgen"], GENERATOR_CORE),
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            check=False,
            cwd=REPO,
        )
        if done.returncode != 0:
            raise BenchError(f"bench.loadgen failed ({done.returncode}):\n{done.stderr}")
        data = json.loads(done.stdout)
        return RunResult(
            requests=int(data["requests"]),
            errors=int(data["errors"]),
            seconds=float(data["seconds"]),
            p50_ms=float(data["p50_ms"]),
            p99_ms=float(data["p99_ms"]),
            error_sample=str(data.get("error_sample", "")),
        )


def choose_generator(name: str, console: Console) -> Generator:
    """`wrk`, `python`, or `auto` (wrk when installed, else the asyncio fallback with a hint)."""
    has_wrk = shutil.which("wrk") is not None
    if name == "wrk" and not has_wrk:
        raise SystemExit(WRK_INSTALL_HINT.split(";")[0] + ".")
    if name == "python" or not has_wrk:
        if name == "auto":
            console.print(f"[yellow]{WRK_INSTALL_HINT}[/yellow]")
        return PythonGenerator()
    return WrkGenerator()


# --- Measurements -------------------------------------------------------------------------------


@dataclass
class Measurement:
    """Several runs of one load; figures are the medians of the runs."""

    label: str
    connections: int
    runs: list[RunResult]
    warmup_errors: int = 0
    # CPU taken by unrelated processes during each run (see CpuMeter), in cores.
    other_cores: list[float] = field(default_factory=list)

    @property
    def other_load(self) -> float:
        return max(self.other_cores, default=0.0)

    @property
    def rps(self) -> float:
        return statistics.median(r.rps for r in self.runs)

    @property
    def p50_ms(self) -> float:
        return statistics.median(r.p50_ms for r in self.runs)

    @property
    def p99_ms(self) -> float:
        return statistics.median(r.p99_ms for r in self.runs)

    @property
    def requests(self) -> int:
        return sum(r.requests for r in self.runs)

    @property
    def errors(self) -> int:
        return sum(r.errors for r in self.runs) + self.warmup_errors

    @property
    def error_sample(self) -> str:
        return next((r.error_sample for r in self.runs if r.error_sample), "")


Metric = Literal["rps", "p50_ms", "p99_ms"]


@dataclass(frozen=True)
class Target:
    metric: Metric
    limit: float
    # The bare ceiling (req/s, same connections) of the machine the limit was set for, when the
    # issue gives one: the report then also judges the figure against the limit scaled to this
    # run's bare ceiling, throughput in proportion and latency in inverse proportion.
    reference_ceiling: float | None = None

    def met(self, m: Measurement) -> bool:
        value = getattr(m, self.metric)
        return bool(value >= self.limit if self.metric == "rps" else value <= self.limit)

    def scaled(self, ceiling_rps: float) -> Target:
        """This target on a machine whose bare ceiling is `ceiling_rps`."""
        if self.reference_ceiling is None:
            return self
        factor = ceiling_rps / self.reference_ceiling
        limit = self.limit * factor if self.metric == "rps" else self.limit / factor
        return Target(self.metric, limit)

    def describe(self) -> str:
        if self.metric == "rps":
            return f"≥ {self.limit:,.0f} req/s"
        name = "p50" if self.metric == "p50_ms" else "p99"
        limit = f"{self.limit:.2f}".rstrip("0").rstrip(".")  # 20, 7.3 (a limit derived in the run)
        return f"{name} ≤ {limit} ms"


@dataclass
class Row:
    measurement: Measurement
    targets: tuple[Target, ...] = ()
    # Targets that are not on the generator's figures (memory, say): their names where missed.
    missed: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        if self.measurement.errors:
            return "FAIL (errors)"
        if self.missed:
            return f"FAIL ({', '.join(self.missed)})"
        if not self.targets:
            return "—"
        return "pass" if all(t.met(self.measurement) for t in self.targets) else "FAIL"

    def scaled(self, ceiling_rps: float) -> Row | None:
        """This row judged at a bare ceiling of `ceiling_rps`, if any target scales."""
        if not any(t.reference_ceiling for t in self.targets):
            return None
        return Row(self.measurement, tuple(t.scaled(ceiling_rps) for t in self.targets))


@dataclass
class ScenarioResult:
    family: str
    key: str
    title: str
    description: str
    rows: list[Row]
    notes: list[str] = field(default_factory=list)


@dataclass
class Settings:
    """How long and how often to measure, and with what."""

    generator: Generator
    runs: int = 3
    duration: float = 5.0
    warmup: float = 2.0


class CpuMeter:
    """CPU used during a run by processes that are neither ours nor the server's, in cores.

    The machine's busy time (/proc/stat) minus the server process group's (/proc/<pid>/stat),
    the generator's (children rusage) and this process's: what other work on the machine took
    from the two cores while we measured. Zero where /proc is missing.
    """

    TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def __init__(self, server_pgid: int) -> None:
        self.pgid = server_pgid

    @staticmethod
    def _busy_ticks() -> int:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return sum(fields[:8]) - idle

    def _group_ticks(self) -> int:
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == self.pgid:
                total += int(fields[11]) + int(fields[12])
        return total

    @staticmethod
    def _own_seconds() -> float:
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    def __enter__(self) -> CpuMeter:
        self.other_cores = 0.0
        try:
            self._start = (self._busy_ticks(), self._group_ticks(), self._own_seconds())
        except OSError:
            self._start = None  # type: ignore[assignment]
        self._wall = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._start is None:
            return
        busy, group, own = self._start
        wall = time.monotonic() - self._wall
        other = (self._busy_ticks() - busy - (self._group_ticks() - group)) / self.TICK
        other -= self._own_seconds() - own
        self.other_cores = max(0.0, other / wall) if wall > 0 else 0.0


def wait_for_quiet(threshold: float = 0.1, max_wait: float = 10.0, window: float = 0.5) -> float:
    """Wait (up to `max_wait` s) until the machine's busy CPU is below `threshold` cores.

    Called between runs, when neither our server nor our generator is working, so any busy time
    belongs to someone else. Returns the last load seen.
    """
    deadline = time.monotonic() + max_wait
    load = 0.0
    while True:
        try:
            before = CpuMeter._busy_ticks()
            time.sleep(window)
            load = (CpuMeter._busy_ticks() - before) / CpuMeter.TICK / window
        except OSError:
            return 0.0
        if load < threshold or time.monotonic() >= deadline:
            return load


def measure(
    settings: Settings,
    console: Console,
    server: Server,
    label: str,
    connections: int,
    requests: Sequence[HttpRequest],
    success: str = SUCCESS_MARKER,
    closes_connections: bool = False,
) -> Measurement:
    gen = settings.generator
    assert server.proc is not None, "measure() needs a running server"
    pgid = server.proc.pid
    closes = closes_connections
    warm = gen.run(server.port, Load(connections, settings.warmup, requests, success, closes))
    runs = []
    other: list[float] = []
    for i in range(settings.runs):
        wait_for_quiet()
        with CpuMeter(pgid) as meter:
            run = gen.run(
                server.port, Load(connections, settings.duration, requests, success, closes)
            )
        runs.append(run)
        other.append(meter.other_cores)
        errors = f"[red]{run.errors} errors[/red] {run.error_sample[:120]}" if run.errors else ""
        busy = (
            f"[yellow]other load {meter.other_cores:.2f} cores[/yellow]"
            if meter.other_cores > 0.1
            else ""
        )
        console.print(
            f"  {label:<24} run {i + 1}/{settings.runs}: {run.rps:>8,.0f} req/s  "
            f"p50 {run.p50_ms:6.2f} ms  p99 {run.p99_ms:7.2f} ms {busy} {errors}"
        )
    if warm.errors:
        console.print(f"  [red]{warm.errors} errors during warm-up[/red] {warm.error_sample[:120]}")
    return Measurement(label, connections, runs, warmup_errors=warm.errors, other_cores=other)
