"""Prop modules, prop generators and their continuation against MediaWiki 1.39's own answers.

`data/refwiki_pages.json` is the reference wiki's edits in the order they were made (the seed of
`mediawiki-ref.sh` plus a few `P9 …` pages); replayed here they give the same page ids. `data/prop_cases.json` holds requests and the reference wiki's parsed responses; fields that
depend on when the pages were saved (timestamps, revision ids) are masked on both sides.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent / "data"
EDITS = json.loads((DATA / "refwiki_pages.json").read_text())["edits"]
CASES = json.loads((DATA / "prop_cases.json").read_text())
_VOLATILE = {"touched", "lastrevid", "timestamp", "revid", "parentid", "docref", "*"}
# Continuation values that end in a row id of a table other than page (externallinks' el_id).
_ROW_ID_CONTINUE = {"elcontinue"}


def mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: (
                "<masked>"
                if k in _VOLATILE and not isinstance(v, dict | list)
                else v.rsplit("|", 1)[0] + "|<id>"
                if k in _ROW_ID_CONTINUE
                else mask(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


async def build_refwiki(wiki: WikiHarness) -> None:
    for edit in EDITS:
        await wiki.edit_page(edit["title"], edit["text"])


@pytest.fixture
async def refwiki(wiki: WikiHarness) -> WikiHarness:
    await build_refwiki(wiki)
    return wiki


def _case_id(case: dict[str, Any]) -> str:
    return "&".join(f"{k}={v}" for k, v in case["params"].items())


async def test_refwiki_page_ids_match(refwiki: WikiHarness) -> None:
    async with refwiki.client() as client:
        data = await refwiki.api(
            client, action="query", titles="Main Page|P9 Files", formatversion=2
        )
    assert [p["pageid"] for p in data["query"]["pages"]] == [1, 36]


async def test_prop_cases_match_mediawiki(refwiki: WikiHarness) -> None:
    """Every recorded case in one wiki (building it takes most of the time)."""
    failures = []
    async with refwiki.client() as client:
        for case in CASES:
            got = await refwiki.api(client, action="query", **case["params"])
            if mask(got) != mask(case["expected"]):
                failures.append(
                    f"{_case_id(case)}\n  expected {json.dumps(mask(case['expected']))}"
                    f"\n  got      {json.dumps(mask(got))}"
                )
    assert not failures, f"{len(failures)} of {len(CASES)} differ:\n" + "\n".join(failures)
