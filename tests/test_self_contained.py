"""A fresh clone needs nothing beside it: no file of the repository reaches outside it.

The optional comparisons of `tests/reference.py` are the one exception, listed there.
"""

from __future__ import annotations

import re

from tests.reference import OUTSIDE_TESTS, REPO

# `../shared`, the workplace's absolute paths, and a path built from a parent and "shared".
OUTSIDE = re.compile(r"\.\./shared|/work/|parents?\[\d\]\s*/\s*[\"']shared|[\"']shared[\"']\s*/")
ROOTS = ("src", "tests", "bench")
TOP_FILES = ("Makefile", "pyproject.toml", ".ci/run")
EXCEPTIONS = {"tests/reference.py", "tests/test_self_contained.py", *OUTSIDE_TESTS}
TEXT_SUFFIXES = {".py", ".toml", ".ini", ".cfg", ".sh", ".js", ".css", ".html", ".json", ".mako"}


def _files() -> list[str]:
    found = [name for name in TOP_FILES if (REPO / name).exists()]
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*")):
            if path.is_file() and path.suffix in TEXT_SUFFIXES and ".data" not in path.parts:
                found.append(path.relative_to(REPO).as_posix())
    return found


def test_no_file_reaches_outside_the_repository() -> None:
    offenders = [
        f"{name}:{number}: {line.strip()}"
        for name in _files()
        if name not in EXCEPTIONS
        for number, line in enumerate((REPO / name).read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not offenders, "use tests/reference.py for optional comparisons:\n" + "\n".join(
        offenders
    )


def test_the_check_sees_what_it_looks_for() -> None:
    for line in ('Path("/work/shared/x")', "../shared/reference", 'parents[3] / "shared"'):
        assert OUTSIDE.search(line), line
    assert not OUTSIDE.search('"shared_by": 1  # shared by chat and wiki')
