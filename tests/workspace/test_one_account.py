"""One person, one account: a member's identity owns a chat user and a wiki user, with one
password and one browser session for both services."""

from __future__ import annotations

import httpx
import pytest

from atrium.chat.models import ROLE_MODERATOR, ROLE_OWNER
from atrium.workspace.wiki_names import base_name
from tests.wiki.web_forms import hidden
from tests.workspace.conftest import PASSWORD, Workspace
from tests.workspace.signing import chat_sign_in, csrf_of, wiki_sign_in, wiki_user

pytestmark = pytest.mark.anyio


def test_wiki_names_are_normalised_titles() -> None:
    assert base_name("maya  lin") == "Maya lin"
    assert base_name("Ann_Lee [ops]") == "Ann Lee ops"
    assert base_name("a@b:c") == "A b c"
    assert base_name("###") == "Member"


async def test_a_member_has_a_chat_user_and_a_wiki_user(workspace: Workspace) -> None:
    first = await workspace.member("maya@example.com", "Maya Lin")
    second = await workspace.member("other.maya@example.com", "Maya Lin")
    assert (first.wiki_name, second.wiki_name) == ("Maya Lin", "Maya Lin 2")
    # Creation is idempotent: the same person again is the same member.
    again = await workspace.member("MAYA@example.com", "Maya Lin")
    assert again == first


async def test_signing_in_to_the_chat_signs_in_to_the_wiki(workspace: Workspace) -> None:
    maya = await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    assert (await chat_sign_in(client, "maya@example.com")).status_code == 303
    info = await wiki_user(client)
    assert info["name"] == "Maya Lin"
    # The identity's id is the chat's user id, in both services' answers.
    assert info["centralids"] == {"local": maya.wiki_user_id, "CentralAuth": maya.chat_user_id}
    me = (await client.get("/json/users/me")).json()
    assert me["user_id"] == maya.chat_user_id
    assert "identity_id" not in me


async def test_the_wiki_form_takes_the_email_and_signs_in_to_the_chat(
    workspace: Workspace,
) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    assert (await wiki_sign_in(client, "maya@example.com")).status_code == 302
    assert (await client.get("/json/users/me")).status_code == 200
    # Signing out of the wiki signs out of both.
    page = await client.get("/w/index.php?title=Special:UserLogout")
    from tests.wiki.web_forms import hidden

    await client.post(
        "/w/index.php?title=Special:UserLogout",
        data={"wpEditToken": hidden(page.text, "wpEditToken")},
    )
    assert (await client.get("/json/users/me")).status_code == 401
    assert (await wiki_user(client)).get("anon") is True


async def test_the_chat_form_takes_the_wiki_user_name(workspace: Workspace) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    assert (await chat_sign_in(client, "Maya Lin", "wrong-password")).status_code == 401
    assert (await chat_sign_in(client, "Maya_Lin")).status_code == 303
    assert (await wiki_user(client))["name"] == "Maya Lin"
    # Signing out of the chat signs out of both.
    csrf = csrf_of(await client.get("/"))
    assert (await client.post("/logout", data={"csrf_token": csrf})).status_code == 303
    assert (await wiki_user(client)).get("anon") is True


async def _api_login(client: httpx.AsyncClient, name: str, password: str) -> dict[str, object]:
    tokens = await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "tokens", "type": "login", "format": "json"},
    )
    token = tokens.json()["query"]["tokens"]["logintoken"]
    done = await client.post(
        "/w/api.php",
        data={"action": "login", "lgname": name, "lgpassword": password, "lgtoken": token,
              "format": "json"},
    )  # fmt: skip
    result: dict[str, object] = done.json()["login"]
    return result


async def test_action_login_takes_the_persons_password(workspace: Workspace) -> None:
    maya = await workspace.member("maya@example.com", "Maya Lin")
    async with workspace.browser() as client:
        assert (await _api_login(client, "Maya Lin", "nope-nope-nope"))["result"] == "Failed"
        done = await _api_login(client, "Maya Lin", PASSWORD)
        assert done["result"] == "Success" and done["lguserid"] == maya.wiki_user_id
        assert (await client.get("/json/users/me")).status_code == 200


async def test_a_password_change_applies_to_both(workspace: Workspace) -> None:
    await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    await wiki_sign_in(client, "Maya Lin")
    from tests.wiki.web_forms import hidden

    url = "/w/index.php?title=Special:ChangePassword"
    token = hidden((await client.get(url)).text, "wpEditToken")
    new = "a-brand-new-password-9"
    changed = await client.post(
        url,
        data={"currentpassword": PASSWORD, "password": new, "retype": new, "wpEditToken": token},
    )
    assert changed.status_code == 302
    async with workspace.browser() as other:
        assert (await chat_sign_in(other, "maya@example.com")).status_code == 401
        assert (await chat_sign_in(other, "maya@example.com", new)).status_code == 303
        key = await other.post(
            "/api/v1/fetch_api_key", data={"username": "maya@example.com", "password": new}
        )
        assert key.status_code == 200, key.text


