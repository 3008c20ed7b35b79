"""The chat's browser session: sign-out needs the session's token and never clears a cookie it
was not shown, cookies are `Secure` and `__Host-` under https, a planted session's sign-ins do
not carry over, and deactivation ends every session of the user."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.runtime import ChatRuntime
from atrium.server import create_app
from atrium.settings import RateLimits, Settings
from tests.chat.conftest import ChatHarness
from tests.chat.test_web_sessions import PASSWORD, csrf_of, sign_in

pytestmark = pytest.mark.anyio


async def _signed_in(chat: ChatHarness, name: str) -> str:
    await chat.make_user(name, password=PASSWORD)
    assert (await sign_in(chat.client, f"{name}@zulip.test")).status_code == 303
    return csrf_of(await chat.client.get("/"))


async def test_cross_site_logout_without_the_cookie_clears_nothing(chat: ChatHarness) -> None:
    await _signed_in(chat, "lear")
    # A cross-site form POST carries no Lax cookie and no token.
    transport = chat.client._transport
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        response = await other.post("/logout", headers={"Origin": "http://evil.example"})
    assert response.status_code == 303
    assert "set-cookie" not in response.headers
    assert (await chat.client.get("/json/users/me")).status_code == 200


async def test_logout_without_the_token_is_refused(chat: ChatHarness) -> None:
    await _signed_in(chat, "lear")
    refused = await chat.client.post("/logout", data={"csrf_token": "forged"})
    assert refused.status_code == 403
    assert "set-cookie" not in refused.headers
    assert (await chat.client.get("/json/users/me")).status_code == 200


async def test_a_planted_session_does_not_carry_over(chat: ChatHarness) -> None:
    sessions = chat.runtime.sessions
    assert sessions is not None
    planted, _ = await sessions.sign_in("wiki", 77)  # the attacker's own wiki session
    await chat.make_user("adam", password=PASSWORD)
    chat.client.cookies.set("atrium_session", planted)
    signed = await sign_in(chat.client, "adam@zulip.test")
    assert signed.status_code == 303
    token = signed.cookies["atrium_session"]
    assert token != planted
    session = await sessions.get(token)
    assert session is not None and dict(session.logins) == {"chat": chat.adam.id}
    assert await sessions.get(planted) is None


async def test_deactivation_ends_sessions_for_good(chat: ChatHarness) -> None:
    await _signed_in(chat, "lear")
    assert (await chat.client.get("/json/users/me")).status_code == 200
    deactivated = await chat.request("DELETE", f"/users/{chat.lear.id}", chat.iago)
    assert deactivated.status_code == 200, deactivated.text
    assert (await chat.client.get("/json/users/me")).status_code == 401
    reactivated = await chat.request("POST", f"/users/{chat.lear.id}/reactivate", chat.iago)
    assert reactivated.status_code == 200, reactivated.text
    assert (await chat.client.get("/json/users/me")).status_code == 401


async def test_deactivating_oneself_ends_ones_sessions(chat: ChatHarness) -> None:
    await _signed_in(chat, "lear")
    token = chat.client.cookies["atrium_session"]
    assert (await chat.request("DELETE", "/users/me", chat.lear)).status_code == 200
    assert chat.runtime.sessions is not None
    assert await chat.runtime.sessions.get(token) is None


@pytest.fixture
async def https_client(
    data_dir: Path, database_url: str | None
) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        data_dir=data_dir,
        database_url=database_url,
        rate_limits=RateLimits(enabled=False),
        external_url="https://chat.example",
    )
    app = create_app(settings, services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        realm_id = await runtime.db.write(create_realm, "Secure", "secure")
        new = NewUser(email="kent@x.test", full_name="Kent", password=PASSWORD)
        await runtime.db.write(create_user, realm_id, new)
        admin = NewUser(email="goneril@x.test", full_name="Goneril", password=PASSWORD, role=200)
        await runtime.db.write(create_user, realm_id, admin)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://chat.example") as c:
            yield c


def _cookie(response: httpx.Response, name: str) -> str:
    return next(c for c in response.headers.get_list("set-cookie") if c.startswith(name + "="))


async def test_https_cookies_are_secure_and_host_prefixed(
    https_client: httpx.AsyncClient,
) -> None:
    page = await https_client.get("/")
    csrf = _cookie(page, "__Host-atrium_login_csrf")
    assert "Secure" in csrf and "Path=/" in csrf and "Domain" not in csrf
    signed = await sign_in(https_client, "kent@x.test")
    assert signed.status_code == 303
    session = _cookie(signed, "__Host-atrium_session")
    assert "Secure" in session and "HttpOnly" in session and "Path=/" in session
    assert "Domain" not in session
    assert not any(c.startswith("atrium_session=") for c in signed.headers.get_list("set-cookie"))
    # The session is read under its prefixed name only.
    assert (await https_client.get("/json/users/me")).status_code == 200
    token = https_client.cookies["__Host-atrium_session"]
    https_client.cookies.clear()
    https_client.cookies.set("atrium_session", token)
    assert (await https_client.get("/json/users/me")).status_code == 401


async def test_https_sign_up_token_is_secure_and_host_prefixed(
    https_client: httpx.AsyncClient,
) -> None:
    assert (await sign_in(https_client, "goneril@x.test")).status_code == 303
    made = await https_client.post(
        "/json/invites/multiuse",
        data={"stream_ids": "[]"},
        headers={"X-CSRFToken": csrf_of(await https_client.get("/"))},
    )
    assert made.json()["result"] == "success", made.text
    https_client.cookies.clear()
    path = "/join/" + made.json()["invite_link"].rstrip("/").rsplit("/", 1)[1] + "/"
    page = await https_client.get(path)
    assert page.status_code == 200
    csrf = _cookie(page, "__Host-csrftoken")
    assert "Secure" in csrf and "HttpOnly" in csrf and "Path=/" in csrf and "Domain" not in csrf
    assert not any(c.startswith("csrftoken=") for c in page.headers.get_list("set-cookie"))
