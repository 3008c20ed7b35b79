"""Custom profile fields: definitions (create, edit, reorder, delete), their events, and users'
values set through PATCH /users/{id} with each type's validation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio

CHOICES = {"0": {"text": "Vim", "order": "1"}, "1": {"text": "Emacs", "order": "2"}}


async def make_field(chat: ChatHarness, name: str, field_type: int, **extra: Any) -> int:
    body = await api_ok(
        chat, "POST", "/realm/profile_fields", chat.iago, name=name, field_type=field_type, **extra
    )
    field_id: int = body["id"]
    return field_id


async def test_define_list_edit_reorder_delete(chat: ChatHarness) -> None:
    probe = await listen(chat, chat.hamlet, ["custom_profile_fields"])
    phone = await make_field(chat, "Phone", 1, hint="Work phone")
    editor = await make_field(chat, "Editor", 3, field_data=CHOICES)
    body = await api_ok(chat, "GET", "/realm/profile_fields", chat.hamlet)
    assert [(f["id"], f["name"], f["type"]) for f in body["custom_fields"]] == [
        (phone, "Phone", 1),
        (editor, "Editor", 3),
    ]
    events = await probe.events()
    assert [len(e["fields"]) for e in events] == [1, 2]

    assert_json_success(
        await chat.patch(f"/realm/profile_fields/{phone}", chat.iago, name="Mobile")
    )
    await api_ok(chat, "PATCH", "/realm/profile_fields", chat.iago, order=[editor, phone])
    body = await api_ok(chat, "GET", "/realm/profile_fields", chat.hamlet)
    assert [(f["id"], f["name"], f["order"]) for f in body["custom_fields"]] == [
        (editor, "Editor", 1),
        (phone, "Mobile", 2),
    ]
    state = await api_ok(
        chat, "POST", "/register", chat.hamlet, fetch_event_types=["custom_profile_fields"]
    )
    assert [f["id"] for f in state["custom_profile_fields"]] == [editor, phone]

    assert_json_success(await chat.delete(f"/realm/profile_fields/{phone}", chat.iago))
    body = await api_ok(chat, "GET", "/realm/profile_fields", chat.hamlet)
    assert [f["id"] for f in body["custom_fields"]] == [editor]
    assert len(await probe.events(events[-1]["id"])) == 3


async def test_definition_errors(chat: ChatHarness) -> None:
    resp = await chat.post("/realm/profile_fields", chat.hamlet, name="X", field_type=1)
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.post("/realm/profile_fields", chat.iago, name="X")
    assert_json_error(resp, "Missing 'field_type' argument", code="REQUEST_VARIABLE_MISSING")
    resp = await chat.post("/realm/profile_fields", chat.iago, name="X", field_type=99)
    assert_json_error(resp, "Invalid field type.")
    resp = await chat.post("/realm/profile_fields", chat.iago, name=" ", field_type=1)
    assert_json_error(resp, "Label cannot be blank.")
    resp = await chat.post("/realm/profile_fields", chat.iago, name="X" * 41, field_type=1)
    assert_json_error(resp, "name is too long (limit: 40 characters)")
    resp = await chat.post("/realm/profile_fields", chat.iago, name="S", field_type=3)
    assert_json_error(resp, "Field must have at least one choice.")
    await make_field(chat, "Phone", 1)
    resp = await chat.post("/realm/profile_fields", chat.iago, name="Phone", field_type=1)
    assert_json_error(resp, "A field with that label already exists.")
    resp = await chat.patch("/realm/profile_fields/9", chat.iago, name="Y")
    assert_json_error(resp, "Field id 9 not found.")
    resp = await chat.delete("/realm/profile_fields/9", chat.iago)
    assert_json_error(resp, "Field id 9 not found.")
    resp = await chat.patch("/realm/profile_fields", chat.iago, order=[1, 2, 3])
    assert_json_error(resp, "Invalid order mapping.")
    resp = await chat.post(
        "/realm/profile_fields",
        chat.iago,
        name="Bio",
        field_type=2,
        display_in_profile_summary=True,
    )
    assert_json_error(resp, "Field type not supported for display in profile summary.")
    github = await make_field(chat, "", 7, field_data={"subtype": "github"})
    body = await api_ok(chat, "GET", "/realm/profile_fields", chat.iago)
    assert {f["id"]: f["name"] for f in body["custom_fields"]}[github] == "GitHub"


async def test_profile_data_on_users(chat: ChatHarness) -> None:
    phone = await make_field(chat, "Phone", 1)
    editor = await make_field(chat, "Editor", 3, field_data=CHOICES)
    birthday = await make_field(chat, "Birthday", 4)
    site = await make_field(chat, "Site", 5)
    mentor = await make_field(chat, "Mentor", 6)
    probe = await listen(chat, chat.cordelia, ["realm_user"])
    data = [
        {"id": phone, "value": "**555**"},
        {"id": editor, "value": "1"},
        {"id": birthday, "value": "1990-02-03"},
        {"id": site, "value": "https://example.com/hamlet"},
        {"id": mentor, "value": [chat.iago.id]},
    ]
    await api_ok(chat, "PATCH", f"/users/{chat.hamlet.id}", chat.iago, profile_data=data)
    user = (
        await api_ok(
            chat,
            "GET",
            f"/users/{chat.hamlet.id}",
            chat.cordelia,
            include_custom_profile_fields=True,
        )
    )["user"]
    profile = user["profile_data"]
    assert profile[str(phone)] == {
        "value": "**555**",
        "rendered_value": "<p><strong>555</strong></p>",
    }
    assert profile[str(editor)] == {"value": "1"}
    assert profile[str(mentor)] == {"value": f"[{chat.iago.id}]"}
    events = await probe.events()
    assert [e["person"]["custom_profile_field"]["id"] for e in events] == [
        phone,
        editor,
        birthday,
        site,
        mentor,
    ]
    # Removing one value; unchanged values send nothing.
    await api_ok(
        chat,
        "PATCH",
        f"/users/{chat.hamlet.id}",
        chat.iago,
        profile_data=[{"id": phone, "value": None}, {"id": editor, "value": "1"}],
    )
    [removed] = await probe.events(events[-1]["id"])
    assert removed["person"]["custom_profile_field"] == {"id": phone, "value": None}

    cases = [
        ([{"id": 9, "value": "x"}], "Field id 9 not found."),
        ([{"id": editor, "value": "7"}], "'7' is not a valid choice for 'Editor'."),
        ([{"id": birthday, "value": "soon"}], "Birthday is not a date"),
        ([{"id": site, "value": "not a url"}], "Site is not a URL"),
        ([{"id": mentor, "value": [424242]}], "Invalid user ID: 424242"),
        ([{"id": phone, "value": "x" * 51}], "Phone is too long (limit: 50 characters)"),
        # Validation comes before any write: the good entry is not stored either.
        ([{"id": phone, "value": "ok"}, {"id": 9, "value": "x"}], "Field id 9 not found."),
    ]
    for bad, message in cases:
        resp = await chat.patch(f"/users/{chat.hamlet.id}", chat.iago, profile_data=bad)
        assert_json_error(resp, message)
    user = (
        await api_ok(
            chat, "GET", f"/users/{chat.hamlet.id}", chat.iago, include_custom_profile_fields=True
        )
    )["user"]
    assert str(phone) not in user["profile_data"]
    resp = await chat.patch(
        f"/users/{chat.iago.id}", chat.hamlet, profile_data=[{"id": phone, "value": "1"}]
    )
    assert_json_error(resp, "Insufficient permission")


async def test_own_profile_data(chat: ChatHarness) -> None:
    phone = await make_field(chat, "Phone", 1)
    probe = await listen(chat, chat.iago, ["realm_user"])
    data = [{"id": phone, "value": "123"}]
    assert_json_success(await chat.patch("/users/me/profile_data", chat.hamlet, data=data))
    [event] = await probe.events()
    assert event["person"] == {
        "user_id": chat.hamlet.id,
        "custom_profile_field": {"id": phone, "value": "123", "rendered_value": "<p>123</p>"},
    }
    resp = await chat.patch("/users/me/profile_data", chat.hamlet, data=[{"id": 9, "value": "x"}])
    assert_json_error(resp, "Field id 9 not found.")
    resp = await chat.delete("/users/me/profile_data", chat.hamlet, data=[9])
    assert_json_error(resp, "Field id 9 not found.")
    assert_json_success(await chat.delete("/users/me/profile_data", chat.hamlet, data=[phone]))
    me = await api_ok(chat, "GET", "/users/me", chat.hamlet)
    assert str(phone) not in me["profile_data"]
