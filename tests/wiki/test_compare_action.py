"""action=compare: revisions, pages and texts, torelative, the prop details, MediaWiki's errors,
and hidden revision parts kept from callers without the rights."""

from __future__ import annotations

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema

pytestmark = pytest.mark.anyio

TEXTS = ("Counting: \n* One", "Counting: \n* One \n* Two", "Counting: \n* One \n* Two \n* Three")


async def _history(wiki: WikiHarness) -> list[int]:
    return [await wiki.edit_page("Counted", t, "Alice", summary="s [[Foo]]") for t in TEXTS]


async def test_two_revisions(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    one, _two, three = await _history(wiki)
    data = await wiki.api(client, action="compare", fromrev=str(one), torev=str(three))
    out = data["compare"]
    assert (out["fromrevid"], out["torevid"], out["fromtitle"], out["tons"]) == (
        one,
        three,
        "Counted",
        0,
    )
    assert (
        '<td class="diff-addedline diff-side-added"><div><ins class="diffchange diffchange-inline">* Three</ins>'
        in out["*"]
    )
    props = "diff|diffsize|rel|ids|title|user|comment|parsedcomment|size|timestamp"
    data = await wiki.api(
        client, action="compare", fromrev=str(one), torev=str(three), prop=props, formatversion="2"
    )
    out = data["compare"]
    assert out["fromuser"] == "Alice" and out["fromcomment"] == "s [[Foo]]"
    assert 'class="new" title="Foo (page does not exist)"' in out["toparsedcomment"]
    assert (out["fromsize"], out["tosize"]) == (len(TEXTS[0]), len(TEXTS[2]))
    assert out["diffsize"] == len(out["body"].encode())
    assert "prev" not in out and "next" not in out


async def test_relative_and_texts(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    one, two, three = await _history(wiki)
    out = (
        await wiki.api(
            client, action="compare", fromrev=str(three), torelative="prev", prop="ids|rel"
        )
    )["compare"]
    assert (out["fromrevid"], out["torevid"], out["prev"]) == (two, three, one)
    out = (
        await wiki.api(client, action="compare", fromrev=str(one), torelative="cur", prop="ids")
    )["compare"]
    assert out["torevid"] == three
    data = await wiki.api(client, action="compare", fromrev=str(three), torelative="next")
    assert data["compare"]["*"] == ""
    assert "latest revision" in data["warnings"]["compare"]["*"]
    data = await wiki.api(client, action="compare", fromtitle="Counted", totext="hello")
    assert '<ins class="diffchange diffchange-inline">hello</ins>' in data["compare"]["*"]
    assert "torevid" not in data["compare"]
    data = await wiki.api(
        client, action="compare", fromslots="main", **{"fromtext-main": "x"}, totext="y"
    )
    assert '<del class="diffchange diffchange-inline">x</del>' in data["compare"]["*"]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, "missingparam"),
        ({"fromrev": "1"}, "missingparam"),
        ({"fromrev": "99999", "torev": "1"}, "nosuchrevid"),
        ({"fromid": "99999", "torev": "1"}, "nosuchpageid"),
        ({"fromtitle": "No such page", "torev": "1"}, "missingtitle"),
        ({"fromtitle": "Bad[[title", "torev": "1"}, "invalidtitle"),
        ({"fromtext": "a", "torelative": "prev"}, "compare-relative-to-nothing"),
        ({"fromslots": "main", "totext": "b"}, "missingparam"),
        ({"fromtext": "a", "totext": "b", "topst": "1"}, "compare-no-title"),
        ({"fromtitle": "Counted", "totitle": "Counted", "fromsection": "5"}, "nosuchfromsection"),
        ({"fromrev": "1", "torelative": "sideways"}, "badvalue"),
    ],
)
async def test_bad_input(
    wiki: WikiHarness, client: httpx.AsyncClient, params: dict[str, str], code: str
) -> None:
    await _history(wiki)
    data = await wiki.api(client, action="compare", **params)
    assert data["error"]["code"] == code, data


async def test_hidden_revision_parts_stay_hidden(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    one, two, three = await _history(wiki)
    # text, comment and user of the first revision hidden (rev_deleted 1|2|4)
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.update(schema.revision).where(schema.revision.c.rev_id == one).values(rev_deleted=7)
        )
    )
    data = await wiki.api(client, action="compare", fromrev=str(one), torev=str(three))
    assert data["error"]["code"] == "missingcontent"
    data = await wiki.api(
        client, action="compare", fromrev=str(two), torelative="prev", prop="ids|user|comment"
    )
    assert data["error"]["code"] == "missingcontent"
    await wiki.login(client, "Admin")
    data = await wiki.api(
        client, action="compare", fromrev=str(one), torev=str(three), prop="diff|user|comment"
    )
    out = data["compare"]
    assert out["fromuser"] == "Alice" and out["fromuserhidden"] == ""
    assert out["fromcommenthidden"] == "" and out["fromtexthidden"] == ""
    assert "* Three" in out["*"]
