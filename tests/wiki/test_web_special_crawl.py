"""Every link on every Special page, followed in-process as an administrator and as an anonymous
reader: no server error and no 400, and every link of a kind MediaWiki 1.39 was asked
(`data/mw139_crawl_statuses.json`) answers its status, any other 4xx failing as a kind nobody
compared; on a wiki seeded with what the reports list (redirects, double and broken redirects,
wanted pages, files, hostile titles and summaries). Each Special page is also opened with
hostile and malformed parameters, and the report pages' empty state and paging are checked."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.crawl_kinds import Kinds
from tests.wiki.web_special_seed import edit, page_token, sign_in

pytestmark = pytest.mark.anyio

HOSTILE = '<script>alert("x")</script>'
LINK = re.compile(r'href="([^"]+)"')
BAD_PARAMS = (
    "?limit=abc&offset=-5&username=%3Cscript%3E&mime=%3Cscript%3E&target=%3Cscript%3E"
    "&prefix=%3Cscript%3E&filename=%3Cscript%3E&group=%3Cscript%3E&user=%3Cscript%3E"
    "&page=%3Cscript%3E&days=-1&namespace=zz"
)
MEDIAWIKI = json.loads((Path(__file__).parent / "data" / "mw139_crawl_statuses.json").read_text())[
    "kinds"
]


async def _seed(wiki: WikiHarness) -> None:
    await edit(wiki, "Hub", "Links to [[Spoke]], [[Missing page]] and [[File:Nowhere.png]].")
    await edit(wiki, "Spoke", "Back to [[Hub]]. {{Boilerplate}} [[Category:Wheels]]")
    await edit(wiki, "Template:Boilerplate", "boiler")
    await edit(wiki, "Lonely", "Nobody links here and it has no links.")
    await edit(wiki, "Hop one", "#REDIRECT [[Hop two]]")
    await edit(wiki, "Hop two", "#REDIRECT [[Hub]]")
    await edit(wiki, "Broken", "#REDIRECT [[Nothing here]]")
    await edit(wiki, 'Quote"&amp', "hostile title", summary=f"/* {HOSTILE} */ {HOSTILE}")
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        token = await page_token(admin)
        for title, field in (("Hub", "edit"), ("Wanted_title", "create")):
            await admin.post(
                f"/w/index.php?title={title}&action=protect",
                data={f"mwProtect-level-{field}": "sysop", "mwProtect-level-move": "sysop",
                      "mwProtect-reason": HOSTILE, "wpEditToken": token},
            )  # fmt: skip


def _internal(href: str) -> str | None:
    url = unescape(href)
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path.startswith(("/wiki/", "/w/index.php")):
        return None
    if "action=delete" in url or "action=rollback" in url or "UserLogout" in url:
        return None  # their GET is a form, but leave the session and pages alone
    return url


async def _crawl(client: httpx.AsyncClient) -> dict[str, int]:
    listing = await client.get("/wiki/Special:SpecialPages")
    assert listing.status_code == 200
    specials = sorted(
        {u for h in LINK.findall(listing.text) if (u := _internal(h)) and "Special:" in u}
    )
    assert len(specials) > 50
    seen: dict[str, int] = {}
    for special in specials:
        page = await client.get(special)
        seen[special] = page.status_code
        for href in LINK.findall(page.text):
            url = _internal(href)
            if url is None or url in seen:
                continue
            seen[url] = (await client.get(url)).status_code
    return seen


async def test_crawl_as_administrator_and_anonymous(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _seed(wiki)
    anonymous = await _crawl(client)
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        administrator = await _crawl(admin)
    kinds = Kinds(wiki)
    await kinds.learn([*anonymous, *administrator])
    differing, unknown, refusals = {}, {}, set()
    for who, seen in (("anonymous", anonymous), ("administrator", administrator)):
        bad = {url: code for url, code in seen.items() if code >= 500 or code == 400}
        assert bad == {}, who
        for url, code in seen.items():
            kind = kinds.of(url, who)
            fact = MEDIAWIKI.get(kind or "")
            if 400 <= code < 500:
                refusals.add(kind)
            if fact is None:
                if 400 <= code < 500:
                    unknown[f"{who} {url}"] = (kind, code)
            elif code != fact["status"] and (400 <= code < 500 or 400 <= fact["status"] < 500):
                differing[f"{who} {url}"] = (kind, code, fact["status"], fact["path"])
    assert unknown == {}, "4xx of kinds MediaWiki was not asked: " + json.dumps(unknown, indent=1)
    assert differing == {}, "(kind, ours, MediaWiki's): " + json.dumps(differing, indent=1)
    # The refusals met are of kinds MediaWiki refuses too (a missing page, related changes of
    # nothing); the permission errors it met answered 200, as MediaWiki's do.
    assert {"view of missing page as anonymous", "Special:recentchangeslinked as anonymous"} <= (
        refusals
    )
    refused = await client.get("/wiki/Special:Unwatchedpages")
    assert "Permission error" in refused.text
    assert refused.status_code == MEDIAWIKI["Special:unwatchedpages as anonymous"]["status"]
    assert "/wiki/Special:Undelete" in administrator and "/wiki/Special:Undelete" not in anonymous
    assert administrator["/wiki/Special:Unwatchedpages"] == 200


async def test_hostile_and_malformed_parameters(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _seed(wiki)
    await sign_in(wiki, client, "Admin")
    listing = (await client.get("/wiki/Special:SpecialPages")).text
    specials = sorted({u for h in LINK.findall(listing) if (u := _internal(h)) and "Special:" in u})
    for special in specials:
        page = await client.get(special + BAD_PARAMS)
        assert page.status_code < 500 and page.status_code != 400, special
        assert "<script>alert" not in page.text, special


async def test_reports_list_paging_and_empty_state(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    empty = await client.get("/wiki/Special:DoubleRedirects")
    assert empty.status_code == 200 and "There are no results for this report." in empty.text
    await _seed(wiki)
    double = (await client.get("/wiki/Special:DoubleRedirects")).text
    assert re.search(r">Hop one</a> \u2192 <a[^>]*>Hop two</a> \u2192 <a[^>]*>Hub</a>", double)
    broken = (await client.get("/wiki/Special:BrokenRedirects")).text
    assert 'class="new" title="Nothing here (page does not exist)"' in broken
    wanted = (await client.get("/wiki/Special:WantedPages")).text
    assert "Missing page" in wanted and "(1 link)" in wanted
    lonely = (await client.get("/wiki/Special:LonelyPages")).text
    assert ">Lonely</a>" in lonely
    short = await client.get("/wiki/Special:ShortPages?limit=1")
    assert 'class="mw-nextlink"' in short.text and short.text.count("bytes]") == 1
    second = await client.get("/wiki/Special:ShortPages?limit=1&offset=1")
    assert 'class="mw-prevlink"' in second.text and '<ol start="2"' in second.text
    refused = await client.get("/wiki/Special:UnwatchedPages")
    assert refused.status_code == 200 and "Permission error" in refused.text
    users = (await client.get("/wiki/Special:ListUsers?group=sysop")).text
    assert ">Admin</bdi>" in users and ">Alice</bdi>" not in users
    rights = (await client.get("/wiki/Special:ListGroupRights")).text
    assert "<code>protect</code>" in rights
    active = (await client.get("/wiki/Special:ActiveUsers")).text
    assert ">Admin</bdi>" in active
    mime = await client.get("/wiki/Special:MIMESearch?mime=image/*")
    assert mime.status_code == 200 and "There are no results" in mime.text
    assert (await client.get("/wiki/Special:Newimages")).status_code == 200


async def test_export_and_allmessages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Exported", f"text {HOSTILE}")
    form = await client.get("/wiki/Special:Export")
    assert form.status_code == 200 and 'name="pages"' in form.text
    empty = await client.post("/w/index.php?title=Special:Export", data={"pages": "\n"})
    assert empty.status_code == 200 and "No pages to export" in empty.text
    xml = await client.post(
        "/w/index.php?title=Special:Export",
        data={"pages": "Exported\n<bad>\nMissing one", "wpDownload": "1"},
    )
    assert xml.headers["content-type"].startswith("application/xml")
    assert "attachment" in xml.headers["content-disposition"]
    assert xml.text.count("<page>") == 1 and "&lt;script&gt;" in xml.text
    assert "<script>" not in xml.text
    messages = (await client.get("/wiki/Special:AllMessages?prefix=logentry-move&limit=2")).text
    assert 'id="msg_logentry-move-move"' in messages and 'class="mw-nextlink"' in messages
    await edit(wiki, "MediaWiki:Mainpage", "Home <b>")
    modified = (await client.get("/wiki/Special:AllMessages?filter=modified")).text
    assert 'id="msg_mainpage"' in modified and "Home &lt;b&gt;" in modified
    assert 'id="msg_edit"' not in modified


async def test_redirecting_special_pages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Versions", "one")
    await edit(wiki, "Versions", "two")
    await sign_in(wiki, client, "Alice")
    expected = {
        "MyPage": "/wiki/User:Alice",
        "MyPage/Notes": "/wiki/User:Alice/Notes",
        "MyTalk": "/wiki/User_talk:Alice",
        "MyContributions": "/wiki/Special:Contributions/Alice",
        "MyUploads": "/wiki/Special:ListFiles/Alice",
        "ListAdmins": "/wiki/Special:ListUsers/sysop",
        "ListBots": "/wiki/Special:ListUsers/bot",
    }
    for name, where in expected.items():
        moved = await client.get(f"/wiki/Special:{name}")
        assert moved.status_code == 302 and moved.headers["location"] == where, name
    link = await client.get("/wiki/Special:PermanentLink/1", follow_redirects=True)
    assert link.status_code == 200 and "one" in link.text
    diff = await client.get("/wiki/Special:Diff/2", follow_redirects=True)
    assert diff.status_code == 200 and 'class="diff' in diff.text
    form = await client.get("/wiki/Special:Diff?revid=abc")
    assert form.status_code == 200 and "must be a number" in form.text


async def test_protected_pages_titles_and_tags(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    empty = (await client.get("/wiki/Special:ProtectedPages")).text
    assert "There are currently no pages protected" in empty
    await edit(wiki, "Fortress", "walls")
    async with wiki.client() as admin:
        await sign_in(wiki, admin, "Admin")
        token = await page_token(admin)
        for title, field in (("Fortress", "edit"), ("Not_yet", "create")):
            done = await admin.post(
                f"/w/index.php?title={title}&action=protect",
                data={f"mwProtect-level-{field}": "sysop", "mwProtect-level-move": "sysop",
                      "mwProtect-reason": HOSTILE, "wpEditToken": token},
            )  # fmt: skip
            assert done.status_code == 303, done.text
    pages = (await client.get("/wiki/Special:ProtectedPages?type=edit&level=sysop")).text
    assert ">Fortress</a>" in pages and "Administrators" in pages and "infinite" in pages
    moved = (await client.get("/wiki/Special:ProtectedPages?type=upload")).text
    assert ">Fortress</a>" not in moved
    titles = (await client.get("/wiki/Special:ProtectedTitles")).text
    assert ">Not yet</a>" in titles and ">Admin</a>" in titles
    assert "<script>alert" not in titles and "&lt;script&gt;" in titles
    tags = await client.get("/wiki/Special:Tags")
    assert (tags.status_code == 200 and "<code>mw-" in tags.text) or "No tags" in tags.text


async def test_related_changes_and_compare_pages(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Source page", "See [[Linked page]].")
    await edit(wiki, "Linked page", "first", summary="linked edit")
    await edit(wiki, "Unrelated", "other", summary="unrelated edit")
    related = (await client.get("/wiki/Special:RecentChangesLinked/Source_page")).text
    assert "linked edit" in related and "unrelated edit" not in related
    back = (
        await client.get("/wiki/Special:RecentChangesLinked?target=Linked+page&showlinkedto=1")
    ).text
    assert ">Source page</a>" in back and "unrelated edit" not in back
    bad = await client.get("/wiki/Special:RecentChangesLinked?target=%3Cx%3E")
    assert bad.status_code == 404 and "empty or invalid" in bad.text
    # No changes to relate: MediaWiki's 404 (data/mw139_crawl_statuses.json).
    assert (await client.get("/wiki/Special:RecentChangesLinked")).status_code == 404
    assert (await client.get("/wiki/Special:RecentChangesLinked/Unrelated")).status_code == 404
    compared = await client.get(
        "/wiki/Special:ComparePages?page1=Source+page&page2=Linked+page", follow_redirects=True
    )
    assert compared.status_code == 200 and "Linked page" in compared.text
    assert 'class="diff' in compared.text
    missing = await client.get("/wiki/Special:ComparePages?page1=Nope&rev2=abc")
    assert missing.status_code == 200 and "First: no such page" in missing.text
    assert "Second: not a revision id" in missing.text


async def test_expand_templates(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Template:Greet", "Hello {{{1}}}<!-- note -->!")
    form = await client.get("/wiki/Special:ExpandTemplates")
    assert form.status_code == 200 and 'name="wpInput"' in form.text
    done = await client.post(
        "/w/index.php?title=Special:ExpandTemplates",
        data={"wpInput": "{{Greet|<b>world</b>}} {{PAGENAME}}", "wpContextTitle": "Sandbox",
              "wpRemoveComments": "1"},
    )  # fmt: skip
    assert done.status_code == 200
    assert "Hello &lt;b&gt;world&lt;/b&gt;! Sandbox</textarea>" in done.text
    assert "<b>world</b>" in done.text  # the preview renders it
    kept = await client.post(
        "/w/index.php?title=Special:ExpandTemplates",
        data={"wpInput": "{{Greet|x}}", "wpRemoveComments": "0"},
    )
    assert "&lt;!-- note --&gt;" in kept.text
    hostile = await client.post(
        "/w/index.php?title=Special:ExpandTemplates",
        data={"wpInput": f"{HOSTILE}", "wpContextTitle": "<bad>"},
    )
    assert hostile.status_code == 200 and "empty or invalid" in hostile.text
    assert "<script>alert" not in hostile.text


async def test_expand_templates_keeps_script_inert(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    done = await client.post(
        "/w/index.php?title=Special:ExpandTemplates",
        data={"wpInput": f"{HOSTILE} <img src=x onerror=alert(2)>", "wpContextTitle": "Sandbox"},
    )
    assert done.status_code == 200 and "<script>alert" not in done.text
    assert "onerror=alert(2)>" not in done.text.replace("&lt;img src=x onerror=alert(2)&gt;", "")
