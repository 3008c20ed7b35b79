"""The file prop modules (imageinfo with URLs and thumbnails served by the wiki, stashimageinfo,
duplicatefiles), deletedrevisions, info's protection/watch properties, and prop=revisions'
multi-page continuation, `rvparse` and `rvtag`."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema
from atrium.wiki.changes.pages import software_tag_id

pytestmark = pytest.mark.anyio


def png(width: int, height: int) -> bytes:
    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 40 % 256, y * 60 % 256, 200)) for x in range(width))
        for y in range(height)
    )

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )  # fmt: skip

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )  # fmt: skip


async def _admin_token(wiki: WikiHarness, client: httpx.AsyncClient) -> str:
    await wiki.login(client, "Admin")
    return await wiki.csrf(client)


async def _upload(
    client: httpx.AsyncClient, token: str, name: str, data: bytes, **extra: str
) -> dict[str, Any]:
    response = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": name, "token": token, "format": "json", **extra},
        files={"file": (name, data, "image/png")},
    )
    result: dict[str, Any] = response.json()
    return result


async def test_imageinfo_urls_and_thumbnails(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _admin_token(wiki, client)
    image = png(8, 4)
    done = await _upload(client, token, "Tiles.png", image, comment="four tiles")
    assert done["upload"]["result"] == "Success", done
    data = await wiki.api(
        client, action="query", titles="File:Tiles.png|File:Nothing here.png|Main Page",
        prop="imageinfo", iiprop="timestamp|user|userid|size|sha1|mime|mediatype|url|"
        "canonicaltitle|bitdepth|comment|thumbmime|badfile", iiurlwidth="4", formatversion="2",
    )  # fmt: skip
    pages = {p["title"]: p for p in data["query"]["pages"]}
    assert pages["File:Nothing here.png"]["imagerepository"] == ""
    assert "imagerepository" not in pages["Main Page"]
    tiles = pages["File:Tiles.png"]
    assert tiles["imagerepository"] == "local"
    [info] = tiles["imageinfo"]
    import hashlib

    assert info["sha1"] == hashlib.sha1(image).hexdigest()
    assert (info["size"], info["width"], info["height"]) == (len(image), 8, 4)
    assert (info["mime"], info["mediatype"], info["bitdepth"]) == ("image/png", "BITMAP", 8)
    assert (info["user"], info["comment"], info["canonicaltitle"]) == (
        "Admin", "four tiles", "File:Tiles.png",
    )  # fmt: skip
    # MediaWiki puts badfile on the page, beside imagerepository.
    assert tiles["badfile"] is False and info["thumbmime"] == "image/png"
    assert info["url"].endswith("/Tiles.png") and "/images/" in info["url"]
    assert info["descriptionurl"].endswith("/wiki/File:Tiles.png")
    assert (info["thumbwidth"], info["thumbheight"]) == (4, 2)
    assert info["thumburl"].endswith("/4px-Tiles.png")
    original = await client.get(info["url"].split("8080", 1)[1])
    assert original.status_code == 200 and original.content == image
    assert original.headers["content-type"] == "image/png"
    thumb = await client.get(info["thumburl"].split("8080", 1)[1])
    assert thumb.status_code == 200
    assert struct.unpack(">II", thumb.content[16:24]) == (4, 2)
    assert (await client.get("/images/0/00/../../secret")).status_code == 404
    # No upscaling: a width over the original gives the original.
    wide = await wiki.api(
        client, action="query", titles="File:Tiles.png", prop="imageinfo", iiprop="url",
        iiurlwidth="50", formatversion="2",
    )  # fmt: skip
    info = wide["query"]["pages"][0]["imageinfo"][0]
    assert info["thumburl"] == info["url"] and (info["thumbwidth"], info["thumbheight"]) == (8, 4)


async def test_duplicatefiles_and_stash(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _admin_token(wiki, client)
    image = png(2, 2)
    for name in ("Same A.png", "Same B.png", "Same C.png"):
        done = await _upload(client, token, name, image, ignorewarnings="1")
        assert done["upload"]["result"] == "Success", done
    data = await wiki.api(
        client, action="query", titles="File:Same B.png", prop="duplicatefiles", formatversion="2"
    )
    dups = data["query"]["pages"][0]["duplicatefiles"]
    assert [d["name"] for d in dups] == ["Same_A.png", "Same_C.png"]
    assert dups[0]["user"] == "Admin"
    first = await wiki.api(
        client, action="query", titles="File:Same B.png", prop="duplicatefiles", dflimit="1",
        formatversion="2",
    )  # fmt: skip
    assert first["continue"]["dfcontinue"] == "Same_B.png|Same_C.png"
    rest = await wiki.api(
        client, action="query", titles="File:Same B.png", prop="duplicatefiles", dflimit="1",
        dfcontinue=first["continue"]["dfcontinue"], formatversion="2",
    )  # fmt: skip
    assert [d["name"] for d in rest["query"]["pages"][0]["duplicatefiles"]] == ["Same_C.png"]
    generated = await wiki.api(
        client, action="query", titles="File:Same A.png", generator="duplicatefiles",
        formatversion="2",
    )  # fmt: skip
    assert sorted(p["title"] for p in generated["query"]["pages"]) == [
        "File:Same B.png", "File:Same C.png",
    ]  # fmt: skip
    stashed = await _upload(client, token, "Later.png", png(6, 3), stash="1")
    key = stashed["upload"]["filekey"]
    info = await wiki.api(
        client, action="query", prop="stashimageinfo", siifilekey=key,
        siiprop="size|mime|sha1|url", siiurlwidth="3", formatversion="2",
    )  # fmt: skip
    [item] = info["query"]["stashimageinfo"]
    assert (item["width"], item["height"], item["mime"]) == (6, 3, "image/png")
    assert (item["thumbwidth"], item["thumbheight"]) == (3, 2)
    assert key in item["url"]
    missing = await wiki.api(client, action="query", prop="stashimageinfo", siifilekey="nope.png")
    assert missing["error"]["code"] == "uploadstash-file-not-found"
    malformed = await wiki.api(client, action="query", prop="stashimageinfo", siifilekey="nope")
    assert malformed["error"]["code"] == "uploadstash-bad-path-bad-format"
    async with wiki.client() as anon:
        refused = await wiki.api(anon, action="query", prop="stashimageinfo", siifilekey=key)
    assert refused["error"]["code"] == "notloggedin"


async def test_deletedrevisions(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Doomed", "first text", summary="one")
    await wiki.edit_page("Doomed", "second text", summary="two")
    token = await _admin_token(wiki, client)
    deleted = await wiki.post(client, action="delete", title="Doomed", token=token)
    assert "delete" in deleted, deleted
    data = await wiki.api(
        client, action="query", titles="Doomed", prop="deletedrevisions",
        drvprop="ids|user|comment|content|size", drvslots="main", formatversion="2",
    )  # fmt: skip
    page = data["query"]["pages"][0]
    assert page["missing"] is True
    revs = page["deletedrevisions"]
    assert [r["comment"] for r in revs] == ["two", "one"]
    assert revs[0]["slots"]["main"]["content"] == "second text"
    assert revs[0]["parentid"] == revs[1]["revid"] and revs[0]["user"] == "Admin"
    limited = await wiki.api(
        client, action="query", titles="Doomed", prop="deletedrevisions", drvlimit="1",
        drvprop="ids", formatversion="2",
    )  # fmt: skip
    cont = limited["continue"]["drvcontinue"]
    assert (
        cont.startswith("0|Doomed|") and len(limited["query"]["pages"][0]["deletedrevisions"]) == 1
    )
    rest = await wiki.api(
        client, action="query", titles="Doomed", prop="deletedrevisions", drvlimit="1",
        drvprop="ids", drvcontinue=cont, formatversion="2",
    )  # fmt: skip
    assert [r["revid"] for r in rest["query"]["pages"][0]["deletedrevisions"]] == [revs[1]["revid"]]
    async with wiki.client() as anon:
        refused = await wiki.api(anon, action="query", titles="Doomed", prop="deletedrevisions")
        assert refused["error"]["code"] == "permissiondenied"
        ids_only = await wiki.api(
            anon, action="query", titles="Doomed", prop="deletedrevisions", drvprop="ids",
            formatversion="2",
        )  # fmt: skip
        assert len(ids_only["query"]["pages"][0]["deletedrevisions"]) == 2
        content = await wiki.api(
            anon, action="query", titles="Doomed", prop="deletedrevisions", drvprop="content",
        )  # fmt: skip
        assert content["error"]["code"] == "permissiondenied"


async def test_info_protection_and_watch(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Guarded", "text")
    token = await _admin_token(wiki, client)
    await wiki.post(
        client, action="protect", title="Guarded", protections="edit=sysop|move=autoconfirmed",
        expiry="infinite|infinite", cascade="1", token=token,
    )  # fmt: skip
    await wiki.post(
        client, action="protect", title="Unborn", protections="create=sysop", token=token
    )
    watch = (await wiki.api(client, action="query", meta="tokens", type="watch"))["query"]
    await wiki.post(client, action="watch", titles="Guarded", token=watch["tokens"]["watchtoken"])
    data = await wiki.api(
        client, action="query", titles="Guarded|Unborn|Elsewhere", prop="info",
        inprop="protection|watched|watchers|notificationtimestamp", formatversion="2",
    )  # fmt: skip
    pages = {p["title"]: p for p in data["query"]["pages"]}
    guarded = pages["Guarded"]
    assert guarded["protection"] == [
        {"type": "edit", "level": "sysop", "expiry": "infinity", "cascade": True},
        {"type": "move", "level": "autoconfirmed", "expiry": "infinity"},
    ]
    assert guarded["watched"] is True and guarded["watchers"] == 1
    assert guarded["notificationtimestamp"] == ""
    unborn = pages["Unborn"]
    assert unborn["protection"] == [{"type": "create", "level": "sysop", "expiry": "infinity"}]
    # Protecting watches the page (the `watchdefault` preference).
    assert unborn["watched"] is True and unborn["watchers"] == 1
    elsewhere = pages["Elsewhere"]
    assert elsewhere["watched"] is False and elsewhere["watchers"] == 0
    assert elsewhere["protection"] == [] and "notificationtimestamp" not in elsewhere
    async with wiki.client() as anon:
        plain = await wiki.api(
            anon, action="query", titles="Guarded", prop="info",
            inprop="watched|watchers", formatversion="2",
        )  # fmt: skip
    assert "watched" not in plain["query"]["pages"][0]
    assert "watchers" not in plain["query"]["pages"][0]


async def test_revisions_multipage_continuation(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """Content of 55 pages: 50 per request for a user (MediaWiki's small limit), continued by
    `page|revision`; each page's latest revision comes exactly once."""
    expected = {}
    for index in range(55):
        await wiki.edit_page(f"Bulk {index}", f"old {index}")
        expected[f"Bulk {index}"] = f"text {index}"
        await wiki.edit_page(f"Bulk {index}", expected[f"Bulk {index}"])
    params = {
        "action": "query", "generator": "allpages", "gapprefix": "Bulk", "gaplimit": "max",
        "prop": "revisions", "rvprop": "ids|content", "rvslots": "main", "formatversion": "2",
    }  # fmt: skip
    first = await wiki.api(client, **params)
    cont = first["continue"]
    with_revs = [p for p in first["query"]["pages"] if "revisions" in p]
    assert len(with_revs) == 50 and "batchcomplete" not in first
    page_id = int(cont["rvcontinue"].split("|")[0])
    assert page_id == max(p["pageid"] for p in with_revs) + 1
    got = {p["title"]: p["revisions"][0]["slots"]["main"]["content"] for p in with_revs}
    second = await wiki.api(client, **params, **cont)
    for p in second["query"]["pages"]:
        if "revisions" in p:
            assert p["title"] not in got
            got[p["title"]] = p["revisions"][0]["slots"]["main"]["content"]
    assert got == expected and second["batchcomplete"] is True
    bad = await wiki.api(client, **params, rvcontinue="12")
    assert bad["error"]["code"] == "badcontinue"
    # Without content the limit is 500: one batch.
    plain = await wiki.api(client, **(params | {"rvprop": "ids"}))
    assert "continue" not in plain


async def test_revisions_parse_and_tag(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Parsed", "Some '''bold''' and [[Nowhere]].")
    await wiki.edit_page("Other parsed", "x")
    data = await wiki.api(
        client, action="query", titles="Parsed|Other parsed", prop="revisions",
        rvprop="content", rvparse="1", formatversion="2",
    )  # fmt: skip
    pages = data["query"]["pages"]
    # rvparse limits a request to one revision: the other page continues.
    assert sum("revisions" in p for p in pages) == 1
    assert "rvcontinue" in data["continue"]
    html = next(p for p in pages if "revisions" in p)["revisions"][0]["content"]
    assert html.startswith('<div class="mw-parser-output">') and "<b>bold</b>" in html
    blank = await wiki.edit_page("Parsed", "")

    def tag(conn: Any) -> None:
        conn.execute(
            sa.insert(schema.change_tag).values(
                ct_rev_id=blank, ct_tag_id=software_tag_id(conn, "mw-blank")
            )
        )

    await wiki.db.write(tag)
    tagged = await wiki.api(
        client, action="query", titles="Parsed", prop="revisions", rvprop="ids|tags",
        rvtag="mw-blank", rvlimit="10", formatversion="2",
    )  # fmt: skip
    revs = tagged["query"]["pages"][0]["revisions"]
    assert [r["revid"] for r in revs] == [blank]
    assert revs[0]["tags"] == ["mw-blank"]


async def test_info_testactions_follow_protection(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Locked", "text")
    token = await _admin_token(wiki, client)
    await wiki.post(client, action="protect", title="Locked", protections="edit=sysop", token=token)
    await wiki.post(
        client, action="protect", title="Reserved", protections="create=sysop", token=token
    )
    params = {
        "action": "query", "titles": "Locked|Reserved|Free", "prop": "info",
        "intestactions": "edit|move", "formatversion": "2",
    }  # fmt: skip
    admin = {p["title"]: p["actions"] for p in (await wiki.api(client, **params))["query"]["pages"]}
    assert admin["Locked"] == {"edit": True, "move": True}
    async with wiki.client() as other:
        await wiki.login(other, "Alice")
        data = await wiki.api(other, **params)
    alice = {p["title"]: p["actions"] for p in data["query"]["pages"]}
    assert alice["Locked"]["edit"] is False and alice["Locked"]["move"] is True
    assert alice["Reserved"]["edit"] is False and alice["Free"]["edit"] is True
