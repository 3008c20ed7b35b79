"""`action=info`: MediaWiki's "Information for" page: basic facts, protection and the edit
history's first and latest revisions, from the read side the API uses."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.db import Conn, Database, Row
from atrium.wiki import content_models
from atrium.wiki.changes.protection import restriction_of
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web import links
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.skin import render_page
from atrium.wiki.web.texts import text
from atrium.wiki.web.viewer import current_viewer
from atrium.wiki.web.visibility import DELETED_USER, can_see

_LEVELS = {"": "Allow all users", "autoconfirmed": "Allow only autoconfirmed users",
           "sysop": "Allow only administrators"}  # fmt: skip


@dataclass(frozen=True)
class Edit:
    rev_id: int
    user: str | None  # None: hidden
    timestamp: str
    href: str


@dataclass(frozen=True)
class Info:
    page_id: int
    length: int
    redirect: bool
    protection: dict[str, str]
    first: Edit | None
    latest: Edit | None
    model: str = "wikitext"  # the content model's name as readers know it
    # Special:ChangeContentModel for the page, for viewers with `editcontentmodel`.
    change_model_href: str | None = None


def _edit(site: Site, viewer: Account, title: Title, r: Row) -> Edit:
    """A revision row of `page_history` as the table shows it."""
    deleted = int(r["rev_deleted"] or 0)
    return Edit(
        int(r["rev_id"]),
        str(r["actor_name"]) if can_see(viewer, deleted, DELETED_USER) else None,
        local_time(str(r["rev_timestamp"])),
        links.index_href(site, title, oldid=str(r["rev_id"])),
    )


def _info(conn: Conn, site: Site, viewer: Account, title: Title) -> Info | None:
    rows = page_reads.pages_by_titles(conn, [(title.ns, title.dbkey)])
    if not rows:
        return None
    page = rows[0]
    page_id = int(page["page_id"])
    first = page_reads.page_history(conn, page_id, with_text=False, limit=1, newer=True)
    latest = page_reads.page_history(conn, page_id, with_text=False, limit=1, newer=False)
    protection = {
        action: _LEVELS.get(restriction_of(conn, title, action) or "", "Allow all users")
        for action in ("edit", "move")
    }
    return Info(
        page_id,
        int(page["page_len"]),
        bool(page["page_is_redirect"]),
        protection,
        _edit(site, viewer, title, first[0]) if first else None,
        _edit(site, viewer, title, latest[0]) if latest else None,
        text(content_models.name_key(str(page["page_content_model"]))),
        (
            links.special_href(f"ChangeContentModel/{links.prefixed_dbkey(site, title)}")
            if viewer.allowed("editcontentmodel")
            else None
        ),
    )


async def info(request: Request, site: Site, db: Database, title: Title) -> Response:
    viewer = await current_viewer(request, db)
    found = await db.read(_info, site, viewer.account, title)
    name = links.prefixed_text(site, title)
    return await render_page(
        request, site, db, "info.html", {"info": found, "name": name}, title=title,
        heading=f"Information for \"{name}\"", action="info", status=200 if found else 404,
    )  # fmt: skip
