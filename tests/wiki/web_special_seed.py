"""Factories for the Special page tests: edits that go through the full edit path (so they are in
recent changes and the logs, as a browser's or the API's edits are)."""

from __future__ import annotations

from tests.wiki.conftest import WikiHarness

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
