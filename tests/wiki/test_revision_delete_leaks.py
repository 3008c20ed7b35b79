"""A revision whose text, summary and author are hidden with `action=revisiondelete` stays hidden
on every read path: the query modules that show revisions, changes, contributions and log
entries (with every property), the diffs of `action=compare` and `prop=revisions`,
`action=parse&oldid=`, the export, and the browser pages (history, raw, view).

Viewers: anonymous, a plain user, an administrator (`deletedhistory` and `deletedtext`: they see
what is deleted but not what is suppressed) and, once the revision is suppressed, an oversighter
(`viewsuppressed`), who sees it again. The author is an IP address that made no other edit, so
its name appears nowhere else.
"""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes.accounts import create_user
from atrium.wiki.dump import export_dump

pytestmark = pytest.mark.anyio

AUTHOR = "192.0.2.77"
TEXT = "hiddenbodyqz"
HIDDEN_TEXT = f"opening line\n{TEXT}"
SUMMARY = "hiddensummaryqz"
# The text's SHA-1 is hidden with it (`sha1hidden`).
SECRETS = (TEXT, SUMMARY, AUTHOR, hashlib.sha1(HIDDEN_TEXT.encode()).hexdigest())
OVERSIGHT = ("Oversightlk", "oversight-password-1")


async def _login(wiki: WikiHarness, client: httpx.AsyncClient, name: str, password: str) -> None:
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(client, action="login", lgname=name, lgpassword=password, lgtoken=token)
    assert done["login"]["result"] == "Success", done


async def _setup(wiki: WikiHarness) -> dict[str, int]:
    """Three revisions of one page; the middle one, by an IP, carries the secrets and gets its
    text, summary and author hidden (not suppressed)."""
    first = await wiki.edit_page("Leakqz", "opening line", summary="start")
    hidden = await wiki.edit_page("Leakqz", HIDDEN_TEXT, user=AUTHOR, summary=SUMMARY)
    last = await wiki.edit_page("Leakqz", "closing line", summary="rewrite")
    return {"first": first, "hidden": hidden, "last": last}


async def _revdel(wiki: WikiHarness, client: httpx.AsyncClient, **params: str) -> None:
    token = await wiki.csrf(client)
    done = await wiki.post(client, action="revisiondelete", type="revision", token=token, **params)
    assert [i["status"] for i in done["revisiondelete"]["items"]] == ["Success"], done
    assert "errors" not in done["revisiondelete"]["items"][0], done


def _probes(revs: dict[str, int]) -> list[dict[str, str]]:
    hidden, first, last = str(revs["hidden"]), str(revs["first"]), str(revs["last"])
    rv = "ids|flags|timestamp|user|userid|size|slotsize|sha1|slotsha1|contentmodel|comment"
    rv += "|parsedcomment|content|tags|roles"
    compare = "diff|diffsize|rel|ids|title|user|comment|parsedcomment|size"
    query = {"action": "query"}
    return [
        {**query, "prop": "revisions", "titles": "Leakqz", "rvprop": rv, "rvslots": "*",
         "rvlimit": "max"},
        {**query, "prop": "revisions", "revids": hidden, "rvprop": rv, "rvslots": "main"},
        {**query, "prop": "revisions", "revids": hidden, "rvprop": rv, "rvparse": "1"},
        {**query, "prop": "revisions", "revids": last, "rvdiffto": "prev"},
        {**query, "prop": "revisions", "revids": first, "rvdiffto": "next"},
        {**query, "prop": "revisions", "revids": first, "rvdiffto": hidden},
        {**query, "prop": "revisions", "titles": "Leakqz", "rvuser": AUTHOR, "rvprop": rv},
        {**query, "prop": "contributors", "titles": "Leakqz"},
        {**query, "prop": "info", "titles": "Leakqz", "inprop": "url|displaytitle"},
        {**query, "list": "allrevisions", "arvprop": rv, "arvslots": "*", "arvlimit": "max"},
        {**query, "list": "allrevisions", "arvuser": AUTHOR, "arvprop": rv},
        {**query, "generator": "allrevisions", "prop": "revisions", "rvprop": rv},
        {**query, "list": "usercontribs", "ucuser": AUTHOR,
         "ucprop": "ids|title|timestamp|comment|parsedcomment|size|sizediff|flags|tags"},
        {**query, "list": "usercontribs", "ucuserprefix": "192.0.2",
         "ucprop": "ids|title|comment|size"},
        {**query, "list": "recentchanges",
         "rcprop": "user|userid|comment|parsedcomment|flags|timestamp|title|ids|sizes|sha1"
                   "|tags|loginfo|redirect|patrolled", "rclimit": "max"},
        {**query, "list": "recentchanges", "rcuser": AUTHOR, "rcprop": "user|comment|ids"},
        {**query, "list": "recentchanges", "rcshow": "anon", "rcprop": "user|comment|ids"},
        {**query, "list": "logevents",
         "leprop": "ids|title|type|user|userid|timestamp|comment|parsedcomment|details|tags"},
        {**query, "list": "alldeletedrevisions", "adrprop": rv},
        {**query, "prop": "deletedrevisions", "titles": "Leakqz", "drvprop": rv},
        {**query, "export": "1", "titles": "Leakqz"},
        {**query, "export": "1", "revids": hidden},
        {**query, "list": "search", "srsearch": TEXT, "srwhat": "text"},
        {"action": "compare", "fromrev": first, "torev": hidden, "prop": compare},
        {"action": "compare", "fromrev": hidden, "torev": last, "prop": compare},
        {"action": "compare", "fromrev": hidden, "torelative": "next", "prop": compare},
        {"action": "compare", "fromrev": last, "torelative": "prev", "prop": compare},
        {"action": "compare", "fromrev": first, "torelative": "next", "prop": compare},
        {"action": "compare", "fromtitle": "Leakqz", "torev": hidden, "prop": compare},
        {"action": "parse", "oldid": hidden},
        {"action": "parse", "oldid": hidden, "prop": "wikitext|text|revid"},
        {"action": "expandtemplates", "revid": hidden, "text": "{{REVISIONUSER}}",
         "prop": "wikitext"},
    ]  # fmt: skip


