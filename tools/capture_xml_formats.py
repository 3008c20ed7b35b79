"""Record MediaWiki 1.39's `format=xml` answers for a sample of query modules (lists, props,
meta), action modules, errors and warnings, as test data.

    .venv/bin/python tools/capture_xml_formats.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`, `seed`):
asks each request of READS anonymously, then runs the ACTIONS in order as Admin (each with a
fresh token of its kind), on a page it first deletes so that every run starts alike. Adds the
answers to `tests/wiki/data/mw139_xml_format.json` (READS under their names, the actions as
`_actions`), keeping what is there; tests/wiki/test_api_formats.py compares the element and
attribute layout of Atrium's answers to the same requests with them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from mwref_session import API, admin_client, api, delete

OUT = Path(__file__).resolve().parents[1] / "tests" / "wiki" / "data" / "mw139_xml_format.json"
PAGE = "XML format page"
PARSED = "== Head ==\n[[Apple]] {{Stub}} [http://example.com ex] [[Category:Fruit]] & <b>x</b>"
READS: dict[str, dict[str, str]] = {
    "allcategories": {"list": "allcategories", "acprop": "size|hidden", "aclimit": "2"},
    "alllinks": {"list": "alllinks", "allimit": "2", "alprop": "ids|title"},
    "allusers": {"list": "allusers", "auprop": "groups|editcount|registration", "aulimit": "1"},
    "recentchanges": {
        "list": "recentchanges", "rctype": "new", "rclimit": "2",
        "rcprop": "title|ids|sizes|flags|user|comment|timestamp|tags|redirect",
    },
    "logevents": {"list": "logevents", "letype": "create", "lelimit": "2"},
    "usercontribs": {
        "list": "usercontribs", "ucuser": "Admin", "uclimit": "2", "ucdir": "newer",
        "ucprop": "ids|title|timestamp|comment|size|sizediff|flags|tags",
    },
    "embeddedin": {"list": "embeddedin", "eititle": "Template:Stub", "eilimit": "2"},
    "prefixsearch": {"list": "prefixsearch", "pssearch": "Filler", "pslimit": "2"},
    "allredirects": {"list": "allredirects", "arprop": "ids|title|fragment", "arlimit": "1"},
    "querypage": {"list": "querypage", "qppage": "Wantedpages", "qplimit": "2"},
    "tags": {"list": "tags", "tglimit": "3",
             "tgprop": "name|displayname|description|hitcount|defined|source|active"},
    "siteinfo-lists": {
        "meta": "siteinfo",
        "siprop": "statistics|usergroups|restrictions|rightsinfo|specialpagealiases|magicwords|"
        "protocols|fileextensions",
    },
    "allmessages": {"meta": "allmessages", "ammessages": "edit|mainpage|nosuchmessageqx",
                    "amprop": "default"},
    "tokens": {"meta": "tokens", "type": "csrf|watch|patrol"},
    "filerepoinfo": {"meta": "filerepoinfo"},
    "userinfo-lists": {
        "meta": "userinfo",
        "uiprop": "groups|implicitgroups|rights|editcount|changeablegroups|centralids|"
        "cancreateaccount|latestcontrib",
    },
    "info-props": {
        "prop": "info", "titles": "Apple|Talk:Apple|Nope",
        "inprop": "protection|talkid|watched|watchers|notificationtimestamp|subjectid|url|"
        "readable|preload|displaytitle|varianttitles",
    },
    "revisions-props": {
        "prop": "revisions", "titles": "Apple", "rvslots": "*",
        "rvprop": "ids|flags|timestamp|user|userid|size|slotsize|sha1|slotsha1|contentmodel|"
        "comment|parsedcomment|content|tags|roles",
    },
    "page-props": {
        "prop": "langlinks|iwlinks|extlinks|templates|images|pageprops|categoryinfo|linkshere|"
        "transcludedin|redirects", "titles": "Apple|Category:Fruit|Template:Stub",
    },
    "categories-props": {"prop": "categories", "clprop": "sortkey|timestamp|hidden",
                         "titles": "Banana"},
    "generator": {"generator": "allpages", "gaplimit": "2", "prop": "info"},
    "titles-kinds": {"titles": "Apple|Nope|Talk:|Special:Version|main_Page", "prop": "info"},
    "imageinfo-missing": {"prop": "imageinfo", "titles": "File:Nowhere.png"},
    "contributors": {"prop": "contributors", "titles": "Apple"},
    "watchlist-anonymous": {"list": "watchlist"},
    "warnings-modules": {"list": "allpages", "aplimit": "1", "bogus": "1", "apbogus": "1"},
    "warnings-plaintext": {"list": "allpages", "aplimit": "1", "bogus": "1",
                           "errorformat": "plaintext"},
    "error-plaintext": {"list": "allpages", "aplimit": "bad", "errorformat": "plaintext"},
}  # fmt: skip
OTHER_READS: dict[str, dict[str, str]] = {
    "parse-props": {
        "action": "parse", "text": PARSED, "title": "Sandbox", "contentmodel": "wikitext",
        "disablelimitreport": "1",
        "prop": "text|langlinks|categories|links|templates|images|externallinks|sections|"
        "displaytitle|iwlinks|properties|parsewarnings|wikitext",
    },
    "expandtemplates-props": {
        "action": "expandtemplates", "text": "{{Stub}}", "title": "Sandbox",
        "prop": "wikitext|categories|properties|volatile|ttl",
    },
    "expandtemplates-legacy": {"action": "expandtemplates", "text": "{{Stub}}",
                               "title": "Sandbox"},
    "compare-props": {
        "action": "compare", "fromtitle": "Apple", "totitle": "Banana",
        "prop": "diff|diffsize|rel|ids|title|user|comment|size|timestamp",
    },
    "help-wrapped": {"action": "help", "modules": "query+info", "wrap": "1"},
}  # fmt: skip
# (name, token type or "", parameters), run in order as Admin.
ACTIONS: list[tuple[str, str, dict[str, str]]] = [
    ("edit-new", "csrf", {"action": "edit", "title": PAGE, "summary": "xml",
                          "text": "Made for the XML format comparison. [[Apple]]"}),
    ("edit-nochange", "csrf", {"action": "edit", "title": PAGE, "summary": "xml",
                               "text": "Made for the XML format comparison. [[Apple]]"}),
    ("protect", "csrf", {"action": "protect", "title": PAGE, "reason": "xml",
                         "protections": "edit=sysop|move=sysop", "expiry": "infinite|infinite"}),
    ("watch", "watch", {"action": "watch", "titles": PAGE}),
    ("purge", "", {"action": "purge", "titles": f"{PAGE}|Nope"}),
    ("move", "csrf", {"action": "move", "from": PAGE, "to": f"{PAGE} moved", "reason": "xml"}),
    ("delete", "csrf", {"action": "delete", "title": f"{PAGE} moved", "reason": "xml"}),
    ("watchlistraw", "", {"action": "query", "list": "watchlistraw", "wrlimit": "2"}),
    ("options", "csrf", {"action": "options", "change": "gender=female"}),
]  # fmt: skip


def _xml(client: httpx.Client, method: str, params: dict[str, str]) -> str:
    params = {**params, "format": "xml"}
    if method == "POST":
        return client.post(API, data=params).text
    return client.get(API, params=params).text


def main() -> None:
    recorded: dict[str, Any] = json.loads(OUT.read_text())
    for name in recorded.pop("_captured", []):
        recorded.pop(name, None)  # a case an earlier run recorded and this one may not
    anonymous = httpx.Client(timeout=60)
    for name, params in READS.items():
        full = {"action": "query", **params}
        recorded[name] = {"request": urlencode(full), "xml": _xml(anonymous, "GET", full)}
    for name, params in OTHER_READS.items():
        recorded[name] = {"request": urlencode(params), "xml": _xml(anonymous, "GET", params)}
    # xmlfm: the text inside MediaWiki's <pre class="api-pretty-content">, as it is escaped.
    pretty = {"action": "query", "list": "allpages", "aplimit": "2", "format": "xmlfm"}
    page = anonymous.get(API, params=pretty).text
    shown = page.split('<pre class="api-pretty-content">', 1)[1].split("</pre>", 1)[0]
    recorded["_xmlfm"] = {"request": urlencode(pretty), "pre": shown}
    admin = admin_client()
    for title in (PAGE, f"{PAGE} moved"):
        delete(admin, title)
    done = []
    for name, token_type, params in ACTIONS:
        sent = dict(params)
        if token_type:
            tokens = api(admin, action="query", meta="tokens", type=token_type)["query"]["tokens"]
            sent["token"] = tokens[f"{token_type}token"]
        method = "POST" if token_type or params["action"] == "purge" else "GET"
        done.append({"name": name, "token": token_type, "method": method, "params": params,
                     "xml": _xml(admin, method, sent)})  # fmt: skip
    recorded["_actions"] = done
    recorded["_captured"] = [*READS, *OTHER_READS]
    recorded["_about_more"] = (
        "Everything but the first eleven cases and _opensearch* recorded by "
        "tools/capture_xml_formats.py from MediaWiki 1.39 (mediawiki-ref.sh)."
    )
    OUT.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
