"""Archive and file lists: alldeletedrevisions (rights per field, the two modes),
allimages (by name and by time, filters) and filearchive (files of deleted file pages), on the
journal wiki plus uploads through the API; MediaWiki 1.39's error codes and texts."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.journal_seed import journal
from tests.wiki.snapshots import snapshot_wiki
from tests.wiki.test_list_journal import walk
from tests.wiki.test_write_actions import GIF
from tests.wiki.uploads import PNG, upload

pytestmark = pytest.mark.anyio


async def _archive(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """The journal wiki, three uploads, and a page and a file deleted."""
    await journal(wiki, client)
    await upload(wiki, client, "Pixel.gif", GIF)
    await upload(wiki, client, "Dot.png", PNG)
    await upload(wiki, client, "Gone.gif", GIF + b"\x00")
    token = await wiki.csrf(client)
    for title, text in (("Second doomed", "one"), ("Second doomed", "two")):
        await wiki.post(client, action="edit", title=title, text=text, token=token, summary=text)
    for title in ("Second doomed", "File:Gone.gif"):
        done = await wiki.post(client, action="delete", title=title, token=token, reason="bye")
        assert "error" not in done, done


wiki = snapshot_wiki("archives", _archive, "archived")


@pytest.fixture
async def archived(wiki: WikiHarness, client: httpx.AsyncClient) -> WikiHarness:
    await wiki.login(client, "Admin")  # as `_archive` leaves its client
    return wiki


async def _q(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    return await wiki.api(client, action="query", formatversion="2", **params)


async def test_alldeletedrevisions(archived: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await _q(archived, client, list="alldeletedrevisions", adrprop="ids|user|comment|size")
    groups = data["query"]["alldeletedrevisions"]
    # dir=older (the default) walks namespace, title and time all descending
    assert [g["title"] for g in groups] == ["File:Gone.gif", "Second doomed", "Doomed"]
    assert list(groups[0]) == ["pageid", "revisions", "ns", "title"]
    assert groups[0]["pageid"] == 0
    assert [r["comment"] for r in groups[1]["revisions"]] == ["two", "one"]
    newer = await _q(archived, client, list="alldeletedrevisions", adrdir="newer", adrprop="ids")
    assert [g["title"] for g in newer["query"]["alldeletedrevisions"]] == [
        "Doomed", "Second doomed", "File:Gone.gif",
    ]  # fmt: skip
    content = await _q(
        archived, client, list="alldeletedrevisions", adrprop="content", adrslots="main",
        adrprefix="Second",
    )  # fmt: skip
    revs = content["query"]["alldeletedrevisions"][0]["revisions"]
    assert revs[0]["slots"]["main"]["content"] == "two"
    by_user = await _q(archived, client, list="alldeletedrevisions", adruser="Admin", adrlimit="2")
    assert by_user["continue"]["adrcontinue"].count("|") == 1
    mixed = await _q(archived, client, list="alldeletedrevisions", adruser="Admin", adrfrom="A")
    assert mixed["error"] == {
        "code": "invalidparammix",
        "info": 'The "adrfrom" parameter cannot be used with "adruser".',
        "docref": mixed["error"]["docref"],
    }
    needs_user = await _q(
        archived, client, list="alldeletedrevisions", adrstart="2020-01-01T00:00:00Z"
    )
    assert (
        needs_user["error"]["info"] == 'The "adrstart" parameter may only be used with "adruser".'
    )
    async with archived.client() as anon:
        ids = await _q(archived, anon, list="alldeletedrevisions", adrprop="ids")
        assert len(ids["query"]["alldeletedrevisions"]) == 3
        comments = await _q(archived, anon, list="alldeletedrevisions")
        assert comments["error"]["code"] == "permissiondenied"
        assert comments["error"]["info"] == "You don't have permission to view deleted comments."
        text = await _q(archived, anon, list="alldeletedrevisions", adrprop="ids|content")
        assert text["error"]["info"] == (
            "You don't have permission to view content of deleted revisions."
        )
    walked = await walk(archived, client, "alldeletedrevisions", list="alldeletedrevisions",
                        adrprop="ids", adrlimit="1")  # fmt: skip
    assert sorted(r["revid"] for g in walked for r in g["revisions"]) == sorted(
        r["revid"] for g in groups for r in g["revisions"]
    )
    gen = await _q(archived, client, generator="alldeletedrevisions")
    assert sorted(p["title"] for p in gen["query"]["pages"]) == [
        "Doomed", "File:Gone.gif", "Second doomed",
    ]  # fmt: skip


async def test_allimages(archived: WikiHarness, client: httpx.AsyncClient) -> None:
    props = "badfile|bitdepth|canonicaltitle|comment|dimensions|mediatype|mime|sha1|size|timestamp|url|user|userid"
    data = await _q(archived, client, list="allimages", aiprop=props)
    dot, pixel = data["query"]["allimages"]
    assert list(dot)[:2] == ["name", "timestamp"] and list(dot)[-2:] == ["ns", "title"]
    assert (dot["name"], dot["width"], dot["height"], dot["mime"]) == ("Dot.png", 2, 3, "image/png")
    assert dot["badfile"] is False and dot["url"].endswith("/Dot.png")
    assert pixel["title"] == "File:Pixel.gif" and pixel["comment"] == "upload Pixel.gif"
    by_time = await _q(archived, client, list="allimages", aisort="timestamp", aidir="older",
                       aiprop="timestamp")  # fmt: skip
    stamps = [(i["timestamp"], i["name"]) for i in by_time["query"]["allimages"]]
    assert stamps == sorted(stamps, reverse=True) and len(stamps) == 2
    walked = await walk(archived, client, "allimages", list="allimages", aisort="timestamp",
                        aidir="older", aiprop="timestamp", ailimit="1")  # fmt: skip
    assert [(i["timestamp"], i["name"]) for i in walked] == stamps
    small = await _q(archived, client, list="allimages", aimaxsize=str(len(GIF)), aiprop="size")
    assert [i["name"] for i in small["query"]["allimages"]] == ["Pixel.gif"]
    pngs = await _q(archived, client, list="allimages", aimime="image/png")
    assert [i["name"] for i in pngs["query"]["allimages"]] == ["Dot.png"]
    by_sha = await _q(archived, client, list="allimages", aisha1=pixel["sha1"])
    assert [i["name"] for i in by_sha["query"]["allimages"]] == ["Pixel.gif"]
    bad_sha = await _q(archived, client, list="allimages", aisha1="abc")
    assert bad_sha["error"] == {
        "code": "invalidsha1hash", "info": "The SHA1 hash provided is not valid.",
        "docref": bad_sha["error"]["docref"],
    }  # fmt: skip
    by_user = await _q(archived, client, list="allimages", aiuser="Admin")
    assert (
        by_user["error"]["info"]
        == 'The "aiuser" parameter may only be used with "aisort=timestamp".'
    )
    from_time = await _q(archived, client, list="allimages", aisort="timestamp", aifrom="A")
    assert (
        from_time["error"]["info"] == 'The "aifrom" parameter may only be used with "aisort=name".'
    )
    bots = await _q(archived, client, list="allimages", aisort="timestamp", aifilterbots="bots")
    assert bots["query"]["allimages"] == []
    gen = await _q(archived, client, generator="allimages", prop="info")
    assert sorted(p["title"] for p in gen["query"]["pages"]) == ["File:Dot.png", "File:Pixel.gif"]


async def test_filearchive(archived: WikiHarness, client: httpx.AsyncClient) -> None:
    props = (
        "sha1|timestamp|user|size|dimensions|description|parseddescription|mime|mediatype|bitdepth"
    )
    data = await _q(archived, client, list="filearchive", faprop=props)
    (gone,) = data["query"]["filearchive"]
    assert list(gone) == [
        "id", "name", "ns", "title", "description", "parseddescription", "userid", "user", "sha1",
        "timestamp", "size", "height", "width", "mediatype", "bitdepth", "mime",
    ]  # fmt: skip
    assert (gone["name"], gone["description"], gone["mime"]) == (
        "Gone.gif", "upload Gone.gif", "image/gif",
    )  # fmt: skip
    plain = await _q(archived, client, list="filearchive", faprefix="Go")
    assert [f["title"] for f in plain["query"]["filearchive"]] == ["File:Gone.gif"]
    none = await _q(archived, client, list="filearchive", fafrom="H")
    assert none["query"]["filearchive"] == []
    current = await _q(archived, client, list="allimages")
    assert "Gone.gif" not in [i["name"] for i in current["query"]["allimages"]]


async def test_alldeletedrevisions_generator(
    archived: WikiHarness, client: httpx.AsyncClient
) -> None:
    """As MediaWiki 1.39: revision ids by default (their titles join the set as missing pages and
    prop=deletedrevisions shows exactly those revisions), titles with `generatetitles`."""
    listed = await _q(archived, client, list="alldeletedrevisions", adrprop="ids")
    by_title = {
        g["title"]: [r["revid"] for r in g["revisions"]]
        for g in listed["query"]["alldeletedrevisions"]
    }
    gen = await _q(archived, client, generator="alldeletedrevisions", gadrlimit="2",
                   prop="deletedrevisions", drvprop="ids")  # fmt: skip
    assert "warnings" not in gen
    assert gen["continue"]["gadrcontinue"].count("|") == 3
    pages = gen["query"]["pages"]
    assert [p["title"] for p in pages] == ["Second doomed", "File:Gone.gif"]
    assert all(p["missing"] is True and "pageid" not in p for p in pages)
    shown = {p["title"]: [r["revid"] for r in p["deletedrevisions"]] for p in pages}
    assert shown == {
        "File:Gone.gif": by_title["File:Gone.gif"],
        "Second doomed": by_title["Second doomed"][:1],
    }
    rest = await _q(archived, client, generator="alldeletedrevisions", gadrlimit="2",
                    **gen["continue"], prop="deletedrevisions", drvprop="ids")  # fmt: skip
    assert {p["title"]: [r["revid"] for r in p["deletedrevisions"]] for p in rest["query"]["pages"]} == {
        "Second doomed": by_title["Second doomed"][1:], "Doomed": by_title["Doomed"],
    }  # fmt: skip
    # generatetitles: distinct titles walking newer (continue ns|title), a warning walking older
    titles = await _q(archived, client, generator="alldeletedrevisions", gadrgeneratetitles="1",
                      gadrdir="newer", gadrlimit="1")  # fmt: skip
    assert titles["continue"]["gadrcontinue"] == "0|Second_doomed"
    assert [p["title"] for p in titles["query"]["pages"]] == ["Doomed"]
    second = await _q(archived, client, generator="alldeletedrevisions", gadrgeneratetitles="1",
                      gadrdir="newer", gadrlimit="1", gadrcontinue="0|Second_doomed")  # fmt: skip
    assert [p["title"] for p in second["query"]["pages"]] == ["Second doomed"]
    assert second["continue"]["gadrcontinue"] == "6|Gone.gif"
    older = await archived.api(client, action="query", generator="alldeletedrevisions",
                               gadrgeneratetitles="1")  # fmt: skip
    assert older["warnings"] == {"alldeletedrevisions": {
        "*": 'For better performance when generating titles, set "adrdir=newer".'
    }}  # fmt: skip
    assert [p["title"] for p in older["query"]["pages"].values()] == [
        "File:Gone.gif", "Second doomed", "Doomed",
    ]  # fmt: skip


async def test_deleted_revids_in_the_page_set(
    archived: WikiHarness, client: httpx.AsyncClient
) -> None:
    """revids= finds deleted revisions for a caller with deletedhistory (their title, missing);
    for others they are badrevids, an object keyed by id in both formatversions."""
    listed = await _q(
        archived, client, list="alldeletedrevisions", adrprop="ids", adrprefix="Second"
    )
    deleted = listed["query"]["alldeletedrevisions"][0]["revisions"][0]["revid"]
    data = await _q(archived, client, revids=f"{deleted}|999999", prop="revisions|deletedrevisions",
                    drvprop="ids")  # fmt: skip
    assert data["query"]["badrevids"] == {"999999": {"revid": 999999, "missing": True}}
    assert data["query"]["pages"] == [{
        "ns": 0, "title": "Second doomed", "missing": True,
        "deletedrevisions": [{"revid": deleted, "parentid": deleted - 1}],
    }]  # fmt: skip
    async with archived.client() as anon:
        hidden = await anon.get("/w/api.php", params={"action": "query", "revids": str(deleted),
                                                      "format": "json"})  # fmt: skip
        assert hidden.json()["query"] == {
            "badrevids": {str(deleted): {"revid": deleted, "missing": ""}}
        }
