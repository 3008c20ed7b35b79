"""A form posted with bad input, and a page asked with a bad parameter, answer with MediaWiki
1.39's status (`data/mw139_form_errors.json`, recorded by tools/capture_form_error_statuses.py):
the form shown again with its error at 200 where MediaWiki does so, 404 for an invalid title or
an unknown action, 400 where MediaWiki also refuses with it. What MediaWiki's page said, ours
says too. Each case is the same situation asked of Atrium in its own form's fields; none of them
changes anything."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import httpx
import pytest
from tests.wiki.conftest import PASSWORDS, WikiHarness
from tests.wiki.web_special_seed import sign_in

from atrium.wiki.reads.pages import pages_by_titles
from atrium.wiki.reads.users import account_by_name, password_hash

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_form_errors.json").read_text())[
    "cases"
]
INDEX = "/w/index.php"
PAGE, OTHER, MISSING = "Form errors page", "Form errors other", "Form errors no page"
NOBODY = "Form errors nobody"
CONTENT = "A page the form errors are about."

# name -> (session, method, query, form, token field); `{...}` are filled from the wiki's
# state, a form key starting with `@` is an uploaded file. Mirrors the capture tool's cases,
# in Atrium's form fields.
Case = tuple[str, str, dict[str, str], dict[str, str], str | None]
CASES: dict[str, Case] = {
    "Special:Block: unknown user": (
        "admin", "POST", {"title": "Special:Block"},
        {"wpTarget": NOBODY, "wpExpiry": "1 day", "wpEditingRestriction": "sitewide"},
        "wpEditToken",
    ),
    "Special:Block: invalid expiry": (
        "admin", "POST", {"title": "Special:Block"},
        {"wpTarget": "Alice", "wpExpiry": "other", "wpExpiry-other": "not a time",
         "wpEditingRestriction": "sitewide"},
        "wpEditToken",
    ),
    "Special:Unblock: not blocked": (
        "admin", "POST", {"title": "Special:Unblock"}, {"wpTarget": "Alice", "wpReason": "x"},
        "wpEditToken",
    ),
    "Special:Unblock: invalid name": (
        "admin", "POST", {"title": "Special:Unblock"}, {"wpTarget": "a|b", "wpReason": "x"},
        "wpEditToken",
    ),
    "Special:MovePage: page exists": (
        "admin", "POST", {"title": "Special:MovePage", "target": PAGE},
        {"wpNewTitle": OTHER, "wpReason": "x", "wpMove": "1"}, "wpEditToken",
    ),
    "Special:MovePage: same title": (
        "admin", "POST", {"title": "Special:MovePage", "target": PAGE},
        {"wpNewTitle": PAGE, "wpReason": "x", "wpMove": "1"}, "wpEditToken",
    ),
    "Special:MovePage: invalid new title": (
        "admin", "POST", {"title": "Special:MovePage", "target": PAGE},
        {"wpNewTitle": "a|b", "wpReason": "x", "wpMove": "1"}, "wpEditToken",
    ),
    "Special:MovePage: no such page": (
        "admin", "GET", {"title": "Special:MovePage", "target": MISSING}, {}, None,
    ),
    "protect: invalid expiry": (
        "admin", "POST", {"title": PAGE, "action": "protect"},
        {"mwProtect-level-edit": "sysop", "wpProtectExpirySelection-edit": "othertime",
         "mwProtect-edit-expires": "not a time", "mwProtect-level-move": "sysop",
         "wpProtectExpirySelection-move": "infinite", "mwProtect-reason": "x"},
        "wpEditToken",
    ),
    "Special:UserRights: unknown user": (
        "admin", "POST", {"title": "Special:UserRights"},
        {"user": NOBODY, "user-reason": "x", "saveusergroups": "1"}, "wpEditToken",
    ),
    "Special:UserRights: unknown user shown": (
        "admin", "GET", {"title": "Special:UserRights", "user": NOBODY}, {}, None,
    ),
    "Special:MergeHistory: same page": (
        "admin", "POST", {"title": "Special:MergeHistory"},
        {"target": PAGE, "dest": PAGE, "targetID": "{page}", "destID": "{page}", "merge": "1",
         "submitted": "1"},
        "wpEditToken",
    ),
    "Special:Undelete: nothing deleted": (
        "admin", "POST", {"title": "Special:Undelete", "target": PAGE},
        {"restore": "1", "wpComment": "x"}, "wpEditToken",
    ),
    "Special:BotPasswords: invalid bot name": (
        "admin", "POST", {"title": "Special:BotPasswords/" + "x" * 40}, {"op": "create"},
        "wpEditToken",
    ),
    "Special:BotPasswords: update a missing one": (
        "admin", "POST", {"title": "Special:BotPasswords/Formerrorsnone"}, {"op": "update"},
        "wpEditToken",
    ),
    "Special:EditTags: none selected": (
        "admin", "POST", {"title": "Special:EditTags", "type": "revision", "ids": "{rev}"},
        {"wpSubmit": "1", "wpReason": "x"}, "wpEditToken",
    ),
    "Special:EditTags: undefined tag": (
        "admin", "POST", {"title": "Special:EditTags", "type": "revision", "ids": "{rev}"},
        {"wpSubmit": "1", "wpReason": "x", "wpTagList[]": "form-errors-no-such-tag"},
        "wpEditToken",
    ),
    "Special:Import: unknown source": (
        "admin", "POST", {"title": "Special:Import"}, {"source": "nosuch", "@": ""},
        "wpEditToken",
    ),
    "Special:Import: no file": (
        "admin", "POST", {"title": "Special:Import"},
        {"source": "upload", "usernamePrefix": "fe", "mapping": "default", "@": ""},
        "wpEditToken",
    ),
    "Special:Import: no prefix": (
        "admin", "POST", {"title": "Special:Import"},
        {"source": "upload", "usernamePrefix": "", "mapping": "default",
         "@xmlimport": "<mediawiki/>"},
        "wpEditToken",
    ),
    "Special:Import: not an export": (
        "admin", "POST", {"title": "Special:Import"},
        {"source": "upload", "usernamePrefix": "fe", "mapping": "default",
         "@xmlimport": "<html>not an export</html>"},
        "wpEditToken",
    ),
    "Special:Import: invalid root page": (
        "admin", "POST", {"title": "Special:Import"},
        {"source": "upload", "usernamePrefix": "fe", "mapping": "subpage", "rootpage": "a|b",
         "@xmlimport": "<mediawiki/>"},
        "wpEditToken",
    ),
    "rollback: no user named": (
        "admin", "GET", {"title": PAGE, "action": "rollback", "token": "{rollback}"}, {}, None,
    ),
    "rollback: not the last author": (
        "admin", "GET",
        {"title": PAGE, "action": "rollback", "from": "Alice", "token": "{rollback}"}, {}, None,
    ),
    "rollback: no such page": (
        "admin", "GET",
        {"title": MISSING, "action": "rollback", "from": "Admin", "token": "{rollback}"}, {},
        None,
    ),
    "edit: text too long": (
        "admin", "POST", {"title": PAGE, "action": "submit"},
        {"wpTextbox1": "x" * (2048 * 1024 + 1), "wpSave": "1"}, "wpEditToken",
    ),
    "edit: no such section": (
        "admin", "GET", {"title": PAGE, "action": "edit", "section": "99"}, {}, None,
    ),
    "view: no such revision": ("admin", "GET", {"title": PAGE, "oldid": "99999999"}, {}, None),
    "diff: no such revision": ("admin", "GET", {"title": PAGE, "diff": "99999999"}, {}, None),
    "delete: no such page": ("admin", "GET", {"title": MISSING, "action": "delete"}, {}, None),
    "index.php: invalid title": ("admin", "GET", {"title": "a<b"}, {}, None),
    "index.php: no such action": (
        "admin", "GET", {"title": PAGE, "action": "nosuch"}, {}, None,
    ),
    "Special:PageData: invalid title": (
        "admin", "GET", {"title": "Special:PageData/main/Talk:"}, {}, None,
    ),
    "Special:Preferences: invalid date format": (
        "alice", "POST", {"title": "Special:Preferences"}, {"wpdate": "nosuch"}, "wpEditToken",
    ),
    "Special:Preferences: number out of bounds": (
        "alice", "POST", {"title": "Special:Preferences"}, {"wprcdays": "0"}, "wpEditToken",
    ),
    # MediaWiki's Special:ChangeCredentials; ours asks the current password as well.
    "Special:ChangeCredentials: passwords differ": (
        "alice", "POST", {"title": "Special:ChangePassword"},
        {"currentpassword": PASSWORDS["Alice"], "password": "form-errors-new-1",
         "retype": "form-errors-new-2"},
        "wpEditToken",
    ),
    "Special:UserLogin: wrong password": (
        "anonymous", "POST", {"title": "Special:UserLogin"},
        {"wpName": "Alice", "wpPassword": "wrong-password-1", "wploginattempt": "1"},
        "wpLoginToken",
    ),
    "Special:UserLogin: no name": (
        "anonymous", "POST", {"title": "Special:UserLogin"},
        {"wpName": "", "wpPassword": "x", "wploginattempt": "1"}, "wpLoginToken",
    ),
    "Special:CreateAccount: name taken": (
        "anonymous", "POST", {"title": "Special:CreateAccount"},
        {"wpName": "Alice", "wpPassword": "form-errors-pw-1", "retype": "form-errors-pw-1",
         "wpCreateaccount": "1"},
        "wpCreateaccountToken",
    ),
    "Special:CreateAccount: passwords differ": (
        "anonymous", "POST", {"title": "Special:CreateAccount"},
        {"wpName": "Form errors new", "wpPassword": "form-errors-pw-1",
         "retype": "form-errors-pw-2", "wpCreateaccount": "1"},
        "wpCreateaccountToken",
    ),
    "Special:CreateAccount: invalid name": (
        "anonymous", "POST", {"title": "Special:CreateAccount"},
        {"wpName": "a|b", "wpPassword": "form-errors-pw-1", "retype": "form-errors-pw-1",
         "wpCreateaccount": "1"},
        "wpCreateaccountToken",
    ),
    "Special:ChangeEmail: invalid address": (
        "alice", "POST", {"title": "Special:ChangeEmail"},
        {"wpNewEmail": "not an address", "wpPassword": PASSWORDS["Alice"]}, "wpEditToken",
    ),
    "Special:PasswordReset: nothing given": (
        "anonymous", "POST", {"title": "Special:PasswordReset"},
        {"wpUsername": "", "wpEmail": ""}, "wpEditToken",
    ),
    "Special:PasswordReset: invalid address": (
        "anonymous", "POST", {"title": "Special:PasswordReset"},
        {"wpUsername": "", "wpEmail": "not an address"}, "wpEditToken",
    ),
    "Special:Upload: no file": (
        "admin", "POST", {"title": "Special:Upload"},
        {"wpDestFile": "Form errors.png", "wpUpload": "1", "@": ""}, "wpEditToken",
    ),
}  # fmt: skip


async def _hidden(client: httpx.AsyncClient, query: dict[str, str], field: str) -> dict[str, str]:
    """The token the form page gives this browser, and the editor's timestamps where it has
    them (without them a save is taken for an edit conflict)."""
    shown = {**query, "action": "edit"} if query.get("action") == "submit" else query
    page = await client.get(INDEX, params=shown)
    found: dict[str, str] = {}
    for name in (field, "wpEdittime", "wpStarttime"):
        tag = re.search(rf'<input[^>]*name="{re.escape(name)}"[^>]*>', page.text)
        value = re.search(r'value="([^"]*)"', tag.group(0)) if tag else None
        if value is not None:
            found[name] = unescape(value.group(1))
    assert field in found, (query, field, page.status_code)
    return found


async def _ask(client: httpx.AsyncClient, case: Case, values: dict[str, str]) -> httpx.Response:
    _session, method, query, form, field = case
    query = {k: v.format(**values) for k, v in query.items()}
    if method == "GET":
        return await client.get(INDEX, params=query)
    data = {k: v.format(**values) for k, v in form.items() if not k.startswith("@")}
    if field is not None:
        data |= await _hidden(client, query, field)
    # A form of the multipart kind: the named file, or an empty part without one.
    files = {(k[1:] or "empty"): ("export.xml" if k[1:] else "", v.encode(), "text/xml")
             for k, v in form.items() if k.startswith("@")}  # fmt: skip
    if files:
        return await client.post(INDEX, params=query, data=data, files=files)
    return await client.post(INDEX, params=query, data=data)


async def _titles(wiki: WikiHarness, client: httpx.AsyncClient) -> set[str]:
    """Every page's title, in every namespace a form could have written to."""
    found: set[str] = set()
    for ns in (0, 1, 2, 4):
        listed = await wiki.api(client, action="query", list="allpages", apnamespace=str(ns),
                                aplimit="max")  # fmt: skip
        found |= {p["title"] for p in listed["query"]["allpages"]}
    return found


