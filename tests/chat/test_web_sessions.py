"""The browser's way in: the login page at /, session cookies, /json with CSRF, sign-out.

Through the ASGI app; the real browser flows are in tests/e2e/test_chat_browser.py.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.runtime import ChatRuntime
from atrium.core.page_headers import CONTENT_SECURITY_POLICY
from atrium.server import create_app
from atrium.settings import RateLimits, Settings
from tests.chat.conftest import ChatHarness, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio

PASSWORD = "lear-password-1"


async def login_form(client: httpx.AsyncClient) -> str:
    page = await client.get("/")
    assert page.status_code == 200
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match is not None, page.text
    return match.group(1)


async def sign_in(
    client: httpx.AsyncClient, email: str, password: str = PASSWORD
) -> httpx.Response:
    token = await login_form(client)
    return await client.post(
        "/login", data={"username": email, "password": password, "csrf_token": token}
    )


def csrf_of(page: httpx.Response) -> str:
    match = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text)
    assert match is not None, page.text
    return match.group(1)


@pytest.fixture
async def lear(chat: ChatHarness) -> str:
    await chat.make_user("lear", full_name="King Lear", password=PASSWORD)
    return "lear@zulip.test"


async def signed_in(chat: ChatHarness, email: str) -> str:
    response = await sign_in(chat.client, email)
    assert response.status_code == 303, response.text
    return csrf_of(await chat.client.get("/"))


async def test_login_page_when_signed_out(chat: ChatHarness) -> None:
    page = await chat.client.get("/")
    assert page.status_code == 200
    assert '<form method="post" action="/login"' in page.text
    assert 'id="login-email"' in page.text and 'type="password"' in page.text
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
    assert "unsafe-eval" not in CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert page.headers["x-frame-options"] == "DENY"
    assert "<script" not in page.text  # the login page runs no script at all


async def test_wrong_password_says_so(chat: ChatHarness, lear: str) -> None:
    response = await sign_in(chat.client, lear, "not-the-password")
    assert response.status_code == 401
    assert "Wrong email or password." in response.text
    assert 'value="lear@zulip.test"' in response.text  # the email stays filled in
    assert "atrium_session" not in response.headers.get("set-cookie", "")
    unknown = await sign_in(chat.client, "nobody@zulip.test", "x")
    assert unknown.status_code == 401 and "Wrong email or password." in unknown.text


async def test_sign_in_sets_a_session_cookie(chat: ChatHarness, lear: str) -> None:
    response = await sign_in(chat.client, lear)
    assert response.status_code == 303 and response.headers["location"] == "/"
    cookies = response.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("atrium_session="))
    assert "HttpOnly" in session and "SameSite=lax" in session and "Path=/" in session
    assert "Secure" not in session
    token = session.split(";")[0].split("=", 1)[1]
    assert len(token) >= 40 and "lear" not in token
    shell = await chat.client.get("/")
    assert 'id="feed"' in shell.text and 'type="module"' in shell.text
    assert len(csrf_of(shell)) >= 40
    assert re.search(r'src="/static/chat/main\.[0-9a-f]{12}\.js"', shell.text)


async def test_login_form_needs_its_csrf_token(chat: ChatHarness, lear: str) -> None:
    await login_form(chat.client)
    response = await chat.client.post(
        "/login", data={"username": lear, "password": PASSWORD, "csrf_token": "forged"}
    )
    assert response.status_code == 403
    assert "atrium_session" not in response.headers.get("set-cookie", "")


async def test_empty_fields(chat: ChatHarness) -> None:
    token = await login_form(chat.client)
    response = await chat.client.post(
        "/login", data={"username": "", "password": "", "csrf_token": token}
    )
    assert response.status_code == 400 and "Enter your email and password." in response.text


async def test_json_needs_a_session(chat: ChatHarness) -> None:
    response = await chat.client.get("/json/users/me")
    body = assert_json_error(
        response, "Not logged in: API authentication or user session required", 401, "UNAUTHORIZED"
    )
    assert body["result"] == "error"
    assert "www-authenticate" not in response.headers  # no browser password dialog
    missing = await chat.client.get("/json/no/such/endpoint")
    assert missing.status_code == 404 and missing.json()["result"] == "error"


async def test_json_with_session_and_csrf(chat: ChatHarness, lear: str) -> None:
    csrf = await signed_in(chat, lear)
    me = assert_json_success(await chat.client.get("/json/users/me"))
    assert me["email"] == lear
    await chat.make_stream("garden", [chat.lear])
    params = {"type": "stream", "to": "garden", "topic": "roses", "content": "hello"}
    missing = await chat.client.post("/json/messages", data=params)
    assert_json_error(missing, "CSRF error: CSRF token missing.", 403, "CSRF_FAILED")
    wrong = await chat.client.post("/json/messages", data=params, headers={"X-CSRFToken": "no"})
    assert_json_error(wrong, "CSRF error: CSRF token incorrect.", 403, "CSRF_FAILED")
    foreign = await chat.client.post(
        "/json/messages",
        data=params,
        headers={"X-CSRFToken": csrf, "Origin": "https://evil.example"},
    )
    assert_json_error(foreign, "CSRF error: Origin checking failed.", 403, "CSRF_FAILED")
    sent = assert_json_success(
        await chat.client.post("/json/messages", data=params, headers={"X-CSRFToken": csrf})
    )
    assert sent["id"] > 0
    got = assert_json_success(await chat.client.get(f"/json/messages/{sent['id']}"))
    assert got["raw_content"] == "hello"


async def test_api_v1_does_not_take_the_session(chat: ChatHarness, lear: str) -> None:
    await signed_in(chat, lear)
    response = await chat.client.get("/api/v1/users/me")
    assert response.status_code == 401
    assert "www-authenticate" in response.headers
    assert (await chat.client.get("/json/fetch_api_key")).status_code == 404


async def test_sign_out(chat: ChatHarness, lear: str) -> None:
    csrf = await signed_in(chat, lear)
    refused = await chat.client.post("/logout", data={"csrf_token": "wrong"})
    assert refused.status_code == 403
    assert (await chat.client.get("/json/users/me")).status_code == 200
    response = await chat.client.post("/logout", data={"csrf_token": csrf})
    assert response.status_code == 303
    assert 'atrium_session=""' in response.headers["set-cookie"]
    assert (await chat.client.get("/json/users/me")).status_code == 401
    assert 'action="/login"' in (await chat.client.get("/")).text


async def test_an_old_cookie_no_longer_works_after_sign_out(chat: ChatHarness, lear: str) -> None:
    csrf = await signed_in(chat, lear)
    token = chat.client.cookies["atrium_session"]
    await chat.client.post("/logout", data={"csrf_token": csrf})
    chat.client.cookies.set("atrium_session", token)
    stolen = await chat.client.get("/json/users/me")
    assert stolen.status_code == 401


async def test_deactivated_user_loses_the_session(chat: ChatHarness, lear: str) -> None:
    await signed_in(chat, lear)
    assert_json_success(await chat.delete(f"/users/{chat.lear.id}", chat.desdemona))
    assert (await chat.client.get("/json/users/me")).status_code == 401
    assert 'action="/login"' in (await chat.client.get("/")).text
    again = await sign_in(chat.client, lear)
    assert again.status_code == 401 and "Account is deactivated" in again.text


async def test_static_files_have_hashed_names(chat: ChatHarness, lear: str) -> None:
    await signed_in(chat, lear)
    shell = await chat.client.get("/")
    urls = re.findall(r'(?:href|src)="(/static/chat/[^"]+)"', shell.text)
    assert any(u.endswith(".css") for u in urls) and any(u.endswith(".js") for u in urls)
    for url in urls:
        response = await chat.client.get(url, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, url
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert response.headers["content-encoding"] == "gzip"
        assert response.headers["x-content-type-options"] == "nosniff"
        if url.endswith(".js"):
            assert response.headers["content-type"].startswith("text/javascript")
            # Every relative import names a hashed file, so caching a year is safe.
            for spec in re.findall(r'from "(\./[^"]+)"', response.text):
                assert re.fullmatch(r"\./[\w_]+\.[0-9a-f]{12}\.js", spec), spec
            assert "eval(" not in response.text and "new Function" not in response.text
    assert (await chat.client.get("/static/chat/main.js")).status_code == 404
    assert (await chat.client.get("/static/chat/main.000000000000.js")).status_code == 404


async def test_shell_lists_only_features_the_server_has(chat: ChatHarness, lear: str) -> None:
    from atrium.chat.app import api_routes
    from atrium.chat.http import RestRoute
    from atrium.chat.web.pages import FEATURE_PATHS, features

    await signed_in(chat, lear)
    shell = await chat.client.get("/")
    match = re.search(r'<meta name="atrium-features" content="([^"]*)">', shell.text)
    assert match is not None
    paths = {r.rest_path for r in api_routes(chat.runtime) if isinstance(r, RestRoute)}
    assert match.group(1) == features(paths)
    assert features({"/typing", "/messages/{message_id:int}/reactions"}) == "reactions typing"
    assert set(FEATURE_PATHS) >= set(match.group(1).split())


@pytest.fixture
async def limited(data_dir: Path, database_url: str | None) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        data_dir=data_dir,
        database_url=database_url,
        rate_limits=RateLimits(enabled=True),
        external_url="https://chat.example",
    )
    app = create_app(settings, services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        realm_id = await runtime.db.write(create_realm, "Limited", "limited")
        await runtime.db.write(
            create_user, realm_id, NewUser(email="kent@x.test", full_name="Kent", password=PASSWORD)
        )
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://chat.example") as c:
            yield c


async def test_secure_cookie_when_the_public_url_is_https(limited: httpx.AsyncClient) -> None:
    response = await sign_in(limited, "kent@x.test")
    assert response.status_code == 303
    session = next(
        c for c in response.headers.get_list("set-cookie") if c.startswith("__Host-atrium_session=")
    )
    assert "Secure" in session and "HttpOnly" in session


async def test_login_shares_fetch_api_keys_rate_limit(limited: httpx.AsyncClient) -> None:
    for _ in range(3):
        assert (await sign_in(limited, "kent@x.test", "wrong")).status_code == 401
    for _ in range(2):
        wrong = await limited.post(
            "/api/v1/fetch_api_key", data={"username": "KENT@x.test", "password": "wrong"}
        )
        assert wrong.status_code == 401
    # Five tries are spent; even the right password now waits.
    blocked = await sign_in(limited, "kent@x.test")
    assert blocked.status_code == 429
    assert "Too many sign-in attempts for this account. Try again in" in blocked.text
    assert "atrium_session" not in blocked.headers.get("set-cookie", "")


async def test_sessions_survive_a_restart(data_dir: Path, database_url: str | None) -> None:
    settings = Settings(
        data_dir=data_dir, database_url=database_url, rate_limits=RateLimits(enabled=False)
    )
    first = create_app(settings, services=("chat",))
    runtime: ChatRuntime = first.state.services["chat"].state["runtime"]
    async with first.router.lifespan_context(first):
        realm_id = await runtime.db.write(create_realm, "Restart", "restart")
        await runtime.db.write(
            create_user,
            realm_id,
            NewUser(email="edgar@x.test", full_name="Edgar", password=PASSWORD),
        )
        transport = httpx.ASGITransport(app=first)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            assert (await sign_in(c, "edgar@x.test")).status_code == 303
            token = c.cookies["atrium_session"]
    second = create_app(settings, services=("chat",))
    async with second.router.lifespan_context(second):
        transport = httpx.ASGITransport(app=second)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", cookies={"atrium_session": token}
        ) as c:
            me = assert_json_success(await c.get("/json/users/me"))
            assert me["email"] == "edgar@x.test"
