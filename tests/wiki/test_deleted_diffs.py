"""prop=deletedrevisions' deprecated diff options, through the code prop=revisions uses:
`drvdifftotext` diffs the archived text (MediaWiki's diff table), `drvdiffto` answers as 1.39's
DifferenceEngine does for a revision it cannot find in `revision` (from/to, body false)."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

# Recorded from MediaWiki 1.39: the archived "line one\nline 2\nthree" against "line one".
_BODY = (
    '<tr><td colspan="2" class="diff-lineno" id="mw-diff-left-l1">Line 1:</td>\n'
    '<td colspan="2" class="diff-lineno">Line 1:</td></tr>\n'
    '<tr><td class="diff-marker"></td><td class="diff-context diff-side-deleted"><div>line one'
    '</div></td><td class="diff-marker"></td><td class="diff-context diff-side-added"><div>'
    "line one</div></td></tr>\n"
    '<tr><td class="diff-marker" data-marker="\u2212"></td><td class="diff-deletedline '
    'diff-side-deleted"><div><del class="diffchange">line 2</del></div></td><td colspan="2" '
    'class="diff-side-added"></td></tr>\n'
    '<tr><td class="diff-marker" data-marker="\u2212"></td><td class="diff-deletedline '
    'diff-side-deleted"><div><del class="diffchange">three</del></div></td><td colspan="2" '
    'class="diff-side-added"></td></tr>\n'
)


@pytest.fixture
async def deleted(wiki: WikiHarness, client: httpx.AsyncClient) -> list[int]:
    first = await wiki.edit_page("Gone", "line one\nline two", summary="s1")
    second = await wiki.edit_page("Gone", "line one\nline 2\nthree", summary="s2")
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    result = await wiki.post(client, action="delete", title="Gone", token=token)
    assert "delete" in result, result
    return [second, first]


async def _drv(wiki: WikiHarness, client: httpx.AsyncClient, **params: str) -> dict:  # type: ignore[type-arg]
    data = await wiki.api(
        client, action="query", titles="Gone", prop="deletedrevisions", drvprop="ids", **params
    )
    return data  # type: ignore[no-any-return]


async def test_difftotext_diffs_the_archived_text(
    wiki: WikiHarness, client: httpx.AsyncClient, deleted: list[int]
) -> None:
    data = await _drv(wiki, client, drvdifftotext="line one", drvlimit="1")
    revs = data["query"]["pages"]["-1"]["deletedrevisions"]
    assert revs == [{"revid": deleted[0], "parentid": deleted[1], "diff": {"*": _BODY}}]
    warning = data["warnings"]["deletedrevisions"]["*"]
    assert '"drvdifftotext" has been deprecated' in warning
    assert 'Because "drvslots" was not specified' in warning
    assert data["continue"]["drvcontinue"].startswith("0|Gone|")
    # Only one uncached diff per request ($wgAPIMaxUncachedDiffs), as in prop=revisions.
    both = await _drv(wiki, client, drvdifftotext="line one", formatversion="2")
    diffs = [r["diff"] for r in both["query"]["pages"][0]["deletedrevisions"]]
    assert diffs == [{"body": _BODY}, {"notcached": True}]


async def test_difftotextpst_applies_the_pre_save_transform(
    wiki: WikiHarness, client: httpx.AsyncClient, deleted: list[int]
) -> None:
    data = await _drv(
        wiki, client, drvdifftotext="line one\nline 2\nthree  \n\n", drvdifftotextpst="1",
        drvlimit="1", formatversion="2",
    )  # fmt: skip
    assert data["query"]["pages"][0]["deletedrevisions"][0]["diff"] == {"body": ""}


async def test_diffto_answers_as_the_difference_engine(
    wiki: WikiHarness, client: httpx.AsyncClient, deleted: list[int]
) -> None:
    prev = await _drv(wiki, client, drvdiffto="prev")
    diffs = [r["diff"] for r in prev["query"]["pages"]["-1"]["deletedrevisions"]]
    assert diffs == [{"to": deleted[0]}, {"to": deleted[1]}]
    for value, to in (("cur", 0), ("next", 0)):
        data = await _drv(wiki, client, drvdiffto=value, drvlimit="1", formatversion="2")
        diff = data["query"]["pages"][0]["deletedrevisions"][0]["diff"]
        assert diff == {"from": deleted[0], "to": to, "body": False}
    live = await wiki.edit_page("Elsewhere", "text")
    data = await _drv(wiki, client, drvdiffto=str(live), drvlimit="1", formatversion="2")
    diff = data["query"]["pages"][0]["deletedrevisions"][0]["diff"]
    assert diff == {"from": deleted[0], "to": live, "body": False}


async def test_diffto_bad_values(
    wiki: WikiHarness, client: httpx.AsyncClient, deleted: list[int]
) -> None:
    bad = await _drv(wiki, client, drvdiffto="sideways")
    assert bad["error"]["code"] == "diffto"
    assert bad["error"]["info"] == (
        '"drvdiffto" must be set to a non-negative number, "prev", "next" or "cur".'
    )
    # An archived revision is not in `revision`: MediaWiki refuses it as unknown.
    unknown = await _drv(wiki, client, drvdiffto=str(deleted[1]))
    assert unknown["error"]["code"] == "nosuchrevid"
    with_slots = await _drv(wiki, client, drvdiffto="prev", drvslots="main")
    assert with_slots["error"]["code"] == "invalidparammix"
    assert with_slots["error"]["info"] == (
        'The "drvdiffto" parameter cannot be used with "drvslots".'
    )
    async with wiki.client() as anon:
        refused = await _drv(wiki, anon, drvdifftotext="x")
    assert refused["error"]["code"] == "permissiondenied"
