"""Pages in a browser: `/wiki/<Title>` and `/w/index.php` (view, raw, history, edit) as HTML."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


@pytest.fixture
async def fruit(wiki: WikiHarness) -> WikiHarness:
    await wiki.edit_page(
        "Template:Infobox fruit",
        "<div class=\"infobox\">'''{{{name|Unnamed}}}''' colour: {{{colour|unknown}}}</div>"
        "<noinclude>[[Category:Templates]]</noinclude>",
    )
    await wiki.edit_page("Category:Fruit", "Fruit.")
    await wiki.edit_page("Category:Hidden one", "__HIDDENCAT__")
    await wiki.edit_page(
        "Apple",
        "{{Infobox fruit|name=Apple|colour=red}}\n"
        "An '''apple''' is ''tasty''. See [[Banana]] and [[Orchard]].\n"
        "== History ==\n* one\n** two\n# first\n"
        '{| class="wikitable"\n! Kind !! Colour\n|-\n| Gala || red\n|}\n'
        "<nowiki>[[not a link]]</nowiki>\n <pre>keep <b>this</b></pre>\n"
        "[https://example.org/x Example] and http://example.com/y\n"
        "[[Category:Fruit]] [[Category:Sour things]] [[Category:Hidden one]]",
        summary="first apple",
    )
    await wiki.edit_page("Banana", 'A banana. <script>alert(1)</script> <b onclick="x()">b</b>')
    await wiki.edit_page("Pomme", "#REDIRECT [[Apple]]")
    return wiki


async def _get(wiki: WikiHarness, url: str) -> httpx.Response:
    async with wiki.client() as client:
        return await client.get(url)


async def test_article_renders_wikitext(fruit: WikiHarness) -> None:
    response = await _get(fruit, "/wiki/Apple")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    assert '<h1 id="firstHeading" class="firstHeading">Apple</h1>' in page
    assert '<div class="infobox"><b>Apple</b> colour: red</div>' in page
    assert "An <b>apple</b> is <i>tasty</i>." in page
    assert '<a href="/wiki/Banana" title="Banana">Banana</a>' in page
    assert (
        '<a href="/w/index.php?title=Orchard&amp;action=edit&amp;redlink=1" class="new" '
        'title="Orchard (page does not exist)">Orchard</a>'
    ) in page
    assert (
        '<h2><span class="mw-headline" id="History">History</span><span class="mw-editsection">'
        in page
    )
    assert "action=edit&amp;section=1" in page
    assert "<ul><li>" in page and "<ol><li>" in page
    assert '<table class="wikitable">' in page and "<th>Kind" in page and "<td>Gala" in page
    assert "[[not a link]]" in page
    assert "<pre>keep &lt;b&gt;this&lt;/b&gt;</pre>" in page
    assert 'class="external text" href="https://example.org/x">Example</a>' in page
    assert 'class="external free" href="http://example.com/y">' in page
    catlinks = page[page.index('id="catlinks"') :]
    assert '<a href="/wiki/Category:Fruit" title="Category:Fruit">Fruit</a>' in catlinks
    assert 'class="new" title="Category:Sour things (page does not exist)">Sour things' in catlinks
    assert "Hidden one" not in catlinks
    assert "Templates" not in catlinks


async def test_user_markup_is_escaped(fruit: WikiHarness) -> None:
    page = (await _get(fruit, "/wiki/Banana")).text
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>b</b>" in page and "onclick" not in page


async def test_title_in_url_is_escaped(fruit: WikiHarness) -> None:
    response = await _get(fruit, "/wiki/%3Cscript%3E")
    assert response.status_code == 404  # MediaWiki 1.39's Bad title
    assert "<script>" not in response.text and "&lt;script&gt;" in response.text


async def test_redirect_is_followed_with_redirected_from(fruit: WikiHarness) -> None:
    page = (await _get(fruit, "/wiki/Pomme")).text
    assert '<h1 id="firstHeading" class="firstHeading">Apple</h1>' in page
    assert (
        '(Redirected from <a href="/w/index.php?title=Pomme&amp;redirect=no" '
        'class="mw-redirect" title="Pomme">Pomme</a>)'
    ) in page
    unfollowed = (await _get(fruit, "/w/index.php?title=Pomme&redirect=no")).text
    assert '<ul class="redirectText"><li><a href="/wiki/Apple" title="Apple">Apple</a>' in (
        unfollowed
    )


async def test_missing_page_is_404(fruit: WikiHarness) -> None:
    response = await _get(fruit, "/wiki/No_such_page")
    assert response.status_code == 404
    assert "There is currently no text in this page." in response.text


async def test_index_actions(fruit: WikiHarness) -> None:
    raw = await _get(fruit, "/w/index.php?title=Pomme&action=raw")
    assert raw.text == "#REDIRECT [[Apple]]"
    assert raw.headers["content-type"].startswith("text/x-wiki")
    history = (await _get(fruit, "/w/index.php?title=Apple&action=history")).text
    assert "(first apple)" in history and "Admin" in history
    edit = (await _get(fruit, "/w/index.php?title=Banana&action=edit")).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in edit and "<textarea" in edit
    view = (await _get(fruit, "/w/index.php?title=Apple")).text
    assert "An <b>apple</b>" in view
    bad = await _get(fruit, "/w/index.php?title=Apple&action=%3Cx%3E")
    # MediaWiki's "No such action" (404), which does not repeat the action.
    assert bad.status_code == 404 and "No such action" in bad.text and "<x>" not in bad.text
