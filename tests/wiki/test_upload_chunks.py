"""Chunked uploads (`action=upload` with `chunk`, `offset`, `filekey`, `filesize`) against
MediaWiki 1.39's recorded answers (`data/mw139_upload_chunks.json`), and the attacks: a script
hidden in a later chunk, a first chunk of HTML, chunks whose whole is not what the name says,
another user's file key, and publishing an entry still receiving chunks."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_upload_chunks.json").read_text())
ERRORS = RECORDED["errors"]


def _png(text: bytes = b"") -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    rows = b"\x00\xff\x00\x00\x00\xff\x00" * 2
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"tEXt", text) + chunk(b"IEND", b"")
    )  # fmt: skip


BIG = _png(b"c" * 5000)  # 5086 bytes, as the recorded upload


async def _piece(wiki: WikiHarness, client: httpx.AsyncClient, data: bytes, **params: Any) -> Any:
    token = await wiki.csrf(client)
    fields = {"action": "upload", "format": "json", "token": token, "stash": "1"}
    fields.update({k: str(v) for k, v in params.items()})
    response = await client.post("/w/api.php", data=fields, files={"chunk": ("blob", data)})
    return response.json()


def _error(answer: Any, name: str, key: str = "") -> None:
    wanted = {k: v.replace("KEY", key) for k, v in ERRORS[name].items()}
    got = {k: answer["error"][k] for k in wanted if k in answer["error"]}
    assert got == wanted, answer


async def test_chunks_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    size = len(BIG)
    first = await _piece(wiki, client, BIG[:2000], filename="Chunky.png", filesize=size, offset=0)
    key = first["upload"]["filekey"]
    assert first == json.loads(json.dumps(RECORDED["first"]).replace("KEY", key))
    common = {"filename": "Chunky.png", "filesize": size}
    _error(await _piece(wiki, client, BIG[2000:4000], **common, offset=1000, filekey=key),
           "wrong_offset")  # fmt: skip
    _error(await _piece(wiki, client, BIG[2000:4000], **common, offset=2000), "offset_without_key")
    _error(await _piece(wiki, client, BIG[:2000], **common, offset=0, filekey=key),
           "key_at_offset_0")  # fmt: skip
    _error(await _piece(wiki, client, BIG[2000:2100], **common, offset=2000, filekey=key),
           "too_small")  # fmt: skip
    _error(
        await _piece(wiki, client, BIG[2000:], filename="Chunky.png", filesize=size - 10,
                     offset=2000, filekey=key),
        "past_filesize",
    )  # fmt: skip
    # Publishing the entry before its last chunk is refused: it is no file yet.
    token = await wiki.csrf(client)
    early = await wiki.post(client, action="upload", filekey=key, filename="Chunky.png",
                            token=token)  # fmt: skip
    assert early["error"]["code"] == "uploadstash-file-not-found"
    second = await _piece(wiki, client, BIG[2000:4000], **common, offset=2000, filekey=key)
    assert second == json.loads(json.dumps(RECORDED["second"]).replace("KEY", key))
    last = await _piece(wiki, client, BIG[4000:], **common, offset=4000, filekey=key)
    assert last["upload"]["result"] == RECORDED["last_result"], last
    final_key = last["upload"]["filekey"]
    assert final_key != key
    _error(await _piece(wiki, client, BIG[4000:], **common, offset=4000, filekey=key),
           "old_key_after_last", key)  # fmt: skip
    token = await wiki.csrf(client)
    done = await wiki.post(
        client, action="upload", filekey=final_key, filename="Chunky.png", comment="chunky",
        token=token,
    )  # fmt: skip
    assert done["upload"]["result"] == "Success", done
    assert done["upload"]["imageinfo"]["size"] == size
    stored = await client.get("/images/" + done["upload"]["imageinfo"]["url"].split("/images/")[1])
    assert stored.content == BIG


async def test_chunk_attacks(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    evil = _png(b"a" * 1500 + b"<html><script>alert(1)</script></html>" + b"b" * 3000)
    first = await _piece(wiki, client, evil[:1024], filename="Evil.png", filesize=len(evil),
                         offset=0)  # fmt: skip
    key = first["upload"]["filekey"]
    _error(
        await _piece(wiki, client, evil[1024:3000], filename="Evil.png", filesize=len(evil),
                     offset=1024, filekey=key),
        "script_in_second_chunk",
    )  # fmt: skip
    _error(
        await _piece(wiki, client, b"<html><script>x</script>" + b" " * 2000,
                     filename="Chunky2.png", filesize=5000, offset=0),
        "html_first_chunk",
    )  # fmt: skip
    _error(await _piece(wiki, client, BIG[:2000], filename="Chunky.exe", filesize=len(BIG),
                        offset=0), "banned_name")  # fmt: skip
    _error(await _piece(wiki, client, BIG[:2000], filename="Chunky3.png", offset=0), "no_filesize")
    # Chunks that each pass but join into a file that is no PNG: refused once joined.
    gif = b"GIF89a" + b"\x00" * 2000
    start = await _piece(wiki, client, gif[:1100], filename="Liar.png", filesize=len(gif),
                         offset=0)  # fmt: skip
    joined = await _piece(wiki, client, gif[1100:], filename="Liar.png", filesize=len(gif),
                          offset=1100, filekey=start["upload"]["filekey"])  # fmt: skip
    assert joined["error"]["code"] == "stashfailed"
    assert "image/gif" in joined["error"]["info"], joined
    # Another user cannot continue (or learn of) someone else's entry.
    mine = await _piece(wiki, client, BIG[:2000], filename="Mine.png", filesize=len(BIG),
                        offset=0)  # fmt: skip
    async with wiki.client() as other:
        await wiki.login(other, "Robot")
        stolen = await _piece(wiki, other, BIG[2000:], filename="Mine.png", filesize=len(BIG),
                              offset=2000, filekey=mine["upload"]["filekey"])  # fmt: skip
        assert stolen["error"]["code"] == "uploadstash-file-not-found"
    # Anonymous callers may not upload at all.
    async with wiki.client() as anonymous:
        refused = await _piece(wiki, anonymous, BIG[:2000], filename="Anon.png",
                               filesize=len(BIG), offset=0)  # fmt: skip
        assert refused["error"]["code"] == "permissiondenied"
