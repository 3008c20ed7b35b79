"""The leak walk: every chat read path, as every kind of viewer, shows nothing hidden from them.

Hidden things, each marked by a unique string:
- a private stream (iago and hamlet subscribed): its name and description (hidden from members
  and guests; administrators may know them), its topic and messages (hidden from everyone not
  subscribed, the owner included);
- a public stream a guest is not subscribed to: name, topic and messages (hidden from guests);
- other users' drafts and scheduled messages, and other users' direct messages.

`READ_PATHS` is the walk: one row per request that could show one of them. A new endpoint's read
path joins the walk as one more row; `{placeholders}` are filled from the setup's ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.chat.conftest import ChatHarness, Member, assert_json_success

pytestmark = pytest.mark.anyio

PRIVATE_NAME = "ultrasecret-qz7"
PRIVATE_DESCRIPTION = "description-qz7-hush"
PRIVATE_TOPIC = "topic-qz7-hush"
PRIVATE_CONTENT = "content-qz7-hush"
PUBLIC_NAME = "openpub-qz7"
PUBLIC_TOPIC = "pubtopic-qz7"
PUBLIC_CONTENT = "pubcontent-qz7"
DRAFT = "draft-qz7-mine"
SCHEDULED = "scheduled-qz7-mine"
DM = "dm-qz7-between-others"

WINDOW = {"anchor": "newest", "num_before": 100, "num_after": 0}


def narrow(*terms: tuple[str, Any]) -> dict[str, Any]:
    return {**WINDOW, "narrow": [{"operator": op, "operand": operand} for op, operand in terms]}


# (method, path, params): every request that could show a hidden thing.
READ_PATHS: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/streams", {}),
    ("GET", "/streams", {"include_public": True, "include_subscribed": True}),
    ("GET", "/streams", {"include_all_active": True}),
    ("GET", "/streams", {"include_web_public": True, "include_default": True}),
    ("GET", "/streams/{private_stream}", {}),
    ("GET", "/streams/{private_stream}/members", {}),
    ("GET", "/streams/{public_stream}", {}),
    ("GET", "/streams/{public_stream}/members", {}),
    ("GET", "/get_stream_id", {"stream": PRIVATE_NAME}),
    ("GET", "/get_stream_id", {"stream": PUBLIC_NAME}),
    ("GET", "/users/me/subscriptions", {"include_subscribers": True}),
    ("GET", "/users", {}),
    ("GET", "/users/me", {}),
    ("GET", "/users/{hamlet}", {}),
    ("GET", "/user_groups", {}),
    ("GET", "/realm/linkifiers", {}),
    ("GET", "/server_settings", {}),
    ("GET", "/drafts", {}),
    ("GET", "/scheduled_messages", {}),
    ("POST", "/register", {}),
    ("POST", "/register", {"event_types": ["message", "stream", "subscription", "drafts"]}),
    ("GET", "/messages", WINDOW),
    ("GET", "/messages", narrow(("stream", PRIVATE_NAME))),
    ("GET", "/messages", narrow(("stream", "{private_stream}"))),
    ("GET", "/messages", narrow(("stream", PUBLIC_NAME))),
    ("GET", "/messages", narrow(("streams", "public"))),
    ("GET", "/messages", narrow(("search", "qz7"))),
    ("GET", "/messages", narrow(("topic", PRIVATE_TOPIC))),
    ("GET", "/messages", narrow(("id", "{private_message}"))),
    ("GET", "/messages", narrow(("near", "{private_message}"))),
    ("GET", "/messages", narrow(("sender", "{iago}"))),
    ("GET", "/messages", narrow(("dm", "{cordelia}"))),
    ("GET", "/messages", narrow(("is", "dm"))),
    ("GET", "/messages", {**WINDOW, "anchor": "{private_message}"}),
    ("GET", "/messages/{private_message}", {}),
    ("GET", "/messages/{private_message}/history", {}),
    ("GET", "/messages/{public_message}", {}),
    ("GET", "/messages/{public_message}/history", {}),
    ("GET", "/messages/{dm_message}", {}),
    ("GET", "/messages/{dm_message}/history", {}),
    (
        "GET",
        "/messages/matches_narrow",
        {"msg_ids": "{all_messages}", "narrow": [{"operator": "search", "operand": "qz7"}]},
    ),
    # Refused writes must not echo what they touched.
    (
        "POST",
        "/messages",
        {"type": "stream", "to": "{private_stream}", "topic": "t", "content": "x"},
    ),
    (
        "POST",
        "/messages",
        {"type": "stream", "to": "{public_stream}", "topic": "t", "content": "x"},
    ),
    (
        "POST",
        "/scheduled_messages",
        {
            "type": "stream",
            "to": "{private_stream}",
            "topic": "t",
            "content": "x",
            "scheduled_delivery_timestamp": 4_000_000_000,
        },
    ),
    ("PATCH", "/messages/{private_message}", {"content": "overwritten"}),
    ("PATCH", "/messages/{private_message}", {"topic": "moved"}),
    ("PATCH", "/messages/{dm_message}", {"content": "overwritten"}),
    (
        "POST",
        "/messages/flags",
        {"messages": "{all_messages}", "op": "add", "flag": "starred"},
    ),
    ("POST", "/mark_stream_as_read", {"stream_id": "{private_stream}"}),
    (
        "PATCH",
        "/drafts/{others_draft}",
        {"draft": {"type": "", "to": [], "topic": "", "content": "z"}},
    ),
    ("PATCH", "/scheduled_messages/{others_scheduled}", {"content": "overwritten"}),
    ("GET", "/streams/{private_stream}/members", {}),
]


@dataclass
class Viewer:
    member: Member
    # The marker strings this viewer must never see.
    hidden: set[str]
    # Ids the viewer must not see as such in a message list.
    hidden_messages: set[int]


async def _setup(chat: ChatHarness, who: str) -> tuple[Viewer, dict[str, Any]]:
    """The hidden things, and the viewer who must not see them."""
    private = await chat.make_stream(
        PRIVATE_NAME, [chat.iago, chat.hamlet], invite_only=True, creator=chat.iago
    )
    assert_json_success(
        await chat.patch(f"/streams/{private}", chat.iago, description=PRIVATE_DESCRIPTION)
    )
    public = await chat.make_stream(PUBLIC_NAME, [chat.iago, chat.hamlet, chat.desdemona])
    private_message = await chat.send_stream(
        chat.iago, PRIVATE_NAME, PRIVATE_TOPIC, PRIVATE_CONTENT
    )
    public_message = await chat.send_stream(chat.iago, PUBLIC_NAME, PUBLIC_TOPIC, PUBLIC_CONTENT)
    dm_message = await chat.send_dm(chat.iago, [chat.hamlet], DM)
    # Drafts and scheduled messages of someone other than the viewer: iago's.
    draft = {"type": "stream", "to": [private], "topic": PRIVATE_TOPIC, "content": DRAFT}
    body = assert_json_success(await chat.post("/drafts", chat.iago, drafts=[draft]))
    others_draft = body["ids"][0]
    body = assert_json_success(
        await chat.post(
            "/scheduled_messages",
            chat.iago,
            type="stream",
            to=private,
            topic=PRIVATE_TOPIC,
            content=SCHEDULED,
            scheduled_delivery_timestamp=4_000_000_000,
        )
    )
    others_scheduled = body["scheduled_message_id"]
    ids = {
        "private_stream": private,
        "public_stream": public,
        "private_message": private_message,
        "public_message": public_message,
        "dm_message": dm_message,
        "all_messages": [private_message, public_message, dm_message],
        "others_draft": others_draft,
        "others_scheduled": others_scheduled,
        "hamlet": chat.hamlet.id,
        "iago": chat.iago.id,
        "cordelia": chat.cordelia.id,
    }
    private_things = {PRIVATE_TOPIC, PRIVATE_CONTENT, DRAFT, SCHEDULED, DM}
    if who == "owner":  # an administrator knows private streams exist, not their messages
        viewer = Viewer(chat.desdemona, private_things, {private_message, dm_message})
    elif who == "member":
        hidden = private_things | {PRIVATE_NAME, PRIVATE_DESCRIPTION}
        viewer = Viewer(chat.cordelia, hidden, {private_message, dm_message})
    else:
        hidden = private_things | {PRIVATE_NAME, PRIVATE_DESCRIPTION}
        hidden |= {PUBLIC_NAME, PUBLIC_TOPIC, PUBLIC_CONTENT}
        viewer = Viewer(chat.polonius, hidden, {private_message, public_message, dm_message})
    return viewer, ids


def _fill(value: Any, ids: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids.get(value[1:-1], value)
    if isinstance(value, str):
        for key, filled in ids.items():
            value = value.replace("{" + key + "}", str(filled))
        return value
    if isinstance(value, list):
        return [_fill(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    return value


def _leaks(viewer: Viewer, sent: dict[str, Any], resp: Any) -> list[str]:
    text = resp.text
    found = [marker for marker in viewer.hidden if marker in text and marker not in str(sent)]
    body = resp.json()
    messages = body.get("messages")
    if isinstance(messages, list):
        found += [f"message {m['id']}" for m in messages if m["id"] in viewer.hidden_messages]
    if isinstance(messages, dict):  # matches_narrow
        found += [f"match {i}" for i in messages if int(i) in viewer.hidden_messages]
    if isinstance(body.get("message"), dict) and body["message"]["id"] in viewer.hidden_messages:
        found.append(f"message {body['message']['id']}")
    return found


@pytest.mark.parametrize("who", ["owner", "member", "guest"])
async def test_leak_walk(chat: ChatHarness, who: str) -> None:
    viewer, ids = await _setup(chat, who)
    leaks: list[str] = []
    for method, path, params in READ_PATHS:
        concrete_path = _fill(path, ids)
        sent = _fill(params, ids)
        resp = await chat.request(method, concrete_path, viewer.member, sent)
        assert resp.status_code < 500, (method, concrete_path, resp.text)
        for leak in _leaks(viewer, sent, resp):
            leaks.append(f"{method} {concrete_path} {sent}: {leak}")
    assert not leaks, "\n".join(leaks)
    # The refused writes changed nothing.
    drafts = assert_json_success(await chat.get("/drafts", chat.iago))["drafts"]
    assert [d["content"] for d in drafts] == [DRAFT]
    scheduled = assert_json_success(await chat.get("/scheduled_messages", chat.iago))
    assert [m["content"] for m in scheduled["scheduled_messages"]] == [SCHEDULED]
    message = assert_json_success(await chat.get(f"/messages/{ids['private_message']}", chat.iago))
    assert message["raw_content"] == PRIVATE_CONTENT


@pytest.mark.parametrize("who", ["owner", "member", "guest"])
async def test_events_walk(chat: ChatHarness, who: str) -> None:
    """What happens in hidden places after the viewer registered reaches no event of theirs."""
    viewer, ids = await _setup(chat, who)
    queue = assert_json_success(await chat.post("/register", viewer.member))["queue_id"]
    await chat.send_stream(chat.iago, PRIVATE_NAME, PRIVATE_TOPIC, PRIVATE_CONTENT + "-again")
    await chat.send_dm(chat.iago, [chat.hamlet], DM + "-again")
    assert_json_success(
        await chat.patch(
            f"/messages/{ids['private_message']}", chat.iago, content=PRIVATE_CONTENT + "-edit"
        )
    )
    assert_json_success(
        await chat.post(
            "/drafts",
            chat.iago,
            drafts=[{"type": "", "to": [], "topic": "", "content": DRAFT + "-2"}],
        )
    )
    if who == "guest":
        await chat.send_stream(chat.iago, PUBLIC_NAME, PUBLIC_TOPIC, PUBLIC_CONTENT + "-again")
    resp = await chat.get(
        "/events", viewer.member, queue_id=queue, last_event_id=-1, dont_block=True
    )
    body = assert_json_success(resp)
    leaks = [marker for marker in viewer.hidden if marker in resp.text]
    assert not leaks, body["events"]


async def test_the_walk_reaches_what_insiders_see(chat: ChatHarness) -> None:
    """The control: walked by hamlet, who may see the private stream and the DM, the same
    paths show every marker, so the walk's silence for others means something."""
    viewer, ids = await _setup(chat, "member")
    insider = Viewer(chat.hamlet, viewer.hidden - {DRAFT, SCHEDULED}, set())
    seen: set[str] = set()
    for method, path, params in READ_PATHS:
        sent = _fill(params, ids)
        resp = await chat.request(method, _fill(path, ids), insider.member, sent)
        seen |= {marker for marker in insider.hidden if marker in resp.text}
    assert seen == insider.hidden
