"""`Special:BotPasswords` over HTTP: a user creates a bot password with grants (shown once, not
cached), logs in with it through the API, resets it (the old password and the sessions opened
with it stop working) and deletes it; anonymous readers, foreign posts and bad bot names are
refused, and one user never sees or changes another's bot passwords."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.reads.users import account_by_name, bot_password, bot_password_grants

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Special:BotPasswords"
NEW_PASSWORD = re.compile(r"is <strong>([0-9a-f]{32})</strong>")


async def _bot_login(wiki: WikiHarness, client: httpx.AsyncClient, name: str, password: str) -> str:
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(client, action="login", lgname=name, lgpassword=password, lgtoken=token)
    return str(done["login"]["result"])


async def _user_name(wiki: WikiHarness, client: httpx.AsyncClient) -> str:
    info = await wiki.api(client, action="query", meta="userinfo")
    return str(info["query"]["userinfo"]["name"])


async def test_refusals_and_bad_names(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    # The grants the form offers, each with its rights, for anyone to read.
    grants = await client.get("/wiki/Special:ListGrants")
    assert grants.status_code == 200
    assert '<tr id="editpage"><td>Edit existing pages <code>' in grants.text
    assert '<span class="mw-listgrants-right-name">minoredit</span>' in grants.text
    assert "Special:Tags" in grants.text  # a right's description, its link rendered
    anonymous = await client.get("/wiki/Special:BotPasswords")
    assert anonymous.status_code == 200 and "Not logged in" in anonymous.text  # as 1.39 answers
    posted = await client.post(URL, data={"op": "new", "appId": "x"})
    assert posted.status_code == 200 and "Not logged in" in posted.text
    await sign_in(wiki, client, "Alice")
    page = await client.get("/wiki/Special:BotPasswords")
    assert page.status_code == 200 and "Create a new bot password" in page.text
    assert "tests" not in re.findall(r"BotPasswords/([^\"]+)\"", page.text)  # Robot's bot
    refused = await client.post(URL, data={"op": "new", "appId": "mybot"})
    assert refused.status_code == 200 and "location" not in refused.headers
    assert "session hijacking" in refused.text
    token = await page_token(client)
    for bad in ("", "x" * 33, "a@b", "<script>alert(1)</script>", "a|b", "a &amp b"):
        answer = await client.post(URL, data={"op": "new", "appId": bad, "wpEditToken": token})
        assert answer.status_code == 200, bad
        assert "is not valid" in answer.text and "<script>alert" not in answer.text
    long_name = await client.get("/wiki/Special:BotPasswords/" + "y" * 40)
    assert long_name.status_code == 200 and "is not valid" in long_name.text
    # Another user's bot name is a new one for Alice; deleting it leaves Robot's alone.
    robot = await wiki.db.read(account_by_name, "Robot")
    assert robot is not None
    other = await client.get("/wiki/Special:BotPasswords/tests")
    assert "Create a new bot password" in other.text and "Alice@tests" in other.text
    await client.post(
        URL.replace("BotPasswords", "BotPasswords/tests"),
        data={"op": "delete", "wpEditToken": token},
    )
    assert await wiki.db.read(bot_password, robot.id, "tests") is not None


async def test_create_use_reset_and_delete(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await sign_in(wiki, client, "Alice")
    token = await page_token(client)
    name = 'Bot "q" & co'
    moved = await client.post(URL, data={"op": "new", "appId": f"  {name} ", "wpEditToken": token})
    assert moved.status_code == 303
    edit_url = moved.headers["location"]
    assert edit_url.startswith("/wiki/Special:BotPasswords/Bot")
    form = await client.get(edit_url)
    assert form.status_code == 200 and "Create a new bot password" in form.text
    assert "Alice@Bot &#34;q&#34; &amp; co" in form.text
    assert 'value="grant-editpage"' in form.text and 'value="grant-basic"' not in form.text
    action = "/w/index.php?" + urlencode({"title": f"Special:BotPasswords/{name}"})
    made = await client.post(
        action, data={"op": "create", "wpgrants[]": ["grant-editpage", "grant-bogus"],
                      "wpEditToken": token},
    )  # fmt: skip
    assert made.status_code == 200, made.text
    assert "Bot password created" in made.text
    assert "no-store" in made.headers["cache-control"]
    found = NEW_PASSWORD.search(made.text)
    assert found is not None
    password = found.group(1)
    alice = await wiki.db.read(account_by_name, "Alice")
    assert alice is not None
    assert await wiki.db.read(bot_password_grants, alice.id, name) == ["basic", "editpage"]
    listing = await client.get("/wiki/Special:BotPasswords")
    assert "Bot &#34;q&#34; &amp; co</a>" in listing.text and password not in listing.text
    again = await client.post(action, data={"op": "create", "wpEditToken": token})
    assert again.status_code == 200 and "Was it already added?" in again.text
    async with wiki.client() as bot:
        assert await _bot_login(wiki, bot, f"Alice@{name}", password) == "Success"
        assert await _user_name(wiki, bot) == "Alice"
        # No token: nothing changes.
        refused = await client.post(action, data={"op": "update", "wpresetPassword": "1"})
        assert refused.status_code == 200 and "session hijacking" in refused.text
        assert await _user_name(wiki, bot) == "Alice"
        reset = await client.post(
            action, data={"op": "update", "wpresetPassword": "1", "wpgrants[]": "grant-patrol",
                          "wpEditToken": token},
        )  # fmt: skip
        assert reset.status_code == 200 and "Bot password updated" in reset.text
        fresh = NEW_PASSWORD.search(reset.text)
        assert fresh is not None and fresh.group(1) != password
        assert await _user_name(wiki, bot) != "Alice"  # its session ended
    assert await wiki.db.read(bot_password_grants, alice.id, name) == ["basic", "patrol"]
    async with wiki.client() as bot:
        assert await _bot_login(wiki, bot, f"Alice@{name}", password) != "Success"
        assert await _bot_login(wiki, bot, f"Alice@{name}", fresh.group(1)) == "Success"
    deleted = await client.post(action, data={"op": "delete", "wpEditToken": token})
    assert deleted.status_code == 200 and "Bot password deleted" in deleted.text
    assert NEW_PASSWORD.search(deleted.text) is None
    assert await wiki.db.read(bot_password, alice.id, name) is None
    cancel = await client.post(action, data={"op": "cancel", "wpEditToken": token})
    assert cancel.status_code == 303 and cancel.headers["location"] == "/wiki/Special:BotPasswords"
