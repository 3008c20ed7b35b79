"""POST /messages: addressing, content and topic rules, policies, and that errors write nothing."""

from __future__ import annotations

import pytest

from atrium.chat import schema
from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio


async def test_send_stream_message_by_name_and_id(chat: ChatHarness) -> None:
    stream_id = await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    body = assert_json_success(
        await chat.post(
            "/messages", chat.hamlet, type="stream", to="Verona", topic="hi", content="hello"
        )
    )
    assert isinstance(body["id"], int)
    body2 = assert_json_success(
        await chat.post(
            "/messages", chat.hamlet, type="stream", to=stream_id, topic="hi", content="again"
        )
    )
    assert body2["id"] > body["id"]
    # A JSON-encoded stream name is a name too.
    assert_json_success(
        await chat.post(
            "/messages", chat.hamlet, type="stream", to='"Verona"', topic="hi", content="x"
        )
    )


async def test_subject_is_an_alias_of_topic(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    body = assert_json_success(
        await chat.post(
            "/messages", chat.hamlet, type="stream", to="Verona", subject="old", content="x"
        )
    )
    message = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.hamlet))["message"]
    assert message["subject"] == "old"
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="Verona", subject="a", topic="b", content="x"
    )
    assert_json_error(resp, "Can't decide between 'topic' and 'subject' arguments")


async def test_unknown_parameters_are_listed(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    body = assert_json_success(
        await chat.post(
            "/messages", chat.hamlet, type="stream", to="Verona", topic="t", content="x", bogus="1"
        )
    )
    assert body["ignored_parameters_unsupported"] == ["bogus"]


async def test_long_content_and_topic_are_truncated(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    body = assert_json_success(
        await chat.post(
            "/messages",
            chat.hamlet,
            type="stream",
            to="Verona",
            topic="t" * 80,
            content="a" * 10050,
        )
    )
    message = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.hamlet))
    assert message["message"]["subject"] == "t" * 57 + "..."
    raw = message["raw_content"]
    assert len(raw) == 10000
    assert raw.endswith("\n[message truncated]")


async def test_empty_topic_becomes_no_topic(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    body = assert_json_success(
        await chat.post(
            "/messages", chat.hamlet, type="stream", to="Verona", topic="  ", content="x"
        )
    )
    message = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.hamlet))["message"]
    assert message["subject"] == "(no topic)"


async def test_bad_content_is_refused_and_nothing_is_written(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    before = await chat.count(schema.message)
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="Verona", topic="x", content="   "
    )
    assert_json_error(resp, "Message must not be empty")
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="Verona", topic="x", content="a\x00b"
    )
    assert_json_error(resp, "Message must not contain null bytes")
    resp = await chat.post("/messages", chat.hamlet, type="stream", to="Verona", topic="x")
    body = assert_json_error(resp, "Missing 'content' argument", code="REQUEST_VARIABLE_MISSING")
    assert body["var_name"] == "content"
    resp = await chat.post(
        "/messages", chat.hamlet, type="bogus", to="Verona", topic="x", content="x"
    )
    assert_json_error(resp, "Invalid message type")
    assert await chat.count(schema.message) == before


async def test_unknown_streams(chat: ChatHarness) -> None:
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="nowhere", topic="x", content="x"
    )
    body = assert_json_error(resp, "Stream 'nowhere' does not exist", code="STREAM_DOES_NOT_EXIST")
    assert body["stream"] == "nowhere"
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to=999999, topic="x", content="x"
    )
    body = assert_json_error(
        resp, "Stream with ID '999999' does not exist", code="STREAM_DOES_NOT_EXIST"
    )
    assert body["stream_id"] == 999999


async def test_direct_messages(chat: ChatHarness) -> None:
    resp = await chat.post(
        "/messages", chat.hamlet, type="direct", to=[chat.cordelia.email], content="hi"
    )
    dm_id = assert_json_success(resp)["id"]
    resp = await chat.post(
        "/messages", chat.hamlet, type="private", to=[chat.cordelia.id], content="hi"
    )
    assert_json_success(resp)
    message = assert_json_success(await chat.get(f"/messages/{dm_id}", chat.cordelia))["message"]
    assert message["type"] == "private"
    assert [r["id"] for r in message["display_recipient"]] == sorted(
        [chat.hamlet.id, chat.cordelia.id]
    )
    # Someone outside the conversation cannot read it.
    assert_json_error(await chat.get(f"/messages/{dm_id}", chat.iago), "Invalid message(s)")


async def test_direct_message_errors(chat: ChatHarness) -> None:
    resp = await chat.post(
        "/messages", chat.hamlet, type="direct", to=["nobody@example.invalid"], content="x"
    )
    assert_json_error(resp, "Invalid email 'nobody@example.invalid'")
    resp = await chat.post("/messages", chat.hamlet, type="direct", to=[987654], content="x")
    assert_json_error(resp, "Invalid user ID 987654")
    resp = await chat.post(
        "/messages", chat.hamlet, type="direct", to=[chat.cordelia.id, chat.iago.email], content="x"
    )
    assert_json_error(resp, "Recipient lists may contain emails or user IDs, but not both.")


async def test_private_stream_only_for_subscribers(chat: ChatHarness) -> None:
    await chat.make_stream("secret", [chat.iago], invite_only=True)
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="secret", topic="x", content="x"
    )
    assert_json_error(resp, "Not authorized to send to stream 'secret'")


