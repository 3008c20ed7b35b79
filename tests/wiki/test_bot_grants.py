"""Bot-password grants are enforced: the session has only the rights of its grants (plus
`basic`'s), intersected with the account's, as MediaWiki's BotPasswordSessionProvider."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.accounts.grants import GRANT_RIGHTS, allowed_rights, parse_grants
from atrium.wiki.changes.accounts import create_bot_password

pytestmark = pytest.mark.anyio


async def _bot_login(
    wiki: WikiHarness, client: httpx.AsyncClient, user: str, app: str, grants: list[str]
) -> None:
    user_id = await wiki._user_id(user)
    password = await wiki.db.write(lambda conn: create_bot_password(conn, user_id, app, grants))
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    done = await wiki.post(
        client, action="login", lgname=f"{user}@{app}", lgpassword=password, lgtoken=token
    )
    assert done["login"]["result"] == "Success", done


async def _rights(wiki: WikiHarness, client: httpx.AsyncClient) -> set[str]:
    info = await wiki.api(client, action="query", meta="userinfo", uiprop="rights|groups")
    return set(info["query"]["userinfo"]["rights"])


def test_grant_table_and_parsing() -> None:
    assert parse_grants('["basic","editpage"]') == ["basic", "editpage"]
    assert parse_grants("basic,highvolume") == ["basic", "highvolume"]
    assert parse_grants("") == []
    assert "edit" in GRANT_RIGHTS["editpage"] and "bot" in GRANT_RIGHTS["highvolume"]
    # `basic` comes with every bot password.
    assert allowed_rights([]) == frozenset(GRANT_RIGHTS["basic"])
    assert "edit" not in allowed_rights([])


async def test_basic_only_bot_password_cannot_edit_or_act_as_bot(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _bot_login(wiki, client, "Robot", "readonly", ["basic"])
    rights = await _rights(wiki, client)
    assert "read" in rights and "writeapi" in rights
    assert not rights & {"edit", "bot", "apihighlimits", "createpage"}
    # The account's groups are unchanged; only the session's rights are narrowed.
    info = await wiki.api(client, action="query", meta="userinfo", uiprop="groups")
    assert "bot" in info["query"]["userinfo"]["groups"]
    refused = await wiki.api(client, action="query", meta="userinfo", **{"assert": "bot"})
    assert refused["error"]["code"] == "assertbotfailed"
    csrf = await wiki.csrf(client)
    denied = await wiki.post(client, action="edit", title="Grant test", text="x", token=csrf)
    assert denied["error"]["code"] == "permissiondenied"
    # apihighlimits is not granted: limits above 500 are clamped to 500.
    limited = await wiki.api(client, action="query", list="allpages", aplimit="max")
    assert limited["limits"]["allpages"] == 500


async def test_granted_rights_are_usable(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await _bot_login(wiki, client, "Robot", "editor", ["basic", "highvolume", "editpage"])
    rights = await _rights(wiki, client)
    assert {"edit", "bot", "apihighlimits", "minoredit"} <= rights
    # createpage is not in these grants (createeditmovepage carries it): pages cannot be created.
    assert "createpage" not in rights
    csrf = await wiki.csrf(client)
    created = await wiki.post(client, action="edit", title="Grant test", text="x", token=csrf)
    # PermissionManager::checkQuickPermissions: `nocreate-loggedin`, whose API code is cantcreate.
    assert created["error"]["code"] == "cantcreate"
    assert created["error"]["info"] == "You do not have permission to create new pages."
    await wiki.edit_page("Grant test", "first")
    edited = await wiki.post(client, action="edit", title="Grant test", text="second", token=csrf)
    assert edited["edit"]["result"] == "Success"
    limited = await wiki.api(client, action="query", list="allpages", aplimit="max")
    assert limited["limits"]["allpages"] == 5000


async def test_grants_never_add_rights_the_account_lacks(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _bot_login(wiki, client, "Alice", "wide", ["basic", "highvolume", "delete", "protect"])
    rights = await _rights(wiki, client)
    assert not rights & {"bot", "apihighlimits", "delete", "protect"}
    assert "edit" in rights  # granted by `delete`/`protect` and held by every user


async def test_main_account_session_is_not_restricted(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Robot")
    assert {"bot", "edit", "createpage"} <= await _rights(wiki, client)
