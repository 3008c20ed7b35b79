"""`Special:ChangeContentModel` over HTTP, in process: the title form, the model form offering
every other model, a change (logged, and listed under the form), a missing page created in the
new model, MediaWiki 1.39's refusals (`data/mw139_contentmodel.json`: readers without the right,
an invalid title, the current model posted), a post without the session's token changing
nothing, a plain user refused another user's script, and hostile reasons escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_contentmodel.json").read_text())[
    "special"
]
URL = "/w/index.php?title=Special:ChangeContentModel"
HOSTILE = '"><script>alert(1)</script>'
HEADING = re.compile(r'<h1 id="firstHeading"[^>]*>(.*?)</h1>', re.S)


def _heading(page: httpx.Response) -> str:
    found = HEADING.search(page.text)
    assert found is not None
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


async def _model(wiki: WikiHarness, client: httpx.AsyncClient, title: str) -> str:
    data = await wiki.api(client, action="query", prop="info", titles=title, formatversion="2")
    return str(data["query"]["pages"][0]["contentmodel"])


def _says(page: httpx.Response, case: dict[str, object]) -> None:
    assert page.status_code == case["status"]
    assert _heading(page) == case["heading"]
    says = case["says"]
    assert isinstance(says, dict)
    for text, said in says.items():
        assert (text in page.text) == said, text


async def test_refused_without_the_right(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Ccm change", "x")
    anonymous = await client.get("/wiki/Special:ChangeContentModel/Ccm_change")
    _says(anonymous, RECORDED["anonymous"])
    posted = await client.post(URL, data={"pagetitle": "Ccm change", "model": "text",
                                          "wpFormIdentifier": "modelform"})  # fmt: skip
    assert "Permission error" in posted.text
    assert await _model(wiki, client, "Ccm change") == "wikitext"


async def test_title_form_then_model_form(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Ccm change", "x")
    await sign_in(wiki, client, "Admin")
    empty = await client.get("/wiki/Special:ChangeContentModel")
    assert empty.status_code == 200 and 'name="pagetitle" value=""' in empty.text
    assert 'name="model"' not in empty.text and 'value="titleform"' in empty.text
    token = await page_token(client)
    chosen = await client.post(URL, data={"pagetitle": "Ccm change",
                                          "wpFormIdentifier": "titleform", "wpEditToken": token})  # fmt: skip
    assert chosen.status_code == 200 and 'value="modelform"' in chosen.text
    assert 'name="currentcontentmodel" value="wikitext" readonly' in chosen.text
    offered = re.findall(r'<option value="([a-z]+)"', chosen.text)
    assert offered == RECORDED["options for wikitext"]
    assert "<h2>Content model change log</h2>" in chosen.text
    assert "No matching items in log." in chosen.text
    # The sub-page names the page as well; the page is linked under the heading.
    direct = await client.get("/wiki/Special:ChangeContentModel/Ccm_change")
    assert re.findall(r'<option value="([a-z]+)"', direct.text) == offered
    backlink = '<div id="contentSub">← <a href="/wiki/Ccm_change" title="Ccm change">Ccm change</a>'
    assert backlink in direct.text
    missing = await client.get("/wiki/Special:ChangeContentModel/Ccm_nowhere")
    red = "/w/index.php?title=Ccm_nowhere&amp;action=edit&amp;redlink=1"
    assert f'<div id="contentSub">← <a href="{red}" class="new"' in missing.text


async def test_bad_input(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Ccm change", "x")
    await sign_in(wiki, client, "Admin")
    token = await page_token(client)
    bad = await client.post(URL, data={"pagetitle": "<bad>", "wpFormIdentifier": "titleform",
                                       "wpEditToken": token})  # fmt: skip
    _says(bad, RECORDED["invalid title"])
    hostile = await client.post(URL, data={"pagetitle": HOSTILE, "wpFormIdentifier": "titleform",
                                           "wpEditToken": token})  # fmt: skip
    assert hostile.status_code == 200 and "<script>alert(1)</script>" not in hostile.text
    assert 'value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in hostile.text
    same = await client.post(URL, data={"pagetitle": "Ccm change", "model": "wikitext",
                                        "wpFormIdentifier": "modelform", "wpEditToken": token})  # fmt: skip
    _says(same, RECORDED["same model"])
    asked = await client.get(
        "/w/index.php", params={"title": "Special:ChangeContentModel", "pagetitle": "<bad>"}
    )
    assert asked.status_code == 200 and 'name="pagetitle" value=""' in asked.text
    invalid_json = await client.post(URL, data={"pagetitle": "Ccm change", "model": "json",
                                                "wpFormIdentifier": "modelform",
                                                "wpEditToken": token})  # fmt: skip
    assert invalid_json.status_code == 200 and "Invalid JSON: Syntax error" in invalid_json.text
    assert await _model(wiki, client, "Ccm change") == "wikitext"


async def test_change_and_create(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Ccm change", "x")
    await sign_in(wiki, client, "Admin")
    token = await page_token(client)
    form = {"wpFormIdentifier": "modelform", "wpEditToken": token}
    stale = await client.post(URL, data={**form, "pagetitle": "Ccm change", "model": "text",
                                         "wpEditToken": "0123+\\"})  # fmt: skip
    assert stale.status_code == 200 and 'value="modelform"' in stale.text
    assert await _model(wiki, client, "Ccm change") == "wikitext"
    done = await client.post(URL, data={**form, "pagetitle": "Ccm change", "model": "text",
                                        "reason": HOSTILE})  # fmt: skip
    _says(done, RECORDED["changed"])
    assert await _model(wiki, client, "Ccm change") == "text"
    again = await client.get("/wiki/Special:ChangeContentModel/Ccm_change")
    assert 'name="currentcontentmodel" value="text" readonly' in again.text
    assert "changed the content model of the page" in again.text
    assert "<script>alert(1)</script>" not in again.text
    created = await client.post(URL, data={**form, "pagetitle": "Ccm special new",
                                           "model": "json", "reason": "why"})  # fmt: skip
    assert created.status_code == 200 and "has been changed." in created.text
    made = RECORDED["created"]
    log = await wiki.api(client, action="query", list="logevents", letitle="Ccm special new",
                         leprop="type|details|comment", formatversion="2")  # fmt: skip
    found = [{"type": e["type"], "action": e["action"], "params": e["params"],
              "comment": e["comment"]} for e in log["query"]["logevents"]]  # fmt: skip
    assert found == made["logs"]
    revision = await wiki.api(client, action="query", prop="revisions", titles="Ccm special new",
                              rvprop="content|comment|tags", rvslots="main", formatversion="2")  # fmt: skip
    first = revision["query"]["pages"][0]["revisions"][0]
    assert first["slots"]["main"]["content"] == made["content"]
    assert (first["comment"], first["tags"]) == (made["comment"], made["tags"])


async def test_plain_user_cannot_turn_another_users_page_into_script(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("User:Admin/tools", "x")
    await sign_in(wiki, client, "Alice")
    token = await page_token(client)
    refused = await client.post(URL, data={"pagetitle": "User:Admin/tools", "model": "javascript",
                                           "wpFormIdentifier": "modelform",
                                           "wpEditToken": token})  # fmt: skip
    assert refused.status_code == 200
    assert "because it contains another user's personal settings" in refused.text
    assert await _model(wiki, client, "User:Admin/tools") == "wikitext"


async def test_listed_on_special_pages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    listing = await client.get("/wiki/Special:SpecialPages")
    assert "Special:ChangeContentModel" not in listing.text
    await sign_in(wiki, client, "Alice")
    listing = await client.get("/wiki/Special:SpecialPages")
    assert (
        '<li class="mw-specialpagerestricted"><a href="/wiki/Special:ChangeContentModel"'
        in listing.text
    )
