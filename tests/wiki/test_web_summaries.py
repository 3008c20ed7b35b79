"""Edit summaries drawn as Linker::formatComment draws them (section autocomments as "→Section"
links, `[[links]]` blue or red, everything else escaped) in history, recent changes,
contributions, diffs and logs; log lines as MediaWiki's `logentry-*` sentences."""

from __future__ import annotations

import html

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit, page_token, sign_in

from atrium.wiki.reads.comments import format_comments
from atrium.wiki.titles import Title

pytestmark = pytest.mark.anyio

SECTION = '<a href="/wiki/Apple#Taste" title="Apple">\u2192\u200eTaste</a>'


async def test_autocomments_and_links(wiki: WikiHarness) -> None:
    await edit(wiki, "Orchard", "trees")
    apple = Title(0, "Apple")
    cases = [
        ("/* Taste */ sweeter", apple),
        ("fixed /* Taste */", apple),
        ("/* Taste */", None),
        ("see [[Orchard]] and [[Nowhere|there]]", apple),
        ("<b>bold</b> /* [[Orchard]] */", apple),
    ]
    html = await wiki.db.read(format_comments, wiki.site, cases)
    assert html[0] == f'<span class="autocomment">{SECTION}: </span> sweeter'
    assert html[1] == f'fixed - <span class="autocomment">{SECTION}</span>'
    assert html[2] == '<span class="autocomment">Taste</span>'
    assert '<a href="/wiki/Orchard" title="Orchard">Orchard</a>' in html[3]
    assert 'class="new" title="Nowhere (page does not exist)">there</a>' in html[3]
    assert html[4].startswith("&lt;b&gt;bold&lt;/b&gt; - ")
    # The section's own [[ ]] are not links.
    assert "&#91;[Orchard]]" in html[4] and 'href="/wiki/Apple#Orchard"' in html[4]


async def test_summaries_on_every_page(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Apple", "== Taste ==\nsweet", summary="/* Taste */ <script>x()</script>")
    await edit(wiki, "Apple", "== Taste ==\nsour", summary="/* Taste */ see [[Apple]]")
    for url in (
        "/w/index.php?title=Apple&action=history",
        "/wiki/Special:RecentChanges",
        "/wiki/Special:Contributions/Admin",
        "/w/index.php?title=Apple&diff=cur&oldid=prev",
    ):
        page = (await client.get(url)).text
        assert SECTION in page, url
        assert "<script>x()" not in page and "/* Taste */" not in page, url
    history = (await client.get("/w/index.php?title=Apple&action=history")).text
    assert 'class="mw-usertoollinks-contribs"' in history and "mw-plusminus-" in history


async def test_log_lines_read_as_sentences(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Start", "text")
    await sign_in(wiki, client, "Admin")
    await client.post(
        "/w/index.php?title=Special:MovePage",
        data={"target": "Start", "wpNewTitle": "Finish", "wpReason": "/* x */ [[Start]]",
              "wpLeaveRedirect": "1", "wpEditToken": await page_token(client)},
    )  # fmt: skip
    await client.post(
        "/w/index.php?title=Finish&action=protect",
        data={"mwProtect-level-edit": "sysop", "mwProtect-level-move": "sysop",
              "wpEditToken": await page_token(client)},
    )  # fmt: skip
    log = html.unescape((await client.get("/wiki/Special:Log")).text)
    assert ">contribs</a>) moved page <a" in log and 'title="Finish">Finish</a>' in log
    assert ">contribs</a>) protected <a" in log and "[edit=sysop] (indefinite)" in log
    changes = (await client.get("/wiki/Special:RecentChanges?hidebots=0")).text
    assert ">Move log</a>)" in changes and "(move log)" not in changes
    assert "moved page" in changes
    types = (await client.get("/wiki/Special:Log")).text
    for name in ("User creation log", "Patrol log", "Merge log", "Tag log"):
        assert f">{name}</option>" in types
