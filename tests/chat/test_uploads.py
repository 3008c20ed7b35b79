"""POST /user_uploads, serving uploads to those who may read them, GET/DELETE /attachments,
temporary links, and `attachment` events with their audience."""

from __future__ import annotations

import hashlib

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)
from tests.chat.openapi import assert_matches_openapi
from tests.chat.uploads_helpers import post_files

pytestmark = pytest.mark.anyio


async def upload(chat: ChatHarness, user: Member, body: bytes, name: str = "notes.txt") -> str:
    resp = await post_files(chat, "/user_uploads", user, [(name, body, "text/plain")])
    data = assert_json_success(resp)
    assert_matches_openapi("POST", "/user_uploads", data)
    uri: str = data["uri"]
    return uri


async def fetch(chat: ChatHarness, uri: str, user: Member | None, **headers: str):  # type: ignore[no-untyped-def]
    return await chat.client.get(uri, headers={**(user.auth() if user else {}), **headers})


async def test_upload_stores_content_addressed_outside_the_database(chat: ChatHarness) -> None:
    body = b"hello, world\n" * 100
    uri = await upload(chat, chat.hamlet, body, "My Notes (draft).txt")
    assert uri.startswith(f"/user_uploads/{chat.realm_id}/")
    assert uri.endswith("/My-Notes-draft.txt")
    sha = hashlib.sha256(body).hexdigest()
    stored = chat.runtime.settings.data_dir / "uploads" / sha[:2] / sha[2:4] / sha
    assert stored.read_bytes() == body
    row = await chat.runtime.db.read(lambda conn: conn.one(sa.select(schema.attachment)))
    assert row["sha256"] == sha and row["size"] == len(body)
    assert body.decode() not in str(dict(row))  # the bytes are not in the database
    # The same bytes uploaded twice share one stored file.
    await upload(chat, chat.cordelia, body)
    files = [p for p in (chat.runtime.settings.data_dir / "uploads").rglob("*") if p.is_file()]
    assert files == [stored]

    resp = await fetch(chat, uri, chat.hamlet)
    assert resp.status_code == 200
    assert resp.content == body
    assert resp.headers["content-type"] == "text/plain; charset=utf-8"
    assert resp.headers["content-disposition"].startswith("inline;")
    assert resp.headers["x-content-type-options"] == "nosniff"


async def test_upload_bad_input(chat: ChatHarness) -> None:
    resp = await post_files(chat, "/user_uploads", chat.hamlet, [])
    assert_json_error(resp, "You must specify a file to upload")
    resp = await chat.post("/user_uploads", chat.hamlet)
    assert_json_error(resp, "You must specify a file to upload")
    two = [("a.txt", b"a", "text/plain"), ("b.txt", b"b", "text/plain")]
    resp = await post_files(chat, "/user_uploads", chat.hamlet, two)
    assert_json_error(resp, "You may only upload one file at a time")
    chat.runtime.settings = chat.runtime.settings.with_(max_file_upload_size_mib=1)
    big = [("big.bin", b"\0" * (1024 * 1024 + 1), "application/octet-stream")]
    resp = await post_files(chat, "/user_uploads", chat.hamlet, big)
    assert_json_error(resp, "Uploaded file is larger than the allowed limit of 1 MiB")
    # Far above the limit: refused from its Content-Length, before the body is read.
    bigger = [("big.bin", b"\0" * (2 * 1024 * 1024), "application/octet-stream")]
    resp = await post_files(chat, "/user_uploads", chat.hamlet, bigger)
    assert_json_error(resp, "Uploaded file is larger than the allowed limit of 1 MiB")
    assert await chat.count(schema.attachment) == 0
    resp = await post_files(chat, "/user_uploads", None, [("a.txt", b"a", "text/plain")])
    assert resp.status_code == 401


