"""Content models against MediaWiki 1.39's recorded answers (`data/mw139_contentmodel.json`,
tools/capture_content_models.py): the default model of titles, pages saved in each model (stored
text, rendering, link tables), `action=edit` keeping or changing a model, and
`action=changecontentmodel`'s answer, journal entries and refusals. Then the attacks: other
users' scripts, the site's style by a plain user or a sysop, and `action=raw` of a script."""

from __future__ import annotations

import html
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.changes.accounts import create_user
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.dump import import_dump
from atrium.wiki.reads import article

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_contentmodel.json").read_text())
SYSOP = ("Ccm sysop", "ccm-sysop-password-1")
LIMIT_REPORT = re.compile(r"\n<!-- \nNewPP limit report.*", re.S)


async def _post(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    return await wiki.post(client, token=await wiki.csrf(client), formatversion="2", **params)


async def _get(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    return await wiki.api(client, formatversion="2", **params)


def _error(answer: Any) -> dict[str, Any]:
    assert "error" in answer, answer
    error = answer["error"]
    found = {"code": error["code"], "info": error["info"]}
    if "disallowedtags" in error:
        found["disallowedtags"] = error["disallowedtags"]
    return found


def _recorded_error(case: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in case.items() if k != "params"}


async def _sysop(wiki: WikiHarness) -> httpx.AsyncClient:
    """A client signed in as a sysop who is no interface administrator."""
    await wiki.db.write(lambda conn: create_user(conn, SYSOP[0], SYSOP[1], groups=["sysop"]))
    client = wiki.client()
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        client, action="clientlogin", username=SYSOP[0], password=SYSOP[1], logintoken=token,
        loginreturnurl="http://127.0.0.1:8080/",
    )  # fmt: skip
    assert done["clientlogin"]["status"] == "PASS", done
    return client


async def test_default_model_of_titles(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    # The reference names its project namespace RefWiki.
    titles = {t.replace("RefWiki:", "Project:"): m for t, m in RECORDED["defaults"].items()}
    data = await _get(wiki, client, action="query", prop="info", titles="|".join(titles))
    project = wiki.site.namespaces.by_id[4].name
    found = {p["title"].replace(f"{project}:", "Project:"): p["contentmodel"]
             for p in data["query"]["pages"]}  # fmt: skip
    assert found == titles


async def test_pages_saved_in_each_model(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="edit", title="Template:Ccm tpl",
                text="[[Category:Ccm tpl cat]][[Ccm tpl link]]")  # fmt: skip
    for title, case in RECORDED["saved"].items():
        done = await _post(
            wiki, client, action="edit", title=title, text=case["text"], contentmodel=case["model"]
        )
        assert done["edit"]["contentmodel"] == case["answer_model"], (title, done)
        raw = await client.get("/w/index.php", params={"title": title, "action": "raw"})
        assert raw.text == case["stored"], title
        parsed = await _get(wiki, client, action="parse", page=title, prop="text|displaytitle")
        assert LIMIT_REPORT.sub("", parsed["parse"]["text"]) == case["parse_html"], title
        assert parsed["parse"]["displaytitle"] == case["displaytitle"], title
        info = await _get(wiki, client, action="query", prop="links|templates|categories|info",
                          titles=title)  # fmt: skip
        page = info["query"]["pages"][0]
        assert sorted(x["title"] for x in page.get("links", [])) == case["links"], title
        assert sorted(x["title"] for x in page.get("templates", [])) == case["templates"], title
        assert sorted(x["title"] for x in page.get("categories", [])) == case["categories"], title
        assert ("redirect" in page) == case["redirect"], title


async def test_invalid_json_is_refused(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    for name, expected in RECORDED["edits"]["invalid_json"].items():
        text = {"syntax": "{bad", "empty": "", "nan": "NaN", "control character": '"a\tb"',
                "trailing comma": "[1,]"}[name]  # fmt: skip
        answer = await _post(wiki, client, action="edit", title="Ccm bad json", text=text,
                             contentmodel="json")  # fmt: skip
        assert _error(answer) == expected, name
    missing = await _get(wiki, client, action="query", titles="Ccm bad json")
    assert missing["query"]["pages"][0].get("missing") is True


async def test_json_nested_as_deep_as_allowed_saves_and_shows(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    # 511 arrays inside each other: under json_decode's depth of 512, past Python's recursion.
    await wiki.login(client, "Admin")
    text = "[" * 511 + "]" * 511
    done = await _post(wiki, client, action="edit", title="Ccm deep json", text=text,
                       contentmodel="json")  # fmt: skip
    assert done["edit"]["result"] == "Success", done
    shown = await client.get("/wiki/Ccm_deep_json")
    assert shown.status_code == 200 and shown.text.count('<table class="mw-json">') == 512
    raw = await client.get("/w/index.php", params={"title": "Ccm deep json", "action": "raw"})
    assert raw.text.count("[") == 511


async def test_edit_keeps_and_changes_the_model(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    edits = RECORDED["edits"]
    await wiki.login(client, "Admin")
    made = await _post(wiki, client, action="edit", title="Ccm made text", text="x",
                       contentmodel="text", summary="made")  # fmt: skip
    kept = await _post(wiki, client, action="edit", title="Ccm made text", text="y")
    back = await _post(wiki, client, action="edit", title="Ccm made text", text="z",
                       contentmodel="wikitext")  # fmt: skip
    assert made["edit"]["contentmodel"] == edits["new_in_model"]
    assert kept["edit"]["contentmodel"] == edits["kept_model"]
    assert back["edit"]["contentmodel"] == edits["changed_model"]
    revisions = await _get(wiki, client, action="query", prop="revisions", titles="Ccm made text",
                           rvprop="tags|comment|contentmodel", rvlimit="3", rvslots="main")  # fmt: skip
    found = [
        {"tags": r["tags"], "comment": r["comment"], "model": r["slots"]["main"]["contentmodel"]}
        for r in revisions["query"]["pages"][0]["revisions"]
    ]
    assert found == edits["revisions"]
    logs = await _get(wiki, client, action="query", list="logevents", letype="contentmodel",
                      letitle="Ccm made text", leprop="type|details|comment")  # fmt: skip
    found_logs = [
        {"action": e["action"], "params": e["params"], "comment": e["comment"]}
        for e in logs["query"]["logevents"]
    ]
    assert found_logs == edits["logs"]
    badformat = await _post(wiki, client, action="edit", title="Ccm made text", text="w",
                            contentmodel="text", contentformat="text/x-wiki")  # fmt: skip
    assert _error(badformat) == edits["badformat"]


async def test_edit_rights_of_code_pages(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    edits = RECORDED["edits"]
    anonymous = await wiki.post(client, action="edit", title="Ccm anon text", text="x",
                                contentmodel="text", token="+\\", formatversion="2")  # fmt: skip
    assert _error(anonymous) == edits["anonymous_new_in_model"]
    await wiki.edit_page("User:Admin/ccm.css", "a{}")
    await wiki.login(client, "Alice")
    # Another user's style: refused, and the page keeps its text.
    other = await _post(wiki, client, action="edit", title="User:Admin/ccm.css", text="b{}")
    assert _error(other) == edits["other_users_css"]
    raw = await client.get("/w/index.php", params={"title": "User:Admin/ccm.css", "action": "raw"})
    assert raw.text == "a{}"
    # Another user's script, even one that does not exist yet.
    script = await _post(wiki, client, action="edit", title="User:Admin/new.js", text="alert(1)")
    assert _error(script)["code"] == "customjsprotected"
    # Turning another user's page into a script by an edit: only "no model change" is said.
    await wiki.edit_page("User:Admin/ccm.txt", "x")
    to_js = await _post(wiki, client, action="edit", title="User:Admin/ccm.txt", text="y",
                        contentmodel="javascript")  # fmt: skip
    assert _error(to_js) == edits["other_users_page_to_js"]
    own = await _post(wiki, client, action="edit", title="User:Alice/ccm.js", text="b()")
    assert own["edit"]["contentmodel"] == edits["own_js_model"]
    # The site's style: the interface namespace refuses a plain user first.
    site_css = await _post(wiki, client, action="edit", title="MediaWiki:Common.css", text="x{}")
    assert _error(site_css)["code"] == "protectednamespace-interface"
    sysop = await _sysop(wiki)
    try:
        refused = await _post(wiki, sysop, action="edit", title="MediaWiki:Common.css", text="b{}")
        assert _error(refused) == RECORDED["changes"]["sysop_site_css_edit"]
        json_page = await _post(wiki, sysop, action="edit", title="MediaWiki:Ccm.json", text="{}")
        assert (
            json_page["edit"]["contentmodel"] == RECORDED["changes"]["sysop_site_json_edit_model"]
        )
    finally:
        await sysop.aclose()


async def test_changecontentmodel_success(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    changes = RECORDED["changes"]
    await wiki.edit_page("Ccm change", "hello [[Ccm link]]")
    await wiki.login(client, "Admin")
    done = await _post(wiki, client, action="changecontentmodel", title="Ccm change",
                       model="css", summary="why")  # fmt: skip
    answer = done["changecontentmodel"]
    assert sorted(answer) == changes["success_keys"]
    assert answer["result"] == "Success" and answer["contentmodel"] == changes["success_model"]
    revision = await _get(wiki, client, action="query", prop="revisions", titles="Ccm change",
                          rvprop="ids|tags|comment|content", rvslots="main", rvlimit="1")  # fmt: skip
    latest = revision["query"]["pages"][0]["revisions"][0]
    assert {"tags": latest["tags"], "comment": latest["comment"]} == changes["revision"]
    assert latest["revid"] == answer["revid"]
    assert latest["slots"]["main"]["content"] == "hello [[Ccm link]]"  # the same text
    log = await _get(wiki, client, action="query", list="logevents", letype="contentmodel",
                     letitle="Ccm change", leprop="ids|type|details|comment")  # fmt: skip
    entry = log["query"]["logevents"][0]
    assert entry["logid"] == answer["logid"]
    assert {"action": entry["action"], "params": entry["params"], "comment": entry["comment"]} == (
        changes["log"]
    )
    recent = await _get(wiki, client, action="query", list="recentchanges", rctitle="Ccm change",
                        rcprop="loginfo|tags", rclimit="2")  # fmt: skip
    found = [{"type": c["type"], "tags": c["tags"], "logtype": c.get("logtype")}
             for c in recent["query"]["recentchanges"]]  # fmt: skip
    assert found == changes["recentchanges"]
    # The page and its history show the model; a CSS page is shown as source.
    history = await client.get("/w/index.php", params={"title": "Ccm change", "action": "history"})
    assert "changed the content model of the page" in history.text
    view = await client.get("/wiki/Ccm_change")
    assert '<pre class="mw-code mw-css" dir="ltr">' in view.text
    back = await _post(wiki, client, action="changecontentmodel", title="Ccm change",
                       model="wikitext", summary="")  # fmt: skip
    assert back["changecontentmodel"]["contentmodel"] == changes["back_model"]
    # A watcher of the page sees the change and its log entry in their watchlist.
    async with wiki.client() as alice:
        await wiki.login(alice, "Alice")
        tokens = await wiki.api(alice, action="query", meta="tokens", type="watch")
        await wiki.post(alice, action="watch", title="Ccm change",
                        token=tokens["query"]["tokens"]["watchtoken"])  # fmt: skip
        await _post(wiki, client, action="changecontentmodel", title="Ccm change", model="text",
                    summary="")  # fmt: skip
        watchlist = await _get(wiki, alice, action="query", list="watchlist", wlallrev="1",
                               wlprop="title|ids|loginfo", wllimit="max")  # fmt: skip
    kinds = [(w.get("type"), w.get("logtype")) for w in watchlist["query"]["watchlist"]]
    assert ("edit", None) in kinds and ("log", "contentmodel") in kinds, kinds


async def test_changecontentmodel_refusals(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Ccm change", "hello [[Ccm link]]")
    await wiki.edit_page("MediaWiki:Ccm plain page", "x")
    await wiki.edit_page("User:Admin/ccm.txt", "x")
    await wiki.edit_page("User:Admin/ccm.css", "a{}")
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="changecontentmodel", title="Ccm change", model="css",
                summary="")  # fmt: skip
    alice = wiki.client()
    await wiki.login(alice, "Alice")
    sysop = await _sysop(wiki)
    anonymous = wiki.client()
    who = {"admin": client, "user": alice, "sysop": sysop}
    try:
        for name, case in RECORDED["changes"]["errors"].items():
            params = dict(case["params"])
            if name == "title and page id":
                params["pageid"] = "1"
            if name == "anonymous":
                answer = await wiki.post(anonymous, action="changecontentmodel", token="+\\",
                                         **params)  # fmt: skip
            else:
                kind = name.split(":")[0] if ":" in name else "admin"
                answer = await _post(wiki, who[kind], action="changecontentmodel", **params)
            assert _error(answer) == _recorded_error(case), name
    finally:
        for each in (alice, sysop, anonymous):
            await each.aclose()
    # Nothing changed: the pages keep their models.
    info = await _get(wiki, client, action="query", prop="info",
                      titles="Ccm change|MediaWiki:Ccm plain page|User:Admin/ccm.txt")  # fmt: skip
    models = {p["title"]: p["contentmodel"] for p in info["query"]["pages"]}
    assert models == {
        "Ccm change": "css", "MediaWiki:Ccm plain page": "wikitext",
        "User:Admin/ccm.txt": "wikitext",
    }  # fmt: skip


async def test_script_pages_are_never_served_to_run(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    payload = "</pre><script>alert(1)</script><style>body{display:none}</style>"
    await wiki.edit_page("User:Admin/evil.js", payload)
    raw = await client.get("/w/index.php", params={"title": "User:Admin/evil.js", "action": "raw"})
    assert raw.headers["content-type"] == RECORDED["raw_headers"]["content-type"]
    assert (
        raw.headers["x-content-type-options"] == RECORDED["raw_headers"]["x-content-type-options"]
    )
    assert "sandbox" in raw.headers["content-security-policy"]
    # Asking for a script type changes nothing.
    typed = await client.get("/w/index.php", params={"title": "User:Admin/evil.js",
                                                     "action": "raw", "ctype": "text/javascript"})  # fmt: skip
    assert typed.headers["content-type"].startswith("text/x-wiki")
    view = await client.get("/wiki/User:Admin/evil.js")
    assert "<script>alert(1)</script>" not in view.text
    assert "&lt;/pre>&lt;script>alert(1)&lt;/script>" in view.text


async def test_old_revisions_and_previews_render_by_model(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Admin")
    first = await _post(wiki, client, action="edit", title="Ccm old", text='{"a": 1}',
                        contentmodel="json")  # fmt: skip
    await _post(wiki, client, action="changecontentmodel", title="Ccm old", model="text",
                summary="")  # fmt: skip
    old = await client.get("/w/index.php", params={"title": "Ccm old",
                                                    "oldid": str(first["edit"]["newrevid"])})  # fmt: skip
    assert '<table class="mw-json">' in old.text
    current = await client.get("/wiki/Ccm_old")
    assert '<table class="mw-json">' not in current.text and "&quot;a&quot;: 1" in current.text
    form = await client.get("/w/index.php", params={"title": "User:Admin/preview.css",
                                                     "action": "edit"})  # fmt: skip
    found = re.search(r'name="wpEditToken" value="([^"]*)"', form.text)
    assert found is not None
    token = found.group(1)
    preview = await client.post(
        "/w/index.php", params={"title": "User:Admin/preview.css", "action": "submit"},
        data={"wpTextbox1": "a < b", "wpPreview": "1", "wpEditToken": token,
              "wpUnicodeCheck": "ℳ𝒲♥𝓊𝓃𝒾𝒸ℴ𝒹ℯ", "wpUltimateParam": "1"},
    )  # fmt: skip
    assert '<pre class="mw-code mw-css" dir="ltr">\na &lt; b\n</pre>' in preview.text


async def test_export_keeps_model_and_format(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="edit", title="Ccm export", text="{}", contentmodel="json")
    data = await wiki.api(client, action="query", titles="Ccm export", export="1")
    root = ET.fromstring(data["query"]["export"]["*"])
    ns = "{http://www.mediawiki.org/xml/export-0.11/}"
    revision = root.find(f"{ns}page/{ns}revision")
    assert revision is not None
    assert revision.findtext(f"{ns}model") == "json"
    assert revision.findtext(f"{ns}format") == "application/json"


async def test_info_page_links_the_change_form(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="edit", title="Ccm info", text="a{}", contentmodel="css")
    shown = await client.get("/w/index.php", params={"title": "Ccm info", "action": "info"})
    assert (
        '<td>Page content model</td><td>CSS (<a href="/wiki/Special:ChangeContentModel/Ccm_info"'
        in shown.text
    )
    async with wiki.client() as anonymous:
        plain = await anonymous.get("/w/index.php", params={"title": "Ccm info", "action": "info"})
    assert "<td>Page content model</td><td>CSS</td>" in plain.text


async def test_edit_form_refuses_another_users_script(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("User:Admin/tools.js", "ok()")
    await sign_in(wiki, client, "Alice")
    url = "/w/index.php?title=User:Admin/tools.js&action=edit"
    form = await client.get(url)
    refusal = "because it contains another user's personal settings"
    assert refusal in html.unescape(form.text) and 'name="wpSave"' not in form.text
    token = await page_token(client)
    saved = await client.post(
        "/w/index.php?title=User:Admin/tools.js&action=submit",
        data={"wpTextbox1": "alert(document.cookie)", "wpSave": "1", "wpEditToken": token,
              "wpUnicodeCheck": "ℳ𝒲♥𝓊𝓃𝒾𝒸ℴ𝒹ℯ", "wpUltimateParam": "1"},
    )  # fmt: skip
    assert refusal in html.unescape(saved.text)
    raw = await client.get("/w/index.php", params={"title": "User:Admin/tools.js", "action": "raw"})
    assert raw.text == "ok()"


async def test_rollback_restores_the_model(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Ccm rolled", "{}", user="Alice")
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="changecontentmodel", title="Ccm rolled", model="json",
                summary="")  # fmt: skip
    tokens = await wiki.api(client, action="query", meta="tokens", type="rollback")
    done = await wiki.post(client, action="rollback", title="Ccm rolled", user="Admin",
                           token=tokens["query"]["tokens"]["rollbacktoken"])  # fmt: skip
    assert "rollback" in done, done
    info = await _get(wiki, client, action="query", prop="info", titles="Ccm rolled")
    assert info["query"]["pages"][0]["contentmodel"] == "wikitext"


async def test_changes_are_rate_limited(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    # $wgRateLimits['editcontentmodel']: eight a minute for a registered user.
    await wiki.edit_page("Ccm busy", "x")
    await wiki.login(client, "Alice")
    answers = []
    for i in range(9):
        model = "text" if i % 2 == 0 else "wikitext"
        answer = await _post(wiki, client, action="changecontentmodel", title="Ccm busy",
                             model=model, summary="")  # fmt: skip
        answers.append(answer)
    assert all("changecontentmodel" in a for a in answers[:8]), answers
    assert answers[8]["error"]["code"] == "ratelimited"


async def test_revisions_of_a_css_page(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="edit", title="Template:Ccm tpl",
                text="[[Category:Ccm tpl cat]][[Ccm tpl link]]")  # fmt: skip
    css = RECORDED["saved"]["Ccm css"]
    await _post(wiki, client, action="edit", title="Ccm css", text=css["text"], contentmodel="css")
    for name, case in RECORDED["revisions"].items():
        data = await _get(wiki, client, action="query", prop="revisions", titles="Ccm css",
                          rvprop="content|contentmodel", **case["params"])  # fmt: skip
        assert data["query"]["pages"][0]["revisions"][0] == case["revision"], name


async def test_import_keeps_models(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """A dump's <model> is kept, a missing <format> is the model's own, and a page of a model
    that is not parsed records no links and is no redirect."""
    dump = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11">
<page><title>Ccm imported</title><ns>0</ns><revision><timestamp>2020-01-01T00:00:00Z</timestamp>
<contributor><ip>127.0.0.1</ip></contributor><model>text</model>
<text xml:space="preserve">#REDIRECT [[Ccm elsewhere]]</text></revision></page>
<page><title>Ccm imported.css</title><ns>0</ns><revision><timestamp>2020-01-01T00:00:00Z</timestamp>
<contributor><ip>127.0.0.1</ip></contributor><model>css</model>
<text xml:space="preserve">a{} [[Ccm linked]]</text></revision></page>
</mediawiki>"""
    stats = import_dump(wiki.db, wiki.site, io.BytesIO(dump.encode()))
    assert (stats.pages, stats.revisions) == (2, 2)
    data = await _get(wiki, client, action="query", prop="revisions|links|info",
                      titles="Ccm imported|Ccm imported.css", rvprop="contentmodel|content",
                      rvslots="main")  # fmt: skip
    pages = {p["title"]: p for p in data["query"]["pages"]}
    text = pages["Ccm imported"]
    assert text["contentmodel"] == "text" and "redirect" not in text and "links" not in text
    assert text["revisions"][0]["slots"]["main"]["contentformat"] == "text/plain"
    css = pages["Ccm imported.css"]
    assert css["revisions"][0]["slots"]["main"]["contentformat"] == "text/css"
    assert [link["title"] for link in css["links"]] == ["Ccm linked"]


async def test_move_keeps_the_model_and_leaves_a_wikitext_redirect(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="edit", title="User:Admin/old.js", text="ok()")
    moved = await _post(wiki, client, action="move", **{"from": "User:Admin/old.js"},
                        to="User:Admin/new.js", reason="")  # fmt: skip
    assert "move" in moved, moved
    info = await _get(wiki, client, action="query", prop="info|revisions", rvprop="contentmodel",
                      titles="User:Admin/new.js|User:Admin/old.js")  # fmt: skip
    pages = {p["title"]: p for p in info["query"]["pages"]}
    assert pages["User:Admin/new.js"]["contentmodel"] == "javascript"
    # The move's null revision keeps the model too.
    assert pages["User:Admin/new.js"]["revisions"][0]["contentmodel"] == "javascript"
    assert pages["User:Admin/old.js"]["contentmodel"] == "wikitext"
    assert pages["User:Admin/old.js"].get("redirect") is True


async def test_a_model_no_one_edits_cannot_be_changed(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    # Imports may bring models this wiki has no editor for (MediaWiki's `unknown`).
    title = wiki.site.parser.parse("Ccm unknown")
    editor = Editor(None, "127.0.0.1")
    await wiki.db.write(
        lambda conn: save_revision(conn, wiki.site, title, "?", editor, model="unknown")
    )
    await wiki.login(client, "Admin")
    refused = await _post(wiki, client, action="changecontentmodel", title="Ccm unknown",
                          model="text", summary="")  # fmt: skip
    assert _error(refused) == {
        "code": "changecontentmodel-nodirectediting",
        # ApiErrorFormatter shows <code> as quotes.
        "info": 'Content model "unknown" does not support direct editing',
    }
    view = await client.get("/wiki/Ccm_unknown")
    assert view.status_code == 200 and "?" in view.text


async def test_views_of_code_pages_come_from_the_parser_cache(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Admin")
    await _post(wiki, client, action="edit", title="Ccm cached", text="a{}", contentmodel="css")
    title = wiki.site.parser.parse("Ccm cached")
    assert await wiki.db.read(article.cached_view, wiki.site, title) is None
    # The view renders once, and the next finds it under the revision's key.
    shown = await wiki.db.read_rendering(article.view_page, wiki.site, title)
    assert shown.rendered is not None and "mw-css" in shown.rendered.html
    cached = await wiki.db.read(article.cached_view, wiki.site, title)
    assert cached is not None and cached.rendered is not None
    assert cached.rendered.html.startswith('<pre class="mw-code mw-css" dir="ltr">')


async def test_a_tagged_change(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    expected = RECORDED["changes"]["tagged"]
    await wiki.edit_page("Ccm change", "x")
    await wiki.login(client, "Admin")
    made = await _post(wiki, client, action="managetags", operation="create", tag="ccm-tag",
                       reason="")  # fmt: skip
    assert "managetags" in made, made
    done = await _post(wiki, client, action="changecontentmodel", title="Ccm change",
                       model="text", summary="", tags="ccm-tag")  # fmt: skip
    revid = done["changecontentmodel"]["revid"]
    revision = await _get(wiki, client, action="query", prop="revisions", revids=str(revid),
                          rvprop="tags")  # fmt: skip
    assert (
        sorted(revision["query"]["pages"][0]["revisions"][0]["tags"]) == (expected["revision_tags"])
    )
    log = await _get(wiki, client, action="query", list="logevents", letype="contentmodel",
                     leprop="ids|tags", lelimit="1")  # fmt: skip
    assert sorted(log["query"]["logevents"][0]["tags"]) == expected["log_tags"]
    recent = await _get(wiki, client, action="query", list="recentchanges", rctitle="Ccm change",
                        rcprop="loginfo|tags", rclimit="2")  # fmt: skip
    found = [{"type": c["type"], "tags": sorted(c["tags"])}
             for c in recent["query"]["recentchanges"]]  # fmt: skip
    assert found == expected["recentchanges"]


async def test_edits_changing_the_model_are_rate_limited(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    # EditPage counts a model change against $wgRateLimits['editcontentmodel'] too.
    await wiki.edit_page("Ccm busy edits", "x")
    await wiki.login(client, "Alice")
    codes = []
    for i in range(9):
        model = "text" if i % 2 == 0 else "wikitext"
        answer = await _post(wiki, client, action="edit", title="Ccm busy edits", text=f"x{i}",
                             contentmodel=model)  # fmt: skip
        codes.append(answer["error"]["code"] if "error" in answer else answer["edit"]["result"])
    assert codes == ["Success"] * 8 + ["ratelimited"]
    # Edits that keep the model are not counted as changes.
    kept = await _post(wiki, client, action="edit", title="Ccm busy edits", text="y")
    assert kept["edit"]["result"] == "Success"
