"""Each wiki page's "Chat" tab: the page's topic in the organization's discussion stream, with
its message count shown only to a reader who may read that stream."""

from __future__ import annotations

import re

import httpx
import pytest

from atrium.core.session_cookies import SESSION_COOKIE
from atrium.core.sessions import SessionStore
from tests.bridge.conftest import WorkspaceHarness
from tests.chat.conftest import Member, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio


async def chat_tab(ws: WorkspaceHarness, path: str, as_user: Member | None = None) -> str | None:
    """The `ca-chat` tab's HTML on a page, read by an anonymous browser or by one signed in to
    the chat as `as_user`."""
    transport = httpx.ASGITransport(app=ws.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
        if as_user is not None:
            store: SessionStore = ws.app.state.sessions
            token, _ = await store.sign_in("chat", as_user.id)
            browser.cookies.set(SESSION_COOKIE, token)
        response = await browser.get(path)
        assert response.status_code in (200, 404), response.text  # 404: a missing page
        found = re.search(r'<li id="ca-chat"[^>]*>.*?</li>', response.text)
        return found.group(0) if found else None


async def discuss_in(ws: WorkspaceHarness, stream_id: int) -> None:
    assert_json_success(
        await ws.patch("/atrium/workspace_settings", ws.iago, discussion_stream_id=stream_id)
    )


async def test_no_tab_without_a_discussion_stream(workspace: WorkspaceHarness) -> None:
    await workspace.edit_page("Meeting notes", "Agenda.")
    assert await chat_tab(workspace, "/wiki/Meeting_notes") is None
    body = assert_json_success(await workspace.get("/atrium/workspace_settings", workspace.iago))
    assert body["discussion_stream_id"] == 0


async def test_tab_opens_the_page_topic_with_its_count_for_readers(
    workspace: WorkspaceHarness,
) -> None:
    stream_id = await workspace.make_stream("pages", [workspace.hamlet, workspace.cordelia])
    await discuss_in(workspace, stream_id)
    await workspace.edit_page("Meeting notes", "Agenda.")
    await workspace.send_stream(workspace.hamlet, "pages", "Meeting notes", "first")
    await workspace.send_stream(workspace.cordelia, "pages", "meeting NOTES", "second")
    await workspace.send_stream(workspace.cordelia, "pages", "Other", "elsewhere")
    href = f"/#narrow/stream/{stream_id}/topic/Meeting.20notes"
    # Anonymous readers get the link, not the count.
    assert await chat_tab(workspace, "/wiki/Meeting_notes") == (
        f'<li id="ca-chat" class="mw-list-item"><a href="{href}">Chat</a></li>'
    )
    assert await chat_tab(workspace, "/wiki/Meeting_notes", workspace.hamlet) == (
        f'<li id="ca-chat" class="mw-list-item"><a href="{href}">Chat (2)</a></li>'
    )
    # The talk page's tab is the subject page's topic.
    assert href in (await chat_tab(workspace, "/wiki/Talk:Meeting_notes", workspace.hamlet) or "")
    # A page without messages yet: zero, and still the topic to start.
    assert "Chat (0)" in (await chat_tab(workspace, "/wiki/Nothing_yet", workspace.hamlet) or "")


async def test_private_stream_counts_reach_only_its_readers(workspace: WorkspaceHarness) -> None:
    stream_id = await workspace.make_stream("board-secrets", [workspace.hamlet], invite_only=True)
    await discuss_in(workspace, stream_id)
    await workspace.edit_page("Budget", "Numbers.")
    await workspace.send_stream(workspace.hamlet, "board-secrets", "Budget", "cut it")
    for outsider in (None, workspace.cordelia, workspace.polonius, workspace.desdemona):
        tab = await chat_tab(workspace, "/wiki/Budget", outsider)
        assert tab is not None and ">Chat<" in tab, outsider
    assert ">Chat (1)<" in (await chat_tab(workspace, "/wiki/Budget", workspace.hamlet) or "")
    # Nor its name: the tab names the stream by id.
    transport = httpx.ASGITransport(app=workspace.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
        page = (await browser.get("/wiki/Budget")).text
    assert "board-secrets" not in page


async def test_protected_history_counts_only_what_the_reader_received(
    workspace: WorkspaceHarness,
) -> None:
    stream_id = await workspace.make_stream(
        "closed", [workspace.hamlet], invite_only=True, history_public_to_subscribers=False
    )
    await discuss_in(workspace, stream_id)
    await workspace.send_stream(workspace.hamlet, "closed", "Plans", "before cordelia came")
    await workspace.subscribe(workspace.cordelia, "closed", by=workspace.desdemona)
    await workspace.send_stream(workspace.hamlet, "closed", "Plans", "after")
    assert ">Chat (2)<" in (await chat_tab(workspace, "/wiki/Plans", workspace.hamlet) or "")
    assert ">Chat (1)<" in (await chat_tab(workspace, "/wiki/Plans", workspace.cordelia) or "")


async def test_settings_are_for_administrators_and_checked(workspace: WorkspaceHarness) -> None:
    stream_id = await workspace.make_stream("pages", [workspace.hamlet])
    assert_json_error(
        await workspace.patch(
            "/atrium/workspace_settings", workspace.hamlet, discussion_stream_id=stream_id
        ),
        "Must be an organization administrator",
        code="UNAUTHORIZED_PRINCIPAL",
    )
    assert_json_error(
        await workspace.patch(
            "/atrium/workspace_settings", workspace.iago, discussion_stream_id=999
        ),
        "Invalid stream ID",
    )
    assert_json_error(
        await workspace.patch(
            "/atrium/workspace_settings", workspace.iago, discussion_stream_id="x"
        ),
        "discussion_stream_id is not valid JSON",
    )
    await discuss_in(workspace, stream_id)
    assert assert_json_success(await workspace.get("/atrium/workspace_settings", workspace.desdemona)) == {
        "result": "success", "msg": "", "discussion_stream_id": stream_id,
    }  # fmt: skip
    await discuss_in(workspace, 0)
    await workspace.edit_page("Meeting notes", "Agenda.")
    assert await chat_tab(workspace, "/wiki/Meeting_notes") is None