def _pages(revs: dict[str, int]) -> list[str]:
    hidden = revs["hidden"]
    return [
        "/wiki/Leakqz",
        "/w/index.php?title=Leakqz&action=history",
        f"/w/index.php?title=Leakqz&oldid={hidden}",
        f"/w/index.php?title=Leakqz&action=raw&oldid={hidden}",
        f"/w/index.php?title=Leakqz&diff={hidden}&oldid={revs['first']}",
        f"/w/index.php?title=Leakqz&diff=prev&oldid={hidden}",
    ]


async def _walk(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient], revs: dict[str, int]
) -> tuple[list[str], dict[str, str]]:
    """Every probe and page as each viewer; the leaks, and each viewer's answers joined."""
    leaks: list[str] = []
    seen: dict[str, str] = {}
    for who, client in viewers.items():
        texts = []
        for fv in ("1", "2"):
            for probe in _probes(revs):
                request = {"format": "json", "formatversion": fv, **probe}
                response = await client.post("/w/api.php", data=request)
                assert response.status_code == 200, (who, request, response.text[:300])
                text = json.dumps(response.json(), ensure_ascii=False)
                texts.append(text)
                leaks += [f"{who} fv{fv} {s!r} in {probe}" for s in SECRETS if s in text]
        for path in _pages(revs):
            response = await client.get(path)
            assert response.status_code < 500, path
            texts.append(response.text)
            leaks += [f"{who} {s!r} in {path}" for s in SECRETS if s in response.text]
        seen[who] = "\n".join(texts)
    return leaks, seen


@pytest.fixture
async def viewers(wiki: WikiHarness) -> Any:
    wiki.db.write_sync(
        lambda conn: create_user(conn, OVERSIGHT[0], OVERSIGHT[1], groups=["suppress"])
    )
    anonymous, alice, admin, oversight = (wiki.client() for _ in range(4))
    await wiki.login(alice, "Alice")
    await wiki.login(admin, "Admin")
    await _login(wiki, oversight, *OVERSIGHT)
    yield {"anonymous": anonymous, "user": alice, "admin": admin, "oversight": oversight}
    for c in (anonymous, alice, admin, oversight):
        await c.aclose()


