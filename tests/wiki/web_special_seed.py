"""Factories for the Special page tests: edits that go through the full edit path (so they are in
recent changes and the logs, as a browser's or the API's edits are)."""

from __future__ import annotations

import io
import re

import httpx
from PIL import Image
from tests.wiki.conftest import WikiHarness

from atrium.core.session_cookies import SESSION_COOKIE
from atrium.wiki.changes.pages import Editor, EditRequest, edit_page
from atrium.wiki.reads.users import account_by_name


async def edit(
    wiki: WikiHarness,
    title: str,
    text: str,
    user: str = "Admin",
    summary: str = "",
    minor: bool = False,
    bot: bool = False,
) -> int:
    """Save `text` as `user`; returns the page id."""
    account = await wiki.db.read(account_by_name, user)
    assert account is not None
    request = EditRequest(
        title=wiki.site.parser.parse(title),
        editor=Editor(account.id, account.name, frozenset(account.rights)),
        text=text,
        summary=summary,
        minor=minor,
        bot=bot,
    )
    outcome = await wiki.db.write(lambda conn: edit_page(conn, wiki.site, request))
    return int(outcome.page_id)


def png(width: int, height: int, shade: int = 0) -> bytes:
    """A real PNG image of the given size (colours vary with `shade`, so files differ)."""
    image = Image.new("RGB", (width, height), ((shade * 53) % 256, 120, 200))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def sign_in(wiki: WikiHarness, client: httpx.AsyncClient, name: str) -> None:
    """Sign the client's browser session in to the wiki as `name` (the shared session store,
    as the login form does)."""
    account = await wiki.db.read(account_by_name, name)
    assert account is not None
    store = wiki.app.state.sessions
    token, _session = await store.sign_in("wiki", account.id)
    client.cookies.set(SESSION_COOKIE, token)


async def page_token(client: httpx.AsyncClient) -> str:
    """The form token the pages give this browser (`wpEditToken`)."""
    page = await client.get("/wiki/Special:SpecialPages")
    found = re.search(r'name="wpEditToken" value="([^"]*)"', page.text)
    assert found is not None
    return found.group(1)
