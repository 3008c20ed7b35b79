"""Every path between chat and wiki finds the same person through the workspace identity, not
through a browser session that happens to be signed in to both: API clients read the wiki as
their own wiki user, and a wiki viewer sees the chat as their own chat user. A private stream
reaches no one outside it, and a deactivated member gets nothing from either side."""

from __future__ import annotations

import re

import httpx
import pytest
import sqlalchemy as sa

from atrium.chat import schema as chat_schema
from atrium.core.session_cookies import SESSION_COOKIE
from atrium.core.sessions import SessionStore
from atrium.core.sessions_schema import browser_session_login
from atrium.wiki.reads.users import account_by_name
from tests.bridge.conftest import WorkspaceHarness
from tests.chat.conftest import Member, assert_json_success

pytestmark = pytest.mark.anyio

SEARCH = "/w/index.php?title=Special:Search&search=budget&fulltext=1"


async def wiki_only_session(ws: WorkspaceHarness, wiki_user_id: int) -> str:
    """A browser session signed in to the wiki alone (as one made before the person's accounts
    were linked): whatever it sees of the chat comes through the identity."""
    store: SessionStore = ws.app.state.sessions
    token, session = await store.sign_in("wiki", wiki_user_id)
    await store.db.write(
        lambda conn: conn.execute(
            sa.delete(browser_session_login).where(
                browser_session_login.c.session_id == session.id,
                browser_session_login.c.service != "wiki",
            )
        )
    )
    assert (await store.get(token)).user_id("chat") is None  # type: ignore[union-attr]
    return token


async def wiki_page(ws: WorkspaceHarness, path: str, token: str | None) -> str:
    transport = httpx.ASGITransport(app=ws.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
        if token is not None:
            browser.cookies.set(SESSION_COOKIE, token)
        response = await browser.get(path)
        assert response.status_code in (200, 404), response.text
        return response.text


def chat_tab(page: str) -> str:
    found = re.search(r'<li id="ca-chat"[^>]*>.*?</li>', page)
    assert found is not None
    return found.group(0)


async def seed(ws: WorkspaceHarness) -> None:
    secret = await ws.make_stream("board", [ws.hamlet], invite_only=True)
    await ws.make_stream("Verona", [ws.hamlet, ws.cordelia])
    assert_json_success(
        await ws.patch("/atrium/workspace_settings", ws.iago, discussion_stream_id=secret)
    )
    await ws.edit_page("Budget", "The yearly budget.")
    await ws.send_stream(ws.hamlet, "board", "Budget", "the budget cut is secret")
    await ws.send_stream(ws.hamlet, "Verona", "plans", "the budget meeting is open")


async def test_a_wiki_session_sees_the_chat_as_its_person(workspace: WorkspaceHarness) -> None:
    await seed(workspace)
    hamlet = await wiki_only_session(workspace, await workspace.wiki_user_id(workspace.hamlet))
    assert ">Chat (1)<" in chat_tab(await wiki_page(workspace, "/wiki/Budget", hamlet))
    page = await wiki_page(workspace, SEARCH, hamlet)
    assert "board &gt; Budget" in page and "Verona &gt; plans" in page
    # Someone outside the private stream: the link, no count, none of its messages.
    cordelia = await wiki_only_session(workspace, await workspace.wiki_user_id(workspace.cordelia))
    assert ">Chat<" in chat_tab(await wiki_page(workspace, "/wiki/Budget", cordelia))
    page = await wiki_page(workspace, SEARCH, cordelia)
    assert "Verona &gt; plans" in page
    assert "board" not in page and "is secret" not in page
    # A wiki user no identity owns (a wiki-only editor) is no one in the chat.
    alice = await workspace.wiki.db.read(account_by_name, "Alice")
    assert alice is not None
    alone = await wiki_only_session(workspace, alice.id)
    assert ">Chat<" in chat_tab(await wiki_page(workspace, "/wiki/Budget", alone))
    assert "atrium-chat-results" not in await wiki_page(workspace, SEARCH, alone)


async def test_api_clients_read_the_wiki_as_their_own_wiki_user(
    workspace: WorkspaceHarness,
) -> None:
    await seed(workspace)
    await workspace.edit_page("Board minutes", "Budget agreed.")
    # Anonymous readers read nothing of a private wiki; members read it as themselves.
    workspace.wiki.site.audience = "private"
    try:
        for user in (workspace.hamlet, workspace.iago):
            found = assert_json_success(await workspace.get("/atrium/search", user, q="budget"))
            assert ("page", "Budget") in [(r["type"], r["title"]) for r in found["results"]]
            titles = assert_json_success(
                await workspace.get("/atrium/wiki_titles", user, prefix="Bo")
            )
            assert titles["titles"] == ["Board minutes"]
        found = assert_json_success(
            await workspace.get("/atrium/search", workspace.cordelia, q="budget")
        )
        assert all("board" not in r["title"] for r in found["results"])
        assert all("is secret" not in r["snippet"] for r in found["results"])
    finally:
        workspace.wiki.site.audience = "edit"


async def deactivate(ws: WorkspaceHarness, user: Member) -> None:
    assert_json_success(await ws.delete(f"/users/{user.id}", ws.iago))


async def test_a_deactivated_member_gets_nothing_from_either_side(
    workspace: WorkspaceHarness,
) -> None:
    await seed(workspace)
    wiki_id = await workspace.wiki_user_id(workspace.hamlet)
    store: SessionStore = workspace.app.state.sessions
    # A session opened before the deactivation (the deactivation ends it; this one is made
    # afterwards, as a stolen or stale cookie would be, to show nothing else lets it in).
    await deactivate(workspace, workspace.hamlet)
    token, _ = await store.sign_in("wiki", wiki_id)
    assert ">Chat<" in chat_tab(await wiki_page(workspace, "/wiki/Budget", token))
    assert "atrium-chat-results" not in await wiki_page(workspace, SEARCH, token)
    for path, params in (
        ("/atrium/search", {"q": "budget"}),
        ("/atrium/wiki_titles", {"prefix": "Bu"}),
        ("/atrium/wiki_preview", {"title": "Budget"}),
    ):
        response = await workspace.get(path, workspace.hamlet, **params)
        assert response.status_code == 401, (path, response.text)


async def test_the_chat_user_decides_when_the_identity_lags(workspace: WorkspaceHarness) -> None:
    """A deactivation the identity has not followed yet (following it failed) still shuts the
    wiki viewer out of the chat: the chat user is read as it stands."""
    await seed(workspace)
    wiki_id = await workspace.wiki_user_id(workspace.hamlet)
    token = await wiki_only_session(workspace, wiki_id)
    await workspace.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(chat_schema.user)
            .where(chat_schema.user.c.id == workspace.hamlet.id)
            .values(is_active=False)
        )
    )
    assert ">Chat<" in chat_tab(await wiki_page(workspace, "/wiki/Budget", token))
    assert "atrium-chat-results" not in await wiki_page(workspace, SEARCH, token)
