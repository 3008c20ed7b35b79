"""The small core Special pages over HTTP: BlankPage, ApiHelp, GoToInterwiki, the Interwiki
extension's read-only list, ListGrants, PasswordPolicies, the pages that lead to a page's action
(EditPage, PageHistory, PageInfo, NewSection), AllMyUploads and MyLanguage; how
Special:SpecialPages lists them; and a private wiki's anonymous visitor refused by each."""

from __future__ import annotations

import asyncio
import re
from urllib.parse import urlsplit

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_private_wiki import private_client
from tests.wiki.web_forms import sign_in as form_sign_in
from tests.wiki.web_special_seed import edit, sign_in

pytestmark = pytest.mark.anyio

__all__ = ["private_client"]

NEW_PAGES = (
    "BookSources", "PagesWithProp", "TrackingCategories", "RandomRedirect", "RandomRootpage",
    "RandomInCategory", "Redirect", "Interwiki", "ListGrants", "PasswordPolicies", "EditPage",
    "PageHistory", "PageInfo", "NewSection", "BlankPage", "ApiHelp", "GoToInterwiki", "FilePath",
    "AllMyUploads", "MyLanguage", "LinkSearch", "Purge", "PageData",
)  # fmt: skip


def _group(listing: str, key: str) -> str:
    found = re.search(rf'id="mw-specialpagesgroup-{key}">.*?</ul>', listing, re.S)
    assert found is not None, key
    return found.group(0)


