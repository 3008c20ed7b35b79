"""The optional comparisons: the only tests that read files outside the repository.

Every other test needs nothing but the checkout. These compare Atrium with material about the
originals that lives beside the checkout in `../shared/reference/` (or `ATRIUM_REFERENCE_DIR`):
where it is absent they are skipped with the reason shown, except with `CI=true`, where it is
always present and a missing file is a failure. `tests/test_self_contained.py` holds every
other file of the repository to this rule, and this list is its only exception.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REFERENCE_DIR = Path(os.environ.get("ATRIUM_REFERENCE_DIR", REPO.parent / "shared" / "reference"))

# name -> (path below the reference directory, what the comparison checks)
OPTIONAL_COMPARISONS: dict[str, tuple[str, str]] = {
    "zulip-openapi": (
        "zulip/openapi-fl247.yaml",
        "Atrium's response schemas agree with Zulip's OpenAPI document where they overlap",
    ),
    "zulip-markdown-fixture": (
        "zulip/markdown_test_cases.json",
        "the markdown renderer against Zulip's own fixture, case by case",
    ),
    "mediawiki-samples": (
        "mediawiki/samples",
        "wiki answers against raw responses of a real MediaWiki 1.39",
    ),
    "wiki-spec": (
        "../spec/wiki-query-modules.md",
        "action=paraminfo against the wiki specification's enum lists",
    ),
}

# Files outside tests/ that may name the reference directory: the bench's MediaWiki family
# installs the reference MediaWiki from there and says why it skips without it.
OUTSIDE_TESTS = ("bench/mediawiki_ref.py",)


def reference_path(name: str) -> Path:
    """The file or folder of the comparison `name`, whether or not it exists."""
    return REFERENCE_DIR / OPTIONAL_COMPARISONS[name][0]


def require_reference(name: str) -> Path:
    """`name`'s file or folder; skips the calling test when it is absent (fails in CI)."""
    path = reference_path(name)
    if not path.exists():
        reason = f"optional comparison '{name}' needs {path} (absent)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def skip_without(name: str) -> pytest.MarkDecorator:
    """A mark that skips a test or module when `name`'s reference is absent (fails in CI)."""
    present = reference_path(name).exists() or os.environ.get("CI") == "true"
    return pytest.mark.skipif(
        not present, reason=f"optional comparison '{name}' needs {reference_path(name)} (absent)"
    )
