"""Record the HTTP status MediaWiki 1.39 gives for each kind of link the Special page crawl
follows (tests/wiki/test_web_special_crawl.py), as test data.

    .venv/bin/python tools/capture_crawl_statuses.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`, `seed`):
makes the pages the kinds need (an existing page, an edit-protected one, a creation-protected
title, an account without a user page), then asks, anonymously and as Admin, every Special page
its Special:SpecialPages lists (alone and with each kind of target) and every page action on a
page in each state, without following redirects. Writes `tests/wiki/data/
mw139_crawl_statuses.json`: each kind (named as tests/wiki/crawl_kinds.py names it) with the
status and the path asked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote, unquote

import httpx
from mwref_session import BASE, admin_client, api, csrf, delete, edit

OUT = Path(__file__).resolve().parents[1] / "tests" / "wiki" / "data" / "mw139_crawl_statuses.json"
PERSON = "Crawl person"  # an account without a user page
PAGES = {
    "existing": "Crawl hub",
    "protected": "Crawl fortress",
    "create-protected": "Crawl wanted",
    "missing": "Crawl missing page",
}
# A missing page of each group a missing page's view is told apart in (Kinds._group).
MISSING_VIEWS = {
    "page": "Crawl missing page",
    "user registered": f"User:{PERSON}",
    "user ip": "User:127.0.0.5",
    "user unknown": "User:Crawl nobody",
    "user subpage": f"User:{PERSON}/Notes",
    "message default": "MediaWiki:Edit",
    "message": "MediaWiki:Crawl-no-such-message",
    "file": "File:Crawl nowhere.png",
    "category": "Category:Crawl missing category",
}
ACTIONS = (
    "view", "edit", "submit", "history", "info", "raw", "render", "protect", "unprotect",
    "delete", "watch", "unwatch", "purge", "credits", "markpatrolled", "diff", "oldid",
)  # fmt: skip
# The targets a Special page's subpage may name (crawl_kinds.Kinds._sub_state).
# Special:Redirect's typed lookups, with the example values its own summary links to.
REDIRECT_LOOKUPS = {
    "file": "Example.jpg", "page": "64308", "revision": "328429", "user": "101", "logid": "186",
}  # fmt: skip
SUBPAGES = {"user": PERSON, "ip": "127.0.0.5", "page": "Crawl hub", "missing": "Crawl missing page"}
SKIPPED = {"userlogout"}  # would end the session the capture runs in


def _seed(admin: httpx.Client) -> dict[str, int]:
    """The pages of each state; returns the latest revision of each existing one."""
    for title in (PAGES["missing"], *MISSING_VIEWS.values()):
        delete(admin, title)
    revs = {}
    for state in ("existing", "protected"):
        done = edit(admin, PAGES[state], f"The {state} page of the crawl. [[{PAGES['existing']}]]")
        revs[state] = int(done["edit"].get("newrevid") or done["edit"]["pageid"])
        if "newrevid" not in done["edit"]:
            info = api(admin, action="query", prop="info", titles=PAGES[state])
            revs[state] = int(info["query"]["pages"][0]["lastrevid"])
    for title, protections in (
        (PAGES["protected"], "edit=sysop|move=sysop"),
        (PAGES["create-protected"], "create=sysop"),
    ):
        api(admin, "POST", action="protect", title=title, protections=protections,
            expiry="infinite", reason="crawl", token=csrf(admin))  # fmt: skip
    token = api(admin, action="query", meta="tokens", type="createaccount")
    api(admin, "POST", action="createaccount", username=PERSON, password="Crawl-person-pass-1",
        retype="Crawl-person-pass-1", createreturnurl=BASE + "/",
        createtoken=token["query"]["tokens"]["createaccounttoken"])  # fmt: skip
    return revs


def _path(title: str, **query: str) -> str:
    name = quote(title.replace(" ", "_"), safe=":/")
    if not query:
        return f"/wiki/{name}"
    return f"/w/index.php?title={name}&" + "&".join(f"{k}={quote(v)}" for k, v in query.items())


def _action_path(title: str, action: str, rev: int) -> str:
    if action == "view":
        return _path(title)
    if action == "diff":
        return _path(title, diff="prev", oldid=str(rev))
    if action == "oldid":
        return _path(title, oldid=str(rev))
    return _path(title, action=action)


def _specials(admin: httpx.Client) -> list[str]:
    listing = admin.get(f"{BASE}/wiki/Special:SpecialPages").text
    names = {unquote(m) for m in re.findall(r'href="/wiki/Special:([^"?#/]+)"', listing)}
    return sorted(n for n in names if n.lower() not in SKIPPED)


def main() -> None:
    admin = admin_client()
    revs = _seed(admin)
    anonymous = httpx.Client(timeout=60)
    kinds: dict[str, dict[str, int | str]] = {}

    def ask(kind: str, path: str) -> None:
        for who, client in (("anonymous", anonymous), ("administrator", admin)):
            status = client.get(BASE + path, follow_redirects=False).status_code
            kinds[f"{kind} as {who}"] = {"status": status, "path": path}

    for name in _specials(admin):
        ask(f"Special:{name.lower()}", _path(f"Special:{name}"))
        for state, target in SUBPAGES.items():
            ask(f"Special:{name.lower()}/{state}", _path(f"Special:{name}/{target}"))
    for kind, value in REDIRECT_LOOKUPS.items():
        ask(f"Special:redirect lookup {kind}", _path(f"Special:Redirect/{kind}/{value}"))
    for state, title in PAGES.items():
        rev = revs.get(state, 99999999)
        for action in ACTIONS:
            if action == "view" and state in ("missing", "create-protected"):
                continue  # told apart by namespace below
            ask(f"{action} of {state}", _action_path(title, action, rev))
    for group, title in MISSING_VIEWS.items():
        ask(f"view of missing {group}", _path(title))
    OUT.write_text(json.dumps({
        "_about": (
            "Recorded by tools/capture_crawl_statuses.py from MediaWiki 1.39 (the Debian "
            "package, mediawiki-ref.sh): the status of each kind of link, asked anonymously "
            "and as Admin without following redirects; kinds as tests/wiki/crawl_kinds.py "
            "names them."
        ),
        "kinds": dict(sorted(kinds.items())),
    }, indent=1, ensure_ascii=False) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
