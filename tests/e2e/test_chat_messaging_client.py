"""Messaging through the official `zulip` client against a real `atrium serve`: edits and
moves, deletion, personal flags, the narrow language (search included), edit history, muted
topics, and `call_endpoint` for drafts, scheduled messages and flags/narrow."""

from __future__ import annotations

import time
from typing import Any

import pytest
import zulip

from tests.e2e.conftest import LiveChat

pytestmark = pytest.mark.e2e


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["result"] == "success", result
    return result


def newest(client: zulip.Client, narrow: list[Any], n: int = 20) -> list[dict[str, Any]]:
    found = ok(
        client.get_messages({"anchor": "newest", "num_before": n, "num_after": 0, "narrow": narrow})
    )
    messages: list[dict[str, Any]] = found["messages"]
    return messages


def ids_in(client: zulip.Client, narrow: list[Any]) -> list[int]:
    return [m["id"] for m in newest(client, narrow)]


def human_ids(client: zulip.Client, narrow: list[Any]) -> list[int]:
    """Ids of the messages people sent (not the notification bot's breadcrumbs)."""
    people = {"owner@live.test", "member@live.test"}
    return [m["id"] for m in newest(client, narrow) if m["sender_email"] in people]


def setup_streams(live: LiveChat) -> dict[str, int]:
    owner = live.owner
    for name in ("general", "elsewhere"):
        ok(
            owner.add_subscriptions(
                streams=[{"name": name}], principals=["owner@live.test", live.member_email]
            )
        )
    return {name: ok(owner.get_stream_id(name))["stream_id"] for name in ("general", "elsewhere")}


def send(client: zulip.Client, stream: str, topic: str, content: str) -> int:
    return int(
        ok(
            client.send_message(
                {"type": "stream", "to": stream, "topic": topic, "content": content}
            )
        )["id"]
    )