async def test_the_chat_role_decides_the_wiki_groups(workspace: Workspace) -> None:
    olivia = await workspace.member("olivia@example.com", "Olivia", ROLE_OWNER)
    maya = await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    await chat_sign_in(client, "maya@example.com")
    assert "sysop" not in (await wiki_user(client))["groups"]  # type: ignore[operator]
    # The owner makes Maya a moderator in the chat: the wiki follows at once.
    async with workspace.browser() as owner:
        await chat_sign_in(owner, "olivia@example.com")
        csrf = csrf_of(await owner.get("/"))
        changed = await owner.patch(
            f"/json/users/{maya.chat_user_id}",
            data={"role": str(ROLE_MODERATOR)},
            headers={"X-CSRFToken": csrf},
        )
        assert changed.status_code == 200, changed.text
        groups = (await wiki_user(owner))["groups"]
        assert {"sysop", "bureaucrat", "interface-admin", "suppress"} <= set(groups)  # type: ignore[arg-type]
        assert olivia.wiki_name == "Olivia"
        # userrights may not take away what the role gives.
        tokens = await owner.get(
            "/w/api.php",
            params={"action": "query", "meta": "tokens", "type": "userrights", "format": "json"},
        )
        token = tokens.json()["query"]["tokens"]["userrightstoken"]
        refused = await owner.post(
            "/w/api.php",
            data={"action": "userrights", "user": "Maya Lin", "remove": "sysop", "token": token,
                  "format": "json"},
        )  # fmt: skip
        assert refused.json()["error"]["code"] == "cantremove"
        added = await owner.post(
            "/w/api.php",
            data={"action": "userrights", "user": "Maya Lin", "add": "bot", "token": token,
                  "format": "json"},
        )  # fmt: skip
        assert added.json()["userrights"]["added"] == ["bot"]
        # Nor may Special:UserRights (unticking sysop while keeping bot).
        url = "/w/index.php?title=Special:UserRights"
        form_token = hidden((await owner.get(url + "&user=Maya_Lin")).text, "wpEditToken")
        page = await owner.post(
            url, data={"user": "Maya Lin", "wpGroup-bot": "1", "wpEditToken": form_token}
        )
        assert page.status_code == 200 and "follow this user" in page.text
    assert {"sysop", "bot"} <= set((await wiki_user(client))["groups"])  # type: ignore[arg-type]


async def test_a_deactivated_member_is_out_of_both(workspace: Workspace) -> None:
    await workspace.member("olivia@example.com", "Olivia", ROLE_OWNER)
    maya = await workspace.member("maya@example.com", "Maya Lin")
    client = workspace.client
    await chat_sign_in(client, "maya@example.com")
    async with workspace.browser() as owner:
        await chat_sign_in(owner, "olivia@example.com")
        csrf = csrf_of(await owner.get("/"))
        gone = await owner.delete(f"/json/users/{maya.chat_user_id}", headers={"X-CSRFToken": csrf})
        assert gone.status_code == 200, gone.text
    # The open session is over in both services, and no way back in is left.
    assert (await client.get("/json/users/me")).status_code == 401
    assert (await wiki_user(client)).get("anon") is True
    async with workspace.browser() as attacker:
        for name in ("maya@example.com", "Maya Lin"):
            refused = await wiki_sign_in(attacker, name)
            assert refused.status_code == 200 and "Incorrect username or password" in refused.text
        assert (await _api_login(attacker, "Maya Lin", PASSWORD))["result"] == "Failed"
        assert (await chat_sign_in(attacker, "Maya Lin")).status_code == 401
        assert (await chat_sign_in(attacker, "maya@example.com")).status_code == 401
        assert (await wiki_user(attacker)).get("anon") is True
    # Reactivated, the person signs in to both again.
    async with workspace.browser() as owner:
        await chat_sign_in(owner, "olivia@example.com")
        csrf = csrf_of(await owner.get("/"))
        back = await owner.post(
            f"/json/users/{maya.chat_user_id}/reactivate", headers={"X-CSRFToken": csrf}
        )
        assert back.status_code == 200, back.text
    async with workspace.browser() as again:
        assert (await wiki_sign_in(again, "Maya Lin")).status_code == 302
        assert (await again.get("/json/users/me")).status_code == 200


async def test_the_chat_form_asks_for_either_name(workspace: Workspace) -> None:
    page = (await workspace.client.get("/login")).text
    assert "Email or wiki user name" in page and 'type="text"' in page
