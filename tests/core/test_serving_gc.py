"""The serving process tunes the garbage collector; apps built elsewhere (tests) leave it alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import gc
from atrium.server import SERVING_GC_THRESHOLDS, app_from_env, create_app
before = (gc.get_threshold(), gc.get_freeze_count())
create_app()
after_create = (gc.get_threshold(), gc.get_freeze_count())
app_from_env()
print(before == after_create, gc.get_threshold() == SERVING_GC_THRESHOLDS, gc.get_freeze_count() > 0)
"""


def test_app_from_env_freezes_the_startup_heap(tmp_path: Path) -> None:
    env = {**os.environ, "ATRIUM_DATA_DIR": str(tmp_path)}
    env.pop("ATRIUM_DATABASE_URL", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "True", "True"]
