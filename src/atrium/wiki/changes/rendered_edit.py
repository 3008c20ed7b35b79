"""Saving an edit, a rollback, an undeletion or an upload's description page with the
templates of the text it saves expanded beforehand, in a rendering thread.

A write runs on the event loop (SQLite's writer), and the link tables of a saved page need its
templates expanded, which may take the whole rendering budget: so the text the edit will save
is predicted and expanded first (`Database.read_rendering`), and the write only checks that it
saves that text. When it saves another one (a conflict merged, a page changed meanwhile), it
gives up with `RenderFirst`, and the text it met is expanded and the write made again.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from atrium.core.db import Conn, Database
from atrium.wiki.changes import pageops, uploads
from atrium.wiki.changes.journal import Performer
from atrium.wiki.changes.pages import (
    EditOutcome,
    EditRequest,
    RenderedLinks,
    RenderFirst,
    edit_page,
    predicted_text,
    render_links,
)
from atrium.wiki.site import Site
from atrium.wiki.titles import Title

# Writes given up for a text changed meanwhile before the write expands it itself.
_ATTEMPTS = 3


def _predicted_rendering(conn: Conn, site: Site, req: EditRequest) -> RenderedLinks | None:
    text = predicted_text(conn, site, req)
    return None if text is None else render_links(conn, site, req.title, text)


async def save_edit(db: Database, site: Site, req: EditRequest) -> EditOutcome:
    """`edit_page` in a write, with the expansion of what it saves made outside it."""
    rendered = await db.read_rendering(_predicted_rendering, site, req)
    for _ in range(_ATTEMPTS):
        try:
            return await db.write(
                edit_page, site, replace(req, rendered=rendered, render_outside=True)
            )
        except RenderFirst as again:
            rendered = await db.read_rendering(render_links, site, again.title, again.text)
    return await db.write(edit_page, site, replace(req, rendered=rendered))


async def rollback(
    db: Database, site: Site, who: Performer, title: Title, user: str, summary: str, bot: bool
) -> pageops.RolledBack:
    """`pageops.rollback` with the restored text expanded first (a page changed meanwhile is
    expanded in the write, as before)."""
    rendered = await db.read_rendering(pageops.rollback_rendering, site, title, user)
    return await db.write(pageops.rollback, site, who, title, user, summary, bot, rendered)


async def undelete(
    db: Database,
    site: Site,
    who: Performer,
    title: Title,
    reason: str,
    timestamps: list[str],
    file_ids: list[int] | None = None,
) -> pageops.Restored:
    """`pageops.undelete_page` with the newest restored text expanded first."""
    rendered = await db.read_rendering(
        pageops.undelete_rendering, site, title, timestamps, file_ids
    )
    return await db.write(
        pageops.undelete_page, site, who, title, reason, timestamps, file_ids, rendered
    )


async def publish_upload(
    db: Database,
    site: Site,
    who: Performer,
    files_dir: Path,
    file: uploads.Prepared,
    comment: str,
    text: str | None,
) -> uploads.Published:
    """`uploads.publish` with a new description page's text expanded first."""
    rendered = await db.read_rendering(
        uploads.description_rendering, site, file.title, comment, text
    )
    return await db.write(uploads.publish, site, who, files_dir, file, comment, text, rendered)