async def test_download_needs_a_readable_linking_message(chat: ChatHarness) -> None:
    uri = await upload(chat, chat.hamlet, b"secret plans")
    # Without credentials, a browser is sent to sign in (tests/security: no Basic challenge).
    assert (await fetch(chat, uri, None)).status_code == 302
    assert (await fetch(chat, uri, chat.cordelia)).status_code == 403
    assert (await fetch(chat, uri + "x", chat.hamlet)).status_code == 404

    await chat.make_stream("council", [chat.hamlet, chat.iago], invite_only=True)
    await chat.send_stream(chat.hamlet, "council", "plans", f"[plans]({uri})")
    assert (await fetch(chat, uri, chat.iago)).status_code == 200
    assert (await fetch(chat, uri, chat.cordelia)).status_code == 403
    assert (await fetch(chat, uri, chat.polonius)).status_code == 403

    # A link from someone who cannot read the file grants nothing.
    other = await upload(chat, chat.iago, b"iago's own")
    await chat.make_stream("lobby", [chat.cordelia, chat.hamlet])
    await chat.send_stream(chat.cordelia, "lobby", "t", f"look {other}")
    assert (await fetch(chat, other, chat.hamlet)).status_code == 403

    # A public stream's message makes the file readable to members, not to guests.
    await chat.send_stream(chat.hamlet, "lobby", "t", f"[plans]({uri})")
    assert (await fetch(chat, uri, chat.desdemona)).status_code == 200
    assert (await fetch(chat, uri, chat.polonius)).status_code == 403

    # A direct message shares it with its recipients only.
    dm_uri = await upload(chat, chat.hamlet, b"for cordelia")
    await chat.send_dm(chat.hamlet, [chat.cordelia], f"[file]({dm_uri})")
    assert (await fetch(chat, dm_uri, chat.cordelia)).status_code == 200
    assert (await fetch(chat, dm_uri, chat.iago)).status_code == 403


async def test_range_requests(chat: ChatHarness) -> None:
    body = bytes(range(256)) * 40
    resp = await post_files(
        chat, "/user_uploads", chat.hamlet, [("data.bin", body, "application/octet-stream")]
    )
    uri = assert_json_success(resp)["uri"]
    resp = await fetch(chat, uri, chat.hamlet, Range="bytes=10-19")
    assert resp.status_code == 206
    assert resp.content == body[10:20]
    assert resp.headers["content-range"] == f"bytes 10-19/{len(body)}"
    assert resp.headers["content-disposition"].startswith("attachment;")
    resp = await fetch(chat, uri, chat.hamlet, Range=f"bytes={len(body) + 5}-")
    assert resp.status_code == 416
    resp = await chat.client.head(uri, headers=chat.hamlet.auth())
    assert resp.status_code == 200
    assert resp.headers["content-length"] == str(len(body))


async def test_temporary_url(chat: ChatHarness) -> None:
    uri = await upload(chat, chat.hamlet, b"temporary")
    api_path = uri  # the same path, under /api/v1, answers a temporary link
    body = assert_json_success(await chat.get(api_path, chat.hamlet))
    assert_matches_openapi("GET", "/user_uploads/{realm_id_str}/{filename}", body)
    url = body["url"]
    assert url.startswith("/user_uploads/temporary/")
    resp = await chat.client.get(url)
    assert resp.status_code == 200 and resp.content == b"temporary"
    forged = url.replace("/temporary/", "/temporary/x", 1)
    assert (await chat.client.get(forged)).status_code == 403
    assert (await chat.client.get(url.rsplit("/", 1)[0] + "/other.txt")).status_code == 403
    resp = await chat.get(api_path, chat.cordelia)
    assert_json_error(resp, "You are not authorized to view this file.", 403)
    resp = await chat.get(api_path + "x", chat.hamlet)
    assert_json_error(resp, "File not found", 404)


