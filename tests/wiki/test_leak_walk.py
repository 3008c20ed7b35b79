"""Hidden things stay hidden on every read path: a walk over every query module (read from
`action=paraminfo`, so a new module joins the walk by itself), as a list, prop, meta module and
as a generator, with every user, title and id parameter pointed at the hidden things, over the
actions that echo users, and over the browser pages, as an anonymous reader, a logged-in user and
an administrator without `hideuser`.

Hidden: a user blocked with `hidename` (their name, their block's reason), and a deleted page
(its text and edit summary; administrators may read deleted text, so only the others are
checked for it). A name a request itself sends may come back where MediaWiki echoes it: in an
entry marked missing or invalid, in `normalized`, in errors and warnings.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes.accounts import create_user

pytestmark = pytest.mark.anyio

HIDDEN = "Hiddenuserqz"
BLOCK_REASON = "blockreasonqz"
DELETED_TEXT = "deletedbodyqz"
DELETED_SUMMARY = "deletedsummaryqz"
OVERSIGHT = ("Oversightqz", "oversight-password-1")
TITLES = "Sandbox|Qzpage|Secretqz|Doomedqz|User:Hiddenuserqz|User talk:Hiddenuserqz"
ECHO_KEYS = {"error", "errors", "warnings", "normalized", "docref"}


async def _login(wiki: WikiHarness, client: httpx.AsyncClient, name: str, password: str) -> None:
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        client,
        action="clientlogin",
        username=name,
        password=password,
        logintoken=token,
        loginreturnurl="http://127.0.0.1:8080/",
    )
    assert done["clientlogin"]["status"] == "PASS", done


async def _setup(wiki: WikiHarness) -> dict[str, Any]:
    """The hidden user edits, is named in logs, has an edit on a page deleted later, then gets a
    `hidename` block; a page of Admin's is deleted."""
    wiki.db.write_sync(lambda conn: create_user(conn, HIDDEN, "hidden-password-1"))
    wiki.db.write_sync(
        lambda conn: create_user(conn, OVERSIGHT[0], OVERSIGHT[1], groups=["sysop", "suppress"])
    )
    facts: dict[str, Any] = {}
    await wiki.edit_page("Sandbox", "first [[Qzpage]]", summary="start")
    facts["hidden_rev"] = await wiki.edit_page(
        "Sandbox", "second [[Qzpage]]", user=HIDDEN, summary="hidden edit"
    )
    await wiki.edit_page("Qzpage", "made by the hidden user", user=HIDDEN)
    await wiki.edit_page("Doomedqz", "doomed page", user=HIDDEN)
    await wiki.edit_page("Secretqz", DELETED_TEXT, summary=DELETED_SUMMARY)
    admin = wiki.client()
    await wiki.login(admin, "Admin")
    token = await wiki.csrf(admin)
    rights_token = (await wiki.api(admin, action="query", meta="tokens", type="userrights"))[
        "query"
    ]["tokens"]["userrightstoken"]
    rights = await wiki.post(admin, action="userrights", user=HIDDEN, add="bot", token=rights_token)
    assert "userrights" in rights, rights
    for title in ("Secretqz", "Doomedqz"):
        done = await wiki.post(admin, action="delete", title=title, reason="gone", token=token)
        assert "delete" in done, done
    await admin.aclose()
    oversight = wiki.client()
    await _login(wiki, oversight, *OVERSIGHT)
    token = await wiki.csrf(oversight)
    blocked = await wiki.post(
        oversight,
        action="block",
        user=HIDDEN,
        hidename="1",
        expiry="infinite",
        reason=BLOCK_REASON,
        token=token,
    )
    assert "block" in blocked, blocked
    users = await wiki.api(oversight, action="query", list="users", ususers=HIDDEN)
    facts["hidden_id"] = users["query"]["users"][0]["userid"]
    await oversight.aclose()
    return facts


def _strip_echoes(value: Any) -> Any:
    """The response without the places where MediaWiki repeats what the request named."""
    if isinstance(value, dict):
        if "missing" in value or "invalid" in value:
            return None
        return {k: _strip_echoes(v) for k, v in value.items() if k not in ECHO_KEYS}
    if isinstance(value, list):
        return [_strip_echoes(v) for v in value]
    return value


def _visible_text(response: httpx.Response, request: dict[str, str]) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text
    if any(HIDDEN.lower() in str(v).lower() for v in request.values()):
        body = _strip_echoes(body)
    return json.dumps(body, ensure_ascii=False)