async def test_hidden_fields_stay_hidden_on_every_read_path(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    revs = await _setup(wiki)
    oversight = viewers.pop("oversight")
    # Before hiding, the walk does show each secret (the probes reach the revision).
    _, before = await _walk(wiki, {"anonymous": viewers["anonymous"]}, revs)
    assert all(s in before["anonymous"] for s in SECRETS)
    await _revdel(
        wiki, oversight, ids=str(revs["hidden"]), hide="content|comment|user", reason="leak"
    )
    leaks, seen = await _walk(wiki, {k: viewers[k] for k in ("anonymous", "user")}, revs)
    assert leaks == [], "\n".join(leaks)
    assert "texthidden" in seen["anonymous"] and "userhidden" in seen["anonymous"]
    # Administrators read deleted (not suppressed) revisions.
    revisions = await wiki.api(
        viewers["admin"],
        action="query",
        revids=str(revs["hidden"]),
        prop="revisions",
        rvprop="user|comment|content",
    )
    [page] = revisions["query"]["pages"].values()
    shown = page["revisions"][0]
    assert (shown["user"], shown["comment"], TEXT in shown["*"]) == (AUTHOR, SUMMARY, True)
    # Suppressed: administrators lose them too; the oversighter still reads them.
    await _revdel(wiki, oversight, ids=str(revs["hidden"]), hide="content", suppress="yes")
    leaks, _ = await _walk(wiki, viewers, revs)
    assert leaks == [], "\n".join(leaks)
    revisions = await wiki.api(
        oversight, action="query", revids=str(revs["hidden"]), prop="revisions",
        rvprop="user|comment|content",
    )  # fmt: skip
    [page] = revisions["query"]["pages"].values()
    shown = page["revisions"][0]
    assert (shown["user"], shown["comment"], TEXT in shown["*"]) == (AUTHOR, SUMMARY, True)
    assert shown["suppressed"] == ""
    # The full-history dump writes the public view.
    dumped = io.StringIO()
    export_dump(wiki.db, wiki.site, dumped)
    assert "<text" in dumped.getvalue() and 'deleted="deleted"' in dumped.getvalue()
    assert [s for s in SECRETS[:3] if s in dumped.getvalue()] == []
    # Once the page is deleted, the archive keeps the bits: the deleted-revision modules and
    # `action=revisiondelete`'s archive lookup see the same hidden revision.
    token = await wiki.csrf(viewers["admin"])
    deleted = await wiki.post(viewers["admin"], action="delete", title="Leakqz", token=token)
    assert "delete" in deleted, deleted
    leaks, seen = await _walk(wiki, viewers, revs)
    assert leaks == [], "\n".join(leaks)
    assert "suppressed" in seen["admin"]


async def test_hidden_text_refuses_compare_and_parse(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    revs = await _setup(wiki)
    await _revdel(wiki, viewers["oversight"], ids=str(revs["hidden"]), hide="content")
    hidden = str(revs["hidden"])
    for who in ("anonymous", "user"):
        client = viewers[who]
        compared = await wiki.api(client, action="compare", fromrev=hidden, torev=revs["last"])
        assert compared["error"]["code"] == "missingcontent", compared
        parsed = await wiki.api(client, action="parse", oldid=hidden)
        assert parsed["error"]["code"] == "permissiondenied", parsed
    compared = await wiki.api(
        viewers["admin"], action="compare", fromrev=hidden, torev=revs["last"]
    )
    assert "compare" in compared, compared


def _revids(value: Any) -> set[int]:
    """Every `revid` in a response."""
    if isinstance(value, dict):
        found = {int(value["revid"])} if "revid" in value else set()
        return found.union(*(_revids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_revids(v) for v in value))
    return set()


async def test_a_hidden_author_cannot_be_searched_for(
    wiki: WikiHarness, viewers: dict[str, httpx.AsyncClient]
) -> None:
    """A search by author (or by excluding another) leaves out the revisions whose author the
    caller may not see, so the list itself does not tell who wrote them (T19342)."""
    revs = await _setup(wiki)
    await _revdel(wiki, viewers["oversight"], ids=str(revs["hidden"]), hide="user")
    searches = [
        {"list": "usercontribs", "ucuser": AUTHOR},
        {"list": "usercontribs", "ucuserprefix": "192.0.2."},
        {"list": "allrevisions", "arvuser": AUTHOR},
        {"list": "allrevisions", "arvexcludeuser": "Admin"},
        {"prop": "revisions", "titles": "Leakqz", "rvuser": AUTHOR, "rvlimit": "max"},
        {"prop": "revisions", "titles": "Leakqz", "rvexcludeuser": "Admin", "rvlimit": "max"},
        {"list": "recentchanges", "rcuser": AUTHOR, "rcprop": "ids"},
        {"list": "recentchanges", "rcexcludeuser": "Admin", "rcprop": "ids"},
    ]
    for who in ("anonymous", "user"):
        for search in searches:
            found = await wiki.api(viewers[who], action="query", **search)
            assert "error" not in found, (search, found)
            assert revs["hidden"] not in _revids(found), (who, search, found)
    # With `deletedhistory` the search finds it, marked as hidden.
    found = await wiki.api(viewers["admin"], action="query", list="usercontribs", ucuser=AUTHOR)
    assert revs["hidden"] in _revids(found)
