"""Revisions in a browser: `?oldid=N` (an old revision with MediaWiki's notice) and
`?diff=…&oldid=…` (the two-column `table.diff` with revision headers, from the same diff code as
`action=compare`). Hidden text, users and summaries stay hidden from viewers without the rights
to see them, as in the API.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.db import Conn, Database
from atrium.wiki.diff import table_rows
from atrium.wiki.reads import article, comparing, parsing
from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web import links, rollback_links
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.edit_permission import may_edit
from atrium.wiki.web.skin import render_page, trusted
from atrium.wiki.web.viewer import current_viewer
from atrium.wiki.web.visibility import DELETED_COMMENT, DELETED_TEXT, DELETED_USER, can_see


@dataclass(frozen=True)
class Shown:
    """A revision as a header shows it: what the viewer may see of it."""

    rev_id: int
    href: str
    timestamp: str
    user: str | None  # None: hidden
    comment: str | None  # None: hidden
    title: Title
    text_hidden: bool
    latest: bool


def _shown(site: Site, account: Account, rev: comparing.Revision, latest: int) -> Shown:
    return Shown(
        rev.rev_id,
        links.index_href(site, rev.title, oldid=str(rev.rev_id)),
        local_time(rev.timestamp),
        rev.user if can_see(account, rev.deleted, DELETED_USER) else None,
        rev.comment if can_see(account, rev.deleted, DELETED_COMMENT) else None,
        rev.title,
        not can_see(account, rev.deleted, DELETED_TEXT),
        rev.rev_id == latest,
    )


def _latest_id(conn: Conn, title: Title) -> int:
    found = reading.current_text(conn, title.ns, title.dbkey)
    return found[1] if found else 0


async def _missing(
    request: Request, site: Site, db: Database, title: Title, rev_id: str
) -> Response:
    """Article::showMissingRevision: an error on the page, at 200 as MediaWiki 1.39 answers."""
    name = links.prefixed_text(site, title)
    body = (
        f"<p>The revision #{int(rev_id) if rev_id.isdigit() else 0} of the page named "
        f'"{html.escape(name, quote=False)}" does not exist.</p><p>This is usually caused by '
        "following an outdated history link to a page that has been deleted.</p>"
    )
    return await render_page(
        request, site, db, "message.html", {"body_html": trusted(body)}, title=title,
        heading="Error",
    )  # fmt: skip


async def _missing_diff(
    request: Request, site: Site, db: Database, title: Title, ids: list[str]
) -> Response:
    """DifferenceEngine::showMissingRevision: which of the asked revisions were not found
    (`difference-missing-revision`), at 200 as MediaWiki 1.39 answers."""
    asked = [i for i in ids if i.isdigit() and len(i) < 12 and i != "0"]
    missing = [i for i in asked if await db.read(comparing.revision, site, int(i)) is None]
    shown = missing or asked[:1] or ["0"]
    count = len(shown)
    listed = shown[0] if count == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    body = (
        f"<p>{'One revision' if count == 1 else f'{count} revisions'} of this difference "
        f"({html.escape(listed)}) {'was' if count == 1 else 'were'} not found.</p><p>This is "
        "usually caused by following an outdated diff link to a page that has been deleted.</p>"
    )
    return await render_page(
        request, site, db, "message.html", {"body_html": trusted(body)}, title=title,
        heading="Error",
    )  # fmt: skip


async def old_revision(
    request: Request, site: Site, db: Database, title: Title, oldid: str
) -> Response:
    """`?oldid=N`: that revision's content, with the "old revision" notice and navigation."""
    viewer = await current_viewer(request, db)
    rev = await db.read(comparing.revision, site, int(oldid)) if oldid.isdigit() else None
    direction = request.query_params.get("direction")
    if rev is not None and direction in ("prev", "next"):
        rev = await db.read(comparing.neighbour_of, site, rev, direction == "next") or rev
    if rev is None:
        return await _missing(request, site, db, title, oldid)
    latest = await db.read(_latest_id, rev.title)
    shown = (await with_comment_html(db, site, [_shown(site, viewer.account, rev, latest)]))[0]
    content = ""
    if not shown.text_hidden:
        rendered = await db.read_rendering(
            parsing.render_model, site, rev.title, rev.text, rev.model
        )
        content = rendered.html
    context: dict[str, Any] = {
        "rev": shown,
        "content_html": trusted(content),
        "prev_href": links.index_href(site, rev.title, diff="prev", oldid=str(rev.rev_id)),
        "next_href": links.index_href(site, rev.title, diff="next", oldid=str(rev.rev_id)),
        "older_href": links.index_href(site, rev.title, oldid=str(rev.rev_id), direction="prev"),
        "newer_href": links.index_href(site, rev.title, oldid=str(rev.rev_id), direction="next"),
        "latest_href": links.page_href(site, rev.title),
        "latest_diff_href": links.index_href(site, rev.title, diff="cur", oldid=str(rev.rev_id)),
    }
    return await render_page(
        request, site, db, "old_revision.html", context, title=rev.title,
        status=403 if shown.text_hidden else 200,
    )  # fmt: skip


