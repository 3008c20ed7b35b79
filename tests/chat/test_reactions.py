"""POST/DELETE /messages/{id}/reactions, `reactions` on message objects and events, read receipts."""

from __future__ import annotations

import pytest

from atrium.chat import schema
from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def reactions_of(chat: ChatHarness, user: object, message_id: int) -> list[dict[str, object]]:
    body = await api_ok(chat, "GET", f"/messages/{message_id}", user)
    return body["message"]["reactions"]  # type: ignore[no-any-return]


async def test_add_by_name_and_by_code_then_remove(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia, chat.iago])
    mid = await chat.send_stream(chat.hamlet, "lobby", "t", "hello")
    cordelia_q = await listen(chat, chat.cordelia, ["reaction"])
    outsider_q = await listen(chat, chat.polonius, ["reaction"])
    await api_ok(chat, "POST", f"/messages/{mid}/reactions", chat.cordelia, emoji_name="smile")
    await api_ok(
        chat,
        "POST",
        f"/messages/{mid}/reactions",
        chat.iago,
        emoji_name="zulip",
        emoji_code="zulip",
        reaction_type="zulip_extra_emoji",
    )
    reactions = await reactions_of(chat, chat.hamlet, mid)
    assert [
        (r["emoji_name"], r["emoji_code"], r["reaction_type"], r["user_id"]) for r in reactions
    ] == [
        ("smile", "1f642", "unicode_emoji", chat.cordelia.id),
        ("zulip", "zulip", "zulip_extra_emoji", chat.iago.id),
    ]
    assert reactions[0]["user"]["email"] == chat.cordelia.email
    # The fetch (its cache included) shows them too, and the removal at once.
    fetched = await api_ok(
        chat, "GET", "/messages", chat.hamlet, anchor="newest", num_before=5, num_after=0
    )
    assert len(fetched["messages"][-1]["reactions"]) == 2
    await api_ok(
        chat,
        "DELETE",
        f"/messages/{mid}/reactions",
        chat.cordelia,
        emoji_code="1f642",
        reaction_type="unicode_emoji",
    )
    fetched = await api_ok(
        chat, "GET", "/messages", chat.hamlet, anchor="newest", num_before=5, num_after=0
    )
    assert [r["emoji_name"] for r in fetched["messages"][-1]["reactions"]] == ["zulip"]
    events = await cordelia_q.events()
    assert [(e["op"], e["emoji_name"], e["user_id"]) for e in events] == [
        ("add", "smile", chat.cordelia.id),
        ("add", "zulip", chat.iago.id),
        ("remove", "smile", chat.cordelia.id),
    ]
    assert events[0]["message_id"] == mid and events[0]["user"]["user_id"] == chat.cordelia.id
    # A guest who cannot see the message hears nothing.
    assert await outsider_q.events() == []


async def test_reaction_errors(chat: ChatHarness) -> None:
    private = await chat.make_stream("secret", [chat.hamlet], invite_only=True)
    assert private
    hidden = await chat.send_stream(chat.hamlet, "secret", "t", "hush")
    dm = await chat.send_dm(chat.hamlet, [chat.iago], "psst")
    path = f"/messages/{dm}/reactions"
    cases = [
        (
            chat.cordelia,
            f"/messages/{hidden}/reactions",
            {"emoji_name": "smile"},
            "Invalid message(s)",
        ),
        (chat.cordelia, path, {"emoji_name": "smile"}, "Invalid message(s)"),
        (chat.iago, "/messages/999999/reactions", {"emoji_name": "smile"}, "Invalid message(s)"),
        (chat.iago, path, {"emoji_name": "no_such_emoji"}, "Emoji 'no_such_emoji' does not exist"),
        (chat.iago, path, {"emoji_name": "smile", "emoji_code": "zzzz"}, "Invalid emoji code."),
        (chat.iago, path, {"emoji_name": "heart", "emoji_code": "1f642"}, "Invalid emoji name."),
        (
            chat.iago,
            path,
            {"emoji_name": "smile", "emoji_code": "1f642", "reaction_type": "bogus"},
            "Invalid emoji type.",
        ),
        (
            chat.iago,
            path,
            {"emoji_name": "party", "emoji_code": "1", "reaction_type": "realm_emoji"},
            "Invalid custom emoji.",
        ),
    ]
    for user, url, params, msg in cases:
        assert_json_error(await chat.post(url, user, **params), msg)
    assert_json_error(
        await chat.post(path, chat.iago),
        "Missing 'emoji_name' argument",
        code="REQUEST_VARIABLE_MISSING",
    )
    await api_ok(chat, "POST", path, chat.iago, emoji_name="smile")
    assert_json_error(
        await chat.post(path, chat.iago, emoji_name="smile"), "Reaction already exists."
    )
    assert_json_error(
        await chat.delete(path, chat.hamlet, emoji_name="smile"), "Reaction doesn't exist."
    )
    assert_json_error(
        await chat.delete(path, chat.hamlet),
        "At least one of the following arguments must be present: emoji_name, emoji_code",
    )
    assert await chat.count(schema.reaction) == 1


