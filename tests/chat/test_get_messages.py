"""GET /messages and GET /messages/{id}: anchors, windows, found_*, narrows, and access rules."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
)

pytestmark = pytest.mark.anyio

NEWEST = 10_000_000_000_000_000


def topic_narrow(stream: str, topic: str) -> list[dict[str, str]]:
    return [{"operator": "stream", "operand": stream}, {"operator": "topic", "operand": topic}]


async def fetch(chat: ChatHarness, user: Member, **params: Any) -> dict[str, Any]:
    return await api_ok(chat, "GET", "/messages", user, **params)


async def test_newest_window_of_a_topic(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(5)]
    await chat.send_stream(chat.hamlet, "Verona", "other", "elsewhere")
    body = await fetch(
        chat,
        chat.cordelia,
        anchor="newest",
        num_before=3,
        num_after=0,
        narrow=topic_narrow("Verona", "t"),
    )
    assert [m["id"] for m in body["messages"]] == ids[-3:]
    assert body["anchor"] == NEWEST
    assert body["found_anchor"] is False
    assert body["found_newest"] is True
    assert body["found_oldest"] is False
    assert body["history_limited"] is False
    message = body["messages"][-1]
    assert message["subject"] == "t"
    assert message["type"] == "stream"
    assert message["display_recipient"] == "Verona"
    assert message["sender_email"] == chat.hamlet.email
    assert message["sender_full_name"] == "King Hamlet"
    assert message["content_type"] == "text/html"
    assert message["flags"] == []
    for key in (
        "recipient_id",
        "timestamp",
        "client",
        "topic_links",
        "reactions",
        "submessages",
        "is_me_message",
        "sender_realm_str",
        "avatar_url",
        "stream_id",
    ):
        assert key in message


async def test_topic_is_case_insensitive(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    mid = await chat.send_stream(chat.hamlet, "Verona", "Lunch", "x")
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="oldest",
        num_before=0,
        num_after=10,
        narrow=topic_narrow("verona", "LUNCH"),
    )
    assert [m["id"] for m in body["messages"]] == [mid]
    assert body["found_oldest"] is True


async def test_anchor_ids_and_include_anchor(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    ids = [await chat.send_stream(chat.hamlet, "Verona", "t", f"m{i}") for i in range(7)]
    narrow = topic_narrow("Verona", "t")
    body = await fetch(chat, chat.hamlet, anchor=ids[3], num_before=2, num_after=2, narrow=narrow)
    assert [m["id"] for m in body["messages"]] == ids[1:6]
    assert body["found_anchor"] is True
    assert body["found_oldest"] is False and body["found_newest"] is False
    body = await fetch(
        chat,
        chat.hamlet,
        anchor=ids[3],
        num_before=0,
        num_after=2,
        include_anchor=False,
        narrow=narrow,
    )
    assert [m["id"] for m in body["messages"]] == ids[4:6]
    body = await fetch(chat, chat.hamlet, anchor=ids[3], num_before=10, num_after=10, narrow=narrow)
    assert [m["id"] for m in body["messages"]] == ids
    assert body["found_oldest"] is True and body["found_newest"] is True
    body = await fetch(
        chat, chat.hamlet, anchor=str(ids[3]), num_before=0, num_after=0, narrow=narrow
    )
    assert [m["id"] for m in body["messages"]] == [ids[3]]


async def test_first_unread_anchor(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    first = await chat.send_stream(chat.cordelia, "Verona", "t", "unread for hamlet")
    await chat.send_stream(chat.cordelia, "Verona", "t", "also unread")
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="first_unread",
        num_before=1,
        num_after=1,
        narrow=[["stream", "Verona"]],
    )
    assert body["anchor"] == first
    assert body["found_anchor"] is True
    # Everything read (cordelia sent them all): first_unread means newest.
    body = await fetch(chat, chat.cordelia, anchor="first_unread", num_before=1, num_after=1)
    assert body["anchor"] == NEWEST


async def test_anchor_and_size_errors(chat: ChatHarness) -> None:
    resp = await chat.get("/messages", chat.hamlet, anchor="sideways", num_before=1, num_after=0)
    assert_json_error(resp, "Invalid anchor")
    resp = await chat.get("/messages", chat.hamlet, num_before=1, num_after=0)
    assert_json_error(resp, "Missing 'anchor' argument.")
    resp = await chat.get("/messages", chat.hamlet, anchor="newest", num_before=5001, num_after=0)
    assert_json_error(resp, "Too many messages requested (maximum 5000).")
    resp = await chat.get(
        "/messages",
        chat.hamlet,
        anchor="newest",
        num_before=1,
        num_after=0,
        narrow=[{"operator": "bogus", "operand": "x"}],
    )
    body = assert_json_error(
        resp, "Invalid narrow operator: unknown operator bogus", code="BAD_NARROW"
    )
    assert body["desc"] == "unknown operator bogus"
    resp = await chat.get(
        "/messages",
        chat.hamlet,
        anchor="newest",
        num_before=1,
        num_after=0,
        narrow=[["stream", "nowhere"]],
    )
    assert_json_error(resp, "Invalid narrow operator: unknown stream nowhere", code="BAD_NARROW")
    resp = await chat.get(
        "/messages",
        chat.hamlet,
        anchor="newest",
        num_before=1,
        num_after=0,
        narrow=[["stream", "x"], ["dm", "a@b.c"]],
    )
    assert_json_error(resp, "No message can be both a stream and a DM message", code="BAD_NARROW")


async def test_history_of_public_stream_is_historical(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "before cordelia")
    body = await fetch(
        chat,
        chat.cordelia,
        anchor="newest",
        num_before=5,
        num_after=0,
        narrow=[["stream", "Verona"]],
    )
    assert [m["id"] for m in body["messages"]] == [mid]
    assert body["messages"][0]["flags"] == ["read", "historical"]
    single = await api_ok(chat, "GET", f"/messages/{mid}", chat.cordelia)
    assert single["message"]["flags"] == ["read", "historical"]
    # Without a stream narrow only received messages are searched.
    body = await fetch(chat, chat.cordelia, anchor="newest", num_before=5, num_after=0)
    assert body["messages"] == []


async def test_private_stream_never_leaks(chat: ChatHarness) -> None:
    await chat.make_stream("secret", [chat.iago], invite_only=True)
    mid = await chat.send_stream(chat.iago, "secret", "plans", "classified")
    for user in (chat.hamlet, chat.polonius, chat.desdemona):
        resp = await chat.get(f"/messages/{mid}", user)
        assert_json_error(resp, "Invalid message(s)")
        body = await fetch(
            chat, user, anchor="newest", num_before=10, num_after=0, narrow=[["stream", "secret"]]
        )
        assert body["messages"] == []
        body = await fetch(
            chat,
            user,
            anchor="newest",
            num_before=10,
            num_after=0,
            narrow=[{"operator": "search", "operand": "classified"}],
        )
        assert body["messages"] == []


async def test_protected_history_hides_messages_before_joining(chat: ChatHarness) -> None:
    await chat.make_stream(
        "vault", [chat.iago], invite_only=True, history_public_to_subscribers=False
    )
    old = await chat.send_stream(chat.iago, "vault", "t", "before")
    await chat.subscribe(chat.hamlet, "vault", by=chat.iago)
    new = await chat.send_stream(chat.iago, "vault", "t", "after")
    body = await fetch(
        chat, chat.hamlet, anchor="newest", num_before=10, num_after=0, narrow=[["stream", "vault"]]
    )
    assert [m["id"] for m in body["messages"]] == [new]
    assert_json_error(await chat.get(f"/messages/{old}", chat.hamlet), "Invalid message(s)")


async def test_dm_narrows(chat: ChatHarness) -> None:
    a = await chat.send_dm(chat.hamlet, [chat.cordelia], "1:1")
    b = await chat.send_dm(chat.cordelia, [chat.hamlet], "reply")
    g = await chat.send_dm(chat.hamlet, [chat.cordelia, chat.iago], "group")
    await chat.send_dm(chat.iago, [chat.desdemona], "not for hamlet")
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "dm", "operand": [chat.cordelia.id]}],
    )
    assert [m["id"] for m in body["messages"]] == [a, b]
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "dm", "operand": f"{chat.cordelia.email},{chat.iago.email}"}],
    )
    assert [m["id"] for m in body["messages"]] == [g]
    names = [r["email"] for r in body["messages"][0]["display_recipient"]]
    assert sorted(names) == sorted([chat.hamlet.email, chat.cordelia.email, chat.iago.email])
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "is", "operand": "dm"}],
    )
    assert [m["id"] for m in body["messages"]] == [a, b, g]
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "pm-with", "operand": chat.cordelia.email}],
    )
    assert [m["id"] for m in body["messages"]] == [a, b]


async def test_sender_narrow_and_negation(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    h = await chat.send_stream(chat.hamlet, "Verona", "t", "from hamlet")
    c = await chat.send_stream(chat.cordelia, "Verona", "t", "from cordelia")
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "sender", "operand": chat.cordelia.email}],
    )
    assert [m["id"] for m in body["messages"]] == [c]
    body = await fetch(
        chat,
        chat.hamlet,
        anchor="newest",
        num_before=10,
        num_after=0,
        narrow=[{"operator": "sender", "operand": chat.cordelia.id, "negated": True}],
    )
    assert [m["id"] for m in body["messages"]] == [h]


async def test_raw_content_with_apply_markdown_false(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    await chat.send_stream(chat.hamlet, "Verona", "t", "**bold**")
    body = await fetch(
        chat, chat.hamlet, anchor="newest", num_before=1, num_after=0, apply_markdown=False
    )
    assert body["messages"][0]["content"] == "**bold**"
    assert body["messages"][0]["content_type"] == "text/x-markdown"


async def test_cached_message_objects_follow_edits_renames_and_options(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "**first**")
    await chat.send_dm(chat.hamlet, [chat.cordelia], "a dm")
    narrow = [["stream", "Verona"]]

    async def newest(**params: Any) -> dict[str, Any]:
        body = await fetch(
            chat, chat.cordelia, anchor="newest", num_before=5, num_after=0, narrow=narrow, **params
        )
        message: dict[str, Any] = body["messages"][-1]
        return message

    assert (await newest())["content"] == "<p><strong>first</strong></p>"
    assert (await newest(apply_markdown=False))["content"] == "**first**"
    assert_json_success(await chat.patch(f"/messages/{mid}", chat.hamlet, content="*second*"))
    edited = await newest()
    assert edited["content"] == "<p><em>second</em></p>"
    assert "last_edit_timestamp" in edited
    assert (await newest(apply_markdown=False))["content"] == "*second*"
    assert_json_success(await chat.patch("/settings", chat.hamlet, full_name="Prince Hamlet"))
    assert (await newest())["sender_full_name"] == "Prince Hamlet"
    assert (await newest(client_gravatar=False))["avatar_url"].startswith("https://")
    assert (await newest(client_gravatar=True))["avatar_url"] is None


async def test_cached_message_objects_follow_each_readers_flags(chat: ChatHarness) -> None:
    """The cache keys objects by message version and the reader's flags: a change of flags is a
    new entry, and two readers with different flags each see their own."""
    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia, chat.iago])
    mid = await chat.send_stream(chat.hamlet, "Verona", "t", "hello")
    narrow = [["stream", "Verona"], ["topic", "t"]]

    async def flags_of(user: Member) -> list[str]:
        body = await fetch(chat, user, anchor="newest", num_before=1, num_after=0, narrow=narrow)
        [message] = body["messages"]
        assert message["id"] == mid and message["content"] == "<p>hello</p>"
        found: list[str] = message["flags"]
        return found

    assert await flags_of(chat.cordelia) == []
    assert await flags_of(chat.iago) == []
    assert_json_success(
        await chat.post(
            "/messages/flags", chat.cordelia, messages=f"[{mid}]", op="add", flag="starred"
        )
    )
    assert await flags_of(chat.cordelia) == ["starred"]
    assert await flags_of(chat.iago) == []
    assert_json_success(
        await chat.post(
            "/messages/flags", chat.cordelia, messages=f"[{mid}]", op="remove", flag="starred"
        )
    )
    assert await flags_of(chat.cordelia) == []
    assert await flags_of(chat.hamlet) == ["read"]


async def test_cached_path_equals_the_plain_message_objects(chat: ChatHarness) -> None:
    from atrium.chat.narrow import parse_narrow
    from atrium.chat.queries.messages import message_dicts, messages_fragment, window_rows

    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    for i in range(5):
        await chat.send_stream(chat.hamlet, "Verona", f"t{i % 2}", f"message {i} @**King Hamlet**")
    await chat.send_dm(chat.cordelia, [chat.hamlet, chat.iago], "group dm")
    await chat.send_dm(chat.cordelia, [chat.hamlet], "1:1 dm")
    me = await chat.acting(chat.hamlet)

    def both(conn: Any, terms: Any, apply_markdown: bool) -> tuple[list[Any], list[Any]]:
        light = window_rows(conn, me, terms, "newest", 20, 0, True, light=True).rows
        full = window_rows(conn, me, terms, "newest", 20, 0, True).rows
        fragments = messages_fragment(
            conn, me, light, apply_markdown=apply_markdown, client_gravatar=True
        )
        plain = message_dicts(conn, me, full, apply_markdown=apply_markdown, client_gravatar=True)
        return orjson.loads(orjson.dumps(fragments)), plain

    for narrow in ([], [["stream", "Verona"]], [["is", "dm"]]):
        for apply_markdown in (True, False):
            cached, plain = await chat.runtime.db.read(both, parse_narrow(narrow), apply_markdown)
            assert len(cached) == len(plain) > 0
            assert cached == plain


async def test_senders_and_linkifiers_follow_any_writer(chat: ChatHarness) -> None:
    """Fetches keep senders and linkifiers for one `message_display_version` of the realm,
    which triggers bump whoever writes: here raw SQL, as another worker or the CLI would."""
    import sqlalchemy as sa

    from atrium.chat import schema

    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await chat.send_stream(chat.hamlet, "Verona", "issue #12", "x")
    user = schema.user.c

    async def newest() -> dict[str, Any]:
        body = await fetch(chat, chat.cordelia, anchor="newest", num_before=1, num_after=0)
        message: dict[str, Any] = body["messages"][0]
        return message

    async def write(statement: Any) -> None:
        await chat.runtime.db.write(lambda conn: conn.execute(statement))

    first = await newest()
    assert first["sender_full_name"] == "King Hamlet" and first["topic_links"] == []
    await write(
        sa.update(schema.user)
        .where(user.id == chat.hamlet.id)
        .values(full_name="Prince Hamlet", email="prince@zulip.test")
    )
    renamed = await newest()
    assert renamed["sender_full_name"] == "Prince Hamlet"
    assert renamed["sender_email"] == "prince@zulip.test"
    await write(
        sa.update(schema.user)
        .where(user.id == chat.hamlet.id)
        .values(avatar_source="U", avatar_version=7)
    )
    assert (await newest())["avatar_url"].endswith("?version=7")
    await write(
        sa.insert(schema.realm_filter).values(
            realm_id=chat.realm_id, pattern="#(?P<id>[0-9]+)", url_template="https://t.test/{id}"
        )
    )
    assert (await newest())["topic_links"] == [{"text": "#12", "url": "https://t.test/12"}]
    await write(sa.update(schema.realm_filter).values(url_template="https://u.test/{id}"))
    assert (await newest())["topic_links"] == [{"text": "#12", "url": "https://u.test/12"}]
    await write(sa.delete(schema.realm_filter))
    assert (await newest())["topic_links"] == []


async def test_a_rolled_back_write_leaves_nothing_in_the_fetch_caches(chat: ChatHarness) -> None:
    """A write that reads message objects and then fails must not leave what it read (data that
    never existed) where fetches find it: writes do not share the database's caches."""
    import sqlalchemy as sa

    from atrium.chat import schema
    from atrium.chat.narrow import parse_narrow
    from atrium.chat.queries.messages import messages_fragment, window_rows

    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await chat.send_stream(chat.hamlet, "Verona", "t", "x")
    me = await chat.acting(chat.cordelia)

    def rename_read_and_fail(conn: Any) -> None:
        conn.execute(
            sa.update(schema.user)
            .where(schema.user.c.id == chat.hamlet.id)
            .values(full_name="Never Committed")
        )
        rows = window_rows(conn, me, parse_narrow([]), "newest", 1, 0, True, light=True).rows
        seen = orjson.loads(
            orjson.dumps(
                messages_fragment(conn, me, rows, apply_markdown=True, client_gravatar=True)
            )
        )
        assert seen[0]["sender_full_name"] == "Never Committed"
        raise RuntimeError("the write fails after reading")

    with pytest.raises(RuntimeError):
        await chat.runtime.db.write(rename_read_and_fail)
    # The next committed change takes the version the failed write had seen.
    assert_json_success(await chat.patch("/settings", chat.hamlet, full_name="Prince Hamlet"))
    body = await fetch(chat, chat.cordelia, anchor="newest", num_before=1, num_after=0)
    assert body["messages"][0]["sender_full_name"] == "Prince Hamlet"


