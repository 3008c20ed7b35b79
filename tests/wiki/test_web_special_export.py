"""Special:Export as MediaWiki 1.39 answers it: a posted form exports every revision unless
`curonly` is ticked, a link only the current one unless it asks for `history`; `templates` adds
the templates used; "Add pages from category" fills the list. A long history is written a few
revisions at a time and comes out whole; a hidden revision's text stays hidden."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit

from atrium.wiki import schema
from atrium.wiki.web.special.export import REVISIONS_PER_STEP

pytestmark = pytest.mark.anyio

EXPORT = "/w/index.php?title=Special:Export"
NS = "{http://www.mediawiki.org/xml/export-0.11/}"
HOSTILE = '<script>alert("x")</script>'


def _pages(response: httpx.Response) -> dict[str, list[str]]:
    """Each exported page's title and its revisions' texts, oldest first (the XML parsed)."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/xml")
    root = ET.fromstring(response.content)
    return {
        str(page.findtext(f"{NS}title")): [
            str(rev.findtext(f"{NS}text") or "") for rev in page.iter(f"{NS}revision")
        ]
        for page in root.iter(f"{NS}page")
    }


async def test_history_by_form_and_by_link(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for text in ("one", "two", "three"):
        await edit(wiki, "Story", text)
    full = await client.post(EXPORT, data={"pages": "Story"})
    assert _pages(full) == {"Story": ["one", "two", "three"]}
    current = await client.post(EXPORT, data={"pages": "Story", "curonly": "1"})
    assert _pages(current) == {"Story": ["three"]}
    assert _pages(await client.get("/wiki/Special:Export/Story")) == {"Story": ["three"]}
    linked = await client.get("/w/index.php", params={"title": "Special:Export",
                                                      "pages": "Story", "history": "1"})  # fmt: skip
    assert _pages(linked) == {"Story": ["one", "two", "three"]}


async def test_a_long_history_comes_out_whole_and_in_order(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    count = REVISIONS_PER_STEP * 2 + 3
    for i in range(count):
        await edit(wiki, "Diary", f"entry {i}")
    await edit(wiki, "Short", HOSTILE)
    answer = await client.post(EXPORT, data={"pages": "Diary\nShort\nMissing page\n<bad>"})
    assert _pages(answer) == {
        "Diary": [f"entry {i}" for i in range(count)],
        "Short": [HOSTILE],
    }
    assert "<script>" not in answer.text


async def test_templates_are_added(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Template:Outer", "outer {{Inner}}")
    await edit(wiki, "Template:Inner", "inner")
    await edit(wiki, "Uses", "see {{Outer}} and {{Nowhere}}")
    plain = await client.post(EXPORT, data={"pages": "Uses", "curonly": "1"})
    assert list(_pages(plain)) == ["Uses"]
    added = await client.post(EXPORT, data={"pages": "Uses", "curonly": "1", "templates": "1"})
    assert sorted(_pages(added)) == ["Template:Inner", "Template:Outer", "Uses"]


async def test_pages_from_a_category_fill_the_list(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Apple", "[[Category:Fruit]]")
    await edit(wiki, "Pear & Co", "[[Category:Fruit]]")
    form = await client.post(EXPORT, data={"pages": "Kept", "catname": "Fruit", "addcat": "Add"})
    assert form.status_code == 200
    assert "Kept\nApple\nPear &amp; Co</textarea>" in form.text
    assert 'name="curonly" value="1">' in form.text  # as posted: not ticked
    prefixed = await client.post(EXPORT, data={"catname": "Category:Fruit", "addcat": "Add"})
    assert ">Apple\nPear" in prefixed.text
    for bad in ("", "<>", "Special:Nothing", "\x00"):
        again = await client.post(EXPORT, data={"pages": "Kept", "catname": bad, "addcat": "Add"})
        assert again.status_code == 200 and ">Kept</textarea>" in again.text, bad
    fresh = await client.get("/wiki/Special:Export")
    assert 'name="curonly" value="1" checked>' in fresh.text


async def test_a_hidden_revision_text_is_not_exported(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    hidden = await edit(wiki, "Secretive", "the secret")
    await edit(wiki, "Secretive", "public now")
    R = schema.revision
    await wiki.db.write(
        lambda conn: conn.execute(sa.update(R).where(R.c.rev_id == hidden).values(rev_deleted=1))
    )
    answer = await client.post(EXPORT, data={"pages": "Secretive"})
    assert "the secret" not in answer.text and 'deleted="deleted"' in answer.text
    assert _pages(answer) == {"Secretive": ["", "public now"]}
