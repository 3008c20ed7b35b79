"""One headless Chromium per test worker, which each browser module connects to.

No browser is downloaded: the server launches Debian's `chromium-headless-shell` (or, where only
the desktop browser is installed, `chromium`), found on PATH. A missing chromium skips the browser
tests with the reason, except in CI, where it fails them.

Launching Chromium costs about a second on a loaded machine, and some twenty modules drive a
browser. Playwright's browser server (the driver's `launch-server`, which Playwright's own tests
use for `connect`) launches it once, with the same arguments `launch` would give it; a module
connects with the full Playwright protocol and gets contexts of its own (their own cookies and
storage), which the server closes when the module disconnects. A session-scoped Playwright in the
test process itself would not do: its sync API marks its event loop as running in the thread
between calls, which would stop the in-process async tests that run after the browser modules.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

# Debian's chromium-headless-shell first: the same Blink as Debian's chromium, without the desktop
# browser around it (Playwright's own default for headless runs). The browser modules used half
# the CPU time with it (test_chat_browser.py: 39 s instead of 80 s), on a suite that is CPU-bound.
CHROMIUM = (
    shutil.which("chromium-headless-shell")
    or shutil.which("chromium")
    or shutil.which("chromium-browser")
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_or_skip() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required in CI: apt-get install -y chromium-headless-shell")
        pytest.skip("chromium not installed (apt-get install -y chromium-headless-shell)")
    return CHROMIUM


# Runs the server until its standard input closes: when the worker stops it, and also when the
# worker dies without stopping it (killed, or interrupted before its teardown), which would
# otherwise leave the server and its Chromium running. SIGTERM makes the server close Chromium.
WATCHDOG = '"$@" & server=$!; read -r _; kill "$server"; wait "$server"'


class BrowserServer:
    """Playwright's browser server around one Chromium, started on first use."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.endpoint = ""
        self.directory = Path(tempfile.mkdtemp(prefix="atrium-browser-server-"))
        self.log = self.directory / "server.log"

    def start(self) -> str:
        if self.process is not None and self.process.poll() is None:
            return self.endpoint
        from playwright._impl._driver import compute_driver_executable, get_driver_env

        config = self.directory / "config.json"
        config.write_text(
            json.dumps(
                {"executablePath": chromium_or_skip(), "args": CHROMIUM_ARGS, "headless": True}
            )
        )
        node, cli = compute_driver_executable()
        server = [node, cli, "launch-server", "--browser", "chromium", "--config", str(config)]
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                ["sh", "-c", WATCHDOG, "sh", *server],
                env=get_driver_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,  # its own process group: Chromium goes with it
            )
        assert self.process.stdout is not None
        # Its first line is the endpoint, once the browser runs.
        self.endpoint = self.process.stdout.readline().strip()
        if not self.endpoint.startswith("ws://"):
            self.stop()
            raise AssertionError(
                f"Playwright's browser server did not start:\n{self.log.read_text()}"
            )
        return self.endpoint

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            assert process.stdin is not None
            process.stdin.close()  # the watchdog stops the server, which closes its browser
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            # Whatever of the group outlived the server.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            if process.stdout is not None:
                process.stdout.close()
        shutil.rmtree(self.directory, ignore_errors=True)


@contextmanager
def connected_browser(server: BrowserServer) -> Iterator[Any]:
    """A Playwright browser on the worker's Chromium, for one module; what the module leaves open
    is closed when it disconnects."""
    from playwright.sync_api import sync_playwright

    endpoint = server.start()
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect(endpoint)
        try:
            yield browser
        finally:
            browser.close()
