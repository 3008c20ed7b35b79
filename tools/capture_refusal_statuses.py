"""Record the HTTP status MediaWiki 1.39 gives the refusals the Special page crawl never meets,
as test data: a blocked user opening and saving the edit form; forms
posted with a wrong token (edit, delete, protect, Special:Block, Special:UserLogin,
Special:RevisionDelete); and, with `$wgGroupPermissions['*']['read'] = false`, an anonymous
reader of a page, its history and its raw text.

    .venv/bin/python tools/capture_refusal_statuses.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`): makes the
account it blocks (and unblocks it at the end), and adds the private-wiki line to its
LocalSettings.php only while it asks the private cases, then restores the file. Writes
`tests/wiki/data/mw139_refusal_statuses.json`: each case with the status and whether the page
said what tests/wiki/test_mw139_refusals.py looks for.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import httpx
from mwref_session import API, BASE, admin_client, api, csrf, edit, signed_in

OUT = (
    Path(__file__).resolve().parents[1] / "tests" / "wiki" / "data" / "mw139_refusal_statuses.json"
)
SETTINGS = Path(os.environ.get("MWREF_SETTINGS", "/tmp/mwref/LocalSettings.php"))
PAGE = "Refusal page"
BLOCKED = ("Refusal blocked", "refusal-blocked-password-1")
# What EditPage needs to take a post as a whole form (else it previews, saying parts are missing).
EDIT_FIELDS = {
    "wpTextbox1": "x", "wpSave": "1", "wpUnicodeCheck": "ℳ𝒲♥𝓊𝓃𝒾𝒸ℴ𝒹ℯ", "wpUltimateParam": "1",
}  # fmt: skip
PRIVATE_LINE = "\n$wgGroupPermissions['*']['read'] = false;\n"
# What each kind of answer says, so that the test can tell it is the same page.
SAYS = {
    "blocked": "has been blocked",
    "sessionfailure": "session",
    "login required": "Login required",
}


def _account(admin: httpx.Client) -> httpx.Client:
    """The account to block, made by Admin when missing; a client signed in as it."""
    token = api(admin, action="query", meta="tokens", type="createaccount")["query"]["tokens"]
    api(
        admin, "POST", action="createaccount", username=BLOCKED[0], password=BLOCKED[1],
        retype=BLOCKED[1], createreturnurl=BASE, createtoken=token["createaccounttoken"],
    )  # fmt: skip
    return signed_in(BLOCKED[0], BLOCKED[1])


def _case(response: httpx.Response, says: str) -> dict[str, object]:
    return {
        "status": response.status_code,
        "says": SAYS[says],
        "said": SAYS[says].lower() in response.text.lower(),
    }


def main() -> None:
    admin = admin_client()
    edit(admin, PAGE, "A page the refusals are about.", "capture")
    blocked = _account(admin)
    cases: dict[str, dict[str, object]] = {}
    index = f"{BASE}/w/index.php"
    api(admin, "POST", action="block", user=BLOCKED[0], expiry="1 day", reason="capture",
        token=csrf(admin))  # fmt: skip
    try:
        token = csrf(blocked)
        cases["blocked: edit form"] = _case(
            blocked.get(index, params={"title": PAGE, "action": "edit"}), "blocked"
        )
        cases["blocked: edit saved"] = _case(
            blocked.post(index, params={"title": PAGE, "action": "submit"},
                         data={**EDIT_FIELDS, "wpEditToken": token}),
            "blocked",
        )  # fmt: skip
    finally:
        api(admin, "POST", action="unblock", user=BLOCKED[0], reason="capture",
            token=csrf(admin))  # fmt: skip
    bad = {"wpEditToken": "0123456789abcdef+\\"}
    posts = {
        "bad token: edit saved": (
            {"title": PAGE, "action": "submit"},
            EDIT_FIELDS,
        ),
        "bad token: delete": ({"title": PAGE, "action": "delete"}, {"wpReason": "x"}),
        "bad token: protect": (
            {"title": PAGE, "action": "protect"}, {"mwProtect-level-edit": "sysop"},
        ),
        "bad token: Special:Block": (
            {"title": "Special:Block"}, {"wpTarget": BLOCKED[0], "wpExpiry": "1 day"},
        ),
        "bad token: Special:RevisionDelete": (
            {"title": "Special:RevisionDelete", "action": "submit"},
            {"type": "revision", "target": PAGE, "ids": "1", "wpHideComment": "1",
             "wpSubmit": "1"},
        ),
    }  # fmt: skip
    for name, (query, form) in posts.items():
        cases[name] = _case(admin.post(index, params=query, data={**form, **bad}), "sessionfailure")
    with httpx.Client(timeout=60) as anonymous:
        login = anonymous.post(
            index, params={"title": "Special:UserLogin"},
            data={"wpName": "Admin", "wpPassword": "x", "wpLoginToken": "bad+\\",
                  "wploginattempt": "1"},
        )  # fmt: skip
        cases["bad token: Special:UserLogin"] = _case(login, "sessionfailure")
    original = SETTINGS.read_text()
    SETTINGS.write_text(original + PRIVATE_LINE)
    try:
        time.sleep(3)  # past opcache's revalidation interval
        with httpx.Client(timeout=60) as anonymous:
            for name, path in (
                ("private: page", f"/wiki/{PAGE.replace(' ', '_')}"),
                ("private: history", f"/w/index.php?title={PAGE}&action=history"),
                ("private: raw", f"/w/index.php?title={PAGE}&action=raw"),
                ("private: Special:RecentChanges", "/wiki/Special:RecentChanges"),
            ):
                cases[name] = _case(anonymous.get(BASE + path), "login required")
            cases["private: api"] = {
                "status": anonymous.get(API, params={"action": "query", "titles": PAGE,
                                                     "format": "json"}).status_code,
            }  # fmt: skip
    finally:
        SETTINGS.write_text(original)
    OUT.write_text(
        json.dumps(
            {
                "_about": "Recorded by tools/capture_refusal_statuses.py from MediaWiki 1.39 "
                "(mediawiki-ref.sh): the status of refusals the crawl does not meet, and "
                "whether the page said what the test looks for.",
                "cases": cases,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
