"""Signing in and out in a browser: Special:UserLogin, UserLogout, CreateAccount and
ChangePassword, their CSRF checks and throttle, and the browser session in `api.php`."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import PASSWORDS, WikiHarness
from tests.wiki.web_forms import LOGIN, hidden, sign_in

from atrium.wiki.changes.accounts import create_bot_password

pytestmark = pytest.mark.anyio


async def test_login_form_has_mediawikis_fields(client: httpx.AsyncClient) -> None:
    page = (await client.get("/wiki/Special:UserLogin")).text
    for fragment in (
        'name="wpName"',
        'id="wpName1"',
        'name="wpPassword"',
        'id="wpPassword1"',
        'name="wpRemember"',
        'name="wploginattempt"',
        'name="wpLoginToken"',
        'id="p-personal"',
        'id="pt-login"',
    ):
        assert fragment in page, fragment
    assert "atrium_login_csrf" in client.cookies


async def test_sign_in_then_the_api_knows_the_browser(client: httpx.AsyncClient) -> None:
    response = await sign_in(client, "Alice")
    assert response.status_code == 302
    assert response.headers["location"] == "/wiki/Main_Page"
    cookie = response.headers["set-cookie"]
    assert "atrium_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    page = (await client.get("/wiki/Main_Page")).text
    assert 'id="pt-userpage"' in page and ">Alice</a>" in page
    info = (await client.get("/w/api.php?action=query&meta=userinfo&format=json")).json()
    assert info["query"]["userinfo"]["name"] == "Alice"
    tokens = (await client.get("/w/api.php?action=query&meta=tokens&format=json")).json()
    token = tokens["query"]["tokens"]["csrftoken"]
    assert token != "+\\"
    edit = await client.post(
        "/w/api.php",
        data={
            "action": "edit",
            "title": "Via browser",
            "text": "Hi",
            "token": token,
            "format": "json",
        },
    )
    assert edit.json()["edit"]["result"] == "Success"
    history = (await client.get("/w/index.php?title=Via_browser&action=history")).text
    assert "Alice" in history


async def test_wrong_password_and_forged_token_are_refused(client: httpx.AsyncClient) -> None:
    wrong = await sign_in(client, "Alice", "not-the-password")
    assert wrong.status_code == 200
    assert "Incorrect username or password entered" in wrong.text
    assert "atrium_session" not in client.cookies
    forged = await client.post(
        LOGIN, data={"wpName": "Alice", "wpPassword": PASSWORDS["Alice"], "wpLoginToken": "x"}
    )
    assert forged.status_code == 200 and "session hijacking" in forged.text
    other_origin = await client.post(
        LOGIN,
        data={
            "wpName": "Alice",
            "wpPassword": PASSWORDS["Alice"],
            "wpLoginToken": client.cookies["atrium_login_csrf"],
        },
        headers={"Origin": "http://evil.example"},
    )
    assert other_origin.status_code == 200 and "session hijacking" in other_origin.text
    assert "atrium_session" not in client.cookies


async def test_login_attempts_are_throttled(client: httpx.AsyncClient) -> None:
    for _ in range(5):
        assert (await sign_in(client, "Alice", "wrong-guess")).status_code == 200
    # The sixth try is refused even with the right password.
    sixth = await sign_in(client, "Alice")
    # The login form again with AuthManager's refusal, at 200 (as MediaWiki 1.39).
    assert sixth.status_code == 200
    assert "too many recent login attempts" in sixth.text
    assert "atrium_session" not in client.cookies


async def test_sign_out_needs_a_post_with_the_token(client: httpx.AsyncClient) -> None:
    await sign_in(client, "Alice")
    confirm = await client.get("/wiki/Special:UserLogout")
    assert "Do you want to log out?" in confirm.text
    assert 'id="pt-userpage"' in (await client.get("/wiki/Main_Page")).text
    refused = await client.post(
        "/w/index.php?title=Special:UserLogout", data={"wpEditToken": "forged"}
    )
    assert refused.status_code == 200 and "session hijacking" in refused.text
    token = hidden(confirm.text, "wpEditToken")
    done = await client.post("/w/index.php?title=Special:UserLogout", data={"wpEditToken": token})
    assert done.status_code == 200 and "You are now logged out" in done.text
    assert 'id="pt-login"' in (await client.get("/wiki/Main_Page")).text
    info = (await client.get("/w/api.php?action=query&meta=userinfo&format=json")).json()
    assert "anon" in info["query"]["userinfo"]


async def test_api_logout_ends_the_browser_session(client: httpx.AsyncClient) -> None:
    await sign_in(client, "Alice")
    tokens = (await client.get("/w/api.php?action=query&meta=tokens&format=json")).json()
    out = await client.post(
        "/w/api.php",
        data={
            "action": "logout",
            "token": tokens["query"]["tokens"]["csrftoken"],
            "format": "json",
        },
    )
    assert out.json() == {}
    assert 'id="pt-login"' in (await client.get("/wiki/Main_Page")).text


async def test_create_account_signs_in(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    form = await client.get("/wiki/Special:CreateAccount")
    token = hidden(form.text, "wpCreateaccountToken")
    data = {"wpName": "Newbie", "wpPassword": "a-long-new-pass-9", "retype": "mismatch",
            "wpCreateaccountToken": token}  # fmt: skip
    mismatch = await client.post("/w/index.php?title=Special:CreateAccount", data=data)
    assert mismatch.status_code == 200 and "do not match" in mismatch.text
    taken = await client.post(
        "/w/index.php?title=Special:CreateAccount",
        data={**data, "wpName": "Alice", "retype": data["wpPassword"]},
    )
    assert taken.status_code == 200 and "already in use" in taken.text
    made = await client.post(
        "/w/index.php?title=Special:CreateAccount", data={**data, "retype": data["wpPassword"]}
    )
    assert made.status_code == 302
    page = (await client.get("/wiki/Main_Page")).text
    assert ">Newbie</a>" in page


async def test_change_password(client: httpx.AsyncClient) -> None:
    anonymous = await client.get("/wiki/Special:ChangePassword")
    assert anonymous.status_code == 302 and "Special:UserLogin" in anonymous.headers["location"]
    await sign_in(client, "Alice")
    form = await client.get("/wiki/Special:ChangePassword")
    token = hidden(form.text, "wpEditToken")
    fields = {"currentpassword": "wrong", "password": "brand-new-pass-77", "retype": "brand-new-pass-77",
              "wpEditToken": token}  # fmt: skip
    url = "/w/index.php?title=Special:ChangePassword"
    wrong = await client.post(url, data=fields)
    assert wrong.status_code == 200 and "Incorrect username or password" in wrong.text
    changed = await client.post(url, data={**fields, "currentpassword": PASSWORDS["Alice"]})
    assert changed.status_code == 302
    assert "Your password has been changed" in (await client.get(changed.headers["location"])).text
    client.cookies.clear()
    old = await sign_in(client, "Alice")
    assert old.status_code == 200 and "Incorrect username or password" in old.text
    assert (await sign_in(client, "Alice", "brand-new-pass-77")).status_code == 302


async def _api_login(wiki: WikiHarness, client: httpx.AsyncClient, name: str) -> None:
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        client, action="login", lgname=name, lgpassword=PASSWORDS[name], lgtoken=token
    )
    assert done["login"]["result"] == "Success", done


async def test_api_login_signs_the_pages_in(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _api_login(wiki, client, "Alice")
    # One session: the shared store's cookie, no second API session beside it.
    assert "atrium_session" in client.cookies
    assert "atriumwiki_session" not in client.cookies
    page = (await client.get("/wiki/Main_Page")).text
    assert 'id="pt-userpage"' in page and ">Alice</a>" in page and 'id="pt-login"' not in page
    # The pages' forms work as that user: an edit saved through index.php is Alice's.
    form = (await client.get("/w/index.php?title=From_the_api&action=edit")).text
    saved = await client.post(
        "/w/index.php?title=From_the_api&action=submit",
        data={
            "wpTextbox1": "Signed in by action=login",
            "wpSummary": "",
            "wpEditToken": hidden(form, "wpEditToken"),
            "wpEdittime": hidden(form, "wpEdittime"),
            "wpStarttime": hidden(form, "wpStarttime"),
            "wpSave": "Save changes",
        },
    )
    assert saved.status_code == 303, saved.text[:500]
    history = (await client.get("/w/index.php?title=From_the_api&action=history")).text
    assert ">Alice</bdi>" in history
    # And the API still knows the caller, with working tokens, until it logs out.
    info = await wiki.api(client, action="query", meta="userinfo")
    assert info["query"]["userinfo"]["name"] == "Alice"
    out = await wiki.post(client, action="logout", token=await wiki.csrf(client))
    assert out == {}
    assert 'id="pt-login"' in (await client.get("/wiki/Main_Page")).text


async def test_clientlogin_signs_the_pages_in(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    page = (await client.get("/wiki/Main_Page")).text
    assert ">Admin</a>" in page and 'id="pt-logout"' in page


async def test_api_login_replaces_the_browsers_session_whole(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """Signing in through the API replaces the browser's session (a new token), as the login
    form does; the old session's other sign-ins do not carry over (it may have been planted)."""
    store = wiki.app.state.sessions
    # The browser holds a session signed in to the chat (user 7 there).
    chat_token, _chat = await store.sign_in("chat", 7)
    client.cookies.set("atrium_session", chat_token, domain="127.0.0.1", path="/")
    await sign_in(client, "Alice")
    before = client.cookies["atrium_session"]
    assert await store.get(chat_token) is None
    await _api_login(wiki, client, "Admin")
    after = client.cookies["atrium_session"]
    assert after != before
    assert await store.get(before) is None
    session = await store.get(after)
    assert session is not None and dict(session.logins) == {"wiki": session.user_id("wiki")}
    page = (await client.get("/wiki/Main_Page")).text
    assert ">Admin</a>" in page


async def test_bot_password_login_stays_out_of_the_pages(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """A bot password's session has only its grants: the pages, which would give it every right
    of the account, do not take it."""
    user_id = await wiki._user_id("Alice")
    password = await wiki.db.write(
        lambda conn: create_bot_password(conn, user_id, "tool", ["basic"])
    )
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        client, action="login", lgname="Alice@tool", lgpassword=password, lgtoken=token
    )
    assert done["login"]["result"] == "Success", done
    info = await wiki.api(client, action="query", meta="userinfo")
    assert info["query"]["userinfo"]["name"] == "Alice"
    assert 'id="pt-login"' in (await client.get("/wiki/Main_Page")).text