async def _modules(wiki: WikiHarness, client: httpx.AsyncClient) -> list[dict[str, Any]]:
    query = await wiki.api(
        client, action="paraminfo", modules="query", formatversion="2", format="json"
    )
    names: list[str] = []
    for param in query["paraminfo"]["modules"][0]["parameters"]:
        if param["name"] in ("list", "prop", "meta"):
            names += [f"query+{n}" for n in param["type"]]
    specs: list[dict[str, Any]] = []
    for i in range(0, len(names), 50):
        info = await wiki.api(
            client, action="paraminfo", modules="|".join(names[i : i + 50]), formatversion="2"
        )
        specs += info["paraminfo"]["modules"]
    assert len(specs) == len(names) > 40
    return specs


def _all_props(spec: dict[str, Any]) -> dict[str, str]:
    """Every value of the module's `prop`, and the largest limit."""
    out: dict[str, str] = {}
    for p in spec["parameters"]:
        key = spec["prefix"] + p["name"]
        if p["name"] == "prop" and isinstance(p["type"], list):
            out[key] = "|".join(p["type"])
        elif p["type"] == "limit":
            out[key] = "max"
    return out


def _probes(spec: dict[str, Any], facts: dict[str, Any]) -> list[dict[str, str]]:
    """The requests that could show a hidden thing through this module."""
    group, name, prefix = spec["group"], spec["name"], spec["prefix"]
    base = {"action": "query", group: name, **_all_props(spec)}
    if group == "prop":
        base["titles"] = TITLES
    probes = [base]
    if group == "prop":
        probes.append({**base, "titles": "", "revids": str(facts["hidden_rev"])})
    for p in spec["parameters"]:
        key = prefix + p["name"]
        if p["type"] == "user":
            probes.append({**base, key: HIDDEN})
        elif p["name"] in ("userprefix", "prefix") and group == "list":
            probes.append({**base, key: HIDDEN[:6]})
        elif p["name"] in ("title", "page") and group == "list":
            probes.append({**base, key: f"User:{HIDDEN}"})
        elif p["name"] == "userids":
            probes.append({**base, key: str(facts["hidden_id"])})
    if spec.get("generator"):
        generated = {
            k if k in ("action",) or k == group else f"g{k}": v
            for k, v in base.items()
            if k != group
        }
        probes.append(
            {
                **generated,
                "generator": name,
                "prop": "revisions|info|contributors|deletedrevisions",
                "rvprop": "ids|user|userid|comment|content",
                "drvprop": "ids|user|userid|comment|content",
            }
        )
    return probes


@pytest.fixture
async def viewers(wiki: WikiHarness) -> Any:
    anonymous = wiki.client()
    alice = wiki.client()
    admin = wiki.client()
    await wiki.login(alice, "Alice")
    await wiki.login(admin, "Admin")
    yield {"anonymous": anonymous, "user": alice, "admin": admin}
    for c in (anonymous, alice, admin):
        await c.aclose()


