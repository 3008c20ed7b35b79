"""The multiprocess metrics folder the supervisor prepares: new and private for several workers,
none for one, and never a folder inherited from elsewhere (its figures would be added in)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from atrium.ops import metrics_dir


def test_several_workers_get_a_fresh_private_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / "counter_1.db").write_bytes(b"old figures")
    monkeypatch.setenv(metrics_dir.ENV, str(stale))
    path = metrics_dir.prepare(2)
    assert path is not None and path != str(stale)
    try:
        assert os.environ[metrics_dir.ENV] == path
        assert list(Path(path).iterdir()) == []
        assert stat.S_IMODE(Path(path).stat().st_mode) == 0o700
    finally:
        metrics_dir.remove(path)
    assert not Path(path).exists()
    assert (stale / "counter_1.db").exists()  # the inherited folder is left alone


def test_one_worker_keeps_its_figures_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(metrics_dir.ENV, "/somewhere/else")
    monkeypatch.setenv(metrics_dir.ENV.lower(), "/somewhere/else")
    assert metrics_dir.prepare(1) is None
    assert metrics_dir.ENV not in os.environ
    assert metrics_dir.ENV.lower() not in os.environ
    metrics_dir.remove(None)
