"""Invitations (POST/GET /invites, multiuse links, revoke, resend, invites_changed) and the
sign-up page that accepts a link and creates the account."""

from __future__ import annotations

import re

import httpx
import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.queries.users import fake_email_domain
from tests.chat.conftest import (
    ChatHarness,
    api_ok,
    assert_json_error,
    assert_json_success,
    listen,
)

pytestmark = pytest.mark.anyio


async def stream(chat: ChatHarness) -> int:
    return await chat.make_stream("welcome", [chat.iago, chat.hamlet])


def csrf_of(page: httpx.Response) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match is not None, page.text
    return match.group(1)


async def sign_up(
    chat: ChatHarness, link: str, **fields: str
) -> tuple[httpx.Response, httpx.Response]:
    path = link.removeprefix(chat.runtime.settings.base_url)
    page = await chat.client.get(path)
    form = {"csrf_token": csrf_of(page), **fields}
    return page, await chat.client.post(path, data=form)


async def test_email_invitation_to_account(chat: ChatHarness) -> None:
    stream_id = await stream(chat)
    probe = await listen(chat, chat.iago, ["invites_changed"])
    await api_ok(
        chat,
        "POST",
        "/invites",
        chat.hamlet,
        invitee_emails="Newbie <newbie@zulip.test>, other@zulip.test",
        stream_ids=[stream_id],
    )
    assert [e["type"] for e in await probe.events()] == ["invites_changed"]
    invites = (await api_ok(chat, "GET", "/invites", chat.iago))["invites"]
    assert {i["email"] for i in invites} == {"newbie@zulip.test", "other@zulip.test"}
    assert all(i["invited_by_user_id"] == chat.hamlet.id for i in invites)
    assert (await api_ok(chat, "GET", "/invites", chat.cordelia))["invites"] == []
    link = next(i["link_url"] for i in invites if i["email"] == "newbie@zulip.test")

    page, created = await sign_up(chat, link, full_name="New Bie", password="long enough")
    assert page.status_code == 200
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert 'value="newbie@zulip.test" readonly' in page.text
    assert created.status_code == 200, created.text
    assert "Welcome to Zulip Test, New Bie!" in created.text
    resp = await chat.post(
        "/fetch_api_key", None, username="newbie@zulip.test", password="long enough"
    )
    user_id = assert_json_success(resp)["user_id"]
    sub = schema.subscription.c
    subs = await chat.runtime.db.read(
        lambda conn: conn.scalars(sa.select(sub.stream_id).where(sub.user_id == user_id))
    )
    assert stream_id in subs
    # The link is used up.
    again = await chat.client.get(link.removeprefix(chat.runtime.settings.base_url))
    assert again.status_code == 404 and "expired" in again.text
    remaining = (await api_ok(chat, "GET", "/invites", chat.iago))["invites"]
    assert [i["email"] for i in remaining] == ["other@zulip.test"]


async def test_signup_page_checks(chat: ChatHarness) -> None:
    stream_id = await stream(chat)
    await api_ok(
        chat, "POST", "/invites", chat.iago, invitee_emails="x@zulip.test", stream_ids=[stream_id]
    )
    [invite] = (await api_ok(chat, "GET", "/invites", chat.iago))["invites"]
    path = invite["link_url"].removeprefix(chat.runtime.settings.base_url)
    # Without the cookie's token the form is refused.
    await chat.client.get(path)
    resp = await chat.client.post(
        path, data={"csrf_token": "forged", "full_name": "X Y", "password": "long enough"}
    )
    assert resp.status_code == 403
    # Bad input is shown, escaped, and nothing is created.
    _page, resp = await sign_up(chat, invite["link_url"], full_name="<b>X</b>", password="123")
    assert resp.status_code == 400
    assert "The password must be at least 6 characters long." in resp.text
    _page, resp = await sign_up(
        chat, invite["link_url"], full_name="<script>x</script>", password="long enough"
    )
    assert resp.status_code == 400 and "<script>" not in resp.text
    assert "&lt;script&gt;" in resp.text
    assert (await chat.client.get("/join/unknown-token/")).status_code == 404


async def test_multiuse_link(chat: ChatHarness) -> None:
    stream_id = await stream(chat)
    resp = await chat.post("/invites/multiuse", chat.hamlet, stream_ids=[stream_id])
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    body = assert_json_success(
        await chat.post("/invites/multiuse", chat.iago, stream_ids=[stream_id])
    )
    link = body["invite_link"]
    for name in ("one", "two"):
        _page, created = await sign_up(
            chat, link, email=f"{name}@zulip.test", full_name=f"User {name}", password="secret123"
        )
        assert created.status_code == 200, created.text
    _page, dup = await sign_up(
        chat, link, email="one@zulip.test", full_name="Again", password="secret123"
    )
    assert dup.status_code == 400 and "already in use" in dup.text
    [invite] = [i for i in (await api_ok(chat, "GET", "/invites", chat.iago))["invites"]]
    assert invite["is_multiuse"] and invite["link_url"] == link
    assert_json_success(await chat.delete(f"/invites/multiuse/{invite['id']}", chat.iago))
    resp = await chat.delete(f"/invites/multiuse/{invite['id']}", chat.iago)
    assert_json_error(resp, "Invitation has already been revoked")
    page = await chat.client.get(link.removeprefix(chat.runtime.settings.base_url))
    assert page.status_code == 404


