"""The chat web client's pure modules (message window, fetching, narrows, state) under Node's own
test runner: `tests/js/*.test.mjs` import the served files as they are, with no npm package."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.reference import REPO

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_client_modules_pass_their_node_tests() -> None:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--test", "tests/js/"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout, done.stdout[-2000:]