async def test_joining_a_reaction_keeps_its_name_and_history_reader_gets_the_message(
    chat: ChatHarness,
) -> None:
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    mid = await chat.send_stream(chat.hamlet, "lobby", "t", "hello")
    await api_ok(chat, "POST", f"/messages/{mid}/reactions", chat.cordelia, emoji_name="+1")
    # Iago joins the stream afterwards: he can react to its history, and the message becomes his.
    await chat.subscribe(chat.iago, "lobby")
    await api_ok(
        chat,
        "POST",
        f"/messages/{mid}/reactions",
        chat.iago,
        emoji_name="thumbs_up",
        emoji_code="1f44d",
        reaction_type="unicode_emoji",
    )
    names = [r["emoji_name"] for r in await reactions_of(chat, chat.iago, mid)]
    assert names == ["+1", "+1"]
    body = await api_ok(chat, "GET", f"/messages/{mid}", chat.iago)
    assert "historical" in body["message"]["flags"]


async def test_deleting_a_message_deletes_its_reactions(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet, chat.iago])
    mid = await chat.send_stream(chat.hamlet, "lobby", "t", "hello")
    await api_ok(chat, "POST", f"/messages/{mid}/reactions", chat.iago, emoji_name="smile")
    await api_ok(chat, "DELETE", f"/messages/{mid}", chat.iago)
    assert await chat.count(schema.reaction) == 0


async def test_read_receipts(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia, chat.iago, chat.shiva])
    mid = await chat.send_stream(chat.hamlet, "lobby", "t", "hello")
    path = f"/messages/{mid}/read_receipts"
    assert_json_error(
        await chat.get(path, chat.hamlet), "Read receipts are disabled in this organization."
    )
    assert_json_success(await chat.patch("/realm", chat.iago, enable_read_receipts=True))
    assert (await api_ok(chat, "GET", path, chat.hamlet))["user_ids"] == []
    for reader in (chat.cordelia, chat.iago, chat.shiva):
        await api_ok(chat, "POST", "/messages/flags", reader, messages=[mid], op="add", flag="read")
    # Shiva turned receipts off; the sender is never listed.
    await api_ok(chat, "PATCH", "/settings", chat.shiva, send_read_receipts=False)
    assert (await api_ok(chat, "GET", path, chat.hamlet))["user_ids"] == sorted(
        [chat.cordelia.id, chat.iago.id]
    )
    # Someone the asker muted is left out.
    await api_ok(chat, "POST", f"/users/me/muted_users/{chat.cordelia.id}", chat.hamlet)
    assert (await api_ok(chat, "GET", path, chat.hamlet))["user_ids"] == [chat.iago.id]
    assert_json_error(await chat.get(path, chat.polonius), "Invalid message(s)")


async def test_custom_emoji_reactions_and_status(chat: ChatHarness) -> None:
    from tests.chat.uploads_helpers import png_bytes, post_files

    resp = await post_files(
        chat, "/realm/emoji/party_parrot", chat.iago, [("e.png", png_bytes(), "image/png")]
    )
    assert_json_success(resp)
    emoji = (await api_ok(chat, "GET", "/realm/emoji", chat.hamlet))["emoji"]
    [emoji_id] = [i for i, e in emoji.items() if e["name"] == "party_parrot"]
    await chat.make_stream("lobby", [chat.hamlet, chat.iago])
    mid = await chat.send_stream(chat.hamlet, "lobby", "t", "hello")
    await api_ok(chat, "POST", f"/messages/{mid}/reactions", chat.iago, emoji_name="party_parrot")
    [reaction] = await reactions_of(chat, chat.hamlet, mid)
    assert (reaction["emoji_code"], reaction["reaction_type"]) == (emoji_id, "realm_emoji")
    await api_ok(chat, "POST", "/users/me/status", chat.hamlet, emoji_name="party_parrot")
    # A deactivated emoji can no longer be chosen.
    assert_json_success(await chat.delete("/realm/emoji/party_parrot", chat.iago))
    resp = await chat.post(f"/messages/{mid}/reactions", chat.hamlet, emoji_name="party_parrot")
    assert_json_error(resp, "Emoji 'party_parrot' does not exist")
