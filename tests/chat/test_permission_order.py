"""Which comes first, the permission check or the parameter check: Zulip's order, per endpoint.

Endpoints Zulip decorates with `@require_realm_admin` or `@require_user_group_edit_permission`
refuse the user before reading any parameter. The others read (and validate) their parameters
first and check permissions in the view's body.
"""

from __future__ import annotations

from typing import Any

import pytest

from atrium.chat.models import ROLE_MEMBER
from tests.chat.conftest import (
    ChatHarness,
    Member,
    api_ok,
    assert_json_error,
    assert_json_success,
)

pytestmark = pytest.mark.anyio

ADMIN = ("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")


async def call(chat: ChatHarness, method: str, path: str, user: Member, **params: Any) -> Any:
    return await chat.request(method, path, user, params)


# (method, path, parameters that are malformed or missing)
ADMIN_FIRST = [
    ("PATCH", "/realm", {"name": ["not", "a", "string"], "waiting_period_threshold": "x"}),
    ("PATCH", "/realm", {"message_retention_days": 1.5}),
    ("POST", "/realm/playgrounds", {}),
    ("POST", "/realm/playgrounds", {"name": "x", "pygments_language": "py th<on>"}),
    ("DELETE", "/realm/playgrounds/999999", {}),
    ("POST", "/realm/filters", {"pattern": "(unclosed"}),
    ("PATCH", "/realm/filters/999999", {"pattern": "x"}),
    ("DELETE", "/realm/filters/999999", {}),
    ("POST", "/default_streams", {"stream_id": "abc"}),
    ("POST", "/default_streams", {}),
    ("DELETE", "/default_streams", {"stream_id": "abc"}),
    ("POST", "/users", {"email": "x@zulip.test"}),
]


@pytest.mark.parametrize(("method", "path", "params"), ADMIN_FIRST)
async def test_admin_endpoints_refuse_before_reading_parameters(
    chat: ChatHarness, method: str, path: str, params: dict[str, Any]
) -> None:
    for user in (chat.hamlet, chat.shiva, chat.polonius):
        resp = await call(chat, method, path, user, **params)
        assert_json_error(resp, ADMIN[0], code=ADMIN[1])
    # An administrator gets the parameter's own error.
    resp = await call(chat, method, path, chat.iago, **params)
    assert resp.status_code == 400
    assert resp.json()["msg"] != ADMIN[0]


async def test_group_endpoints_refuse_before_reading_parameters(chat: ChatHarness) -> None:
    bot = await chat.make_user("bot", ROLE_MEMBER, "Bot", bot_owner=chat.hamlet)
    requests = [
        ("POST", "/user_groups/create", {"name": "g"}),
        ("POST", "/user_groups/create", {"name": "g", "description": "", "members": "x"}),
        ("PATCH", "/user_groups/999999", {"name": ["x"]}),
        ("DELETE", "/user_groups/999999", {}),
        ("POST", "/user_groups/999999/members", {"add": "nope"}),
    ]
    for method, path, params in requests:
        resp = await call(chat, method, path, chat.polonius, **params)
        assert_json_error(resp, "Not allowed for guest users")
        resp = await call(chat, method, path, bot, **params)
        assert_json_error(resp, "This endpoint does not accept bot requests.")
    assert_json_success(await chat.patch("/realm", chat.iago, user_group_edit_policy=2))
    for method, path, params in requests:
        resp = await call(chat, method, path, chat.hamlet, **params)
        assert_json_error(resp, "Insufficient permission")
    # Someone allowed to edit groups gets the parameter errors.
    resp = await call(chat, "POST", "/user_groups/create", chat.iago, name="g")
    assert_json_error(resp, "Missing 'members' argument", code="REQUEST_VARIABLE_MISSING")