async def test_topic_links_follow_the_realm_linkifiers(chat: ChatHarness) -> None:
    from tests.chat.conftest import listen

    await chat.make_stream("Verona", [chat.hamlet, chat.cordelia])
    await chat.send_stream(chat.hamlet, "Verona", "issue #123 see https://example.com", "x")
    body = await fetch(chat, chat.cordelia, anchor="newest", num_before=1, num_after=0)
    assert body["messages"][0]["topic_links"] == [
        {"text": "https://example.com", "url": "https://example.com"}
    ]
    assert_json_success(
        await chat.post(
            "/realm/filters",
            chat.iago,
            pattern="#(?P<id>[0-9]+)",
            url_template="https://tracker.example/{id}",
        )
    )
    body = await fetch(chat, chat.cordelia, anchor="newest", num_before=1, num_after=0)
    assert body["messages"][0]["topic_links"] == [
        {"text": "#123", "url": "https://tracker.example/123"},
        {"text": "https://example.com", "url": "https://example.com"},
    ]
    queue = await listen(chat, chat.cordelia, ["message"])
    await chat.send_stream(chat.hamlet, "Verona", "fix #7", "y")
    [event] = await queue.events()
    assert event["message"]["topic_links"] == [{"text": "#7", "url": "https://tracker.example/7"}]


async def test_use_first_unread_anchor_overrides_anchor(chat: ChatHarness) -> None:
    # zulip-terminal sends anchor=0 with the legacy flag and expects the first unread message.
    await chat.make_stream("lobby", [chat.hamlet, chat.cordelia])
    read = await chat.send_stream(chat.cordelia, "lobby", "t", "seen")
    await api_ok(
        chat, "POST", "/messages/flags", chat.hamlet, messages=[read], op="add", flag="read"
    )
    unread = await chat.send_stream(chat.cordelia, "lobby", "t", "not yet")
    body = await api_ok(
        chat,
        "GET",
        "/messages",
        chat.hamlet,
        anchor=0,
        use_first_unread_anchor=True,
        num_before=5,
        num_after=5,
    )
    assert body["anchor"] == unread and body["found_anchor"] is True
