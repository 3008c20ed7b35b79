"""Code playgrounds, linkifiers, default streams and PATCH /realm."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_MEMBER
from atrium.chat.queries.default_streams import default_stream_dicts
from atrium.chat.queries.linkifiers import playground_dicts
from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio

ROLE_CELLS = ("polonius", "hamlet", "shiva", "iago", "desdemona", "bot")
ADMINS = {"iago", "desdemona"}


async def actor_for(chat: ChatHarness, who: str):  # type: ignore[no-untyped-def]
    if who == "bot":
        await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=chat.iago)
    return chat.users[who]


# --- Playgrounds ---------------------------------------------------------------------------


async def test_playgrounds(chat: ChatHarness) -> None:
    q = await listen(chat, chat.polonius, ["realm_playgrounds"])
    body = await api_ok(
        chat,
        "POST",
        "/realm/playgrounds",
        chat.iago,
        name=" Python playground ",
        pygments_language="Python",
        url_prefix="https://python.example.com",
    )
    pid = body["id"]
    state = await chat.runtime.db.read(playground_dicts, chat.realm_id)
    assert state == [
        {
            "id": pid,
            "name": "Python playground",
            "pygments_language": "Python",
            "url_prefix": "https://python.example.com",
        }
    ]
    [event] = await q.events()
    assert event["realm_playgrounds"] == state
    await api_ok(chat, "DELETE", f"/realm/playgrounds/{pid}", chat.iago)
    assert await chat.runtime.db.read(playground_dicts, chat.realm_id) == []
    assert [e["realm_playgrounds"] for e in await q.events(last_event_id=event["id"])] == [[]]
    assert_json_error(
        await chat.delete(f"/realm/playgrounds/{pid}", chat.iago), "Invalid playground"
    )


async def test_playground_errors(chat: ChatHarness) -> None:
    good = {"name": "P", "pygments_language": "Python", "url_prefix": "https://p.example.com"}

    async def err(msg: str, **changes: str) -> dict[str, object]:
        resp = await chat.post("/realm/playgrounds", chat.iago, **{**good, **changes})
        return assert_json_error(resp, msg)

    body = await err("Invalid characters in pygments language", pygments_language="py th<on>")
    assert "errors" not in body
    await err("url_prefix is not a URL", url_prefix="https://invalid-url")
    await err("url_prefix is not a URL", url_prefix="javascript:alert(1)")
    await err("pygments_language is too long (limit: 40 characters)", pygments_language="x" * 41)
    resp = await chat.post("/realm/playgrounds", chat.iago, name="P", pygments_language="Python")
    assert_json_error(resp, "Missing 'url_prefix' argument", code="REQUEST_VARIABLE_MISSING")
    assert_json_success(await chat.post("/realm/playgrounds", chat.iago, **good))
    body = await err("Realm playground with this Realm, Pygments language and Name already exists.")
    assert body["errors"] == {
        "__all__": ["Realm playground with this Realm, Pygments language and Name already exists."]
    }
    assert await chat.count(schema.realm_playground) == 1


@pytest.mark.parametrize("who", ROLE_CELLS)
async def test_playground_permission_matrix(chat: ChatHarness, who: str) -> None:
    actor = await actor_for(chat, who)
    resp = await chat.post(
        "/realm/playgrounds",
        actor,
        name="P",
        pygments_language="Python",
        url_prefix="https://p.example.com",
    )
    if who in ADMINS:
        assert_json_success(resp)
        assert await chat.count(schema.realm_playground) == 1
    else:
        assert_json_error(
            resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL"
        )
        assert await chat.count(schema.realm_playground) == 0


# --- Linkifiers ----------------------------------------------------------------------------


async def test_linkifiers_apply_at_once(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    q = await listen(chat, chat.polonius, ["realm_linkifiers"])
    body = await api_ok(
        chat,
        "POST",
        "/realm/filters",
        chat.iago,
        pattern="SMP(?P<id>[0-9]+)",
        url_template="https://tracker.example/{id}",
    )
    fid = body["id"]
    [event] = await q.events()
    assert event["realm_linkifiers"] == [
        {"pattern": "SMP(?P<id>[0-9]+)", "url_template": "https://tracker.example/{id}", "id": fid}
    ]
    body = await api_ok(chat, "GET", "/realm/linkifiers", chat.polonius)
    assert body["linkifiers"] == event["realm_linkifiers"]
    rendered = await api_ok(chat, "POST", "/messages/render", chat.hamlet, content="see SMP12")
    assert 'href="https://tracker.example/12"' in rendered["rendered"]
    await api_ok(
        chat,
        "PATCH",
        f"/realm/filters/{fid}",
        chat.iago,
        pattern="SMP(?P<id>[0-9]+)",
        url_template="https://tracker.example/issue/{id}",
    )
    rendered = await api_ok(chat, "POST", "/messages/render", chat.hamlet, content="see SMP12")
    assert 'href="https://tracker.example/issue/12"' in rendered["rendered"]
    mid = await chat.send_stream(chat.hamlet, "Verona", "SMP7 work", "fixed SMP7")
    message = assert_json_success(await chat.get(f"/messages/{mid}", chat.hamlet))["message"]
    assert 'href="https://tracker.example/issue/7"' in message["content"]
    await api_ok(chat, "DELETE", f"/realm/filters/{fid}", chat.iago)
    rendered = await api_ok(chat, "POST", "/messages/render", chat.hamlet, content="see SMP12")
    assert "href" not in rendered["rendered"]
    assert_json_error(await chat.delete(f"/realm/filters/{fid}", chat.iago), "Linkifier not found.")


async def test_linkifier_validation(chat: ChatHarness) -> None:
    async def err(pattern: str, template: str, msg: str, errors: dict[str, list[str]]) -> None:
        resp = await chat.post("/realm/filters", chat.iago, pattern=pattern, url_template=template)
        body = assert_json_error(resp, msg)
        assert body["errors"] == errors

    await err(
        "SMQ(?P<id>[0-9]+)",
        "https://tracker.example/{nomatch}",
        "Group 'nomatch' in URL template is not present in linkifier pattern.",
        {"__all__": ["Group 'nomatch' in URL template is not present in linkifier pattern."]},
    )
    await err(
        "SMQ(?P<id>[0-9]+)(?P<x>a)",
        "https://tracker.example/{id}",
        "Group 'x' in linkifier pattern is not present in URL template.",
        {"__all__": ["Group 'x' in linkifier pattern is not present in URL template."]},
    )
    await err(
        "SMQ(?P<id>[0-9]+)",
        "https://tracker.example/{id",
        "Invalid URL template.",
        {"url_template": ["Invalid URL template."]},
    )
    resp = await chat.post(
        "/realm/filters", chat.iago, pattern="SMQ(?P<id>[0-9]+", url_template="https://t/{id}"
    )
    body = assert_json_error(resp, resp.json()["msg"])
    assert body["msg"].startswith("Bad regular expression: ")
    assert list(body["errors"]) == ["pattern"]
    # Constructs that can make matching super-linear are refused, as RE2 refuses them.
    for pattern in ("(?P<id>a)(?=b)", r"(?P<id>a+)\1", "(?P<id>a)(?<!b)", "(?P<id>a*+)"):
        resp = await chat.post(
            "/realm/filters", chat.iago, pattern=pattern, url_template="https://t/{id}"
        )
        assert resp.json()["msg"].startswith("Bad regular expression: "), pattern
    # The legacy parameter is not read (feature level 176).
    resp = await chat.post(
        "/realm/filters", chat.iago, pattern="A(?P<id>1)", url_format_string="https://t/%(id)s"
    )
    assert_json_error(resp, "Missing 'url_template' argument", code="REQUEST_VARIABLE_MISSING")
    assert_json_success(
        await chat.post(
            "/realm/filters", chat.iago, pattern="D(?P<id>1)", url_template="https://t/{id}"
        )
    )
    await err(
        "D(?P<id>1)",
        "https://t/{id}",
        "Realm filter with this Realm and Pattern already exists.",
        {"__all__": ["Realm filter with this Realm and Pattern already exists."]},
    )
    resp = await chat.patch(
        "/realm/filters/999999", chat.iago, pattern="X(?P<id>[0-9]+)", url_template="https://t/{id}"
    )
    assert_json_error(resp, "Linkifier not found.")
    assert await chat.count(schema.realm_filter) == 1


async def test_catastrophic_pattern_cannot_hang_rendering(chat: ChatHarness) -> None:
    # Nested quantifiers are valid RE2; the renderer bounds each match in time.
    await api_ok(
        chat,
        "POST",
        "/realm/filters",
        chat.iago,
        pattern="(?P<id>(a+)+)b",
        url_template="https://t/{id}",
    )
    started = time.monotonic()
    await api_ok(chat, "POST", "/messages/render", chat.hamlet, content="a" * 40 + "!")
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("who", ROLE_CELLS)
async def test_linkifier_permission_matrix(chat: ChatHarness, who: str) -> None:
    actor = await actor_for(chat, who)
    resp = await chat.post(
        "/realm/filters", actor, pattern="A(?P<id>[0-9]+)", url_template="https://t/{id}"
    )
    if who in ADMINS:
        assert_json_success(resp)
    else:
        assert_json_error(
            resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL"
        )
        assert await chat.count(schema.realm_filter) == 0
    # Everyone may read them.
    assert_json_success(await chat.get("/realm/linkifiers", actor))


# --- Default streams -----------------------------------------------------------------------


async def test_default_streams(chat: ChatHarness) -> None:
    sid = await chat.make_stream("Verona", [chat.iago])
    hamlet_q = await listen(chat, chat.hamlet, ["default_streams"])
    polonius_q = await listen(chat, chat.polonius, ["default_streams"])
    await api_ok(chat, "POST", "/default_streams", chat.iago, stream_id=sid)
    [event] = await hamlet_q.events()
    assert [s["name"] for s in event["default_streams"]] == ["Verona"]
    assert await polonius_q.events() == []
    state = await chat.runtime.db.read(default_stream_dicts, chat.realm_id)
    assert [s["stream_id"] for s in state] == [sid]
    # New people start there.
    newbie = await chat.make_user("newbie")
    subs = assert_json_success(await chat.get("/users/me/subscriptions", newbie))["subscriptions"]
    assert [s["name"] for s in subs] == ["Verona"]
    bot = await chat.make_user("botty", bot_owner=chat.hamlet)
    assert (
        assert_json_success(await chat.get("/users/me/subscriptions", bot))["subscriptions"] == []
    )
    await api_ok(chat, "DELETE", "/default_streams", chat.iago, stream_id=sid)
    assert await chat.runtime.db.read(default_stream_dicts, chat.realm_id) == []
    # A default stream cannot become private.
    await api_ok(chat, "POST", "/default_streams", chat.iago, stream_id=sid)
    resp = await chat.patch(f"/streams/{sid}", chat.iago, is_private=True)
    assert_json_error(resp, "A default stream cannot be private.")


async def test_default_stream_errors(chat: ChatHarness) -> None:
    secret = await chat.make_stream("secret", [chat.iago], invite_only=True)
    assert_json_error(
        await chat.post("/default_streams", chat.iago, stream_id=999999), "Invalid stream ID"
    )
    assert_json_error(
        await chat.post("/default_streams", chat.iago, stream_id=secret),
        "Private streams cannot be made default.",
    )
    # An administrator not subscribed to a private stream does not reach it here.
    hidden = await chat.make_stream("hidden", [chat.hamlet], invite_only=True)
    assert_json_error(
        await chat.post("/default_streams", chat.desdemona, stream_id=hidden), "Invalid stream ID"
    )
    assert await chat.count(schema.default_stream) == 0


@pytest.mark.parametrize("who", ROLE_CELLS)
async def test_default_stream_permission_matrix(chat: ChatHarness, who: str) -> None:
    actor = await actor_for(chat, who)
    sid = await chat.make_stream("Verona", [actor])
    resp = await chat.post("/default_streams", actor, stream_id=sid)
    if who in ADMINS:
        assert_json_success(resp)
        assert await chat.count(schema.default_stream) == 1
    else:
        assert_json_error(
            resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL"
        )
        assert await chat.count(schema.default_stream) == 0


# --- PATCH /realm --------------------------------------------------------------------------


async def realm_row(chat: ChatHarness) -> dict[str, object]:
    row = await chat.runtime.db.read(
        lambda conn: conn.one(sa.select(schema.realm).where(schema.realm.c.id == chat.realm_id))
    )
    return dict(row)


async def test_update_realm(chat: ChatHarness) -> None:
    q = await listen(chat, chat.polonius, ["realm"])
    resp = await chat.patch(
        "/realm",
        chat.desdemona,
        message_content_edit_limit_seconds=1200,
        edit_topic_policy=2,
        name="New name",
        description="About us",
        enable_spectator_access=True,
        create_web_public_stream_policy=2,
        message_retention_days=30,
        move_messages_within_stream_limit_seconds="unlimited",
    )
    body = assert_json_success(resp)
    assert body["message_content_edit_limit_seconds"] == 1200
    assert body["name"] == "updated" and body["description"] == "updated"
    assert body["edit_topic_policy"] == 2
    assert body["move_messages_within_stream_limit_seconds"] is None
    row = await realm_row(chat)
    assert row["name"] == "New name" and row["description"] == "About us"
    assert row["message_retention_days"] == 30
    assert row["move_messages_within_stream_limit_seconds"] is None
    events = await q.events()
    # Zulip 7: `update` with property and value; `update_dict` only for the editing settings.
    dict_events = {k: v for e in events if e["op"] == "update_dict" for k, v in e["data"].items()}
    assert all(e["property"] == "default" for e in events if e["op"] == "update_dict")
    assert dict_events == {"message_content_edit_limit_seconds": 1200, "edit_topic_policy": 2}
    assert {e["property"]: e["value"] for e in events if e["op"] == "update"} == {
        "name": "New name",
        "description": "About us",
        "enable_spectator_access": True,
        "create_web_public_stream_policy": 2,
        "message_retention_days": 30,
        "move_messages_within_stream_limit_seconds": None,
    }
    settings = assert_json_success(await chat.get("/server_settings", None))
    assert settings["realm_name"] == "New name"
    # Unchanged values are not announced.
    resp = await chat.patch("/realm", chat.iago, edit_topic_policy=2)
    assert assert_json_success(resp) == {"result": "success", "msg": ""}


async def test_update_realm_errors(chat: ChatHarness) -> None:
    before = await realm_row(chat)
    cases = [
        ({"edit_topic_policy": 9}, "Invalid edit_topic_policy"),
        ({"create_web_public_stream_policy": 1}, "Invalid create_web_public_stream_policy"),
        ({"name": "x" * 41}, "name is too long (limit: 40 characters)"),
        ({"description": "x" * 1001}, "description is too long (limit: 1000 characters)"),
        ({"default_language": "xx"}, "Invalid language 'xx'"),
        ({"name": "Fine", "user_group_edit_policy": 7}, "Invalid user_group_edit_policy"),
    ]
    for params, msg in cases:
        assert_json_error(await chat.patch("/realm", chat.desdemona, **params), msg)
    resp = await chat.patch("/realm", chat.desdemona, message_content_edit_limit_seconds=0)
    assert_json_error(
        resp,
        "Bad value for 'message_content_edit_limit_seconds': 0",
        code="REQUEST_VARIABLE_INVALID",
    )
    resp = await chat.patch("/realm", chat.desdemona, message_retention_days="forever")
    assert_json_error(
        resp, "Bad value for 'message_retention_days': forever", code="REQUEST_VARIABLE_INVALID"
    )
    resp = await chat.patch("/realm", chat.iago, message_retention_days=10)
    assert_json_error(resp, "Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    assert await realm_row(chat) == before


@pytest.mark.parametrize("who", ROLE_CELLS)
async def test_update_realm_permission_matrix(chat: ChatHarness, who: str) -> None:
    actor = await actor_for(chat, who)
    resp = await chat.patch("/realm", actor, mandatory_topics=True)
    if who in ADMINS:
        assert_json_success(resp)
        assert bool((await realm_row(chat))["mandatory_topics"]) is True
    else:
        assert_json_error(
            resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL"
        )
        assert bool((await realm_row(chat))["mandatory_topics"]) is False
