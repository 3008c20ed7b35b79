"""GET /user_groups, POST /user_groups/create, PATCH/DELETE /user_groups/{id}, members."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import ROLE_MEMBER
from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def group_id(chat: ChatHarness, name: str) -> int:
    return int(
        await chat.runtime.db.read(
            lambda conn: conn.scalar(
                sa.select(schema.user_group.c.id).where(schema.user_group.c.name == name)
            )
        )
    )


async def groups_by_name(chat: ChatHarness) -> dict[str, dict[str, object]]:
    body = await api_ok(chat, "GET", "/user_groups", chat.polonius)
    return {g["name"]: g for g in body["user_groups"]}


async def test_create_update_delete(chat: ChatHarness) -> None:
    q = await listen(chat, chat.polonius, ["user_group"])
    await api_ok(
        chat,
        "POST",
        "/user_groups/create",
        chat.hamlet,
        name="actors",
        description="The players",
        members=[chat.hamlet.id, chat.cordelia.id],
    )
    gid = await group_id(chat, "actors")
    groups = await groups_by_name(chat)
    assert groups["actors"]["members"] == [chat.hamlet.id, chat.cordelia.id]
    assert groups["actors"]["is_system_group"] is False
    assert groups["@role:administrators"]["direct_subgroup_ids"] == [
        await group_id(chat, "@role:owners")
    ]
    await api_ok(chat, "PATCH", f"/user_groups/{gid}", chat.hamlet, description="New")
    await api_ok(chat, "PATCH", f"/user_groups/{gid}", chat.cordelia, name="troupe")
    await api_ok(
        chat,
        "POST",
        f"/user_groups/{gid}/members",
        chat.hamlet,
        add=[chat.shiva.id],
        delete=[chat.cordelia.id],
    )
    body = await api_ok(chat, "GET", f"/user_groups/{gid}/members", chat.polonius)
    assert body["members"] == sorted([chat.hamlet.id, chat.shiva.id])
    await api_ok(chat, "DELETE", f"/user_groups/{gid}", chat.hamlet)
    assert "troupe" not in await groups_by_name(chat)
    events = await q.events()
    assert [e["op"] for e in events] == [
        "add",
        "update",
        "update",
        "add_members",
        "remove_members",
        "remove",
    ]
    assert events[0]["group"]["name"] == "actors"
    assert events[1]["data"] == {"description": "New"}
    assert events[2]["data"] == {"name": "troupe"}
    assert events[3]["user_ids"] == [chat.shiva.id]
    assert events[5]["group_id"] == gid


async def test_recursive_members(chat: ChatHarness) -> None:
    admins = await group_id(chat, "@role:administrators")
    body = await api_ok(chat, "GET", f"/user_groups/{admins}/members", chat.hamlet)
    assert body["members"] == sorted([chat.desdemona.id, chat.iago.id])
    body = await api_ok(
        chat, "GET", f"/user_groups/{admins}/members", chat.hamlet, direct_member_only=True
    )
    assert body["members"] == [chat.iago.id]
    assert_json_error(
        await chat.get("/user_groups/9999/members", chat.hamlet), "Invalid user group"
    )


async def test_errors(chat: ChatHarness) -> None:
    assert_json_success(
        await chat.post("/user_groups/create", chat.hamlet, name="a", description="", members=[])
    )
    gid = await group_id(chat, "a")
    before = await groups_by_name(chat)

    async def create_err(msg: str, **params: object) -> None:
        params = {"name": "b", "description": "", "members": [], **params}
        assert_json_error(await chat.post("/user_groups/create", chat.hamlet, **params), msg)

    await create_err("User group 'a' already exists.", name="a")
    await create_err("User group name can't be empty!", name=" ")
    await create_err("User group name cannot exceed 100 characters.", name="x" * 101)
    await create_err("User group name cannot start with '@'.", name="@role:mine")
    await create_err("User group name cannot start with 'role:'.", name="role:mine")
    await create_err("Invalid user ID: 424242", members=[424242])
    resp = await chat.post("/user_groups/create", chat.hamlet, name="b", members=[])
    assert_json_error(resp, "Missing 'description' argument", code="REQUEST_VARIABLE_MISSING")
    assert_json_error(
        await chat.patch("/user_groups/999999", chat.desdemona, description="x"),
        "Invalid user group",
    )
    assert_json_error(await chat.patch(f"/user_groups/{gid}", chat.hamlet), "No new data supplied")
    await chat.post("/user_groups/create", chat.hamlet, name="b", description="", members=[])
    assert_json_error(
        await chat.patch(f"/user_groups/{gid}", chat.iago, name="b"),
        "User group 'b' already exists.",
    )
    members = await group_id(chat, "@role:members")
    assert_json_error(
        await chat.patch(f"/user_groups/{members}", chat.desdemona, name="everyone-ish"),
        "Insufficient permission",
    )
    assert_json_error(
        await chat.delete(f"/user_groups/{members}", chat.desdemona), "Insufficient permission"
    )
    assert_json_error(
        await chat.post(f"/user_groups/{gid}/members", chat.hamlet),
        'Nothing to do. Specify at least one of "add" or "delete".',
    )
    assert_json_error(
        await chat.post(f"/user_groups/{gid}/members", chat.iago, delete=[chat.hamlet.id]),
        f"There is no member '{chat.hamlet.id}' in this user group",
    )
    await chat.post(f"/user_groups/{gid}/members", chat.iago, add=[chat.hamlet.id])
    assert_json_error(
        await chat.post(f"/user_groups/{gid}/members", chat.iago, add=[chat.hamlet.id]),
        f"User {chat.hamlet.id} is already a member of this group",
    )
    after = await groups_by_name(chat)
    assert after["a"]["name"] == before["a"]["name"] == "a"


@pytest.mark.parametrize("who", ["polonius", "hamlet", "shiva", "iago", "desdemona", "bot"])
async def test_permission_matrix(chat: ChatHarness, who: str) -> None:
    """Editing a group Cordelia made and the actor is not in (user_group_edit_policy: members)."""
    if who == "bot":
        await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=chat.hamlet)
    actor = chat.users[who]
    await chat.post(
        "/user_groups/create", chat.cordelia, name="g", description="", members=[chat.cordelia.id]
    )
    gid = await group_id(chat, "g")
    resp = await chat.patch(f"/user_groups/{gid}", actor, description="changed")
    create = await chat.post(
        "/user_groups/create", actor, name="mine", description="", members=[actor.id]
    )
    if who == "polonius":
        # Zulip's @require_member_or_admin, before the group edit policy.
        assert_json_error(resp, "Not allowed for guest users")
        assert_json_error(create, "Not allowed for guest users")
    elif who == "bot":
        assert_json_error(resp, "This endpoint does not accept bot requests.")
        assert_json_error(create, "This endpoint does not accept bot requests.")
    elif who == "hamlet":
        assert_json_error(resp, "Insufficient permission")
        assert_json_success(create)
        # Members may edit the groups they belong to.
        mine = await group_id(chat, "mine")
        assert_json_success(await chat.patch(f"/user_groups/{mine}", actor, description="ok"))
    else:
        assert_json_success(resp)
        assert_json_success(create)
    description = (await groups_by_name(chat))["g"]["description"]
    assert description == ("changed" if who in {"shiva", "iago", "desdemona"} else "")


async def test_edit_policy_admins_only(chat: ChatHarness) -> None:
    assert_json_success(await chat.patch("/realm", chat.iago, user_group_edit_policy=2))
    resp = await chat.post("/user_groups/create", chat.shiva, name="x", description="", members=[])
    assert_json_error(resp, "Insufficient permission")
    await api_ok(
        chat, "POST", "/user_groups/create", chat.iago, name="x", description="", members=[]
    )
