"""Start `atrium` as a user would: a real process on a free loopback port, stopped by its PID."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import free_port


def atrium_env(data_dir: Path, database_url: str | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATRIUM_")}
    env["ATRIUM_DATA_DIR"] = str(data_dir)
    # No Main Page unless a test asks for one: the tests count the pages they make.
    env["ATRIUM_WIKI_MAIN_PAGE"] = "0"
    # MediaWiki's default audience: the clients under test read and edit anonymously.
    env["ATRIUM_WIKI_AUDIENCE"] = "edit"
    if database_url:
        env["ATRIUM_DATABASE_URL"] = database_url
    env.update(extra)
    return env


def atrium(env: dict[str, str], *args: str) -> str:
    """Run one `atrium` CLI command; its standard output."""
    result = subprocess.run(
        [sys.executable, "-m", "atrium.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"atrium {' '.join(args)} failed:\n{result.stderr}"
    return result.stdout


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        """Kill the worker outright (SIGKILL), as a crash would: granian's main process and the
        process it forked to serve, which would otherwise live on without its parent."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def start_server(
    env: dict[str, str], port: int, log: Path, serve_args: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    """`atrium serve` on `port` (with `serve_args`, e.g. `--workers 2`: the scale-out mode's,
    PostgreSQL and Redis in `env`), its output appended to `log`, in a process group of its own."""
    with log.open("a") as log_file:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "atrium.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                *serve_args,
            ],
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: granian's worker goes with it
        )


@contextmanager
def running_server(
    env: dict[str, str],
    ready_path: str = "/api/v1/server_settings",
    log_name: str = "server.log",
    serve_args: tuple[str, ...] = (),
) -> Iterator[LiveServer]:
    log = Path(env["ATRIUM_DATA_DIR"]) / log_name
    # free_port() lets the port go before the server binds it, and another xdist worker can take
    # it in between: a server that lost that race is started once more on another port.
    for attempt in (1, 2):
        port = free_port()
        log.write_text("")
        process = start_server(env, port, log, serve_args)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(process, base + ready_path, log)
            break
        except PortTaken:
            _stop(process)
            if attempt == 2:
                raise AssertionError(
                    f"atrium serve found its port taken twice:\n{log.read_text()}"
                ) from None
        except BaseException:
            _stop(process)
            raise
    try:
        yield LiveServer(base, process)
    finally:
        _stop(process)


@contextmanager
def running_servers(*envs: dict[str, str]) -> Iterator[list[LiveServer]]:
    """`running_server` for each of `envs`, started side by side (one's imports overlap the
    other's waits for its port), stopped together."""
    with contextlib.ExitStack() as stack:
        starting = [running_server(env) for env in envs]
        with ThreadPoolExecutor(len(envs)) as pool:
            entered = [pool.submit(server.__enter__) for server in starting]
        servers: list[LiveServer] = []
        failure: BaseException | None = None
        for server, future in zip(starting, entered, strict=True):
            try:
                servers.append(future.result())
            except BaseException as exc:
                failure = failure or exc
                continue
            stack.push(server.__exit__)
        if failure is not None:
            raise failure
        yield servers


class PortTaken(Exception):
    """The server exited because its port was bound by someone else first."""


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            text = log.read_text()
            # `atrium serve`'s own line for a taken port, or granian's when it lost the race.
            if "already in use" in text.lower():
                raise PortTaken
            raise AssertionError(f"atrium serve exited early:\n{text}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"atrium serve did not answer in 60 s:\n{log.read_text()}")
        time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    # Whatever of the group outlived the main process (a worker after a SIGKILL).
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
