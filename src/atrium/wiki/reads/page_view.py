"""Reading a page for a browser: its current text, its redirect, its rendering, its history.

Everything here runs inside one database read (`Database.read`), so the renderer can ask for
template texts and link targets as it goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.html.media import FileSize
from atrium.wiki.wikitext.html.page import Rendered, Renderer
from atrium.wiki.wikitext.links import redirect_target


@dataclass
class PageView:
    title: Title
    page_id: int | None
    text: str | None  # None: the page does not exist
    rev_id: int = 0
    rendered: Rendered | None = None
    redirected_from: Title | None = None
    redirect_to: Title | None = None  # set when shown without following (redirect=no)
    hidden_categories: set[str] = field(default_factory=set)
    existing_categories: set[str] = field(default_factory=set)


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
    )
    return renderer.render(text)


def view_page(conn: Conn, site: Site, title: Title, follow: bool = True) -> PageView:
    """The page to show for `title`, following one redirect unless `follow` is false."""
    found = current_text(conn, title.ns, title.dbkey)
    if found is None:
        return PageView(title, None, None)
    page_id, rev_id, text = found
    target = redirect_target(text, site.parser)
    if target is not None and not target.interwiki:
        if follow:
            followed = current_text(conn, target.ns, target.dbkey)
            if followed is not None:
                view = PageView(target, followed[0], followed[2], followed[1])
                view.redirected_from = title
                _render(conn, site, view)
                return view
        view = PageView(title, page_id, text, rev_id, redirect_to=target)
        _render(conn, site, view)
        return view
    view = PageView(title, page_id, text, rev_id)
    _render(conn, site, view)
    return view


def _render(conn: Conn, site: Site, view: PageView) -> None:
    assert view.text is not None
    view.rendered = render_text(conn, site, view.title, view.text)
    view.existing_categories, view.hidden_categories = category_flags(
        conn, view.rendered.categories
    )


def history(conn: Conn, page_id: int, limit: int) -> list[Any]:
    return page_reads.page_history(conn, page_id, with_text=False, limit=limit, newer=False)


def raw_text(conn: Conn, ns: int, dbkey: str) -> str | None:
    found = current_text(conn, ns, dbkey)
    return found[2] if found else None
