"""A chat upload's link opened in a browser never shows the browser's password dialog.

The attack surface: `/user_uploads/…` without credentials answered 401 with
`WWW-Authenticate: Basic`, so a browser opening the link prompted for a user name and password;
whoever typed an email and API key there had the browser send them, as Basic credentials, on
later cross-site requests to `/api/v1`. Now a browser is sent to the sign-in page (as Zulip
does) or served through its chat session; API clients with Basic credentials work as before.
"""

from __future__ import annotations

import pytest

from tests.chat import conftest as chat_fixtures
from tests.chat.conftest import ChatHarness, assert_json_success
from tests.chat.test_uploads import fetch, post_files
from tests.chat.test_web_sessions import sign_in

pytestmark = pytest.mark.anyio

# The chat's harness (its conftest is not this folder's).
chat = chat_fixtures.chat
settings = chat_fixtures.settings

PASSWORD = "lear-password-1"


async def test_no_credentials_is_sent_to_sign_in_without_a_challenge(chat: ChatHarness) -> None:
    resp = await post_files(chat, "/user_uploads", chat.hamlet, [("n.txt", b"notes", "text/plain")])
    uri = assert_json_success(resp)["uri"]
    opened = await fetch(chat, uri, None)
    assert opened.status_code == 302
    assert opened.headers["location"] == "/login"
    assert "www-authenticate" not in opened.headers


async def test_wrong_basic_credentials_get_no_challenge(chat: ChatHarness) -> None:
    resp = await post_files(chat, "/user_uploads", chat.hamlet, [("n.txt", b"notes", "text/plain")])
    uri = assert_json_success(resp)["uri"]
    wrong = await fetch(chat, uri, None, authorization="Basic aGFtbGV0QHp1bGlwLnRlc3Q6d3Jvbmc=")
    assert wrong.status_code == 401
    assert "www-authenticate" not in wrong.headers
    # An API client with its key still gets the file.
    assert (await fetch(chat, uri, chat.hamlet)).content == b"notes"


async def test_a_signed_in_browser_opens_the_link(chat: ChatHarness) -> None:
    lear = await chat.make_user("lear", full_name="King Lear", password=PASSWORD)
    resp = await post_files(chat, "/user_uploads", lear, [("n.txt", b"lear's notes", "text/plain")])
    uri = assert_json_success(resp)["uri"]
    assert (await sign_in(chat.client, "lear@zulip.test", PASSWORD)).status_code == 303
    opened = await chat.client.get(uri)
    assert opened.status_code == 200 and opened.content == b"lear's notes"
    # Someone else's private file stays refused for this session.
    other = await post_files(chat, "/user_uploads", chat.hamlet, [("h.txt", b"h", "text/plain")])
    assert (await chat.client.get(assert_json_success(other)["uri"])).status_code == 403