async def _pair(
    db: Database, site: Site, title: Title, diff: str, oldid: str
) -> tuple[comparing.Revision | None, comparing.Revision | None] | None:
    """DifferenceEngine's two revisions for `diff` and `oldid` (None: a side that does not
    exist; the whole None: no such revision)."""

    def load(conn: Conn) -> tuple[comparing.Revision | None, comparing.Revision | None] | None:
        base_id = oldid if oldid.isdigit() else (diff if diff.isdigit() else "")
        if not base_id:
            found = reading.current_text(conn, title.ns, title.dbkey)
            if found is None:
                return None
            base_id = str(found[1])
        base = comparing.revision(conn, site, int(base_id))
        if base is None:
            return None
        if not oldid.isdigit():  # diff=N alone: N against its predecessor
            return comparing.neighbour_of(conn, site, base, later=False), base
        if diff == "prev":
            return comparing.neighbour_of(conn, site, base, later=False), base
        if diff == "next":
            return base, comparing.neighbour_of(conn, site, base, later=True)
        if diff.isdigit() and diff != "0":
            other = comparing.revision(conn, site, int(diff))
            if other is None:
                return None
            older, newer = sorted((base, other), key=lambda r: (r.timestamp, r.rev_id))
            return older, newer
        return base, comparing.current_of_page(conn, site, base.page_id)  # cur, 0, ""

    return await db.read(load)


async def diff_page(
    request: Request, site: Site, db: Database, title: Title, diff: str, oldid: str
) -> Response:
    viewer = await current_viewer(request, db)
    pair = await _pair(db, site, title, diff, oldid)
    if pair is None:
        return await _missing_diff(request, site, db, title, [oldid, diff])
    old, new = pair
    page = (new or old).title if (new or old) is not None else title  # type: ignore[union-attr]
    latest = await db.read(_latest_id, page)
    account = viewer.account
    old_shown = _shown(site, account, old, latest) if old is not None else None
    new_shown = _shown(site, account, new, latest) if new is not None else None
    if old_shown is not None:
        old_shown = (await with_comment_html(db, site, [old_shown]))[0]
    if new_shown is not None:
        new_shown = (await with_comment_html(db, site, [new_shown]))[0]
    hidden = bool(
        (old_shown is not None and old_shown.text_hidden)
        or (new_shown is not None and new_shown.text_hidden)
    )
    rows = ""
    if not hidden and new is not None:
        rows = table_rows(old.text if old is not None else "", new.text)
    content = ""
    if not hidden and new is not None and request.query_params.get("diffonly") != "1":
        content = await db.read_rendering(
            article.revision_html, site, new.title, new.rev_id, new.text, new.model
        )
    can_edit = await may_edit(request, site, db, viewer, page, True)
    rollback = None
    if new is not None and new.rev_id == latest:
        # DifferenceEngine offers rollback on the latest revision's side.
        rollback = await rollback_links.rollback_link(request, site, db, viewer, page, new.page_id)
    context: dict[str, Any] = {
        "old": old_shown,
        "new": new_shown,
        "hidden": hidden,
        "diff_rows": trusted(rows),
        "content_html": trusted(content),
        "rollback": rollback,
        "undo_href": links.index_href(
            site, page, action="edit", undoafter=str(old.rev_id), undo=str(new.rev_id)
        )
        if can_edit and old is not None and new is not None and not hidden
        else "",
        "older_href": links.index_href(site, page, diff="prev", oldid=str(old.rev_id))
        if old is not None
        else "",
        "newer_href": links.index_href(site, page, diff="next", oldid=str(new.rev_id))
        if new is not None and new.rev_id != latest
        else "",
    }
    return await render_page(
        request, site, db, "diff.html", context, title=page,
        heading=f"{links.prefixed_text(site, page)}: Difference between revisions",
        status=403 if hidden else 200,
    )  # fmt: skip