async def test_special_pages_lists_them_in_mediawikis_groups(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    listing = (await client.get("/wiki/Special:SpecialPages")).text
    expected = {
        "pages": ("PagesWithProp", "TrackingCategories", "LinkSearch"),
        "redirects": ("RandomRedirect", "RandomRootpage", "RandomInCategory", "Redirect",
                      "EditPage", "PageHistory", "PageInfo", "NewSection", "Purge"),
        "wiki": ("BookSources", "Interwiki"),
        "users": ("ListGrants", "PasswordPolicies"),
    }  # fmt: skip
    for key, names in expected.items():
        section = _group(listing, key)
        for name in names:
            assert f'href="/wiki/Special:{name}"' in section, (key, name)
    for unlisted in ("BlankPage", "ApiHelp", "GoToInterwiki", "FilePath", "AllMyUploads",
                     "MyLanguage"):  # fmt: skip
        assert f'href="/wiki/Special:{unlisted}"' not in listing, unlisted


async def test_blank_page_and_api_help(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    blank = await client.get("/wiki/Special:BlankPage")
    assert blank.status_code == 200 and "This page is intentionally left blank." in blank.text
    assert (await client.get("/wiki/Special:Blankpage?x=%3Cscript%3E")).status_code == 200
    main = await client.get("/wiki/Special:ApiHelp")
    assert main.status_code == 302
    assert main.headers["location"].endswith("/w/api.php?action=help&modules=main")
    sub = await client.get("/wiki/Special:ApiHelp/rsub/query+allpages?submodules=1")
    assert sub.headers["location"].endswith(
        "api.php?action=help&submodules=1&recursivesubmodules=1&modules=query%2Ballpages"
    )
    hostile = await client.get("/wiki/Special:ApiHelp/x%22onclick%3Dalert(1)")
    assert hostile.status_code == 302 and '"' not in hostile.headers["location"]
    parts = urlsplit(main.headers["location"])
    answer = await client.get(f"{parts.path}?{parts.query}")
    assert answer.status_code == 200


async def test_go_to_interwiki_and_interwiki_list(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    local = await client.get("/wiki/Special:GoToInterwiki/Some_page")
    assert local.status_code == 301 and local.headers["location"] == "/wiki/Some_page"
    away = await client.get("/wiki/Special:GoToInterwiki/fr:Pomme")
    assert away.status_code == 200
    assert "You are about to leave Atrium Wiki to visit" in away.text
    assert 'href="https://fr.wikipedia.org/wiki/Pomme"' in away.text
    for bad in ("Special:Version", "", "force/Special:Random"):
        refused = await client.get(f"/wiki/Special:GoToInterwiki/{bad}")
        assert refused.status_code == 404 and "The specified title is invalid." in refused.text
    hostile = await client.get("/wiki/Special:GoToInterwiki/fr:A%22onmouseover%3Dalert(1)")
    assert hostile.status_code == 200 and '"onmouseover' not in hostile.text
    assert "https://fr.wikipedia.org/wiki/A%22onmouseover%3Dalert(1)" in hostile.text
    runtime = wiki.app.state.services["wiki"].state["runtime"]
    runtime.site.add_interwiki("evil", 'https://x.example/"><script>alert(1)</script>$1')
    listing = await client.get("/wiki/Special:Interwiki")
    assert listing.status_code == 200 and "View interwiki data" in listing.text
    assert '<td class="mw-interwikitable-prefix">fr</td>' in listing.text
    assert "https://fr.wikipedia.org/wiki/$1" in listing.text
    assert '<td class="mw-interwikitable-prefix">evil</td>' in listing.text
    assert "<script>alert" not in listing.text
    assert "Interlanguage prefixes" in listing.text and 'id="interwikitable-local"' in listing.text


async def test_grants_and_password_policies(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    grants = await client.get("/wiki/Special:ListGrants")
    assert grants.status_code == 200
    row = re.search(r'<tr id="createeditmovepage">.*?</tr>', grants.text, re.S)
    assert row is not None
    assert "Create, edit, and move pages" in row.group(0)
    assert '<span class="mw-listgrants-right-name">move</span>' in row.group(0)
    assert "{{int:" not in grants.text
    policies = await client.get("/wiki/Special:PasswordPolicies")
    assert policies.status_code == 200
    sysop = re.search(r'<tr id="sysop">.*?</tr>', policies.text, re.S)
    assert sysop is not None
    assert "Password must be at least 1 character long" in sysop.group(0)
    assert "Password must be less than 4,096 characters long" in sysop.group(0)
    assert 'href="/wiki/Special:ListUsers?group=sysop"' in sysop.group(0)
    assert '<tr id="*">' not in policies.text


async def test_pages_that_lead_to_an_action(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for name, query in (
        ("EditPage", "action=edit"),
        ("PageHistory", "action=history"),
        ("PageInfo", "action=info"),
        ("NewSection", "action=edit&section=new"),
    ):
        moved = await client.get(f"/wiki/Special:{name}/Some_page")
        assert moved.status_code == 302, name
        assert moved.headers["location"].endswith(f"index.php?title=Some_page&{query}"), name
        by_form = await client.get(f"/wiki/Special:{name}", params={"page": "Other page"})
        assert by_form.headers["location"].endswith(f"title=Other_page&{query}"), name
        form = await client.get(f"/wiki/Special:{name}")
        assert form.status_code == 200 and 'name="page"' in form.text
        assert "Target page" in form.text and "Go to page" in form.text
        bad = await client.get(f"/wiki/Special:{name}", params={"page": "<script>x"})
        assert bad.status_code == 200 and "empty or invalid" in bad.text
        assert "<script>x" not in bad.text
    followed = await client.get("/w/index.php?title=Some_page&action=edit&section=new")
    assert followed.status_code == 200


async def test_my_uploads_and_my_language(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await sign_in(wiki, client, "Alice")
    mine = await client.get("/wiki/Special:AllMyUploads")
    assert mine.status_code == 302
    assert mine.headers["location"] == "/wiki/Special:ListFiles/Alice?ilshowall=1"
    await edit(wiki, "Help:Intro", "text")
    for sub, target in (("Help:Intro/de", "/wiki/Help:Intro"), ("Help:Intro", "/wiki/Help:Intro"),
                        ("Help:Intro/Part", "/wiki/Help:Intro/Part"),
                        ("", "/wiki/Main_Page")):  # fmt: skip
        moved = await client.get(f"/wiki/Special:MyLanguage/{sub}")
        assert moved.status_code == 302 and moved.headers["location"] == target, sub


async def test_private_wiki_refuses_anonymous_visitors(
    wiki: WikiHarness, private_client: httpx.AsyncClient
) -> None:
    page_id = await edit(wiki, "Secret plan", "{{DEFAULTSORT:Hidden}} [[Category:Plans]]")
    paths = [f"/wiki/Special:{name}" for name in NEW_PAGES]
    paths += [
        f"/wiki/Special:Redirect/page/{page_id}",
        "/wiki/Special:PagesWithProp/defaultsort",
        "/wiki/Special:RandomInCategory/Plans",
        "/wiki/Special:Random",
        "/w/index.php?title=Special:Log&logid=1",
        "/w/index.php?title=Secret_plan&action=purge",
    ]
    for path in paths:
        response = await private_client.get(path)
        assert response.status_code == 200 and "Login required" in response.text, path
        # The login link carries back only what was asked (`returnto`); nothing else names
        # the page, its category or its id's title.
        shown = re.sub(r'href="[^"]*"', "", response.text)
        assert "Secret" not in shown and "location" not in response.headers, path
    assert (await form_sign_in(private_client, "Alice")).status_code == 302
    shown = await private_client.get("/wiki/Special:PagesWithProp/defaultsort")
    assert shown.status_code == 200 and "Secret plan" in shown.text


async def test_purge_action_asks_then_purges(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Cached", "text")
    before = await wiki.api(client, action="query", titles="Cached", prop="info", formatversion=2)
    touched = before["query"]["pages"][0]["touched"]
    moved = await client.get("/wiki/Special:Purge/Cached")
    assert moved.status_code == 302
    assert moved.headers["location"].endswith("index.php?title=Cached&action=purge")
    form = await client.get("/w/index.php?title=Cached&action=purge")
    assert form.status_code == 200 and "Purge the cache of this page?" in form.text
    token = re.search(r'name="wpEditToken" value="([^"]*)"', form.text)
    assert token is not None
    refused = await client.post("/w/index.php?title=Cached&action=purge", data={})
    assert refused.status_code == 200 and "session hijacking" in refused.text
    forged = await client.post(
        "/w/index.php?title=Cached&action=purge",
        data={"wpEditToken": token.group(1)},
        headers={"Origin": "https://evil.example"},
    )
    assert forged.status_code == 200 and "session hijacking" in forged.text
    await asyncio.sleep(1.1)  # timestamps have whole seconds
    done = await client.post(
        "/w/index.php?title=Cached&action=purge", data={"wpEditToken": token.group(1)}
    )
    assert done.status_code == 303 and done.headers["location"] == "/wiki/Cached"
    after = await wiki.api(client, action="query", titles="Cached", prop="info", formatversion=2)
    assert after["query"]["pages"][0]["touched"] > touched
    missing = await client.post(
        "/w/index.php?title=No_such_page&action=purge", data={"wpEditToken": token.group(1)}
    )
    assert missing.status_code == 303


async def test_page_data_negotiates_the_format(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    form = await client.get("/wiki/Special:PageData")
    assert form.status_code == 200 and "This page provides a data interface" in form.text
    raw = await client.get("/wiki/Special:PageData/main/Some_page")
    assert raw.status_code == 303 and raw.headers["access-control-allow-origin"] == "*"
    assert raw.headers["location"].endswith("/w/index.php?title=Some_page&action=raw")
    old = await client.get("/wiki/Special:PageData/main/Some_page?oldid=7&revision=8")
    assert old.headers["location"].endswith("title=Some_page&oldid=8&action=raw")
    html = await client.get(
        "/wiki/Special:PageData/main/Some_page", headers={"Accept": "text/html"}
    )
    assert html.status_code == 303 and html.headers["location"].endswith("/wiki/Some_page")
    browser = await client.get(
        "/wiki/Special:PageData?target=Some_page",
        headers={"Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"},
    )
    assert browser.headers["location"].endswith("action=raw")
    refused = await client.get(
        "/wiki/Special:PageData/main/Some_page", headers={"Accept": "application/json"}
    )
    assert refused.status_code == 406 and "Supported MIME types: text/x-wiki" in refused.text
    bad = await client.get("/wiki/Special:PageData", params={"target": "<script>x"})
    assert bad.status_code == 400 and bad.headers["content-type"].startswith("text/plain")
    assert (await client.get("/wiki/Special:PageData/other/Some_page")).status_code == 200
