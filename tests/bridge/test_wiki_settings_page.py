"""`Special:WorkspaceSettings`: the workspace settings in the wiki, for the chat's administrators
only (found through the identity), each change behind the session's token, checked as the
Atrium endpoints check it."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from atrium.core.session_cookies import SESSION_COOKIE
from atrium.core.sessions import SessionStore
from atrium.wiki.reads.users import account_by_name
from tests.bridge.conftest import WorkspaceHarness
from tests.chat.conftest import Member, assert_json_success

pytestmark = pytest.mark.anyio

URL = "/wiki/Special:WorkspaceSettings"
# Where its forms post, as MediaWiki's do.
POST_URL = "/w/index.php?title=Special:WorkspaceSettings"


class Browser:
    def __init__(self, ws: WorkspaceHarness, token: str | None) -> None:
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=ws.app), base_url="http://testserver"
        )
        if token is not None:
            self.client.cookies.set(SESSION_COOKIE, token)

    async def page(self) -> httpx.Response:
        return await self.client.get(URL)

    async def form_token(self) -> str:
        found = re.search(r'name="wpEditToken" value="([^"]*)"', (await self.page()).text)
        assert found is not None
        return found.group(1)

    async def post(self, token: str | None = None, **fields: Any) -> httpx.Response:
        data: dict[str, Any] = dict(fields)
        data["wpEditToken"] = token if token is not None else await self.form_token()
        return await self.client.post(POST_URL, data=data)


async def signed_in(ws: WorkspaceHarness, user: Member) -> Browser:
    store: SessionStore = ws.app.state.sessions
    token, _ = await store.sign_in("chat", user.id)
    return Browser(ws, token)


async def settings(ws: WorkspaceHarness) -> dict[str, Any]:
    body = assert_json_success(await ws.get("/atrium/workspace_settings", ws.iago))
    rules = assert_json_success(await ws.get("/atrium/wiki_feed/rules", ws.iago))["rules"]
    return {"discussion_stream_id": body["discussion_stream_id"], "rules": rules}


async def test_an_administrator_changes_the_settings(workspace: WorkspaceHarness) -> None:
    stream_id = await workspace.make_stream("pages", [workspace.iago])
    await workspace.make_stream("secret", [workspace.hamlet], invite_only=True)
    iago = await signed_in(workspace, workspace.iago)
    page = await iago.page()
    assert page.status_code == 200, page.text
    assert '<option value="0" selected>' in page.text
    assert ">pages</option>" in page.text
    assert "secret" not in page.text  # a private stream they are not in
    done = await iago.post(wpAction="discussion", wpStream=str(stream_id))
    assert done.status_code == 200 and "Your changes have been saved." in done.text
    assert (await settings(workspace))["discussion_stream_id"] == stream_id
    form = await iago.form_token()
    added = await iago.client.post(
        POST_URL,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        content=urlencode([
            ("wpAction", "add"), ("wpStream", str(stream_id)), ("wpScope", "page"),
            ("wpTarget", "meeting notes"), ("wpTopic", ""), ("wpEvents", "edit"),
            ("wpEvents", "create"), ("wpEditToken", form),
        ]),
    )  # fmt: skip
    assert added.status_code == 200, added.text
    assert "page Meeting_notes → #pages (create, edit)" in added.text
    [rule] = (await settings(workspace))["rules"]
    assert rule["target"] == "Meeting_notes" and rule["events"] == ["create", "edit"]
    removed = await iago.post(wpAction="remove", wpRule=str(rule["id"]))
    assert removed.status_code == 200
    assert (await settings(workspace))["rules"] == []


async def test_bad_input_is_refused_as_the_endpoints_refuse_it(
    workspace: WorkspaceHarness,
) -> None:
    stream_id = await workspace.make_stream("pages", [workspace.iago])
    iago = await signed_in(workspace, workspace.iago)
    for fields, error in (
        ({"wpAction": "discussion", "wpStream": "abc"}, "Invalid stream ID"),
        ({"wpAction": "discussion", "wpStream": "999"}, "Invalid stream ID"),
        ({"wpAction": "add", "wpStream": str(stream_id), "wpScope": "everything",
          "wpEvents": "edit"}, "Invalid scope: everything (one of all, namespace, category, page)"),
        ({"wpAction": "add", "wpStream": str(stream_id), "wpScope": "all"}, None),
        ({"wpAction": "remove", "wpRule": "12345"}, "Invalid rule ID"),
        ({"wpAction": "drop tables"}, "Unknown action"),
    ):  # fmt: skip
        response = await iago.post(**fields)
        assert response.status_code == 400, (fields, response.text)
        if error is not None:
            assert error in response.text, fields
    assert await settings(workspace) == {"discussion_stream_id": 0, "rules": []}


async def test_only_the_chats_administrators_may(workspace: WorkspaceHarness) -> None:
    stream_id = await workspace.make_stream("pages", [workspace.hamlet])
    # A member, a guest, a wiki sysop no chat account owns, and an anonymous visitor.
    strangers = [
        await signed_in(workspace, workspace.hamlet),
        await signed_in(workspace, workspace.polonius),
        Browser(workspace, None),
    ]
    admin = await workspace.wiki.db.read(account_by_name, "Admin")
    assert admin is not None
    store: SessionStore = workspace.app.state.sessions
    strangers.append(Browser(workspace, (await store.sign_in("wiki", admin.id))[0]))
    for browser in strangers:
        page = await browser.page()
        assert page.status_code == 403, page.text
        assert "only the chat's administrators may" in page.text
        assert "pages</option>" not in page.text
        form = await browser.form_token() if 'name="wpEditToken"' in page.text else "x"
        response = await browser.post(form, wpAction="discussion", wpStream=str(stream_id))
        assert response.status_code == 403
    assert await settings(workspace) == {"discussion_stream_id": 0, "rules": []}


async def test_a_post_without_the_sessions_token_changes_nothing(
    workspace: WorkspaceHarness,
) -> None:
    stream_id = await workspace.make_stream("pages", [workspace.iago])
    iago = await signed_in(workspace, workspace.iago)
    hamlet = await signed_in(workspace, workspace.hamlet)
    # Hamlet's token from Hamlet's own session, replayed on Iago's (a forged form).
    hamlets = re.search(
        r'name="wpEditToken" value="([^"]*)"',
        (await hamlet.client.get("/wiki/Special:Preferences")).text,
    )
    assert hamlets is not None
    for token in ("", "forged", hamlets.group(1)):
        response = await iago.post(token, wpAction="discussion", wpStream=str(stream_id))
        # MediaWiki's session failure page, at 200 as its error pages answer.
        assert response.status_code == 200
        assert "session hijacking" in response.text
    # The right token, posted from another site's page.
    response = await iago.client.post(
        POST_URL,
        data={"wpAction": "discussion", "wpStream": str(stream_id),
              "wpEditToken": await iago.form_token()},
        headers={"Origin": "https://evil.example"},
    )  # fmt: skip
    assert response.status_code == 200 and "session hijacking" in response.text
    assert await settings(workspace) == {"discussion_stream_id": 0, "rules": []}


async def test_listed_among_the_special_pages(workspace: WorkspaceHarness) -> None:
    iago = await signed_in(workspace, workspace.iago)
    listing = await iago.client.get("/wiki/Special:SpecialPages")
    assert 'href="/wiki/Special:WorkspaceSettings"' in listing.text
