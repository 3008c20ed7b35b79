"""`action=revisiondelete` of file versions: `oldimage` (a file's earlier version, by the
timestamp of its archive name) and `filearchive` (a deleted file's version, by id), with the
items and log entries MediaWiki 1.39 gives (`data/mw139_revisiondelete_files.json`); and the
attack: once an old version's file is hidden, neither its address, its hash nor its summary
reaches anyone without the right, and the file itself is served to no one."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.changes.accounts import create_user

pytestmark = pytest.mark.anyio

RECORDED = json.loads(
    (Path(__file__).parent / "data" / "mw139_revisiondelete_files.json").read_text()
)
HIDER = ("Hiderfq", "hider-password-1")  # an administrator in `suppress`, as recorded


def _png(shade: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    rows = bytes([0, shade, 0, 0, 0, shade, 0]) * 2
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )  # fmt: skip


async def _upload(wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes,
                  comment: str) -> Any:  # fmt: skip
    token = await wiki.csrf(client)
    response = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": name, "comment": comment, "ignorewarnings": "1",
              "token": token, "format": "json"},
        files={"file": (name, data)},
    )  # fmt: skip
    return response.json()


async def _sign_in_hider(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.db.write(lambda conn: create_user(conn, *HIDER, groups=["sysop", "suppress"]))
    login = await wiki.api(client, action="query", meta="tokens", type="login")
    done = await wiki.post(client, action="login", lgname=HIDER[0], lgpassword=HIDER[1],
                           lgtoken=login["query"]["tokens"]["logintoken"])  # fmt: skip
    assert done["login"]["result"] == "Success", done


async def _revdel(wiki: WikiHarness, client: httpx.AsyncClient, **params: str) -> Any:
    token = await wiki.csrf(client)
    return await wiki.post(client, action="revisiondelete", token=token, formatversion="2",
                           **params)  # fmt: skip


async def _versions(wiki: WikiHarness, client: httpx.AsyncClient) -> list[Any]:
    data = await wiki.api(
        client, action="query", titles="File:Rdw.png", prop="imageinfo", iilimit="5",
        iiprop="timestamp|user|comment|url|sha1|size|archivename", formatversion="2",
    )  # fmt: skip
    return list(data["query"]["pages"][0]["imageinfo"])


async def test_old_version_hidden(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    await _upload(wiki, client, "Rdw.png", _png(40), "first version")
    await _upload(wiki, client, "Rdw.png", _png(50), "second version")
    old = (await _versions(wiki, client))[1]
    archive_url, ts = old["url"], old["archivename"].split("!", 1)[0]
    assert (await client.get(archive_url)).status_code == 200
    refused = await _revdel(wiki, client, type="oldimage", target="File:Rdw.png", ids=ts,
                            hide="content")  # fmt: skip
    assert refused["error"]["code"] == "permissiondenied"  # administrators may not
    async with wiki.client() as hider:
        await _sign_in_hider(wiki, hider)
        done = await _revdel(wiki, hider, type="oldimage", target="File:Rdw.png", ids=ts,
                             hide="content|comment|user")  # fmt: skip
        (item,) = done["revisiondelete"]["items"]
        (recorded,) = RECORDED["oldimage"]["revisiondelete"]["items"]
        assert set(item) == set(recorded) - {"url"}, item  # no address of a hidden file
        assert item["archivename"] == f"{ts}!Rdw.png" and item["contenthidden"] is True
        missing = await _revdel(wiki, hider, type="oldimage", target="File:Rdw.png",
                                ids="20010101000000", hide="comment")  # fmt: skip
        (absent,) = missing["revisiondelete"]["items"]
        assert absent["status"] == "Fail"
        assert absent["errors"][0]["code"] == "revdelete-modify-missing"
        seen = (await _versions(wiki, hider))[1]
        assert seen["comment"] == "first version" and seen["filehidden"] is True
    async with wiki.client() as anonymous:
        shown = (await _versions(wiki, anonymous))[1]
        wanted = RECORDED["imageinfo_anon"]["query"]["pages"][0]["imageinfo"][1]
        assert set(shown) == set(wanted), shown
        assert (await anonymous.get(archive_url)).status_code == 404
    assert (await client.get(archive_url)).status_code == 404  # to no one


async def test_deleted_file_version_hidden(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    await _upload(wiki, client, "Rdg.png", _png(60), "to delete")
    token = await wiki.csrf(client)
    deleted = await wiki.post(client, action="delete", title="File:Rdg.png", token=token)
    assert "error" not in deleted, deleted
    listed = await wiki.api(client, action="query", list="filearchive", fafrom="Rdg.png",
                            formatversion="2")  # fmt: skip
    fa_id = str(listed["query"]["filearchive"][0]["id"])
    async with wiki.client() as hider:
        await _sign_in_hider(wiki, hider)
        done = await _revdel(wiki, hider, type="filearchive", target="File:Rdg.png", ids=fa_id,
                             hide="comment")  # fmt: skip
        (item,) = done["revisiondelete"]["items"]
        (recorded,) = RECORDED["filearchive"]["revisiondelete"]["items"]
        assert set(item) == set(recorded) - {"url"}, item
        assert {k: item[k] for k in ("width", "size", "commenthidden", "contenthidden")} == {
            k: recorded[k] for k in ("width", "size", "commenthidden", "contenthidden")
        }
    log = await wiki.api(client, action="query", list="logevents", letype="delete",
                         lelimit="1", formatversion="2")  # fmt: skip
    entry = log["query"]["logevents"][0]
    wanted = RECORDED["logevents"]["query"]["logevents"][0]
    assert (entry["action"], entry["params"]["type"]) == (wanted["action"], "filearchive")
    assert entry["params"]["ids"] == [fa_id] and entry["params"]["new"] == wanted["params"]["new"]
