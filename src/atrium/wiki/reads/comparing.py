"""Revisions as `action=compare` shows them: text, size, ids, user, comment and deletion bits,
and a revision's neighbours in its page's history."""

from __future__ import annotations

from dataclasses import dataclass

from atrium.core.db import Conn
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads import revisions as revreads
from atrium.wiki.reads.parsing import format_comment
from atrium.wiki.site import Site
from atrium.wiki.titles import Title


@dataclass
class Revision:
    rev_id: int
    page_id: int
    title: Title
    text: str
    size: int
    timestamp: str
    user: str
    user_id: int
    comment: str
    parsed_comment: str
    deleted: int
    model: str = "wikitext"


def _load(conn: Conn, site: Site, rev_id: int) -> Revision | None:
    rows = page_reads.revisions_by_ids(conn, [rev_id], with_text=True)
    if not rows:
        return None
    row = rows[0]
    page = page_reads.pages_by_ids(conn, [int(row["rev_page"])])
    if not page:
        return None
    comment = str(row["comment_text"] or "")
    return Revision(
        int(row["rev_id"]),
        int(row["rev_page"]),
        Title(int(page[0]["page_namespace"]), str(page[0]["page_title"])),
        str(row["old_text"]),
        int(row["rev_len"]),
        str(row["rev_timestamp"]),
        str(row["actor_name"]),
        int(row["actor_user"] or 0),
        comment,
        format_comment(
            conn, site, comment, Title(int(page[0]["page_namespace"]), str(page[0]["page_title"]))
        ),
        int(row["rev_deleted"]),
        str(row["rev_content_model"]),
    )


def revision(conn: Conn, site: Site, rev_id: int) -> Revision | None:
    return _load(conn, site, rev_id)


def current_of_page(conn: Conn, site: Site, page_id: int) -> Revision | None:
    rows = page_reads.pages_by_ids(conn, [page_id])
    return _load(conn, site, int(rows[0]["page_latest"])) if rows else None


def neighbour_of(conn: Conn, site: Site, rev: Revision, later: bool) -> Revision | None:
    """The page's revision just after (`later`) or just before this one."""
    row = revreads.neighbour(conn, rev.page_id, rev.timestamp, rev.rev_id, later)
    return _load(conn, site, int(row["rev_id"])) if row is not None else None
