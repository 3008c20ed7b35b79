"""The import directions of DESIGN.md, checked: the import-linter contracts in pyproject.toml must
all be kept, so a change that runs an import the wrong way fails the suite, not only `make lint`."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LINT = """
import sys
from importlinter.cli import lint_imports
sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))
"""


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads(PYPROJECT.read_text("utf-8"))
    return list(config["tool"]["importlinter"]["contracts"])


def test_the_design_rules_are_declared() -> None:
    names = {str(c["name"]) for c in _contracts()}
    for rule in ("chat and wiki are independent", "core knows no service"):
        assert rule in names
    assert any(n.startswith("chat layers") for n in names)
    assert any(n.startswith("wiki layers") for n in names)
    assert "chat events read through queries, not actions" in names


def test_every_import_contract_is_kept() -> None:
    pytest.importorskip("importlinter", reason="import-linter is a dev dependency")
    run = subprocess.run(
        [sys.executable, "-c", LINT, str(PYPROJECT)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_broken_contract_fails(tmp_path: Path) -> None:
    """The check can fail: a contract the tree does not keep (chat's views raise chat's errors) is
    reported as broken."""
    pytest.importorskip("importlinter", reason="import-linter is a dev dependency")
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_package = "atrium"\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "views never import chat"\ntype = "forbidden"\n'
        'source_modules = ["atrium.chat.views"]\nforbidden_modules = ["atrium.chat.errors"]\n',
        "utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-c", LINT, str(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "BROKEN" in run.stdout