def test_edit_move_resolve_history_and_delete(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    streams = setup_streams(live_chat_module)
    first = send(member, "general", "plans", "hello old world")
    later = [send(member, "general", "plans", f"plan {i}") for i in range(3)]

    # A content edit, then its history as Zulip's snapshots.
    ok(member.update_message({"message_id": first, "content": "hello new world"}))
    assert ok(member.get_raw_message(first))["raw_content"] == "hello new world"
    history = ok(member.get_message_history(first))["message_history"]
    assert [h["content"] for h in history] == ["hello old world", "hello new world"]
    assert history[1]["prev_content"] == "hello old world"
    assert 'class="highlight_text_inserted"' in history[1]["content_html_diff"]

    # Someone else's content may not be edited; a direct message has no topic.
    refused = owner.update_message({"message_id": first, "content": "mine now"})
    assert (
        refused["result"] == "error"
        and refused["msg"] == "You don't have permission to edit this message"
    )
    dm = ok(
        owner.send_message(
            {"type": "private", "to": [live_chat_module.member_email], "content": "psst"}
        )
    )["id"]
    refused = owner.update_message({"message_id": dm, "topic": "nope"})
    assert refused["msg"] == "Direct messages cannot have topics."
    refused = member.update_message(
        {"message_id": first, "propagate_mode": "change_all", "content": "x"}
    )
    assert refused["msg"] == "Invalid propagate_mode without topic edit"

    # Topic moves: change_later from the second message, then change_all back.
    ok(
        member.update_message(
            {"message_id": later[0], "topic": "schemes", "propagate_mode": "change_later"}
        )
    )
    assert human_ids(member, [["stream", "general"], ["topic", "schemes"]]) == later
    breadcrumb = newest(member, [["stream", "general"], ["topic", "schemes"]])[-1]
    assert breadcrumb["content"].startswith("<p>3 messages were moved here from")
    assert ids_in(member, [["stream", "general"], ["topic", "plans"]]) == [first]
    ok(
        owner.update_message(
            {"message_id": later[1], "subject": "plans", "propagate_mode": "change_all"}
        )
    )
    assert human_ids(member, [["stream", "general"], ["topic", "plans"]]) == [first, *later]

    # Resolving: the check mark, and the notification bot says so in the thread.
    ok(
        member.update_message(
            {"message_id": first, "topic": "✔ plans", "propagate_mode": "change_all"}
        )
    )
    resolved = newest(member, [["stream", "general"], ["topic", "✔ plans"]])
    assert [m["id"] for m in resolved[:4]] == [first, *later]
    assert "has marked this topic as resolved." in resolved[-1]["content"]
    assert resolved[-1]["sender_email"] != live_chat_module.member_email
    assert ids_in(member, [["is", "resolved"]])[:4] == [first, *later]

    # A stream move with the client's own helper, breadcrumbs in both threads.
    ok(
        owner.move_topic(
            "general", "elsewhere", "✔ plans", new_topic="moved plans", notify_old_topic=True
        )
    )
    by_id = {"operator": "stream", "operand": streams["elsewhere"]}
    moved = newest(member, [by_id, {"operator": "topic", "operand": "moved plans"}])
    assert [m["id"] for m in moved[:4]] == [first, *later]
    assert "This topic was moved here from" in moved[-1]["content"]
    old_thread = newest(member, [["stream", "general"], ["topic", "✔ plans"]])
    assert "This topic was moved to" in old_thread[-1]["content"]
    history = ok(member.get_message_history(later[2]))["message_history"]
    assert history[-1]["prev_stream"] == streams["general"]
    assert history[-1]["stream"] == streams["elsewhere"]

    # Deletion: the sender within the limits, nobody else but administrators.
    assert member.delete_message(dm)["msg"] == "You don't have permission to delete this message"
    ok(member.delete_message(later[2]))
    assert member.get_raw_message(later[2])["msg"] == "Invalid message(s)"
    ok(owner.delete_message(dm))


def test_flags_narrows_search_and_muted_topics(live_chat: LiveChat) -> None:
    owner, member = live_chat.owner, live_chat.member
    streams = setup_streams(live_chat)
    deploy = [send(owner, "general", "deploy", f"we deploy build {i} today") for i in range(3)]
    lunch = send(owner, "general", "lunch", "pizza at noon")
    other = send(owner, "elsewhere", "misc", "nothing to see")
    dm = ok(
        owner.send_message({"type": "private", "to": [live_chat.member_email], "content": "hi"})
    )["id"]
    everything = [*deploy, lunch, other, dm]

    assert ids_in(member, [["is", "unread"]]) == everything
    assert ids_in(member, [["is", "dm"]]) == [dm]
    assert ids_in(member, [{"operator": "stream", "operand": "general", "negated": True}]) == [
        other,
        dm,
    ]
    assert ids_in(member, [["sender", "owner@live.test"], ["topic", "LUNCH"]]) == [lunch]
    assert ids_in(member, [{"operator": "search", "operand": "deploying"}]) == deploy  # stemmed
    found = newest(member, [{"operator": "search", "operand": "deploy"}])
    assert [m["id"] for m in found] == deploy
    assert '<span class="highlight">deploy</span>' in found[0]["match_content"]
    bad = member.get_messages(
        {"anchor": "newest", "num_before": 1, "num_after": 0, "narrow": [["bogus", "x"]]}
    )
    assert bad["result"] == "error" and bad["code"] == "BAD_NARROW"
    matches = ok(
        member.check_messages_match_narrow(
            msg_ids=everything, narrow=[{"operator": "search", "operand": "pizza"}]
        )
    )
    assert list(matches["messages"]) == [str(lunch)]

    # Flags by id: starred (and back), read; only read/starred/collapsed may be changed.
    ok(member.update_message_flags({"messages": deploy[:2], "op": "add", "flag": "starred"}))
    assert ids_in(member, [["is", "starred"]]) == deploy[:2]
    ok(member.update_message_flags({"messages": [deploy[0]], "op": "remove", "flag": "starred"}))
    assert ids_in(member, [["is", "starred"]]) == [deploy[1]]
    refused = member.update_message_flags({"messages": [lunch], "op": "add", "flag": "mentioned"})
    assert refused["msg"] == "Flag not editable: 'mentioned'"
    ok(member.update_message_flags({"messages": [dm], "op": "add", "flag": "read"}))

    # flags/narrow through call_endpoint, with every field of the response.
    marked = ok(
        member.call_endpoint(
            url="messages/flags/narrow",
            method="POST",
            request={
                "anchor": "oldest",
                "num_before": 0,
                "num_after": 2,
                "narrow": [["stream", "general"]],
                "op": "add",
                "flag": "read",
            },
        )
    )
    assert marked["processed_count"] == 2 and marked["updated_count"] == 2
    assert marked["first_processed_id"] == deploy[0] and marked["last_processed_id"] == deploy[1]
    assert marked["found_oldest"] is True and marked["found_newest"] is False
    assert ids_in(member, [["is", "unread"]]) == [deploy[2], lunch, other]

    # Muted topics: the legacy endpoint and POST /user_topics; first_unread and in:home skip them.
    ok(member.mute_topic({"stream": "general", "topic": "deploy", "op": "add"}))
    state = ok(member.register(event_types=["user_topic"], fetch_event_types=["user_topic"]))
    assert [
        (t["stream_id"], t["topic_name"], t["visibility_policy"]) for t in state["user_topics"]
    ] == [(streams["general"], "deploy", 1)]
    first_unread = ok(
        member.get_messages(
            {"anchor": "first_unread", "num_before": 0, "num_after": 0, "narrow": []}
        )
    )
    assert first_unread["anchor"] == lunch
    assert lunch in ids_in(member, [["in", "home"]]) and deploy[2] not in ids_in(
        member, [["in", "home"]]
    )
    ok(
        member.call_endpoint(
            url="user_topics",
            method="POST",
            request={"stream_id": streams["general"], "topic": "deploy", "visibility_policy": 0},
        )
    )
    first_unread = ok(
        member.get_messages(
            {"anchor": "first_unread", "num_before": 0, "num_after": 0, "narrow": []}
        )
    )
    assert first_unread["anchor"] == deploy[2]

    # The mark-as-read shortcuts.
    ok(member.mark_topic_as_read(streams["general"], "lunch"))
    assert ids_in(member, [["is", "unread"]]) == [deploy[2], other]
    ok(member.mark_stream_as_read(streams["elsewhere"]))
    assert ids_in(member, [["is", "unread"]]) == [deploy[2]]
    ok(member.mark_all_as_read())
    assert ids_in(member, [["is", "unread"]]) == []
    assert member.mark_stream_as_read(99999)["msg"] == "Invalid stream ID"


def test_drafts_and_scheduled_messages_through_call_endpoint(live_chat_module: LiveChat) -> None:
    member = live_chat_module.member
    streams = setup_streams(live_chat_module)

    created = ok(
        member.call_endpoint(
            url="drafts",
            method="POST",
            request={
                "drafts": [
                    {
                        "type": "stream",
                        "to": [streams["general"]],
                        "topic": "t",
                        "content": "draft one",
                    }
                ]
            },
        )
    )
    [draft_id] = created["ids"]
    ok(
        member.call_endpoint(
            url=f"drafts/{draft_id}",
            method="PATCH",
            request={
                "draft": {
                    "type": "",
                    "to": [],
                    "topic": "",
                    "content": "draft two",
                    "timestamp": 1700000000,
                }
            },
        )
    )
    drafts = ok(member.call_endpoint(url="drafts", method="GET"))["drafts"]
    assert [(d["id"], d["content"], d["type"], d["timestamp"]) for d in drafts] == [
        (draft_id, "draft two", "", 1700000000)
    ]
    ok(member.call_endpoint(url=f"drafts/{draft_id}", method="DELETE"))
    missing = member.call_endpoint(url=f"drafts/{draft_id}", method="DELETE")
    assert (
        missing["result"] == "error"
        and missing["msg"] == "Draft does not exist"
        and missing["code"] == "BAD_REQUEST"
    )

    later = int(time.time()) + 3600
    scheduled = ok(
        member.call_endpoint(
            url="scheduled_messages",
            method="POST",
            request={
                "type": "stream",
                "to": streams["general"],
                "topic": "later",
                "content": "in an hour",
                "scheduled_delivery_timestamp": later,
            },
        )
    )
    sid = scheduled["scheduled_message_id"]
    ok(
        member.call_endpoint(
            url=f"scheduled_messages/{sid}",
            method="PATCH",
            request={"content": "in an hour, edited"},
        )
    )
    listed = ok(member.call_endpoint(url="scheduled_messages", method="GET"))["scheduled_messages"]
    assert [
        (s["scheduled_message_id"], s["content"], s["scheduled_delivery_timestamp"]) for s in listed
    ] == [(sid, "in an hour, edited", later)]
    past = member.call_endpoint(
        url="scheduled_messages",
        method="POST",
        request={
            "type": "stream",
            "to": streams["general"],
            "topic": "t",
            "content": "x",
            "scheduled_delivery_timestamp": int(time.time()) - 10,
        },
    )
    assert (
        past["result"] == "error"
        and past["msg"] == "Scheduled delivery time must be in the future."
    )
    gone = member.call_endpoint(
        url="scheduled_messages",
        method="POST",
        request={
            "type": "stream",
            "to": 99999,
            "topic": "t",
            "content": "x",
            "scheduled_delivery_timestamp": later,
        },
    )
    assert gone["code"] == "STREAM_DOES_NOT_EXIST" and gone["stream_id"] == 99999
    ok(member.call_endpoint(url=f"scheduled_messages/{sid}", method="DELETE"))

    # The server's own delivery task sends a message due in two seconds.
    soon = ok(
        member.call_endpoint(
            url="scheduled_messages",
            method="POST",
            request={
                "type": "stream",
                "to": streams["general"],
                "topic": "soon",
                "content": "delivered",
                "scheduled_delivery_timestamp": int(time.time()) + 2,
            },
        )
    )
    deadline = time.monotonic() + 30
    delivered: list[dict[str, Any]] = []
    while not delivered and time.monotonic() < deadline:
        delivered = newest(member, [["stream", "general"], ["topic", "soon"]])
        if not delivered:
            time.sleep(0.2)
    assert [m["content"] for m in delivered] == ["<p>delivered</p>"]
    remaining = ok(member.call_endpoint(url="scheduled_messages", method="GET"))[
        "scheduled_messages"
    ]
    assert soon["scheduled_message_id"] not in [s["scheduled_message_id"] for s in remaining]
