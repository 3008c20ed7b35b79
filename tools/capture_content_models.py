"""Record what MediaWiki 1.39 does with content models, as test data: the default model of
titles, pages saved in each model (the stored text, the rendering, the links recorded, the log
entries), `action=changecontentmodel`'s answer and refusals, the rights of site and user code
pages, `action=raw`'s headers and Special:ChangeContentModel's messages.

    .venv/bin/python tools/capture_content_models.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`): deletes the
pages it uses first, so each run starts alike, and makes two accounts when missing: a user with
no groups and a sysop who is no interface administrator. Writes
`tests/wiki/data/mw139_contentmodel.json`, read by tests/wiki/test_content_models.py and
tests/wiki/test_web_special_changecontentmodel.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
from mwref_session import BASE, admin_client, api, csrf, delete, edit, signed_in

OUT = Path(__file__).resolve().parents[1] / "tests" / "wiki" / "data" / "mw139_contentmodel.json"
PLAIN = ("Ccm plain", "ccm-plain-password-1")
SYSOP = ("Ccm sysop", "ccm-sysop-password-1")
DEFAULT_TITLES = [
    "MediaWiki:Common.css", "MediaWiki:Gadget.js", "MediaWiki:X.json", "MediaWiki:X/y.css",
    "MediaWiki:Plain", "User:Admin/common.js", "User:Admin/x.json", "User:Admin/x.css",
    "User:Admin/.js", "User:Admin.css", "User:Admin/x.JS", "User talk:Admin/x.js", "Foo.css",
    "Project:X.css", "Template:X.json",
]  # fmt: skip
# Source texts each model is saved with, and what is recorded of them.
SAVED = {
    "Ccm css": ("css", "body{color:red} [[Ccm link]] {{Ccm tpl}} [[Category:Ccm cat]] <b>&amp;</b>\n#REDIRECT [[Ccm target]]"),
    "Ccm js": ("javascript", "#REDIRECT [[Ccm link]]\nvar a = '<x>' && \"y\";"),
    "Ccm text": ("text", "t [[Ccm link]] {{Ccm tpl}} [[Category:Ccm cat]] <b>&amp;</b> \"q\" 'a'\nline  \r\n\n"),
    "Ccm json object": ("json", '{"b":1,"a":[1.0,2e3,"\\u00e9\\n<",{"k":null}],"c":{},"d":[],"e":"[[Ccm link]]"}'),
    "Ccm json array": ("json", '[0.1, 1e-7, 1.0e25, 100000000000000000000, 3.0, -0, -0.0, 1E2, true, "a\\"b\\\\c/d\\t", "\\ud83d\\ude00", {"":1, "k k":"<&>"}]'),
    "Ccm json string": ("json", '"str<"'),
    "Ccm json null": ("json", "null"),
    "Ccm json empty": ("json", "[]"),
}  # fmt: skip
INVALID_JSON = {
    "syntax": "{bad",
    "empty": "",
    "nan": "NaN",
    "control character": '"a\tb"',
    "trailing comma": "[1,]",
}
ERROR_KEYS = ("code", "info")


def _error(answer: dict[str, Any]) -> dict[str, Any]:
    error = answer.get("error")
    if error is None:
        raise SystemExit(f"expected an error, got {answer}")
    recorded = {k: error[k] for k in ERROR_KEYS}
    if "disallowedtags" in error:
        recorded["disallowedtags"] = error["disallowedtags"]
    return recorded


def _account(admin: httpx.Client, who: tuple[str, str], group: str | None) -> httpx.Client:
    token = api(admin, action="query", meta="tokens", type="createaccount")["query"]["tokens"]
    api(admin, "POST", action="createaccount", username=who[0], password=who[1], retype=who[1],
        createreturnurl=BASE, createtoken=token["createaccounttoken"])  # fmt: skip
    if group:
        rights = api(admin, action="query", meta="tokens", type="userrights")["query"]["tokens"]
        api(admin, "POST", action="userrights", user=who[0], add=group,
            token=rights["userrightstoken"])  # fmt: skip
    return signed_in(*who)


def _post(client: httpx.Client, **params: str) -> Any:
    return api(client, "POST", token=csrf(client), **params)


def _html(text: str) -> str:
    """The rendering without its limit report (its times change from run to run)."""
    return re.sub(r"\n<!-- \nNewPP limit report.*", "", text, flags=re.S)


def _raw(client: httpx.Client, title: str) -> httpx.Response:
    return client.get(f"{BASE}/w/index.php", params={"title": title, "action": "raw"})


def _defaults(admin: httpx.Client) -> dict[str, str]:
    pages = api(admin, action="query", prop="info", titles="|".join(DEFAULT_TITLES))
    return {p["title"]: p["contentmodel"] for p in pages["query"]["pages"]}


def _saved(admin: httpx.Client) -> dict[str, Any]:
    edit(admin, "Template:Ccm tpl", "[[Category:Ccm tpl cat]][[Ccm tpl link]]")
    out: dict[str, Any] = {}
    for title, (model, text) in SAVED.items():
        delete(admin, title)
        done = _post(admin, action="edit", title=title, text=text, contentmodel=model)
        parsed = api(admin, action="parse", page=title, prop="text|displaytitle")
        info = api(admin, action="query", prop="links|templates|categories|info", titles=title)
        page = info["query"]["pages"][0]
        out[title] = {
            "model": model,
            "text": text,
            "answer_model": done["edit"]["contentmodel"],
            "stored": _raw(admin, title).text,
            "parse_html": _html(parsed["parse"]["text"]),
            "displaytitle": parsed["parse"]["displaytitle"],
            "links": sorted(link["title"] for link in page.get("links", [])),
            "templates": sorted(t["title"] for t in page.get("templates", [])),
            "categories": sorted(c["title"] for c in page.get("categories", [])),
            "redirect": "redirect" in page,
        }
    return out


def _edits(admin: httpx.Client, plain: httpx.Client) -> dict[str, Any]:
    """action=edit with and without `contentmodel`, and the log entries it makes."""
    out: dict[str, Any] = {"invalid_json": {}}
    for name, text in INVALID_JSON.items():
        delete(admin, "Ccm bad json")
        answer = _post(admin, action="edit", title="Ccm bad json", text=text, contentmodel="json")
        out["invalid_json"][name] = _error(answer)
    delete(admin, "Ccm made text")
    made = _post(admin, action="edit", title="Ccm made text", text="x", contentmodel="text",
                 summary="made")  # fmt: skip
    kept = _post(admin, action="edit", title="Ccm made text", text="y")
    back = _post(admin, action="edit", title="Ccm made text", text="z", contentmodel="wikitext")
    out["new_in_model"] = made["edit"]["contentmodel"]
    out["kept_model"] = kept["edit"]["contentmodel"]
    out["changed_model"] = back["edit"]["contentmodel"]
    revisions = api(admin, action="query", prop="revisions", titles="Ccm made text",
                    rvprop="tags|comment|contentmodel", rvlimit="3", rvslots="main")  # fmt: skip
    out["revisions"] = [
        {"tags": r["tags"], "comment": r["comment"], "model": r["slots"]["main"]["contentmodel"]}
        for r in revisions["query"]["pages"][0]["revisions"]
    ]
    logs = api(admin, action="query", list="logevents", letype="contentmodel",
               letitle="Ccm made text", leprop="type|details|comment", lelimit="2")  # fmt: skip
    out["logs"] = [
        {"action": e["action"], "params": e["params"], "comment": e["comment"]}
        for e in logs["query"]["logevents"]
    ]
    badformat = _post(admin, action="edit", title="Ccm made text", text="w", contentmodel="text",
                      contentformat="text/x-wiki")  # fmt: skip
    out["badformat"] = _error(badformat)
    with httpx.Client(timeout=60) as anonymous:
        refused = api(anonymous, "POST", action="edit", title="Ccm anon text", text="x",
                      contentmodel="text", token="+\\")  # fmt: skip
        out["anonymous_new_in_model"] = _error(refused)
    edit(admin, "User:Admin/ccm.css", "a{}")
    out["other_users_css"] = _error(
        _post(plain, action="edit", title="User:Admin/ccm.css", text="b{}")
    )
    # Turning another user's page into a script by an edit: EditPage only says no model change.
    edit(admin, "User:Admin/ccm.txt", "x")
    to_js = _post(plain, action="edit", title="User:Admin/ccm.txt", text="y",
                  contentmodel="javascript")  # fmt: skip
    out["other_users_page_to_js"] = _error(to_js)
    own = _post(plain, action="edit", title=f"User:{PLAIN[0]}/ccm.js", text="b()")
    out["own_js_model"] = own["edit"]["contentmodel"]
    return out


def _changes(admin: httpx.Client, plain: httpx.Client, sysop: httpx.Client) -> dict[str, Any]:
    """action=changecontentmodel: a change and back, then each refusal."""
    delete(admin, "Ccm change")
    edit(admin, "Ccm change", "hello [[Ccm link]]")
    done = _post(admin, action="changecontentmodel", title="Ccm change", model="css",
                 summary="why")  # fmt: skip
    out: dict[str, Any] = {"success_keys": sorted(done["changecontentmodel"])}
    out["success_model"] = done["changecontentmodel"]["contentmodel"]
    revision = api(admin, action="query", prop="revisions", titles="Ccm change",
                   rvprop="tags|comment|size", rvlimit="1")  # fmt: skip
    latest = revision["query"]["pages"][0]["revisions"][0]
    out["revision"] = {"tags": latest["tags"], "comment": latest["comment"]}
    log = api(admin, action="query", list="logevents", letype="contentmodel", letitle="Ccm change",
              leprop="type|details|comment")["query"]["logevents"][0]  # fmt: skip
    out["log"] = {"action": log["action"], "params": log["params"], "comment": log["comment"]}
    changes = api(admin, action="query", list="recentchanges", rctitle="Ccm change",
                  rcprop="loginfo|tags", rclimit="2")["query"]["recentchanges"]  # fmt: skip
    out["recentchanges"] = [
        {"type": c["type"], "tags": c["tags"], "logtype": c.get("logtype")} for c in changes
    ]
    delete(admin, "MediaWiki:Ccm plain page")
    edit(admin, "MediaWiki:Ccm plain page", "x")
    edit(admin, "User:Admin/ccm.txt", "x")
    cases: dict[str, tuple[httpx.Client | None, dict[str, str]]] = {
        "same model": (admin, {"title": "Ccm change", "model": "css", "summary": ""}),
        "missing page": (admin, {"title": "Ccm nowhere", "model": "css", "summary": ""}),
        "invalid json": (admin, {"title": "Ccm change", "model": "json", "summary": ""}),
        "no such page id": (admin, {"pageid": "99999999", "model": "json", "summary": ""}),
        "special page": (admin, {"title": "Special:Foo", "model": "json", "summary": ""}),
        "invalid title": (admin, {"title": "<bad>", "model": "json", "summary": ""}),
        "unknown model": (admin, {"title": "Ccm change", "model": "bogus", "summary": ""}),
        "no model": (admin, {"title": "Ccm change", "summary": ""}),
        "no page": (admin, {"model": "text", "summary": ""}),
        "title and page id": (admin, {"title": "Ccm change", "pageid": "1", "model": "text"}),
        "undefined tag": (admin, {"title": "Ccm change", "model": "text", "summary": "",
                                  "tags": "ccm-no-such-tag"}),
        "anonymous": (None, {"title": "Ccm change", "model": "text", "summary": ""}),
        "user: another user's page to javascript": (
            plain, {"title": "User:Admin/ccm.txt", "model": "javascript", "summary": ""}),
        "user: another user's css page": (
            plain, {"title": "User:Admin/ccm.css", "model": "text", "summary": ""}),
        "user: interface page": (
            plain, {"title": "MediaWiki:Ccm plain page", "model": "css", "summary": ""}),
        "sysop: interface page to css": (
            sysop, {"title": "MediaWiki:Ccm plain page", "model": "css", "summary": ""}),
        "sysop: interface page to javascript": (
            sysop, {"title": "MediaWiki:Ccm plain page", "model": "javascript", "summary": ""}),
    }  # fmt: skip
    out["errors"] = {}
    for name, (client, params) in cases.items():
        if client is None:
            with httpx.Client(timeout=60) as anonymous:
                answer = api(anonymous, "POST", action="changecontentmodel", token="+\\", **params)
        else:
            answer = _post(client, action="changecontentmodel", **params)
        out["errors"][name] = {"params": params, **_error(answer)}
    sysop_edit = _post(sysop, action="edit", title="MediaWiki:Common.css", text="b{}")
    out["sysop_site_css_edit"] = _error(sysop_edit)
    out["sysop_site_json_edit_model"] = _post(
        sysop, action="edit", title="MediaWiki:Ccm.json", text="{}"
    )["edit"]["contentmodel"]
    back = _post(admin, action="changecontentmodel", title="Ccm change", model="wikitext",
                 summary="")  # fmt: skip
    out["back_model"] = back["changecontentmodel"]["contentmodel"]
    # A user-defined tag goes on the revision and on the log entry.
    _post(admin, action="managetags", operation="create", tag="ccm-tag", reason="capture")
    tagged = _post(admin, action="changecontentmodel", title="Ccm change", model="text",
                   summary="", tags="ccm-tag")["changecontentmodel"]  # fmt: skip
    revision = api(admin, action="query", prop="revisions", revids=str(tagged["revid"]),
                   rvprop="tags")["query"]["pages"][0]["revisions"][0]  # fmt: skip
    entry = api(admin, action="query", list="logevents", letype="contentmodel",
                letitle="Ccm change", leprop="ids|tags", lelimit="1")["query"]["logevents"][0]  # fmt: skip
    changes = api(admin, action="query", list="recentchanges", rctitle="Ccm change",
                  rcprop="loginfo|tags", rclimit="2")["query"]["recentchanges"]  # fmt: skip
    out["tagged"] = {
        "revision_tags": sorted(revision["tags"]),
        "log_tags": sorted(entry["tags"]),
        "recentchanges": [{"type": c["type"], "tags": sorted(c["tags"])} for c in changes],
    }
    _post(admin, action="changecontentmodel", title="Ccm change", model="wikitext", summary="")
    return out


def _revisions(admin: httpx.Client) -> dict[str, Any]:
    """prop=revisions of a CSS page: its content in its own format, another format refused,
    and `rvparse` rendering it as source."""
    cases = {"plain": {}, "wikitext format": {"rvcontentformat": "text/x-wiki"},
             "css format": {"rvcontentformat": "text/css"}, "parsed": {"rvparse": "1"}}  # fmt: skip
    out: dict[str, Any] = {}
    for name, extra in cases.items():
        data = api(admin, action="query", prop="revisions", titles="Ccm css",
                   rvprop="content|contentmodel", **extra)  # fmt: skip
        out[name] = {"params": extra, "revision": data["query"]["pages"][0]["revisions"][0]}
    return out


def _raw_headers(admin: httpx.Client) -> dict[str, str]:
    response = _raw(admin, "Ccm js")
    return {k: response.headers[k] for k in ("content-type", "x-content-type-options")}


def _special(admin: httpx.Client) -> dict[str, Any]:
    """Special:ChangeContentModel's statuses and what its pages say."""
    page = f"{BASE}/w/index.php"
    token = csrf(admin)
    form = {"wpFormIdentifier": "modelform", "wpEditToken": token, "reason": "why"}
    with httpx.Client(timeout=60) as anonymous:
        refused = anonymous.get(f"{BASE}/wiki/Special:ChangeContentModel/Ccm_change")
    shown = admin.get(f"{BASE}/wiki/Special:ChangeContentModel/Ccm_change")
    options = re.findall(r"<option value='([a-z]+)'", shown.text)
    bad = admin.post(page, params={"title": "Special:ChangeContentModel"},
                     data={"pagetitle": "<bad>", "wpFormIdentifier": "titleform",
                           "wpEditToken": token})  # fmt: skip
    same = admin.post(page, params={"title": "Special:ChangeContentModel"},
                      data={**form, "pagetitle": "Ccm change", "model": "wikitext"})  # fmt: skip
    done = admin.post(page, params={"title": "Special:ChangeContentModel"},
                      data={**form, "pagetitle": "Ccm change", "model": "text"})  # fmt: skip
    api(admin, "POST", action="changecontentmodel", title="Ccm change", model="wikitext",
        summary="", token=csrf(admin))  # fmt: skip
    delete(admin, "Ccm special new")
    admin.post(page, params={"title": "Special:ChangeContentModel"},
               data={**form, "pagetitle": "Ccm special new", "model": "json"})  # fmt: skip
    made_log = api(admin, action="query", list="logevents", letitle="Ccm special new",
                   leprop="type|details|comment", lelimit="2")["query"]["logevents"]  # fmt: skip
    made_rev = api(admin, action="query", prop="revisions", titles="Ccm special new",
                   rvprop="content|comment|tags", rvslots="main")  # fmt: skip
    revision = made_rev["query"]["pages"][0]["revisions"][0]
    heading = re.compile(r'<h1 id="firstHeading"[^>]*>(.*?)</h1>', re.S)

    def said(response: httpx.Response, *texts: str) -> dict[str, Any]:
        found = heading.search(response.text)
        return {
            "status": response.status_code,
            "heading": found.group(1) if found else "",
            "says": {t: t in response.text for t in texts},
        }

    return {
        "options for wikitext": options,
        "anonymous": said(
            refused, "You do not have permission to edit the content model of a page"
        ),
        "invalid title": said(
            bad, "There are problems with some of your input.",
            "The requested page title contains invalid characters: \"&lt;\".",
        ),
        "same model": said(same, "The value you specified is not a valid option."),
        "changed": said(done, "has been changed."),
        "created": {
            "logs": [{"type": e["type"], "action": e["action"], "params": e["params"],
                      "comment": e["comment"]} for e in made_log],
            "content": revision["slots"]["main"]["content"],
            "comment": revision["comment"],
            "tags": revision["tags"],
        },
    }  # fmt: skip


def main() -> None:
    admin = admin_client()
    plain = _account(admin, PLAIN, None)
    sysop = _account(admin, SYSOP, "sysop")
    data = {
        "defaults": _defaults(admin),
        "saved": _saved(admin),
        "edits": _edits(admin, plain),
        "changes": _changes(admin, plain, sysop),
        "revisions": _revisions(admin),
        "raw_headers": _raw_headers(admin),
        "special": _special(admin),
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