async def test_attachments_listing_and_delete(chat: ChatHarness) -> None:
    uri = await upload(chat, chat.hamlet, b"listed")
    await chat.make_stream("lobby", [chat.hamlet])
    message_id = await chat.send_stream(chat.hamlet, "lobby", "t", f"[f]({uri})")
    body = await api_ok(chat, "GET", "/attachments", chat.hamlet)
    [attachment] = body["attachments"]
    assert attachment["path_id"] == uri.removeprefix("/user_uploads/")
    assert [m["id"] for m in attachment["messages"]] == [message_id]
    assert body["upload_space_used"] == len(b"listed")
    assert (await api_ok(chat, "GET", "/attachments", chat.cordelia))["attachments"] == []
    row = await chat.runtime.db.read(
        lambda conn: conn.one(sa.select(schema.message).where(schema.message.c.id == message_id))
    )
    assert row["has_attachment"]

    resp = await chat.delete(f"/attachments/{attachment['id']}", chat.cordelia)
    assert_json_error(resp, "Invalid attachment")
    resp = await chat.delete("/attachments/9999", chat.hamlet)
    assert_json_error(resp, "Invalid attachment")
    probe = await listen(chat, chat.hamlet, ["attachment"])
    await api_ok(chat, "DELETE", f"/attachments/{attachment['id']}", chat.hamlet)
    [event] = await probe.events()
    assert event["op"] == "remove" and event["attachment"] == {"id": attachment["id"]}
    assert event["upload_space_used"] == 0
    assert (await fetch(chat, uri, chat.hamlet)).status_code == 404
    assert not list((chat.runtime.settings.data_dir / "uploads").rglob("??/??/*"))


async def test_attachment_events_and_their_audience(chat: ChatHarness) -> None:
    hamlet_events = await listen(chat, chat.hamlet, ["attachment"])
    iago_events = await listen(chat, chat.iago, ["attachment"])
    uri = await upload(chat, chat.hamlet, b"shared")
    [added] = await hamlet_events.events()
    assert added["op"] == "add" and added["attachment"]["messages"] == []
    assert added["upload_space_used"] == len(b"shared")

    await chat.make_stream("lobby", [chat.hamlet, chat.iago])
    public_id = await chat.send_stream(chat.hamlet, "lobby", "t", f"[f]({uri})")
    events = await hamlet_events.events(added["id"])
    assert [e["op"] for e in events] == ["update"]
    assert [m["id"] for m in events[0]["attachment"]["messages"]] == [public_id]

    # iago (who can read the file) links it where hamlet cannot read: hamlet hears nothing.
    await chat.make_stream("admins", [chat.iago], invite_only=True)
    await chat.send_stream(chat.iago, "admins", "t", f"[f]({uri})")
    assert await hamlet_events.events(events[-1]["id"]) == []
    body = await api_ok(chat, "GET", "/attachments", chat.hamlet)
    assert [m["id"] for m in body["attachments"][0]["messages"]] == [public_id]
    assert await iago_events.events() == []  # not the owner

    # Editing a link away and deleting the message update the owner.
    second = await chat.send_stream(chat.hamlet, "lobby", "t", f"again [f]({uri})")
    last = (await hamlet_events.events(events[-1]["id"]))[-1]
    await api_ok(chat, "PATCH", f"/messages/{second}", chat.hamlet, content="no link")
    [edited] = await hamlet_events.events(last["id"])
    assert [m["id"] for m in edited["attachment"]["messages"]] == [public_id]
    await api_ok(chat, "DELETE", f"/messages/{public_id}", chat.hamlet)
    [deleted] = await hamlet_events.events(edited["id"])
    assert deleted["attachment"]["messages"] == []


async def test_a_blob_removed_by_a_concurrent_delete_is_stored_again(chat: ChatHarness) -> None:
    """The same bytes uploaded while another copy's delete runs: the new row keeps its bytes."""
    import io

    from starlette.datastructures import UploadFile

    from atrium.chat.views.uploads import keep_stored

    body = b"shared content"
    sha = hashlib.sha256(body).hexdigest()
    uri = await upload(chat, chat.hamlet, body)
    chat.runtime.blobs.delete(sha)  # what the other request's release_blob did in between
    await keep_stored(chat.runtime, UploadFile(io.BytesIO(body), size=len(body)), sha, 1)
    assert (await fetch(chat, uri, chat.hamlet)).content == body