async def test_hidden_user_and_deleted_page_stay_hidden(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    facts = await _setup(wiki)
    specs = await _modules(wiki, viewers["anonymous"])
    probes = [p for spec in specs for p in _probes(spec, facts)]
    probes += [
        {"action": "query", "list": "users", "ususerids": str(facts["hidden_id"])},
        {"action": "query", "list": "users", "ususers": HIDDEN, "usprop": "blockinfo|editcount"},
        {"action": "query", "list": "logevents", "letype": "newusers"},
        {"action": "query", "list": "logevents", "letype": "rights"},
        {"action": "query", "export": "1", "titles": TITLES},
    ]
    leaks: list[str] = []
    answered = 0
    seen_hidden = 0
    for who, client in viewers.items():
        secrets = [HIDDEN, BLOCK_REASON]
        if who != "admin":  # administrators may read deleted text
            secrets += [DELETED_TEXT, DELETED_SUMMARY]
        for fv in ("1", "2"):
            for probe in probes:
                request = {"format": "json", "formatversion": fv, **probe}
                response = await client.post("/w/api.php", data=request)
                assert response.status_code == 200, (who, request)
                text = _visible_text(response, request)
                answered += '"error"' not in response.text
                seen_hidden += "userhidden" in response.text
                leaks += [
                    f"{who} fv{fv} {s!r} in {request}" for s in secrets if s.lower() in text.lower()
                ]
        for path in (
            "/wiki/Sandbox",
            "/wiki/Qzpage",
            "/w/index.php?title=Sandbox&action=history",
            "/w/index.php?title=Qzpage&action=history",
            "/w/index.php?title=Secretqz&action=history",
            "/w/index.php?title=Secretqz&action=raw",
            f"/w/index.php?title=Sandbox&oldid={facts['hidden_rev']}",
        ):
            response = await client.get(path)
            assert response.status_code < 500, path
            leaks += [f"{who} {s!r} in {path}" for s in secrets if s in response.text]
    print(f"leak walk: {len(probes)} API requests and 7 pages, x3 viewers (API in fv1 and fv2)")
    assert leaks == [], "\n".join(leaks)
    # The walk reached the rows: most probes answered, and the hidden user's rows were shown
    # as `userhidden` rather than left out by accident.
    assert answered > len(probes) * 3
    assert seen_hidden > 20


async def test_rollback_of_a_hidden_user_keeps_the_name_out(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    await _setup(wiki)
    admin = viewers["admin"]
    token = (await wiki.api(admin, action="query", meta="tokens", type="rollback"))["query"][
        "tokens"
    ]["rollbacktoken"]
    done = await wiki.post(admin, action="rollback", title="Sandbox", user=HIDDEN, token=token)
    assert done["rollback"]["summary"] == (
        "Reverted edits by (username removed) to last revision by [[User:Admin|Admin]]"
    )
    for client in viewers.values():
        changes = await wiki.api(
            client, action="query", list="recentchanges", rcprop="user|comment|title"
        )
        assert HIDDEN not in json.dumps(changes)


async def test_unblock_shows_the_user_again(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    facts = await _setup(wiki)
    anonymous = viewers["anonymous"]
    hidden = await wiki.api(
        anonymous, action="query", prop="revisions", revids=facts["hidden_rev"], rvprop="user"
    )
    [page] = hidden["query"]["pages"].values()
    assert page["revisions"][0] == {"userhidden": "", "suppressed": ""}
    oversight = wiki.client()
    await _login(wiki, oversight, *OVERSIGHT)
    token = await wiki.csrf(oversight)
    done = await wiki.post(oversight, action="unblock", user=HIDDEN, token=token)
    assert "unblock" in done, done
    await oversight.aclose()
    shown = await wiki.api(
        anonymous, action="query", prop="revisions", revids=facts["hidden_rev"], rvprop="user"
    )
    [page] = shown["query"]["pages"].values()
    assert page["revisions"][0] == {"user": HIDDEN}
    users = await wiki.api(anonymous, action="query", list="users", ususers=HIDDEN)
    assert users["query"]["users"][0]["userid"] == facts["hidden_id"]


async def test_hidename_blocks_are_permanent_and_sitewide(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    wiki.db.write_sync(
        lambda conn: create_user(conn, OVERSIGHT[0], OVERSIGHT[1], groups=["sysop", "suppress"])
    )
    oversight = wiki.client()
    await _login(wiki, oversight, *OVERSIGHT)
    token = await wiki.csrf(oversight)
    common = {"action": "block", "user": "Alice", "hidename": "1", "token": token}
    temporary = await wiki.post(oversight, **common, expiry="1 day")
    assert temporary["error"]["code"] == "ipb_expiry_temp"
    partial = await wiki.post(oversight, **common, expiry="infinite", partial="1", namespaces="0")
    assert partial["error"]["code"] == "ipb_hide_partial"
    await oversight.aclose()


async def test_userrights_does_not_find_a_hidden_user(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    """UserrightsPage::fetchUser: without `hideuser` a hidden user is nobody, by name or id."""
    facts = await _setup(wiki)
    admin = viewers["admin"]
    token = (await wiki.api(admin, action="query", meta="tokens", type="userrights"))["query"][
        "tokens"
    ]["userrightstoken"]
    by_name = await wiki.post(admin, action="userrights", user=HIDDEN, add="bot", token=token)
    assert by_name["error"]["code"] == "nosuchuser"
    by_id = await wiki.post(
        admin, action="userrights", userid=str(facts["hidden_id"]), add="bot", token=token
    )
    assert by_id["error"]["code"] == "nosuchuser"
    assert HIDDEN not in json.dumps(by_id)
