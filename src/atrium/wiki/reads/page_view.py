"""Reading a page for a browser: its current text, what its rendering asks for (template texts,
link targets, files, categories), its history.

Everything here runs inside one database read (`Database.read`), so the renderer can ask for
template texts and link targets as it goes. The page view itself is `reads.article`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.files import thumb_cache
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.html.media import FileSize
from atrium.wiki.wikitext.html.page import Rendered, Renderer


def current_text(conn: Conn, ns: int, dbkey: str) -> tuple[int, int, str] | None:
    """(page id, revision id, text) of a page's current revision."""
    p, r, t = schema.page, schema.revision, schema.text
    row = conn.one(
        sa.select(p.c.page_id, r.c.rev_id, t.c.old_text)
        .select_from(
            p.join(r, r.c.rev_id == p.c.page_latest).join(t, t.c.old_id == r.c.rev_text_id)
        )
        .where(p.c.page_namespace == ns, p.c.page_title == dbkey)
    )
    if row is None:
        return None
    return int(row["page_id"]), int(row["rev_id"]), str(row["old_text"])


def existing(conn: Conn, titles: set[tuple[int, str]]) -> set[tuple[int, str]]:
    return link_states(conn, titles)[0]


def link_states(
    conn: Conn, titles: set[tuple[int, str]]
) -> tuple[set[tuple[int, str]], set[tuple[int, str]]]:
    """The titles that exist, and those of them that are redirects."""
    rows = page_reads.pages_by_titles(conn, titles)
    found = {(int(r["page_namespace"]), str(r["page_title"])) for r in rows}
    redirects = {
        (int(r["page_namespace"]), str(r["page_title"])) for r in rows if r["page_is_redirect"]
    }
    return found, redirects


def category_flags(conn: Conn, names: list[str]) -> tuple[set[str], set[str]]:
    """(existing category pages, hidden ones) among these category dbkeys."""
    if not names:
        return set(), set()
    p, pp = schema.page, schema.page_props
    rows = conn.all(
        sa.select(p.c.page_title, pp.c.pp_propname)
        .select_from(
            p.outerjoin(pp, sa.and_(pp.c.pp_page == p.c.page_id, pp.c.pp_propname == "hiddencat"))
        )
        .where(p.c.page_namespace == 14, p.c.page_title.in_(names))
    )
    found = {str(r["page_title"]) for r in rows}
    hidden = {str(r["page_title"]) for r in rows if r["pp_propname"] is not None}
    return found, hidden


def file_sizes(conn: Conn, names: set[str]) -> dict[str, FileSize]:
    """The stored size of each named file that exists (what `[[File:…]]` shows)."""
    img = schema.image
    rows = conn.all(
        sa.select(img.c.img_name, img.c.img_width, img.c.img_height, img.c.img_media_type).where(
            img.c.img_name.in_(sorted(names))
        )
    )
    return {
        str(r["img_name"]): FileSize(
            int(r["img_width"]), int(r["img_height"]), r["img_media_type"] == "BITMAP"
        )
        for r in rows
    }


def render_text(
    conn: Conn, site: Site, title: Title, text: str, variables: Mapping[str, str] | None = None
) -> Rendered:
    def loader(ns: int, dbkey: str) -> str | None:
        found = current_text(conn, ns, dbkey)
        return found[2] if found else None

    renderer = Renderer(
        site.parser,
        (title.ns, title.dbkey),
        loader,
        lambda titles: existing(conn, titles),
        languages=site.languages,
        files=lambda names: file_sizes(conn, names),
        variables=variables,
        images_path=site.images_path,
        on_thumb=lambda name, width: thumb_cache.record(site.files_dir, name, width),
        interwiki=site.interwiki,
    )
    return renderer.render(text)


def history(conn: Conn, page_id: int, limit: int) -> list[Any]:
    return page_reads.page_history(conn, page_id, with_text=False, limit=limit, newer=False)


def raw_text(conn: Conn, ns: int, dbkey: str) -> str | None:
    found = current_text(conn, ns, dbkey)
    return found[2] if found else None