async def test_stream_post_policy(chat: ChatHarness) -> None:
    await chat.make_stream("announce", [chat.hamlet, chat.iago], stream_post_policy=2)
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="announce", topic="x", content="x"
    )
    assert_json_error(resp, "Only organization administrators can send to this stream.")
    resp = await chat.post(
        "/messages", chat.iago, type="stream", to="announce", topic="x", content="x"
    )
    assert_json_success(resp)
    await chat.make_stream("mods", [chat.hamlet, chat.shiva], stream_post_policy=4)
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="mods", topic="x", content="x"
    )
    assert_json_error(
        resp, "Only organization administrators and moderators can send to this stream."
    )
    resp = await chat.post(
        "/messages", chat.shiva, type="stream", to="mods", topic="x", content="x"
    )
    assert_json_success(resp)


async def test_guest_cannot_post_to_unsubscribed_public_stream(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    resp = await chat.post(
        "/messages", chat.polonius, type="stream", to="Verona", topic="x", content="x"
    )
    assert_json_error(resp, "Not authorized to send to stream 'Verona'")


async def test_sender_receives_own_message_as_read(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    body = assert_json_success(
        await chat.post(
            "/messages", chat.hamlet, type="stream", to="Verona", topic="t", content="x"
        )
    )
    mine = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.hamlet))["message"]
    theirs = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.cordelia))[
        "message"
    ]
    assert mine["flags"] == ["read"]
    assert theirs["flags"] == []


async def test_mentions_set_flags_and_render(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.iago])
    body = await api_ok(
        chat,
        "POST",
        "/messages",
        chat.hamlet,
        type="stream",
        to="Verona",
        topic="t",
        content="Hi @**Cordelia, Lear's daughter**, and @_**Iago** quietly",
    )
    cordelia = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.cordelia))
    assert cordelia["message"]["flags"] == ["mentioned"]
    assert cordelia["message"]["content"] == (
        f'<p>Hi <span class="user-mention" data-user-id="{chat.cordelia.id}">'
        "@Cordelia, Lear's daughter</span>, and "
        f'<span class="user-mention silent" data-user-id="{chat.iago.id}">Iago</span> quietly</p>'
    )
    iago = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.iago))
    assert iago["message"]["flags"] == []  # silent mentions notify nobody
    body = await api_ok(
        chat,
        "POST",
        "/messages",
        chat.hamlet,
        type="stream",
        to="Verona",
        topic="t",
        content="@**all** lunch?",
    )
    everyone = assert_json_success(await chat.get(f"/messages/{body['id']}", chat.iago))
    assert everyone["message"]["flags"] == ["wildcard_mentioned"]


async def test_render_endpoint(chat: ChatHarness) -> None:
    body = await api_ok(chat, "POST", "/messages/render", chat.hamlet, content="**bold** `code`")
    assert body["rendered"] == "<p><strong>bold</strong> <code>code</code></p>"
    resp = await chat.post("/messages/render", chat.hamlet, content="")
    assert_json_error(resp, "Message must not be empty")
    resp = await chat.post("/messages/render", chat.hamlet)
    assert_json_error(resp, "Missing 'content' argument", code="REQUEST_VARIABLE_MISSING")
    body = await api_ok(
        chat, "POST", "/messages/render", chat.hamlet, content="<script>alert(1)</script>"
    )
    assert "<script" not in body["rendered"]


async def test_math_renders_as_mathml(chat: ChatHarness) -> None:
    body = await api_ok(chat, "POST", "/messages/render", chat.hamlet, content="$$x^2$$")
    assert body["rendered"].startswith('<p><span class="katex">')
    assert "<math" in body["rendered"]


async def test_mentions_read_only_the_users_named(chat: ChatHarness) -> None:
    """A mention reads the users it may name, not the realm's list; matching stays Python's
    case-insensitive one (non-ASCII names, the Kelvin sign), and `|id` and ties behave as before."""
    from atrium.chat.rendering import _mentionable_users

    elodie = await chat.make_user("elodie", full_name="Élodie Durand")
    kelvin = await chat.make_user("kelvin", full_name="\u212aate Kelvin")
    first = await chat.make_user("twin1", full_name="Twin")
    await chat.make_user("twin2", full_name="Twin")
    members = [chat.hamlet, chat.cordelia, chat.iago, elodie, kelvin, first]
    await chat.make_stream("Verona", members)

    def lookup(content: str) -> list[int]:
        users = chat.runtime.db.read_sync(_mentionable_users, chat.realm_id, content)
        return [u.id for u in users]

    # Names holding the Kelvin sign are always read (SQL cannot fold it); no one else is.
    assert set(lookup("@**IAGO** and @_**cordelia, lear's daughter**")) - {kelvin.id} == {
        chat.iago.id,
        chat.cordelia.id,
    }
    assert set(lookup(f"@**Hamlet|{chat.hamlet.id}**")) - {kelvin.id} == {chat.hamlet.id}
    assert lookup("an e-mail: someone@example.com") == []
    # Python folds the Kelvin sign to an ASCII "k", which SQL's lower() does not.
    assert kelvin.id in lookup("@**kate kelvin**")

    async def flags_of(content: str, reader: object) -> list[str]:
        body = await api_ok(
            chat,
            "POST",
            "/messages",
            chat.hamlet,
            type="stream",
            to="Verona",
            topic="t",
            content=content,
        )
        message = assert_json_success(await chat.get(f"/messages/{body['id']}", reader))
        return message["message"]["flags"]  # type: ignore[no-any-return]

    assert await flags_of("Salut @**élodie durand**", elodie) == ["mentioned"]
    assert await flags_of("hi @**kate kelvin**", kelvin) == ["mentioned"]
    # Two users with one name: the first one wins, as in Zulip.
    assert await flags_of("hi @**twin**", first) == ["mentioned"]
    assert await flags_of("hi @**IAGO**", chat.iago) == ["mentioned"]
    assert await flags_of("hi @**nobody at all**", chat.iago) == []
