"""Record how MediaWiki 1.39 answers a form posted with bad input (an unknown user, an invalid
expiry or title, a wrong password, a bad import file, a value out of bounds...) and a page asked
with a bad parameter, as test data: the status, and whether the page showed the error.

    .venv/bin/python tools/capture_form_error_statuses.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`): makes the
pages and the `Alice` account the cases are about when missing, and turns on email and uploads in
its LocalSettings.php only while it asks the cases that need them, then restores the file.
Nothing a case posts is accepted, so no case changes the wiki. Writes
`tests/wiki/data/mw139_form_errors.json`: each case with the status, the words the test looks
for and whether the page said them; tests/wiki/test_mw139_form_errors.py asks Atrium the same.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
from mwref_session import BASE, admin_client, api, csrf, edit, signed_in

OUT = Path(__file__).resolve().parents[1] / "tests" / "wiki" / "data" / "mw139_form_errors.json"
SETTINGS = Path(os.environ.get("MWREF_SETTINGS", "/tmp/mwref/LocalSettings.php"))
INDEX = f"{BASE}/w/index.php"
PAGE, OTHER, MISSING = "Form errors page", "Form errors other", "Form errors no page"
NOBODY = "Form errors nobody"
ALICE = ("Alice", "alice-password-1")
UNICODE_CHECK = "ℳ𝒲♥𝓊𝓃𝒾𝒸ℴ𝒹ℯ"  # EditPage takes a post as a whole form only with it
# Turned on only while the email and upload cases are asked (the reference runs without them).
MAIL_AND_UPLOADS = "\n$wgEnableEmail = true;\n$wgEnableUploads = true;\n"

# name -> (session, method, query, form, token field, the words the test looks for). The token
# field is read from the form page itself (some forms salt theirs); None posts no token.
Case = tuple[str, str, dict[str, str], dict[str, str], str | None, str]
CASES: dict[str, Case] = {
    "Special:Block: unknown user": (
        "admin", "POST", {"title": "Special:Block"},
        {"wpTarget": NOBODY, "wpExpiry": "1 day", "wpEditingRestriction": "sitewide"},
        "wpEditToken", f'There is no user by the name "{NOBODY}"',
    ),
    "Special:Block: invalid expiry": (
        "admin", "POST", {"title": "Special:Block"},
        {"wpTarget": ALICE[0], "wpExpiry": "other", "wpExpiry-other": "not a time",
         "wpEditingRestriction": "sitewide"},
        "wpEditToken", "Expiry time invalid.",
    ),
    "Special:Unblock: not blocked": (
        "admin", "POST", {"title": "Special:Unblock"}, {"wpTarget": ALICE[0], "wpReason": "x"},
        "wpEditToken", "Block for Alice not found",
    ),
    "Special:Unblock: invalid name": (
        "admin", "POST", {"title": "Special:Unblock"}, {"wpTarget": "a|b", "wpReason": "x"},
        "wpEditToken", "not found. It may have been removed already.",
    ),
    "Special:MovePage: page exists": (
        "admin", "POST", {"title": "Special:MovePage", "target": PAGE},
        {"wpOldTitle": PAGE, "wpNewTitle": OTHER, "wpReason": "x", "wpMove": "1"},
        "wpEditToken", "already exists",
    ),
    "Special:MovePage: same title": (
        "admin", "POST", {"title": "Special:MovePage", "target": PAGE},
        {"wpOldTitle": PAGE, "wpNewTitle": PAGE, "wpReason": "x", "wpMove": "1"},
        "wpEditToken", "cannot move a page over itself",
    ),
    "Special:MovePage: invalid new title": (
        "admin", "POST", {"title": "Special:MovePage", "target": PAGE},
        {"wpOldTitle": PAGE, "wpNewTitle": "a|b", "wpReason": "x", "wpMove": "1"},
        "wpEditToken", "The requested page title is empty or invalid.",
    ),
    "Special:MovePage: no such page": (
        "admin", "GET", {"title": "Special:MovePage", "target": MISSING}, {}, None,
        "The target page you have specified does not exist.",
    ),
    "protect: invalid expiry": (
        "admin", "POST", {"title": PAGE, "action": "protect"},
        {"mwProtect-level-edit": "sysop", "wpProtectExpirySelection-edit": "othertime",
         "mwProtect-edit-expires": "not a time", "mwProtect-level-move": "sysop",
         "wpProtectExpirySelection-move": "infinite", "mwProtect-reason": "x"},
        "wpEditToken", "Expiration time is invalid.",
    ),
    "Special:UserRights: unknown user": (
        "admin", "POST", {"title": "Special:UserRights"},
        {"user": NOBODY, "user-reason": "x", "saveusergroups": "1",
         "conflictcheck-originalgroups": ""},
        "wpEditToken", f'There is no user by the name "{NOBODY}"',
    ),
    "Special:UserRights: unknown user shown": (
        "admin", "GET", {"title": "Special:UserRights", "user": NOBODY}, {}, None,
        f'There is no user by the name "{NOBODY}"',
    ),
    "Special:MergeHistory: same page": (
        "admin", "POST", {"title": "Special:MergeHistory"},
        {"target": PAGE, "dest": PAGE, "merge": "1", "submitted": "1"},
        "wpEditToken", "Source and destination pages cannot be the same",
    ),
    "Special:Undelete: nothing deleted": (
        "admin", "POST", {"title": "Special:Undelete", "target": PAGE},
        {"restore": "1", "wpComment": "x"}, "wpEditToken", "Couldn't undelete",
    ),
    "Special:BotPasswords: invalid bot name": (
        "admin", "POST", {"title": "Special:BotPasswords/" + "x" * 40}, {"op": "create"},
        "wpEditToken", "is not valid",
    ),
    "Special:BotPasswords: update a missing one": (
        "admin", "POST", {"title": "Special:BotPasswords/Formerrorsnone"}, {"op": "update"},
        "wpEditToken", 'Failed to update bot name "Formerrorsnone". Was it deleted?',
    ),
    "Special:EditTags: none selected": (
        "admin", "POST", {"title": "Special:EditTags", "type": "revision", "ids": "{rev}"},
        {"wpSubmit": "1", "wpReason": "x"}, "wpEditToken", "Please select at least one tag to add or remove.",
    ),
    "Special:EditTags: undefined tag": (
        "admin", "POST", {"title": "Special:EditTags", "type": "revision", "ids": "{rev}"},
        {"wpSubmit": "1", "wpReason": "x", "wpTagList[]": "form-errors-no-such-tag"},
        "wpEditToken", "is not allowed to be manually added.",
    ),
    "Special:Import: unknown source": (
        "admin", "POST", {"title": "Special:Import"}, {"source": "nosuch"},
        "wpEditToken", "Unknown import source type",
    ),
    "Special:Import: no file": (
        "admin", "POST", {"title": "Special:Import"},
        {"action": "submit", "source": "upload", "usernamePrefix": "fe", "mapping": "default"},
        "wpEditToken", "No import file was uploaded.",
    ),
    "Special:Import: no prefix": (
        "admin", "POST", {"title": "Special:Import"},
        {"action": "submit", "source": "upload", "usernamePrefix": "", "mapping": "default", "@file": "<mediawiki/>"},
        "wpEditToken", "No interwiki prefix was supplied",
    ),
    "Special:Import: not an export": (
        "admin", "POST", {"title": "Special:Import"},
        {"action": "submit", "source": "upload", "usernamePrefix": "fe", "mapping": "default",
         "@file": "<html>not an export</html>"},
        "wpEditToken", "Expected '<mediawiki>' tag, got '<html>' tag.",
    ),
    "Special:Import: invalid root page": (
        "admin", "POST", {"title": "Special:Import"},
        {"action": "submit", "source": "upload", "usernamePrefix": "fe", "mapping": "subpage", "rootpage": "a|b",
         "@file": "<mediawiki/>"},
        "wpEditToken", "Given root page is an invalid title.",
    ),
    "rollback: no user named": (
        "admin", "GET", {"title": PAGE, "action": "rollback", "token": "{rollback}"}, {}, None,
        "Missing required parameters on request.",
    ),
    "rollback: not the last author": (
        "admin", "GET", {"title": PAGE, "action": "rollback", "from": ALICE[0],
                         "token": "{rollback}"}, {}, None,
        "Someone else has edited or rolled back the page already.",
    ),
    "rollback: no such page": (
        "admin", "GET", {"title": MISSING, "action": "rollback", "from": "Admin",
                         "token": "{rollback}"}, {}, None,
        "Unable to load revision data.",
    ),
    "edit: text too long": (
        "admin", "POST", {"title": PAGE, "action": "submit"},
        {"wpTextbox1": "x" * (2048 * 1024 + 1), "wpSave": "1", "wpUnicodeCheck": UNICODE_CHECK,
         "wpUltimateParam": "1"},
        "wpEditToken", "which is longer than the maximum of 2,048 kilobytes",
    ),
    "edit: no such section": (
        "admin", "GET", {"title": PAGE, "action": "edit", "section": "99"}, {}, None,
        "You tried to edit a section that does not exist.",
    ),
    "view: no such revision": (
        "admin", "GET", {"title": PAGE, "oldid": "99999999"}, {}, None,
        'The revision #99999999 of the page named "Form errors page" does not exist.',
    ),
    "diff: no such revision": (
        "admin", "GET", {"title": PAGE, "diff": "99999999"}, {}, None,
        "One revision of this difference (99999999) was not found.",
    ),
    "delete: no such page": (
        "admin", "GET", {"title": MISSING, "action": "delete"}, {}, None,
        "It may have already been deleted by someone else.",
    ),
    "index.php: invalid title": (
        "admin", "GET", {"title": "a<b"}, {}, None, "The requested page title",
    ),
    "index.php: no such action": (
        "admin", "GET", {"title": PAGE, "action": "nosuch"}, {}, None,
        "The action specified by the URL is invalid.",
    ),
    "Special:PageData: invalid title": (
        "admin", "GET", {"title": "Special:PageData/main/Talk:"}, {}, None, "Invalid title",
    ),
    "Special:Preferences: invalid date format": (
        "alice", "POST", {"title": "Special:Preferences"}, {"wpdate": "nosuch"},
        "wpEditToken", "is not a valid option",
    ),
    "Special:Preferences: number out of bounds": (
        "alice", "POST", {"title": "Special:Preferences"}, {"wprcdays": "0"},
        "wpEditToken", "below the minimum",
    ),
    "Special:ChangeCredentials: passwords differ": (
        "alice", "POST", {"title": "Special:ChangeCredentials/"
                          "MediaWiki\\Auth\\PasswordAuthenticationRequest"},
        {"password": "form-errors-new-1", "retype": "form-errors-new-2", "authAction": "change"},
        "wpAuthToken", "The passwords you entered do not match.",
    ),
    "Special:UserLogin: wrong password": (
        "anonymous", "POST", {"title": "Special:UserLogin"},
        {"wpName": ALICE[0], "wpPassword": "wrong-password-1", "wploginattempt": "1",
         "authAction": "login"},
        "wpLoginToken", "Incorrect username or password entered.",
    ),
    "Special:UserLogin: no name": (
        "anonymous", "POST", {"title": "Special:UserLogin"},
        {"wpName": "", "wpPassword": "x", "wploginattempt": "1",
         "authAction": "login"},
        "wpLoginToken", "This value is required.",
    ),
    "Special:CreateAccount: name taken": (
        "anonymous", "POST", {"title": "Special:CreateAccount"},
        {"wpName": ALICE[0], "wpPassword": "form-errors-pw-1", "retype": "form-errors-pw-1",
         "wpCreateaccount": "1", "authAction": "create"},
        "wpCreateaccountToken", "Username entered already in use.",
    ),
    "Special:CreateAccount: passwords differ": (
        "anonymous", "POST", {"title": "Special:CreateAccount"},
        {"wpName": "Form errors new", "wpPassword": "form-errors-pw-1",
         "retype": "form-errors-pw-2", "wpCreateaccount": "1", "authAction": "create"},
        "wpCreateaccountToken", "The passwords you entered do not match.",
    ),
    "Special:CreateAccount: invalid name": (
        "anonymous", "POST", {"title": "Special:CreateAccount"},
        {"wpName": "a|b", "wpPassword": "form-errors-pw-1", "retype": "form-errors-pw-1",
         "wpCreateaccount": "1", "authAction": "create"},
        "wpCreateaccountToken", "You have not specified a valid username.",
    ),
}  # fmt: skip
# Asked with email and uploads on.
MAIL_CASES: dict[str, Case] = {
    "Special:ChangeEmail: invalid address": (
        "alice", "POST", {"title": "Special:ChangeEmail"},
        {"wpNewEmail": "not an address", "wpPassword": ALICE[1]},
        "wpEditToken", "cannot be accepted as it appears to have an invalid format",
    ),
    "Special:PasswordReset: nothing given": (
        "anonymous", "POST", {"title": "Special:PasswordReset"},
        {"wpUsername": "", "wpEmail": ""}, "wpEditToken",
        "Neither a username nor an email address was supplied",
    ),
    "Special:PasswordReset: invalid address": (
        "anonymous", "POST", {"title": "Special:PasswordReset"},
        {"wpUsername": "", "wpEmail": "not an address"}, "wpEditToken", "",
    ),
    "Special:Upload: no file": (
        "admin", "POST", {"title": "Special:Upload"},
        {"wpSourceType": "file", "wpDestFile": "Form errors.png", "wpUpload": "1"},
        "wpEditToken", "The file you uploaded seems to be empty.",
    ),
}  # fmt: skip


def _alice(admin: httpx.Client) -> None:
    """Alice, made by Admin when missing (with the password the Atrium tests give her)."""
    token = api(admin, action="query", meta="tokens", type="createaccount")["query"]["tokens"]
    api(
        admin, "POST", action="createaccount", username=ALICE[0], password=ALICE[1],
        retype=ALICE[1], createreturnurl=BASE, createtoken=token["createaccounttoken"],
    )  # fmt: skip


def _token(client: httpx.Client, query: dict[str, str], field: str) -> str:
    shown = {**query, "action": "edit"} if query.get("action") == "submit" else query
    page = client.get(INDEX, params=shown)
    tag = re.search(rf"<input[^>]*name=['\"]{re.escape(field)}['\"][^>]*>", page.text)
    found = re.search(r"value=['\"]([^'\"]*)['\"]", tag.group(0)) if tag else None
    if found is None:
        # A form shown only for a chosen target (Special:UserRights): the session's token.
        return csrf(client)
    return html.unescape(found.group(1))


def _ask(client: httpx.Client, case: Case, values: dict[str, str]) -> httpx.Response:
    _session, method, query, form, field, _says = case
    query = {k: v.format(**values) for k, v in query.items()}
    if method == "GET":
        return client.get(INDEX, params=query)
    data = {k: v for k, v in form.items() if k != "@file"}
    if field is not None:
        data[field] = _token(client, query, field)
    if "@file" in form:
        files = {"xmlimport": ("export.xml", form["@file"].encode(), "text/xml")}
        return client.post(INDEX, params=query, data=data, files=files)
    if query["title"] in ("Special:Import", "Special:Upload"):
        # The forms' multipart body, without a file.
        return client.post(INDEX, params=query, data=data, files={"x": ("", b"")})
    return client.post(INDEX, params=query, data=data)


def _record(cases: dict[str, Case], clients: dict[str, httpx.Client],
            values: dict[str, str]) -> dict[str, dict[str, Any]]:  # fmt: skip
    seen: dict[str, dict[str, Any]] = {}
    for name, case in cases.items():
        if case[0] == "anonymous":
            # A browser of its own each: AuthManager keeps a refused account creation going.
            with httpx.Client(timeout=60) as anonymous:
                response = _ask(anonymous, case, values)
        else:
            response = _ask(clients[case[0]], case, values)
        says = case[5]
        seen[name] = {
            "status": response.status_code,
            "says": says,
            "said": bool(says) and html.unescape(says).lower() in html.unescape(response.text).lower(),
        }  # fmt: skip
    return seen


def main() -> None:
    admin = admin_client()
    edit(admin, PAGE, "A page the form errors are about.", "capture")
    edit(admin, OTHER, "Another page.", "capture")
    info = api(admin, action="query", prop="info", titles=OTHER)["query"]["pages"][0]
    rev = info["lastrevid"]
    _alice(admin)
    rollback = api(admin, action="query", meta="tokens", type="rollback")["query"]["tokens"]
    values = {"rev": str(rev), "rollback": rollback["rollbacktoken"]}
    clients = {
        "admin": admin,
        "alice": signed_in(*ALICE),
    }
    cases = _record(CASES, clients, values)
    original = SETTINGS.read_text()
    SETTINGS.write_text(original + MAIL_AND_UPLOADS)
    try:
        time.sleep(3)  # past opcache's revalidation interval
        cases |= _record(MAIL_CASES, clients, values)
    finally:
        SETTINGS.write_text(original)
    blocks = api(admin, action="query", list="blocks", bkusers=ALICE[0])["query"]["blocks"]
    assert blocks == [], "a refused form blocked Alice"
    assert csrf(admin)
    OUT.write_text(
        json.dumps(
            {
                "_about": "Recorded by tools/capture_form_error_statuses.py from MediaWiki 1.39 "
                "(mediawiki-ref.sh): the status of a form posted with bad input and of a page "
                "asked with a bad parameter, and whether the page said what the test looks for.",
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
