"""Chat administration through the official `zulip` client against `atrium serve`.

Every administration endpoint the client wraps is called through its method (`update_stream`,
`delete_stream`, `remove_subscriptions`, `get_subscribers`, `get_stream_id`,
`deactivate_user_by_id`, `reactivate_user_by_id`, `update_user_by_id`, `get_user_groups`,
`create_user_group`, `update_user_group`, `remove_user_group`, `update_user_group_members`,
`add_default_stream`, `get_realm_linkifiers`, `add_realm_filter`, `remove_realm_filter`,
`update_subscription_settings`); the rest through `call_endpoint` as a client would (0.9.1 has
no method for code playgrounds, PATCH /realm/filters/{id}, PATCH /realm, PATCH /settings,
DELETE /default_streams, GET /streams/{id} or GET /user_groups/{id}/members).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import zulip

from tests.e2e.conftest import LiveChat

pytestmark = pytest.mark.e2e

ADMIN_ERROR = {"msg": "Must be an organization administrator", "code": "UNAUTHORIZED_PRINCIPAL"}


def ok(response: dict[str, Any]) -> dict[str, Any]:
    assert response["result"] == "success", response
    return response


def refused(response: dict[str, Any], msg: str, code: str = "BAD_REQUEST") -> None:
    assert response["result"] == "error", response
    assert (response["msg"], response.get("code")) == (msg, code), response


def client_for(live: LiveChat, email: str, password: str) -> zulip.Client:
    resp = httpx.post(
        f"{live.site}/api/v1/fetch_api_key", data={"username": email, "password": password}
    )
    assert resp.status_code == 200, resp.text
    return zulip.Client(email=email, api_key=resp.json()["api_key"], site=live.site)


def stream_events(client: zulip.Client, stream: str) -> list[str]:
    fetched = ok(
        client.get_messages(
            {
                "anchor": "newest",
                "num_before": 20,
                "num_after": 0,
                "apply_markdown": False,
                "narrow": [
                    {"operator": "stream", "operand": stream},
                    {"operator": "topic", "operand": "stream events"},
                ],
            }
        )
    )
    assert {m["sender_full_name"] for m in fetched["messages"]} <= {"Notification Bot"}
    return [m["content"] for m in fetched["messages"]]


def test_streams_and_subscriptions(live_chat: LiveChat) -> None:
    owner, member = live_chat.owner, live_chat.member
    owner_id = ok(owner.get_profile())["user_id"]
    member_id = ok(member.get_profile())["user_id"]
    ok(
        owner.add_subscriptions(
            streams=[{"name": "general"}, {"name": "design"}],
            principals=["owner@live.test", live_chat.member_email],
        )
    )
    design = ok(owner.get_stream_id("design"))["stream_id"]
    general = ok(owner.get_stream_id("general"))["stream_id"]
    refused(member.get_stream_id("nowhere"), "Invalid stream name 'nowhere'")

    ok(owner.update_stream({"stream_id": design, "description": "All **design**"}))
    ok(owner.update_stream({"stream_id": design, "new_name": "Design Team"}))
    refused(
        member.update_stream({"stream_id": design, "description": "mine"}),
        ADMIN_ERROR["msg"],
        ADMIN_ERROR["code"],
    )
    # Zulip reads PATCH /streams parameters before the permission check.
    refused(
        member.update_stream({"stream_id": design, "stream_post_policy": 9}),
        "Invalid stream_post_policy",
    )
    ok(owner.update_stream({"stream_id": design, "is_private": True}))
    stream = ok(owner.call_endpoint(f"streams/{design}", method="GET"))["stream"]
    assert stream["name"] == "Design Team" and stream["invite_only"] is True
    assert stream["rendered_description"] == "<p>All <strong>design</strong></p>"
    # The Notification Bot announced each change in the stream.
    events = stream_events(member, "Design Team")
    assert len(events) == 3
    assert "changed the description for this stream" in events[0]
    assert events[1].endswith("renamed stream **design** to **Design Team**.")
    assert events[2].endswith("from **Public** to **Private, protected history**.")

    subscribers = ok(owner.get_subscribers(stream="Design Team"))["subscribers"]
    assert subscribers == sorted([owner_id, member_id])
    with_subscribers = ok(member.get_subscriptions({"include_subscribers": True}))
    assert {s["name"]: s["subscribers"] for s in with_subscribers["subscriptions"]} == {
        "Design Team": sorted([owner_id, member_id]),
        "general": sorted([owner_id, member_id]),
    }

    ok(
        member.update_subscription_settings(
            [
                {"stream_id": design, "property": "pin_to_top", "value": True},
                {"stream_id": design, "property": "color", "value": "#f00000"},
                {"stream_id": general, "property": "is_muted", "value": True},
            ]
        )
    )
    mine = {s["name"]: s for s in ok(member.get_subscriptions())["subscriptions"]}
    assert mine["Design Team"]["pin_to_top"] is True
    assert mine["Design Team"]["color"] == "#f00000"
    assert mine["general"]["is_muted"] is True and mine["general"]["in_home_view"] is False

    refused(
        member.remove_subscriptions(["general"], principals=["owner@live.test"]),
        "Insufficient permission",
    )
    result = ok(owner.remove_subscriptions(["Design Team"], principals=[member_id]))
    assert result["removed"] == ["Design Team"] and result["not_removed"] == []
    result = ok(member.remove_subscriptions(["general"]))
    assert result["removed"] == ["general"]
    result = ok(member.remove_subscriptions(["general"]))
    assert result["removed"] == [] and result["not_removed"] == ["general"]
    missing = member.remove_subscriptions(["nowhere"])
    refused(missing, "Stream(s) (nowhere) do not exist", "STREAM_DOES_NOT_EXIST")
    assert missing["stream"] == "nowhere"
    # The member left the private stream: it is gone from their view entirely.
    refused(member.get_stream_id("Design Team"), "Invalid stream name 'Design Team'")

    refused(member.delete_stream(design), ADMIN_ERROR["msg"], ADMIN_ERROR["code"])
    ok(owner.delete_stream(design))
    refused(owner.get_stream_id("Design Team"), "Invalid stream name 'Design Team'")


def test_default_streams_and_realm_settings(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    ok(owner.add_subscriptions(streams=[{"name": "welcome"}]))
    welcome = ok(owner.get_stream_id("welcome"))["stream_id"]
    refused(member.add_default_stream(welcome), ADMIN_ERROR["msg"], ADMIN_ERROR["code"])
    # Refused before its parameter is read, as Zulip's @require_realm_admin does.
    refused(
        member.call_endpoint("default_streams", method="POST", request={"stream_id": "abc"}),
        ADMIN_ERROR["msg"],
        ADMIN_ERROR["code"],
    )
    ok(owner.add_default_stream(welcome))
    state = ok(owner.register(event_types=["default_streams"]))
    assert [s["stream_id"] for s in state["realm_default_streams"]] == [welcome]
    # New users join the default streams.
    created = ok(
        owner.create_user(
            {"email": "new@live.test", "password": "pw-new-12345", "full_name": "New Person"}
        )
    )
    newcomer = client_for(live_chat_module, "new@live.test", "pw-new-12345")
    assert [s["name"] for s in ok(newcomer.get_subscriptions())["subscriptions"]] == ["welcome"]
    assert created["user_id"] == ok(newcomer.get_profile())["user_id"]
    ok(owner.call_endpoint("default_streams", method="DELETE", request={"stream_id": welcome}))
    state = ok(owner.register(event_types=["default_streams"]))
    assert state["realm_default_streams"] == []

    changed = ok(
        owner.call_endpoint(
            "realm",
            method="PATCH",
            request={"name": "Renamed Live Org", "enable_spectator_access": True},
        )
    )
    assert changed["name"] == "updated" and changed["enable_spectator_access"] is True
    refused(
        member.call_endpoint("realm", method="PATCH", request={"name": "Mine now"}),
        ADMIN_ERROR["msg"],
        ADMIN_ERROR["code"],
    )
    state = ok(member.register(event_types=["realm"]))
    assert state["realm_name"] == "Renamed Live Org"
    assert state["realm_enable_spectator_access"] is True


def test_users_and_settings(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    created = ok(
        owner.create_user(
            {"email": "third@live.test", "password": "pw-third-1234", "full_name": "Third Person"}
        )
    )
    uid = created["user_id"]
    third = client_for(live_chat_module, "third@live.test", "pw-third-1234")
    ok(owner.update_user_by_id(uid, full_name="Thirza Person", role=300))
    user = ok(owner.get_user_by_id(uid))["user"]
    assert user["full_name"] == "Thirza Person" and user["role"] == 300
    refused(member.update_user_by_id(uid, full_name="Nope"), "Insufficient permission")
    refused(member.deactivate_user_by_id(uid), "Insufficient permission")

    ok(owner.deactivate_user_by_id(uid))
    gone = third.get_profile()
    refused(gone, "Account is deactivated", "UNAUTHORIZED")
    listed = {m["user_id"]: m for m in ok(owner.get_members())["members"]}
    assert listed[uid]["is_active"] is False
    refused(member.reactivate_user_by_id(uid), "Insufficient permission")
    ok(owner.reactivate_user_by_id(uid))
    assert ok(third.get_profile())["full_name"] == "Thirza Person"

    # PATCH /settings: the user's own settings, reflected in register state.
    draft = {"type": "", "to": [], "topic": "", "content": "unsent"}
    ok(third.call_endpoint("drafts", method="POST", request={"drafts": [draft]}))
    assert len(ok(third.call_endpoint("drafts", method="GET"))["drafts"]) == 1
    ok(
        third.call_endpoint(
            "settings",
            method="PATCH",
            request={
                "timezone": "Europe/Paris",
                "default_language": "de",
                "translate_emoticons": True,
                "enable_drafts_synchronization": False,
            },
        )
    )
    settings = ok(third.register(event_types=["user_settings"]))["user_settings"]
    assert settings["timezone"] == "Europe/Paris" and settings["default_language"] == "de"
    assert settings["translate_emoticons"] is True
    assert settings["enable_drafts_synchronization"] is False
    refused(third.call_endpoint("drafts", method="GET"), "User has disabled synchronizing drafts.")
    # Turning synchronization off deleted the stored drafts.
    ok(
        third.call_endpoint(
            "settings", method="PATCH", request={"enable_drafts_synchronization": True}
        )
    )
    assert ok(third.call_endpoint("drafts", method="GET"))["drafts"] == []
    refused(
        third.call_endpoint("settings", method="PATCH", request={"timezone": "Mars/Olympus"}),
        "timezone is not a recognized time zone",
    )


def test_user_groups(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    owner_id = ok(owner.get_profile())["user_id"]
    member_id = ok(member.get_profile())["user_id"]
    ok(
        member.create_user_group(
            {"name": "designers", "description": "Pixels", "members": [member_id]}
        )
    )
    groups = {g["name"]: g for g in ok(member.get_user_groups())["user_groups"]}
    group = groups["designers"]
    assert group["members"] == [member_id] and group["description"] == "Pixels"
    assert groups["@role:owners"]["is_system_group"] is True
    gid = group["id"]
    # Name and description are each optional since feature level 165.
    ok(member.update_user_group({"group_id": gid, "description": "Pixels and type"}))
    ok(member.update_user_group({"group_id": gid, "name": "design-crew"}))
    ok(member.update_user_group_members(gid, {"add": [owner_id]}))
    members = ok(member.call_endpoint(f"user_groups/{gid}/members", method="GET"))["members"]
    assert sorted(members) == sorted([owner_id, member_id])
    ok(member.update_user_group_members(gid, {"delete": [member_id]}))
    refused(
        member.update_user_group({"group_id": gid, "description": "again"}),
        "Insufficient permission",
    )
    refused(
        owner.update_user_group({"group_id": groups["@role:owners"]["id"], "name": "bosses"}),
        "Insufficient permission",
    )
    refused(owner.update_user_group({"group_id": 999999, "name": "x"}), "Invalid user group")
    # Only administrators may manage groups once the policy says so; checked before parameters.
    ok(owner.call_endpoint("realm", method="PATCH", request={"user_group_edit_policy": 2}))
    refused(
        member.create_user_group({"name": "rogue", "description": "", "members": "nope"}),
        "Insufficient permission",
    )
    ok(owner.remove_user_group(gid))
    names = {g["name"] for g in ok(owner.get_user_groups())["user_groups"]}
    assert "design-crew" not in names


def test_playgrounds_and_linkifiers(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    playground = {
        "name": "Python playground",
        "pygments_language": "Python",
        "url_prefix": "https://python.example/?code=",
    }
    refused(
        member.call_endpoint("realm/playgrounds", method="POST", request=playground),
        ADMIN_ERROR["msg"],
        ADMIN_ERROR["code"],
    )
    pid = ok(owner.call_endpoint("realm/playgrounds", method="POST", request=playground))["id"]
    refused(
        owner.call_endpoint("realm/playgrounds", method="POST", request=playground),
        "Realm playground with this Realm, Pygments language and Name already exists.",
    )
    state = ok(member.register(event_types=["realm_playgrounds"]))
    assert [p["id"] for p in state["realm_playgrounds"]] == [pid]
    ok(owner.call_endpoint(f"realm/playgrounds/{pid}", method="DELETE"))
    state = ok(member.register(event_types=["realm_playgrounds"]))
    assert state["realm_playgrounds"] == []

    refused(
        member.add_realm_filter("#(?P<id>[0-9]+)", "https://tracker.example/{id}"),
        ADMIN_ERROR["msg"],
        ADMIN_ERROR["code"],
    )
    fid = ok(owner.add_realm_filter("#(?P<id>[0-9]+)", "https://tracker.example/{id}"))["id"]
    linkifiers = ok(member.get_realm_linkifiers())["linkifiers"]
    assert linkifiers == [
        {"id": fid, "pattern": "#(?P<id>[0-9]+)", "url_template": "https://tracker.example/{id}"}
    ]
    bad = owner.add_realm_filter("#(?P<id>[0-9]+)", "https://tracker.example/{other}")
    msg = "Group 'other' in URL template is not present in linkifier pattern."
    refused(bad, msg)
    assert bad["errors"] == {"__all__": [msg]}

    ok(owner.add_subscriptions(streams=[{"name": "links"}]))

    def rendered(text: str) -> str:
        sent = ok(
            owner.send_message({"type": "stream", "to": "links", "topic": "t", "content": text})
        )
        return str(ok(owner.get_raw_message(sent["id"]))["message"]["content"])

    assert 'href="https://tracker.example/123"' in rendered("see #123")
    ok(
        owner.call_endpoint(
            f"realm/filters/{fid}",
            method="PATCH",
            request={"pattern": "#(?P<id>[0-9]+)", "url_template": "https://bugs.example/{id}"},
        )
    )
    # A changed linkifier applies to the next message at once.
    assert 'href="https://bugs.example/45"' in rendered("see #45")
    ok(owner.remove_realm_filter(fid))
    assert ok(member.get_realm_linkifiers())["linkifiers"] == []
    assert "<a" not in rendered("see #46")
