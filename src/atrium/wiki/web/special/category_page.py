"""The member lists of a category page (CategoryViewer): subcategories, pages and files, each in
its section (`#mw-subcategories`, `#mw-pages`, `#mw-category-media`), 200 at a time by sort key
with "previous page" / "next page" links (`subcatfrom`, `pagefrom`, `filefrom` and their `…until`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from markupsafe import Markup
from starlette.requests import Request

from atrium.core.db import Conn, Database
from atrium.wiki.files.paths import hash_path, url_name
from atrium.wiki.reads.categories import MemberPage, member_count, members
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.special.render import Links, template

LIMIT = 200  # $wgCategoryPagingLimit
KINDS = (("subcat", "subcat"), ("page", "page"), ("file", "file"))  # cl_type, parameter prefix
GALLERY_WIDTH = 120


@dataclass(frozen=True)
class Section:
    kind: str
    entries: list[tuple[Title, str, str]]  # title, shown name, first letter of the sort key
    total: int
    prev_until: str | None
    next_from: str | None


def _read(
    conn: Conn, name: str, bounds: dict[str, tuple[str | None, str | None]]
) -> list[tuple[str, MemberPage, int]]:
    out = []
    for kind, _prefix in KINDS:
        start, before = bounds[kind]
        found = members(conn, name, kind, start, before, LIMIT)
        out.append((kind, found, member_count(conn, name, kind)))
    return out


def _section(site: Site, kind: str, found: MemberPage, total: int) -> Section:
    entries = []
    for row in found.rows:
        ns, key = int(row["page_namespace"]), str(row["page_title"])
        title = Title(ns, key)
        shown = (
            key.replace("_", " ")
            if kind != "page" or ns == 0
            else site.parser.prefixed_text(ns, key)
        )
        sortkey = str(row["cl_sortkey"])
        entries.append((title, shown, sortkey[:1].upper() or " "))
    first = str(found.rows[0]["cl_sortkey"]) if found.rows else None
    return Section(kind, entries, total, first if found.has_previous else None, found.next_from)


def thumb_url(site: Site, name: str) -> str:
    safe = url_name(name)
    return f"{site.images_path}thumb/{hash_path(name)}{safe}/{GALLERY_WIDTH}px-{safe}"


async def members_html(request: Request, site: Site, db: Database, title: Title) -> Markup:
    """The three member sections of category `title`, as HTML for the page body."""
    params = request.query_params
    bounds: dict[str, tuple[str | None, str | None]] = {}
    for kind, prefix in KINDS:
        until = params.get(f"{prefix}until")
        start = params.get(f"{prefix}from")
        bounds[kind] = (
            None if until else (start.replace("\x00", "") if start else None),
            until.replace("\x00", "") if until else None,
        )
    found = await db.read(_read, title.dbkey, bounds)
    sections = {kind: _section(site, kind, page, total) for kind, page, total in found}
    return Markup(
        template("category_members.html").render(
            links=Links(site),
            category=title,
            name=title.dbkey.replace("_", " "),
            subcats=sections["subcat"],
            pages=sections["page"],
            files=sections["file"],
            thumb_url=functools.partial(thumb_url, site),
            ns_file=NS_FILE,
        )
    )