def _said(response: httpx.Response, says: str) -> bool:
    return unescape(says).lower() in unescape(response.text).lower()


async def test_form_errors_answer_as_mediawiki(wiki: WikiHarness) -> None:
    assert set(CASES) == set(RECORDED), "the test and the recorded facts name the same cases"
    await wiki.edit_page(PAGE, CONTENT)
    rev = await wiki.edit_page(OTHER, "Another page.")
    page_id = (await wiki.db.read(pages_by_titles, [(0, PAGE.replace(" ", "_"))]))[0]["page_id"]
    before = await wiki.db.read(account_by_name, "Alice")
    assert before is not None
    password = await wiki.db.read(password_hash, before.id)
    seen = []
    async with wiki.client() as admin, wiki.client() as alice:
        titles = await _titles(wiki, admin)
        await sign_in(wiki, admin, "Admin")
        await sign_in(wiki, alice, "Alice")
        tokens = await wiki.api(admin, action="query", meta="tokens", type="rollback")
        values = {
            "rev": str(rev),
            "page": str(page_id),
            "rollback": tokens["query"]["tokens"]["rollbacktoken"],
        }
        for name, case in CASES.items():
            if case[0] == "anonymous":
                async with wiki.client() as anonymous:
                    response = await _ask(anonymous, case, values)
            else:
                response = await _ask(admin if case[0] == "admin" else alice, case, values)
            fact = RECORDED[name]
            said = _said(response, str(fact["says"]))
            if response.status_code != fact["status"] or (fact["said"] and not said):
                seen.append((name, response.status_code, fact["status"], said, fact["said"]))
        assert seen == [], "(case, ours, MediaWiki's, we said, it said): " + repr(seen)
        # None of the refused forms changed anything.
        raw = await admin.get(INDEX, params={"title": PAGE, "action": "raw"})
        assert raw.text == CONTENT
        blocks = await wiki.api(admin, action="query", list="blocks", bkusers="Alice")
        assert blocks["query"]["blocks"] == []
        protected = await wiki.api(admin, action="query", prop="info", inprop="protection",
                                   titles=PAGE)  # fmt: skip
        assert next(iter(protected["query"]["pages"].values()))["protection"] == []
        assert await _titles(wiki, admin) == titles  # nothing moved, imported or made
        revision = await wiki.api(admin, action="query", revids=str(rev), prop="revisions",
                                  rvprop="tags")  # fmt: skip
        assert next(iter(revision["query"]["pages"].values()))["revisions"][0]["tags"] == []
    after = await wiki.db.read(account_by_name, "Alice")
    assert after is not None and after.email == before.email
    assert await wiki.db.read(password_hash, before.id) == password
    for name in (NOBODY, "Form errors new"):
        assert await wiki.db.read(account_by_name, name) is None