async def test_stream_update_reads_parameters_first(chat: ChatHarness) -> None:
    """PATCH /streams/{id} has no decorator in Zulip 7: REQ validation, then the admin check."""
    sid = await chat.make_stream("Verona", [chat.hamlet])
    refused = await chat.patch(f"/streams/{sid}", chat.hamlet, description="ok")
    assert_json_error(refused, ADMIN[0], code=ADMIN[1])
    resp = await chat.patch(f"/streams/{sid}", chat.hamlet, stream_post_policy=9)
    assert_json_error(resp, "Invalid stream_post_policy")
    resp = await chat.patch(f"/streams/{sid}", chat.hamlet, description="x" * 1025)
    assert_json_error(resp, "description is too long (limit: 1024 characters)")
    resp = await chat.request("PATCH", f"/streams/{sid}", chat.hamlet, {"is_private": "maybe"})
    assert_json_error(resp, "is_private is not valid JSON")
    resp = await chat.patch(f"/streams/{sid}", chat.hamlet, message_retention_days=[1])
    assert_json_error(resp, "message_retention_days is not a string or integer")
    # The retention value itself is judged after the permission checks (owner only) ...
    resp = await chat.patch(f"/streams/{sid}", chat.hamlet, message_retention_days="forever")
    assert_json_error(resp, ADMIN[0], code=ADMIN[1])
    resp = await chat.patch(f"/streams/{sid}", chat.iago, message_retention_days="forever")
    assert_json_error(resp, "Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.patch(f"/streams/{sid}", chat.desdemona, message_retention_days="forever")
    assert_json_error(
        resp, "Bad value for 'message_retention_days': forever", code="REQUEST_VARIABLE_INVALID"
    )
    # ... and so are the name, after the admin check.
    resp = await chat.patch(f"/streams/{sid}", chat.hamlet, new_name="")
    assert_json_error(resp, ADMIN[0], code=ADMIN[1])
    # An unknown stream is checked after the parameters too.
    resp = await chat.patch("/streams/999999", chat.hamlet, stream_post_policy=9)
    assert_json_error(resp, "Invalid stream_post_policy")
    resp = await chat.patch("/streams/999999", chat.hamlet, stream_post_policy=2)
    assert_json_error(resp, "Invalid stream ID")


async def test_stream_archive_refuses_before_looking_up_the_stream(chat: ChatHarness) -> None:
    resp = await chat.delete("/streams/999999", chat.hamlet)
    assert_json_error(resp, ADMIN[0], code=ADMIN[1])
    resp = await chat.delete("/streams/999999", chat.iago)
    assert_json_error(resp, "Invalid stream ID")


async def test_user_endpoints_read_parameters_first(chat: ChatHarness) -> None:
    """DELETE and PATCH /users/{id}: REQ validation, then access_user_by_id(for_admin=True)."""
    long_comment = "x" * 2001
    resp = await chat.delete(
        f"/users/{chat.cordelia.id}", chat.hamlet, deactivation_notification_comment=long_comment
    )
    assert_json_error(
        resp, "deactivation_notification_comment is too long (limit: 2000 characters)"
    )
    resp = await chat.delete("/users/999999", chat.hamlet)
    assert_json_error(resp, "No such user")
    resp = await chat.delete(f"/users/{chat.cordelia.id}", chat.hamlet)
    assert_json_error(resp, "Insufficient permission")
    resp = await chat.patch(f"/users/{chat.cordelia.id}", chat.hamlet, role=12)
    assert_json_error(resp, "Invalid role")
    resp = await chat.patch("/users/999999", chat.hamlet, full_name="Someone")
    assert_json_error(resp, "No such user")


async def test_bot_owner_may_rename_and_reactivate_their_bot(chat: ChatHarness) -> None:
    bot = await chat.make_user("bot", ROLE_MEMBER, "Helper Bot", bot_owner=chat.hamlet)
    await api_ok(chat, "PATCH", f"/users/{bot.id}", chat.hamlet, full_name="Better Bot")
    # Changing its role still needs an administrator.
    resp = await chat.patch(f"/users/{bot.id}", chat.hamlet, role=200)
    assert_json_error(resp, ADMIN[0], code=ADMIN[1])
    resp = await chat.patch(f"/users/{bot.id}", chat.cordelia, full_name="Not Mine")
    assert_json_error(resp, "Insufficient permission")
    await api_ok(chat, "DELETE", f"/users/{chat.hamlet.id}", chat.iago)  # the bot goes too
    await api_ok(chat, "POST", f"/users/{chat.hamlet.id}/reactivate", chat.iago)
    resp = await chat.post(f"/users/{bot.id}/reactivate", chat.cordelia)
    assert_json_error(resp, "Insufficient permission")
    await api_ok(chat, "POST", f"/users/{bot.id}/reactivate", chat.hamlet)
    users = await api_ok(chat, "GET", f"/users/{bot.id}", chat.iago)
    assert users["user"]["full_name"] == "Better Bot" and users["user"]["is_active"] is True
