"""The migration heads this code expects, read from the version files without Alembic.

`/ready` compares them with what each database records. The workers never load Alembic (about
10 MB for the life of the process, see `Settings.migrate_on_start`), so the files' `revision` and
`down_revision` lines are read as text: a head is a revision no other one revises.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

MIGRATIONS_ROOT = Path(__file__).resolve().parent.parent / "migrations"
_ASSIGNMENT = re.compile(r"^(revision|down_revision)\b[^=]*=\s*(.+)$", re.MULTILINE)


@functools.cache
def code_heads(service: str) -> frozenset[str]:
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (MIGRATIONS_ROOT / service / "versions").glob("*.py"):
        values = {
            name: ast.literal_eval(value.strip())
            for name, value in _ASSIGNMENT.findall(path.read_text(encoding="utf-8"))
        }
        if "revision" not in values:
            continue
        revisions.add(values["revision"])
        down = values.get("down_revision")
        if isinstance(down, str):
            revised.add(down)
        elif down:
            revised.update(down)
    return frozenset(revisions - revised)
