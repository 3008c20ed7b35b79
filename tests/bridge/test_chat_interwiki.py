"""`[[chat:stream/topic]]` in wikitext links to the chat's narrow, through a redirect that tells
nobody which private streams exist."""

from __future__ import annotations

import httpx
import pytest

from tests.bridge.conftest import WorkspaceHarness

pytestmark = pytest.mark.anyio


async def get(ws: WorkspaceHarness, path: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=ws.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
        return await browser.get(path)


async def test_chat_links_in_pages_lead_to_narrows(workspace: WorkspaceHarness) -> None:
    design = await workspace.make_stream("design", [workspace.hamlet])
    await workspace.make_stream("board", [workspace.hamlet], invite_only=True)
    await workspace.edit_page(
        "Meeting notes",
        "See [[chat:design/Meeting notes]], [[chat:board/plans|the board]] and "
        "[[chat:design/<script>alert(1)</script>]].",
    )
    page = (await get(workspace, "/wiki/Meeting_notes")).text
    assert (
        '<a href="/atrium/chat/design/Meeting_notes" class="extiw" '
        'title="chat:design/Meeting notes">chat:design/Meeting notes</a>' in page
    )
    assert (
        '<a href="/atrium/chat/board/plans" class="extiw" title="chat:board/plans">the board</a>'
        in page
    )
    assert "<script>alert" not in page
    # The redirect: a public stream by id, as Zulip links it.
    response = await get(workspace, "/atrium/chat/design/Meeting_notes")
    assert response.status_code == 302
    assert response.headers["location"] == f"/#narrow/stream/{design}-design/topic/Meeting.20notes"
    # A private stream (or none) by name only: its id says it exists.
    response = await get(workspace, "/atrium/chat/board/plans")
    assert response.headers["location"] == "/#narrow/stream/board/topic/plans"
    response = await get(workspace, "/atrium/chat/nowhere")
    assert response.headers["location"] == "/#narrow/stream/nowhere"
    assert (await get(workspace, "/atrium/chat/" + "x" * 400)).status_code == 404
    # The wiki records the link as an interwiki link.
    iw = (
        await get(
            workspace,
            "/w/api.php?action=query&prop=iwlinks&titles=Meeting_notes&format=json&formatversion=2",
        )
    ).json()
    assert {"prefix": "chat", "title": "design/Meeting notes"} in iw["query"]["pages"][0]["iwlinks"]
