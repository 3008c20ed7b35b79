"""The one search: messages the searcher may read and pages they may read, in one list, through
`/api/v1/atrium/search`, its `/json` twin, and the wiki's `Special:Search`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from atrium.core.session_cookies import SESSION_COOKIE
from atrium.core.sessions import SessionStore
from atrium.workspace.bridge.query import split_query
from tests.bridge.conftest import WorkspaceHarness
from tests.chat.conftest import Member, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio


async def search(ws: WorkspaceHarness, user: Member, q: str, **extra: Any) -> list[dict[str, Any]]:
    body = assert_json_success(await ws.get("/atrium/search", user, q=q, **extra))
    results: list[dict[str, Any]] = body["results"]
    return results


async def seed(ws: WorkspaceHarness) -> None:
    await ws.make_stream("Verona", [ws.hamlet, ws.cordelia])
    await ws.make_stream("secret", [ws.hamlet], invite_only=True)
    await ws.send_stream(ws.hamlet, "Verona", "budget", "The budget meeting is on Monday")
    await ws.send_stream(ws.hamlet, "secret", "plans", "The budget cut is secret")
    await ws.edit_page("Budget", "The yearly budget, line by line.")
    await ws.edit_page("Help:Budget forms", "How to fill the budget forms.")


async def test_messages_and_pages_in_one_list(workspace: WorkspaceHarness) -> None:
    await seed(workspace)
    results = await search(workspace, workspace.hamlet, "budget")
    kinds = [(r["type"], r["title"]) for r in results]
    assert ("page", "Budget") in kinds
    assert ("message", "Verona > budget") in kinds
    assert ("message", "secret > plans") in kinds
    page = next(r for r in results if r["type"] == "page")
    assert page["url"] == "/wiki/Budget"
    assert "<span class='searchmatch'>budget</span>" in page["snippet"]
    message = next(r for r in results if r["title"] == "Verona > budget")
    assert message["url"].startswith("/#narrow/stream/")
    assert message["url"].endswith(f"/near/{message['id']}")
    assert message["sender_full_name"] == "King Hamlet"


async def test_private_stream_messages_reach_only_its_readers(workspace: WorkspaceHarness) -> None:
    await seed(workspace)
    for query in ("budget", "secret", "stream:secret", "topic:plans cut"):
        results = await search(workspace, workspace.cordelia, query)
        assert all("secret" not in r["title"] and "cut" not in r["snippet"] for r in results), query
    assert await search(workspace, workspace.polonius, "budget meeting") == [
        r
        for r in await search(workspace, workspace.polonius, "budget meeting")
        if r["type"] == "page"
    ]


async def test_narrow_operators_apply_to_messages_only(workspace: WorkspaceHarness) -> None:
    await seed(workspace)
    results = await search(workspace, workspace.hamlet, "stream:Verona budget")
    assert [r["title"] for r in results if r["type"] == "message"] == ["Verona > budget"]
    assert [r["title"] for r in results if r["type"] == "page"] == ["Budget"]
    # Only an operator: no page search at all.
    results = await search(workspace, workspace.hamlet, "topic:plans")
    assert [r["title"] for r in results] == ["secret > plans"]
    # Negation.
    results = await search(workspace, workspace.hamlet, "-stream:Verona budget")
    assert [r["title"] for r in results if r["type"] == "message"] == ["secret > plans"]


async def test_mediawiki_syntax_applies_to_pages_only(workspace: WorkspaceHarness) -> None:
    await seed(workspace)
    # A namespace prefix searches that namespace.
    results = await search(workspace, workspace.hamlet, "Help:forms")
    assert [r["title"] for r in results if r["type"] == "page"] == ["Help:Budget forms"]
    results = await search(workspace, workspace.hamlet, "all:budget")
    assert {r["title"] for r in results if r["type"] == "page"} == {"Budget", "Help:Budget forms"}
    # prefix: matches titles, and is no message search.
    results = await search(workspace, workspace.hamlet, "prefix:Help:Bud")
    assert [(r["type"], r["title"]) for r in results] == [("page", "Help:Budget forms")]
    # -word excludes pages; a phrase must match as one.
    results = await search(workspace, workspace.hamlet, "budget -yearly")
    assert "Budget" not in [r["title"] for r in results if r["type"] == "page"]
    results = await search(workspace, workspace.hamlet, '"line by line"')
    assert [r["title"] for r in results if r["type"] == "page"] == ["Budget"]


def test_query_split() -> None:
    from atrium.wiki.site import Site
    from atrium.wiki.titles import Namespaces

    site = Site("http://x", Namespaces.standard(), "secret")
    split = split_query(site, 'stream:"Design team" -is:starred "exact words" -draft rest')
    assert split.narrow == [
        {"operator": "stream", "operand": "Design team", "negated": False},
        {"operator": "is", "operand": "starred", "negated": True},
        {"operator": "search", "operand": "exact words rest"},
    ]
    assert split.page_text == '"exact words" -draft rest'


async def test_pages_only_for_readers_of_the_wiki(workspace: WorkspaceHarness) -> None:
    await seed(workspace)
    bot = await workspace.make_user("helper-bot", bot_owner=workspace.hamlet)
    workspace.wiki.site.audience = "private"
    try:
        # An API client reads the wiki as its person's wiki user: a member reads a private wiki.
        results = await search(workspace, workspace.hamlet, "budget")
        assert ("page", "Budget") in [(r["type"], r["title"]) for r in results]
        # A bot is no member of the wiki: it reads as anyone would, and a private wiki shows
        # it nothing.
        results = await search(workspace, bot, "budget")
        assert [r for r in results if r["type"] == "page"] == []
    finally:
        workspace.wiki.site.audience = "edit"


async def test_bad_queries(workspace: WorkspaceHarness) -> None:
    assert_json_error(
        await workspace.get("/atrium/search", workspace.hamlet, q="x" * 501),
        "q is too long (limit: 500 characters)",
    )
    assert_json_error(
        await workspace.get("/atrium/search", workspace.hamlet, q="x", limit=0),
        "Invalid limit (between 1 and 50)",
    )
    assert_json_error(
        await workspace.get("/atrium/search", workspace.hamlet),
        "Missing 'q' argument",
        code="REQUEST_VARIABLE_MISSING",
    )
    response = await workspace.get("/atrium/search", None, q="x")
    assert response.status_code == 401
    # Hostile text is only text: no error, no markup from the query.
    results = await search(workspace, workspace.hamlet, '<script>"[[x]] -"')
    assert results == []
    # A narrow the chat refuses is refused as `GET /messages` refuses it.
    assert_json_error(
        await workspace.get("/atrium/search", workspace.hamlet, q="stream:nosuch x"),
        "Invalid narrow operator: unknown stream nosuch",
        code="BAD_NARROW",
    )


async def member_session(ws: WorkspaceHarness, chat_user: Member) -> str:
    """A browser session of a member: one sign-in, to the chat and the wiki."""
    store: SessionStore = ws.app.state.sessions
    token, session = await store.sign_in("chat", chat_user.id)
    assert session.user_id("wiki") == await ws.wiki_user_id(chat_user)
    return token


async def test_wiki_search_page_shows_messages_to_chat_sessions(
    workspace: WorkspaceHarness,
) -> None:
    await seed(workspace)
    transport = httpx.ASGITransport(app=workspace.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
        url = "/w/index.php?title=Special:Search&search=budget&fulltext=1"
        # Not signed in to the chat: pages only.
        page = (await browser.get(url)).text
        assert "atrium-chat-results" not in page
        assert 'href="/wiki/Budget"' in page
        browser.cookies.set(SESSION_COOKIE, await member_session(workspace, workspace.cordelia))
        page = (await browser.get(url)).text
        assert "atrium-chat-results" in page
        assert "Verona &gt; budget" in page
        assert "secret" not in page and "cut is" not in page
        browser.cookies.set(SESSION_COOKIE, await member_session(workspace, workspace.hamlet))
        page = (await browser.get(url)).text
        assert "secret &gt; plans" in page
        # The chat client's twin: the session's wiki user reads the pages.
        body = (await browser.get("/json/atrium/search", params={"q": "budget"})).json()
        assert {r["type"] for r in body["results"]} == {"page", "message"}


async def test_hostile_message_in_wiki_results_is_text(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("Verona", [workspace.hamlet])
    await workspace.send_stream(
        workspace.hamlet,
        "Verona",
        "<img src=x onerror=alert(1)>",
        "budget <script>alert(1)</script>",
    )
    transport = httpx.ASGITransport(app=workspace.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
        browser.cookies.set(SESSION_COOKIE, await member_session(workspace, workspace.hamlet))
        page = (
            await browser.get("/w/index.php?title=Special:Search&search=budget&fulltext=1")
        ).text
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
        # A narrow the chat refuses shows no messages, and the page still answers.
        response = await browser.get(
            "/w/index.php?title=Special:Search&search=stream:nosuch+budget&fulltext=1"
        )
        assert response.status_code == 200 and "atrium-chat-results" not in response.text


async def test_wiki_titles_complete_for_readers_of_the_wiki(workspace: WorkspaceHarness) -> None:
    await seed(workspace)
    await workspace.edit_page("Budgetary rules", "x")
    body = assert_json_success(
        await workspace.get("/atrium/wiki_titles", workspace.hamlet, prefix="bud")
    )
    assert body["titles"] == ["Budget", "Budgetary rules"]
    body = assert_json_success(
        await workspace.get("/atrium/wiki_titles", workspace.hamlet, prefix="Help:B")
    )
    assert body["titles"] == ["Help:Budget forms"]
    assert_json_error(
        await workspace.get("/atrium/wiki_titles", workspace.hamlet, prefix="x" * 256),
        "prefix is too long (limit: 255 characters)",
    )
    assert_json_error(
        await workspace.get("/atrium/wiki_titles", workspace.hamlet, prefix="b", limit=21),
        "Invalid limit (between 1 and 20)",
    )
    assert (await workspace.get("/atrium/wiki_titles", None, prefix="b")).status_code == 401
    bot = await workspace.make_user("helper-bot", bot_owner=workspace.hamlet)
    workspace.wiki.site.audience = "private"
    try:
        body = assert_json_success(
            await workspace.get("/atrium/wiki_titles", workspace.hamlet, prefix="bud")
        )
        assert body["titles"] == ["Budget", "Budgetary rules"]
        body = assert_json_success(await workspace.get("/atrium/wiki_titles", bot, prefix="bud"))
        assert body["titles"] == []
    finally:
        workspace.wiki.site.audience = "edit"