async def test_invite_errors_revoke_and_resend(chat: ChatHarness) -> None:
    stream_id = await stream(chat)
    resp = await chat.post("/invites", chat.hamlet, invitee_emails="", stream_ids=[stream_id])
    assert_json_error(resp, "You must specify at least one email address.")
    resp = await chat.post("/invites", chat.hamlet, invitee_emails="a@zulip.test", stream_ids=[])
    assert_json_error(resp, "You must specify at least one stream for invitees to join.")
    resp = await chat.post("/invites", chat.hamlet, invitee_emails="a@zulip.test", stream_ids=[999])
    assert_json_error(resp, "Stream does not exist with id: 999. No invites were sent.")
    resp = await chat.post(
        "/invites",
        chat.hamlet,
        invitee_emails="a@zulip.test",
        stream_ids=[stream_id],
        invite_as=200,
    )
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.post(
        "/invites", chat.iago, invitee_emails="a@zulip.test", stream_ids=[stream_id], invite_as=100
    )
    assert_json_error(resp, "Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    resp = await chat.post(
        "/invites", chat.polonius, invitee_emails="a@zulip.test", stream_ids=[stream_id]
    )
    assert_json_error(resp, "Not allowed for guest users")
    resp = await chat.post(
        "/invites", chat.hamlet, invitee_emails="bad-address, b@zulip.test", stream_ids=[stream_id]
    )
    body = assert_json_error(
        resp,
        "Some emails did not validate, so we didn't send any invitations.",
        code="INVITATION_FAILED",
    )
    assert body["errors"] == [["bad-address", "Invalid address.", False]]
    assert body["sent_invitations"] is False
    resp = await chat.post(
        "/invites", chat.hamlet, invitee_emails=chat.cordelia.email, stream_ids=[stream_id]
    )
    assert_json_error(resp, "We weren't able to invite anyone.", code="INVITATION_FAILED")
    resp = await chat.post(
        "/invites",
        chat.hamlet,
        invitee_emails=f"{chat.cordelia.email}\nfresh@zulip.test",
        stream_ids=[stream_id],
    )
    body = assert_json_error(
        resp,
        "Some of those addresses are already using Zulip, so we didn't send them an invitation. "
        "We did send invitations to everyone else!",
        code="INVITATION_FAILED",
    )
    assert body["sent_invitations"] is True
    [invite] = (await api_ok(chat, "GET", "/invites", chat.hamlet))["invites"]
    assert invite["email"] == "fresh@zulip.test"

    resp = await chat.post(f"/invites/{invite['id']}/resend", chat.cordelia)
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    assert_json_success(await chat.post(f"/invites/{invite['id']}/resend", chat.hamlet))
    resp = await chat.delete(f"/invites/{invite['id']}", chat.cordelia)
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    assert_json_success(await chat.delete(f"/invites/{invite['id']}", chat.iago))
    resp = await chat.delete(f"/invites/{invite['id']}", chat.iago)
    assert_json_error(resp, "No such invitation")
    resp = await chat.post(f"/invites/{invite['id']}/resend", chat.iago)
    assert_json_error(resp, "No such invitation")
    assert (await api_ok(chat, "GET", "/invites", chat.iago))["invites"] == []


async def test_signing_up_takes_the_default_email_visibility(chat: ChatHarness) -> None:
    admins_only = 3
    await api_ok(
        chat,
        "PATCH",
        "/realm/user_settings_defaults",
        chat.desdemona,
        email_address_visibility=admins_only,
    )
    stream_id = await stream(chat)
    body = assert_json_success(
        await chat.post("/invites/multiuse", chat.iago, stream_ids=[stream_id])
    )
    _page, created = await sign_up(
        chat, body["invite_link"], email="hidden@zulip.test", full_name="Hid Den", password="x" * 8
    )
    assert created.status_code == 200, created.text
    [user] = [
        u
        for u in (await api_ok(chat, "GET", "/users", chat.cordelia))["members"]
        if u["full_name"] == "Hid Den"
    ]
    domain = fake_email_domain(chat.runtime.settings.base_url)
    assert (user["email"], user["delivery_email"]) == (f"user{user['user_id']}@{domain}", None)
