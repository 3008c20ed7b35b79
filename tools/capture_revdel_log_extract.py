"""Record which log entries MediaWiki 1.39's Special:RevisionDelete lists under its form, as test
data: the entries of the deletion and suppression logs about the selected items only.

    .venv/bin/python tools/capture_revdel_log_extract.py

Against the reference wiki (`../shared/reference/mediawiki/mediawiki-ref.sh start`): makes an
oversighter (`sysop` and `suppress`, as Atrium's tests do) when missing, and on a page of its
own (a new one each run) runs SCENARIO through the API, then opens Special:RevisionDelete for
each of VIEWS as the oversighter and as Admin (`deletedhistory`, no `suppressionlog`). Writes
`tests/wiki/data/mw139_revdel_log_extract.json`: per view and viewer, the status and each log
section's heading with its entries, newest first (the reason and the "diff" and "change
visibility" links), or `null` for its empty state ("No matching items in log.").
tests/wiki/test_revdel_log_extract.py runs the same scenario and reads Atrium's page the same
way (keep its `sections` in step with this one).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
from mwref_session import API, BASE, admin_client, api, csrf, signed_in

OUT = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "wiki"
    / "data"
    / "mw139_revdel_log_extract.json"
)
OVERSIGHTER = ("Revdel extract oversighter", "revdel-extract-password-1")
# (ids as revision indexes or "log:<step>", what to hide, suppress, reason); each step is one
# action=revisiondelete. Step 4 hides the performer of step 0's log entry.
SCENARIO: list[dict[str, Any]] = [
    {"type": "revision", "ids": [0], "hide": "comment", "reason": "r0"},
    {"type": "revision", "ids": [1], "hide": "user", "reason": "r1"},
    {"type": "revision", "ids": [0, 1], "hide": "content", "reason": "r01"},
    {"type": "revision", "ids": [2], "hide": "comment", "suppress": True, "reason": "r2s"},
    {"type": "logging", "log": 0, "hide": "user", "reason": "ev0"},
    {"type": "revision", "ids": [0], "hide": "user", "suppress": True, "reason": "r0s"},
]
REVISIONS = 5
# name -> (type, revision indexes or the scenario step whose log entry is selected)
VIEWS: dict[str, tuple[str, list[int] | int]] = {
    "revision 0": ("revision", [0]),
    "revision 1": ("revision", [1]),
    "revision 2": ("revision", [2]),
    "revision 3, never changed": ("revision", [3]),
    "revisions 1 and 2": ("revision", [1, 2]),
    "log entry of step 0": ("logging", 0),
    "log entry of step 1, never changed": ("logging", 1),
}
SECTION = re.compile(r"<h2>(Deletion log|Suppression log)</h2>")
REASON = re.compile(r'<span class="comment">\((.*?)\)</span>')
ACTION_LINK = re.compile(r">(diff|change visibility)</a>")


def _entry(line: str) -> list[Any]:
    """An entry as its reason and the names of its revision-deletion links."""
    reason = REASON.search(line)
    return [reason.group(1) if reason else None, ACTION_LINK.findall(line)]


def sections(html: str) -> list[list[Any]]:
    """[heading, its entries (reason, links) or None when it says it is empty] per log section."""
    found: list[list[Any]] = []
    marks = list(SECTION.finditer(html))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(html)
        chunk = html[mark.end() : end]
        empty = chunk.find("mw-warning-logempty")
        listed = chunk.find("<li")
        if empty != -1 and (listed == -1 or empty < listed):
            found.append([mark.group(1), None])
            continue
        lines = chunk[: chunk.find("</ul>")].split("<li")[1:]
        found.append([mark.group(1), [_entry(line) for line in lines]])
    return found


def _oversighter(admin: httpx.Client) -> httpx.Client:
    name, password = OVERSIGHTER
    token = api(admin, action="query", meta="tokens", type="createaccount")["query"]["tokens"]
    api(
        admin, "POST", action="createaccount", username=name, password=password,
        retype=password, createreturnurl=BASE, createtoken=token["createaccounttoken"],
    )  # fmt: skip
    rights = api(admin, action="query", meta="tokens", type="userrights")["query"]["tokens"]
    api(admin, "POST", action="userrights", user=name, add="sysop|suppress",
        token=rights["userrightstoken"])  # fmt: skip
    return signed_in(name, password)


def main() -> None:
    admin = admin_client()
    oversighter = _oversighter(admin)
    title = f"Revdel log extract {int(time.time())}"
    revisions = []
    for i in range(REVISIONS):
        done = api(oversighter, "POST", action="edit", title=title, text=f"text {i}",
                   summary=f"edit {i}", token=csrf(oversighter))  # fmt: skip
        revisions.append(int(done["edit"]["newrevid"]))
    logs: list[int] = []
    for step in SCENARIO:
        if step["type"] == "logging":
            ids, target = str(logs[step["log"]]), "Special:Log"
        else:
            ids, target = "|".join(str(revisions[i]) for i in step["ids"]), title
        params = {"type": step["type"], "target": target, "ids": ids, "hide": step["hide"],
                  "reason": step["reason"], "token": csrf(oversighter)}  # fmt: skip
        if step.get("suppress"):
            params["suppress"] = "yes"
        done = api(oversighter, "POST", action="revisiondelete", **params)
        if "error" in done:
            raise SystemExit(f"{step}: {done}")
        newest = api(oversighter, action="query", list="logevents", lelimit="1",
                     leprop="ids")  # fmt: skip
        logs.append(int(newest["query"]["logevents"][0]["logid"]))
    views: dict[str, Any] = {}
    for name, (kind, selected) in VIEWS.items():
        if kind == "logging":
            assert isinstance(selected, int)
            params = {"type": "logging", "target": "Special:Log", "ids": str(logs[selected])}
        else:
            assert isinstance(selected, list)
            ids = ",".join(str(revisions[i]) for i in selected)
            params = {"type": "revision", "target": title, "ids": ids}
        seen = {}
        for who, client in (("oversighter", oversighter), ("admin", admin)):
            page = client.get(f"{BASE}/w/index.php",
                              params={"title": "Special:RevisionDelete", **params})  # fmt: skip
            seen[who] = {"status": page.status_code, "sections": sections(page.text)}
        views[name] = seen
    out = {"api": API, "scenario": SCENARIO, "revisions": REVISIONS, "views": VIEWS,
           "seen": views}  # fmt: skip
    OUT.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(views, indent=1))


if __name__ == "__main__":
    main()
