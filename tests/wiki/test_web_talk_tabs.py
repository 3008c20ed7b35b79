"""A page's tabs and its talk page's: "Article" and "Discussion" (red while the talk page does
not exist), the one shown selected, and on a talk page "Add topic", which adds a section."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_web_edit import _form_fields
from tests.wiki.web_forms import sign_in

pytestmark = pytest.mark.anyio


def _tab(page: str, tab_id: str) -> str:
    match = re.search(rf'<li id="{tab_id}"[^>]*>.*?</li>', page, re.S)
    assert match is not None, tab_id
    return match.group(0)


async def test_article_and_discussion_tabs(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Lake", "A lake.")
    article = (await client.get("/wiki/Lake")).text
    main, talk = _tab(article, "ca-nstab-main"), _tab(article, "ca-talk")
    assert "selected" in main and 'href="/wiki/Lake"' in main
    # No talk page yet: a red tab that creates it.
    assert "new" in talk and "title=Talk:Lake&amp;action=edit&amp;redlink=1" in talk
    assert "selected" not in talk and 'id="ca-addsection"' not in article
    await wiki.edit_page("Talk:Lake", "== Depth ==\nHow deep is it?")
    discussion = (await client.get("/wiki/Talk:Lake")).text
    main, talk = _tab(discussion, "ca-nstab-main"), _tab(discussion, "ca-talk")
    assert "selected" in talk and "new" not in talk and 'href="/wiki/Talk:Lake"' in talk
    assert "selected" not in main and 'href="/wiki/Lake"' in main
    assert "title=Talk:Lake&amp;action=edit&amp;section=new" in _tab(discussion, "ca-addsection")
    # The article's tab is blue now that the talk page exists.
    assert "new" not in _tab((await client.get("/wiki/Lake")).text, "ca-talk")


async def test_add_topic_appends_a_section(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Talk:Pond", "== Ducks ==\nHow many?")
    await sign_in(client, "Alice")
    url = "/w/index.php?title=Talk:Pond&action=edit&section=new"
    form = (await client.get(url)).text
    assert "Editing Talk:Pond (new section)" in form
    assert "selected" in _tab(form, "ca-addsection") and "selected" not in _tab(form, "ca-edit")
    fields = _form_fields(form)
    saved = await client.post(
        "/w/index.php?title=Talk:Pond&action=submit",
        data={**fields, "wpSummary": "Frogs", "wpTextbox1": "Any frogs?", "wpSave": "1"},
    )
    assert saved.status_code == 303
    raw = (await client.get("/w/index.php?title=Talk:Pond&action=raw")).text
    assert raw == "== Ducks ==\nHow many?\n\n== Frogs ==\n\nAny frogs?"
    # No "Add topic" on an article.
    assert 'id="ca-addsection"' not in (await client.get("/wiki/Main_Page")).text
