"""Saving an edit with its templates expanded beforehand, in a rendering thread.

A write runs on the event loop (SQLite's writer), and the link tables of a saved page need its
templates expanded, which may take the whole rendering budget: so the text the edit will save
is predicted and expanded first (`Database.read_rendering`), and the write only checks that it
saves that text. When it saves another one (a conflict merged, a page changed meanwhile), it
gives up with `RenderFirst`, and the text it met is expanded and the write made again.
"""

from __future__ import annotations

from dataclasses import replace

from atrium.core.db import Conn, Database
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
