"""Uploads, custom emoji, profile fields, bots and invitations through the official `zulip`
client against `atrium serve`: `upload_file`, `get_attachments`, `get_realm_emoji`,
`upload_custom_emoji`, `delete_custom_emoji`, the `*_realm_profile_field*` methods and
`get_subscription_status`; the rest through `call_endpoint`, as a client without a method does.

The tests share one server per backend (`live_chat_module`): each asserts only on what it made
(the owner's attachments, the realm's custom emoji, profile fields, the member's bots, the
invitations), which no other test here makes."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from tests.e2e.conftest import LiveChat

pytestmark = pytest.mark.e2e


def ok(response: dict[str, Any]) -> dict[str, Any]:
    assert response["result"] == "success", response
    return response


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), (10, 200, 10)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_upload_share_and_download(live_chat_module: LiveChat, tmp_path: Path) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    body = bytes(range(256)) * 1000
    path = tmp_path / "report.bin"
    path.write_bytes(body)
    with path.open("rb") as f:
        uri = ok(owner.upload_file(f))["uri"]
    [attachment] = ok(owner.get_attachments())["attachments"]
    assert attachment["size"] == len(body) and attachment["name"] == "report.bin"

    owner_auth = (owner.email, owner.api_key)
    member_auth = (member.email, member.api_key)
    resp = httpx.get(live_chat_module.site + uri, auth=owner_auth)
    assert resp.status_code == 200 and resp.content == body
    assert httpx.get(live_chat_module.site + uri, auth=member_auth).status_code == 403
    ok(
        owner.add_subscriptions(
            streams=[{"name": "files"}], principals=[live_chat_module.member_email]
        )
    )
    ok(
        owner.send_message(
            {"type": "stream", "to": "files", "topic": "t", "content": f"[r]({uri})"}
        )
    )
    resp = httpx.get(
        live_chat_module.site + uri, auth=member_auth, headers={"Range": "bytes=100-199"}
    )
    assert resp.status_code == 206 and resp.content == body[100:200]
    link = ok(member.call_endpoint(url=uri.removeprefix("/"), method="GET"))["url"]
    assert httpx.get(live_chat_module.site + link).content == body


def test_custom_emoji(live_chat_module: LiveChat, tmp_path: Path) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    image = tmp_path / "tick.png"
    image.write_bytes(png())
    with image.open("rb") as f:
        ok(member.upload_custom_emoji("green_tick", f))
    emoji = ok(owner.get_realm_emoji())["emoji"]
    [(emoji_id, record)] = emoji.items()
    assert record["name"] == "green_tick" and not record["deactivated"]
    assert httpx.get(live_chat_module.site + record["source_url"]).status_code == 200
    with image.open("rb") as f:
        refused = member.upload_custom_emoji("Bad Name", f)
    assert refused["result"] == "error"
    ok(member.delete_custom_emoji("green_tick"))
    assert ok(owner.get_realm_emoji())["emoji"][emoji_id]["deactivated"] is True


def test_profile_fields_and_subscription_status(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    phone = ok(owner.create_realm_profile_field(name="Phone", field_type=1))["id"]
    team = ok(owner.create_realm_profile_field(name="Team", field_type=1, hint="Which team"))["id"]
    ok(owner.update_realm_profile_field(phone, name="Mobile"))
    ok(owner.reorder_realm_profile_fields(order=[team, phone]))
    fields = ok(member.get_realm_profile_fields())["custom_fields"]
    assert [(f["id"], f["name"]) for f in fields] == [(team, "Team"), (phone, "Mobile")]
    member_id = ok(member.get_profile())["user_id"]
    ok(
        owner.call_endpoint(
            url=f"users/{member_id}",
            method="PATCH",
            request={"profile_data": [{"id": phone, "value": "555-0100"}]},
        )
    )
    profile = ok(owner.get_user_by_id(member_id, include_custom_profile_fields=True))
    assert profile["user"]["profile_data"][str(phone)]["value"] == "555-0100"
    ok(owner.remove_realm_profile_field(team))

    ok(owner.add_subscriptions(streams=[{"name": "status"}]))
    stream_id = ok(owner.get_stream_id("status"))["stream_id"]
    assert ok(member.get_subscription_status(member_id, stream_id))["is_subscribed"] is False


def test_bots_and_invitations(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    bot = ok(
        member.call_endpoint(
            url="bots", method="POST", request={"full_name": "Echo Bot", "short_name": "echo"}
        )
    )
    bots = ok(member.call_endpoint(url="bots", method="GET"))["bots"]
    assert [b["full_name"] for b in bots] == ["Echo Bot"]
    key = ok(member.call_endpoint(url=f"bots/{bot['user_id']}/api_key/regenerate", method="POST"))
    assert key["api_key"] != bot["api_key"]

    ok(owner.add_subscriptions(streams=[{"name": "welcome"}]))
    stream_id = ok(owner.get_stream_id("welcome"))["stream_id"]
    ok(
        owner.call_endpoint(
            url="invites",
            method="POST",
            request={"invitee_emails": "new@live.test", "stream_ids": [stream_id]},
        )
    )
    [invite] = ok(owner.call_endpoint(url="invites", method="GET"))["invites"]
    page = httpx.get(invite["link_url"])
    assert page.status_code == 200 and "new@live.test" in page.text
