"""Marking the pages whose rendering a change alters, as MediaWiki's HTMLCacheUpdate does through
the link tables: the cached rendering of a page (`reads.parsing`) is keyed by its
`page_render_version`, so a page whose version moves is rendered afresh on its next view.

A change of a title alters the pages that transclude it (templatelinks), show it as a red or
blue link (pagelinks, when the title starts or stops existing or being a redirect), embed it
(imagelinks, for a file) or are in it (categorylinks, for a category: its existence and
`__HIDDENCAT__` show in their category box). The pages that transclude a marked page are marked
too, to any depth: a template's own links and templates show through every page that uses it.

The new version is derived from the id of the revision or log entry of the change (ids are never
reused), so two changes never give a page the same version, even after a deletion and
undeletion, and concurrent writers on PostgreSQL need no counter of their own.
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_CATEGORY, NS_FILE, Title

# MediaWiki's $wgMaxTemplateDepth: no rendering reaches further through transclusions.
MAX_DEPTH = 40
_CHUNK = 500


def revision_change(rev_id: int) -> int:
    """The version a change that saved revision `rev_id` gives the pages it touches."""
    return 2 * rev_id


def log_change(log_id: int) -> int:
    """The version a logged change (log entry `log_id`) gives the pages it touches."""
    return 2 * log_id + 1


def _ids(conn: Conn, query: sa.Select[tuple[int]]) -> set[int]:
    return {int(row[0]) for row in conn.tuples(query)}


def _dependents(conn: Conn, title: Title, existence: bool) -> set[int]:
    """The page itself and the pages that show `title` directly."""
    p, tl, pl = schema.page, schema.templatelinks, schema.pagelinks
    found = _ids(
        conn,
        sa.select(p.c.page_id).where(p.c.page_namespace == title.ns, p.c.page_title == title.dbkey),
    )
    found |= _ids(
        conn,
        sa.select(tl.c.tl_from).where(tl.c.tl_namespace == title.ns, tl.c.tl_title == title.dbkey),
    )
    if existence:
        found |= _ids(
            conn,
            sa.select(pl.c.pl_from).where(
                pl.c.pl_namespace == title.ns, pl.c.pl_title == title.dbkey
            ),
        )
    if title.ns == NS_FILE:
        il = schema.imagelinks
        found |= _ids(conn, sa.select(il.c.il_from).where(il.c.il_to == title.dbkey))
    if title.ns == NS_CATEGORY:
        cl = schema.categorylinks
        found |= _ids(conn, sa.select(cl.c.cl_from).where(cl.c.cl_to == title.dbkey))
    return found


def _transcluders(conn: Conn, page_ids: set[int]) -> set[int]:
    """The pages that transclude any of these pages."""
    p, tl = schema.page, schema.templatelinks
    found: set[int] = set()
    ids = sorted(page_ids)
    for start in range(0, len(ids), _CHUNK):
        found |= _ids(
            conn,
            sa.select(tl.c.tl_from)
            .select_from(
                tl.join(
                    p,
                    sa.and_(
                        p.c.page_namespace == tl.c.tl_namespace, p.c.page_title == tl.c.tl_title
                    ),
                )
            )
            .where(p.c.page_id.in_(ids[start : start + _CHUNK])),
        )
    return found


def touch(conn: Conn, titles: Iterable[Title], version: int, *, existence: bool = True) -> None:
    """Give every page whose rendering shows one of `titles` the new render `version` (and a new
    page_touched, as MediaWiki bumps it). `existence`: the titles started or stopped existing or
    being redirects, so the pages linking to them change colour too."""
    marked: set[int] = set()
    for title in titles:
        if title.ns >= 0:
            marked |= _dependents(conn, title, existence)
    touch_pages(conn, marked, version)


def touch_pages(conn: Conn, page_ids: Iterable[int], version: int) -> None:
    """Give these pages, and the pages that transclude them, the new render `version`."""
    marked = set(page_ids)
    fresh = set(marked)
    for _ in range(MAX_DEPTH):
        if not fresh:
            break
        fresh = _transcluders(conn, fresh) - marked
        marked |= fresh
    if not marked:
        return
    p = schema.page
    ids = sorted(marked)
    ts = now14()
    for start in range(0, len(ids), _CHUNK):
        conn.execute(
            sa.update(p)
            .where(p.c.page_id.in_(ids[start : start + _CHUNK]))
            .values(
                page_render_version=version,
                page_touched=sa.case((p.c.page_touched < ts, ts), else_=p.c.page_touched),
            )
        )
